//! WhenAny / WhenAll on the runtime: checking the inputs, wiring them to a
//! coordinator (one setup for both kinds), feeding it their completions and
//! canceling it with its token. The coordinators themselves are in
//! `combinator.rs`.

use std::sync::atomic::Ordering;

use super::combinator::{AllCoord, AnyCoord, Coordinator, Header};
use super::error::{Error, Result};
use super::handle;
use super::runtime::Runtime;
use super::slot::{self, cont, TaskSlot, GEN_MASK, STATE_MASK};
use super::types::{Outcome, TaskState, MAX_COMBINATOR_INPUTS};

impl Runtime {
    /// WhenAny: a task that completes like the first input to complete
    /// (success, error or cancel), with `Outcome::index` = that input's index.
    /// The inputs are owned by the combinator from now on: they are consumed
    /// as they complete, including the losers. Owner thread.
    pub fn when_any(&self, inputs: &[u64], token: u64) -> Result<u64> {
        self.combine::<AnyCoord>(inputs, token, cont::ANY)
    }

    /// WhenAll: a task that completes when every input has. It succeeds with
    /// value = input count if all succeeded, else it takes the state and
    /// error of the first input (in completion order) that failed or was
    /// canceled, with `Outcome::index` = that input. Per-input outcomes are
    /// readable with `when_all_results` until it is consumed. Owner thread.
    pub fn when_all(&self, inputs: &[u64], token: u64) -> Result<u64> {
        self.combine::<AllCoord>(inputs, token, cont::ALL)
    }

    /// The setup of both: checks, output task, coordinator; then points
    /// input `i` at the coordinator, watches its token, feeds inputs that
    /// completed before the combinator existed and honours a token that is
    /// canceled already, in this order (the coordinator is still live while
    /// the watch is registered).
    fn combine<C: Coordinator>(&self, inputs: &[u64], token: u64, kind: u8) -> Result<u64> {
        self.check_owner_open()?;
        // The slots of up to 32 inputs, found once by the check.
        let mut slots = [std::ptr::null::<TaskSlot>(); 32];
        let any_final = self.check_inputs(inputs, &mut slots)?;
        self.check_token(token)?;
        // What may fail on memory, before anything changes: the coordinator
        // (and room to watch it), then the output task.
        // SAFETY (both borrows): owner thread, short borrow.
        let prepared = unsafe { self.inner() }.comb.prepare::<C>(inputs.len(), token)?;
        let out = match self.rent_task(0) {
            Ok(out) => out,
            Err(e) => {
                unsafe { self.inner() }.comb.undo(prepared);
                return Err(e);
            }
        };
        // SAFETY: owner thread, short borrow.
        let cp: *mut C = unsafe { self.inner() }.comb.commit(prepared, out, token);
        let header: *mut Header = cp.cast();
        if kind == cont::ALL {
            self.slot(handle::index(out)).attached.set(cp.cast());
        }
        // Checked above: every input is a live task of ours.
        if inputs.len() <= slots.len() {
            for (i, &slot) in slots[..inputs.len()].iter().enumerate() {
                // SAFETY: found by the check; slots never move.
                unsafe { &*slot }.set_cont(kind, cp.cast(), i as u64);
            }
        } else {
            for (i, &h) in inputs.iter().enumerate() {
                self.slot(handle::index(h)).set_cont(kind, cp.cast(), i as u64);
            }
        }
        if token != 0 {
            // SAFETY: owner thread, short borrow; the coordinator is live.
            unsafe { self.inner().comb.watch(header) };
            // Every run polls the watches: none is skipped (`frame/idle.rs`).
            // SAFETY: as above.
            unsafe { self.inner() }.timings.clear_idle();
        }
        // Inputs completed before the combinator existed; those completed
        // off-thread whose completion is still queued count too (they read
        // as completed); the drain then only frees their slot. None was at
        // the check: one a worker completes since is as if it completed just
        // after this call (its continuation runs at the next drain).
        for &h in inputs.iter().filter(|_| any_final) {
            let idx = handle::index(h);
            let slot = self.slot(idx);
            let word = slot.state.load(Ordering::Acquire);
            if (word ^ h) & GEN_MASK == 0 && slot::is_final(word) {
                self.dispatch(slot, idx, word & GEN_MASK, word & STATE_MASK);
            }
        }
        if token != 0 && self.token_canceled(token) {
            // Only this combinator completes now; others watching a canceled
            // token complete at the next tick or drain, as documented.
            self.cancel_watches(Some(header));
        }
        Ok(out)
    }

    /// Checks combinator inputs: count, live unawaited tasks, no duplicates.
    /// Returns whether any of them has completed; the slots of the first
    /// `slots.len()` inputs are left in `slots`.
    fn check_inputs(&self, inputs: &[u64], slots: &mut [*const TaskSlot]) -> Result<bool> {
        if inputs.is_empty() || inputs.len() > MAX_COMBINATOR_INPUTS as usize {
            return Err(Error::CountOutOfRange);
        }
        // Duplicates: two valid handles to one slot are the same handle, so
        // stamping each input's slot finds them in O(n). A live slot's
        // `next_free` is unused, so it holds the stamp.
        // SAFETY (both borrows): owner thread, short borrow.
        let stamp = match unsafe { self.inner() }.comb.next_stamp() {
            Some(s) => s,
            None => {
                // Wrapped: clear old stamps of live slots so none can match
                // a reused one.
                for idx in 0..unsafe { self.inner() }.tasks.fresh() {
                    let slot = self.slot(idx);
                    if slot.state.load(Ordering::Relaxed) & STATE_MASK != slot::FREE {
                        slot.next_free.set(0);
                    }
                }
                unsafe { self.inner() }.comb.next_stamp().expect("a fresh stamp")
            }
        };
        let (mut dup, mut any_final) = (false, false);
        let mut check = |h: u64| -> Result<*const TaskSlot> {
            let (slot, _, word) = self.task_slot(h)?;
            if slot.cont.get() != cont::NONE {
                return Err(Error::AlreadyAwaited);
            }
            dup |= slot.next_free.get() == stamp;
            any_final |= slot::is_final(word);
            slot.next_free.set(stamp);
            Ok(slot)
        };
        if inputs.len() <= slots.len() {
            for (s, &h) in slots.iter_mut().zip(inputs) {
                *s = check(h)?;
            }
        } else {
            for &h in inputs {
                check(h)?;
            }
        }
        if dup {
            return Err(Error::DuplicateInput);
        }
        Ok(any_final)
    }

    /// Per-input outcomes of a completed, unconsumed WhenAll task, copied
    /// into `out` (whose length must be the input count).
    pub fn when_all_results(&self, h: u64, out: &mut [Outcome]) -> Result<()> {
        self.when_all_results_with(h, out.len(), |r| out.copy_from_slice(r))
    }

    /// [`Runtime::when_all_results`], lending the outcomes to `read` (only
    /// on success; `count` must be the input count). `read` must not call
    /// the runtime (consuming the WhenAll from inside it frees the
    /// outcomes it reads), so only the C layer, which copies them out,
    /// calls it.
    pub(crate) fn when_all_results_with(&self, h: u64, count: usize, read: impl FnOnce(&[Outcome])) -> Result<()> {
        self.check_owner()?;
        let (slot, _, word) = self.task_slot(h)?;
        let cp = slot.attached.get() as *const AllCoord;
        if cp.is_null() {
            return Err(Error::InvalidHandle);
        }
        if !slot::is_final(word) {
            return Err(Error::TaskPending);
        }
        // SAFETY: attached coordinators live until the output is consumed,
        // and `read` does not call the runtime (crate-private: the C layer
        // only copies the outcomes).
        let c = unsafe { &*cp };
        if count != c.outcomes.len() {
            return Err(Error::CountOutOfRange);
        }
        read(&c.outcomes);
        Ok(())
    }

    /// Consumes a completed input (`slot`, index `idx`) on behalf of a
    /// combinator.
    #[inline(always)]
    fn consume_input(&self, slot: &TaskSlot, idx: u32) -> Outcome {
        let word = slot.state.load(Ordering::Acquire);
        self.take_outcome(slot, idx, word)
    }

    /// Completes a combinator output with `o` (its index included), unless
    /// it completed already (canceled by the user).
    #[inline]
    fn complete_output(&self, out: u64, o: Outcome, all: bool) {
        if self.tracing() {
            return self.complete_output_traced(out, o, all);
        }
        self.complete_owned_with(out, o.state, o.value, o.error, |slot| slot.aux.set(o.index));
    }

    /// [`Runtime::complete_output`] while tracing: timed (`trace.rs`).
    #[cold]
    #[inline(never)]
    fn complete_output_traced(&self, out: u64, o: Outcome, all: bool) {
        self.trace_settle(all, &o, || {
            self.complete_owned_with(out, o.state, o.value, o.error, |slot| slot.aux.set(o.index))
        });
    }

    /// Input `i` (`slot`, index `idx`) of the WhenAny `cp` completed.
    pub(super) fn on_any_input(&self, cp: *mut AnyCoord, i: u32, slot: &TaskSlot, idx: u32) {
        let outcome = self.consume_input(slot, idx);
        // SAFETY: the coordinator lives while inputs remain; owner only.
        let c = unsafe { &mut *cp };
        let win = c.on_input(i, outcome);
        let (out, remaining) = (c.h.out, c.h.remaining);
        // SAFETY (both): owner thread, short borrows; `cp` is live and
        // released once, when its last input is done.
        unsafe {
            if win.is_some() {
                self.inner().comb.unwatch(cp.cast());
            }
            if remaining == 0 {
                self.inner().comb.release(cp);
            }
        }
        if let Some(o) = win {
            self.complete_output(out, o, false);
        }
    }

    /// Input `i` (`slot`, index `idx`) of the WhenAll `cp` completed.
    pub(super) fn on_all_input(&self, cp: *mut AllCoord, i: u32, slot: &TaskSlot, idx: u32) {
        let outcome = self.consume_input(slot, idx);
        // SAFETY: the coordinator lives while inputs remain; owner only.
        let c = unsafe { &mut *cp };
        let finish = c.on_input(i, outcome);
        let (out, release) = (c.h.out, c.h.remaining == 0 && c.out_released);
        // SAFETY: as in `on_any_input`.
        unsafe {
            if finish.is_some() {
                self.inner().comb.unwatch(cp.cast());
            }
            if release {
                self.inner().comb.release(cp);
            }
        }
        if let Some(o) = finish {
            self.complete_output(out, o, true);
        }
    }

    /// The WhenAll output was consumed: free the coordinator once inputs are done.
    pub(super) fn release_all_out(&self, cp: *mut AllCoord) {
        // SAFETY: attached coordinator, owner only.
        let c = unsafe { &mut *cp };
        c.out_released = true;
        if c.h.remaining == 0 {
            // SAFETY: owner thread; released once (inputs are done, the
            // output is consumed).
            unsafe { self.inner().comb.release(cp) };
        }
    }

    /// Cancels the watched combinators whose token was canceled, when a
    /// cancel happened since the last poll.
    pub(super) fn poll_watches(&self) {
        let epoch = self.cancel_epoch.load(Ordering::Acquire);
        // SAFETY: owner thread, short borrow.
        let comb = &mut unsafe { self.inner() }.comb;
        if epoch == comb.seen_epoch {
            return;
        }
        comb.seen_epoch = epoch;
        self.cancel_watches(None);
    }

    /// Cancels the watched combinators whose token is canceled (only `only`,
    /// if given), in creation order: inputs exist before the combinators
    /// that take them, so a combinator whose input is another one canceled
    /// by the same poll always completes with that input's cancellation
    /// (its index). The order does not depend on other combinators.
    fn cancel_watches(&self, only: Option<*mut Header>) {
        loop {
            // The first-created watched combinator whose token is canceled.
            // Rescanned after each completion: its continuation ran host
            // code, which may have created, completed or freed others.
            let mut first: Option<(u64, *mut Header)> = None;
            let mut i = 0;
            // SAFETY (every `inner` borrow): owner thread, short borrow.
            while let Some(w) = unsafe { self.inner() }.comb.watched(i) {
                i += 1;
                // SAFETY: watched coordinators are live.
                let (token, seq) = unsafe { ((*w).token, (*w).seq) };
                if only.is_some_and(|o| o != w) || first.is_some_and(|(s, _)| s < seq) || !self.token_canceled(token) {
                    continue;
                }
                first = Some((seq, w));
            }
            let Some((_, w)) = first else { return };
            // SAFETY: as above; mark done and stop watching, then complete.
            let out = unsafe {
                (*w).done = true;
                self.inner().comb.unwatch(w);
                (*w).out
            };
            let o = Outcome::new(TaskState::Canceled, 0, 0, u32::MAX);
            let all = !self.slot(handle::index(out)).attached.get().is_null();
            self.trace_settle(all, &o, || self.complete_owned(out, TaskState::Canceled, 0, 0));
        }
    }

    /// Destruction: every combinator whose output is pending completes
    /// canceled (`index` `u32::MAX`), before anything else is canceled. All
    /// are marked done first, so none completes from an input canceled
    /// meanwhile (an input's failure, a nested combinator's cancellation);
    /// then their outputs are canceled, running continuations. Every slot
    /// of a pending combinator's input points at it (its continuation), and
    /// a coordinator lives while any input does, so walking the slots finds
    /// each one; none is created while closing. No allocation.
    pub(super) fn cancel_combinators(&self) {
        // SAFETY: owner thread, short borrow.
        let fresh = unsafe { self.inner() }.tasks.fresh();
        for idx in 0..fresh {
            let slot = self.slot(idx);
            if matches!(slot.cont.get(), cont::ANY | cont::ALL) {
                let h = slot.cont_a.get() as *mut Header;
                // SAFETY: a live coordinator (see above); owner thread, short
                // borrows, no host code runs in this pass.
                unsafe {
                    if !(*h).done {
                        (*h).done = true;
                        self.inner().comb.unwatch(h);
                    }
                }
            }
        }
        for idx in 0..fresh {
            let slot = self.slot(idx);
            if matches!(slot.cont.get(), cont::ANY | cont::ALL) {
                let h = slot.cont_a.get() as *mut Header;
                // SAFETY: as above: host code run by an earlier completion may
                // have freed coordinators, but only those no input refers to.
                let out = unsafe { (*h).out };
                // Ignored when it completed already (this pass, or the host).
                self.complete_owned(out, TaskState::Canceled, 0, 0);
            }
        }
    }

    /// Frees the coordinators still referenced by slots (inputs not done,
    /// WhenAll outputs never consumed). Drop only; no allocation. A
    /// coordinator is referenced by each input still pointing at it (as
    /// many as its `remaining`) and, for a WhenAll, by its output until
    /// that is consumed: each reference found is taken off, and the last one
    /// frees it.
    pub(super) fn free_coordinators(&mut self) {
        // SAFETY: `&mut self`: no other access.
        let fresh = unsafe { self.inner() }.tasks.fresh();
        for idx in 0..fresh {
            let s = self.slot(idx);
            let (kind, a, attached) = (s.cont.get(), s.cont_a.get(), s.attached.get());
            s.cont.set(cont::NONE);
            s.attached.set(std::ptr::null_mut());
            // SAFETY (each): the pointer is a live coordinator of that kind
            // (references are taken off as found, so none is seen freed).
            unsafe {
                match kind {
                    cont::ANY => {
                        let c = a as *mut AnyCoord;
                        (*c).h.remaining -= 1;
                        if (*c).h.remaining == 0 {
                            drop(Box::from_raw(c));
                        }
                    }
                    cont::ALL => {
                        let c = a as *mut AllCoord;
                        (*c).h.remaining -= 1;
                        if (*c).h.remaining == 0 && (*c).out_released {
                            drop(Box::from_raw(c));
                        }
                    }
                    _ => {}
                }
                if !attached.is_null() {
                    let c = attached as *mut AllCoord;
                    (*c).out_released = true;
                    if (*c).h.remaining == 0 {
                        drop(Box::from_raw(c));
                    }
                }
            }
        }
    }
}
