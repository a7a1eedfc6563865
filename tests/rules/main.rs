//! The runtime's documented rules, frame by frame, through the core API.

use std::cell::RefCell;
use std::ffi::c_void;

use onity::core::*;

// The rules of combinators and of threads, consumption and teardown.
mod combinators;
mod lifecycle;

thread_local! {
    static LOG: RefCell<Vec<(u64, u32)>> = const { RefCell::new(Vec::new()) };
}

/// A continuation that logs (user as id, state).
unsafe extern "C" fn log_cb(user: *mut c_void, _task: u64, state: u32) {
    LOG.with(|l| l.borrow_mut().push((user as u64, state)));
}

fn take_log() -> Vec<(u64, u32)> {
    LOG.with(|l| std::mem::take(&mut *l.borrow_mut()))
}

fn frame(rt: &Runtime, n: u64) {
    rt.begin_frame(&FrameInfo { frame: n, delta_time: 0.016, unscaled_delta_time: 0.02, realtime: n as f64 * 0.02 })
        .unwrap();
}

fn tick_all(rt: &Runtime) {
    for t in Timing::ALL {
        rt.tick(t).unwrap();
    }
}

fn state(rt: &Runtime, h: u64) -> TaskState {
    rt.task_state(h).unwrap()
}

fn next_frame(rt: &Runtime, t: Timing) -> u64 {
    rt.wait(WaitKind::NextFrame, t, 0, 0.0, Clock::Scaled, 0, WaitTarget::Task).unwrap()
}

fn yield_(rt: &Runtime, t: Timing) -> u64 {
    rt.wait(WaitKind::Yield, t, 0, 0.0, Clock::Scaled, 0, WaitTarget::Task).unwrap()
}

fn delay_frame(rt: &Runtime, n: u32, t: Timing) -> u64 {
    rt.wait(WaitKind::DelayFrame, t, n, 0.0, Clock::Scaled, 0, WaitTarget::Task).unwrap()
}

fn cb_wait(rt: &Runtime, kind: WaitKind, t: Timing, id: u64, token: u64) {
    rt.wait(kind, t, 1, 0.0, Clock::Scaled, token, WaitTarget::Callback(log_cb, id as *mut c_void, 0)).unwrap();
}

#[test]
fn manual_task_lifecycle_and_stale_handles() {
    let rt = Runtime::new(Config::default());
    let h = rt.create_task().unwrap();
    assert_ne!(h, 0);
    assert_eq!(state(&rt, h), TaskState::Pending);
    assert_eq!(rt.consume(h), Err(Error::TaskPending));
    rt.complete(h, TaskState::Succeeded, 42, 0, true).unwrap();
    assert_eq!(rt.complete(h, TaskState::Faulted, 0, 7, true), Err(Error::AlreadyCompleted));
    assert_eq!(state(&rt, h), TaskState::Succeeded);
    let o = rt.consume(h).unwrap();
    assert_eq!((o.state, o.value), (TaskState::Succeeded, 42));
    assert_eq!(rt.consume(h), Err(Error::StaleHandle));
    assert_eq!(rt.task_state(h), Err(Error::StaleHandle));
    assert_eq!(rt.complete(h, TaskState::Succeeded, 1, 0, true), Err(Error::StaleHandle));
    // The slot is reused with a new generation: the old handle stays stale.
    let h2 = rt.create_task().unwrap();
    assert_eq!(h2 & 0xffff_ffff, h & 0xffff_ffff);
    assert_ne!(h2, h);
    assert_eq!(rt.consume(h), Err(Error::StaleHandle));
    rt.complete(h2, TaskState::Faulted, 0, -5, true).unwrap();
    let o = rt.consume(h2).unwrap();
    assert_eq!((o.state, o.error), (TaskState::Faulted, -5));
}

#[test]
fn forged_foreign_and_wrong_kind_handles() {
    let a = Runtime::new(Config::default());
    let b = Runtime::new(Config::default());
    let h = a.create_task().unwrap();
    assert_eq!(b.task_state(h), Err(Error::ForeignHandle));
    assert_eq!(a.task_state(0), Err(Error::InvalidHandle));
    let src = a.create_cancel_source().unwrap();
    assert_eq!(a.task_state(src), Err(Error::InvalidHandle));
    assert_eq!(a.cancel(h), Err(Error::InvalidHandle));
    // Random garbage never crashes.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..10_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let _ = a.task_state(x);
        let _ = a.consume(x);
        let _ = a.complete(x, TaskState::Canceled, 0, 0, false);
        let _ = a.cancel(x);
    }
    assert_eq!(state(&a, h), TaskState::Pending);
}

#[test]
fn continuation_runs_inline_on_owner_and_only_once() {
    let rt = Runtime::new(Config::default());
    let h = rt.create_task().unwrap();
    rt.on_complete(h, log_cb, 1 as *mut c_void).unwrap();
    assert_eq!(rt.on_complete(h, log_cb, 2 as *mut c_void), Err(Error::AlreadyAwaited));
    assert!(take_log().is_empty());
    rt.complete(h, TaskState::Succeeded, 5, 0, true).unwrap();
    assert_eq!(take_log(), vec![(1, TaskState::Succeeded as u32)]);
    // Registering on a completed task runs at once.
    let h2 = rt.create_task().unwrap();
    rt.complete(h2, TaskState::Canceled, 0, 0, false).unwrap();
    rt.on_complete(h2, log_cb, 3 as *mut c_void).unwrap();
    assert_eq!(take_log(), vec![(3, TaskState::Canceled as u32)]);
    rt.consume(h).unwrap();
    rt.consume(h2).unwrap();
}

#[test]
fn next_frame_resumes_on_a_later_frame_at_its_timing() {
    let rt = Runtime::new(Config::default());
    frame(&rt, 10);
    rt.tick(Timing::Initialization).unwrap();
    let h = next_frame(&rt, Timing::Update);
    // Same frame: Update runs, but the wait is for a later frame.
    tick_all(&rt);
    assert_eq!(state(&rt, h), TaskState::Pending);
    frame(&rt, 11);
    for t in Timing::ALL {
        rt.tick(t).unwrap();
        let expect = if (t as u32) >= Timing::Update as u32 { TaskState::Succeeded } else { TaskState::Pending };
        assert_eq!(state(&rt, h), expect, "after {t:?}");
    }
    rt.consume(h).unwrap();
}

#[test]
fn next_frame_before_first_frame_resumes_in_first_frame() {
    let rt = Runtime::new(Config::default());
    let h = next_frame(&rt, Timing::Update);
    rt.tick(Timing::Update).unwrap();
    assert_eq!(state(&rt, h), TaskState::Pending);
    frame(&rt, 0);
    rt.tick(Timing::Update).unwrap();
    assert_eq!(state(&rt, h), TaskState::Succeeded);
    rt.consume(h).unwrap();
}

#[test]
fn yield_resumes_at_next_run_of_its_timing_same_frame_if_not_run_yet() {
    let rt = Runtime::new(Config::default());
    frame(&rt, 1);
    rt.tick(Timing::EarlyUpdate).unwrap();
    let later = yield_(&rt, Timing::Update); // Update has not run this frame
    let earlier = yield_(&rt, Timing::EarlyUpdate); // EarlyUpdate already ran
    rt.tick(Timing::Update).unwrap();
    assert_eq!(state(&rt, later), TaskState::Succeeded);
    assert_eq!(state(&rt, earlier), TaskState::Pending);
    frame(&rt, 2);
    rt.tick(Timing::EarlyUpdate).unwrap();
    assert_eq!(state(&rt, earlier), TaskState::Succeeded);
    rt.consume(later).unwrap();
    rt.consume(earlier).unwrap();
}

/// A yield scheduled by a continuation of the same timing runs at the next
/// run of that timing, not in the same pass.
unsafe extern "C" fn reyield(user: *mut c_void, task: u64, state: u32) {
    let rt = &*(user as *const Runtime);
    rt.consume(task).unwrap();
    if state == TaskState::Canceled as u32 {
        return; // the runtime is closing
    }
    LOG.with(|l| l.borrow_mut().push((99, 0)));
    let h = rt.wait(WaitKind::Yield, Timing::Update, 0, 0.0, Clock::Scaled, 0, WaitTarget::Task).unwrap();
    rt.on_complete(h, reyield, user).unwrap();
}

#[test]
fn yield_from_a_continuation_waits_for_the_next_run() {
    let rt = Runtime::new(Config::default());
    let h = yield_(&rt, Timing::Update);
    rt.on_complete(h, reyield, &rt as *const Runtime as *mut c_void).unwrap();
    for n in 1..=5 {
        frame(&rt, n);
        rt.tick(Timing::Update).unwrap();
        assert_eq!(take_log().len(), 1, "exactly one resumption per run");
    }
    // FixedUpdate-style: several runs in one frame resume each time.
    rt.tick(Timing::Update).unwrap();
    rt.tick(Timing::Update).unwrap();
    assert_eq!(take_log().len(), 2);
}

#[test]
fn delay_frame_counts_frames() {
    let rt = Runtime::new(Config::default());
    frame(&rt, 100);
    let d3 = delay_frame(&rt, 3, Timing::PreUpdate);
    let d0 = delay_frame(&rt, 0, Timing::PreUpdate);
    let d1 = delay_frame(&rt, 1, Timing::PreUpdate);
    tick_all(&rt);
    assert_eq!(state(&rt, d0), TaskState::Succeeded);
    assert_eq!(state(&rt, d1), TaskState::Pending);
    for n in 101..=103 {
        frame(&rt, n);
        tick_all(&rt);
        assert_eq!(state(&rt, d1), TaskState::Succeeded);
        let expect = if n >= 103 { TaskState::Succeeded } else { TaskState::Pending };
        assert_eq!(state(&rt, d3), expect, "frame {n}");
    }
    for h in [d0, d1, d3] {
        rt.consume(h).unwrap();
    }
}

#[test]
fn delay_uses_the_chosen_clock_and_skips_the_creation_frame() {
    let rt = Runtime::new(Config::default());
    // Binary fractions keep the sums exact.
    let f = |n: u64, d: f64, u: f64, r: f64| {
        rt.begin_frame(&FrameInfo { frame: n, delta_time: d, unscaled_delta_time: u, realtime: r }).unwrap()
    };
    f(1, 0.125, 0.125, 10.0);
    let mk = |s: f64, c: Clock| rt.wait(WaitKind::Delay, Timing::Update, 0, s, c, 0, WaitTarget::Task).unwrap();
    let scaled = mk(0.25, Clock::Scaled);
    let unscaled = mk(0.25, Clock::Unscaled);
    let real = mk(1.0, Clock::Realtime);
    let zero = mk(0.0, Clock::Scaled);
    tick_all(&rt);
    assert_eq!(state(&rt, zero), TaskState::Pending, "the creation frame is skipped");
    // Time scale 0.5: scaled advances 0.0625 a frame, unscaled 0.125.
    let expect = [
        // frame, realtime, scaled, unscaled, real
        (2, 10.5, TaskState::Pending, TaskState::Pending, TaskState::Pending),
        (3, 10.75, TaskState::Pending, TaskState::Succeeded, TaskState::Pending),
        (4, 11.0, TaskState::Pending, TaskState::Succeeded, TaskState::Succeeded),
        (5, 11.25, TaskState::Succeeded, TaskState::Succeeded, TaskState::Succeeded),
    ];
    for (n, r, s, u, re) in expect {
        f(n, 0.0625, 0.125, r);
        rt.tick(Timing::EarlyUpdate).unwrap();
        assert_eq!(state(&rt, scaled), TaskState::Pending, "only at its own timing");
        rt.tick(Timing::Update).unwrap();
        assert_eq!(state(&rt, zero), TaskState::Succeeded);
        assert_eq!((state(&rt, scaled), state(&rt, unscaled), state(&rt, real)), (s, u, re), "frame {n}");
    }
    for h in [scaled, unscaled, real, zero] {
        rt.consume(h).unwrap();
    }
    assert_eq!(
        rt.wait(WaitKind::Delay, Timing::Update, 0, -1.0, Clock::Scaled, 0, WaitTarget::Task),
        Err(Error::InvalidArgument)
    );
    assert_eq!(
        rt.wait(WaitKind::Delay, Timing::Update, 0, f64::NAN, Clock::Scaled, 0, WaitTarget::Task),
        Err(Error::InvalidArgument)
    );
}

#[test]
fn continuations_of_one_timing_run_in_scheduling_order() {
    let rt = Runtime::new(Config::default());
    frame(&rt, 1);
    // Mixed kinds on one timing, all due at frame 2's Update.
    cb_wait(&rt, WaitKind::NextFrame, Timing::Update, 1, 0);
    cb_wait(&rt, WaitKind::Yield, Timing::LastUpdate, 100, 0);
    cb_wait(&rt, WaitKind::DelayFrame, Timing::Update, 2, 0);
    cb_wait(&rt, WaitKind::NextFrame, Timing::Update, 3, 0);
    // A not-yet-due wait between due ones must not disturb the order.
    rt.wait(
        WaitKind::DelayFrame,
        Timing::Update,
        5,
        0.0,
        Clock::Scaled,
        0,
        WaitTarget::Callback(log_cb, 50 as *mut c_void, 0),
    )
    .unwrap();
    cb_wait(&rt, WaitKind::NextFrame, Timing::Update, 4, 0);
    frame(&rt, 2);
    rt.tick(Timing::Update).unwrap();
    let ids: Vec<u64> = take_log().into_iter().map(|(id, _)| id).collect();
    assert_eq!(ids, vec![1, 2, 3, 4]);
    rt.tick(Timing::LastUpdate).unwrap();
    assert_eq!(take_log(), vec![(100, 1)]);
    for n in 3..=6 {
        frame(&rt, n);
        rt.tick(Timing::Update).unwrap();
    }
    assert_eq!(take_log(), vec![(50, 1)]);
}

#[test]
fn cancellation_of_waits_is_observed_at_the_next_run_of_their_timing() {
    let rt = Runtime::new(Config::default());
    frame(&rt, 1);
    let src = rt.create_cancel_source().unwrap();
    let long = rt.wait(WaitKind::DelayFrame, Timing::Update, 600, 0.0, Clock::Scaled, src, WaitTarget::Task).unwrap();
    cb_wait(&rt, WaitKind::Delay, Timing::Update, 7, src);
    let other = delay_frame(&rt, 2, Timing::Update);
    rt.tick(Timing::Update).unwrap();
    assert_eq!(state(&rt, long), TaskState::Pending);
    // Cancel from another thread.
    let h = src;
    let rt_ref = &rt;
    std::thread::scope(|s| {
        s.spawn(move || rt_ref.cancel(h).unwrap());
    });
    assert!(rt.is_canceled(src).unwrap());
    rt.cancel(src).unwrap(); // twice is fine
    assert_eq!(state(&rt, long), TaskState::Pending, "observed lazily");
    rt.tick(Timing::EarlyUpdate).unwrap();
    assert_eq!(state(&rt, long), TaskState::Pending, "only by its own timing");
    rt.tick(Timing::Update).unwrap();
    assert_eq!(state(&rt, long), TaskState::Canceled);
    assert_eq!(take_log(), vec![(7, TaskState::Canceled as u32)]);
    assert_eq!(state(&rt, other), TaskState::Pending);
    assert_eq!(rt.consume(long).unwrap().state, TaskState::Canceled);
    rt.destroy_cancel_source(src).unwrap();
    assert_eq!(rt.cancel(src), Err(Error::StaleHandle));
    assert_eq!(
        rt.wait(WaitKind::Yield, Timing::Update, 0, 0.0, Clock::Scaled, src, WaitTarget::Task),
        Err(Error::StaleHandle)
    );
    let s = rt.stats().unwrap();
    assert_eq!(s.waits[WaitKind::DelayFrame as usize].canceled, 1);
    assert_eq!(s.waits[WaitKind::Delay as usize].canceled, 1);
}
