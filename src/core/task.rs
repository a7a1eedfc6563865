//! Tasks: creation, completion (any thread for manual sources), the
//! continuation, consumption, and the hand-over of tasks completed on other
//! threads.

use std::ffi::c_void;
use std::sync::atomic::Ordering;

use super::completion_stack::CompletionStack;
use super::error::{Error, Result};
use super::handle::{self, Kind};
use super::runtime::Runtime;
use super::slot::{self, cont, TaskSlot, COMPLETING, FREE, GEN_MASK, GEN_ONE, MANUAL, PENDING, QUEUED, STATE_MASK};
use super::timing::lane::Lane;
use super::types::{CallbackFn, Outcome, TaskState};

impl Runtime {
    /// The slot of a live task handle of ours, its index and state word
    /// (generation matched, not free); `None` for anything else. The fast
    /// half of the check; [`Runtime::task_slot`] finds the error.
    #[inline(always)]
    pub(super) fn live_task(&self, h: u64) -> Option<(&TaskSlot, u32, u64)> {
        let idx = handle::index(h);
        if !handle::has_key(h, self.task_key) {
            return None;
        }
        let slot = self.tasks.get(idx)?;
        let word = slot.state.load(Ordering::Acquire);
        ((word ^ h) & GEN_MASK == 0 && word & STATE_MASK != FREE).then_some((slot, idx, word))
    }

    /// [`Runtime::live_task`], or why not (see [`handle::why_invalid`]).
    #[inline(always)]
    pub(super) fn task_slot(&self, h: u64) -> Result<(&TaskSlot, u32, u64)> {
        match self.live_task(h) {
            Some(r) => Ok(r),
            None => Err(self.task_error(h)),
        }
    }

    #[cold]
    #[inline(never)]
    fn task_error(&self, h: u64) -> Error {
        handle::why_invalid(h, self.tag, Kind::Task, self.floors[0], |idx, gen| {
            let word = self.tasks.get(idx)?.state.load(Ordering::Acquire);
            Some(word >> 32 == gen as u64 && word & STATE_MASK != FREE)
        })
    }

    /// Rents a slot for a new pending task (`flags`: `MANUAL` or 0). Owner
    /// thread.
    #[inline(always)]
    pub(super) fn rent_task(&self, flags: u64) -> Result<u64> {
        // SAFETY: owner thread; no user code runs while borrowed.
        let (idx, slot) = unsafe { self.inner() }.tasks.rent(&self.tasks)?;
        Ok(self.init_task(slot, idx, PENDING | flags))
    }

    /// Makes a rented slot a live task whose state bits are `bits` (with
    /// flags: `PENDING | MANUAL`, `PENDING`, or a final state once its
    /// payload is written); returns its handle.
    #[inline(always)]
    pub(super) fn init_task(&self, slot: &TaskSlot, idx: u32, bits: u64) -> u64 {
        // The generation is even (free) and below u32::MAX (retired slots
        // are never rented): the next one is odd and does not wrap.
        let gen = (slot.state.load(Ordering::Relaxed) & GEN_MASK) + GEN_ONE;
        slot.state.store(gen | bits, Ordering::Release);
        slot.aux.set(u32::MAX);
        gen | self.task_key | idx as u64
    }

    /// A slot from the free list, on the owner thread of an open runtime;
    /// `None` sends the caller to its slow path.
    #[inline(always)]
    fn rent_slot_fast(&self) -> Option<(u32, &TaskSlot)> {
        if !self.owner_fast() {
            return None;
        }
        // SAFETY: owner thread; no user code runs while borrowed.
        let inner = unsafe { self.inner() };
        if inner.closing {
            return None;
        }
        inner.tasks.pop(&self.tasks)
    }

    /// A pending task from the free list (see [`Runtime::rent_slot_fast`]).
    #[inline(always)]
    fn rent_task_fast(&self, flags: u64) -> Option<u64> {
        let (idx, slot) = self.rent_slot_fast()?;
        Some(self.init_task(slot, idx, PENDING | flags))
    }

    #[cold]
    #[inline(never)]
    fn rent_task_slow(&self, flags: u64) -> Result<u64> {
        self.check_owner_open()?;
        self.rent_task(flags)
    }

    /// Retires a final task: bumps the generation (stale from now on) and
    /// returns the slot to the free list unless it is still queued. The
    /// caller deals with `attached` ([`Runtime::release_attached`]).
    #[inline(always)]
    fn retire(&self, slot: &TaskSlot, idx: u32, word: u64) {
        slot.cont.set(cont::NONE);
        let (next, exhausted) = (word & GEN_MASK).overflowing_add(GEN_ONE);
        if exhausted {
            return self.retire_for_good(slot, word);
        }
        let queued = word & QUEUED;
        slot.state.store(next | queued, Ordering::Release);
        // SAFETY: owner thread, short borrow.
        let tasks = &mut unsafe { self.inner() }.tasks;
        if queued == 0 {
            tasks.give_back(slot, idx);
        } else {
            tasks.give_back_parked();
        }
    }

    /// A retired WhenAll output: detaches its coordinator and frees it once
    /// its inputs are done.
    #[cold]
    #[inline(never)]
    fn release_attached(&self, slot: &TaskSlot, coord: *mut c_void) {
        slot.attached.set(std::ptr::null_mut());
        self.release_all_out(coord.cast());
    }

    /// Generation space exhausted: retire the slot for good so no old handle
    /// can ever match it again.
    #[cold]
    fn retire_for_good(&self, slot: &TaskSlot, word: u64) {
        slot.state.store(word & GEN_MASK, Ordering::Release);
        // SAFETY: owner thread, short borrow.
        unsafe { self.inner() }.tasks.give_back_retired();
    }

    /// Creates a manual completion source. Owner thread.
    #[inline(always)]
    pub fn create_task(&self) -> Result<u64> {
        let mut h = 0;
        self.create_task_with(|t| h = t)?;
        Ok(h)
    }

    /// [`Runtime::create_task`], handing the handle to `take` (only on
    /// success).
    #[inline(always)]
    pub fn create_task_with(&self, take: impl FnOnce(u64)) -> Result<()> {
        match self.rent_task_fast(MANUAL) {
            Some(h) => {
                take(h);
                Ok(())
            }
            None => self.create_slow(|| self.rent_task_slow(MANUAL), take),
        }
    }

    /// The slow path of the `_with` constructors: `make`, then `take`.
    #[cold]
    #[inline(never)]
    fn create_slow(&self, make: impl FnOnce() -> Result<u64>, take: impl FnOnce(u64)) -> Result<()> {
        take(make()?);
        Ok(())
    }

    /// Creates a task that has already completed (like UniTask's
    /// `FromResult`): no other thread can have seen it, so no atomic
    /// read-modify-write is needed. Owner thread.
    #[inline]
    pub fn create_completed(&self, state: TaskState, value: u64, error: i32) -> Result<u64> {
        let mut h = 0;
        self.create_completed_with(state, value, error, |t| h = t)?;
        Ok(h)
    }

    /// [`Runtime::create_completed`], handing the handle to `take` (only on
    /// success).
    #[inline(always)]
    pub fn create_completed_with(
        &self,
        state: TaskState,
        value: u64,
        error: i32,
        take: impl FnOnce(u64),
    ) -> Result<()> {
        if state != TaskState::Pending {
            if let Some((idx, slot)) = self.rent_slot_fast() {
                // SAFETY: the slot was just rented on the owner thread;
                // nobody else holds its handle yet.
                unsafe { slot.write_payload(value, error, state) };
                take(self.init_task(slot, idx, slot::state_code(state)));
                return Ok(());
            }
        }
        self.create_slow(
            move || {
                if state == TaskState::Pending {
                    self.check_owner_open()?;
                    return Err(Error::InvalidArgument);
                }
                let h = self.rent_task_slow(0)?;
                self.complete_new(h, state, value, error);
                Ok(h)
            },
            take,
        )
    }

    /// Completes a task just rented on the owner thread.
    #[inline(always)]
    fn complete_new(&self, h: u64, state: TaskState, value: u64, error: i32) {
        let slot = self.slot(handle::index(h));
        // SAFETY: the slot was just rented on the owner thread; nobody else
        // holds its handle yet.
        unsafe { slot.write_payload(value, error, state) };
        slot.state.store((h & GEN_MASK) | slot::state_code(state), Ordering::Release);
    }

    /// Completes a task. The first completion wins; later ones get
    /// `AlreadyCompleted`. `manual_only` restricts to manual sources.
    ///
    /// Manual sources may be completed from any thread: a CAS on the state
    /// word claims them. Every other task (waits, combinator outputs) is
    /// completed only on the owner thread (`WrongThread` elsewhere), so it
    /// needs no atomic read-modify-write at all.
    #[inline(always)]
    pub fn complete(&self, h: u64, state: TaskState, value: u64, error: i32, manual_only: bool) -> Result<()> {
        // Fast path: a pending manual task, claimed by one CAS whose expected
        // value is the handle's own pending word (any other word fails it).
        let idx = handle::index(h);
        if handle::has_key(h, self.task_key) {
            if let Some(slot) = self.tasks.get(idx) {
                let gen = h & GEN_MASK;
                let claim = slot.state.compare_exchange(
                    gen | PENDING | MANUAL,
                    gen | COMPLETING | MANUAL,
                    Ordering::Acquire,
                    Ordering::Relaxed,
                );
                if claim.is_ok() {
                    self.publish(slot, idx, gen | MANUAL, state, value, error);
                    return Ok(());
                }
            }
        }
        self.complete_slow(h, state, value, error, manual_only)
    }

    /// Writes the payload of a task this thread claimed and publishes the
    /// final state: on the owner thread the continuation runs now,
    /// elsewhere the task is queued for the owner. `base` is the word
    /// without state bits.
    #[inline(always)]
    fn publish(&self, slot: &TaskSlot, idx: u32, base: u64, state: TaskState, value: u64, error: i32) {
        let code = slot::state_code(state);
        // SAFETY: we claimed the task: we are the only writer until we
        // publish.
        unsafe { slot.write_payload(value, error, state) };
        if self.owner_fast() {
            self.finish(slot, idx, base, code);
        } else {
            self.publish_elsewhere(slot, idx, base, code);
        }
    }

    /// [`Runtime::publish`] off the fast owner check: queued for the owner,
    /// unless this is the owner after all (the fallback of `owner.rs`, out
    /// of line).
    #[inline(always)]
    fn publish_elsewhere(&self, slot: &TaskSlot, idx: u32, base: u64, code: u64) {
        if self.tasks.header().is_set() {
            // Another live thread owns the runtime.
            slot.state.store(base | code | QUEUED, Ordering::Release);
            self.queued.push(idx, &slot.next_queued);
        } else {
            self.publish_by_id(slot, idx, base, code);
        }
    }

    #[cold]
    #[inline(never)]
    fn publish_by_id(&self, slot: &TaskSlot, idx: u32, base: u64, code: u64) {
        if self.is_owner_thread() {
            self.finish(slot, idx, base, code);
        } else {
            slot.state.store(base | code | QUEUED, Ordering::Release);
            self.queued.push(idx, &slot.next_queued);
        }
    }

    /// Publishes a final state on the owner thread and runs the
    /// continuation.
    #[inline(always)]
    fn finish(&self, slot: &TaskSlot, idx: u32, base: u64, code: u64) {
        slot.state.store(base | code, Ordering::Release);
        self.dispatch(slot, idx, base & GEN_MASK, code);
    }

    /// [`Runtime::finish`] for tasks that usually have a host continuation
    /// (waits): the call is made inline.
    #[inline(always)]
    fn finish_awaited(&self, slot: &TaskSlot, idx: u32, gen: u64, code: u64) {
        slot.state.store(gen | code, Ordering::Release);
        if slot.cont.get() == cont::USER {
            slot.cont.set(cont::FIRED);
            // SAFETY: a USER continuation's `a` is a `CallbackFn`.
            let f = unsafe { std::mem::transmute::<*mut c_void, CallbackFn>(slot.cont_a.get()) };
            let h = gen | self.task_key | idx as u64;
            self.call_user(f, slot.cont_b.get() as *mut c_void, h, slot::task_state(code));
        } else {
            self.dispatch(slot, idx, gen, code);
        }
    }

    /// Every case of [`Runtime::complete`] but a pending manual task: the
    /// errors, in the documented order, and owner-only tasks.
    #[cold]
    #[inline(never)]
    fn complete_slow(&self, h: u64, state: TaskState, value: u64, error: i32, manual_only: bool) -> Result<()> {
        let (slot, idx, mut word) = self.task_slot(h)?;
        let code = slot::state_code(state);
        loop {
            if (word ^ h) & GEN_MASK != 0 || word & STATE_MASK == FREE {
                return Err(Error::StaleHandle);
            }
            // Not a manual source: INVALID_HANDLE whatever its state.
            if manual_only && word & MANUAL == 0 {
                return Err(Error::InvalidHandle);
            }
            if word & STATE_MASK != PENDING {
                return Err(Error::AlreadyCompleted);
            }
            if word & MANUAL == 0 {
                if !self.is_owner_thread() {
                    return Err(Error::WrongThread);
                }
                // Owner-only task on the owner thread: no other writer.
                // SAFETY: as said.
                unsafe { slot.write_payload(value, error, state) };
                self.finish(slot, idx, word & GEN_MASK, code);
                return Ok(());
            }
            let claimed = (word & !STATE_MASK) | COMPLETING;
            match slot.state.compare_exchange_weak(word, claimed, Ordering::Acquire, Ordering::Acquire) {
                Ok(_) => {
                    self.publish(slot, idx, word & !STATE_MASK, state, value, error);
                    return Ok(());
                }
                Err(w) => word = w,
            }
        }
    }

    /// Owner-thread completion of a task of ours that only the owner
    /// completes (waits, combinator outputs); ignores tasks already
    /// completed (e.g. canceled by the user) or retired.
    #[inline(always)]
    pub(super) fn complete_owned(&self, h: u64, state: TaskState, value: u64, error: i32) {
        self.complete_owned_with(h, state, value, error, |_| {});
    }

    /// [`Runtime::complete_owned`], calling `prepare` on the slot first
    /// (only if it completes it).
    #[inline(always)]
    pub(super) fn complete_owned_with(
        &self,
        h: u64,
        state: TaskState,
        value: u64,
        error: i32,
        prepare: impl FnOnce(&TaskSlot),
    ) {
        let idx = handle::index(h);
        let slot = self.slot(idx);
        let pending = (h & GEN_MASK) | PENDING;
        if slot.state.load(Ordering::Relaxed) == pending {
            prepare(slot);
            // SAFETY: a pending task only the owner completes, on the owner.
            unsafe { slot.write_payload(value, error, state) };
            self.finish_awaited(slot, idx, h & GEN_MASK, slot::state_code(state));
        }
    }

    /// Runs a completed task's continuation, if it has one. Owner thread.
    #[inline(always)]
    pub(super) fn dispatch(&self, slot: &TaskSlot, idx: u32, gen: u64, code: u64) {
        // NONE and FIRED: nothing to run (the common case stays call-free).
        if slot.cont.get() >= cont::USER {
            self.run_continuation(slot, idx, gen, code);
        }
    }

    #[inline(never)]
    fn run_continuation(&self, slot: &TaskSlot, idx: u32, gen: u64, code: u64) {
        let kind = slot.cont.get();
        slot.cont.set(cont::FIRED);
        let (a, b) = (slot.cont_a.get(), slot.cont_b.get());
        let state = slot::task_state(code);
        match kind {
            cont::USER => {
                // SAFETY: a USER continuation's `a` is a `CallbackFn`.
                let f = unsafe { std::mem::transmute::<*mut c_void, CallbackFn>(a) };
                self.call_user(f, b as *mut c_void, gen | self.task_key | idx as u64, state);
            }
            cont::LANE => {
                // SAFETY: a LANE continuation's `a` is a live lane (destroying
                // a lane clears its continuations).
                let lane = unsafe { &*(a as *const Lane) };
                self.call_user(lane.emit, lane.user, b, state);
            }
            cont::ANY => self.on_any_input(a.cast(), b as u32, slot, idx),
            _ => self.on_all_input(a.cast(), b as u32, slot, idx),
        }
    }

    /// State of a task. Any thread.
    pub fn task_state(&self, h: u64) -> Result<TaskState> {
        let (_, _, word) = self.task_slot(h)?;
        Ok(slot::task_state(word))
    }

    /// Registers the continuation of a task. Owner thread. If the task has
    /// already completed (also on another thread, not yet drained), the
    /// continuation runs before this returns.
    #[inline]
    pub fn on_complete(&self, h: u64, f: CallbackFn, user: *mut c_void) -> Result<()> {
        self.set_continuation(h, cont::USER, f as *mut c_void, user as u64)
    }

    #[inline(always)]
    pub(super) fn set_continuation(&self, h: u64, kind: u8, a: *mut c_void, b: u64) -> Result<()> {
        match self.live_task(h) {
            Some((slot, idx, word)) if self.owner_fast() && slot.cont.get() == cont::NONE => {
                slot.set_cont(kind, a, b);
                if slot::is_final(word) {
                    self.dispatch(slot, idx, word & GEN_MASK, word & STATE_MASK);
                }
                Ok(())
            }
            _ => self.set_continuation_slow(h, kind, a, b),
        }
    }

    #[cold]
    #[inline(never)]
    fn set_continuation_slow(&self, h: u64, kind: u8, a: *mut c_void, b: u64) -> Result<()> {
        self.check_owner()?;
        let (slot, idx, word) = self.task_slot(h)?;
        if slot.cont.get() != cont::NONE {
            return Err(Error::AlreadyAwaited);
        }
        slot.set_cont(kind, a, b);
        if slot::is_final(word) {
            self.dispatch(slot, idx, word & GEN_MASK, word & STATE_MASK);
        }
        Ok(())
    }

    /// Consumes a completed task: returns its outcome and retires the handle.
    /// Owner thread.
    #[inline]
    pub fn consume(&self, h: u64) -> Result<Outcome> {
        let mut outcome = Outcome::PENDING;
        self.consume_with(h, |o| outcome = o)?;
        Ok(outcome)
    }

    /// [`Runtime::consume`], handing the outcome to `take` (only on
    /// success) before the task is retired: `take` must not call the
    /// runtime (a consume from inside it retired the slot twice, and the
    /// free list then handed one slot to two tasks), so only the C layer,
    /// which writes the outcome out, calls it.
    #[inline(always)]
    pub(crate) fn consume_with(&self, h: u64, take: impl FnOnce(Outcome)) -> Result<()> {
        // Fast path: the owner consumes a completed task of ours that no
        // continuation or combinator holds; anything else takes the slow
        // path, which finds the error in the documented order.
        if self.owner_fast() && handle::has_key(h, self.task_key) {
            let idx = handle::index(h);
            if let Some(slot) = self.tasks.get(idx) {
                let word = slot.state.load(Ordering::Acquire);
                if (word ^ h) & GEN_MASK == 0 && slot::is_final(word) && slot.cont.get() < cont::USER {
                    take(slot.outcome(word));
                    self.retire_consumed(slot, idx, word);
                    return Ok(());
                }
            }
        }
        self.consume_slow(h, take)
    }

    #[cold]
    #[inline(never)]
    fn consume_slow(&self, h: u64, take: impl FnOnce(Outcome)) -> Result<()> {
        self.check_owner()?;
        let (slot, idx, word) = self.task_slot(h)?;
        // A combinator input, or a task whose continuation has not run yet
        // (completed on another thread, queued for the owner): it belongs to
        // them. Once the continuation runs (`FIRED`) it may consume.
        if slot.cont.get() >= cont::USER {
            return Err(Error::AlreadyAwaited);
        }
        if !slot::is_final(word) {
            return Err(Error::TaskPending);
        }
        take(slot.outcome(word));
        self.retire_consumed(slot, idx, word);
        Ok(())
    }

    /// Retires a consumed task, and frees its coordinator if it is a WhenAll
    /// output.
    #[inline(always)]
    fn retire_consumed(&self, slot: &TaskSlot, idx: u32, word: u64) {
        let coord = slot.attached.get();
        self.retire(slot, idx, word);
        if !coord.is_null() {
            self.release_attached(slot, coord);
        }
    }

    /// Reads a final task's outcome and retires it.
    #[inline(always)]
    pub(super) fn take_outcome(&self, slot: &TaskSlot, idx: u32, word: u64) -> Outcome {
        let outcome = slot.outcome(word);
        self.retire_consumed(slot, idx, word);
        outcome
    }

    /// Runs the continuations of the tasks completed off the owner thread,
    /// in completion order.
    pub(super) fn drain_queued(&self) {
        let head = self.queued.take_all();
        if head == 0 {
            return;
        }
        self.drain_list(head);
    }

    /// [`Runtime::drain_queued`] of the list `head` taken off the stack.
    #[inline(always)]
    pub(super) fn drain_list(&self, head: u32) {
        // Reverse the LIFO list into completion order.
        let mut cur = CompletionStack::reverse(head, |i| &self.slot(i).next_queued);
        while cur != 0 {
            let idx = cur - 1;
            let s = self.slot(idx);
            cur = s.next_queued.load(Ordering::Relaxed);
            // The Acquire of `take_all` made the completing thread's writes
            // visible; no other thread writes a final word, so a plain store
            // clears the flag (no read-modify-write needed).
            let word = s.state.load(Ordering::Acquire);
            s.state.store(word & !QUEUED, Ordering::Release);
            if word & STATE_MASK == FREE {
                // Consumed while queued: now it can be reused (unless it
                // was retired for good).
                if word >> 32 != u32::MAX as u64 {
                    // SAFETY: owner thread, short borrow.
                    unsafe { self.inner() }.tasks.unpark(s, idx);
                }
            } else {
                self.dispatch(s, idx, word & GEN_MASK, word & STATE_MASK);
            }
        }
    }
}
