//! The runtime: task slots, completion, continuations, timing queues,
//! cancellation and combinators.
//!
//! Threading model:
//! - The thread that creates a runtime owns it. Owner-only state lives in
//!   `inner` and in the `Cell` fields of slots; it is touched only after an
//!   owner-thread check.
//! - Any thread may complete a task (`complete`) or cancel a cancellation
//!   source. Both are a CAS on the slot's state word, whose upper half is the
//!   slot generation: a stale handle can never win the CAS.
//! - A task completed off the owner thread is pushed on a lock-free stack
//!   (intrusive, through the slot) and its continuation runs at the owner's
//!   next tick or drain. A task completed on the owner thread runs its
//!   continuation inline.
//! - No `&mut Inner` is ever held across a call into user code: every borrow
//!   is short and re-taken after a continuation runs.

use std::cell::{Cell, UnsafeCell};
use std::ffi::c_void;
use std::ptr;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

use super::arena::Arena;
use super::completion_stack::{CompletionStack, Link};
use super::error::{Error, Result};
use super::frame_alloc::{AllocError, FrameAllocStats, FrameAllocator, Lifetime};
use super::handle::{self, current_thread_id, Kind};
use super::pool::{BoxPool, PoolStats};
use super::types::*;

// ---- state word ---------------------------------------------------------

const ST_FREE: u64 = 0;
const ST_PENDING: u64 = 1;
const ST_COMPLETING: u64 = 2;
const ST_SUCCEEDED: u64 = 3;
const ST_FAULTED: u64 = 4;
const ST_CANCELED: u64 = 5;
const ST_MASK: u64 = 7;
/// In the cross-thread completion stack; the slot may not be reused yet.
const F_QUEUED: u64 = 8;
/// A manual completion source: `set_result` / `set_error` are allowed.
const F_MANUAL: u64 = 16;

#[inline]
fn gen_of(word: u64) -> u32 {
    (word >> 32) as u32
}
#[inline]
fn st(word: u64) -> u64 {
    word & ST_MASK
}
#[inline]
fn is_final(word: u64) -> bool {
    st(word) >= ST_SUCCEEDED
}
#[inline]
fn state_code(s: TaskState) -> u64 {
    match s {
        TaskState::Pending => ST_PENDING,
        TaskState::Succeeded => ST_SUCCEEDED,
        TaskState::Faulted => ST_FAULTED,
        TaskState::Canceled => ST_CANCELED,
    }
}
#[inline]
fn task_state(word: u64) -> TaskState {
    match st(word) {
        ST_SUCCEEDED => TaskState::Succeeded,
        ST_FAULTED => TaskState::Faulted,
        ST_CANCELED => TaskState::Canceled,
        _ => TaskState::Pending,
    }
}

// ---- slots --------------------------------------------------------------

#[derive(Clone, Copy, Default)]
enum Cont {
    #[default]
    None,
    /// The continuation already ran.
    Fired,
    User(CallbackFn, *mut c_void),
    /// Like `User`, but the callback gets `arg` instead of the task handle.
    Emit(CallbackFn, *mut c_void, u64),
    Any(*mut AnyCoord, u32),
    All(*mut AllCoord, u32),
}

pub(crate) struct TaskSlot {
    state: AtomicU64,
    next_queued: Link,
    // Written only by the thread that won the PENDING -> COMPLETING CAS,
    // read only after observing a final state (Acquire).
    value: UnsafeCell<u64>,
    error: UnsafeCell<i32>,
    // Owner-thread only.
    aux: Cell<u32>,
    /// Free-list link while the slot is free; while it is live, the
    /// duplicate-input stamp of `check_inputs` (high bit set, so a stale
    /// link, at most 2^22, never equals a stamp).
    next_free: Cell<u32>,
    cont: Cell<Cont>,
    attached: Cell<*mut AllCoord>,
}

impl Default for TaskSlot {
    fn default() -> Self {
        TaskSlot {
            state: AtomicU64::new(0),
            next_queued: Link::new(0),
            value: UnsafeCell::new(0),
            error: UnsafeCell::new(0),
            aux: Cell::new(u32::MAX),
            next_free: Cell::new(0),
            cont: Cell::new(Cont::None),
            attached: Cell::new(ptr::null_mut()),
        }
    }
}

#[derive(Default)]
pub(crate) struct CancelSlot {
    /// gen << 32 | 1 when canceled.
    state: AtomicU64,
    next_free: Cell<u32>,
}

// SAFETY: the atomics are shared; the Cell / UnsafeCell fields are touched
// either by the owner thread only, or (value/error) by the single thread that
// won the completion CAS before it publishes the final state with Release.
unsafe impl Sync for TaskSlot {}
unsafe impl Send for TaskSlot {}
unsafe impl Sync for CancelSlot {}
unsafe impl Send for CancelSlot {}

// ---- waits --------------------------------------------------------------

/// What a wait completes when it is due.
#[derive(Clone, Copy)]
pub enum WaitTarget {
    /// Complete this task (created by the wait).
    Task,
    /// Call `f(user, arg, state)` (a "callback wait": no task, nothing to
    /// consume). The C API passes `arg = 0`; batches pass their record id.
    Callback(CallbackFn, *mut c_void, u64),
}

/// A queued wait: 48 bytes.
#[derive(Clone, Copy)]
struct Wait {
    /// Task handle (task waits) or the callback's `task` argument.
    arg: u64,
    func: Option<CallbackFn>,
    user: *mut c_void,
    token: u64,
    /// Due frame in the low 60 bits, kind in bits 60-61, clock in 62-63.
    due_meta: u64,
    due_time: f64,
}

const FRAME_BITS: u64 = (1 << 60) - 1;

/// Host frame numbers must stay below this (see `begin_frame`).
pub const MAX_HOST_FRAME: u64 = 1 << 59;

impl Wait {
    #[inline(always)]
    fn due_frame(&self) -> u64 {
        self.due_meta & FRAME_BITS
    }
    /// Moves a frame-based due frame `by` frames later (Yields have none).
    fn rebase_frames(&mut self, by: u64) {
        if self.kind() != WaitKind::Yield {
            let due = self.due_frame().saturating_add(by).min(FRAME_BITS);
            self.due_meta = (self.due_meta & !FRAME_BITS) | due;
        }
    }
    #[inline(always)]
    fn kind(&self) -> WaitKind {
        match (self.due_meta >> 60) & 3 {
            0 => WaitKind::Yield,
            1 => WaitKind::NextFrame,
            2 => WaitKind::DelayFrame,
            _ => WaitKind::Delay,
        }
    }
    #[inline(always)]
    fn clock(&self) -> usize {
        (self.due_meta >> 62) as usize
    }
}

#[derive(Default)]
struct TimingQueue {
    items: Vec<Wait>,
    spare: Vec<Wait>,
}

/// Counters of one wait kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WaitStats {
    pub pending: u64,
    pub high_water: u64,
    pub scheduled: u64,
    pub completed: u64,
    pub canceled: u64,
}

// ---- combinators --------------------------------------------------------

struct AnyCoord {
    out: u64,
    inputs: Vec<u64>,
    remaining: u32,
    done: bool,
    token: u64,
    watch: u32,
    bucket: u8,
}

struct AllCoord {
    out: u64,
    inputs: Vec<u64>,
    outcomes: Vec<Outcome>,
    remaining: u32,
    done: bool,
    out_released: bool,
    first_fail: u32,
    token: u64,
    watch: u32,
    bucket: u8,
}

const NO_WATCH: u32 = u32::MAX;

/// Cancel slot state bit: retired for good (generation exhausted).
const CS_DEAD: u64 = 2;

/// Stands in for the token of a canceled source that has been destroyed.
/// Never a valid handle (its kind bits are 3).
const CANCELED_TOKEN: u64 = u64::MAX;

#[derive(Clone, Copy)]
enum Watch {
    Any(*mut AnyCoord),
    All(*mut AllCoord),
}

impl Watch {
    /// The same coordinator.
    fn same(&self, other: &Watch) -> bool {
        match (self, other) {
            (Watch::Any(a), Watch::Any(b)) => a == b,
            (Watch::All(a), Watch::All(b)) => a == b,
            _ => false,
        }
    }
}

fn bucket_of(n: usize) -> u8 {
    if n <= 16 {
        0
    } else if n <= 32 {
        1
    } else {
        2
    }
}

// ---- statistics ---------------------------------------------------------

/// A snapshot of every pool and counter of a runtime.
#[derive(Debug, Clone, Copy, Default)]
pub struct Stats {
    pub tasks: PoolStats,
    pub cancel_sources: PoolStats,
    /// Storage of wait records in the 16 timing queues.
    pub wait_records: PoolStats,
    pub waits: [WaitStats; WAIT_KIND_COUNT],
    /// WhenAny coordinators: up to 16 inputs, up to 32, larger (unpooled).
    pub when_any: [PoolStats; 3],
    /// WhenAll coordinators, same buckets.
    pub when_all: [PoolStats; 3],
    /// Tasks created and not yet consumed.
    pub live_tasks: u64,
    /// Tasks completed but never consumed (leak diagnosis).
    pub completed_unconsumed: u64,
    /// Continuations waiting for the owner thread (completed off-thread).
    pub cross_thread_queued: u64,
    /// The current frame number (as given to frame begin).
    pub frame: u64,
}

// ---- runtime ------------------------------------------------------------

struct Inner {
    cfg: Config,
    task_free_head: u32,
    task_fresh: u32,
    task_free_count: u64,
    task_stats: PoolStats,
    cancel_free_head: u32,
    cancel_fresh: u32,
    cancel_free_count: u64,
    cancel_stats: PoolStats,
    queues: [TimingQueue; TIMING_COUNT],
    /// Internal frame number: host frame + 1, 0 before the first frame.
    fnum: u64,
    host_frame: u64,
    clocks: [f64; 3],
    ticking: bool,
    closing: bool,
    /// Host callbacks currently on the stack.
    depth: u32,
    /// Frame (internal number) of the last automatic frame-allocator rewind.
    last_rewind_fnum: u64,
    waits: [WaitStats; WAIT_KIND_COUNT],
    /// The part of `waits` kept outside the queues (batch fast lanes): they
    /// use no wait record, so the wait-record pool figures leave them out.
    external_waits: [WaitStats; WAIT_KIND_COUNT],
    wait_storage: PoolStats,
    any_pools: [BoxPool<AnyCoord>; 3],
    all_pools: [BoxPool<AllCoord>; 3],
    watches: Vec<Watch>,
    seen_cancel_epoch: u64,
    /// Stamp for duplicate detection in combinator inputs.
    mark_stamp: u32,
    /// The waits `run_queue` holds in its local vector while it runs host
    /// code (base, len), so `destroy_cancel_source` can re-point them too.
    running: (*mut Wait, usize),
}

impl Inner {
    /// Updates the wait high-water marks. Pending waits only grow between
    /// ticks, so sampling at the start of every tick (and in `stats`) sees
    /// the peaks.
    fn sample_wait_high_water(&mut self) {
        let mut total = 0;
        for (w, x) in self.waits.iter_mut().zip(self.external_waits.iter()) {
            let pending = w.scheduled - w.completed - w.canceled;
            total += pending - (x.scheduled - x.completed - x.canceled);
            if pending > w.high_water {
                w.high_water = pending;
            }
        }
        if total > self.wait_storage.high_water {
            self.wait_storage.high_water = total;
        }
    }
}

static NEXT_TAG: AtomicU8 = AtomicU8::new(1);
/// Tags of live runtimes: two live runtimes never share a tag, so a handle
/// of one is always `ForeignHandle` to the other.
static TAG_IN_USE: [std::sync::atomic::AtomicBool; 256] = [const { std::sync::atomic::AtomicBool::new(false) }; 256];

/// Claims a tag no live runtime has (round robin, never 0).
fn claim_tag() -> Option<u8> {
    for _ in 0..256 {
        let t = NEXT_TAG.fetch_add(1, Ordering::Relaxed);
        if t != 0 && TAG_IN_USE[t as usize].compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed).is_ok() {
            return Some(t);
        }
    }
    None
}

/// A frame-based task runtime. See the module documentation.
pub struct Runtime {
    tag: u8,
    owner: u64,
    tasks: Arena<TaskSlot>,
    cancels: Arena<CancelSlot>,
    /// Slots completed off the owner thread, waiting for its next drain.
    queued: CompletionStack,
    queued_count: AtomicU64,
    cancel_epoch: AtomicU64,
    frame_alloc: FrameAllocator,
    inner: UnsafeCell<Inner>,
}

// SAFETY: `inner` is only accessed on the owner thread (checked by every
// owner-only entry point); everything else is atomic or the arena's
// lock-free reads.
unsafe impl Sync for Runtime {}
unsafe impl Send for Runtime {}

/// Resets the `ticking` flag even if a panic unwinds through a tick.
struct TickGuard<'a>(&'a Runtime);
impl Drop for TickGuard<'_> {
    fn drop(&mut self) {
        // SAFETY: owner thread (the guard is created after the check).
        unsafe { self.0.inner().ticking = false };
    }
}

/// Forgets `run_queue`'s local vector when it is done (even by a panic).
struct RunningGuard<'a>(&'a Runtime);
impl Drop for RunningGuard<'_> {
    fn drop(&mut self) {
        // SAFETY: owner thread (created in `run_queue`).
        unsafe { self.0.inner().running = (ptr::null_mut(), 0) };
    }
}

impl Runtime {
    /// Creates a runtime owned by the calling thread.
    /// Panics when 255 runtimes are alive (see [`Runtime::try_new`]).
    pub fn new(cfg: Config) -> Runtime {
        Self::try_new(cfg).expect("255 runtimes alive")
    }

    /// Creates a runtime owned by the calling thread; `Exhausted` when 255
    /// runtimes are alive (each needs its own handle tag).
    pub fn try_new(cfg: Config) -> Result<Runtime> {
        let tasks = Arena::new();
        while tasks.len() < cfg.task_capacity.min(handle::MAX_SLOTS) {
            tasks.grow();
        }
        let cancels = Arena::new();
        while cancels.len() < cfg.cancel_capacity.min(handle::MAX_SLOTS) {
            cancels.grow();
        }
        let c16 = cfg.combinator16_capacity as usize;
        let c32 = cfg.combinator32_capacity as usize;
        let mut queues: [TimingQueue; TIMING_COUNT] = Default::default();
        let per_queue = (cfg.wait_capacity as usize).min(1 << 20);
        for q in queues.iter_mut() {
            q.items = Vec::with_capacity(per_queue.min(256));
            q.spare = Vec::with_capacity(per_queue.min(256));
        }
        let inner = Inner {
            cfg,
            task_free_head: 0,
            task_fresh: 0,
            task_free_count: 0,
            task_stats: PoolStats { capacity: cfg.task_capacity as u64, ..Default::default() },
            cancel_free_head: 0,
            cancel_fresh: 0,
            cancel_free_count: 0,
            cancel_stats: PoolStats { capacity: cfg.cancel_capacity as u64, ..Default::default() },
            queues,
            fnum: 0,
            host_frame: 0,
            clocks: [0.0; 3],
            ticking: false,
            closing: false,
            depth: 0,
            last_rewind_fnum: 0,
            waits: Default::default(),
            external_waits: Default::default(),
            wait_storage: PoolStats { capacity: cfg.wait_capacity as u64 * TIMING_COUNT as u64, ..Default::default() },
            any_pools: [BoxPool::new(c16), BoxPool::new(c32), BoxPool::new(0)],
            all_pools: [BoxPool::new(c16), BoxPool::new(c32), BoxPool::new(0)],
            watches: Vec::with_capacity(64),
            seen_cancel_epoch: 0,
            mark_stamp: 0,
            running: (ptr::null_mut(), 0),
        };
        // Last, so nothing above can leave the tag claimed (dropping the
        // runtime releases it).
        let tag = claim_tag().ok_or(Error::Exhausted)?;
        Ok(Runtime {
            tag,
            owner: current_thread_id(),
            tasks,
            cancels,
            queued: CompletionStack::new(),
            queued_count: AtomicU64::new(0),
            cancel_epoch: AtomicU64::new(0),
            frame_alloc: FrameAllocator::new(cfg.frame_alloc),
            inner: UnsafeCell::new(inner),
        })
    }

    /// # Safety
    /// Owner thread only, and the returned borrow must end before any
    /// continuation or other call that may re-enter the runtime.
    #[allow(clippy::mut_from_ref)]
    #[inline(always)]
    unsafe fn inner(&self) -> &mut Inner {
        &mut *self.inner.get()
    }

    #[inline]
    pub fn is_owner_thread(&self) -> bool {
        current_thread_id() == self.owner
    }

    #[inline]
    fn check_owner(&self) -> Result<()> {
        if self.is_owner_thread() {
            Ok(())
        } else {
            Err(Error::WrongThread)
        }
    }

    /// Owner check plus "not closing" (for calls that add work).
    #[inline]
    fn check_owner_open(&self) -> Result<()> {
        self.check_owner()?;
        // SAFETY: owner thread; short borrow.
        if unsafe { self.inner().closing } {
            return Err(Error::Reentrant);
        }
        Ok(())
    }

    // ---- slots ----------------------------------------------------------

    /// Decodes and checks a task handle; returns the slot, its index and the
    /// current state word (generation matched, not free).
    #[inline]
    fn task_slot(&self, h: u64) -> Result<(&TaskSlot, u32, u64)> {
        let (gen, idx) = handle::decode(h, self.tag, Kind::Task)?;
        let slot = self.tasks.get(idx).ok_or(Error::InvalidHandle)?;
        let word = slot.state.load(Ordering::Acquire);
        if gen_of(word) != gen || st(word) == ST_FREE {
            return Err(Error::StaleHandle);
        }
        Ok((slot, idx, word))
    }

    #[inline]
    fn slot(&self, idx: u32) -> &TaskSlot {
        // SAFETY: indices stored in owner structures come from handed-out slots.
        unsafe { self.tasks.get_unchecked(idx) }
    }

    /// Rents a slot for a new pending task. Owner thread.
    fn rent_task(&self, manual: bool) -> Result<u64> {
        // SAFETY: owner thread; no user code runs while borrowed.
        let inner = unsafe { self.inner() };
        let (idx, cold) = if inner.task_free_head != 0 {
            let idx = inner.task_free_head - 1;
            inner.task_free_head = self.slot(idx).next_free.get();
            inner.task_free_count -= 1;
            (idx, false)
        } else {
            if inner.task_fresh >= self.tasks.len() && !self.tasks.grow() {
                return Err(Error::Exhausted);
            }
            let idx = inner.task_fresh;
            inner.task_fresh += 1;
            (idx, idx as u64 >= inner.task_stats.capacity)
        };
        inner.task_stats.on_rent(cold);
        let slot = self.slot(idx);
        let gen = gen_of(slot.state.load(Ordering::Relaxed)).wrapping_add(1);
        debug_assert!(gen & 1 == 1);
        let flags = if manual { F_MANUAL } else { 0 };
        slot.state.store(((gen as u64) << 32) | ST_PENDING | flags, Ordering::Release);
        slot.aux.set(u32::MAX);
        Ok(handle::encode(gen, self.tag, Kind::Task, idx))
    }

    /// Retires a final task: bumps the generation (stale from now on) and
    /// returns the slot to the free list unless it is still queued.
    fn retire(&self, idx: u32, word: u64) {
        let slot = self.slot(idx);
        let old_gen = gen_of(word);
        slot.cont.set(Cont::None);
        slot.attached.set(ptr::null_mut());
        // SAFETY: owner thread, short borrow.
        let inner = unsafe { self.inner() };
        if old_gen == u32::MAX {
            // Generation space exhausted: retire the slot for good so no old
            // handle can ever match it again.
            slot.state.store(word & !(ST_MASK | F_MANUAL) & !F_QUEUED, Ordering::Release);
            inner.task_stats.on_return(true);
            return;
        }
        let queued = word & F_QUEUED;
        let new = ((old_gen.wrapping_add(1) as u64) << 32) | ST_FREE | queued;
        slot.state.store(new, Ordering::Release);
        inner.task_stats.on_return(false);
        if queued == 0 {
            slot.next_free.set(inner.task_free_head);
            inner.task_free_head = idx + 1;
            inner.task_free_count += 1;
        }
    }

    fn free_queued_slot(&self, idx: u32) {
        // SAFETY: owner thread, short borrow.
        let inner = unsafe { self.inner() };
        let slot = self.slot(idx);
        if gen_of(slot.state.load(Ordering::Relaxed)) == u32::MAX {
            return; // retired for good
        }
        slot.next_free.set(inner.task_free_head);
        inner.task_free_head = idx + 1;
        inner.task_free_count += 1;
    }

    #[inline]
    fn read_outcome(slot: &TaskSlot, word: u64) -> Outcome {
        // SAFETY: the word is final (observed with Acquire), so the payload
        // writes of the completing thread are visible and no longer change.
        unsafe {
            Outcome {
                state: task_state(word),
                value: *slot.value.get(),
                error: *slot.error.get(),
                index: slot.aux.get(),
            }
        }
    }

    // ---- tasks ----------------------------------------------------------

    /// Creates a manual completion source. Owner thread.
    pub fn create_task(&self) -> Result<u64> {
        self.check_owner_open()?;
        self.rent_task(true)
    }

    /// Creates a task that has already completed (like UniTask's
    /// `FromResult`): no other thread can have seen it, so no atomic
    /// read-modify-write is needed. Owner thread.
    pub fn create_completed(&self, state: TaskState, value: u64, error: i32) -> Result<u64> {
        self.check_owner_open()?;
        if state == TaskState::Pending {
            return Err(Error::InvalidArgument);
        }
        let h = self.rent_task(false)?;
        let slot = self.slot((h & (handle::MAX_SLOTS as u64 - 1)) as u32);
        // SAFETY: the slot was just rented on the owner thread; nobody else
        // holds its handle yet.
        unsafe {
            *slot.value.get() = value;
            *slot.error.get() = error;
        }
        let word = slot.state.load(Ordering::Relaxed);
        slot.state.store((word & !ST_MASK) | state_code(state), Ordering::Release);
        Ok(h)
    }

    /// Completes a task. The first completion wins; later ones get
    /// `AlreadyCompleted`. `manual_only` restricts to manual sources.
    ///
    /// Manual sources may be completed from any thread: a CAS on the state
    /// word claims them. Every other task (waits, combinator outputs) is
    /// completed only on the owner thread (`WrongThread` elsewhere), so it
    /// needs no atomic read-modify-write at all.
    pub fn complete(&self, h: u64, state: TaskState, value: u64, error: i32, manual_only: bool) -> Result<()> {
        let (gen, idx) = handle::decode(h, self.tag, Kind::Task)?;
        let slot = self.tasks.get(idx).ok_or(Error::InvalidHandle)?;
        let mut word = slot.state.load(Ordering::Acquire);
        let code = state_code(state);
        loop {
            if gen_of(word) != gen || st(word) == ST_FREE {
                return Err(Error::StaleHandle);
            }
            // Not a manual source: INVALID_HANDLE whatever its state.
            if manual_only && word & F_MANUAL == 0 {
                return Err(Error::InvalidHandle);
            }
            if st(word) != ST_PENDING {
                return Err(Error::AlreadyCompleted);
            }
            if word & F_MANUAL == 0 {
                if !self.is_owner_thread() {
                    return Err(Error::WrongThread);
                }
                // SAFETY: owner-only task on the owner thread: no other writer.
                unsafe {
                    *slot.value.get() = value;
                    *slot.error.get() = error;
                }
                slot.state.store((word & !ST_MASK) | code, Ordering::Release);
                self.dispatch(idx, gen, code);
                return Ok(());
            }
            let claimed = (word & !ST_MASK) | ST_COMPLETING;
            match slot.state.compare_exchange_weak(word, claimed, Ordering::Acquire, Ordering::Acquire) {
                Ok(_) => {
                    word = claimed;
                    break;
                }
                Err(w) => word = w,
            }
        }
        // SAFETY: we won the CAS: we are the only writer until we publish.
        unsafe {
            *slot.value.get() = value;
            *slot.error.get() = error;
        }
        if self.is_owner_thread() {
            slot.state.store((word & !ST_MASK) | code, Ordering::Release);
            self.dispatch(idx, gen, code);
        } else {
            slot.state.store((word & !ST_MASK) | code | F_QUEUED, Ordering::Release);
            self.push_queued(idx);
        }
        Ok(())
    }

    /// Owner-thread completion of a task known to be ours (waits, combinator
    /// outputs); ignores tasks already completed (e.g. canceled by the user).
    #[inline]
    fn complete_internal(&self, h: u64, state: TaskState, value: u64, error: i32) {
        let _ = self.complete(h, state, value, error, false);
    }

    fn push_queued(&self, idx: u32) {
        self.queued_count.fetch_add(1, Ordering::Relaxed);
        self.queued.push(idx, &self.slot(idx).next_queued);
    }

    /// Runs the continuations of tasks completed off the owner thread, in
    /// completion order. Owner thread.
    pub fn drain(&self) -> Result<()> {
        self.check_owner()?;
        self.drain_queued();
        self.poll_watches();
        Ok(())
    }

    fn drain_queued(&self) {
        let head = self.queued.take_all();
        if head == 0 {
            return;
        }
        // Reverse the LIFO list into completion order.
        let mut cur = CompletionStack::reverse(head, |i| &self.slot(i).next_queued);
        while cur != 0 {
            let idx = cur - 1;
            let s = self.slot(idx);
            cur = s.next_queued.load(Ordering::Relaxed);
            self.queued_count.fetch_sub(1, Ordering::Relaxed);
            let word = s.state.fetch_and(!F_QUEUED, Ordering::AcqRel);
            if st(word) == ST_FREE {
                // Consumed while queued: now it can be reused.
                self.free_queued_slot(idx);
            } else {
                self.dispatch(idx, gen_of(word), st(word));
            }
        }
    }

    /// Calls host code. While any host code runs, `close` is refused (the
    /// runtime must outlive every frame of its own that is on the stack).
    #[inline(always)]
    fn call_user(&self, f: CallbackFn, user: *mut c_void, arg: u64, state: u32) {
        // SAFETY: owner thread, short borrows around the call.
        unsafe { self.inner().depth += 1 };
        // SAFETY: the host promised `f` is callable with `user`.
        unsafe { f(user, arg, state) };
        // SAFETY: as above.
        unsafe { self.inner().depth -= 1 };
    }

    /// Runs a completed task's continuation. Owner thread.
    fn dispatch(&self, idx: u32, gen: u32, code: u64) {
        let slot = self.slot(idx);
        match slot.cont.get() {
            Cont::None | Cont::Fired => {}
            Cont::User(f, user) => {
                slot.cont.set(Cont::Fired);
                let h = handle::encode(gen, self.tag, Kind::Task, idx);
                // SAFETY: the host promised `f` is callable with `user`.
                self.call_user(f, user, h, task_state(code) as u32);
            }
            Cont::Emit(f, user, arg) => {
                slot.cont.set(Cont::Fired);
                // SAFETY: as above.
                self.call_user(f, user, arg, task_state(code) as u32);
            }
            Cont::Any(c, i) => {
                slot.cont.set(Cont::Fired);
                self.on_any_input(c, i, idx);
            }
            Cont::All(c, i) => {
                slot.cont.set(Cont::Fired);
                self.on_all_input(c, i, idx);
            }
        }
    }

    /// State of a task. Any thread.
    pub fn task_state(&self, h: u64) -> Result<TaskState> {
        let (_, _, word) = self.task_slot(h)?;
        Ok(task_state(word))
    }

    /// Registers the continuation of a task. Owner thread. If the task has
    /// already completed (and its completion is not still queued for the
    /// owner), the continuation runs before this returns.
    pub fn on_complete(&self, h: u64, f: CallbackFn, user: *mut c_void) -> Result<()> {
        self.set_continuation(h, Cont::User(f, user))
    }

    /// Like `on_complete`, but the continuation receives `arg` in place of
    /// the task handle (used by batches to pass their record id).
    pub fn on_complete_with_arg(&self, h: u64, f: CallbackFn, user: *mut c_void, arg: u64) -> Result<()> {
        self.set_continuation(h, Cont::Emit(f, user, arg))
    }

    fn set_continuation(&self, h: u64, cont: Cont) -> Result<()> {
        self.check_owner()?;
        let (slot, idx, word) = self.task_slot(h)?;
        if !matches!(slot.cont.get(), Cont::None) {
            return Err(Error::AlreadyAwaited);
        }
        slot.cont.set(cont);
        if is_final(word) {
            self.dispatch(idx, gen_of(word), st(word));
        }
        Ok(())
    }

    /// Consumes a completed task: returns its outcome and retires the handle.
    /// Owner thread.
    pub fn consume(&self, h: u64) -> Result<Outcome> {
        self.check_owner()?;
        let (slot, idx, word) = self.task_slot(h)?;
        // A combinator input, or a task whose continuation has not run yet
        // (completed on another thread, queued for the owner): it belongs to
        // them. Once the continuation runs (`Fired`) it may consume.
        if matches!(slot.cont.get(), Cont::Any(..) | Cont::All(..) | Cont::User(..) | Cont::Emit(..)) {
            return Err(Error::AlreadyAwaited);
        }
        if !is_final(word) {
            return Err(Error::TaskPending);
        }
        let outcome = Self::read_outcome(slot, word);
        let coord = slot.attached.get();
        self.retire(idx, word);
        if !coord.is_null() {
            self.release_all_out(coord);
        }
        Ok(outcome)
    }

    // ---- cancellation sources ------------------------------------------

    /// Creates a cancellation source; its handle is also its token. Owner.
    pub fn create_cancel_source(&self) -> Result<u64> {
        self.check_owner_open()?;
        // SAFETY: owner thread, short borrow.
        let inner = unsafe { self.inner() };
        let (idx, cold) = if inner.cancel_free_head != 0 {
            let idx = inner.cancel_free_head - 1;
            // SAFETY: idx came from the free list.
            inner.cancel_free_head = unsafe { self.cancels.get_unchecked(idx) }.next_free.get();
            inner.cancel_free_count -= 1;
            (idx, false)
        } else {
            if inner.cancel_fresh >= self.cancels.len() && !self.cancels.grow() {
                return Err(Error::Exhausted);
            }
            let idx = inner.cancel_fresh;
            inner.cancel_fresh += 1;
            (idx, idx as u64 >= inner.cancel_stats.capacity)
        };
        inner.cancel_stats.on_rent(cold);
        // SAFETY: idx < len.
        let slot = unsafe { self.cancels.get_unchecked(idx) };
        let gen = gen_of(slot.state.load(Ordering::Relaxed)).wrapping_add(1);
        slot.state.store((gen as u64) << 32, Ordering::Release);
        Ok(handle::encode(gen, self.tag, Kind::CancelSource, idx))
    }

    fn cancel_slot(&self, h: u64) -> Result<(&CancelSlot, u32, u64)> {
        let (gen, idx) = handle::decode(h, self.tag, Kind::CancelSource)?;
        let slot = self.cancels.get(idx).ok_or(Error::InvalidHandle)?;
        let word = slot.state.load(Ordering::Acquire);
        if gen_of(word) != gen || word & CS_DEAD != 0 {
            return Err(Error::StaleHandle);
        }
        Ok((slot, idx, word))
    }

    /// Cancels a source. Any thread. Canceling twice is not an error.
    /// Everything waiting on the token observes it at the owner's next tick
    /// of its timing (waits) or next tick / drain (combinators).
    pub fn cancel(&self, h: u64) -> Result<()> {
        let (slot, _, _) = self.cancel_slot(h)?;
        let gen = (h >> 32) as u32;
        let live = (gen as u64) << 32;
        match slot.state.compare_exchange(live, live | 1, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => {
                self.cancel_epoch.fetch_add(1, Ordering::Release);
                Ok(())
            }
            Err(w) if w == live | 1 => Ok(()),
            Err(_) => Err(Error::StaleHandle),
        }
    }

    /// Whether a source is canceled. Any thread.
    pub fn is_canceled(&self, h: u64) -> Result<bool> {
        let (_, _, word) = self.cancel_slot(h)?;
        Ok(word & 1 == 1)
    }

    /// Destroys a source. Owner thread. If it was canceled, everything
    /// holding its token still observes the cancellation (at the usual
    /// points: the next run of a wait's timing, the next tick or drain for
    /// combinators); if it was not, nothing holding its token is ever
    /// canceled by it.
    pub fn destroy_cancel_source(&self, h: u64) -> Result<()> {
        self.check_owner()?;
        let (slot, idx, word) = self.cancel_slot(h)?;
        let gen = gen_of(word);
        // SAFETY: owner thread, short borrow; no user code runs below.
        let inner = unsafe { self.inner() };
        // Swap, not store: a `cancel` from another thread landing after the
        // check above must not be erased (it returned OK).
        let new = if gen == u32::MAX { ((gen as u64) << 32) | CS_DEAD } else { (gen.wrapping_add(1) as u64) << 32 };
        let word = slot.state.swap(new, Ordering::AcqRel);
        if word & 1 == 1 {
            // Re-point every holder of this token at the permanent
            // "canceled" token before the slot can be reused.
            for q in inner.queues.iter_mut() {
                for w in q.items.iter_mut().chain(q.spare.iter_mut()) {
                    if w.token == h {
                        w.token = CANCELED_TOKEN;
                    }
                }
            }
            // The waits of a timing being ticked (we run inside one of its
            // continuations).
            let (base, len) = inner.running;
            for i in 0..len {
                // SAFETY: `run_queue`'s local vector, alive and not borrowed
                // while host code runs; it reads each record after this returns.
                unsafe {
                    if (*base.add(i)).token == h {
                        (*base.add(i)).token = CANCELED_TOKEN;
                    }
                }
            }
            for w in inner.watches.iter() {
                // SAFETY: watched coordinators are live.
                unsafe {
                    match *w {
                        Watch::Any(p) if (*p).token == h => (*p).token = CANCELED_TOKEN,
                        Watch::All(p) if (*p).token == h => (*p).token = CANCELED_TOKEN,
                        _ => {}
                    }
                }
            }
            self.cancel_epoch.fetch_add(1, Ordering::Release);
        }
        if gen == u32::MAX {
            // Retired for good: dead, and not canceled.
            inner.cancel_stats.on_return(true);
            return Ok(());
        }
        slot.next_free.set(inner.cancel_free_head);
        inner.cancel_free_head = idx + 1;
        inner.cancel_free_count += 1;
        inner.cancel_stats.on_return(false);
        Ok(())
    }

    /// Validates an optional token (0 = none).
    #[inline]
    fn check_token(&self, token: u64) -> Result<()> {
        if token != 0 {
            self.cancel_slot(token)?;
        }
        Ok(())
    }

    /// Whether a token is canceled; a destroyed source counts as not canceled.
    #[inline]
    fn token_canceled(&self, token: u64) -> bool {
        if token == 0 {
            return false;
        }
        if token == CANCELED_TOKEN {
            return true;
        }
        let idx = (token & (handle::MAX_SLOTS as u64 - 1)) as u32;
        match self.cancels.get(idx) {
            Some(s) => s.state.load(Ordering::Acquire) == ((token >> 32) << 32) | 1,
            None => false,
        }
    }

    // ---- frames and waits -----------------------------------------------

    /// Begins a frame. Owner thread. Frame numbers must increase.
    pub fn begin_frame(&self, info: &FrameInfo) -> Result<()> {
        self.check_owner()?;
        let ok = |v: f64| v.is_finite() && v >= 0.0;
        if !ok(info.delta_time) || !ok(info.unscaled_delta_time) || !info.realtime.is_finite() {
            return Err(Error::InvalidArgument);
        }
        // SAFETY: owner thread, short borrow.
        let inner = unsafe { self.inner() };
        if inner.ticking {
            return Err(Error::Reentrant);
        }
        if inner.fnum != 0 && info.frame <= inner.host_frame {
            return Err(Error::FrameOrder);
        }
        // Wait records keep due frames in 60 bits: keep `fnum + u32::MAX`
        // below that.
        if info.frame >= MAX_HOST_FRAME {
            return Err(Error::InvalidArgument);
        }
        if inner.fnum == 0 {
            // Waits made before the first frame count from the frame before
            // it: their due frames were computed from counter 0, the first
            // frame's counter is `frame + 1` (NextFrame: the first frame,
            // DelayFrame(n): the n-th). Realtime delays count from the first
            // frame's realtime (they were given realtime 0 as their creation
            // time).
            for q in inner.queues.iter_mut() {
                for w in q.items.iter_mut() {
                    w.rebase_frames(info.frame);
                    if w.kind() == WaitKind::Delay && w.clock() == Clock::Realtime as usize {
                        w.due_time += info.realtime;
                    }
                }
            }
        }
        inner.host_frame = info.frame;
        inner.fnum = info.frame + 1;
        inner.clocks[0] += info.delta_time;
        inner.clocks[1] += info.unscaled_delta_time;
        inner.clocks[2] = info.realtime;
        Ok(())
    }

    /// The runtime's internal frame counter (`host frame + 1` once a frame
    /// has begun, 0 before): the clock NextFrame and DelayFrame due frames
    /// are measured on. Owner thread (returns 0 elsewhere).
    #[inline]
    pub fn frame_counter(&self) -> u64 {
        if !self.is_owner_thread() {
            return 0;
        }
        // SAFETY: owner thread, short borrow.
        unsafe { self.inner() }.fnum
    }

    /// Schedules a wait on `timing`. Returns the task it completes (or 0 for
    /// a callback wait). `frames` is used by DelayFrame, `seconds` and `clock`
    /// by Delay. Owner thread.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
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
        self.check_owner_open()?;
        if kind == WaitKind::Delay && !(seconds.is_finite() && seconds >= 0.0) {
            return Err(Error::InvalidArgument);
        }
        self.check_token(token)?;
        let (arg, func, user) = match target {
            WaitTarget::Task => (self.rent_task(false)?, None, ptr::null_mut()),
            WaitTarget::Callback(f, u, a) => (a, Some(f), u),
        };
        // SAFETY: owner thread, short borrow (no user code below).
        let inner = unsafe { self.inner() };
        let fnum = inner.fnum;
        let (due_frame, due_time) = match kind {
            WaitKind::Yield => (0, 0.0),
            WaitKind::NextFrame => (fnum.saturating_add(1), 0.0),
            WaitKind::DelayFrame => (fnum.saturating_add(frames as u64), 0.0),
            WaitKind::Delay => (fnum.saturating_add(1), inner.clocks[clock as usize] + seconds),
        };
        let rec = Wait {
            arg,
            func,
            user,
            token,
            due_meta: due_frame.min(FRAME_BITS) | (kind as u64) << 60 | (clock as u64) << 62,
            due_time,
        };
        let q = &mut inner.queues[timing as usize].items;
        if q.len() == q.capacity() {
            inner.wait_storage.cold_allocations += 1;
        }
        q.push(rec);
        // Only `scheduled` is counted here; pending and high-water are
        // derived at each tick (see `sample_wait_high_water`).
        inner.waits[kind as usize].scheduled += 1;
        Ok(if func.is_none() { arg } else { 0 })
    }

    /// Counts waits a batch keeps in its own fast lane, so the per-kind
    /// counters of [`Runtime::stats`] cover them. Owner thread (ignored
    /// elsewhere).
    pub fn count_external_waits(&self, kind: WaitKind, scheduled: u64, completed: u64, canceled: u64) {
        if !self.is_owner_thread() {
            return;
        }
        // SAFETY: owner thread, short borrow.
        let inner = unsafe { self.inner() };
        for w in [&mut inner.waits[kind as usize], &mut inner.external_waits[kind as usize]] {
            w.scheduled += scheduled;
            w.completed += completed;
            w.canceled += canceled;
        }
        if scheduled != 0 {
            inner.sample_wait_high_water();
        }
    }

    /// `Ok` when [`Runtime::tick`] may run now: owner thread, not inside a
    /// tick, not closing.
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
        // SAFETY: owner thread (checked above), short borrow.
        unsafe { self.inner() }.ticking = true;
        let _guard = TickGuard(self);
        {
            // SAFETY: owner thread, short borrow.
            let inner = unsafe { self.inner() };
            if inner.cfg.frame_alloc_rewind_timing == Some(timing) && inner.last_rewind_fnum != inner.fnum {
                inner.last_rewind_fnum = inner.fnum;
                self.frame_alloc.rewind();
            }
        }
        self.drain_queued();
        self.poll_watches();
        self.run_queue(timing as usize, false);
        Ok(())
    }

    /// Processes queue `t`. With `cancel_all`, every wait completes canceled
    /// (runtime destruction).
    fn run_queue(&self, t: usize, cancel_all: bool) {
        let (mut items, fnum, clocks) = {
            // SAFETY: owner thread, short borrow.
            let inner = unsafe { self.inner() };
            inner.sample_wait_high_water();
            let q = &mut inner.queues[t];
            let spare = std::mem::take(&mut q.spare);
            (std::mem::replace(&mut q.items, spare), inner.fnum, inner.clocks)
        };
        let len = items.len();
        let base = items.as_mut_ptr();
        // SAFETY: owner thread, short borrow.
        unsafe { self.inner() }.running = (base, len);
        let running = RunningGuard(self);
        let mut kept = 0usize;
        let mut done = [0u64; WAIT_KIND_COUNT];
        let mut canceled_n = [0u64; WAIT_KIND_COUNT];
        for i in 0..len {
            // SAFETY: i < len; `items` is a local vector no callback can reach.
            let rec = unsafe { &*base.add(i) };
            let canceled = cancel_all || self.token_canceled(rec.token);
            let kind = rec.kind();
            let due = canceled
                || match kind {
                    WaitKind::Yield => true,
                    WaitKind::NextFrame | WaitKind::DelayFrame => fnum >= rec.due_frame(),
                    WaitKind::Delay => fnum >= rec.due_frame() && clocks[rec.clock()] >= rec.due_time,
                };
            if !due {
                // SAFETY: kept <= i < len; copy within the local vector.
                unsafe { *base.add(kept) = *rec };
                kept += 1;
                continue;
            }
            let state = if canceled { TaskState::Canceled } else { TaskState::Succeeded };
            if canceled {
                canceled_n[kind as usize] += 1;
            } else {
                done[kind as usize] += 1;
            }
            let (arg, func, user) = (rec.arg, rec.func, rec.user);
            match func {
                // SAFETY: the host promised `f` is callable with `user`.
                // SAFETY: the host promised `f` is callable with `user`.
                // (`ticking` already refuses `close`, so no depth count.)
                Some(f) => unsafe { f(user, arg, state as u32) },
                None => self.complete_internal(arg, state, 0, 0),
            }
        }
        // SAFETY: the first `kept` elements are initialised copies.
        unsafe { items.set_len(kept) };
        drop(running);
        // SAFETY: owner thread, short borrow; no user code below.
        let inner = unsafe { self.inner() };
        for k in 0..WAIT_KIND_COUNT {
            let ws = &mut inner.waits[k];
            ws.completed += done[k];
            ws.canceled += canceled_n[k];
        }
        let cap = inner.cfg.wait_capacity as usize;
        let q = &mut inner.queues[t];
        // `q.items` holds the waits scheduled while this ran; the kept ones
        // are older and go first. When nothing was kept (the common case of
        // every wait resuming and re-scheduling) no record is copied.
        if !items.is_empty() {
            if !q.items.is_empty() {
                if items.capacity() - items.len() < q.items.len() {
                    inner.wait_storage.cold_allocations += 1;
                }
                items.extend_from_slice(&q.items);
                q.items.clear();
            }
            std::mem::swap(&mut items, &mut q.items);
        }
        // Keep at most `cap` records of storage per vector after a burst.
        for v in [&mut items, &mut q.items] {
            if v.capacity() > cap && v.len() <= cap {
                inner.wait_storage.discards += (v.capacity() - cap.max(v.len())) as u64;
                v.shrink_to(cap);
            }
        }
        q.spare = items;
    }

    // ---- combinators ----------------------------------------------------

    /// Validates combinator inputs: count, live unawaited tasks, no duplicates.
    fn check_inputs(&self, inputs: &[u64]) -> Result<()> {
        if inputs.is_empty() || inputs.len() > MAX_COMBINATOR_INPUTS as usize {
            return Err(Error::CountOutOfRange);
        }
        // Duplicates: two valid handles to one slot are the same handle, so
        // stamping each input's slot finds them in O(n). A live slot's
        // `next_free` is unused, so it holds the stamp.
        let stamp = {
            // SAFETY: owner thread, short borrow.
            let inner = unsafe { self.inner() };
            inner.mark_stamp = (inner.mark_stamp + 1) & 0x7fff_ffff;
            if inner.mark_stamp == 0 {
                // Wrapped: clear old stamps of live slots so none can match
                // a reused one.
                for idx in 0..inner.task_fresh {
                    let slot = self.slot(idx);
                    if st(slot.state.load(Ordering::Relaxed)) != ST_FREE {
                        slot.next_free.set(0);
                    }
                }
                inner.mark_stamp = 1;
            }
            inner.mark_stamp | 0x8000_0000
        };
        let mut dup = false;
        for &h in inputs {
            let (slot, _, _) = self.task_slot(h)?;
            if !matches!(slot.cont.get(), Cont::None) {
                return Err(Error::AlreadyAwaited);
            }
            dup |= slot.next_free.get() == stamp;
            slot.next_free.set(stamp);
        }
        if dup {
            return Err(Error::DuplicateInput);
        }
        Ok(())
    }

    /// WhenAny: a task that completes like the first input to complete
    /// (success, error or cancel), with `Outcome::index` = that input's index.
    /// The inputs are owned by the combinator from now on: they are consumed
    /// as they complete, including the losers. Owner thread.
    pub fn when_any(&self, inputs: &[u64], token: u64) -> Result<u64> {
        self.check_owner_open()?;
        self.check_inputs(inputs)?;
        self.check_token(token)?;
        let out = self.rent_task(false)?;
        let bucket = bucket_of(inputs.len());
        let cp: *mut AnyCoord = {
            // SAFETY: owner thread, short borrow.
            let inner = unsafe { self.inner() };
            let cap = [16usize, 32, inputs.len()][bucket as usize];
            let mut b = inner.any_pools[bucket as usize].rent(|| AnyCoord {
                out: 0,
                inputs: Vec::with_capacity(cap),
                remaining: 0,
                done: false,
                token: 0,
                watch: NO_WATCH,
                bucket,
            });
            b.out = out;
            b.inputs.clear();
            b.inputs.extend_from_slice(inputs);
            b.remaining = inputs.len() as u32;
            b.done = false;
            b.token = token;
            b.watch = NO_WATCH;
            b.bucket = bucket;
            Box::into_raw(b)
        };
        self.wire_combinator(
            inputs,
            token,
            |i| Cont::Any(cp, i),
            Watch::Any(cp),
            // SAFETY: cp is live (remaining > 0).
            |w| unsafe { (*cp).watch = w },
        );
        Ok(out)
    }

    /// WhenAll: a task that completes when every input has. It succeeds with
    /// value = input count if all succeeded, else it takes the state and
    /// error of the first input (in completion order) that failed or was
    /// canceled, with `Outcome::index` = that input. Per-input outcomes are
    /// readable with `when_all_results` until it is consumed. Owner thread.
    pub fn when_all(&self, inputs: &[u64], token: u64) -> Result<u64> {
        self.check_owner_open()?;
        self.check_inputs(inputs)?;
        self.check_token(token)?;
        let out = self.rent_task(false)?;
        let bucket = bucket_of(inputs.len());
        let cp: *mut AllCoord = {
            // SAFETY: owner thread, short borrow.
            let inner = unsafe { self.inner() };
            let cap = [16usize, 32, inputs.len()][bucket as usize];
            let mut b = inner.all_pools[bucket as usize].rent(|| AllCoord {
                out: 0,
                inputs: Vec::with_capacity(cap),
                outcomes: Vec::with_capacity(cap),
                remaining: 0,
                done: false,
                out_released: false,
                first_fail: u32::MAX,
                token: 0,
                watch: NO_WATCH,
                bucket,
            });
            b.out = out;
            b.inputs.clear();
            b.inputs.extend_from_slice(inputs);
            b.outcomes.clear();
            b.outcomes.resize(inputs.len(), Outcome::PENDING);
            b.remaining = inputs.len() as u32;
            b.done = false;
            b.out_released = false;
            b.first_fail = u32::MAX;
            b.token = token;
            b.watch = NO_WATCH;
            b.bucket = bucket;
            Box::into_raw(b)
        };
        let out_idx = (out & (handle::MAX_SLOTS as u64 - 1)) as u32;
        self.slot(out_idx).attached.set(cp);
        self.wire_combinator(
            inputs,
            token,
            |i| Cont::All(cp, i),
            Watch::All(cp),
            // SAFETY: cp is live (remaining > 0).
            |w| unsafe { (*cp).watch = w },
        );
        Ok(out)
    }

    /// The tail of `when_any` / `when_all`: points input `i` at the
    /// coordinator (`cont(i)`), registers its cancellation `watch` when there
    /// is a token (`set_watch` records the watch's index in the coordinator),
    /// feeds inputs that completed before the combinator existed and honours
    /// a token that is canceled already, in this order: `set_watch` runs
    /// before any input is settled, so the coordinator is still live then.
    fn wire_combinator(
        &self,
        inputs: &[u64],
        token: u64,
        cont: impl Fn(u32) -> Cont,
        watch: Watch,
        set_watch: impl FnOnce(u32),
    ) {
        for (i, &h) in inputs.iter().enumerate() {
            let idx = (h & (handle::MAX_SLOTS as u64 - 1)) as u32;
            self.slot(idx).cont.set(cont(i as u32));
        }
        if token != 0 {
            // SAFETY: owner thread, short borrow.
            let inner = unsafe { self.inner() };
            set_watch(inner.watches.len() as u32);
            inner.watches.push(watch);
        }
        self.settle_inputs(inputs);
        if token != 0 && self.token_canceled(token) {
            // Only this combinator completes now; others watching a canceled
            // token complete at the next tick or drain, as documented.
            self.cancel_watches(|w| w.same(&watch));
        }
    }

    /// Feeds inputs that completed before the combinator existed.
    fn settle_inputs(&self, inputs: &[u64]) {
        for &h in inputs {
            let idx = (h & (handle::MAX_SLOTS as u64 - 1)) as u32;
            let slot = self.slot(idx);
            let word = slot.state.load(Ordering::Acquire);
            // Inputs completed off-thread whose completion is still queued
            // count as completed too (they read as completed); the drain
            // then only frees their slot.
            if gen_of(word) == (h >> 32) as u32 && is_final(word) {
                self.dispatch(idx, gen_of(word), st(word));
            }
        }
    }

    /// Per-input outcomes of a completed, unconsumed WhenAll task.
    pub fn when_all_results(&self, h: u64, out: &mut [Outcome]) -> Result<()> {
        self.check_owner()?;
        let (slot, _, word) = self.task_slot(h)?;
        let cp = slot.attached.get();
        if cp.is_null() {
            return Err(Error::InvalidHandle);
        }
        if !is_final(word) {
            return Err(Error::TaskPending);
        }
        // SAFETY: attached coordinators live until the output is consumed.
        let c = unsafe { &*cp };
        if out.len() != c.outcomes.len() {
            return Err(Error::CountOutOfRange);
        }
        out.copy_from_slice(&c.outcomes);
        Ok(())
    }

    /// Consumes a completed input on behalf of a combinator.
    fn consume_input(&self, idx: u32) -> Outcome {
        let slot = self.slot(idx);
        let word = slot.state.load(Ordering::Acquire);
        let outcome = Self::read_outcome(slot, word);
        let coord = slot.attached.get();
        self.retire(idx, word);
        if !coord.is_null() {
            // The input was itself a WhenAll output.
            self.release_all_out(coord);
        }
        outcome
    }

    fn on_any_input(&self, cp: *mut AnyCoord, i: u32, idx: u32) {
        let outcome = self.consume_input(idx);
        let (win, out) = {
            // SAFETY: the coordinator lives while inputs remain; owner only.
            let c = unsafe { &mut *cp };
            c.remaining -= 1;
            let win = !c.done;
            if win {
                c.done = true;
                self.unwatch(c.watch);
                c.watch = NO_WATCH;
            }
            (win, c.out)
        };
        // SAFETY: as above.
        if unsafe { (*cp).remaining } == 0 {
            self.release_any(cp);
        }
        if win {
            self.set_aux(out, i);
            self.complete_internal(out, outcome.state, outcome.value, outcome.error);
        }
    }

    fn on_all_input(&self, cp: *mut AllCoord, i: u32, idx: u32) {
        let mut outcome = self.consume_input(idx);
        outcome.index = u32::MAX;
        let finish = {
            // SAFETY: the coordinator lives while inputs remain; owner only.
            let c = unsafe { &mut *cp };
            c.outcomes[i as usize] = outcome;
            if outcome.state != TaskState::Succeeded && c.first_fail == u32::MAX {
                c.first_fail = i;
            }
            c.remaining -= 1;
            if c.remaining == 0 && !c.done {
                c.done = true;
                self.unwatch(c.watch);
                c.watch = NO_WATCH;
                let r = if c.first_fail == u32::MAX {
                    (TaskState::Succeeded, c.inputs.len() as u64, 0, u32::MAX)
                } else {
                    let f = c.outcomes[c.first_fail as usize];
                    (f.state, f.value, f.error, c.first_fail)
                };
                Some((c.out, r))
            } else {
                None
            }
        };
        // SAFETY: as above.
        if unsafe { (*cp).remaining == 0 && (*cp).out_released } {
            self.release_all(cp);
        }
        if let Some((out, (state, value, error, index))) = finish {
            self.set_aux(out, index);
            self.complete_internal(out, state, value, error);
        }
    }

    fn set_aux(&self, h: u64, v: u32) {
        if let Ok((slot, _, word)) = self.task_slot(h) {
            if st(word) == ST_PENDING {
                slot.aux.set(v);
            }
        }
    }

    /// The WhenAll output was consumed: free the coordinator once inputs are done.
    fn release_all_out(&self, cp: *mut AllCoord) {
        // SAFETY: attached coordinator, owner only.
        let c = unsafe { &mut *cp };
        c.out_released = true;
        if c.remaining == 0 {
            self.release_all(cp);
        }
    }

    fn release_any(&self, cp: *mut AnyCoord) {
        // SAFETY: created by Box::into_raw in when_any, released once.
        let b = unsafe { Box::from_raw(cp) };
        // SAFETY: owner thread, short borrow.
        let inner = unsafe { self.inner() };
        inner.any_pools[b.bucket as usize].give(b);
    }

    fn release_all(&self, cp: *mut AllCoord) {
        // SAFETY: created by Box::into_raw in when_all, released once.
        let b = unsafe { Box::from_raw(cp) };
        // SAFETY: owner thread, short borrow.
        let inner = unsafe { self.inner() };
        inner.all_pools[b.bucket as usize].give(b);
    }

    fn unwatch(&self, w: u32) {
        if w == NO_WATCH {
            return;
        }
        // SAFETY: owner thread, short borrow.
        let inner = unsafe { self.inner() };
        inner.watches.swap_remove(w as usize);
        if let Some(moved) = inner.watches.get(w as usize) {
            // SAFETY: watched coordinators are live.
            unsafe {
                match *moved {
                    Watch::Any(p) => (*p).watch = w,
                    Watch::All(p) => (*p).watch = w,
                }
            }
        }
    }

    fn poll_watches(&self) {
        let epoch = self.cancel_epoch.load(Ordering::Acquire);
        // SAFETY: owner thread, short borrow.
        let inner = unsafe { self.inner() };
        if epoch == inner.seen_cancel_epoch {
            return;
        }
        inner.seen_cancel_epoch = epoch;
        self.poll_watches_force();
    }

    /// Cancels every watched combinator whose token is canceled.
    fn poll_watches_force(&self) {
        self.cancel_watches(|_| true);
    }

    /// Cancels the watched combinators `pick` selects whose token is canceled.
    fn cancel_watches(&self, pick: impl Fn(&Watch) -> bool) {
        let mut i = 0usize;
        loop {
            let w = {
                // SAFETY: owner thread, short borrow.
                let inner = unsafe { self.inner() };
                match inner.watches.get(i) {
                    Some(w) => *w,
                    None => break,
                }
            };
            // SAFETY: watched coordinators are live.
            let (token, out) = unsafe {
                match w {
                    Watch::Any(p) => ((*p).token, (*p).out),
                    Watch::All(p) => ((*p).token, (*p).out),
                }
            };
            if !pick(&w) || !self.token_canceled(token) {
                i += 1;
                continue;
            }
            // SAFETY: as above; mark done and stop watching, then complete.
            unsafe {
                match w {
                    Watch::Any(p) => {
                        (*p).done = true;
                        (*p).watch = NO_WATCH;
                    }
                    Watch::All(p) => {
                        (*p).done = true;
                        (*p).watch = NO_WATCH;
                    }
                }
            }
            self.unwatch(i as u32);
            self.complete_internal(out, TaskState::Canceled, 0, 0);
            // The completion ran host code, which may have removed other
            // watches (swap_remove moves the last one to a lower index):
            // rescan from the start so none is skipped.
            i = 0;
        }
    }

    /// Drops every callback wait and argument continuation whose user
    /// pointer is `user` (a batch being destroyed): queued waits are counted
    /// as canceled without calling anything; tasks lose their continuation
    /// and can be awaited again. Owner thread, not inside a tick.
    pub fn forget_callbacks_for(&self, user: *mut c_void) -> Result<()> {
        self.check_owner()?;
        // SAFETY: owner thread; no user code runs below.
        let inner = unsafe { self.inner() };
        // While closing, `run_queue` holds a queue's waits in a local copy
        // (as during a tick): they could not be forgotten.
        if inner.ticking || inner.closing {
            return Err(Error::Reentrant);
        }
        // The waits dropped below lower `pending`: record its peak first.
        inner.sample_wait_high_water();
        for q in inner.queues.iter_mut() {
            let waits = &mut inner.waits;
            q.items.retain(|w| {
                let drop_it = w.func.is_some() && w.user == user;
                if drop_it {
                    waits[w.kind() as usize].canceled += 1;
                }
                !drop_it
            });
        }
        for idx in 0..inner.task_fresh {
            let slot = self.slot(idx);
            if let Cont::Emit(_, u, _) = slot.cont.get() {
                if u == user {
                    slot.cont.set(Cont::None);
                }
            }
        }
        Ok(())
    }

    // ---- frame allocator ------------------------------------------------

    /// Allocates frame memory. Any thread. See [`FrameAllocator::alloc`]:
    /// valid until the rewind that ends `lifetime`.
    #[inline]
    pub fn frame_alloc(
        &self,
        lifetime: Lifetime,
        size: usize,
        align: usize,
    ) -> std::result::Result<*mut u8, AllocError> {
        self.frame_alloc.alloc(lifetime, size, align).map(|p| p.as_ptr())
    }

    /// Rewinds the frame allocator now. Owner thread, not inside a tick.
    /// No allocation may run concurrently (the host's jobs must be done).
    pub fn rewind_frame_allocator(&self) -> Result<()> {
        self.check_owner()?;
        // SAFETY: owner thread, short borrow.
        if unsafe { self.inner() }.ticking {
            return Err(Error::Reentrant);
        }
        self.frame_alloc.rewind();
        Ok(())
    }

    /// The frame allocator's counters. Any thread.
    pub fn frame_alloc_stats(&self) -> FrameAllocStats {
        self.frame_alloc.stats()
    }

    // ---- diagnostics ----------------------------------------------------

    /// A snapshot of all pools and counters. Owner thread.
    pub fn stats(&self) -> Result<Stats> {
        self.check_owner()?;
        // SAFETY: owner thread, short borrow.
        let inner = unsafe { self.inner() };
        inner.sample_wait_high_water();
        let mut s = Stats {
            tasks: inner.task_stats,
            cancel_sources: inner.cancel_stats,
            wait_records: inner.wait_storage,
            waits: inner.waits,
            ..Default::default()
        };
        for w in s.waits.iter_mut() {
            w.pending = w.scheduled - w.completed - w.canceled;
        }
        // Wait records: the waits kept in the timing queues (not in batch
        // fast lanes, which the per-kind counters above include).
        let ext = &inner.external_waits;
        s.wait_records.rents = s.waits.iter().zip(ext).map(|(w, x)| w.scheduled - x.scheduled).sum();
        s.wait_records.returns =
            s.waits.iter().zip(ext).map(|(w, x)| w.completed + w.canceled - x.completed - x.canceled).sum();
        s.wait_records.live = s.wait_records.rents - s.wait_records.returns;
        // Slot tables: capacity = slots allocated (whole chunks, at least the
        // configured number), idle = allocated and not live.
        s.tasks.capacity = self.tasks.len() as u64;
        s.tasks.idle = inner.task_free_count + (self.tasks.len() - inner.task_fresh) as u64;
        s.cancel_sources.capacity = self.cancels.len() as u64;
        s.cancel_sources.idle = inner.cancel_free_count + (self.cancels.len() - inner.cancel_fresh) as u64;
        s.wait_records.idle =
            inner.queues.iter().map(|q| (q.items.capacity() - q.items.len() + q.spare.capacity()) as u64).sum();
        for b in 0..3 {
            s.when_any[b] = inner.any_pools[b].snapshot();
            s.when_all[b] = inner.all_pools[b].snapshot();
        }
        s.live_tasks = inner.task_stats.live;
        let mut unconsumed = 0;
        for idx in 0..inner.task_fresh {
            let w = self.slot(idx).state.load(Ordering::Acquire);
            if is_final(w) && !matches!(self.slot(idx).cont.get(), Cont::Any(..) | Cont::All(..)) {
                unconsumed += 1;
            }
        }
        s.completed_unconsumed = unconsumed;
        s.cross_thread_queued = self.queued_count.load(Ordering::Relaxed);
        s.frame = inner.host_frame;
        Ok(s)
    }

    /// Writes up to `out.len()` live task handles; returns how many are live.
    pub fn live_tasks(&self, out: &mut [u64]) -> Result<usize> {
        self.check_owner()?;
        // SAFETY: owner thread, short borrow.
        let fresh = unsafe { self.inner() }.task_fresh;
        let mut n = 0;
        for idx in 0..fresh {
            let w = self.slot(idx).state.load(Ordering::Acquire);
            if st(w) != ST_FREE {
                if let Some(o) = out.get_mut(n) {
                    *o = handle::encode(gen_of(w), self.tag, Kind::Task, idx);
                }
                n += 1;
            }
        }
        Ok(n)
    }

    // ---- shutdown -------------------------------------------------------

    /// Cancels everything in flight: every wait completes canceled (callback
    /// waits are called with `Canceled`), then every pending task is
    /// canceled, running continuations. From then on calls that add work
    /// fail with `Reentrant`. Owner thread; refused (`Reentrant`) while a
    /// tick or any host callback is running, or when already closed. `Drop`
    /// does not call it (see there).
    pub fn close(&self) -> Result<()> {
        self.check_owner()?;
        {
            // SAFETY: owner thread, short borrow.
            let inner = unsafe { self.inner() };
            if inner.ticking || inner.closing || inner.depth > 0 {
                return Err(Error::Reentrant);
            }
            inner.closing = true;
        }
        self.drain_queued();
        for t in 0..TIMING_COUNT {
            self.run_queue(t, true);
        }
        // SAFETY: owner thread, short borrow.
        let fresh = unsafe { self.inner() }.task_fresh;
        for idx in 0..fresh {
            let w = self.slot(idx).state.load(Ordering::Acquire);
            if st(w) == ST_PENDING {
                let h = handle::encode(gen_of(w), self.tag, Kind::Task, idx);
                self.complete_internal(h, TaskState::Canceled, 0, 0);
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
        TAG_IN_USE[self.tag as usize].store(false, Ordering::Release);
        // Free coordinators still referenced by slots (WhenAll outputs never
        // consumed; inputs a worker was still completing).
        let inner = self.inner.get_mut();
        let mut anys: Vec<*mut AnyCoord> = Vec::new();
        let mut alls: Vec<*mut AllCoord> = Vec::new();
        for idx in 0..inner.task_fresh {
            // SAFETY: idx < fresh <= len.
            let s = unsafe { self.tasks.get_unchecked(idx) };
            match s.cont.get() {
                Cont::Any(p, _) => anys.push(p),
                Cont::All(p, _) => alls.push(p),
                _ => {}
            }
            if !s.attached.get().is_null() {
                alls.push(s.attached.get());
            }
        }
        anys.sort_unstable();
        anys.dedup();
        alls.sort_unstable();
        alls.dedup();
        for p in anys {
            // SAFETY: each coordinator pointer is unique after dedup and owned.
            unsafe { drop(Box::from_raw(p)) };
        }
        for p in alls {
            // SAFETY: as above.
            unsafe { drop(Box::from_raw(p)) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cancel source in its slot's last generation: destroying it retires
    /// the slot without canceling its waits, and its handle is stale after.
    /// (Reaching that generation through the API takes 2^31 create/destroy
    /// cycles; the test moves the slot there directly.)
    #[test]
    fn last_generation_cancel_source_retires_without_canceling() {
        let rt = Runtime::new(Config::default());
        let h0 = rt.create_cancel_source().unwrap();
        let (_, idx) = handle::decode(h0, rt.tag, Kind::CancelSource).unwrap();
        rt.destroy_cancel_source(h0).unwrap();
        rt.cancels.get(idx).unwrap().state.store(((u32::MAX - 1) as u64) << 32, Ordering::Release);
        let h = rt.create_cancel_source().unwrap();
        assert_eq!(handle::decode(h, rt.tag, Kind::CancelSource).unwrap(), (u32::MAX, idx));
        let w = rt.wait(WaitKind::Yield, Timing::Update, 0, 0.0, Clock::Scaled, h, WaitTarget::Task).unwrap();
        let live = rt.stats().unwrap().cancel_sources.live;
        rt.destroy_cancel_source(h).unwrap();
        assert_eq!(rt.is_canceled(h), Err(Error::StaleHandle));
        assert_eq!(rt.cancel(h), Err(Error::StaleHandle));
        assert_eq!(rt.destroy_cancel_source(h), Err(Error::StaleHandle));
        assert_eq!(rt.stats().unwrap().cancel_sources.live, live - 1);
        rt.tick(Timing::Update).unwrap();
        assert_eq!(rt.consume(w).unwrap().state, TaskState::Succeeded, "never canceled");
        // The retired slot is not handed out again.
        let h2 = rt.create_cancel_source().unwrap();
        assert_ne!(handle::decode(h2, rt.tag, Kind::CancelSource).unwrap().1, idx);
    }
}
