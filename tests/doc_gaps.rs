//! Issue 17, "Header and README gaps": today's behaviour where it is the
//! intended one, pinned so that the wording in docs/issue17-doc-gaps.md
//! (applied to the doc comments in src/ffi by phase B) stays true. One test
//! per gap; the gap's number in that file is in each test's name. Gap 17
//! (exports whose statuses the header did not state) has its tests last.

mod support;

use std::cell::Cell;
use std::ffi::c_void;
use std::ptr;

use onity::ffi::*;
use support::*;

const UPDATE: u32 = OnityTiming::Update as u32;
const PENDING: u32 = OnityTaskState::Pending as u32;
const SUCCEEDED: u32 = OnityTaskState::Succeeded as u32;
const CANCELED: u32 = OnityTaskState::Canceled as u32;

fn state(rt: *mut OnityRuntime, h: u64) -> u32 {
    let mut s = 99;
    assert_eq!(onity_task_state(rt, h, &mut s), S::Ok);
    s
}

fn task(rt: *mut OnityRuntime) -> u64 {
    let mut h = 0;
    assert_eq!(onity_task_create(rt, &mut h), S::Ok);
    h
}

unsafe extern "C" fn nop(_user: *mut c_void, _task: u64, _state: u32) {}

thread_local! {
    static SEEN: Cell<(u32, S)> = const { Cell::new((0, S::Ok)) };
}

/// Destroys the runtime `user` points at, from inside another runtime's continuation.
unsafe extern "C" fn destroy_other(user: *mut c_void, _task: u64, _state: u32) {
    let s = onity_runtime_destroy(user as *mut OnityRuntime);
    SEEN.with(|c| c.set((c.get().0 + 1, s)));
}

/// Gap 1: REENTRANT is about the runtime whose continuation, callback or
/// tick is running: runtime A's continuation may destroy runtime B (which
/// cancels B's work and runs B's continuations), not A.
#[test]
fn gap01_destroy_from_another_runtimes_continuation() {
    let a = runtime();
    let b = runtime();
    let bt = task(b);
    assert_eq!(onity_task_on_complete(b, bt, Some(nop), ptr::null_mut()), S::Ok);
    let at = task(a);
    assert_eq!(onity_task_on_complete(a, at, Some(destroy_other), b as *mut c_void), S::Ok);
    assert_eq!(onity_task_set_result(a, at, 1), S::Ok);
    assert_eq!(SEEN.with(|c| c.get()), (1, S::Ok), "B destroyed from A's continuation");
    let mut h = 0;
    assert_eq!(onity_task_create(b, &mut h), S::InvalidRuntime, "B is gone");
    // A's own destroy from its continuation is refused.
    let at2 = task(a);
    assert_eq!(onity_task_on_complete(a, at2, Some(destroy_other), a as *mut c_void), S::Ok);
    assert_eq!(onity_task_set_result(a, at2, 1), S::Ok);
    assert_eq!(SEEN.with(|c| c.get()), (2, S::Reentrant));
    assert_eq!(onity_runtime_destroy(a), S::Ok);
}

/// Gap 2: "awaited" is permanent: once a continuation was registered, even
/// after it ran, the task takes no other continuation and no combinator.
#[test]
fn gap02_awaited_is_permanent() {
    let rt = runtime();
    let h = task(rt);
    assert_eq!(onity_task_on_complete(rt, h, Some(nop), ptr::null_mut()), S::Ok);
    assert_eq!(onity_task_set_result(rt, h, 5), S::Ok); // the continuation ran (and did not consume)
    assert_eq!(onity_task_on_complete(rt, h, Some(nop), ptr::null_mut()), S::AlreadyAwaited);
    let mut w = 0;
    assert_eq!(onity_when_any(rt, &h, 1, 0, &mut w), S::AlreadyAwaited);
    assert_eq!(onity_when_all(rt, &h, 1, 0, &mut w), S::AlreadyAwaited);
    let mut o = outcome();
    assert_eq!(onity_task_consume(rt, h, &mut o), S::Ok, "consuming is still allowed");
    assert_eq!((o.state, o.value), (SUCCEEDED, 5));
    assert_eq!(onity_runtime_destroy(rt), S::Ok);
}

/// Gap 3: consuming a pending task that has a continuation is
/// ALREADY_AWAITED (the continuation owns it), not TASK_PENDING.
#[test]
fn gap03_consume_pending_with_continuation() {
    let rt = runtime();
    let (h, plain) = (task(rt), task(rt));
    assert_eq!(onity_task_on_complete(rt, h, Some(nop), ptr::null_mut()), S::Ok);
    assert_eq!(onity_task_consume(rt, h, ptr::null_mut()), S::AlreadyAwaited);
    assert_eq!(onity_task_consume(rt, plain, ptr::null_mut()), S::TaskPending);
    assert_eq!(onity_runtime_destroy(rt), S::Ok);
}

/// Gap 4: a combinator consumes each input as it completes: the input's
/// handle is then stale (completing it again: STALE_HANDLE, not
/// ALREADY_COMPLETED).
#[test]
fn gap04_combinator_inputs_are_retired_when_they_complete() {
    let rt = runtime();
    let ins = [task(rt), task(rt)];
    let mut all = 0;
    assert_eq!(onity_when_all(rt, ins.as_ptr(), 2, 0, &mut all), S::Ok);
    assert_eq!(onity_task_set_result(rt, ins[0], 1), S::Ok);
    assert_eq!(onity_task_set_result(rt, ins[0], 2), S::StaleHandle);
    let mut s = 0;
    assert_eq!(onity_task_state(rt, ins[0], &mut s), S::StaleHandle);
    assert_eq!(state(rt, ins[1]), PENDING, "a pending input is still readable");
    assert_eq!(onity_task_consume(rt, ins[1], ptr::null_mut()), S::AlreadyAwaited);
    assert_eq!(onity_runtime_destroy(rt), S::Ok);
}

/// Gap 5: canceling a WhenAny input (`onity_task_cancel`) completes the
/// WhenAny as canceled, with `index` = that input.
#[test]
fn gap05_canceling_an_input_cancels_the_when_any() {
    let rt = runtime();
    let ins = [task(rt), task(rt), task(rt)];
    let mut any = 0;
    assert_eq!(onity_when_any(rt, ins.as_ptr(), 3, 0, &mut any), S::Ok);
    assert_eq!(onity_task_cancel(rt, ins[1]), S::Ok);
    let mut o = outcome();
    assert_eq!(onity_task_consume(rt, any, &mut o), S::Ok);
    assert_eq!((o.state, o.index), (CANCELED, 1));
    assert_eq!(onity_runtime_destroy(rt), S::Ok);
}

fn create_with(f: impl FnOnce(&mut OnityRuntimeConfig)) -> Result<*mut OnityRuntime, S> {
    let mut c = OnityRuntimeConfig::default();
    assert_eq!(onity_runtime_config_init(&mut c, std::mem::size_of::<OnityRuntimeConfig>() as u32), S::Ok);
    f(&mut c);
    let mut p = ptr::null_mut();
    match onity_runtime_create(&c, &mut p) {
        S::Ok => Ok(p),
        s => Err(s),
    }
}

/// Gap 6: `onity_runtime_config_init` sets `frame_alloc_max_chunk_bytes`
/// to 64 MiB, so raising `frame_alloc_chunk_bytes` above it alone is
/// INVALID_ARGUMENT; with `max_chunk_bytes` 0 (or >= the chunk) it is
/// accepted.
#[test]
fn gap06_chunk_bytes_above_the_default_max_chunk() {
    let mut c = OnityRuntimeConfig::default();
    assert_eq!(onity_runtime_config_init(&mut c, std::mem::size_of::<OnityRuntimeConfig>() as u32), S::Ok);
    assert_eq!(c.frame_alloc_max_chunk_bytes, 64 << 20);
    assert_eq!(create_with(|c| c.frame_alloc_chunk_bytes = 128 << 20).err(), Some(S::InvalidArgument));
    for max in [0, 128 << 20] {
        let rt = create_with(|c| {
            c.frame_alloc_chunk_bytes = 128 << 20;
            c.frame_alloc_max_chunk_bytes = max;
        })
        .expect("accepted");
        assert_eq!(onity_runtime_destroy(rt), S::Ok);
    }
}

/// Gap 7: capacities are not range-checked: task and cancellation-source
/// capacities above 4,194,304 (the most slots of a runtime) act as
/// 4,194,304 and are allocated up front (about 80 and 16 bytes a slot);
/// `wait_capacity` and the combinator capacities only bound what is kept
/// after a burst; `frame_alloc_first_block_bytes` is not checked either (a
/// block is never smaller than the request).
#[test]
fn gap07_capacities_without_a_range() {
    let rt = create_with(|c| {
        c.cancel_capacity = u32::MAX;
        c.wait_capacity = u32::MAX;
        c.combinator16_capacity = u32::MAX;
        c.combinator32_capacity = u32::MAX;
        c.frame_alloc_first_block_bytes = 1 << 20;
    })
    .expect("accepted");
    let st = stats(rt);
    assert_eq!(st.pools[OnityPool::CancelSources as usize].capacity, 1 << 22);
    // Wait records: the storage allocated (two vectors of 256 per timing at first).
    assert_eq!(st.pools[OnityPool::WaitRecords as usize].capacity, 16 * 2 * 256);
    assert_eq!(st.pools[OnityPool::WhenAny16 as usize].capacity, u32::MAX as u64);
    assert_eq!(onity_runtime_destroy(rt), S::Ok);
    let rt = create_with(|c| c.frame_alloc_first_block_bytes = u64::MAX).expect("accepted");
    let mut p = ptr::null_mut();
    let s = onity_frame_alloc(rt, 64, 8, 0, &mut p);
    assert!(matches!(s, S::Ok | S::OutOfMemory), "{s:?}");
    assert_eq!(onity_runtime_destroy(rt), S::Ok);
}

/// Gap 9: `OnityFrameInfo`: `reserved` is ignored (any value accepted);
/// `realtime` must be finite (else INVALID_ARGUMENT) but may go backwards,
/// which holds realtime Delays back (they compare `realtime` now with
/// `realtime` at their creation).
#[test]
fn gap09_frame_info_rules() {
    let rt = runtime();
    let mut f = frame_info(1, 0.0, 100.0);
    f.reserved = 7;
    assert_eq!(onity_runtime_frame_begin(rt, &f), S::Ok);
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        assert_eq!(onity_runtime_frame_begin(rt, &frame_info(2, 0.0, bad)), S::InvalidArgument);
    }
    let mut d = 0;
    assert_eq!(onity_delay(rt, 1.0, OnityClock::Realtime as u32, UPDATE, 0, &mut d), S::Ok);
    assert_eq!(onity_runtime_frame_begin(rt, &frame_info(2, 0.0, 50.0)), S::Ok, "realtime went backwards");
    assert_eq!(onity_runtime_tick(rt, UPDATE), S::Ok);
    assert_eq!(state(rt, d), PENDING);
    assert_eq!(onity_runtime_frame_begin(rt, &frame_info(3, 0.0, 101.0)), S::Ok);
    assert_eq!(onity_runtime_tick(rt, UPDATE), S::Ok);
    assert_eq!(state(rt, d), SUCCEEDED, "due once realtime is 1 s past its creation value");
    assert_eq!(onity_runtime_destroy(rt), S::Ok);
}

unsafe extern "C" fn drain_inside(user: *mut c_void, _task: u64, _state: u32) {
    let s = onity_runtime_drain(user as *mut OnityRuntime);
    SEEN.with(|c| c.set((c.get().0 + 1, s)));
}

unsafe extern "C" fn tick_inside(user: *mut c_void, _task: u64, _state: u32) {
    let s = onity_runtime_tick(user as *mut OnityRuntime, UPDATE);
    SEEN.with(|c| c.set((c.get().0 + 1, s)));
}

/// Gap 10: a tick before the first `frame_begin` runs that timing (Yields
/// resume; NextFrame waits wait for the first frame); `drain` is allowed
/// inside a tick; a continuation run inline outside a tick (here by
/// `set_result`) may tick, which runs the timing then and there.
#[test]
fn gap10_ticks_and_drains_in_unusual_places() {
    let rt = runtime();
    let (mut y, mut n) = (0, 0);
    assert_eq!(onity_yield(rt, UPDATE, 0, &mut y), S::Ok);
    assert_eq!(onity_next_frame(rt, UPDATE, 0, &mut n), S::Ok);
    assert_eq!(onity_runtime_tick(rt, UPDATE), S::Ok, "tick before the first frame");
    assert_eq!((state(rt, y), state(rt, n)), (SUCCEEDED, PENDING));
    SEEN.with(|c| c.set((0, S::Panic)));
    assert_eq!(onity_yield_then(rt, UPDATE, 0, Some(drain_inside), rt as *mut c_void), S::Ok);
    assert_eq!(onity_runtime_tick(rt, UPDATE), S::Ok);
    assert_eq!(SEEN.with(|c| c.get()), (1, S::Ok), "drain inside a tick");
    let mut y2 = 0;
    assert_eq!(onity_yield(rt, UPDATE, 0, &mut y2), S::Ok);
    let h = task(rt);
    assert_eq!(onity_task_on_complete(rt, h, Some(tick_inside), rt as *mut c_void), S::Ok);
    assert_eq!(onity_task_set_result(rt, h, 1), S::Ok);
    assert_eq!(SEEN.with(|c| c.get()), (2, S::Ok), "tick from an inline continuation");
    assert_eq!(state(rt, y2), SUCCEEDED, "that tick ran Update");
    assert_eq!(onity_runtime_destroy(rt), S::Ok);
}

/// Gap 11: a wait task that completes normally reads SUCCEEDED with value
/// 0, error 0 and index UINT32_MAX.
#[test]
fn gap11_succeeded_wait_outcome() {
    let rt = runtime();
    let mut w = 0;
    assert_eq!(onity_delay_frame(rt, 0, UPDATE, 0, &mut w), S::Ok);
    assert_eq!(onity_runtime_tick(rt, UPDATE), S::Ok);
    let mut o = OnityOutcome { value: 9, error: 9, state: 9, index: 9, reserved: 9 };
    assert_eq!(onity_task_consume(rt, w, &mut o), S::Ok);
    assert_eq!((o.state, o.value, o.error, o.index), (SUCCEEDED, 0, 0, u32::MAX));
    assert_eq!(onity_runtime_destroy(rt), S::Ok);
}

/// Gap 12: `set_result` / `set_error` on a `from_result` task (not a
/// manual source) is INVALID_HANDLE; `onity_task_cancel` on it,
/// ALREADY_COMPLETED.
#[test]
fn gap12_set_result_on_from_result() {
    let rt = runtime();
    let mut h = 0;
    assert_eq!(onity_task_from_result(rt, 4, &mut h), S::Ok);
    assert_eq!(onity_task_set_result(rt, h, 5), S::InvalidHandle);
    assert_eq!(onity_task_set_error(rt, h, 5), S::InvalidHandle);
    assert_eq!(onity_task_cancel(rt, h), S::AlreadyCompleted);
    assert_eq!(onity_runtime_destroy(rt), S::Ok);
}

#[repr(C, align(64))]
struct Zeroed([u8; 256]);

/// Every function taking a runtime, with otherwise valid arguments.
fn every_runtime_function(rt: *mut OnityRuntime) -> Vec<(&'static str, S)> {
    let (mut h, mut n, mut st) = (0u64, 0u32, 0u32);
    let mut b: *mut OnityBatch = ptr::null_mut();
    let mut p: *mut c_void = ptr::null_mut();
    let mut o = [outcome(); 1];
    // SAFETY: OnityStats is plain data.
    let mut s: OnityStats = unsafe { std::mem::zeroed() };
    s.size = std::mem::size_of::<OnityStats>() as u32;
    let fi = frame_info(1, 0.0, 0.0);
    let one = [1u64 << 32 | 1 << 22];
    let mut fake_batch = [0u64; 16];
    let fb = fake_batch.as_mut_ptr() as *mut OnityBatch;
    let mut d: *mut OnityDeferredFrame = ptr::null_mut();
    let mut clock: *const OnityFrameClock = ptr::null();
    let mut idle = OnityTickIdle {
        timings: ptr::null(),
        cross_thread: ptr::null(),
        frame_memory: ptr::null(),
        timing_stride: 0,
        rewind_timing: 0,
    };
    vec![
        ("runtime_destroy", onity_runtime_destroy(rt)),
        ("runtime_frame_begin", onity_runtime_frame_begin(rt, &fi)),
        ("runtime_tick", onity_runtime_tick(rt, UPDATE)),
        ("runtime_drain", onity_runtime_drain(rt)),
        ("runtime_stats", onity_runtime_stats(rt, &mut s)),
        ("runtime_live_tasks", onity_runtime_live_tasks(rt, ptr::null_mut(), 0, &mut n)),
        ("task_create", onity_task_create(rt, &mut h)),
        ("task_from_result", onity_task_from_result(rt, 1, &mut h)),
        ("task_set_result", onity_task_set_result(rt, one[0], 1)),
        ("task_set_error", onity_task_set_error(rt, one[0], 1)),
        ("task_cancel", onity_task_cancel(rt, one[0])),
        ("task_state", onity_task_state(rt, one[0], &mut st)),
        ("task_consume", onity_task_consume(rt, one[0], ptr::null_mut())),
        ("task_on_complete", onity_task_on_complete(rt, one[0], Some(nop), ptr::null_mut())),
        ("yield", onity_yield(rt, UPDATE, 0, &mut h)),
        ("next_frame", onity_next_frame(rt, UPDATE, 0, &mut h)),
        ("delay_frame", onity_delay_frame(rt, 1, UPDATE, 0, &mut h)),
        ("delay", onity_delay(rt, 1.0, 0, UPDATE, 0, &mut h)),
        ("yield_then", onity_yield_then(rt, UPDATE, 0, Some(nop), ptr::null_mut())),
        ("next_frame_then", onity_next_frame_then(rt, UPDATE, 0, Some(nop), ptr::null_mut())),
        ("delay_frame_then", onity_delay_frame_then(rt, 1, UPDATE, 0, Some(nop), ptr::null_mut())),
        ("delay_then", onity_delay_then(rt, 1.0, 0, UPDATE, 0, Some(nop), ptr::null_mut())),
        ("cancel_source_create", onity_cancel_source_create(rt, &mut h)),
        ("cancel_source_cancel", onity_cancel_source_cancel(rt, one[0])),
        ("cancel_source_is_canceled", onity_cancel_source_is_canceled(rt, one[0], &mut st)),
        ("cancel_source_destroy", onity_cancel_source_destroy(rt, one[0])),
        ("when_any", onity_when_any(rt, one.as_ptr(), 1, 0, &mut h)),
        ("when_all", onity_when_all(rt, one.as_ptr(), 1, 0, &mut h)),
        ("when_all_results", onity_when_all_results(rt, one[0], o.as_mut_ptr(), 1)),
        ("batch_create", onity_batch_create(rt, 4, &mut b)),
        ("batch_flush", onity_batch_flush(rt, fb)),
        ("batch_tick", onity_batch_tick(rt, fb, UPDATE)),
        ("batch_drain", onity_batch_drain(rt, fb)),
        ("batch_destroy", onity_batch_destroy(rt, fb)),
        ("batch_deferred_frame", onity_batch_deferred_frame(rt, fb, &mut d)),
        ("batch_idle", onity_batch_idle(rt, fb, &mut idle)),
        ("runtime_frame_clock", onity_runtime_frame_clock(rt, &mut clock)),
        ("frame_alloc", onity_frame_alloc(rt, 16, 8, 0, &mut p)),
        ("frame_alloc_rewind", onity_frame_alloc_rewind(rt)),
    ]
}

/// Gap 13: every function taking a runtime returns NULL_POINTER for a null
/// runtime and INVALID_RUNTIME for a pointer that is not a runtime (checked
/// first, before any other argument), though most error lists omit them.
#[test]
fn gap13_null_and_invalid_runtime_everywhere() {
    let fake = Zeroed([0; 256]);
    let fake = &fake as *const Zeroed as *mut OnityRuntime;
    for (what, rt, want) in [("null", ptr::null_mut(), S::NullPointer), ("zeroed", fake, S::InvalidRuntime)] {
        for (f, s) in every_runtime_function(rt) {
            assert_eq!(s, want, "onity_{f} with a {what} runtime");
        }
    }
    assert_eq!(every_runtime_function(ptr::null_mut()).len(), 39, "every export taking a runtime");
}

/// Gap 14: frame allocator statistics: `blocks` is the blocks held now
/// (they go back to the OS 8 rewinds after a heavier frame), while
/// `os_allocations` counts every block ever allocated (it never drops).
#[test]
fn gap14_blocks_and_os_allocations() {
    let rt = runtime_with(|c| c.frame_alloc_rewind_timing = ONITY_FRAME_ALLOC_REWIND_MANUAL);
    for _ in 0..4 {
        let mut p = ptr::null_mut();
        assert_eq!(onity_frame_alloc(rt, 1 << 20, 64, 0, &mut p), S::Ok);
    }
    let heavy = stats(rt).frame_alloc;
    for _ in 0..20 {
        assert_eq!(onity_frame_alloc_rewind(rt), S::Ok);
    }
    let after = stats(rt).frame_alloc;
    assert!(after.blocks < heavy.blocks, "blocks returned: {} -> {}", heavy.blocks, after.blocks);
    assert_eq!(after.os_allocations, heavy.os_allocations, "os_allocations never drops");
    assert!(heavy.os_allocations >= heavy.blocks);
    assert_eq!(onity_runtime_destroy(rt), S::Ok);
}

/// Gap 15 (decided in phase B): combinators canceled by the same poll
/// complete in creation order, whatever other combinators did before: an
/// outer WhenAny whose input is another canceled WhenAny reports that
/// input's index, also after an unrelated watched combinator completed
/// (which used to reorder the watch list).
#[test]
fn gap15_combinators_canceled_by_one_poll_complete_in_creation_order() {
    for with_x in [false, true] {
        let rt = runtime();
        let (mut t, mut t2) = (0, 0);
        assert_eq!(onity_cancel_source_create(rt, &mut t), S::Ok);
        assert_eq!(onity_cancel_source_create(rt, &mut t2), S::Ok);
        let xin = task(rt);
        let mut x = 0;
        if with_x {
            assert_eq!(onity_when_any(rt, &xin, 1, t2, &mut x), S::Ok);
        }
        let bin = task(rt);
        let mut b = 0;
        assert_eq!(onity_when_any(rt, &bin, 1, t, &mut b), S::Ok);
        let ins = [task(rt), task(rt), b];
        let mut a = 0;
        assert_eq!(onity_when_any(rt, ins.as_ptr(), 3, t, &mut a), S::Ok);
        if with_x {
            assert_eq!(onity_task_set_result(rt, xin, 1), S::Ok);
        }
        assert_eq!(onity_cancel_source_cancel(rt, t), S::Ok);
        assert_eq!(onity_runtime_drain(rt), S::Ok);
        let mut o = outcome();
        assert_eq!(onity_task_consume(rt, a, &mut o), S::Ok);
        assert_eq!((o.state, o.index), (CANCELED, 2), "with X: {with_x}");
        assert_eq!(onity_runtime_destroy(rt), S::Ok);
    }
}

unsafe extern "C" fn consume_into(user: *mut c_void, task: u64, _state: u32) {
    let (rt, out) = *(user as *const (*mut OnityRuntime, *mut OnityOutcome));
    assert_eq!(onity_task_consume(rt, task, out), S::Ok);
}

/// Gap 16 (decided in phase B): destroy completes a pending WhenAll /
/// WhenAny canceled (`index` UINT32_MAX) before it cancels their inputs, so
/// an input's earlier failure or cancellation never shows, whatever the
/// slot order.
#[test]
fn gap16_destroy_cancels_a_pending_combinator_first() {
    for faulted_first in [false, true] {
        let rt = runtime();
        let ins = [task(rt), task(rt)];
        let mut all = 0;
        assert_eq!(onity_when_all(rt, ins.as_ptr(), 2, 0, &mut all), S::Ok);
        let mut o = outcome();
        let ctx = (rt, &mut o as *mut OnityOutcome);
        assert_eq!(onity_task_on_complete(rt, all, Some(consume_into), &ctx as *const _ as *mut c_void), S::Ok);
        assert_eq!(onity_task_set_error(rt, ins[if faulted_first { 0 } else { 1 }], 42), S::Ok);
        assert_eq!(onity_runtime_destroy(rt), S::Ok);
        assert_eq!((o.state, o.error, o.index), (CANCELED, 0, u32::MAX), "faulted first: {faulted_first}");
    }
}

/// Every export's comment in `include/onity.h` (`// ` lines right above its
/// declaration), by name, and whether it returns a status.
fn header_docs() -> Vec<(String, String, bool)> {
    let header = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/include/onity.h")).unwrap();
    let lines: Vec<&str> = header.lines().collect();
    let mut docs = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if !lines[i].starts_with("//") {
            i += 1;
            continue;
        }
        let start = i;
        while i < lines.len() && lines[i].starts_with("//") {
            i += 1;
        }
        // The declaration: the lines up to its `;` (an inline function's `{`).
        let mut decl = String::new();
        for l in &lines[i..] {
            if l.trim().is_empty() || l.starts_with("//") || l.starts_with('#') {
                break;
            }
            decl.push_str(l);
            if l.contains(';') || l.contains('{') {
                break;
            }
        }
        if decl.starts_with("typedef") {
            continue;
        }
        let Some(open) = decl.find('(') else { continue };
        let name = decl[..open].rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).next().unwrap();
        if !name.starts_with("onity_") {
            continue;
        }
        let doc: Vec<&str> = lines[start..i].iter().map(|l| l[2..].trim()).collect();
        docs.push((name.to_owned(), doc.join(" "), decl.starts_with("OnityStatus ")));
    }
    docs
}

/// The status names a doc lists after "Errors:" (backquoted, as in
/// `NULL_POINTER`), and the exports it takes its list from ("errors as
/// `onity_x`", "Errors: as `onity_x`").
fn error_doc(doc: &str) -> (Vec<String>, Vec<String>) {
    // Each status's name in the header (`NullPointer`: `NULL_POINTER`).
    let statuses: Vec<String> = (0..64)
        .filter_map(S::from_u32)
        .map(|s| {
            let name = format!("{s:?}");
            let mut out = String::new();
            for (i, ch) in name.chars().enumerate() {
                if ch.is_ascii_uppercase() && i > 0 {
                    out.push('_');
                }
                out.push(ch.to_ascii_uppercase());
            }
            out
        })
        .collect();
    let lower = doc.to_ascii_lowercase();
    let (mut listed, mut refs) = (Vec::new(), Vec::new());
    for (at, _) in lower.match_indices("errors") {
        let rest = doc[at + "errors".len()..].trim_start_matches(':').trim_start();
        if let Some(r) = rest.strip_prefix("as `onity_") {
            refs.push(format!("onity_{}", &r[..r.find('`').unwrap()]));
        } else if doc[at + "errors".len()..].starts_with(':') {
            // The list: up to the end of its sentence.
            let end = rest.find(". ").unwrap_or(rest.len());
            listed.extend(statuses.iter().filter(|s| rest[..end].contains(&format!("`{s}`"))).cloned());
        }
    }
    (listed, refs)
}

/// The standard "the header documents every status a function can
/// return": every export returning a status lists its errors ("Errors:"
/// with status names) or takes them from another export that does
/// ("errors as `onity_x`", followed to a list, no loop); the others say
/// "Infallible". The statuses every function may return are in the header's
/// opening rule (NULL_POINTER and INVALID_RUNTIME for the runtime,
/// OUT_OF_MEMORY, PANIC); this checks the opening rule names them.
#[test]
fn every_export_documents_its_statuses() {
    let docs = header_docs();
    assert!(docs.len() >= 74, "exports found in include/onity.h: {}", docs.len());
    let header = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/include/onity.h")).unwrap();
    let opening = &header[..header.find("*/").unwrap()];
    let mut gaps: Vec<String> = ["NULL_POINTER", "INVALID_RUNTIME", "OUT_OF_MEMORY", "PANIC"]
        .iter()
        .filter(|s| !opening.contains(*s))
        .map(|s| format!("the opening rule does not name {s}"))
        .collect();
    let by_name: std::collections::HashMap<&str, &str> =
        docs.iter().map(|(n, d, _)| (n.as_str(), d.as_str())).collect();
    for (name, doc, status) in &docs {
        if !status {
            if !doc.contains("Infallible") {
                gaps.push(format!("{name}: returns no status and does not say \"Infallible\""));
            }
            continue;
        }
        // Follow "errors as" until an export that lists its own.
        let mut seen = vec![name.as_str()];
        let mut doc: &str = doc;
        loop {
            let (listed, refs) = error_doc(doc);
            if !listed.is_empty() {
                break;
            }
            let Some(next) = refs.first() else {
                gaps.push(format!("{}: lists no statuses and refers to no other export's list", seen.join(" -> ")));
                break;
            };
            let Some(d) = by_name.get(next.as_str()) else {
                gaps.push(format!("{}: refers to {next}, which is not in the header", seen.join(" -> ")));
                break;
            };
            if seen.contains(&next.as_str()) {
                gaps.push(format!("{} -> {next}: a loop", seen.join(" -> ")));
                break;
            }
            seen.push(by_name.get_key_value(next.as_str()).unwrap().0);
            doc = d;
        }
    }
    assert!(gaps.is_empty(), "exports whose statuses the header does not document:\n{}", gaps.join("\n"));
}

/// The statuses `onity_yield_then` now lists (the other `_then` forms and
/// the `_then_at` forms take its list), each provoked on every `_then`
/// form: NULL_POINTER (callback), INVALID_ARGUMENT (timing),
/// STALE_HANDLE (token), WRONG_THREAD; and no task is made by any of them.
#[test]
fn then_forms_return_their_listed_statuses() {
    let rt = runtime();
    let mut src = 0;
    assert_eq!(onity_cancel_source_create(rt, &mut src), S::Ok);
    assert_eq!(onity_cancel_source_destroy(rt, src), S::Ok);
    let forms = |rt: *mut OnityRuntime, timing: u32, token: u64, f: OnityCallback| -> [S; 4] {
        let u = ptr::null_mut();
        [
            onity_yield_then(rt, timing, token, f, u),
            onity_next_frame_then(rt, timing, token, f, u),
            onity_delay_frame_then(rt, 3, timing, token, f, u),
            onity_delay_then(rt, 1.0, 0, timing, token, f, u),
        ]
    };
    assert_eq!(forms(rt, UPDATE, 0, None), [S::NullPointer; 4]);
    assert_eq!(forms(rt, 16, 0, Some(nop)), [S::InvalidArgument; 4]);
    assert_eq!(forms(rt, UPDATE, src, Some(nop)), [S::StaleHandle; 4]);
    let rt_addr = rt as usize;
    let other = std::thread::spawn(move || forms(rt_addr as *mut OnityRuntime, UPDATE, 0, Some(nop)));
    assert_eq!(other.join().unwrap(), [S::WrongThread; 4]);
    assert_eq!(onity_delay_then(rt, -1.0, 0, UPDATE, 0, Some(nop), ptr::null_mut()), S::InvalidArgument);
    assert_eq!(forms(rt, UPDATE, 0, Some(nop)), [S::Ok; 4]);
    let mut n = 0;
    assert_eq!(onity_runtime_live_tasks(rt, ptr::null_mut(), 0, &mut n), S::Ok);
    assert_eq!(n, 0, "a callback wait takes no task");
    assert_eq!(onity_runtime_destroy(rt), S::Ok);
}

/// `onity_when_all_results` with another runtime's WhenAll is
/// FOREIGN_HANDLE (its list named it not), and writes nothing.
#[test]
fn when_all_results_of_another_runtime() {
    let (a, b) = (runtime(), runtime());
    let ins = [task(a)];
    let mut all = 0;
    assert_eq!(onity_when_all(a, ins.as_ptr(), 1, 0, &mut all), S::Ok);
    assert_eq!(onity_task_set_result(a, ins[0], 3), S::Ok);
    let mut o = [OnityOutcome { value: 9, error: 9, state: 9, index: 9, reserved: 9 }];
    assert_eq!(onity_when_all_results(b, all, o.as_mut_ptr(), 1), S::ForeignHandle);
    assert_eq!(o[0].value, 9, "nothing written");
    assert_eq!(onity_when_all_results(a, all, o.as_mut_ptr(), 1), S::Ok);
    assert_eq!((o[0].state, o[0].value), (SUCCEEDED, 3));
    assert_eq!(onity_runtime_destroy(b), S::Ok);
    assert_eq!(onity_runtime_destroy(a), S::Ok);
}

/// A `_then_at` form made while site capture is on is a task wait: with the
/// task table full it is EXHAUSTED (its doc: "errors as `onity_x_then`,
/// plus `EXHAUSTED`"), while the `_then` form and the `_then_at` form with
/// capture off take no task and succeed.
#[test]
fn then_at_forms_with_capture_on_need_a_task() {
    let rt = runtime_with(|c| c.task_capacity = u32::MAX);
    let mut made = 0u64;
    loop {
        let mut h = 0;
        match onity_task_create(rt, &mut h) {
            S::Ok => made += 1,
            s => {
                assert_eq!(s, S::Exhausted, "after {made} tasks");
                break;
            }
        }
    }
    assert_eq!(made, 1 << 22, "the task table's size");
    let file = c"doc_gaps.rs".as_ptr();
    let at = |rt| -> [S; 4] {
        let u = ptr::null_mut();
        [
            onity_yield_then_at(rt, UPDATE, 0, Some(nop), u, file, 1),
            onity_next_frame_then_at(rt, UPDATE, 0, Some(nop), u, file, 2),
            onity_delay_frame_then_at(rt, 3, UPDATE, 0, Some(nop), u, file, 3),
            onity_delay_then_at(rt, 1.0, 0, UPDATE, 0, Some(nop), u, file, 4),
        ]
    };
    assert_eq!(at(rt), [S::Ok; 4], "capture off: callback waits");
    assert_eq!(onity_runtime_set_site_capture(rt, 1), S::Ok);
    assert_eq!(at(rt), [S::Exhausted; 4], "capture on: task waits");
    assert_eq!(onity_yield_then(rt, UPDATE, 0, Some(nop), ptr::null_mut()), S::Ok, "the plain form");
    assert_eq!(onity_runtime_destroy(rt), S::Ok);
}
