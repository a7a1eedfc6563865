//! Issue 19 item 7a: a token canceled during a run of a timing (by one of
//! that run's continuations) completes the waits of that timing pending at
//! the run's start, and the combinators watching it, in that same run, not
//! one frame late; frame by frame, for every wait kind, task and callback
//! forms, batch records, far (heap) and near (scanned) waits. And the order
//! of waits due in the same run when they come from the near queue and the
//! far store.

use std::cell::{Cell, RefCell};
use std::ffi::c_void;

use onity::core::{Clock, Config, FrameInfo, Request, Runtime, TaskState, Timing, WaitKind, WaitTarget};

const CANCELED: u32 = TaskState::Canceled as u32;
const SUCCEEDED: u32 = TaskState::Succeeded as u32;

/// A runtime, a log of (frame, id, state) and the source a canceler
/// cancels.
struct H {
    rt: Runtime,
    frame: Cell<u64>,
    log: RefCell<Vec<(u64, u64, u32)>>,
    source: Cell<u64>,
    /// Destroy the source right after canceling it (`cts.Cancel();
    /// cts.Dispose();`).
    destroy_after: Cell<bool>,
}

impl H {
    fn new() -> Box<H> {
        let h = Box::new(H {
            rt: Runtime::new(Config::default()),
            frame: Cell::new(0),
            log: RefCell::new(Vec::new()),
            source: Cell::new(0),
            destroy_after: Cell::new(false),
        });
        h.source.set(h.rt.create_cancel_source().unwrap());
        h
    }

    fn user(&self) -> *mut c_void {
        self as *const H as *mut c_void
    }

    /// Begins frame `f`: every clock advances 1 s a frame (realtime = f).
    fn begin(&self, f: u64) {
        self.frame.set(f);
        let info = FrameInfo { frame: f, delta_time: 1.0, unscaled_delta_time: 1.0, realtime: f as f64 };
        self.rt.begin_frame(&info).unwrap();
    }

    /// A callback wait logging under `id`.
    fn wait(&self, kind: WaitKind, timing: Timing, n: f64, clock: Clock, token: u64, id: u64) {
        let (frames, seconds) = if kind == WaitKind::Delay { (0, n) } else { (n as u32, 0.0) };
        self.rt
            .wait(kind, timing, frames, seconds, clock, token, WaitTarget::Callback(log_cb, self.user(), id))
            .unwrap();
    }

    /// A callback wait (no token) that cancels the source when it runs.
    fn canceler(&self, kind: WaitKind, frames: u32, timing: Timing) {
        self.rt
            .wait(kind, timing, frames, 0.0, Clock::Scaled, 0, WaitTarget::Callback(cancel_cb, self.user(), 0))
            .unwrap();
    }

    /// Where `id` was logged: (frame, state).
    fn find(&self, id: u64) -> Option<(u64, u32)> {
        self.log.borrow().iter().find(|e| e.1 == id).map(|e| (e.0, e.2))
    }
}

unsafe extern "C" fn log_cb(user: *mut c_void, id: u64, state: u32) {
    let h = &*(user as *const H);
    h.log.borrow_mut().push((h.frame.get(), id, state));
}

unsafe extern "C" fn cancel_cb(user: *mut c_void, _id: u64, state: u32) {
    let h = &*(user as *const H);
    assert_eq!(state, SUCCEEDED);
    h.log.borrow_mut().push((h.frame.get(), 0, state));
    h.rt.cancel(h.source.get()).unwrap();
    if h.destroy_after.get() {
        h.rt.destroy_cancel_source(h.source.get()).unwrap();
    }
}

/// Runs frames `from..=to` (Update only), checking after each tick that
/// `id` has not completed before frame `at` and completed `state` in frame
/// `at`.
fn frames(h: &H, from: u64, to: u64, id: u64, at: u64, state: u32) {
    for f in from..=to {
        h.begin(f);
        h.rt.tick(Timing::Update).unwrap();
        match h.find(id) {
            None => assert!(f < at, "frame {f}: wait {id} not completed (due in frame {at})"),
            Some(got) => assert_eq!(got, (at, state), "frame {f}: wait {id}"),
        }
    }
}

/// Every frame-wait kind pending when a DelayFrame(10) continuation of the
/// same Update run cancels its token completes canceled in that run (frame
/// 11), scheduled before and after the canceler, far and near.
#[test]
fn a_pending_wait_of_each_kind_is_canceled_in_the_same_run() {
    let cases: &[(&str, WaitKind, f64, Clock)] = &[
        ("DelayFrame(100)", WaitKind::DelayFrame, 100.0, Clock::Scaled),
        ("DelayFrame(12)", WaitKind::DelayFrame, 12.0, Clock::Scaled),
        ("Delay(100 s, scaled)", WaitKind::Delay, 100.0, Clock::Scaled),
        ("Delay(100 s, unscaled)", WaitKind::Delay, 100.0, Clock::Unscaled),
        ("Delay(100 s, realtime)", WaitKind::Delay, 100.0, Clock::Realtime),
    ];
    for &(name, kind, n, clock) in cases {
        for before in [true, false] {
            let h = H::new();
            h.begin(1);
            if before {
                h.wait(kind, Timing::Update, n, clock, h.source.get(), 7);
                h.canceler(WaitKind::DelayFrame, 10, Timing::Update);
            } else {
                h.canceler(WaitKind::DelayFrame, 10, Timing::Update);
                h.wait(kind, Timing::Update, n, clock, h.source.get(), 7);
            }
            h.rt.tick(Timing::Update).unwrap();
            // The canceler runs in frame 11 (1 + 10); so must the canceled wait.
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| frames(&h, 2, 14, 7, 11, CANCELED)))
                .unwrap_or_else(|_| {
                    panic!("{name}, scheduled {} the canceler", if before { "before" } else { "after" })
                });
            assert_eq!(h.find(0), Some((11, SUCCEEDED)), "{name}: the canceler");
            let log = h.log.borrow();
            assert_eq!(
                log.iter().map(|e| e.1).collect::<Vec<_>>(),
                vec![0, 7],
                "{name}: canceled after the canceler ran"
            );
        }
    }
}

/// NextFrame and DelayFrame(1) scheduled in frame 5 before Update's run are
/// pending (not due) in it: a Yield continuation of that run canceling the
/// token completes them canceled in frame 5, not 6.
#[test]
fn a_next_frame_wait_pending_in_the_run_is_canceled_in_it() {
    for (kind, n) in [(WaitKind::NextFrame, 0.0), (WaitKind::DelayFrame, 1.0)] {
        for before in [true, false] {
            let h = H::new();
            for f in 1..5 {
                h.begin(f);
                h.rt.tick(Timing::Update).unwrap();
            }
            h.begin(5);
            if before {
                h.wait(kind, Timing::Update, n, Clock::Scaled, h.source.get(), 7);
                h.canceler(WaitKind::Yield, 0, Timing::Update);
            } else {
                h.canceler(WaitKind::Yield, 0, Timing::Update);
                h.wait(kind, Timing::Update, n, Clock::Scaled, h.source.get(), 7);
            }
            h.rt.tick(Timing::Update).unwrap();
            assert_eq!(h.find(0), Some((5, SUCCEEDED)));
            assert_eq!(h.find(7), Some((5, CANCELED)), "{kind:?}, before the canceler: {before}");
        }
    }
}

/// A Yield is due at the run: canceled when the canceler comes first,
/// resumed (FIFO, before the cancel) when it comes after.
#[test]
fn a_yield_resumes_or_is_canceled_in_scheduling_order() {
    for before in [true, false] {
        let h = H::new();
        h.begin(1);
        if before {
            h.wait(WaitKind::Yield, Timing::Update, 0.0, Clock::Scaled, h.source.get(), 7);
            h.canceler(WaitKind::Yield, 0, Timing::Update);
        } else {
            h.canceler(WaitKind::Yield, 0, Timing::Update);
            h.wait(WaitKind::Yield, Timing::Update, 0.0, Clock::Scaled, h.source.get(), 7);
        }
        h.rt.tick(Timing::Update).unwrap();
        let want = if before { SUCCEEDED } else { CANCELED };
        assert_eq!(h.find(7), Some((1, want)), "yield before the canceler: {before}");
    }
}

/// Task-form waits (DelayFrame(100) far, NextFrame near) complete canceled
/// in the canceler's run; so does a wait whose source the canceler
/// destroys right after canceling it.
#[test]
fn task_waits_and_a_destroyed_source_are_canceled_in_the_same_run() {
    for destroy in [false, true] {
        let h = H::new();
        h.destroy_after.set(destroy);
        h.begin(1);
        let tok = h.source.get();
        let far =
            h.rt.wait(WaitKind::DelayFrame, Timing::Update, 100, 0.0, Clock::Scaled, tok, WaitTarget::Task).unwrap();
        h.rt.on_complete(far, log_cb, h.user()).unwrap();
        let far_cb = 8;
        h.wait(WaitKind::Delay, Timing::Update, 50.0, Clock::Scaled, tok, far_cb);
        h.canceler(WaitKind::DelayFrame, 10, Timing::Update);
        h.rt.tick(Timing::Update).unwrap();
        frames(&h, 2, 13, far, 11, CANCELED);
        assert_eq!(h.find(far_cb), Some((11, CANCELED)), "destroy after cancel: {destroy}");
        assert_eq!(h.rt.consume(far).unwrap().state, TaskState::Canceled);
    }
}

/// A wait on another timing with the same token completes canceled at that
/// timing's next run (PostLateUpdate of the same frame), not during Update.
#[test]
fn a_wait_of_another_timing_is_canceled_at_its_own_next_run() {
    let h = H::new();
    h.begin(1);
    h.wait(WaitKind::DelayFrame, Timing::PostLateUpdate, 100.0, Clock::Scaled, h.source.get(), 7);
    h.canceler(WaitKind::DelayFrame, 10, Timing::Update);
    for f in 2..=12 {
        h.begin(f);
        h.rt.tick(Timing::Update).unwrap();
        if f == 11 {
            assert_eq!(h.find(7), None, "not during Update");
        }
        h.rt.tick(Timing::PostLateUpdate).unwrap();
        if f >= 11 {
            assert_eq!(h.find(7), Some((11, CANCELED)));
        }
    }
}

/// A far wait scheduled during the run (before the canceler) is left to
/// the next run, which completes it canceled.
#[test]
fn a_wait_scheduled_during_the_run_is_canceled_at_the_next_run() {
    unsafe extern "C" fn schedule_cb(user: *mut c_void, _id: u64, _state: u32) {
        let h = &*(user as *const H);
        h.wait(WaitKind::DelayFrame, Timing::Update, 100.0, Clock::Scaled, h.source.get(), 7);
    }
    let h = H::new();
    h.begin(1);
    h.rt.wait(
        WaitKind::DelayFrame,
        Timing::Update,
        10,
        0.0,
        Clock::Scaled,
        0,
        WaitTarget::Callback(schedule_cb, h.user(), 1),
    )
    .unwrap();
    h.canceler(WaitKind::DelayFrame, 10, Timing::Update);
    h.rt.tick(Timing::Update).unwrap();
    frames(&h, 2, 14, 7, 12, CANCELED);
}

/// Batch request records (callback waits of a lane) with the token.
#[test]
fn batch_records_are_canceled_in_the_same_run() {
    let h = H::new();
    let lane = h.rt.create_lane(log_cb, h.user()).unwrap();
    h.begin(1);
    let rec = |id: u64, kind: WaitKind, arg: u64| Request {
        id,
        token: h.source.get(),
        arg,
        kind: kind as u8,
        timing: Timing::Update as u8,
        clock: 0,
    };
    let recs = [rec(7, WaitKind::DelayFrame, 100), rec(8, WaitKind::Delay, 100f64.to_bits())];
    h.rt.file_lane(lane, &[], recs.into_iter(), |id, e| panic!("record {id}: {e:?}")).unwrap();
    h.canceler(WaitKind::DelayFrame, 10, Timing::Update);
    h.rt.tick(Timing::Update).unwrap();
    frames(&h, 2, 13, 7, 11, CANCELED);
    assert_eq!(h.find(8), Some((11, CANCELED)));
    h.rt.destroy_lane(lane).unwrap();
}

/// WhenAny and WhenAll watching the token complete canceled in the
/// canceler's run.
#[test]
fn combinators_are_canceled_in_the_same_run() {
    for any in [true, false] {
        let h = H::new();
        h.begin(1);
        let inputs = [h.rt.create_task().unwrap(), h.rt.create_task().unwrap()];
        let tok = h.source.get();
        let c = if any { h.rt.when_any(&inputs, tok) } else { h.rt.when_all(&inputs, tok) }.unwrap();
        h.rt.on_complete(c, log_cb, h.user()).unwrap();
        h.canceler(WaitKind::DelayFrame, 10, Timing::Update);
        h.rt.tick(Timing::Update).unwrap();
        frames(&h, 2, 13, c, 11, CANCELED);
    }
}

/// Waits due in the same run resume in scheduling order, whether they
/// come from the far store (DelayFrame, Delay) or the near queue
/// (NextFrame, Yield).
#[test]
fn waits_due_in_the_same_run_resume_in_scheduling_order() {
    let h = H::new();
    let u = Timing::Update;
    let s = Clock::Scaled;
    for f in 1..=6 {
        h.begin(f);
        match f {
            1 => h.wait(WaitKind::DelayFrame, u, 5.0, s, 0, 1), // due frame 6
            2 => h.wait(WaitKind::Delay, u, 4.0, s, 0, 2),      // clock 2 + 4 = 6: frame 6
            3 => h.wait(WaitKind::DelayFrame, u, 3.0, s, 0, 3), // due frame 6
            5 => h.wait(WaitKind::NextFrame, u, 0.0, s, 0, 4),  // due frame 6
            6 => {
                h.wait(WaitKind::Yield, u, 0.0, s, 0, 5);
                h.wait(WaitKind::DelayFrame, u, 0.0, s, 0, 6);
            }
            _ => {}
        }
        h.rt.tick(u).unwrap();
    }
    let log = h.log.borrow();
    assert_eq!(log.iter().map(|e| (e.0, e.1)).collect::<Vec<_>>(), (1..=6).map(|id| (6, id)).collect::<Vec<_>>());
}

/// A batch host runs a run's continuations after the tick returns; the
/// canceled-only pass it then makes completes the waits pending at that
/// run's start canceled in the same frame, and leaves the waits scheduled
/// since to the next run.
#[test]
fn the_cancel_pass_after_a_tick_completes_that_runs_pending_waits() {
    let h = H::new();
    h.begin(1);
    let tok = h.source.get();
    h.wait(WaitKind::DelayFrame, Timing::Update, 100.0, Clock::Scaled, tok, 1);
    h.wait(WaitKind::Delay, Timing::Update, 100.0, Clock::Scaled, tok, 2);
    h.rt.tick(Timing::Update).unwrap();
    h.begin(2);
    h.wait(WaitKind::NextFrame, Timing::Update, 0.0, Clock::Scaled, tok, 3);
    let inputs = [h.rt.create_task().unwrap()];
    let any = h.rt.when_any(&inputs, tok).unwrap();
    h.rt.on_complete(any, log_cb, h.user()).unwrap();
    h.rt.tick(Timing::Update).unwrap();
    // The host's continuations of that run: one cancels; another schedules
    // a wait with the token after the run.
    h.wait(WaitKind::DelayFrame, Timing::Update, 50.0, Clock::Scaled, tok, 4);
    h.rt.cancel(tok).unwrap();
    h.rt.cancel_pass(Timing::Update).unwrap();
    for id in [1, 2, 3, any] {
        assert_eq!(h.find(id), Some((2, CANCELED)), "wait {id}");
    }
    assert_eq!(h.find(4), None, "scheduled after the run: left to the next one");
    h.begin(3);
    h.rt.tick(Timing::Update).unwrap();
    assert_eq!(h.find(4), Some((3, CANCELED)));
    let ids: Vec<u64> = h.log.borrow().iter().map(|e| e.1).collect();
    assert_eq!(ids, vec![any, 1, 2, 3, 4], "combinators first, then the waits in scheduling order");
}

/// `onity_batch_cancel_pass`: its misuse errors, and the pass reported
/// through the batch.
#[test]
fn batch_cancel_pass_through_the_c_abi() {
    use onity::ffi::*;
    use std::ptr;
    let mut c = OnityRuntimeConfig::default();
    assert_eq!(onity_runtime_config_init(&mut c, std::mem::size_of::<OnityRuntimeConfig>() as u32), OnityStatus::Ok);
    let mut rt = ptr::null_mut();
    assert_eq!(onity_runtime_create(&c, &mut rt), OnityStatus::Ok);
    let mut b = ptr::null_mut();
    assert_eq!(onity_batch_create(rt, 16, &mut b), OnityStatus::Ok);
    let upd = Timing::Update as u32;
    assert_eq!(onity_batch_cancel_pass(ptr::null_mut(), b, upd), OnityStatus::NullPointer);
    assert_eq!(onity_batch_cancel_pass(rt, ptr::null_mut(), upd), OnityStatus::NullPointer);
    assert_eq!(onity_batch_cancel_pass(rt, b, 16), OnityStatus::InvalidArgument);
    let info = OnityFrameInfo {
        size: std::mem::size_of::<OnityFrameInfo>() as u32,
        reserved: 0,
        frame: 1,
        delta_time: 0.016,
        unscaled_delta_time: 0.016,
        realtime: 0.0,
    };
    assert_eq!(onity_runtime_frame_begin(rt, &info), OnityStatus::Ok);
    let mut tok = 0;
    assert_eq!(onity_cancel_source_create(rt, &mut tok), OnityStatus::Ok);
    // SAFETY: a live batch with room, written between calls.
    unsafe {
        *(*b).submit = OnityBatchRecord {
            id: 9,
            token: tok,
            arg: 100,
            kind: WaitKind::DelayFrame as u8,
            timing: upd as u8,
            clock: 0,
            reserved: [0; 5],
        };
        (*b).submit_count = 1;
    }
    assert_eq!(onity_batch_tick(rt, b, upd), OnityStatus::Ok);
    // SAFETY: as above.
    assert_eq!(unsafe { (*b).resumed_count }, 0);
    assert_eq!(onity_cancel_source_cancel(rt, tok), OnityStatus::Ok);
    assert_eq!(onity_batch_cancel_pass(rt, b, upd), OnityStatus::Ok);
    // SAFETY: as above.
    unsafe {
        assert_eq!((*b).resumed_count, 1);
        let r = *(*b).resumed;
        assert_eq!((r.id, r.state), (9, CANCELED));
    }
    assert_eq!(onity_runtime_destroy(rt), OnityStatus::Ok);
}

/// A far wait (DelayFrame(50), Delay(50 s)) made with a token canceled long
/// before (no cancel since) completes canceled at the next run of its
/// timing.
#[test]
fn a_far_wait_with_an_already_canceled_token_completes_at_the_next_run() {
    let h = H::new();
    h.begin(1);
    h.rt.cancel(h.source.get()).unwrap();
    h.rt.tick(Timing::Update).unwrap();
    h.begin(2);
    h.rt.tick(Timing::Update).unwrap();
    h.wait(WaitKind::DelayFrame, Timing::Update, 50.0, Clock::Scaled, h.source.get(), 7);
    h.wait(WaitKind::Delay, Timing::Update, 50.0, Clock::Scaled, h.source.get(), 8);
    frames(&h, 3, 5, 7, 3, CANCELED);
    assert_eq!(h.find(8), Some((3, CANCELED)));
}

/// A far wait due in a run, taken from its heap at the run's start, whose
/// token an earlier continuation of that run cancels and destroys (no other
/// far wait holds a token): it completes canceled, as a near wait does.
#[test]
fn a_due_far_wait_whose_source_is_canceled_and_destroyed_earlier_in_the_run_completes_canceled() {
    for far in [true, false] {
        let h = H::new();
        h.destroy_after.set(true);
        h.begin(1);
        let (n, expect_at) = if far { (10, 11) } else { (1, 2) };
        h.canceler(WaitKind::DelayFrame, n, Timing::Update);
        h.wait(WaitKind::DelayFrame, Timing::Update, n as f64, Clock::Scaled, h.source.get(), 7);
        h.rt.tick(Timing::Update).unwrap();
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| frames(&h, 2, expect_at + 1, 7, expect_at, CANCELED)))
            .unwrap_or_else(|_| panic!("DelayFrame({n}), far: {far}"));
        assert_eq!(h.find(0), Some((expect_at, SUCCEEDED)));
    }
}

/// The cancel pass after a traced tick records a continuation event for
/// each wait it completes, as the run's own passes do.
#[test]
fn the_cancel_pass_records_its_continuations_while_tracing() {
    use onity::core::trace::TRACE_ALL;
    let h = H::new();
    h.rt.trace_start(256, TRACE_ALL).unwrap();
    h.begin(1);
    let tok = h.source.get();
    h.wait(WaitKind::DelayFrame, Timing::Update, 100.0, Clock::Scaled, tok, 1);
    h.wait(WaitKind::DelayFrame, Timing::Update, 5.0, Clock::Scaled, tok, 2);
    h.rt.tick(Timing::Update).unwrap();
    h.rt.cancel(tok).unwrap();
    h.rt.cancel_pass(Timing::Update).unwrap();
    assert_eq!(h.find(1), Some((1, CANCELED)));
    assert_eq!(h.find(2), Some((1, CANCELED)));
    let json = h.rt.trace_json(|s| s.to_owned()).unwrap();
    let continuations = json.matches("\"name\":\"callback\"").count();
    assert_eq!(continuations, 2, "{json}");
}
