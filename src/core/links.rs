//! Waits with a cancellation token: each has a link record here, kept on
//! its source's list, so a canceled source finds its waits without
//! visiting any other (the timing queues keep a wait's record where its due
//! time puts it, and look at it only when it is due).
//!
//! A link is on one list at a time:
//! - its source's list (scheduling order), while the wait is pending and
//!   the runtime has not seen the source canceled;
//! - its timing's canceled list, once the runtime has seen the source
//!   canceled (the next run of the timing completes it canceled; the
//!   wait's record in the queues is then dead: skipped when met);
//! - none, once the source was destroyed without being canceled (the
//!   wait can no longer be canceled), or while a run holds it.
//!
//! Lists are doubly linked through the links (`index + 1`, 0 ends a list),
//! so every move is O(1) and allocates nothing; only [`Links::reserve`]
//! allocates (fallibly), when a wait with a token is scheduled.

use super::error::{Error, Result};
use super::timing::{Wait, CANCELED_STUB, SEQ_SHIFT};
use super::types::TIMING_COUNT;

/// `Node::list` values other than a source index (indices are < 2^22).
const ON_NONE: u32 = u32::MAX;
const ON_CANCELED: u32 = u32::MAX - 1;
const ON_RUN: u32 = u32::MAX - 2;
const ON_FREE: u32 = u32::MAX - 3;

/// Where a wait's link is, as the run that meets its record sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkState {
    /// Pending; `token` is its source's handle (0: the source was
    /// destroyed uncanceled).
    Live { token: u64 },
    /// On its timing's canceled list: complete it canceled now.
    Canceled,
    /// Completed, or taken by a run that completes it: the record is dead.
    Gone,
}

struct Node {
    /// The source's handle; 0 once detached.
    token: u64,
    /// The wait (its record as queued; `link` is this node's link).
    wait: Wait,
    prev: u32,
    next: u32,
    /// Bumped when freed: a dead record's link no longer matches.
    gen: u32,
    list: u32,
    timing: u8,
}

/// A list's first and last link (`index + 1`; 0: empty).
#[derive(Clone, Copy, Default)]
struct Ends {
    head: u32,
    tail: u32,
}

/// The links of every wait with a token.
#[derive(Default)]
pub struct Links {
    nodes: Vec<Node>,
    /// Free nodes (`index + 1`, through `next`).
    free: u32,
    live: u64,
    /// Per cancellation source slot index: its waits.
    sources: Vec<Ends>,
    /// Per timing: the waits whose source the runtime has seen canceled.
    canceled: [Ends; TIMING_COUNT],
    /// Per timing: records in the queues whose link went to the canceled
    /// list or was freed (dead records, skipped when met).
    pub dead: [u64; TIMING_COUNT],
}

#[inline]
fn link_of(idx: u32, gen: u32) -> u64 {
    (gen as u64) << 32 | (idx as u64 + 1)
}

impl Links {
    /// Room for one more link of source slot `src`. Nothing changes on
    /// failure (`OutOfMemory`).
    pub fn reserve(&mut self, src: u32) -> Result<()> {
        let src = src as usize;
        if self.sources.len() <= src {
            self.sources.try_reserve(src + 1 - self.sources.len()).map_err(|_| Error::OutOfMemory)?;
            self.sources.resize(src + 1, Ends::default());
        }
        if self.free == 0 && self.nodes.len() == self.nodes.capacity() {
            self.nodes.try_reserve(1).map_err(|_| Error::OutOfMemory)?;
        }
        Ok(())
    }

    /// Adds the link of `wait` (token `token`, of source slot `src`, on
    /// `timing`) after [`Links::reserve`]: on the source's list, or
    /// straight on the timing's canceled list when `canceled` (the source
    /// is canceled already: no record goes to the queues). Returns the link.
    pub fn add(&mut self, src: u32, token: u64, timing: usize, wait: &Wait, canceled: bool) -> u64 {
        let node = |gen| Node { token, wait: *wait, prev: 0, next: 0, gen, list: ON_NONE, timing: timing as u8 };
        let idx = if self.free != 0 {
            let idx = self.free - 1;
            let n = &mut self.nodes[idx as usize];
            self.free = n.next;
            *n = node(n.gen);
            idx
        } else {
            self.nodes.push(node(0));
            (self.nodes.len() - 1) as u32
        };
        self.live += 1;
        let link = link_of(idx, self.nodes[idx as usize].gen);
        self.nodes[idx as usize].wait.link = link;
        if canceled {
            self.push_back(idx, ON_CANCELED, timing);
        } else {
            self.push_back(idx, src, timing);
        }
        link
    }

    /// The node of a link that still matches (`None`: freed since).
    #[inline]
    fn index_of(&self, link: u64) -> Option<u32> {
        let idx = (link as u32).wrapping_sub(1);
        let n = self.nodes.get(idx as usize)?;
        (n.gen == (link >> 32) as u32 && n.list != ON_FREE).then_some(idx)
    }

    /// Where `link` is, for a run that meets its record.
    #[inline]
    pub fn state(&self, link: u64) -> LinkState {
        match self.index_of(link) {
            None => LinkState::Gone,
            Some(i) => {
                let n = &self.nodes[i as usize];
                match n.list {
                    ON_CANCELED => LinkState::Canceled,
                    ON_RUN => LinkState::Gone,
                    _ => LinkState::Live { token: n.token },
                }
            }
        }
    }

    /// The wait of `link` completes: off its list, freed. A link that no
    /// longer matches is left alone.
    pub fn finish(&mut self, link: u64) {
        if let Some(idx) = self.index_of(link) {
            self.unlink(idx);
            let n = &mut self.nodes[idx as usize];
            n.gen = n.gen.wrapping_add(1);
            n.list = ON_FREE;
            n.next = self.free;
            self.free = idx + 1;
            self.live -= 1;
        }
    }

    /// The runtime has seen source slot `src` canceled: each of its waits
    /// goes to its timing's canceled list (scheduling order), its record in
    /// the queues is dead from now on.
    pub fn cancel_source(&mut self, src: u32) {
        let Some(ends) = self.sources.get_mut(src as usize) else { return };
        let mut cur = std::mem::take(ends).head;
        while cur != 0 {
            let idx = cur - 1;
            let (next, t) = {
                let n = &self.nodes[idx as usize];
                (n.next, n.timing as usize)
            };
            self.dead[t] += 1;
            self.push_back(idx, ON_CANCELED, t);
            cur = next;
        }
    }

    /// Source slot `src` was destroyed uncanceled: its waits can no longer
    /// be canceled.
    pub fn detach_source(&mut self, src: u32) {
        let Some(ends) = self.sources.get_mut(src as usize) else { return };
        let mut cur = std::mem::take(ends).head;
        while cur != 0 {
            let n = &mut self.nodes[cur as usize - 1];
            cur = n.next;
            *n = Node { token: 0, prev: 0, next: 0, list: ON_NONE, ..*n };
        }
    }

    /// Whether timing `t` has waits on its canceled list.
    #[inline]
    pub fn has_canceled(&self, t: usize) -> bool {
        self.canceled[t].head != 0
    }

    /// Takes the waits of timing `t`'s canceled list scheduled before
    /// `seq_limit` (all with `u64::MAX`), at most `max` of them, handing
    /// each to `out` as a record that completes canceled (its link is then
    /// held by the run: [`Links::finish`] it when it runs).
    pub fn take_canceled(&mut self, t: usize, seq_limit: u64, max: usize, mut out: impl FnMut(Wait)) -> usize {
        let mut cur = self.canceled[t].head;
        let mut taken = 0;
        while cur != 0 && taken < max {
            let idx = cur - 1;
            let n = &self.nodes[idx as usize];
            cur = n.next;
            if n.wait.meta >> SEQ_SHIFT >= seq_limit {
                continue;
            }
            let w = Wait { meta: n.wait.meta | CANCELED_STUB, ..n.wait };
            self.unlink(idx);
            self.nodes[idx as usize].list = ON_RUN;
            out(w);
            taken += 1;
        }
        taken
    }

    /// Link storage: (records allocated, in use).
    pub fn storage(&self) -> (u64, u64) {
        (self.nodes.capacity() as u64, self.live)
    }

    /// Appends `idx` to list `list` (a source slot, or `ON_CANCELED` of
    /// timing `t`).
    fn push_back(&mut self, idx: u32, list: u32, t: usize) {
        let tail = self.ends(list, t).tail;
        {
            let n = &mut self.nodes[idx as usize];
            n.list = list;
            n.prev = tail;
            n.next = 0;
        }
        if tail != 0 {
            self.nodes[tail as usize - 1].next = idx + 1;
        }
        let e = self.ends(list, t);
        if e.head == 0 {
            e.head = idx + 1;
        }
        e.tail = idx + 1;
    }

    /// Takes `idx` off the list it is on (if any).
    fn unlink(&mut self, idx: u32) {
        let Node { prev, next, list, timing, .. } = self.nodes[idx as usize];
        if list == ON_NONE || list == ON_RUN || list == ON_FREE {
            return;
        }
        if prev != 0 {
            self.nodes[prev as usize - 1].next = next;
        } else {
            self.ends(list, timing as usize).head = next;
        }
        if next != 0 {
            self.nodes[next as usize - 1].prev = prev;
        } else {
            self.ends(list, timing as usize).tail = prev;
        }
        let n = &mut self.nodes[idx as usize];
        (n.prev, n.next, n.list) = (0, 0, ON_NONE);
    }

    fn ends(&mut self, list: u32, t: usize) -> &mut Ends {
        if list == ON_CANCELED {
            &mut self.canceled[t]
        } else {
            &mut self.sources[list as usize]
        }
    }
}
