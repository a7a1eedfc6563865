//! Far-future waits of one timing: DelayFrame waits due after the next
//! frame and every Delay, kept where their due time puts them so that a run
//! looks only at those that are due (issue 17: a tick's cost follows the
//! waits that are due, not those pending).
//!
//! | piece | what |
//! |---|---|
//! | `slab` | the records (a free list reuses them) |
//! | `heaps[0]` | min-heap of (due frame, sequence, slot): DelayFrame |
//! | `heaps[1 + clock]` | min-heap of (due time, sequence, slot): Delay on that clock |
//! | `tokened` | (slot, sequence) of the records with a token: what a canceled token is looked for in |
//!
//! A run [`Far::release`]s the records whose key has come, and, when the
//! runtime's cancel epoch moved since this timing last looked, those whose
//! token is canceled ([`Far::sweep`]); the run holds them (by slot) and
//! either resumes them ([`Far::free`]) or files them again ([`Far::refile`],
//! a Delay whose clock came before its frame). Costs: filing O(log n);
//! a run O(due · log n), plus O(waits with a token on this timing) after a
//! cancel; heap entries of records taken by a sweep are dropped lazily and
//! the heaps compacted when they are mostly stale.
//!
//! Every allocation is fallible: [`Far::push`] reserves what the record
//! will ever need (so a run never allocates here), and a run that cannot
//! grow its list of held slots leaves the rest for a later run.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::ffi::c_void;

use super::due::{time_key, time_of_key};
use super::{Now, Wait};
use crate::core::error::{Error, Result};
use crate::core::types::{CallbackFn, WaitKind, WAIT_KIND_COUNT};

/// A heap entry: (key, sequence, slot).
type Entry = Reverse<(u64, u64, u32)>;

/// Where a slab record is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Free,
    /// In a heap (one entry matches it by sequence).
    Filed,
    /// Held by the run in progress: due (released from its heap).
    Held,
    /// Held by the run in progress: its token was seen canceled.
    Swept,
}

struct Rec {
    w: Wait,
    place: Place,
}

/// The far-future waits of one timing.
#[derive(Default)]
pub struct Far {
    slab: Vec<Rec>,
    /// Free slab slots; its capacity covers the slab's, so freeing never
    /// allocates.
    free: Vec<u32>,
    heaps: [BinaryHeap<Entry>; 4],
    tokened: Vec<(u32, u64)>,
    /// Entries of `tokened` still filed (the rest are dropped lazily).
    tokened_live: usize,
    /// Records filed (in a heap and not taken).
    filed: usize,
    /// Heap entries whose record was taken by a sweep.
    stale: usize,
    /// The cancel epoch this timing's records were last swept at.
    pub seen_epoch: u64,
}

impl Far {
    /// Which heap and key a record is filed under.
    #[inline]
    fn key(w: &Wait) -> (usize, u64) {
        if w.kind() == WaitKind::Delay {
            (1 + w.clock(), time_key(w.due_time))
        } else {
            (0, w.due_frame())
        }
    }

    /// Files a wait; returns its slot. Nothing changes on failure
    /// (`OutOfMemory`).
    pub fn push(&mut self, w: Wait) -> Result<u32> {
        let (h, key) = Self::key(&w);
        let oom = |_| Error::OutOfMemory;
        self.heaps[h].try_reserve(1).map_err(oom)?;
        if w.token != 0 {
            self.tokened.try_reserve(1).map_err(oom)?;
        }
        let slot = match self.free.pop() {
            Some(s) => s,
            None => {
                self.slab.try_reserve(1).map_err(oom)?;
                if let Err(e) = self.free.try_reserve(self.slab.len() + 1) {
                    return Err(oom(e));
                }
                self.slab.push(Rec { w, place: Place::Free });
                (self.slab.len() - 1) as u32
            }
        };
        self.slab[slot as usize] = Rec { w, place: Place::Filed };
        self.heaps[h].push(Reverse((key, w.seq, slot)));
        if w.token != 0 {
            self.tokened.push((slot, w.seq));
            self.tokened_live += 1;
        }
        self.filed += 1;
        Ok(slot)
    }

    /// Records filed and not yet taken by a run.
    #[inline]
    pub fn filed(&self) -> usize {
        self.filed
    }

    /// Whether a heap entry still names its record as filed.
    #[inline]
    fn matches(&self, seq: u64, slot: u32) -> bool {
        let r = &self.slab[slot as usize];
        r.place == Place::Filed && r.w.seq == seq
    }

    /// Takes filed record `slot` for the run (into `out`).
    #[inline]
    fn hold(&mut self, slot: u32, out: &mut Vec<u32>) {
        let r = &mut self.slab[slot as usize];
        r.place = Place::Held;
        if r.w.token != 0 {
            self.tokened_live -= 1;
        }
        self.filed -= 1;
        out.push(slot);
    }

    /// Moves into `out` (held slots) the records whose key has come at
    /// `now` (every record with `all`), as many as `out` has room for after
    /// a fallible reserve; the others stay for a later run.
    pub fn release(&mut self, now: &Now, all: bool, out: &mut Vec<u32>) {
        if self.filed == 0 {
            return;
        }
        for h in 0..self.heaps.len() {
            while let Some(&Reverse((key, seq, slot))) = self.heaps[h].peek() {
                // The due rule (`due.rs`): heap 0 holds due frames, the
                // others due times on clock `h - 1`.
                let come = all || if h == 0 { now.frame_come(key) } else { now.time_come(h - 1, time_of_key(key)) };
                if !come {
                    break;
                }
                if !self.matches(seq, slot) {
                    self.heaps[h].pop();
                    self.stale = self.stale.saturating_sub(1);
                    continue;
                }
                if out.len() == out.capacity() && out.try_reserve(out.len().max(16)).is_err() {
                    return;
                }
                self.heaps[h].pop();
                self.hold(slot, out);
            }
        }
    }

    /// Moves into `out` the filed records scheduled up to sequence `limit`
    /// whose token is `canceled` (as room allows, like [`Far::release`]),
    /// and drops the stale entries of the token list.
    pub fn sweep(&mut self, limit: u64, canceled: impl Fn(u64) -> bool, out: &mut Vec<u32>) {
        let mut i = 0;
        while i < self.tokened.len() {
            let (slot, seq) = self.tokened[i];
            let r = &self.slab[slot as usize];
            if r.place == Place::Free || r.w.seq != seq {
                self.tokened.swap_remove(i);
                continue;
            }
            if r.place == Place::Filed && seq <= limit && canceled(self.slab[slot as usize].w.token) {
                if out.len() == out.capacity() && out.try_reserve(out.len().max(16)).is_err() {
                    return;
                }
                self.tokened.swap_remove(i);
                self.hold(slot, out);
                self.slab[slot as usize].place = Place::Swept;
                self.stale += 1;
                continue;
            }
            i += 1;
        }
    }

    /// The record of held slot `slot`.
    #[inline]
    pub fn get(&self, slot: u32) -> &Wait {
        &self.slab[slot as usize].w
    }

    /// Whether held slot `slot` was taken because its token is canceled.
    #[inline]
    pub fn swept(&self, slot: u32) -> bool {
        self.slab[slot as usize].place == Place::Swept
    }

    /// The record of held slot `slot`, for re-pointing its token.
    #[inline]
    fn held_mut(&mut self, slot: u32) -> Option<&mut Wait> {
        let r = &mut self.slab[slot as usize];
        (r.place != Place::Free).then_some(&mut r.w)
    }

    /// A held record resumed: its slot is free again (no allocation).
    #[inline]
    pub fn free(&mut self, slot: u32) {
        self.slab[slot as usize].place = Place::Free;
        self.free.push(slot);
    }

    /// A held record not due after all (a Delay whose clock came before
    /// its frame, or whose realtime clock went back): filed again. No
    /// allocation (its entry was popped).
    pub fn refile(&mut self, slot: u32) {
        let w = self.slab[slot as usize].w;
        let (h, key) = Self::key(&w);
        self.slab[slot as usize].place = Place::Filed;
        self.heaps[h].push(Reverse((key, w.seq, slot)));
        // Its entry in `tokened` is still there (a sweep keeps the entries
        // of held records and takes only canceled ones, which are never
        // refiled).
        if w.token != 0 {
            self.tokened_live += 1;
        }
        self.filed += 1;
    }

    /// Drops stale heap entries when they outnumber the filed records, and
    /// gives storage back when nothing is filed (keeping `cap` records).
    pub fn compact(&mut self, cap: usize) -> u64 {
        if self.stale > self.filed + 64 {
            for h in 0..self.heaps.len() {
                let heap = std::mem::take(&mut self.heaps[h]);
                let mut v = heap.into_vec();
                v.retain(|&Reverse((_, seq, slot))| self.matches(seq, slot));
                self.heaps[h] = BinaryHeap::from(v);
            }
            self.stale = 0;
        }
        if self.tokened.len() > 2 * self.tokened_live + 64 {
            let mut v = std::mem::take(&mut self.tokened);
            v.retain(|&(slot, seq)| self.matches(seq, slot));
            self.tokened = v;
        }
        let mut discarded = 0;
        if self.filed == 0 && self.slab.len() == self.free.len() && self.slab.capacity() > cap {
            // Nothing filed or held: start over with `cap` records (if the
            // allocator gives them; the rest grows on demand).
            discarded = (self.slab.capacity() - cap) as u64;
            let mut slab = Vec::new();
            let _ = slab.try_reserve_exact(cap);
            self.slab = slab;
            self.free = Vec::new();
            self.heaps = Default::default();
            self.tokened = Vec::new();
            self.tokened_live = 0;
            self.stale = 0;
        }
        discarded
    }

    /// Applies `f` to every record not free (filed or held).
    fn each(&mut self, mut f: impl FnMut(&mut Wait)) {
        for slot in 0..self.slab.len() as u32 {
            if let Some(w) = self.held_mut(slot) {
                f(w);
            }
        }
    }

    /// Moves every due frame and realtime due time as [`Timings::rebase`]
    /// says (first frame), and re-keys the heaps.
    ///
    /// [`Timings::rebase`]: super::Timings
    pub fn rebase(&mut self, mut f: impl FnMut(&mut Wait)) {
        if self.filed == 0 {
            return;
        }
        self.each(&mut f);
        for h in 0..self.heaps.len() {
            let heap = std::mem::take(&mut self.heaps[h]);
            let mut v = heap.into_vec();
            v.retain(|&Reverse((_, seq, slot))| self.matches(seq, slot));
            for Reverse(e) in v.iter_mut() {
                e.0 = Self::key(&self.slab[e.2 as usize].w).1;
            }
            self.heaps[h] = BinaryHeap::from(v);
        }
        self.stale = 0;
    }

    /// Re-points every record holding `token` at `to`, filed or held by
    /// the run in progress (`tokened_live` counts only the filed ones).
    pub fn repoint(&mut self, token: u64, to: u64) {
        if self.tokened.is_empty() {
            return;
        }
        for i in 0..self.tokened.len() {
            let slot = self.tokened[i].0;
            if let Some(w) = self.held_mut(slot) {
                if w.token == token {
                    w.token = to;
                }
            }
        }
    }

    /// Drops every filed callback wait calling `func` with `user`; adds
    /// how many of each kind to `canceled`.
    pub fn forget(&mut self, func: CallbackFn, user: *mut c_void, canceled: &mut [u64; WAIT_KIND_COUNT]) {
        for slot in 0..self.slab.len() as u32 {
            let r = &self.slab[slot as usize];
            if r.place == Place::Filed && r.w.func.is_some_and(|f| f as usize == func as usize) && r.w.user == user {
                canceled[r.w.kind() as usize] += 1;
                if r.w.token != 0 {
                    self.tokened_live -= 1;
                }
                self.filed -= 1;
                self.stale += 1;
                self.free(slot);
            }
        }
    }

    /// Retires the callback wait in `slot` whose sequence number has the low
    /// bits `seq_low` (`mask`) and whose user pointer is `user`: a filed one
    /// is dropped now (`Some(kind)`: count it canceled), one held by the run
    /// in progress is marked (`None`: the run drops it, see
    /// [`super::Wait::retire`]). `Err` when no such wait is pending.
    pub fn retire(&mut self, slot: u32, seq_low: u64, mask: u64, user: *mut c_void) -> Result<Option<WaitKind>> {
        let Some(r) = self.slab.get_mut(slot as usize) else { return Err(Error::StaleHandle) };
        if r.place == Place::Free || r.w.seq & mask != seq_low || r.w.user != user || r.w.func.is_none() {
            return Err(Error::StaleHandle);
        }
        if r.place != Place::Filed {
            r.w.retire();
            return Ok(None);
        }
        let kind = r.w.kind();
        if r.w.token != 0 {
            self.tokened_live -= 1;
        }
        self.filed -= 1;
        self.stale += 1;
        self.free(slot);
        Ok(Some(kind))
    }

    /// Record storage allocated.
    pub fn capacity(&self) -> usize {
        self.slab.capacity()
    }
}
