//! The deferred frame begin (ABI 1.3, `OnityDeferredFrame`): a frame written
//! into memory is applied by the next call, on the owner thread, of an
//! export whose result depends on the frame (whoever makes it), exactly as
//! `onity_runtime_frame_begin` would have applied it; the other exports
//! leave it deferred.

use std::ptr;

use onity::ffi::*;

const UPDATE: u32 = OnityTiming::Update as u32;
const SCALED: u32 = OnityClock::Scaled as u32;
const PENDING: u32 = OnityTaskState::Pending as u32;
const SUCC: u32 = OnityTaskState::Succeeded as u32;

struct Rt {
    rt: *mut OnityRuntime,
    b: *mut OnityBatch,
    d: *mut OnityDeferredFrame,
}

impl Rt {
    fn new() -> Rt {
        let mut rt = ptr::null_mut();
        assert_eq!(onity_runtime_create(ptr::null(), &mut rt), OnityStatus::Ok);
        let mut b = ptr::null_mut();
        assert_eq!(onity_batch_create(rt, 64, &mut b), OnityStatus::Ok);
        let mut d = ptr::null_mut();
        assert_eq!(onity_batch_deferred_frame(rt, b, &mut d), OnityStatus::Ok);
        Rt { rt, b, d }
    }

    /// What the C# frame driver's BeginFrame does: no call.
    fn defer(&self, frame: u64) {
        // SAFETY: the runtime's deferred frame and batch; owner thread, between calls.
        unsafe {
            assert_eq!((*self.d).pending, 0);
            (*self.d).info = info(frame);
            (*self.d).submit_split = (*self.b).submit_count;
            (*self.d).fast_split = (*self.b).fast_count;
            (*self.d).pending = 1;
        }
    }

    fn pending(&self) -> u32 {
        // SAFETY: as above.
        unsafe { (*self.d).pending }
    }

    /// Reads and resets the status of a refused deferred frame.
    fn take_status(&self) -> u32 {
        // SAFETY: as above.
        unsafe { std::mem::replace(&mut (*self.d).status, 0) }
    }

    fn tick(&self) -> Vec<u32> {
        assert_eq!(onity_batch_tick(self.rt, self.b, UPDATE), OnityStatus::Ok);
        // SAFETY: live batch; the report is valid until the next tick.
        unsafe { std::slice::from_raw_parts((*self.b).fast_resumed, (*self.b).fast_resumed_count as usize).to_vec() }
    }

    fn fast(&self, id: u32, delay: u32) {
        let mut rec = 0;
        assert_eq!(onity_batch_fast_record(id, UPDATE, delay, &mut rec), OnityStatus::Ok);
        // SAFETY: live batch; the host's plain writes.
        unsafe {
            let bb = &mut *self.b;
            *bb.fast_submit.add(bb.fast_count as usize) = rec;
            bb.fast_count += 1;
        }
    }

    /// The runtime's frame as C code sees it (a call: applies a pending frame).
    fn frame(&self) -> u64 {
        // SAFETY: OnityStats is plain data; zero is a valid value.
        let mut s: OnityStats = unsafe { std::mem::zeroed() };
        s.size = std::mem::size_of::<OnityStats>() as u32;
        assert_eq!(onity_runtime_stats(self.rt, &mut s), OnityStatus::Ok);
        s.frame
    }

    fn state(&self, task: u64) -> u32 {
        let mut st = 0;
        assert_eq!(onity_task_state(self.rt, task, &mut st), OnityStatus::Ok);
        st
    }
}

impl Drop for Rt {
    fn drop(&mut self) {
        assert_eq!(onity_runtime_destroy(self.rt), OnityStatus::Ok);
    }
}

fn info(frame: u64) -> OnityFrameInfo {
    OnityFrameInfo {
        size: std::mem::size_of::<OnityFrameInfo>() as u32,
        reserved: 0,
        frame,
        delta_time: 0.5,
        unscaled_delta_time: 0.5,
        realtime: frame as f64,
    }
}

#[test]
fn the_batch_tick_applies_the_frame_and_files_earlier_records_with_the_previous_frame() {
    let rt = Rt::new();
    rt.defer(1);
    assert!(rt.tick().is_empty());
    assert_eq!(rt.pending(), 0);
    rt.fast(10, 1); // NextFrame written in frame 1, after its tick
    rt.defer(2);
    rt.fast(11, 1); // NextFrame written in frame 2, before its tick
    rt.fast(12, 0); // Yield written in frame 2
    assert_eq!(rt.tick(), vec![12, 10]);
    assert_eq!(rt.frame(), 2);
    rt.defer(3);
    assert_eq!(rt.tick(), vec![11]);
    assert_eq!(rt.take_status(), 0);
}

#[test]
fn a_c_call_between_the_begin_and_the_first_tick_sees_the_new_frame() {
    let rt = Rt::new();
    rt.defer(1);
    rt.tick();
    rt.defer(2);
    // C code runs before the host's first tick of frame 2: its NextFrame
    // counts from frame 2 (due in frame 3), and the frame it reads is 2.
    let mut t = 0;
    assert_eq!(onity_next_frame(rt.rt, UPDATE, 0, &mut t), OnityStatus::Ok);
    assert_eq!(rt.pending(), 0);
    assert_eq!(rt.frame(), 2);
    rt.tick();
    assert_eq!(rt.state(t), PENDING);
    rt.defer(3);
    rt.tick();
    assert_eq!(rt.state(t), SUCC);
    let mut out = OnityOutcome { value: 0, error: 0, state: 0, index: 0, reserved: 0 };
    assert_eq!(onity_task_consume(rt.rt, t, &mut out), OnityStatus::Ok);
}

#[test]
fn delays_count_the_deferred_frames_deltas() {
    let rt = Rt::new();
    rt.defer(1);
    rt.tick();
    let (mut a, mut b) = (0, 0);
    // 1 s of scaled time: two frames of 0.5 s.
    assert_eq!(onity_delay(rt.rt, 1.0, SCALED, UPDATE, 0, &mut a), OnityStatus::Ok);
    rt.defer(2);
    // Made by C code before frame 2's tick: counts from frame 2's clock.
    assert_eq!(onity_delay(rt.rt, 1.0, SCALED, UPDATE, 0, &mut b), OnityStatus::Ok);
    rt.tick();
    assert_eq!((rt.state(a), rt.state(b)), (PENDING, PENDING));
    rt.defer(3);
    rt.tick();
    assert_eq!((rt.state(a), rt.state(b)), (SUCC, PENDING));
    // Two begins before any tick: the explicit call applies the waiting one first.
    rt.defer(4);
    assert_eq!(onity_runtime_frame_begin(rt.rt, &info(5)), OnityStatus::Ok);
    assert_eq!(rt.frame(), 5);
    rt.tick();
    assert_eq!(rt.state(b), SUCC);
    let mut out = OnityOutcome { value: 0, error: 0, state: 0, index: 0, reserved: 0 };
    assert_eq!(onity_task_consume(rt.rt, a, &mut out), OnityStatus::Ok);
    assert_eq!(onity_task_consume(rt.rt, b, &mut out), OnityStatus::Ok);
}

#[test]
fn a_refused_frame_is_dropped_and_reported_in_status() {
    let rt = Rt::new();
    rt.defer(5);
    rt.tick();
    rt.defer(5);
    rt.tick();
    assert_eq!(rt.take_status(), OnityStatus::FrameOrder as u32);
    assert_eq!(rt.frame(), 5);
    rt.defer(6);
    // SAFETY: the runtime's deferred frame, owner thread, between calls.
    unsafe { (*rt.d).info.size = 8 };
    rt.tick();
    assert_eq!(rt.take_status(), OnityStatus::SizeMismatch as u32);
    rt.defer(6);
    // SAFETY: as above.
    unsafe { (*rt.d).info.delta_time = f64::NAN };
    rt.tick();
    assert_eq!(rt.take_status(), OnityStatus::InvalidArgument as u32);
    assert_eq!(rt.frame(), 5);
    rt.defer(6);
    rt.tick();
    assert_eq!((rt.take_status(), rt.frame()), (0, 6));
}

unsafe extern "C" fn begin_inside_tick(user: *mut std::ffi::c_void, _id: u64, _state: u32) {
    let rt = &*(user as *const Rt);
    rt.defer(3);
    // A wait inside the tick leaves it (a begin is refused there): it waits
    // for the next call after the tick.
    let mut t = 0;
    assert_eq!(onity_yield(rt.rt, UPDATE, 0, &mut t), OnityStatus::Ok);
    assert_eq!((rt.pending(), (*rt.d).status), (1, 0));
    assert_eq!(onity_task_cancel(rt.rt, t), OnityStatus::Ok);
}

#[test]
fn a_frame_deferred_inside_a_tick_is_applied_after_it() {
    let rt = Rt::new();
    rt.defer(1);
    rt.tick();
    assert_eq!(
        onity_yield_then(rt.rt, UPDATE, 0, Some(begin_inside_tick), &rt as *const Rt as *mut std::ffi::c_void),
        OnityStatus::Ok
    );
    assert_eq!(onity_runtime_tick(rt.rt, UPDATE), OnityStatus::Ok);
    assert_eq!(rt.pending(), 1, "still written after the tick");
    assert_eq!(rt.frame(), 3);
    assert_eq!((rt.pending(), rt.take_status()), (0, 0));
}

#[test]
fn a_call_from_another_thread_leaves_the_frame_for_the_owner() {
    let rt = Rt::new();
    rt.defer(1);
    rt.tick();
    let mut t = 0;
    assert_eq!(onity_task_create(rt.rt, &mut t), OnityStatus::Ok);
    rt.defer(2);
    let p = rt.rt as usize;
    std::thread::spawn(move || {
        let rt = p as *mut OnityRuntime;
        assert_eq!(onity_task_set_result(rt, t, 7), OnityStatus::Ok);
        // Exports that apply a deferred frame, called off the owner thread.
        let mut w = 0;
        assert_eq!(onity_next_frame(rt, UPDATE, 0, &mut w), OnityStatus::WrongThread);
        assert_eq!(onity_runtime_drain(rt), OnityStatus::WrongThread);
    })
    .join()
    .unwrap();
    assert_eq!(rt.pending(), 1);
    assert_eq!(rt.frame(), 2);
    rt.tick();
    let mut out = OnityOutcome { value: 0, error: 0, state: 0, index: 0, reserved: 0 };
    assert_eq!(onity_task_consume(rt.rt, t, &mut out), OnityStatus::Ok);
    assert_eq!(out.value, 7);
}

unsafe extern "C" fn nop(_user: *mut std::ffi::c_void, _id: u64, _state: u32) {}

/// The rule in the header: the exports that depend on the frame apply a
/// deferred one; the others leave it deferred (and give the same result).
#[test]
fn exactly_the_exports_that_depend_on_the_frame_apply_it() {
    let rt = Rt::new();
    rt.defer(1);
    rt.tick();
    let r = rt.rt;
    let file = c"deferred_frame.rs".as_ptr();
    let mut t = 0u64;
    let mut src = 0u64;
    let mut out = OnityOutcome { value: 0, error: 0, state: 0, index: 0, reserved: 0 };
    let mut other = ptr::null_mut();
    assert_eq!(onity_batch_create(r, 4, &mut other), OnityStatus::Ok);
    // Leave it deferred: they neither read nor change the frame.
    rt.defer(2);
    assert_eq!(onity_task_create(r, &mut t), OnityStatus::Ok);
    assert_eq!(onity_task_on_complete(r, t, Some(nop), ptr::null_mut()), OnityStatus::Ok);
    assert_eq!(onity_task_set_result(r, t, 1), OnityStatus::Ok);
    assert_eq!(onity_task_from_result(r, 5, &mut t), OnityStatus::Ok);
    assert_eq!(rt.state(t), SUCC);
    assert_eq!(onity_task_consume(r, t, &mut out), OnityStatus::Ok);
    assert_eq!(onity_cancel_source_create(r, &mut src), OnityStatus::Ok);
    assert_eq!(onity_cancel_source_cancel(r, src), OnityStatus::Ok);
    assert_eq!(onity_cancel_source_destroy(r, src), OnityStatus::Ok);
    let mut p = ptr::null_mut();
    assert_eq!(onity_frame_alloc(r, 64, 8, 0, &mut p), OnityStatus::Ok);
    let mut inputs = [0u64; 2];
    assert_eq!(onity_task_create(r, &mut inputs[0]), OnityStatus::Ok);
    assert_eq!(onity_task_create(r, &mut inputs[1]), OnityStatus::Ok);
    assert_eq!(onity_when_any(r, inputs.as_ptr(), 2, 0, &mut t), OnityStatus::Ok);
    assert_eq!(onity_task_cancel(r, inputs[0]), OnityStatus::Ok);
    assert_eq!(onity_task_cancel(r, inputs[1]), OnityStatus::Ok);
    assert_eq!(onity_task_consume(r, t, &mut out), OnityStatus::Ok);
    let mut n = 0;
    assert_eq!(onity_runtime_live_tasks(r, ptr::null_mut(), 0, &mut n), OnityStatus::Ok);
    assert_eq!(onity_batch_destroy(r, other), OnityStatus::Ok);
    assert_eq!(onity_runtime_set_site_capture(r, 1), OnityStatus::Ok);
    let mut retired = 0u64;
    assert_eq!(onity_wait_retire(r, &mut retired), OnityStatus::InvalidHandle);
    assert_eq!(rt.pending(), 1, "an export that does not depend on the frame applied it");
    assert_eq!(rt.frame(), 2);
    // Each applies it.
    let lines: *mut OnitySiteReport = ptr::null_mut();
    let np = &mut n as *mut u32;
    let mut d_slot: *mut OnityDeferredFrame = ptr::null_mut();
    let dp = &mut d_slot as *mut *mut OnityDeferredFrame;
    let mut len = 0usize;
    let lenp = &mut len as *mut usize;
    type Call<'a> = (&'static str, Box<dyn Fn() -> OnityStatus + 'a>);
    let mut t2 = 0u64;
    let tp = &mut t2 as *mut u64;
    // The `_then_id` forms' slots: the waits stay pending until the runtime
    // is destroyed (their callback does nothing), so the slots outlive them.
    let mut slots = [0u64; 4];
    let sp = slots.as_mut_ptr();
    let calls: Vec<Call> = vec![
        ("runtime_tick", Box::new(|| onity_runtime_tick(r, UPDATE))),
        ("runtime_drain", Box::new(|| onity_runtime_drain(r))),
        (
            "runtime_stats",
            Box::new(|| {
                // SAFETY: OnityStats is plain data; zero is a valid value.
                let mut s: OnityStats = unsafe { std::mem::zeroed() };
                s.size = std::mem::size_of::<OnityStats>() as u32;
                onity_runtime_stats(r, &mut s)
            }),
        ),
        ("site_report", Box::new(|| onity_runtime_site_report(r, 0, lines, 0, np))),
        ("batch_tick", Box::new(|| onity_batch_tick(r, rt.b, UPDATE))),
        ("batch_drain", Box::new(|| onity_batch_drain(r, rt.b))),
        ("batch_flush", Box::new(|| onity_batch_flush(r, rt.b))),
        ("batch_cancel_pass", Box::new(|| onity_batch_cancel_pass(r, rt.b, UPDATE))),
        ("batch_deferred_frame", Box::new(|| onity_batch_deferred_frame(r, rt.b, dp))),
        ("batch_frame_ring", Box::new(|| onity_batch_frame_ring(r, rt.b, dp, np))),
        (
            "runtime_frame_clock",
            Box::new(|| {
                let mut c = ptr::null();
                onity_runtime_frame_clock(r, &mut c)
            }),
        ),
        (
            "batch_create",
            Box::new(|| {
                let mut b = ptr::null_mut();
                let st = onity_batch_create(r, 4, &mut b);
                assert_eq!(onity_batch_destroy(r, b), OnityStatus::Ok);
                st
            }),
        ),
        ("yield", Box::new(|| onity_yield(r, UPDATE, 0, tp))),
        ("next_frame", Box::new(|| onity_next_frame(r, UPDATE, 0, tp))),
        ("delay_frame", Box::new(|| onity_delay_frame(r, 2, UPDATE, 0, tp))),
        ("delay", Box::new(|| onity_delay(r, 1.0, SCALED, UPDATE, 0, tp))),
        ("yield_then", Box::new(|| onity_yield_then(r, UPDATE, 0, Some(nop), ptr::null_mut()))),
        ("next_frame_then", Box::new(|| onity_next_frame_then(r, UPDATE, 0, Some(nop), ptr::null_mut()))),
        ("delay_frame_then", Box::new(|| onity_delay_frame_then(r, 2, UPDATE, 0, Some(nop), ptr::null_mut()))),
        ("delay_then", Box::new(|| onity_delay_then(r, 1.0, SCALED, UPDATE, 0, Some(nop), ptr::null_mut()))),
        ("yield_at", Box::new(|| onity_yield_at(r, UPDATE, 0, tp, file, 1))),
        ("next_frame_at", Box::new(|| onity_next_frame_at(r, UPDATE, 0, tp, file, 1))),
        ("delay_frame_at", Box::new(|| onity_delay_frame_at(r, 2, UPDATE, 0, tp, file, 1))),
        ("delay_at", Box::new(|| onity_delay_at(r, 1.0, SCALED, UPDATE, 0, tp, file, 1))),
        ("yield_then_at", Box::new(|| onity_yield_then_at(r, UPDATE, 0, Some(nop), ptr::null_mut(), file, 1))),
        (
            "next_frame_then_at",
            Box::new(|| onity_next_frame_then_at(r, UPDATE, 0, Some(nop), ptr::null_mut(), file, 1)),
        ),
        (
            "delay_frame_then_at",
            Box::new(|| onity_delay_frame_then_at(r, 2, UPDATE, 0, Some(nop), ptr::null_mut(), file, 1)),
        ),
        (
            "delay_then_at",
            Box::new(|| onity_delay_then_at(r, 1.0, SCALED, UPDATE, 0, Some(nop), ptr::null_mut(), file, 1)),
        ),
        ("yield_then_id", Box::new(|| onity_yield_then_id(r, UPDATE, 0, Some(nop), sp))),
        // SAFETY (the three below): in bounds of `slots`.
        ("next_frame_then_id", Box::new(|| onity_next_frame_then_id(r, UPDATE, 0, Some(nop), unsafe { sp.add(1) }))),
        (
            "delay_frame_then_id",
            Box::new(|| onity_delay_frame_then_id(r, 2, UPDATE, 0, Some(nop), unsafe { sp.add(2) })),
        ),
        ("delay_then_id", Box::new(|| onity_delay_then_id(r, 1.0, SCALED, UPDATE, 0, Some(nop), unsafe { sp.add(3) }))),
        ("task_create_at", Box::new(|| onity_task_create_at(r, tp, file, 1))),
        ("task_from_result_at", Box::new(|| onity_task_from_result_at(r, 1, tp, file, 1))),
        ("when_any_at", Box::new(|| onity_when_any_at(r, inputs.as_ptr(), 2, 0, tp, file, 1))),
        ("when_all_at", Box::new(|| onity_when_all_at(r, inputs.as_ptr(), 2, 0, tp, file, 1))),
        ("frame_alloc_rewind", Box::new(|| onity_frame_alloc_rewind(r))),
        ("trace_start", Box::new(|| onity_trace_start(r, 0, 0))),
        ("trace_stop", Box::new(|| onity_trace_stop(r))),
        ("trace_counts", Box::new(|| onity_trace_counts(r, ptr::null_mut(), ptr::null_mut()))),
        ("trace_dump", Box::new(|| onity_trace_dump(r, ptr::null_mut(), 0, lenp))),
    ];
    let mut frame = 1000;
    for (name, call) in &calls {
        frame += 1;
        rt.defer(frame);
        let _ = call(); // its own status is not the point (a combinator of consumed inputs fails)
        assert_eq!(rt.pending(), 0, "onity_{name} left the frame deferred");
        assert_eq!(rt.take_status(), 0, "onity_{name}: frame {frame} refused");
    }
    assert_eq!(rt.frame(), frame);
    // An explicit begin applies the deferred frame first, then begins its own.
    rt.defer(frame + 1);
    assert_eq!(onity_runtime_frame_begin(r, &info(frame + 2)), OnityStatus::Ok);
    assert_eq!((rt.pending(), rt.take_status(), rt.frame()), (0, 0, frame + 2));
}

#[test]
fn binding_checks_its_arguments_and_a_destroyed_batch_unbinds() {
    let rt = Rt::new();
    let mut d = ptr::null_mut();
    assert_eq!(onity_batch_deferred_frame(ptr::null_mut(), rt.b, &mut d), OnityStatus::NullPointer);
    assert_eq!(onity_batch_deferred_frame(rt.rt, ptr::null_mut(), &mut d), OnityStatus::NullPointer);
    assert_eq!(onity_batch_deferred_frame(rt.rt, rt.b, ptr::null_mut()), OnityStatus::NullPointer);
    let mut other = ptr::null_mut();
    assert_eq!(onity_batch_create(rt.rt, 8, &mut other), OnityStatus::Ok);
    assert_eq!(onity_batch_deferred_frame(rt.rt, 8 as *mut OnityBatch, &mut d), OnityStatus::InvalidHandle);
    let p = rt.rt as usize;
    let b = rt.b as usize;
    std::thread::spawn(move || {
        let mut d = ptr::null_mut();
        assert_eq!(
            onity_batch_deferred_frame(p as *mut OnityRuntime, b as *mut OnityBatch, &mut d),
            OnityStatus::WrongThread
        );
    })
    .join()
    .unwrap();
    // Bound to `other`, then `other` destroyed: the splits count nothing,
    // every record is filed with the previous frame.
    assert_eq!(onity_batch_deferred_frame(rt.rt, other, &mut d), OnityStatus::Ok);
    assert_eq!(d, rt.d);
    assert_eq!(onity_batch_destroy(rt.rt, other), OnityStatus::Ok);
    rt.defer(1);
    rt.tick();
    rt.fast(1, 1);
    rt.defer(2);
    // SAFETY: the runtime's deferred frame, owner thread, between calls.
    unsafe { (*rt.d).fast_split = 0 };
    assert_eq!(rt.tick(), vec![1]);
}

/// The trace as JSON (a call: applies a pending frame).
fn trace_json(r: *mut OnityRuntime) -> String {
    let mut len = 0usize;
    assert_eq!(onity_trace_dump(r, ptr::null_mut(), 0, &mut len), OnityStatus::Ok);
    let mut buf = vec![0u8; len];
    assert_eq!(onity_trace_dump(r, buf.as_mut_ptr() as *mut _, len, &mut len), OnityStatus::Ok);
    String::from_utf8(buf).unwrap()
}

/// Whether the frame-2 marker comes before the explicit rewind in the trace.
fn rewind_after_frame_2(json: &str) -> bool {
    let marker = json.find("\"args\":{\"frame\":2}").expect("frame 2 marker");
    let rewind = json.find("frame allocator rewind").expect("rewind event");
    marker < rewind
}

#[test]
fn an_explicit_rewind_after_the_begin_is_traced_in_the_new_frame() {
    // Control: the call.
    let rt = Rt::new();
    rt.defer(1);
    rt.tick();
    assert_eq!(onity_trace_start(rt.rt, 64, ONITY_TRACE_RUNS), OnityStatus::Ok);
    assert_eq!(onity_runtime_frame_begin(rt.rt, &info(2)), OnityStatus::Ok);
    assert_eq!(onity_frame_alloc_rewind(rt.rt), OnityStatus::Ok);
    rt.tick();
    assert!(rewind_after_frame_2(&trace_json(rt.rt)), "with a call");
    // Deferred: the rewind reads the frame (its trace event goes after the
    // frame marker), so it applies the frame first.
    let rt = Rt::new();
    rt.defer(1);
    rt.tick();
    assert_eq!(onity_trace_start(rt.rt, 64, ONITY_TRACE_RUNS), OnityStatus::Ok);
    rt.defer(2);
    assert_eq!(onity_frame_alloc_rewind(rt.rt), OnityStatus::Ok);
    let applied = rt.pending() == 0;
    rt.tick();
    assert!(rewind_after_frame_2(&trace_json(rt.rt)), "deferred: {}", trace_json(rt.rt));
    assert!(applied, "onity_frame_alloc_rewind left the frame deferred");
}

static FRAME_SEEN_AT_DESTROY: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// A callback wait canceled by the destroy: reads the frame (a call that
/// depends on it) while the runtime closes.
unsafe extern "C" fn read_frame_at_destroy(user: *mut std::ffi::c_void, _id: u64, _state: u32) {
    let r = user as *mut OnityRuntime;
    // SAFETY: OnityStats is plain data; zero is a valid value.
    let mut s: OnityStats = unsafe { std::mem::zeroed() };
    s.size = std::mem::size_of::<OnityStats>() as u32;
    let st = onity_runtime_stats(r, &mut s);
    FRAME_SEEN_AT_DESTROY
        .store(if st == OnityStatus::Ok { s.frame } else { u64::MAX }, std::sync::atomic::Ordering::SeqCst);
}

static DESTROY_INSIDE: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// A continuation that tries to destroy its runtime (refused: `REENTRANT`).
unsafe extern "C" fn destroy_inside(user: *mut std::ffi::c_void, _id: u64, _state: u32) {
    let st = onity_runtime_destroy(user as *mut OnityRuntime);
    DESTROY_INSIDE.store(st as u32, std::sync::atomic::Ordering::SeqCst);
}

#[test]
fn a_frame_deferred_at_destroy_is_dropped_even_if_a_canceled_callback_reads_the_frame() {
    let rt = Rt::new();
    rt.defer(1);
    rt.tick();
    // A refused destroy leaves the frame deferred.
    let mut t = 0;
    assert_eq!(onity_task_create(rt.rt, &mut t), OnityStatus::Ok);
    assert_eq!(onity_task_on_complete(rt.rt, t, Some(destroy_inside), rt.rt as *mut _), OnityStatus::Ok);
    rt.defer(2);
    assert_eq!(onity_task_set_result(rt.rt, t, 0), OnityStatus::Ok);
    assert_eq!(DESTROY_INSIDE.load(std::sync::atomic::Ordering::SeqCst), OnityStatus::Reentrant as u32);
    assert_eq!(rt.pending(), 1, "kept by the refused destroy");
    assert_eq!(rt.frame(), 2);
    let mut out = OnityOutcome { value: 0, error: 0, state: 0, index: 0, reserved: 0 };
    assert_eq!(onity_task_consume(rt.rt, t, &mut out), OnityStatus::Ok);
    rt.tick();
    assert_eq!(onity_next_frame_then(rt.rt, UPDATE, 0, Some(read_frame_at_destroy), rt.rt as *mut _), OnityStatus::Ok);
    rt.fast(7, 1);
    rt.defer(3);
    let r = rt.rt;
    std::mem::forget(rt);
    assert_eq!(onity_runtime_destroy(r), OnityStatus::Ok);
    let seen = FRAME_SEEN_AT_DESTROY.load(std::sync::atomic::Ordering::SeqCst);
    assert_eq!(seen, 2, "the deferred frame was applied while closing");
}

/// Appends a request record to the batch (the host's plain writes).
fn request(b: *mut OnityBatch, id: u64, kind: OnityWaitKind) {
    // SAFETY: live batch, owner thread, between calls.
    unsafe {
        let bb = &mut *b;
        assert!(bb.submit_count < bb.submit_capacity);
        *bb.submit.add(bb.submit_count as usize) = OnityBatchRecord {
            id,
            token: 0,
            arg: 0,
            kind: kind as u8,
            timing: UPDATE as u8,
            clock: 0,
            reserved: [0; 5],
        };
        bb.submit_count += 1;
    }
}

/// Reads and consumes the batch's request resumptions (ids).
fn resumed(b: *mut OnityBatch) -> Vec<u64> {
    // SAFETY: live batch, between calls.
    unsafe {
        let bb = &mut *b;
        let v = (0..bb.resumed_count as usize).map(|i| (*bb.resumed.add(i)).id).collect();
        bb.resumed_consumed = bb.resumed_count;
        v
    }
}

#[test]
fn requests_split_at_the_begin_keep_their_frames_and_their_order() {
    let rt = Rt::new();
    rt.defer(1);
    rt.tick();
    request(rt.b, 20, OnityWaitKind::NextFrame); // frame 1: due in frame 2
    request(rt.b, 21, OnityWaitKind::Yield);
    rt.defer(2);
    request(rt.b, 22, OnityWaitKind::NextFrame); // frame 2: due in frame 3
    request(rt.b, 23, OnityWaitKind::Yield);
    rt.fast(30, 1); // fast lane, frame 2: due in frame 3
    rt.tick();
    assert_eq!(resumed(rt.b), vec![20, 21, 23]);
    rt.defer(3);
    assert_eq!(rt.tick(), vec![30]);
    assert_eq!(resumed(rt.b), vec![22]);
    // A flush (a full buffer) between the begin and the tick applies the frame with the same split.
    request(rt.b, 24, OnityWaitKind::NextFrame); // frame 3: due in frame 4
    rt.defer(4);
    request(rt.b, 25, OnityWaitKind::NextFrame); // frame 4: due in frame 5
    assert_eq!(onity_batch_flush(rt.rt, rt.b), OnityStatus::Ok);
    // SAFETY: live batch.
    assert_eq!(unsafe { (*rt.b).submit_count }, 0);
    rt.tick();
    assert_eq!(resumed(rt.b), vec![24]);
    rt.defer(5);
    rt.tick();
    assert_eq!(resumed(rt.b), vec![25]);
}
