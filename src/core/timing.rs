//! Frame waits: the wait records, the 16 timing queues, running a timing,
//! the first-frame rebase and re-pointing the tokens of a destroyed source.
//! When a wait is due is `due.rs` alone (the frame and clocks, the rule);
//! `timing/lane.rs` holds the batches' fast lanes (layout: `docs/timing.md`).
//!
//! Each timing keeps its waits in two places:
//! - the near queue, a vector scanned at each run of the timing: Yield,
//!   NextFrame, DelayFrame(0 or 1) and Delay(0) (every one due within two
//!   runs, so a scan costs what resumes);
//! - the far store (`far::Far`): DelayFrame due later and Delay, in heaps by
//!   due frame / due time, of which a run looks only at what is due (and,
//!   after a cancel, at the waits with a token).
//!
//! Every wait carries its scheduling sequence number; a run merges the two
//! by it, so waits due in the same run resume in the order they were
//! scheduled. A token canceled during a run (by one of its continuations)
//! completes this timing's pending waits with that token before the run
//! ends (`Runtime::run_queue` runs the canceled-only passes).

use std::ffi::c_void;
use std::ptr;

mod due;
mod far;
pub mod lane;
mod retire;
mod runs;

pub use due::{delay_seconds_ok, rebased, Now};
use far::Far;
pub use retire::{far_id, near_id};
pub use runs::{run, Tally};

use super::error::{Error, Result};
use super::pool::PoolStats;
use super::types::{CallbackFn, Clock, FrameInfo, TaskState, Timing, WaitKind, TIMING_COUNT, WAIT_KIND_COUNT};

/// What a wait completes when it is due.
#[derive(Clone, Copy)]
pub enum WaitTarget {
    /// Complete this task (created by the wait).
    Task,
    /// Call `f(user, arg, state)` (a "callback wait": no task, nothing to
    /// consume). The C API passes `arg = 0`; batches pass their record id.
    Callback(CallbackFn, *mut c_void, u64),
}

/// What to wait for: a wait's kind and timing, its parameters (`frames`
/// for DelayFrame, `seconds` and `clock` for Delay) and its cancellation
/// token (0: none).
#[derive(Debug, Clone, Copy)]
pub struct WaitSpec {
    pub kind: WaitKind,
    pub timing: Timing,
    pub frames: u32,
    pub seconds: f64,
    pub clock: Clock,
    pub token: u64,
}

/// A queued wait: 56 bytes.
#[derive(Clone, Copy)]
pub struct Wait {
    /// Scheduling order (unique per runtime).
    pub seq: u64,
    /// Task handle (task waits) or the callback's `task` argument.
    pub arg: u64,
    /// The callback of a callback wait; `None`: complete the task `arg`.
    pub func: Option<CallbackFn>,
    pub user: *mut c_void,
    /// Cancellation token, 0 for none.
    pub token: u64,
    /// `due frame << 4 | kind << 2 | clock`: due at frame `f` when
    /// `due_meta <= f << 4 | 15` (one compare; see [`Now::frame_key`]).
    due_meta: u64,
    /// Delay: the clock value at which it is due.
    pub due_time: f64,
}

/// The kind bits of `due_meta`, and their value for a Delay.
const KIND_BITS: u64 = 3 << 2;
const DELAY_BITS: u64 = (WaitKind::Delay as u64) << 2;

/// Host frame numbers must stay below this (checked by `core/frame`):
/// due frames (at most `frame + 1 + u32::MAX`) then fit in 60 bits.
pub const MAX_HOST_FRAME: u64 = 1 << 59;

impl Wait {
    #[inline(always)]
    fn meta(kind: WaitKind, due_frame: u64, clock: Clock) -> u64 {
        due_frame << 4 | (kind as u64) << 2 | clock as u64
    }

    #[inline(always)]
    pub fn due_frame(&self) -> u64 {
        self.due_meta >> 4
    }

    #[inline(always)]
    fn kind_index(&self) -> usize {
        (self.due_meta >> 2) as usize & 3
    }

    #[inline(always)]
    pub fn kind(&self) -> WaitKind {
        WaitKind::ALL[self.kind_index()]
    }

    #[inline(always)]
    pub fn clock(&self) -> usize {
        (self.due_meta & 3) as usize
    }

    /// Whether it is due at `now`: [`Now::is_due`], its frame half in one
    /// compare of the packed due frame with `key` = [`Now::frame_key`] (a
    /// canceled wait is due at once too: the caller checks its token).
    #[inline(always)]
    fn is_due(&self, now: &Now, key: u64) -> bool {
        let due = self.due_meta <= key
            && (self.due_meta & KIND_BITS != DELAY_BITS || now.time_come(self.clock(), self.due_time));
        debug_assert_eq!(due, now.is_due(self.kind(), self.due_frame(), self.clock(), self.due_time));
        due
    }
}

/// Counters of the waits of one kind kept in one place (the queues, or the
/// batches' fast lanes). Pending is derived.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub scheduled: u64,
    pub completed: u64,
    pub canceled: u64,
}

impl Counts {
    #[inline]
    pub fn pending(&self) -> u64 {
        self.scheduled - self.completed - self.canceled
    }
}

#[derive(Default)]
struct Queue {
    /// The near queue, in scheduling order.
    items: Vec<Wait>,
    /// Storage for the next run (always empty).
    spare: Vec<Wait>,
    far: Far,
    /// Storage of the far slots a run holds (always empty between runs).
    held: Vec<u32>,
    /// 1 when a run of this timing would do nothing (published after each
    /// run, `frame/idle.rs`; the frame allocator's rewind is not included), 0
    /// otherwise; every push clears it. Beside the
    /// queue it guards: a push stores it through the queue's address.
    /// Only the owner writes it; the host reads it between calls.
    idle: u8,
}

/// The 16 timing queues, the frame and the clocks.
pub struct Timings {
    queues: [Queue; TIMING_COUNT],
    pub now: Now,
    /// Waits in the queues, per kind.
    pub counts: [Counts; WAIT_KIND_COUNT],
    /// Highest pending waits per kind (queues and fast lanes), sampled.
    pub high_water: [u64; WAIT_KIND_COUNT],
    /// Wait-record storage; `capacity`, `high_water`, `cold_allocations`
    /// and `discards` are kept here, the rest is derived.
    pub storage: PoolStats,
    /// Most records of storage a queue vector keeps after a burst.
    cap: usize,
    /// The records [`run`] holds in its local vector while it runs host
    /// code (base, len, capacity), so [`Timings::repoint`] reaches them
    /// too (and statistics count their storage).
    running: (*mut Wait, usize, usize),
    /// The last scheduling sequence number given.
    seq: u64,
    /// Per timing: the last sequence number scheduled before its latest run.
    last_start: [u64; TIMING_COUNT],
}

impl Timings {
    /// `OutOfMemory` when the queues' first storage cannot be allocated.
    pub fn new(wait_capacity: u32) -> Result<Timings> {
        let mut queues: [Queue; TIMING_COUNT] = Default::default();
        let per_queue = (wait_capacity as usize).min(1 << 20);
        for q in queues.iter_mut() {
            for v in [&mut q.items, &mut q.spare] {
                v.try_reserve_exact(per_queue.min(256)).map_err(|_| Error::OutOfMemory)?;
            }
            // Room the far waits' passes always have (kept across runs):
            // a cancel pass makes progress without allocating, so
            // destruction ends even when memory stays refused.
            q.held.try_reserve_exact(HELD_ROOM).map_err(|_| Error::OutOfMemory)?;
        }
        Ok(Timings {
            queues,
            now: Now::default(),
            counts: Default::default(),
            high_water: [0; WAIT_KIND_COUNT],
            storage: PoolStats { capacity: wait_capacity as u64 * TIMING_COUNT as u64, ..Default::default() },
            cap: wait_capacity as usize,
            running: (ptr::null_mut(), 0, 0),
            seq: 0,
            last_start: [0; TIMING_COUNT],
        })
    }

    /// The host's frame number (as given to frame begin; 0 before the first
    /// frame): the frame counter is it plus 1.
    #[inline(always)]
    pub fn host_frame(&self) -> u64 {
        self.now.fnum.saturating_sub(1)
    }

    /// Applies a frame begin the frame module checked (`core/frame`); the
    /// first frame's rebase is its call ([`Timings::rebase`]).
    pub fn begin_frame(&mut self, info: &FrameInfo) {
        self.now.fnum = info.frame + 1;
        self.now.clocks[Clock::Scaled as usize] += info.delta_time;
        self.now.clocks[Clock::Unscaled as usize] += info.unscaled_delta_time;
        self.now.clocks[Clock::Realtime as usize] = info.realtime;
    }

    /// Waits made before the first frame count from the frame before it:
    /// their due frames were computed from counter 0, the first frame's
    /// counter is `frame + 1` (NextFrame: the first frame, DelayFrame(n):
    /// the n-th). Realtime delays count from the first frame's realtime
    /// (they were given realtime 0 as their creation time).
    pub fn rebase(&mut self, frame: u64, realtime: f64) {
        let shift = |w: &mut Wait| {
            if w.kind() != WaitKind::Yield {
                w.due_meta = Wait::meta(w.kind(), rebased(w.due_frame(), frame), Clock::ALL[w.clock()]);
            }
            if w.kind() == WaitKind::Delay && w.clock() == Clock::Realtime as usize {
                w.due_time += realtime;
            }
        };
        for q in self.queues.iter_mut() {
            q.items.iter_mut().for_each(shift);
            q.far.rebase(shift);
        }
    }

    /// Queues a wait: in the far store when it is a DelayFrame due after
    /// the next frame or a Delay not yet due, else (and when its token is
    /// `canceled` already: the far store looks at tokens only after a
    /// cancel) in the near queue. Returns its id (see `retire.rs`).
    /// `OutOfMemory` (nothing queued) when storage cannot grow.
    #[inline(always)]
    pub fn push(
        &mut self,
        spec: &WaitSpec,
        canceled: bool,
        arg: u64,
        func: Option<CallbackFn>,
        user: *mut c_void,
    ) -> Result<u64> {
        let WaitSpec { kind, timing, frames, seconds, clock, token } = *spec;
        let due_frame = self.now.due_frame(kind, frames);
        let (due_time, far) = match kind {
            WaitKind::Delay => {
                let due = self.now.due_time(clock as usize, seconds);
                (due, !self.now.time_come(clock as usize, due))
            }
            WaitKind::DelayFrame => (0.0, due_frame > self.now.fnum + 1),
            _ => (0.0, false),
        };
        let far = far && !canceled;
        let rec =
            Wait { seq: self.seq + 1, arg, func, user, token, due_meta: Wait::meta(kind, due_frame, clock), due_time };
        let q = &mut self.queues[timing as usize];
        let id = if far {
            let before = q.far.capacity();
            let slot = q.far.push(rec)?;
            if q.far.capacity() != before {
                self.storage.cold_allocations += 1;
            }
            far_id(timing as usize, slot, rec.seq)
        } else {
            if q.items.len() == q.items.capacity() {
                q.items.try_reserve(1).map_err(|_| Error::OutOfMemory)?;
                self.storage.cold_allocations += 1;
            }
            q.items.push(rec);
            near_id(timing as usize, rec.seq)
        };
        self.seq += 1;
        q.idle = 0;
        // Only `scheduled` is counted here; pending and high water are
        // derived at each run (see `sample_high_water`).
        self.counts[kind as usize].scheduled += 1;
        Ok(id)
    }

    /// Whether [`Timings::push_frame_wait`] takes `spec` now: a frame wait
    /// due within two runs (Yield, NextFrame, DelayFrame(0 or 1)) without
    /// a token, into a near queue with room.
    #[inline(always)]
    pub fn fast_push_ok(&self, spec: &WaitSpec) -> bool {
        let q = &self.queues[spec.timing as usize].items;
        spec.token == 0
            && spec.kind != WaitKind::Delay
            && (spec.kind != WaitKind::DelayFrame || spec.frames <= 1)
            && q.len() < q.capacity()
    }

    /// [`Timings::push`] of a wait that [`Timings::fast_push_ok`] takes;
    /// returns its id.
    #[inline(always)]
    pub fn push_frame_wait(&mut self, spec: &WaitSpec, arg: u64, func: Option<CallbackFn>, user: *mut c_void) -> u64 {
        let (kind, timing) = (spec.kind, spec.timing);
        debug_assert!(self.fast_push_ok(spec));
        let due_meta = Wait::meta(kind, self.now.due_frame(kind, spec.frames), Clock::Scaled);
        let queue = &mut self.queues[timing as usize];
        queue.idle = 0;
        let q = &mut queue.items;
        let len = q.len();
        if len < q.capacity() {
            // SAFETY: `len < capacity`: the slot at `len` is allocated; it is
            // initialised before the length covers it.
            unsafe {
                q.as_mut_ptr().add(len).write(Wait {
                    seq: self.seq + 1,
                    arg,
                    func,
                    user,
                    token: 0,
                    due_meta,
                    due_time: 0.0,
                });
                q.set_len(len + 1);
            }
            self.seq += 1;
            self.counts[kind as usize].scheduled += 1;
        }
        near_id(timing as usize, self.seq)
    }

    /// Updates the high-water marks, with `lanes` the fast lanes' counts.
    /// Pending waits only grow between runs, so sampling at the start of
    /// every run (and in statistics, and before waits are dropped) sees the
    /// peaks.
    pub fn sample_high_water(&mut self, lanes: &[Counts; WAIT_KIND_COUNT]) {
        let mut queued = 0;
        for ((hw, q), l) in self.high_water.iter_mut().zip(&self.counts).zip(lanes) {
            queued += q.pending();
            *hw = (*hw).max(q.pending() + l.pending());
        }
        self.storage.high_water = self.storage.high_water.max(queued);
    }

    /// Starts a run of `timing`: takes its near waits (those scheduled
    /// from now on go to the queue, for the next run) and holds its far
    /// waits that are due (every one with `all`), or whose token is
    /// canceled when the cancel `epoch` moved since the timing last looked.
    /// Also returns the last sequence number scheduled before the run.
    ///
    /// With `after`, it starts the canceled-only pass of `timing`'s latest
    /// run instead (a batch host ran that run's continuations after it
    /// returned): the near waits, and the far waits scheduled before that
    /// run whose token is canceled, with that run's sequence number.
    pub fn start_run(
        &mut self,
        timing: usize,
        all: bool,
        after: bool,
        epoch: u64,
        canceled: impl Fn(u64) -> bool,
    ) -> (Vec<Wait>, Vec<u32>, Now, u64) {
        let now = self.now;
        if !after {
            self.last_start[timing] = self.seq;
        }
        let limit = self.last_start[timing];
        let q = &mut self.queues[timing];
        let spare = std::mem::take(&mut q.spare);
        let items = std::mem::replace(&mut q.items, spare);
        let mut held = std::mem::take(&mut q.held);
        if after {
            q.far.sweep(limit, canceled, &mut held);
        } else {
            q.far.release(&now, all, &mut held);
            if epoch != q.far.seen_epoch {
                q.far.seen_epoch = epoch;
                q.far.sweep(u64::MAX, canceled, &mut held);
            }
        }
        Self::order(&q.far, &mut held);
        (items, held, now, limit)
    }

    /// For a pass after the first of a run: holds (into `held`) the far
    /// waits of `timing` scheduled up to sequence `limit` (before the run)
    /// whose token is canceled (every far wait with `all`). Those scheduled
    /// later are left to the next run, which sweeps again (the timing's
    /// epoch is left behind).
    pub fn take_canceled(
        &mut self,
        timing: usize,
        all: bool,
        limit: u64,
        canceled: impl Fn(u64) -> bool,
        held: &mut Vec<u32>,
    ) {
        let far = &mut self.queues[timing].far;
        if all {
            far.release(&self.now, true, held);
        } else {
            far.sweep(limit, canceled, held);
        }
        Self::order(far, held);
    }

    /// Sorts held far slots in scheduling order.
    fn order(far: &Far, held: &mut [u32]) {
        if held.len() > 1 {
            held.sort_unstable_by_key(|&s| far.get(s).seq);
        }
    }

    /// Whether `timing` holds no wait (near queue and far store empty).
    #[inline(always)]
    pub fn queue_empty(&self, timing: usize) -> bool {
        let q = &self.queues[timing];
        // One test for both (a tick pays it: `frame/idle.rs`).
        q.items.len() | q.far.filed() == 0
    }

    /// Publishes whether a run of `timing` now would do nothing (`frame/idle.rs`).
    pub fn set_idle(&mut self, timing: usize, idle: bool) {
        self.queues[timing].idle = idle as u8;
    }

    /// Whether `timing`'s idle byte is set.
    pub fn is_idle(&self, timing: usize) -> bool {
        self.queues[timing].idle != 0
    }

    /// Clears every timing's idle byte.
    pub fn clear_idle(&mut self) {
        for q in self.queues.iter_mut() {
            q.idle = 0;
        }
    }

    /// Clears `timing`'s idle byte.
    #[inline(always)]
    pub fn clear_idle_of(&mut self, timing: usize) {
        self.queues[timing].idle = 0;
    }

    /// Where the idle bytes of the timings at `t` are: timing `i`'s is at
    /// the first address plus `i` times the second (valid while the timings
    /// do not move). Computed without making a reference (the address is
    /// kept and read while the owner borrows the timings in later calls).
    ///
    /// # Safety
    /// `t` points at live timings.
    pub unsafe fn idle_bytes(t: *const Timings) -> (*const u8, usize) {
        (ptr::addr_of!((*t).queues[0].idle).cast(), std::mem::size_of::<Queue>())
    }

    /// Far waits of `timing` still filed (a run under allocation failure
    /// may leave some for a later pass).
    pub fn far_filed(&self, timing: usize) -> usize {
        self.queues[timing].far.filed()
    }

    /// Ends a run of `timing` started by [`Timings::start_run`]: `items`
    /// holds the near waits kept (not due), `held` the far ones kept,
    /// `tally` how many of each kind resumed.
    pub fn finish_run(&mut self, timing: usize, mut items: Vec<Wait>, mut held: Vec<u32>, tally: &Tally) {
        self.clear_running();
        for k in 0..WAIT_KIND_COUNT {
            self.counts[k].completed += tally.done[k];
            self.counts[k].canceled += tally.canceled[k];
        }
        let cap = self.cap;
        let q = &mut self.queues[timing];
        for &slot in held.iter() {
            q.far.refile(slot);
        }
        held.clear();
        q.held = held;
        self.storage.discards += q.far.compact(cap);
        // `q.items` holds the waits scheduled while this ran; the kept ones
        // are older and go first. When nothing was kept (the common case of
        // every wait resuming and re-scheduling) no record is copied.
        if !items.is_empty() {
            if !q.items.is_empty() {
                if items.capacity() - items.len() < q.items.len() {
                    self.storage.cold_allocations += 1;
                }
                if items.try_reserve(q.items.len()).is_ok() {
                    items.extend_from_slice(&q.items);
                    q.items.clear();
                } else {
                    // The other vector, then: the kept ones rotated to the
                    // front. (Only when both fail does this allocate
                    // infallibly.)
                    let _ = q.items.try_reserve(items.len());
                    let n = items.len();
                    q.items.extend_from_slice(&items);
                    q.items.rotate_right(n);
                    items.clear();
                    std::mem::swap(&mut items, &mut q.items);
                }
            }
            std::mem::swap(&mut items, &mut q.items);
        }
        // Keep at most `cap` records of storage per vector after a burst.
        for v in [&mut items, &mut q.items] {
            if v.capacity() > cap && v.len() <= cap {
                self.storage.discards += shrink(v, cap);
            }
        }
        q.spare = items;
    }

    /// Forgets the records of the run in progress (it ended).
    pub fn clear_running(&mut self) {
        self.running = (ptr::null_mut(), 0, 0);
    }

    /// Re-points every wait holding `token` at `to` (the queues, the far
    /// stores and the run in progress).
    pub fn repoint(&mut self, token: u64, to: u64) {
        for q in self.queues.iter_mut() {
            for w in q.items.iter_mut() {
                if w.token == token {
                    w.token = to;
                }
            }
            q.far.repoint(token, to);
        }
        let (base, len, _) = self.running;
        for i in 0..len {
            // SAFETY: `run`'s local vector, alive and not borrowed while host
            // code runs; it reads each record after this returns.
            unsafe {
                if (*base.add(i)).token == token {
                    (*base.add(i)).token = to;
                }
            }
        }
    }

    /// Drops every queued callback wait calling `func` with `user`, counted
    /// as canceled. Not during a run.
    pub fn forget(&mut self, func: CallbackFn, user: *mut c_void) {
        let mut canceled = [0u64; WAIT_KIND_COUNT];
        for q in self.queues.iter_mut() {
            q.items.retain(|w| {
                let drop_it = w.func.is_some_and(|f| f as usize == func as usize) && w.user == user;
                if drop_it {
                    canceled[w.kind() as usize] += 1;
                }
                !drop_it
            });
            q.far.forget(func, user, &mut canceled);
        }
        for (c, n) in self.counts.iter_mut().zip(canceled) {
            c.canceled += n;
        }
    }

    /// Records of storage allocated: the near queues (and the run in
    /// progress) and the far stores.
    pub fn record_capacity(&self) -> u64 {
        let queues: usize =
            self.queues.iter().map(|q| q.items.capacity() + q.spare.capacity() + q.far.capacity()).sum();
        (queues + self.running.2) as u64
    }
}

/// Gives back `v`'s storage above `cap` records (at least its length),
/// through a fallible new allocation (none: it keeps its storage). Returns
/// the records of storage given back.
fn shrink(v: &mut Vec<Wait>, cap: usize) -> u64 {
    let keep = cap.max(v.len());
    let mut smaller = Vec::new();
    if smaller.try_reserve_exact(keep).is_err() {
        return 0;
    }
    smaller.extend_from_slice(v);
    let given = v.capacity().saturating_sub(smaller.capacity()) as u64;
    *v = smaller;
    given
}

/// Far slots a queue's run can always hold without allocating (reserved at
/// creation, never shrunk): see [`Timings::new`].
const HELD_ROOM: usize = 16;
