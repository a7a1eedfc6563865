//! WhenAny / WhenAll coordinators, the watches that cancel them with their
//! token, and the pools they are rented from (buckets of up to 16 inputs,
//! up to 32, and larger ones, never pooled).
//!
//! A coordinator counts its inputs as they complete and decides what its
//! output completes with ([`AnyCoord::on_input`], [`AllCoord::on_input`]);
//! the runtime (`when.rs`) wires inputs to it, consumes them and completes
//! the output. Both kinds start with a [`Header`], so setup, watches and
//! cancellation are written once for both.

use super::error::Result;
use super::fallible;
use super::pool::{BoxPool, PoolStats};
use super::types::{Outcome, TaskState};

/// No watch (no token, or no longer watched).
pub const NO_WATCH: u32 = u32::MAX;

/// The part of a coordinator setup, watches and cancellation use.
#[repr(C)]
pub struct Header {
    /// The output task.
    pub out: u64,
    /// Cancellation token (0: none).
    pub token: u64,
    /// Inputs not yet completed (the coordinator lives until 0).
    pub remaining: u32,
    /// Index in the watch list, or [`NO_WATCH`].
    pub watch: u32,
    /// The output was completed (or is being canceled).
    pub done: bool,
    /// Pool bucket (0: up to 16 inputs, 1: up to 32, 2: larger).
    pub bucket: u8,
    /// Creation order (a runtime-wide counter): combinators canceled by the
    /// same poll complete in this order.
    pub seq: u64,
}

impl Header {
    const EMPTY: Header = Header { out: 0, token: 0, remaining: 0, watch: NO_WATCH, done: false, bucket: 0, seq: 0 };

    fn reset(&mut self, n: usize, out: u64, token: u64, seq: u64) {
        *self = Header { out, token, remaining: n as u32, watch: NO_WATCH, done: false, bucket: bucket_of(n), seq };
    }
}

/// A WhenAny: completes like its first input to complete.
#[repr(C)]
pub struct AnyCoord {
    pub h: Header,
}

/// A WhenAll: completes once every input has, with the first failure (in
/// completion order) or success.
#[repr(C)]
pub struct AllCoord {
    pub h: Header,
    /// Per-input outcomes (readable until the output is consumed).
    pub outcomes: Vec<Outcome>,
    /// The output was consumed: free the coordinator once inputs are done.
    pub out_released: bool,
    /// Index of the first input that failed or was canceled.
    pub first_fail: u32,
}

/// A coordinator kind.
pub trait Coordinator: Sized {
    /// A new coordinator with room for `cap` inputs (`OutOfMemory`).
    fn make(cap: usize) -> Result<Box<Self>>;
    fn header(&mut self) -> &mut Header;
    /// Prepares it for `n` inputs (at most the `cap` it was made with: no
    /// allocation).
    fn reset(&mut self, n: usize, out: u64, token: u64, seq: u64);
    fn pools(c: &mut Combinators) -> &mut [BoxPool<Self>; 3];
}

impl Coordinator for AnyCoord {
    fn make(_cap: usize) -> Result<Box<Self>> {
        fallible::try_box(|| AnyCoord { h: Header::EMPTY })
    }
    fn header(&mut self) -> &mut Header {
        &mut self.h
    }
    fn reset(&mut self, n: usize, out: u64, token: u64, seq: u64) {
        self.h.reset(n, out, token, seq);
    }
    fn pools(c: &mut Combinators) -> &mut [BoxPool<Self>; 3] {
        &mut c.any
    }
}

impl Coordinator for AllCoord {
    fn make(cap: usize) -> Result<Box<Self>> {
        let outcomes = fallible::vec_with_capacity(cap)?;
        fallible::try_box(move || AllCoord { h: Header::EMPTY, outcomes, out_released: false, first_fail: u32::MAX })
    }
    fn header(&mut self) -> &mut Header {
        &mut self.h
    }
    fn reset(&mut self, n: usize, out: u64, token: u64, seq: u64) {
        self.h.reset(n, out, token, seq);
        self.outcomes.clear();
        debug_assert!(self.outcomes.capacity() >= n, "made for fewer inputs");
        self.outcomes.resize(n, Outcome::PENDING);
        self.out_released = false;
        self.first_fail = u32::MAX;
    }
    fn pools(c: &mut Combinators) -> &mut [BoxPool<Self>; 3] {
        &mut c.all
    }
}

impl AnyCoord {
    /// Input `i` completed with `outcome`: what the output completes with
    /// (the first input only).
    #[inline]
    pub fn on_input(&mut self, i: u32, outcome: Outcome) -> Option<Outcome> {
        self.h.remaining -= 1;
        if self.h.done {
            return None;
        }
        self.h.done = true;
        Some(Outcome { index: i, ..outcome })
    }
}

impl AllCoord {
    /// Input `i` completed with `outcome`: what the output completes with
    /// (once every input has), value = input count when all succeeded.
    #[inline]
    pub fn on_input(&mut self, i: u32, outcome: Outcome) -> Option<Outcome> {
        self.outcomes[i as usize] = Outcome { index: u32::MAX, ..outcome };
        if outcome.state != TaskState::Succeeded && self.first_fail == u32::MAX {
            self.first_fail = i;
        }
        self.h.remaining -= 1;
        if self.h.remaining != 0 || self.h.done {
            return None;
        }
        self.h.done = true;
        Some(if self.first_fail == u32::MAX {
            Outcome::new(TaskState::Succeeded, self.outcomes.len() as u64, 0, u32::MAX)
        } else {
            Outcome { index: self.first_fail, ..self.outcomes[self.first_fail as usize] }
        })
    }
}

/// The pool bucket for `n` inputs.
pub fn bucket_of(n: usize) -> u8 {
    if n <= 16 {
        0
    } else if n <= 32 {
        1
    } else {
        2
    }
}

/// The coordinator pools and the watch list.
pub struct Combinators {
    any: [BoxPool<AnyCoord>; 3],
    all: [BoxPool<AllCoord>; 3],
    /// Coordinators with a token, not done yet.
    watches: Vec<*mut Header>,
    /// The cancellation epoch the watches were last polled at.
    pub seen_epoch: u64,
    /// Stamp for duplicate detection in combinator inputs.
    stamp: u32,
    /// Combinators created so far (their `Header::seq`).
    created: u64,
}

/// A coordinator taken from its pool (or made) by [`Combinators::prepare`],
/// not yet counted: [`Combinators::commit`] or [`Combinators::undo`] it.
pub struct Prepared<C> {
    b: Box<C>,
    cold: bool,
    n: usize,
}

impl Combinators {
    /// `OutOfMemory` when the pools' idle lists or the watch list cannot
    /// be reserved.
    pub fn try_new(c16: u32, c32: u32) -> Result<Combinators> {
        let (c16, c32) = (c16 as usize, c32 as usize);
        Ok(Combinators {
            any: [BoxPool::try_new(c16)?, BoxPool::try_new(c32)?, BoxPool::try_new(0)?],
            all: [BoxPool::try_new(c16)?, BoxPool::try_new(c32)?, BoxPool::try_new(0)?],
            watches: fallible::vec_with_capacity(64)?,
            seen_epoch: 0,
            stamp: 0,
            created: 0,
        })
    }

    /// Everything a combinator of `n` inputs needs that may allocate: a
    /// coordinator (idle, or made: `OutOfMemory`), and room in the watch
    /// list when it has a token. Nothing is counted until `commit`.
    pub fn prepare<C: Coordinator>(&mut self, n: usize, token: u64) -> Result<Prepared<C>> {
        if token != 0 {
            fallible::reserve(&mut self.watches, 1)?;
        }
        let bucket = bucket_of(n) as usize;
        let cap = [16usize, 32, n][bucket];
        let (b, cold) = C::pools(self)[bucket].take(|| C::make(cap))?;
        Ok(Prepared { b, cold, n })
    }

    /// Gives back a prepared coordinator unused (nothing was counted).
    pub fn undo<C: Coordinator>(&mut self, p: Prepared<C>) {
        C::pools(self)[bucket_of(p.n) as usize].put_back(p.b, p.cold);
    }

    /// Rents the prepared coordinator for output `out` and `token`.
    pub fn commit<C: Coordinator>(&mut self, p: Prepared<C>, out: u64, token: u64) -> *mut C {
        let Prepared { mut b, cold, n } = p;
        C::pools(self)[bucket_of(n) as usize].count_rent(cold);
        self.created += 1;
        b.reset(n, out, token, self.created);
        Box::into_raw(b)
    }

    /// Returns a coordinator whose inputs are all done.
    ///
    /// # Safety
    /// `cp` came from [`Combinators::rent`] and is released once.
    pub unsafe fn release<C: Coordinator>(&mut self, cp: *mut C) {
        let mut b = Box::from_raw(cp);
        let bucket = b.header().bucket as usize;
        C::pools(self)[bucket].give(b);
    }

    /// The next duplicate-detection stamp (high bit set), or `None` when
    /// the stamps wrapped: the caller clears old stamps first, then asks
    /// again.
    pub fn next_stamp(&mut self) -> Option<u32> {
        self.stamp = (self.stamp + 1) & 0x7fff_ffff;
        (self.stamp != 0).then_some(self.stamp | 0x8000_0000)
    }

    /// Watches `h` (a coordinator with a token), in the room `prepare`
    /// reserved.
    ///
    /// # Safety
    /// `h` is a live coordinator's header; it stays watched until
    /// [`Combinators::unwatch`].
    pub unsafe fn watch(&mut self, h: *mut Header) {
        debug_assert!(self.watches.len() < self.watches.capacity(), "room reserved by prepare");
        (*h).watch = self.watches.len() as u32;
        self.watches.push(h);
    }

    /// Stops watching `h` (if watched).
    ///
    /// # Safety
    /// `h` and every watched header are live.
    pub unsafe fn unwatch(&mut self, h: *mut Header) {
        let w = (*h).watch;
        if w == NO_WATCH {
            return;
        }
        (*h).watch = NO_WATCH;
        self.watches.swap_remove(w as usize);
        if let Some(&moved) = self.watches.get(w as usize) {
            (*moved).watch = w;
        }
    }

    /// Watched header `i`.
    pub fn watched(&self, i: usize) -> Option<*mut Header> {
        self.watches.get(i).copied()
    }

    /// Every watched header.
    pub fn watches(&self) -> &[*mut Header] {
        &self.watches
    }

    /// Pool counters: WhenAny buckets, WhenAll buckets.
    pub fn stats(&self) -> ([PoolStats; 3], [PoolStats; 3]) {
        (self.any.each_ref().map(BoxPool::snapshot), self.all.each_ref().map(BoxPool::snapshot))
    }
}
