//! Cross-thread completion, consumption and slot reuse, nested ticks and
//! close, frame validation, teardown with work in flight, cancel/destroy
//! ordering, drained continuations.

use super::*;

#[test]
fn cross_thread_completion_runs_continuation_at_next_tick_on_owner() {
    let rt = Runtime::new(Config::default());
    let h = rt.create_task().unwrap();
    rt.on_complete(h, log_cb, 5 as *mut c_void).unwrap();
    let r = &rt;
    std::thread::scope(|s| {
        s.spawn(move || {
            assert_eq!(r.tick(Timing::Update), Err(Error::WrongThread));
            assert_eq!(r.consume(h), Err(Error::WrongThread));
            assert_eq!(r.create_task(), Err(Error::WrongThread));
            r.complete(h, TaskState::Succeeded, 9, 0, true).unwrap();
            assert_eq!(r.complete(h, TaskState::Succeeded, 9, 0, true), Err(Error::AlreadyCompleted));
            assert_eq!(r.task_state(h), Ok(TaskState::Succeeded));
        });
    });
    assert!(take_log().is_empty(), "not run on the worker");
    assert_eq!(rt.stats().unwrap().cross_thread_queued, 1);
    rt.tick(Timing::Update).unwrap();
    assert_eq!(take_log(), vec![(5, 1)]);
    assert_eq!(rt.consume(h).unwrap().value, 9);
}

#[test]
fn consume_while_queued_defers_slot_reuse() {
    let rt = Runtime::new(Config { task_capacity: 1, ..Config::default() });
    let h = rt.create_task().unwrap();
    let r = &rt;
    std::thread::scope(|s| {
        s.spawn(move || r.complete(h, TaskState::Succeeded, 1, 0, true).unwrap());
    });
    // Consume before the owner drained the cross-thread queue.
    assert_eq!(rt.consume(h).unwrap().value, 1);
    let h2 = rt.create_task().unwrap();
    assert_ne!(h2 & 0x3f_ffff, h & 0x3f_ffff, "queued slot is not reused before drain");
    rt.drain().unwrap();
    rt.complete(h2, TaskState::Succeeded, 0, 0, true).unwrap();
    rt.consume(h2).unwrap();
    let h3 = rt.create_task().unwrap();
    assert!(h3 != h && h3 != h2);
    rt.complete(h3, TaskState::Succeeded, 0, 0, true).unwrap();
    rt.consume(h3).unwrap();
    let s = rt.stats().unwrap();
    assert_eq!((s.tasks.live, s.tasks.rents, s.tasks.returns), (0, 3, 3));
}

unsafe extern "C" fn nested_tick(user: *mut c_void, task: u64, _state: u32) {
    let rt = &*(user as *const Runtime);
    LOG.with(|l| l.borrow_mut().push((rt.tick(Timing::Update).err().map(|e| e as u64).unwrap_or(0), 0)));
    assert_eq!(rt.close(), Err(Error::Reentrant));
    assert_eq!(
        rt.begin_frame(&FrameInfo { frame: 99, delta_time: 0.0, unscaled_delta_time: 0.0, realtime: 0.0 }),
        Err(Error::Reentrant)
    );
    if task != 0 {
        rt.consume(task).unwrap();
    }
}

#[test]
fn nested_tick_and_close_are_rejected() {
    let rt = Runtime::new(Config::default());
    rt.wait(
        WaitKind::Yield,
        Timing::Update,
        0,
        0.0,
        Clock::Scaled,
        0,
        WaitTarget::Callback(nested_tick, &rt as *const Runtime as *mut c_void, 0),
    )
    .unwrap();
    rt.tick(Timing::Update).unwrap();
    assert_eq!(take_log(), vec![(Error::Reentrant as u64, 0)]);
    rt.tick(Timing::Update).unwrap(); // usable afterwards
}

#[test]
fn frame_order_and_time_validation() {
    let rt = Runtime::new(Config::default());
    frame(&rt, 5);
    let f = |n: u64, d: f64| {
        rt.begin_frame(&FrameInfo { frame: n, delta_time: d, unscaled_delta_time: 0.0, realtime: 0.0 })
    };
    assert_eq!(f(5, 0.0), Err(Error::FrameOrder));
    assert_eq!(f(4, 0.0), Err(Error::FrameOrder));
    assert_eq!(f(6, -1.0), Err(Error::InvalidArgument));
    assert_eq!(f(6, f64::INFINITY), Err(Error::InvalidArgument));
    assert_eq!(f(6, 0.0), Ok(()));
}

#[test]
fn close_cancels_everything_in_flight_and_runs_continuations_once() {
    let rt = Runtime::new(Config::default());
    frame(&rt, 1);
    let manual = rt.create_task().unwrap();
    rt.on_complete(manual, log_cb, 1 as *mut c_void).unwrap();
    let wait = delay_frame(&rt, 10, Timing::Update);
    rt.on_complete(wait, log_cb, 2 as *mut c_void).unwrap();
    cb_wait(&rt, WaitKind::NextFrame, Timing::LastUpdate, 3, 0);
    let ins: Vec<u64> = (0..3).map(|_| rt.create_task().unwrap()).collect();
    let any = rt.when_any(&ins[..2], 0).unwrap();
    rt.on_complete(any, log_cb, 4 as *mut c_void).unwrap();
    let all = rt.when_all(&ins[2..], 0).unwrap();
    let _unconsumed = rt.create_task().unwrap();
    rt.close().unwrap();
    let mut log = take_log();
    log.sort();
    assert_eq!(log, vec![(1, 3), (2, 3), (3, 3), (4, 3)]);
    assert_eq!(rt.create_task(), Err(Error::Reentrant));
    assert_eq!(rt.tick(Timing::Update), Err(Error::Reentrant));
    assert_eq!(state(&rt, all), TaskState::Canceled);
    assert_eq!(rt.close(), Err(Error::Reentrant), "closed once");
    drop(rt); // frees the unconsumed WhenAll coordinator (checked by miri)
}

#[test]
fn destroying_a_canceled_source_still_cancels_its_holders() {
    let rt = Runtime::new(Config::default());
    frame(&rt, 1);
    let src = rt.create_cancel_source().unwrap();
    let w = rt.wait(WaitKind::DelayFrame, Timing::Update, 100, 0.0, Clock::Scaled, src, WaitTarget::Task).unwrap();
    let t = rt.create_task().unwrap();
    let any = rt.when_any(&[t], src).unwrap();
    rt.cancel(src).unwrap();
    rt.destroy_cancel_source(src).unwrap();
    // The slot is reused by a new, uncanceled source: no confusion.
    let src2 = rt.create_cancel_source().unwrap();
    assert_eq!(src2 & 0xffff_ffff, src & 0xffff_ffff);
    let w2 = rt.wait(WaitKind::DelayFrame, Timing::Update, 100, 0.0, Clock::Scaled, src2, WaitTarget::Task).unwrap();
    rt.tick(Timing::Update).unwrap();
    assert_eq!(state(&rt, w), TaskState::Canceled);
    assert_eq!(state(&rt, any), TaskState::Canceled);
    assert_eq!(state(&rt, w2), TaskState::Pending);
    // Destroying an uncanceled source cancels nothing.
    rt.destroy_cancel_source(src2).unwrap();
    rt.tick(Timing::Update).unwrap();
    assert_eq!(state(&rt, w2), TaskState::Pending);
    rt.consume(w).unwrap();
    rt.consume(any).unwrap();
    rt.complete(t, TaskState::Succeeded, 0, 0, true).unwrap();
}

#[test]
fn completed_tasks_are_consumed_like_any_task() {
    let rt = Runtime::new(Config::default());
    let h = rt.create_completed(TaskState::Succeeded, 11, 0).unwrap();
    assert_eq!(state(&rt, h), TaskState::Succeeded);
    assert_eq!(rt.complete(h, TaskState::Canceled, 0, 0, false), Err(Error::AlreadyCompleted));
    rt.on_complete(h, log_cb, 8 as *mut c_void).unwrap();
    assert_eq!(take_log(), vec![(8, 1)]);
    assert_eq!(rt.consume(h).unwrap().value, 11);
    assert_eq!(rt.create_completed(TaskState::Pending, 0, 0), Err(Error::InvalidArgument));
    let f = rt.create_completed(TaskState::Faulted, 0, 4).unwrap();
    let any = rt.when_any(&[f], 0).unwrap();
    assert_eq!(rt.consume(any).unwrap().error, 4);
}

struct CancelCtx {
    rt: *const Runtime,
    src: u64,
}

/// The usual `cts.Cancel(); cts.Dispose();` done in a continuation.
unsafe extern "C" fn cancel_and_destroy(user: *mut c_void, _task: u64, _state: u32) {
    let c = &*(user as *const CancelCtx);
    let rt = &*c.rt;
    rt.cancel(c.src).unwrap();
    rt.destroy_cancel_source(c.src).unwrap();
}

unsafe extern "C" fn nop(_user: *mut c_void, _task: u64, _state: u32) {}

/// Header: destroying a canceled source, "waits still holding its token ...
/// still observe the cancellation as usual". A wait of the timing being
/// ticked is in the tick's private copy of the queue while the continuation
/// runs: the token is not re-pointed and the cancellation is lost.
#[test]
fn cancel_then_destroy_in_a_continuation_of_the_same_timing() {
    let rt = Runtime::new(Config::default());
    frame(&rt, 1);
    let src = rt.create_cancel_source().unwrap();
    let ctx = CancelCtx { rt: &rt, src };
    // Scheduled before the callback: already looked at (kept) when it runs.
    let before = rt.wait(WaitKind::DelayFrame, Timing::Update, 3, 0.0, Clock::Scaled, src, WaitTarget::Task).unwrap();
    rt.wait(
        WaitKind::Yield,
        Timing::Update,
        0,
        0.0,
        Clock::Scaled,
        0,
        WaitTarget::Callback(cancel_and_destroy, &ctx as *const CancelCtx as *mut c_void, 0),
    )
    .unwrap();
    // Scheduled after the callback: looked at after the source is gone.
    let after = rt.wait(WaitKind::DelayFrame, Timing::Update, 3, 0.0, Clock::Scaled, src, WaitTarget::Task).unwrap();
    rt.tick(Timing::Update).unwrap();
    assert!(rt.create_cancel_source().is_ok()); // the slot is reused
    for n in 2..=5 {
        frame(&rt, n);
        rt.tick(Timing::Update).unwrap();
    }
    assert_eq!(rt.consume(before).unwrap().state, TaskState::Canceled, "before");
    assert_eq!(rt.consume(after).unwrap().state, TaskState::Canceled, "after");
}

/// Wait high-water marks: pending waits dropped by `destroy_lane` (what
/// `onity_batch_destroy` does) were never sampled, so a peak of 3 pending
/// waits reads as 0. (Ported from the removed `forget_callbacks_for`: the
/// waits are a batch's requests, filed through its lane.)
#[test]
fn wait_high_water_counts_waits_forgotten_before_any_tick() {
    let rt = Runtime::new(Config::default());
    let key = 0x1234 as *mut c_void;
    let lane = rt.create_lane(nop, key).unwrap();
    let yield_ =
        |id| Request { id, token: 0, arg: 0, kind: WaitKind::Yield as u8, timing: Timing::Update as u8, clock: 0 };
    rt.file_lane(lane, &[], (0..3).map(yield_), |_, e| panic!("{e}")).unwrap();
    rt.destroy_lane(lane).unwrap();
    let s = rt.stats().unwrap();
    let y = s.waits[WaitKind::Yield as usize];
    assert_eq!((y.scheduled, y.canceled, y.pending), (3, 3, 0));
    assert_eq!(y.high_water, 3, "per-kind high water");
    assert_eq!(s.wait_records.high_water, 3, "wait record high water");
}

/// Realtime Delay created before the first frame: "`realtime` of the current
/// frame minus `realtime` of the creation frame". With no frame begun the
/// runtime measures from realtime 0, so a host whose clock reads 1000 s at
/// its first frame sees a 5 s realtime delay finish at that first frame,
/// after no time at all (a scaled delay of 5 s does not).
#[test]
fn realtime_delay_created_before_the_first_frame() {
    let rt = Runtime::new(Config::default());
    let real = rt.wait(WaitKind::Delay, Timing::Update, 0, 5.0, Clock::Realtime, 0, WaitTarget::Task).unwrap();
    let scaled = rt.wait(WaitKind::Delay, Timing::Update, 0, 5.0, Clock::Scaled, 0, WaitTarget::Task).unwrap();
    rt.begin_frame(&FrameInfo { frame: 1, delta_time: 0.016, unscaled_delta_time: 0.016, realtime: 1000.0 }).unwrap();
    rt.tick(Timing::Update).unwrap();
    assert_eq!(rt.task_state(scaled).unwrap(), TaskState::Pending);
    assert_eq!(rt.task_state(real).unwrap(), TaskState::Pending, "0.016 s of real time passed, not 5 s");
}

struct YieldFromDrain {
    rt: *const Runtime,
}

/// A continuation run by the drain at the start of a tick schedules a Yield
/// of that timing (logged as id 77 when it resumes).
unsafe extern "C" fn yield_from_drain(user: *mut c_void, task: u64, _state: u32) {
    let c = &*(user as *const YieldFromDrain);
    let rt = &*c.rt;
    rt.consume(task).unwrap();
    cb_wait(rt, WaitKind::Yield, Timing::Update, 77, 0);
}

/// Documented (onity_runtime_tick, README): a tick first runs the
/// continuations of tasks completed on other threads; a Yield of that timing
/// they schedule resumes in the same tick, unlike one scheduled by a
/// continuation of the tick's own waits.
#[test]
fn a_yield_scheduled_by_a_drained_continuation_resumes_in_the_same_tick() {
    let rt = Runtime::new(Config::default());
    frame(&rt, 1);
    let ctx = YieldFromDrain { rt: &rt };
    let t = rt.create_task().unwrap();
    rt.on_complete(t, yield_from_drain, &ctx as *const YieldFromDrain as *mut c_void).unwrap();
    std::thread::scope(|s| {
        s.spawn(|| rt.complete(t, TaskState::Succeeded, 1, 0, true).unwrap());
    });
    take_log();
    rt.tick(Timing::Update).unwrap();
    assert_eq!(take_log(), vec![(77, TaskState::Succeeded as u32)]);
}
