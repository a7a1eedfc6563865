//! The runtime: what it is made of, and the frame: begin, tick, drain,
//! close. The operations live beside it, one concern per file: tasks
//! (`task.rs`), cancellation sources (`cancel.rs`), WhenAny / WhenAll
//! (`when.rs`), batches (`batch.rs`), statistics (`stats.rs`); the state
//! they work on is in `slot.rs`, `timing.rs`, `timing/lane.rs` and
//! `combinator.rs`.
//!
//! Threading model:
//! - The thread that creates a runtime owns it (see `owner.rs`). Owner-only
//!   state lives in `inner` and in the `Cell` fields of slots; it is touched
//!   only after an owner-thread check.
//! - Any thread may complete a manual task or cancel a cancellation source.
//!   Both are a CAS on the slot's state word, whose upper half is the slot
//!   generation: a stale handle can never win the CAS.
//! - A task completed off the owner thread is pushed on a lock-free stack
//!   (intrusive, through the slot) and its continuation runs at the owner's
//!   next tick or drain. A task completed on the owner thread runs its
//!   continuation inline.
//! - No `&mut Inner` is ever held across a call into user code: every borrow
//!   is short and re-taken after a continuation runs.

use std::cell::UnsafeCell;
use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};

use super::arena::Arena;
use super::combinator::Combinators;
use super::completion_stack::CompletionStack;
use super::config::Config;
use super::error::{Error, Result};
use super::frame_alloc::{AllocError, FrameAllocStats, FrameAllocator, Lifetime};
use super::handle::{self, Kind, MAX_SLOTS};
use super::owner::{Owner, OwnerCell};
use super::slot::{self, CancelSlot, FreeList, TaskSlot};
use super::tags;
use super::timing::lane::Lanes;
use super::timing::{self, Timings, WaitSpec, WaitTarget};
use super::types::*;

pub use super::timing::MAX_HOST_FRAME;

/// Owner-only state.
pub(super) struct Inner {
    pub cfg: Config,
    pub tasks: FreeList,
    pub cancels: FreeList,
    pub timings: Timings,
    /// The frame state published for hosts (`frame/mod.rs`).
    pub frame_clock: super::types::FrameClock,
    pub lanes: Lanes,
    pub comb: Combinators,
    pub ticking: bool,
    pub closing: bool,
    /// Host callbacks currently on the stack.
    pub depth: u32,
    /// Frame (internal number) of the last automatic frame-allocator rewind.
    pub last_rewind_fnum: u64,
    /// Creation sites (`sites.rs`) and the frame timeline (`trace.rs`).
    pub sites: super::sites::Sites,
    pub trace: super::trace::Trace,
}

/// A claimed tag, released unchanged if the runtime is never made.
struct TagGuard(tags::Claim);

impl Drop for TagGuard {
    fn drop(&mut self) {
        tags::release(self.0.tag, self.0.floors);
    }
}

/// A frame-based task runtime. See the module documentation.
pub struct Runtime {
    /// Declared before `tasks`, whose table holds its cell: unregistered
    /// before that is freed.
    pub(super) owner: Owner,
    /// The runtime's tag (`tags.rs`), unique among live runtimes.
    pub(super) tag: u8,
    /// The generation its task and source slots start at (`tags.rs`).
    pub(super) floors: [u32; 2],
    /// `handle::key` of this runtime's tasks and cancellation sources.
    pub(super) task_key: u64,
    pub(super) cancel_key: u64,
    /// The task slots; the table's header is the owner cell.
    pub(super) tasks: Arena<TaskSlot, OwnerCell>,
    pub(super) cancels: Arena<CancelSlot>,
    /// Slots completed off the owner thread, waiting for its next drain.
    pub(super) queued: CompletionStack,
    /// Bumped by every cancel: watches are polled when it moved.
    pub(super) cancel_epoch: AtomicU64,
    pub(super) frame_alloc: FrameAllocator,
    /// Site capture is on (`sites.rs`): read by the `_at` calls before
    /// anything else, on any thread.
    pub(super) site_capture: std::sync::atomic::AtomicBool,
    inner: UnsafeCell<Inner>,
}

// SAFETY: `inner` is only accessed on the owner thread (checked by every
// owner-only entry point); everything else is atomic or the arena's
// lock-free reads.
unsafe impl Sync for Runtime {}
unsafe impl Send for Runtime {}

/// Forgets a run's local vector when it is done (even by a panic).
struct Running<'a>(&'a Runtime);
impl Drop for Running<'_> {
    fn drop(&mut self) {
        // SAFETY: owner thread (created in `run_queue`).
        unsafe { self.0.inner() }.timings.clear_running();
    }
}

/// Resets the `ticking` flag even if a panic unwinds through a tick.
struct TickGuard<'a>(&'a Runtime);
impl Drop for TickGuard<'_> {
    fn drop(&mut self) {
        // SAFETY: owner thread (the guard is created after the check).
        unsafe { self.0.inner().ticking = false };
    }
}

impl Runtime {
    /// Creates a runtime owned by the calling thread.
    /// Panics when 255 runtimes are alive, the configuration is invalid or
    /// memory runs out (see [`Runtime::try_new`]).
    pub fn new(cfg: Config) -> Runtime {
        Self::try_new(cfg).expect("runtime configuration invalid, 255 runtimes alive, or out of memory")
    }

    /// Creates a runtime owned by the calling thread: `InvalidArgument` when
    /// the configuration breaks a rule of [`Config::validated`], `Exhausted`
    /// when 255 runtimes are alive (each needs its own handle tag),
    /// `OutOfMemory` when an allocation fails (nothing is kept then).
    pub fn try_new(cfg: Config) -> Result<Runtime> {
        let cfg = cfg.validated()?;
        let claim = TagGuard(tags::claim().ok_or(Error::Exhausted)?);
        let tasks = Arena::try_new()?;
        while tasks.len() < cfg.task_capacity.min(MAX_SLOTS) {
            tasks.grow()?;
        }
        let cancels = Arena::try_new()?;
        while cancels.len() < cfg.cancel_capacity.min(MAX_SLOTS) {
            cancels.grow()?;
        }
        let comb = Combinators::try_new(cfg.combinator16_capacity, cfg.combinator32_capacity)?;
        let frame_alloc = FrameAllocator::try_new(cfg.frame_alloc)?;
        let timings = Timings::new(cfg.wait_capacity)?;
        let tags::Claim { tag, floors } = claim.0;
        let inner = Inner {
            cfg,
            tasks: FreeList::new(cfg.task_capacity, floors[0]),
            cancels: FreeList::new(cfg.cancel_capacity, floors[1]),
            timings,
            frame_clock: Default::default(),
            lanes: Lanes::default(),
            comb,
            ticking: false,
            closing: false,
            depth: 0,
            last_rewind_fnum: 0,
            sites: Default::default(),
            trace: Default::default(),
        };
        // SAFETY: the cell is in the table's allocation, which never moves
        // and is freed after `owner` (field order).
        // (Out of memory there: `claim` releases the tag.)
        let owner = unsafe { Owner::register(tasks.header()) }?;
        std::mem::forget(claim); // the runtime's drop releases it
        Ok(Runtime {
            owner,
            tag,
            floors,
            task_key: handle::key(tag, Kind::Task),
            cancel_key: handle::key(tag, Kind::CancelSource),
            tasks,
            cancels,
            queued: CompletionStack::new(),
            cancel_epoch: AtomicU64::new(0),
            frame_alloc,
            site_capture: Default::default(),
            inner: UnsafeCell::new(inner),
        })
    }

    /// This runtime's tag: unique among live runtimes, bits 24-31 of its
    /// handles.
    pub fn tag(&self) -> u8 {
        self.tag
    }

    /// # Safety
    /// Owner thread only, and the returned borrow must end before any
    /// continuation or other call that may re-enter the runtime.
    #[allow(clippy::mut_from_ref)]
    #[inline(always)]
    pub(super) unsafe fn inner(&self) -> &mut Inner {
        &mut *self.inner.get()
    }

    /// The owner-only state as a raw pointer, for addresses a host keeps
    /// (`frame/idle.rs`): no reference is made, so the address stays valid for
    /// reads across the owner's later borrows.
    pub(super) fn inner_raw(&self) -> *mut Inner {
        self.inner.get()
    }

    /// Whether the calling thread is the owner.
    #[inline(always)]
    pub fn is_owner_thread(&self) -> bool {
        self.owner_fast() || self.owner.is_current()
    }

    /// The fast owner check (see [`OwnerCell::is_current_fast`]).
    #[inline(always)]
    pub(super) fn owner_fast(&self) -> bool {
        self.tasks.header().is_current_fast()
    }

    #[inline(always)]
    pub(super) fn check_owner(&self) -> Result<()> {
        if self.is_owner_thread() {
            Ok(())
        } else {
            Err(Error::WrongThread)
        }
    }

    /// Owner check plus "not closing" (for calls that add work).
    #[inline(always)]
    pub(super) fn check_owner_open(&self) -> Result<()> {
        self.check_owner()?;
        // SAFETY: owner thread; short borrow.
        if unsafe { self.inner().closing } {
            return Err(Error::Reentrant);
        }
        Ok(())
    }

    /// Task slot `idx`, known to exist (an index the owner handed out).
    #[inline(always)]
    pub(super) fn slot(&self, idx: u32) -> &TaskSlot {
        // SAFETY: indices stored in owner structures come from handed-out slots.
        unsafe { self.tasks.get_unchecked(idx) }
    }

    /// Calls host code. While any host code runs, `close` is refused (the
    /// runtime must outlive every frame of its own that is on the stack).
    #[inline(always)]
    pub(super) fn call_user(&self, f: CallbackFn, user: *mut c_void, arg: u64, state: TaskState) {
        // SAFETY: owner thread, short borrows around the call.
        unsafe { self.inner().depth += 1 };
        // SAFETY: the host promised `f` is callable with `user`.
        unsafe { f(user, arg, state as u32) };
        // SAFETY: as above.
        unsafe { self.inner().depth -= 1 };
    }

    // ---- frames and waits -----------------------------------------------

    /// Schedules a wait on `timing`. Returns the task it completes, or for
    /// a callback wait its id ([`Runtime::retire_wait`]). `frames` is used by DelayFrame, `seconds` and `clock`
    /// by Delay. Owner thread.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn wait(
        &self,
        kind: WaitKind,
        timing: Timing,
        frames: u32,
        seconds: f64,
        clock: Clock,
        token: u64,
        target: WaitTarget,
    ) -> Result<u64> {
        let mut h = 0;
        self.wait_with(WaitSpec { kind, timing, frames, seconds, clock, token }, target, |t| h = t)?;
        Ok(h)
    }

    /// [`Runtime::wait`], handing the task (a callback wait: its id) to
    /// `take` (only on success).
    #[inline(always)]
    pub fn wait_with(&self, spec: WaitSpec, target: WaitTarget, take: impl FnOnce(u64)) -> Result<()> {
        let (func, user, arg) = match target {
            WaitTarget::Callback(f, user, arg) => (Some(f), user, arg),
            WaitTarget::Task => (None, std::ptr::null_mut(), 0),
        };
        // Fast path: a frame wait due within two runs without a token, on the
        // owner thread of an open runtime, into a queue with room (and, for
        // a task, a free slot).
        if spec.token == 0 && spec.kind != WaitKind::Delay && self.owner_fast() {
            // SAFETY: owner thread, short borrow (no user code below).
            let inner = unsafe { self.inner() };
            if !inner.closing && inner.timings.fast_push_ok(&spec) {
                let arg = match func {
                    Some(_) => arg,
                    None => match inner.tasks.pop(&self.tasks) {
                        Some((idx, slot)) => self.init_task(slot, idx, slot::PENDING),
                        None => return self.wait_slow(spec, func, user, arg, take),
                    },
                };
                let id = inner.timings.push_frame_wait(&spec, arg, func, user);
                take(if func.is_none() { arg } else { id });
                return Ok(());
            }
        }
        self.wait_slow(spec, func, user, arg, take)
    }

    /// [`Runtime::wait_with`] with the target as (callback, user, argument);
    /// no callback: a task wait.
    #[cold]
    #[inline(never)]
    fn wait_slow(
        &self,
        spec: WaitSpec,
        func: Option<CallbackFn>,
        user: *mut c_void,
        arg: u64,
        take: impl FnOnce(u64),
    ) -> Result<()> {
        self.check_owner_open()?;
        if spec.kind == WaitKind::Delay && !timing::delay_seconds_ok(spec.seconds) {
            return Err(Error::InvalidArgument);
        }
        self.check_token(spec.token)?;
        let arg = match func {
            None => self.rent_task(0)?,
            Some(_) => arg,
        };
        let canceled = self.token_canceled(spec.token);
        // SAFETY: owner thread, short borrow (no user code below).
        match unsafe { self.inner() }.timings.push(&spec, canceled, arg, func, user) {
            Ok(id) => {
                take(if func.is_none() { arg } else { id });
                Ok(())
            }
            Err(e) => {
                if func.is_none() {
                    // The task was never handed out: give its slot back.
                    let _ = self.consume(arg);
                }
                Err(e)
            }
        }
    }

    /// `Ok` when [`Runtime::tick`] may run now: owner thread, not inside a
    /// tick, not closing.
    #[inline]
    pub fn check_tick_allowed(&self) -> Result<()> {
        self.check_owner()?;
        // SAFETY: owner thread, short borrow.
        let inner = unsafe { self.inner() };
        if inner.ticking || inner.closing {
            return Err(Error::Reentrant);
        }
        Ok(())
    }

    /// Runs one player-loop timing: drains cross-thread completions, polls
    /// cancellation, then completes every due wait of `timing` in the order
    /// the waits were scheduled. Waits scheduled while it runs are looked at
    /// by the next run. Owner thread.
    pub fn tick(&self, timing: Timing) -> Result<()> {
        self.check_tick_allowed()?;
        self.tick_allowed(timing);
        Ok(())
    }

    /// [`Runtime::tick`] after [`Runtime::check_tick_allowed`] passed.
    pub(super) fn tick_allowed(&self, timing: Timing) {
        // SAFETY: owner thread (checked by the caller), short borrow.
        unsafe { self.inner() }.ticking = true;
        let _guard = TickGuard(self);
        let _zone = super::tracy::tick_zone(timing);
        if self.tracing() {
            return self.tick_traced(timing);
        }
        self.rewind_if_due(timing);
        self.drain_queued();
        self.poll_watches();
        self.run_queue::<false, false, false>(timing as usize);
        self.publish_idle(timing);
    }

    /// Rewinds the frame allocator if `timing` is the rewind timing and it
    /// has not run yet in this frame; returns whether it did.
    #[inline(always)]
    pub(super) fn rewind_if_due(&self, timing: Timing) -> bool {
        // SAFETY: owner thread, short borrow.
        let inner = unsafe { self.inner() };
        if inner.cfg.frame_alloc_rewind_timing == Some(timing) && inner.last_rewind_fnum != inner.timings.now.fnum {
            inner.last_rewind_fnum = inner.timings.now.fnum;
            self.frame_alloc.rewind();
            return true;
        }
        false
    }

    /// Processes queue `t`. With `CANCEL_ALL`, every wait completes canceled
    /// (runtime destruction). With `AFTER`, only the canceled-only passes
    /// of `t`'s latest run (see [`Runtime::cancel_pass`]). With `TRACE`,
    /// each wait resumed is timed (`trace.rs`), the cancel passes' too. Returns
    /// how many of each kind resumed.
    pub(super) fn run_queue<const CANCEL_ALL: bool, const AFTER: bool, const TRACE: bool>(
        &self,
        t: usize,
    ) -> timing::Tally {
        let seen = self.cancel_epoch.load(Ordering::Acquire);
        if AFTER {
            self.poll_watches();
        }
        let (mut items, mut held, now, limit) = {
            // SAFETY: owner thread, short borrow.
            let inner = unsafe { self.inner() };
            inner.timings.sample_high_water(&inner.lanes.counts);
            inner.timings.start_run(t, CANCEL_ALL, AFTER, seen, |token| self.token_canceled(token))
        };
        let running = Running(self);
        let mut tally = timing::Tally::default();
        // SAFETY: `timings` is the owner's state; `run` touches it only
        // outside `resume`, and no borrow of `inner` is held meanwhile.
        unsafe {
            timing::run::<CANCEL_ALL, AFTER>(
                &mut self.inner().timings,
                t,
                &mut items,
                &mut held,
                &now,
                limit,
                |token| self.token_canceled(token),
                |arg, func, user, state| self.resume_wait_traced::<TRACE>(arg, func, user, state),
                &mut tally,
            )
        };
        // A token canceled by a continuation of this run cancels the waits
        // of this timing pending at its start (and the combinators watching
        // it) before the run ends (with `CANCEL_ALL`: until the far store is
        // empty).
        // SAFETY: owner thread, short borrow.
        let left = CANCEL_ALL && unsafe { self.inner() }.timings.far_filed(t) > 0;
        if left || self.cancel_epoch.load(Ordering::Acquire) != seen {
            self.cancel_passes::<CANCEL_ALL, TRACE>(t, &mut items, &mut held, &now, limit, seen, &mut tally);
        }
        drop(running);
        // SAFETY: owner thread, short borrow; no user code below.
        unsafe { self.inner() }.timings.finish_run(t, items, held, &tally);
        tally
    }

    /// Completes a due or canceled wait: calls its callback, or completes
    /// its task. `ticking` (or `closing`) already refuses `close`, so no
    /// depth count.
    #[inline(always)]
    fn resume_wait(&self, arg: u64, func: Option<CallbackFn>, user: *mut c_void, state: TaskState) {
        match func {
            // SAFETY: the host promised `f` is callable with `user`.
            Some(f) => unsafe { f(user, arg, state as u32) },
            None => self.complete_owned(arg, state, 0, 0),
        }
    }

    /// [`Runtime::resume_wait`], timed with `TRACE` (`trace.rs`).
    #[inline(always)]
    fn resume_wait_traced<const TRACE: bool>(
        &self,
        arg: u64,
        func: Option<CallbackFn>,
        user: *mut c_void,
        state: TaskState,
    ) {
        let span = if TRACE { self.trace_resume_start() } else { None };
        self.resume_wait(arg, func, user, state);
        if TRACE {
            self.trace_resume_end(span, func.is_some(), state);
        }
    }

    /// The passes of a run after its first, over the canceled waits, until
    /// no cancel happens during one (see [`Runtime::run_queue`]).
    #[cold]
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn cancel_passes<const CANCEL_ALL: bool, const TRACE: bool>(
        &self,
        t: usize,
        items: &mut Vec<timing::Wait>,
        held: &mut Vec<u32>,
        now: &timing::Now,
        limit: u64,
        mut seen: u64,
        tally: &mut timing::Tally,
    ) {
        let mut filed_before = usize::MAX;
        loop {
            let epoch = self.cancel_epoch.load(Ordering::Acquire);
            // SAFETY: owner thread, short borrow.
            let filed = if CANCEL_ALL { unsafe { self.inner() }.timings.far_filed(t) } else { 0 };
            if epoch == seen && filed == 0 {
                break;
            }
            // A pass that canceled nothing and saw no new cancel would be
            // repeated forever. It cannot happen (the held room of each
            // queue is reserved: `Timings::new`); if it did, the waits left
            // are freed uncalled when the runtime drops.
            if epoch == seen && filed >= filed_before {
                debug_assert!(false, "a destroy pass made no progress");
                break;
            }
            filed_before = filed;
            seen = epoch;
            self.poll_watches();
            // SAFETY: as in `run_queue` (both).
            unsafe {
                self.inner().timings.take_canceled(t, CANCEL_ALL, limit, |token| self.token_canceled(token), held);
                timing::run::<CANCEL_ALL, true>(
                    &mut self.inner().timings,
                    t,
                    items,
                    held,
                    now,
                    limit,
                    |token| self.token_canceled(token),
                    |arg, func, user, state| self.resume_wait_traced::<TRACE>(arg, func, user, state),
                    tally,
                )
            };
        }
    }

    /// The canceled-only pass of `timing`'s latest run, for a host that
    /// runs a run's continuations after [`Runtime::tick`] returns (a batch
    /// host): completes canceled the waits of `timing` scheduled before
    /// that run whose token is canceled now, and the combinators watching a
    /// canceled token, as if the cancels had been made inside the run.
    /// Nothing becomes due. Owner thread, not inside a tick.
    pub fn cancel_pass(&self, timing: Timing) -> Result<()> {
        self.check_tick_allowed()?;
        // SAFETY: owner thread (checked), short borrow.
        unsafe { self.inner() }.ticking = true;
        let _guard = TickGuard(self);
        // Its continuations are the run's: recorded as the run's are.
        if self.tracing_continuations() {
            self.run_queue::<false, true, true>(timing as usize);
        } else {
            self.run_queue::<false, true, false>(timing as usize);
        }
        Ok(())
    }

    /// Runs the continuations of tasks completed off the owner thread, in
    /// completion order. Owner thread.
    pub fn drain(&self) -> Result<()> {
        self.check_owner()?;
        if self.tracing() {
            self.drain_traced();
        } else {
            self.drain_queued();
        }
        self.poll_watches();
        Ok(())
    }

    // ---- frame allocator ------------------------------------------------

    /// Allocates frame memory. Any thread. See [`FrameAllocator::alloc`]:
    /// valid until the rewind that ends `lifetime`.
    #[inline(always)]
    pub fn frame_alloc(
        &self,
        lifetime: Lifetime,
        size: usize,
        align: usize,
    ) -> std::result::Result<*mut u8, AllocError> {
        self.frame_alloc.alloc(lifetime, size, align).map(|p| p.as_ptr())
    }

    /// [`FrameAllocator::alloc_fast`]: `None` when [`Runtime::frame_alloc`]
    /// must decide. Any thread.
    #[inline(always)]
    pub fn frame_alloc_fast(&self, lifetime: Lifetime, size: usize, align: usize) -> Option<*mut u8> {
        self.frame_alloc.alloc_fast(lifetime, size, align).map(|p| p.as_ptr())
    }

    /// Rewinds the frame allocator now. Owner thread, not inside a tick.
    /// No allocation may run concurrently (the host's jobs must be done).
    pub fn rewind_frame_allocator(&self) -> Result<()> {
        self.check_owner()?;
        // SAFETY: owner thread, short borrow.
        if unsafe { self.inner() }.ticking {
            return Err(Error::Reentrant);
        }
        self.trace_rewind(|| self.frame_alloc.rewind());
        Ok(())
    }

    /// The frame allocator's counters. Any thread.
    pub fn frame_alloc_stats(&self) -> FrameAllocStats {
        self.frame_alloc.stats()
    }

    // ---- shutdown -------------------------------------------------------

    /// Cancels everything in flight, running continuations: first the
    /// continuations of tasks completed on other threads run (as a drain),
    /// then every pending WhenAny / WhenAll completes canceled (`index`
    /// `u32::MAX`; none from an input canceled below), then every wait
    /// (callback waits are called with `Canceled`), then every other
    /// pending task. From then on calls that add work fail with
    /// `Reentrant`. Owner thread, or any thread once the owner thread has
    /// exited (then continuations run on the calling thread, and calls they
    /// make to this runtime get `WrongThread`); refused (`Reentrant`) while
    /// a tick or any host callback is running, or when already closed.
    /// `Drop` does not call it (see there).
    pub fn close(&self) -> Result<()> {
        if !self.is_owner_thread() && !self.owner.has_exited() {
            return Err(Error::WrongThread);
        }
        {
            // SAFETY: owner thread, short borrow.
            let inner = unsafe { self.inner() };
            if inner.ticking || inner.closing || inner.depth > 0 {
                return Err(Error::Reentrant);
            }
            inner.closing = true;
            // No run is skipped any more: a tick is refused now.
            inner.timings.clear_idle();
        }
        self.drain_queued();
        self.cancel_combinators();
        for t in 0..TIMING_COUNT {
            self.run_queue::<true, false, false>(t);
        }
        // SAFETY: owner thread, short borrow.
        let fresh = unsafe { self.inner() }.tasks.fresh();
        for idx in 0..fresh {
            let w = self.slot(idx).state.load(Ordering::Acquire);
            if slot::state_bits(w) == slot::PENDING {
                let h = (w & slot::GEN_MASK) | self.task_key | idx as u64;
                let _ = self.complete(h, TaskState::Canceled, 0, 0, false);
            }
        }
        self.drain_queued();
        Ok(())
    }
}

impl Drop for Runtime {
    /// Frees everything. It does not run host code: call [`Runtime::close`]
    /// first to cancel what is in flight and run its continuations (the C
    /// API's `onity_runtime_destroy` does). Continuations may hold pointers
    /// to the runtime, which must not be used under the `&mut self` of drop.
    fn drop(&mut self) {
        self.free_coordinators();
        // The highest generation each slot kind reached: the next runtime
        // with this tag starts above it (handles never repeat).
        let inner = self.inner.get_mut();
        let (fresh_tasks, fresh_sources) = (inner.tasks.fresh(), inner.cancels.fresh());
        let max_task = (0..fresh_tasks).map(|i| (self.slot(i).state.load(Ordering::Relaxed) >> 32) as u32).max();
        // SAFETY: indices below `fresh` were handed out: they exist.
        let source_gen = |i| unsafe { (self.cancels.get_unchecked(i).state.load(Ordering::Relaxed) >> 32) as u32 };
        let max_source = (0..fresh_sources).map(source_gen).max();
        tags::release(self.tag, [max_task.unwrap_or(self.floors[0]), max_source.unwrap_or(self.floors[1])]);
    }
}
