//! Batches on the runtime: a batch's lane is created, filed (its fast
//! records into the lane, its requests as waits and continuations that call
//! the batch), run by its own tick, and destroyed with everything it filed.
//! The lanes themselves are in `timing/lane.rs`.

use std::ffi::c_void;

use super::error::{Error, Result};
use super::runtime::Runtime;
use super::slot::cont;
use super::timing::lane::{Lane, LaneId, Request, REQUEST_TASK};
use super::timing::WaitTarget;
use super::types::{CallbackFn, Clock, Timing, WaitKind};

impl Runtime {
    /// Creates a batch's lane: its waits and watched tasks call
    /// `emit(user, record id, state)`. Owner thread. `OutOfMemory`: nothing
    /// made.
    pub fn create_lane(&self, emit: CallbackFn, user: *mut c_void) -> Result<LaneId> {
        self.check_owner()?;
        // SAFETY: owner thread, short borrow.
        let inner = unsafe { self.inner() };
        // A second lane ends skipping (`frame/idle.rs`).
        inner.timings.clear_idle();
        inner.lanes.create(emit, user)
    }

    /// Files lane `id`'s fast records and requests, with the frame current
    /// now; `reject(record id, why)` is called for each request refused.
    /// Owner thread. `Err(OutOfMemory, k)` when the fast records cannot all
    /// be stored: the first `k` were filed, the requests were not.
    /// `Err(InvalidHandle, 0)` for an `id` never issued, `Err(StaleHandle,
    /// 0)` for a destroyed lane's: nothing filed.
    pub fn file_lane(
        &self,
        id: LaneId,
        fast: &[u64],
        requests: impl Iterator<Item = Request>,
        mut reject: impl FnMut(u64, Error),
    ) -> std::result::Result<(), (Error, usize)> {
        self.check_owner().map_err(|e| (e, 0))?;
        let _zone = super::tracy::batch_zone("onity batch file");
        // SAFETY: owner thread, short borrow.
        unsafe { self.inner() }.lanes.ptr(id).map_err(|e| (e, 0))?;
        if !fast.is_empty() {
            // SAFETY: owner thread, short borrow; no user code runs below.
            let inner = unsafe { self.inner() };
            let now = inner.timings.now;
            inner.lanes.file(id, fast, &now, &mut inner.timings)?;
            // Pending waits only grow here: sample their peak.
            inner.timings.sample_high_water(&inner.lanes.counts);
        }
        for r in requests {
            if let Err(e) = self.file_request(id, &r) {
                reject(r.id, e);
            }
        }
        Ok(())
    }

    /// Files one request of lane `id`: a callback wait, or a continuation
    /// (`REQUEST_TASK`), calling the lane's callback with the record id.
    fn file_request(&self, id: LaneId, r: &Request) -> Result<()> {
        // SAFETY: owner thread (checked by the caller), short borrow.
        let lane: *const Lane = unsafe { self.inner() }.lanes.ptr(id)?.as_ptr();
        // SAFETY: lanes are boxed and live until `destroy_lane`.
        let (emit, user) = unsafe { ((*lane).emit, (*lane).user) };
        if r.kind == REQUEST_TASK {
            return self.set_continuation(r.arg, cont::LANE, lane as *mut c_void, r.id);
        }
        match (WaitKind::from_u32(r.kind as u32), Timing::from_u32(r.timing as u32), Clock::from_u32(r.clock as u32)) {
            // `onity_delay_frame` takes a u32 count: a larger one is refused,
            // not clamped.
            (Some(WaitKind::DelayFrame), Some(_), Some(_)) if r.arg > u32::MAX as u64 => Err(Error::CountOutOfRange),
            (Some(k), Some(t), Some(c)) => {
                let frames = if k == WaitKind::DelayFrame { r.arg as u32 } else { 0 };
                let seconds = if k == WaitKind::Delay { f64::from_bits(r.arg) } else { 0.0 };
                self.wait(k, t, frames, seconds, c, r.token, WaitTarget::Callback(emit, user, r.id)).map(|_| ())
            }
            _ => Err(Error::InvalidArgument),
        }
    }

    /// The batch tick: hands lane `id`'s due fast waits of `timing` to
    /// `report` (valid until the lane's next tick), then runs `timing` as
    /// [`Runtime::tick`] does. A tick refused (`Reentrant`, `WrongThread`)
    /// reports nothing and leaves the last report alone, as does a lane id
    /// refused (`InvalidHandle`, `StaleHandle`: see [`Runtime::file_lane`]).
    /// `report` runs
    /// while the runtime's state is borrowed and must not call the runtime
    /// (destroying the lane from inside it freed the ids it reads), so only
    /// the C layer, which publishes the ids, calls it.
    pub(crate) fn tick_lane(&self, id: LaneId, timing: Timing, report: impl FnOnce(&[u32])) -> Result<()> {
        self.check_tick_allowed()?;
        let _zone = super::tracy::batch_zone("onity batch tick");
        {
            // SAFETY: owner thread, short borrow; `report` is the host
            // layer publishing the ids (it runs no host code).
            let inner = unsafe { self.inner() };
            report(inner.lanes.run(id, timing as usize, &inner.timings.now)?);
        }
        self.tick_allowed(timing);
        Ok(())
    }

    /// Destroys lane `id`: its queued waits and fast waits are dropped
    /// (counted as canceled, nothing is called), the tasks it watched lose
    /// that continuation (they stay pending or completed, and can be awaited
    /// again). Owner thread, not inside a tick nor while closing
    /// (`Reentrant`: a run holds waits of the queue it runs).
    /// `InvalidHandle` for an `id` never issued, `StaleHandle` for a lane
    /// destroyed already (nothing changed).
    pub fn destroy_lane(&self, id: LaneId) -> Result<()> {
        self.check_owner()?;
        // SAFETY: owner thread; no user code runs below.
        let inner = unsafe { self.inner() };
        if inner.ticking || inner.closing {
            return Err(Error::Reentrant);
        }
        // The waits dropped below lower `pending`: record its peak first.
        let lane: *const Lane = inner.lanes.ptr(id)?.as_ptr();
        inner.timings.sample_high_water(&inner.lanes.counts);
        // SAFETY: live lane (removed below).
        let (emit, user) = unsafe { ((*lane).emit, (*lane).user) };
        inner.timings.forget(emit, user);
        for idx in 0..inner.tasks.fresh() {
            let slot = self.slot(idx);
            if slot.cont.get() == cont::LANE && slot.cont_a.get() as *const Lane == lane {
                slot.cont.set(cont::NONE);
            }
        }
        inner.lanes.remove(id)
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::ffi::c_void;

    use super::super::timing::lane::{fast_record, Request, REQUEST_TASK};
    use crate::core::{Config, Runtime, TaskState, Timing};

    thread_local!(static LOG: RefCell<Vec<(u64, u32)>> = const { RefCell::new(Vec::new()) });

    unsafe extern "C" fn emit(_user: *mut c_void, id: u64, state: u32) {
        LOG.with(|l| l.borrow_mut().push((id, state)));
    }

    /// A task watched by a lane keeps a pointer to the lane; the lane then
    /// runs (its tick mutates it) and another lane is added before the task
    /// completes: the continuation still reaches the lane (Miri checks the
    /// pointer stays valid).
    #[test]
    fn a_watched_task_reaches_its_lane_after_the_lane_changed() {
        let rt = Runtime::new(Config::default());
        let lane = rt.create_lane(emit, std::ptr::null_mut()).unwrap();
        let t = rt.create_task().unwrap();
        let watch = Request { id: 7, token: 0, arg: t, kind: REQUEST_TASK, timing: 0, clock: 0 };
        let fast = [fast_record(1, Timing::Update as u32, 0).unwrap()];
        rt.file_lane(lane, &fast, [watch].into_iter(), |_, e| panic!("{e}")).unwrap();
        rt.tick_lane(lane, Timing::Update, |ids| assert_eq!(ids, [1])).unwrap();
        let other = rt.create_lane(emit, std::ptr::null_mut()).unwrap();
        rt.complete(t, TaskState::Succeeded, 5, 0, true).unwrap();
        assert_eq!(LOG.with(|l| l.take()), vec![(7, TaskState::Succeeded as u32)]);
        assert_eq!(rt.consume(t).unwrap().value, 5);
        rt.destroy_lane(other).unwrap();
        rt.destroy_lane(lane).unwrap();
    }

    /// A destroyed lane's id is refused by every lane call (issue 30 #2),
    /// also once a new lane took its index; an id never issued too.
    #[test]
    fn a_stale_or_unissued_lane_id_is_an_error_not_a_panic() {
        use crate::core::Error;
        let rt = Runtime::new(Config::default());
        let old = rt.create_lane(emit, std::ptr::null_mut()).unwrap();
        rt.destroy_lane(old).unwrap();
        let new = rt.create_lane(emit, std::ptr::null_mut()).unwrap();
        assert_ne!(old, new, "the index is reused with a new generation");
        let fast = [fast_record(1, Timing::Update as u32, 0).unwrap()];
        let no_requests = std::iter::empty();
        for (id, why) in
            [(old, Error::StaleHandle), (new + 1, Error::InvalidHandle), (old + (2 << 16), Error::InvalidHandle)]
        {
            assert_eq!(rt.file_lane(id, &fast, no_requests.clone(), |_, e| panic!("{e}")), Err((why, 0)));
            assert_eq!(rt.file_lane(id, &[], no_requests.clone(), |_, e| panic!("{e}")), Err((why, 0)));
            assert_eq!(rt.tick_lane(id, Timing::Update, |_| panic!("nothing to report")), Err(why));
            assert_eq!(rt.destroy_lane(id), Err(why));
        }
        // The live lane was not touched by the refused calls.
        rt.file_lane(new, &fast, no_requests.clone(), |_, e| panic!("{e}")).unwrap();
        rt.tick_lane(new, Timing::Update, |ids| assert_eq!(ids, [1])).unwrap();
        rt.destroy_lane(new).unwrap();
        assert_eq!(rt.destroy_lane(new), Err(Error::StaleHandle));
    }
}
