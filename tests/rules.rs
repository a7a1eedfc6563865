//! The runtime's documented rules, frame by frame, through the core API.

use std::cell::RefCell;
use std::ffi::c_void;

use onity::core::*;

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

#[test]
fn when_any_first_completion_wins_and_losers_are_consumed() {
    let rt = Runtime::new(Config::default());
    let ins: Vec<u64> = (0..5).map(|_| rt.create_task().unwrap()).collect();
    let any = rt.when_any(&ins, 0).unwrap();
    assert_eq!(rt.consume(ins[0]), Err(Error::AlreadyAwaited));
    assert_eq!(rt.on_complete(ins[0], log_cb, std::ptr::null_mut()), Err(Error::AlreadyAwaited));
    rt.complete(ins[3], TaskState::Faulted, 0, 33, true).unwrap();
    let o = rt.consume(any).unwrap();
    assert_eq!((o.state, o.error, o.index), (TaskState::Faulted, 33, 3));
    assert_eq!(rt.task_state(ins[3]), Err(Error::StaleHandle), "winner consumed by the combinator");
    assert_eq!(rt.stats().unwrap().live_tasks, 4);
    for (i, &h) in ins.iter().enumerate() {
        if i != 3 {
            rt.complete(h, TaskState::Succeeded, i as u64, 0, true).unwrap();
        }
    }
    let s = rt.stats().unwrap();
    assert_eq!(s.live_tasks, 0, "losers consumed when they finish");
    assert_eq!(s.when_any[0].live, 0);
    assert_eq!(s.when_any[0].idle, 1);
}

#[test]
fn when_any_with_completed_inputs_picks_first_in_array_order() {
    let rt = Runtime::new(Config::default());
    let ins: Vec<u64> = (0..3).map(|_| rt.create_task().unwrap()).collect();
    rt.complete(ins[2], TaskState::Succeeded, 22, 0, true).unwrap();
    rt.complete(ins[1], TaskState::Succeeded, 11, 0, true).unwrap();
    let any = rt.when_any(&ins, 0).unwrap();
    let o = rt.consume(any).unwrap();
    assert_eq!((o.state, o.value, o.index), (TaskState::Succeeded, 11, 1));
    rt.complete(ins[0], TaskState::Canceled, 0, 0, false).unwrap();
    assert_eq!(rt.stats().unwrap().live_tasks, 0);
}

#[test]
fn combinator_input_validation() {
    let rt = Runtime::new(Config::default());
    let a = rt.create_task().unwrap();
    let b = rt.create_task().unwrap();
    assert_eq!(rt.when_any(&[], 0), Err(Error::CountOutOfRange));
    assert_eq!(rt.when_any(&[a, b, a], 0), Err(Error::DuplicateInput));
    assert_eq!(rt.when_all(&[b, b], 0), Err(Error::DuplicateInput));
    let many: Vec<u64> = (0..40).map(|_| rt.create_task().unwrap()).collect();
    let mut dup = many.clone();
    dup.push(many[17]);
    assert_eq!(rt.when_any(&dup, 0), Err(Error::DuplicateInput));
    let too_many = vec![a; MAX_COMBINATOR_INPUTS as usize + 1];
    assert_eq!(rt.when_any(&too_many, 0), Err(Error::CountOutOfRange));
    assert_eq!(rt.when_any(&[a, 0], 0), Err(Error::InvalidHandle));
    rt.on_complete(b, log_cb, std::ptr::null_mut()).unwrap();
    assert_eq!(rt.when_any(&[a, b], 0), Err(Error::AlreadyAwaited));
    // Nothing changed on error: `a` can still be used.
    let any = rt.when_any(&[a], 0).unwrap();
    assert_eq!(rt.when_all(&[a], 0), Err(Error::AlreadyAwaited));
    rt.complete(a, TaskState::Succeeded, 1, 0, true).unwrap();
    rt.consume(any).unwrap();
    let big = rt.when_all(&many, 0).unwrap();
    for &h in &many {
        rt.complete(h, TaskState::Succeeded, 0, 0, true).unwrap();
    }
    assert_eq!(rt.consume(big).unwrap().value, 40);
    let s = rt.stats().unwrap();
    assert_eq!((s.when_all[2].cold_allocations, s.when_all[2].discards), (1, 1), "large: unpooled");
}

#[test]
fn when_all_waits_for_all_first_error_wins_results_readable() {
    let rt = Runtime::new(Config::default());
    let ins: Vec<u64> = (0..4).map(|_| rt.create_task().unwrap()).collect();
    let all = rt.when_all(&ins, 0).unwrap();
    rt.complete(ins[0], TaskState::Succeeded, 10, 0, true).unwrap();
    rt.complete(ins[2], TaskState::Faulted, 0, 2, true).unwrap();
    rt.complete(ins[1], TaskState::Faulted, 0, 1, true).unwrap();
    assert_eq!(state(&rt, all), TaskState::Pending, "waits for every input");
    let mut res = [Outcome::PENDING; 4];
    assert_eq!(rt.when_all_results(all, &mut res), Err(Error::TaskPending));
    rt.complete(ins[3], TaskState::Succeeded, 13, 0, true).unwrap();
    assert_eq!(state(&rt, all), TaskState::Faulted);
    rt.when_all_results(all, &mut res).unwrap();
    assert_eq!(
        res.map(|o| (o.state, o.value, o.error)),
        [
            (TaskState::Succeeded, 10, 0),
            (TaskState::Faulted, 0, 1),
            (TaskState::Faulted, 0, 2),
            (TaskState::Succeeded, 13, 0),
        ]
    );
    assert_eq!(rt.when_all_results(all, &mut res[..3]), Err(Error::CountOutOfRange));
    let o = rt.consume(all).unwrap();
    assert_eq!((o.state, o.error, o.index), (TaskState::Faulted, 2, 2), "first error in completion order");
    assert_eq!(rt.when_all_results(all, &mut res), Err(Error::StaleHandle));
    let s = rt.stats().unwrap();
    assert_eq!((s.live_tasks, s.when_all[0].live, s.when_all[0].idle), (0, 0, 1));
}

#[test]
fn combinators_cancel_with_their_token() {
    let rt = Runtime::new(Config::default());
    let src = rt.create_cancel_source().unwrap();
    let a: Vec<u64> = (0..3).map(|_| rt.create_task().unwrap()).collect();
    let b: Vec<u64> = (0..3).map(|_| rt.create_task().unwrap()).collect();
    let any = rt.when_any(&a, src).unwrap();
    let all = rt.when_all(&b, src).unwrap();
    rt.complete(b[0], TaskState::Succeeded, 1, 0, true).unwrap();
    rt.cancel(src).unwrap();
    assert_eq!(state(&rt, any), TaskState::Pending, "observed at the next tick or drain");
    rt.drain().unwrap();
    assert_eq!(state(&rt, any), TaskState::Canceled);
    assert_eq!(state(&rt, all), TaskState::Canceled);
    assert_eq!(rt.consume(any).unwrap().index, u32::MAX);
    let mut res = [Outcome::PENDING; 3];
    rt.when_all_results(all, &mut res).unwrap();
    assert_eq!(res.map(|o| o.state), [TaskState::Succeeded, TaskState::Pending, TaskState::Pending]);
    rt.consume(all).unwrap();
    // Inputs keep running and are consumed when they finish.
    assert_eq!(rt.stats().unwrap().live_tasks, 5);
    for &h in a.iter().chain(&b[1..]) {
        rt.complete(h, TaskState::Succeeded, 0, 0, true).unwrap();
    }
    let s = rt.stats().unwrap();
    assert_eq!((s.live_tasks, s.when_any[0].live, s.when_all[0].live), (0, 0, 0));
    // Already-canceled token: completes canceled at once.
    let c = rt.create_task().unwrap();
    let any2 = rt.when_any(&[c], src).unwrap();
    assert_eq!(state(&rt, any2), TaskState::Canceled);
    rt.consume(any2).unwrap();
    rt.complete(c, TaskState::Succeeded, 0, 0, true).unwrap();
    assert_eq!(rt.stats().unwrap().live_tasks, 0);
}

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
