//! Batches: waits submitted through shared memory, resumptions reported in
//! one call per timing.

use std::ptr;

use onity::ffi::*;

const UPDATE: u8 = OnityTiming::Update as u8;

mod support;
use support::Rt;

fn submit(b: *mut OnityBatch, id: u64, kind: u8, timing: u8, arg: u64, token: u64) {
    // SAFETY: live batch; this is what a host does with plain writes.
    unsafe {
        let bb = &mut *b;
        assert!(bb.submit_count < bb.submit_capacity);
        *bb.submit.add(bb.submit_count as usize) =
            OnityBatchRecord { id, token, arg, kind, timing, clock: 0, reserved: [0; 5] };
        bb.submit_count += 1;
    }
}

/// Reads and consumes the resumptions.
fn take(b: *mut OnityBatch) -> Vec<(u64, u32, u32)> {
    // SAFETY: live batch, between calls.
    unsafe {
        let bb = &mut *b;
        let v = (0..bb.resumed_count as usize)
            .map(|i| {
                let r = *bb.resumed.add(i);
                (r.id, r.state, r.status)
            })
            .collect();
        bb.resumed_consumed = bb.resumed_count;
        v
    }
}

fn batch(rt: &Rt, cap: u32) -> *mut OnityBatch {
    let mut b = ptr::null_mut();
    assert_eq!(onity_batch_create(rt.0, cap, &mut b), OnityStatus::Ok);
    b
}

const OK: u32 = OnityStatus::Ok as u32;
const SUCC: u32 = OnityTaskState::Succeeded as u32;

#[test]
fn next_frame_and_yield_resume_through_the_batch_in_order() {
    let rt = Rt::new();
    let b = batch(&rt, 64);
    rt.frame_dt(1, 0.5);
    assert_eq!(onity_batch_tick(rt.0, b, UPDATE as u32), OnityStatus::Ok);
    // Written during frame 1 after Update ran: NextFrame resumes in frame 2.
    submit(b, 10, OnityWaitKind::NextFrame as u8, UPDATE, 0, 0);
    submit(b, 11, OnityWaitKind::Yield as u8, UPDATE, 0, 0);
    submit(b, 12, OnityWaitKind::DelayFrame as u8, UPDATE, 2, 0);
    submit(b, 13, OnityWaitKind::Delay as u8, UPDATE, 0.75f64.to_bits(), 0);
    assert_eq!(onity_batch_tick(rt.0, b, OnityTiming::LastUpdate as u32), OnityStatus::Ok);
    assert!(take(b).is_empty());
    // Filed by frame_begin with the frame they were written in.
    rt.frame_dt(2, 0.5);
    assert_eq!(onity_batch_tick(rt.0, b, UPDATE as u32), OnityStatus::Ok);
    assert_eq!(take(b), vec![(10, SUCC, OK), (11, SUCC, OK)]);
    rt.frame_dt(3, 0.5);
    assert_eq!(onity_batch_tick(rt.0, b, UPDATE as u32), OnityStatus::Ok);
    assert_eq!(take(b), vec![(12, SUCC, OK), (13, SUCC, OK)]);
}

#[test]
fn unconsumed_resumptions_are_kept() {
    let rt = Rt::new();
    let b = batch(&rt, 8);
    submit(b, 1, OnityWaitKind::Yield as u8, UPDATE, 0, 0);
    submit(b, 2, OnityWaitKind::Yield as u8, UPDATE, 0, 0);
    assert_eq!(onity_batch_tick(rt.0, b, UPDATE as u32), OnityStatus::Ok);
    // SAFETY: live batch.
    unsafe { (*b).resumed_consumed = 1 };
    submit(b, 3, OnityWaitKind::Yield as u8, UPDATE, 0, 0);
    assert_eq!(onity_batch_tick(rt.0, b, UPDATE as u32), OnityStatus::Ok);
    assert_eq!(take(b), vec![(2, SUCC, OK), (3, SUCC, OK)]);
    assert_eq!(onity_batch_tick(rt.0, b, UPDATE as u32), OnityStatus::Ok);
    assert!(take(b).is_empty());
}

#[test]
fn bad_records_are_rejected_with_a_status() {
    let rt = Rt::new();
    let b = batch(&rt, 8);
    submit(b, 1, 9, UPDATE, 0, 0);
    submit(b, 2, OnityWaitKind::Yield as u8, 16, 0, 0);
    submit(b, 3, OnityWaitKind::Yield as u8, UPDATE, 0, 12345);
    submit(b, 4, ONITY_BATCH_TASK, 0, 0, 0);
    submit(b, 5, OnityWaitKind::Delay as u8, UPDATE, (-1.0f64).to_bits(), 0);
    // A DelayFrame count beyond u32 (onity_delay_frame's range) was clamped silently.
    submit(b, 6, OnityWaitKind::DelayFrame as u8, UPDATE, u32::MAX as u64 + 1, 0);
    assert_eq!(onity_batch_flush(rt.0, b), OnityStatus::Ok);
    let f = OnityTaskState::Faulted as u32;
    assert_eq!(
        take(b),
        vec![
            (1, f, OnityStatus::InvalidArgument as u32),
            (2, f, OnityStatus::InvalidArgument as u32),
            (3, f, OnityStatus::InvalidHandle as u32),
            (4, f, OnityStatus::InvalidHandle as u32),
            (5, f, OnityStatus::InvalidArgument as u32),
            (6, f, OnityStatus::CountOutOfRange as u32),
        ]
    );
    // A drain drops the resumptions consumed above.
    assert_eq!(onity_batch_drain(rt.0, b), OnityStatus::Ok);
    // The largest count is accepted; a bad clock byte is refused whatever the kind.
    submit(b, 7, OnityWaitKind::DelayFrame as u8, UPDATE, u32::MAX as u64, 0);
    // SAFETY: live batch; the host's plain writes.
    unsafe {
        let bb = &mut *b;
        *bb.submit.add(bb.submit_count as usize) = OnityBatchRecord {
            id: 8,
            token: 0,
            arg: 0,
            kind: OnityWaitKind::Yield as u8,
            timing: UPDATE,
            clock: 9,
            reserved: [0; 5],
        };
        bb.submit_count += 1;
    }
    assert_eq!(onity_batch_flush(rt.0, b), OnityStatus::Ok);
    assert_eq!(take(b), vec![(8, f, OnityStatus::InvalidArgument as u32)]);
    assert_eq!(onity_batch_tick(rt.0, ptr::null_mut(), UPDATE as u32), OnityStatus::NullPointer);
    let mut other = ptr::null_mut();
    let rt2 = Rt::new();
    assert_eq!(onity_batch_create(rt2.0, 4, &mut other), OnityStatus::Ok);
    assert_eq!(onity_batch_tick(rt.0, other, UPDATE as u32), OnityStatus::InvalidHandle);
    assert_eq!(onity_batch_create(rt.0, 0, &mut other), OnityStatus::CountOutOfRange);
    let mut dead = ptr::null_mut();
    assert_eq!(onity_runtime_create(ptr::null(), &mut dead), OnityStatus::Ok);
    assert_eq!(onity_runtime_destroy(dead), OnityStatus::Ok);
    assert_eq!(onity_batch_create(dead, 4, &mut other), OnityStatus::InvalidRuntime);
}

#[test]
fn task_records_resume_when_a_worker_completes_the_task() {
    let rt = Rt::new();
    let b = batch(&rt, 8);
    let mut h = 0;
    assert_eq!(onity_task_create(rt.0, &mut h), OnityStatus::Ok);
    submit(b, 77, ONITY_BATCH_TASK, 0, h, 0);
    assert_eq!(onity_batch_flush(rt.0, b), OnityStatus::Ok);
    let p = rt.0 as usize;
    std::thread::spawn(move || assert_eq!(onity_task_set_result(p as *mut OnityRuntime, h, 5), OnityStatus::Ok))
        .join()
        .unwrap();
    assert!(take(b).is_empty());
    assert_eq!(onity_batch_drain(rt.0, b), OnityStatus::Ok);
    assert_eq!(take(b), vec![(77, SUCC, OK)]);
    let mut o = OnityOutcome { value: 0, error: 0, state: 0, index: 0, reserved: 0 };
    assert_eq!(onity_task_consume(rt.0, h, &mut o), OnityStatus::Ok);
    assert_eq!(o.value, 5);
}

#[test]
fn canceled_tokens_and_destroy() {
    let rt = Rt::new();
    let b = batch(&rt, 8);
    let mut src = 0;
    assert_eq!(onity_cancel_source_create(rt.0, &mut src), OnityStatus::Ok);
    rt.frame_dt(1, 0.5);
    submit(b, 1, OnityWaitKind::DelayFrame as u8, UPDATE, 100, src);
    submit(b, 2, OnityWaitKind::DelayFrame as u8, UPDATE, 100, 0);
    assert_eq!(onity_batch_flush(rt.0, b), OnityStatus::Ok);
    assert_eq!(onity_cancel_source_cancel(rt.0, src), OnityStatus::Ok);
    assert_eq!(onity_batch_tick(rt.0, b, UPDATE as u32), OnityStatus::Ok);
    assert_eq!(take(b), vec![(1, OnityTaskState::Canceled as u32, OK)]);
    // Destroying the batch drops its pending wait; nothing is reported.
    let mut h = 0;
    assert_eq!(onity_task_create(rt.0, &mut h), OnityStatus::Ok);
    submit(b, 3, ONITY_BATCH_TASK, 0, h, 0);
    assert_eq!(onity_batch_flush(rt.0, b), OnityStatus::Ok);
    assert_eq!(onity_batch_destroy(rt.0, b), OnityStatus::Ok);
    assert_eq!(onity_batch_destroy(rt.0, b), OnityStatus::InvalidHandle);
    // The task lost its batch continuation and can be awaited again.
    assert_eq!(onity_task_set_result(rt.0, h, 1), OnityStatus::Ok);
    assert_eq!(onity_task_consume(rt.0, h, ptr::null_mut()), OnityStatus::Ok);
    let mut s: OnityStats = unsafe { std::mem::zeroed() };
    s.size = std::mem::size_of::<OnityStats>() as u32;
    assert_eq!(onity_runtime_stats(rt.0, &mut s), OnityStatus::Ok);
    assert_eq!(s.waits[OnityWaitKind::DelayFrame as usize].pending, 0);
    assert_eq!(s.live_tasks, 0);
}

// ---- the fast lane (ABI 1.1) ---------------------------------------------

fn fast(b: *mut OnityBatch, id: u32, timing: u8, delay: u32) {
    let mut r = 0u64;
    assert_eq!(onity_batch_fast_record(id, timing as u32, delay, &mut r), OnityStatus::Ok);
    // SAFETY: live batch; what a host does with plain writes.
    unsafe {
        let bb = &mut *b;
        assert!(bb.fast_count < bb.fast_capacity);
        *bb.fast_submit.add(bb.fast_count as usize) = r;
        bb.fast_count += 1;
    }
}

fn take_fast(b: *mut OnityBatch) -> Vec<u32> {
    // SAFETY: live batch, between calls.
    unsafe {
        let bb = &*b;
        (0..bb.fast_resumed_count as usize).map(|i| *bb.fast_resumed.add(i)).collect()
    }
}

fn wait_stats(rt: &Rt, kind: OnityWaitKind) -> OnityWaitStats {
    let mut s: OnityStats = unsafe { std::mem::zeroed() };
    s.size = std::mem::size_of::<OnityStats>() as u32;
    assert_eq!(onity_runtime_stats(rt.0, &mut s), OnityStatus::Ok);
    s.waits[kind as usize]
}

const EARLY: u8 = OnityTiming::EarlyUpdate as u8;

#[test]
fn fast_lane_yield_next_frame_and_delay_frame_resume_at_their_runs() {
    let rt = Rt::new();
    let b = batch(&rt, 64);
    rt.frame_dt(1, 0.5);
    fast(b, 1, UPDATE, 0);
    fast(b, 2, UPDATE, 1);
    fast(b, 3, UPDATE, 3);
    fast(b, 4, EARLY, 0);
    fast(b, 5, UPDATE, 2);
    // Filed at the tick, in frame 1: the Update yield is due now.
    assert_eq!(onity_batch_tick(rt.0, b, UPDATE as u32), OnityStatus::Ok);
    assert_eq!(take_fast(b), vec![1]);
    assert_eq!(onity_batch_tick(rt.0, b, UPDATE as u32), OnityStatus::Ok);
    assert!(take_fast(b).is_empty(), "a second Update run in frame 1");
    rt.frame_dt(2, 0.5);
    assert_eq!(onity_batch_tick(rt.0, b, EARLY as u32), OnityStatus::Ok);
    assert_eq!(take_fast(b), vec![4]);
    assert_eq!(onity_batch_tick(rt.0, b, UPDATE as u32), OnityStatus::Ok);
    assert_eq!(take_fast(b), vec![2]);
    rt.frame_dt(3, 0.5);
    assert_eq!(onity_batch_tick(rt.0, b, UPDATE as u32), OnityStatus::Ok);
    assert_eq!(take_fast(b), vec![5]);
    rt.frame_dt(4, 0.5);
    assert_eq!(onity_batch_tick(rt.0, b, EARLY as u32), OnityStatus::Ok);
    assert!(take_fast(b).is_empty(), "other timing");
    assert_eq!(onity_batch_tick(rt.0, b, UPDATE as u32), OnityStatus::Ok);
    assert_eq!(take_fast(b), vec![3]);
    // Counted in the runtime's per-kind statistics.
    let y = wait_stats(&rt, OnityWaitKind::Yield);
    assert_eq!((y.scheduled, y.completed, y.pending), (2, 2, 0));
    let n = wait_stats(&rt, OnityWaitKind::NextFrame);
    assert_eq!((n.scheduled, n.completed, n.pending), (1, 1, 0));
    let d = wait_stats(&rt, OnityWaitKind::DelayFrame);
    assert_eq!((d.scheduled, d.completed, d.pending), (2, 2, 0));
    // ...but not in the wait-record pool: the fast lane uses no wait record.
    let mut s: OnityStats = unsafe { std::mem::zeroed() };
    s.size = std::mem::size_of::<OnityStats>() as u32;
    assert_eq!(onity_runtime_stats(rt.0, &mut s), OnityStatus::Ok);
    let w = s.pools[OnityPool::WaitRecords as usize];
    assert_eq!((w.rents, w.returns, w.live, w.high_water), (0, 0, 0, 0));
}

#[test]
fn fast_lane_reports_yields_then_next_frames_then_delays_each_in_filing_order() {
    let rt = Rt::new();
    let b = batch(&rt, 64);
    rt.frame_dt(1, 0.5);
    assert_eq!(onity_batch_tick(rt.0, b, UPDATE as u32), OnityStatus::Ok);
    fast(b, 10, UPDATE, 1);
    fast(b, 11, UPDATE, 2);
    fast(b, 12, UPDATE, 0);
    fast(b, 13, UPDATE, 1);
    fast(b, 14, UPDATE, 0);
    rt.frame_dt(2, 0.5);
    fast(b, 15, UPDATE, 1); // filed in frame 2: due in frame 3
    assert_eq!(onity_batch_tick(rt.0, b, UPDATE as u32), OnityStatus::Ok);
    assert_eq!(take_fast(b), vec![12, 14, 10, 13]);
    rt.frame_dt(3, 0.5);
    fast(b, 16, UPDATE, 0);
    assert_eq!(onity_batch_tick(rt.0, b, UPDATE as u32), OnityStatus::Ok);
    assert_eq!(take_fast(b), vec![16, 15, 11]);
    // Frames may jump: everything overdue is due.
    fast(b, 17, UPDATE, 5);
    fast(b, 18, UPDATE, 1);
    rt.frame_dt(100, 0.5);
    assert_eq!(onity_batch_tick(rt.0, b, UPDATE as u32), OnityStatus::Ok);
    assert_eq!(take_fast(b), vec![18, 17]);
}

#[test]
fn fast_lane_runs_only_in_its_batch_tick_and_only_a_tick_replaces_the_report() {
    let rt = Rt::new();
    let b = batch(&rt, 4);
    fast(b, 1, UPDATE, 0);
    assert_eq!(onity_runtime_tick(rt.0, UPDATE as u32), OnityStatus::Ok);
    assert!(take_fast(b).is_empty());
    assert_eq!(onity_batch_tick(rt.0, b, UPDATE as u32), OnityStatus::Ok);
    assert_eq!(take_fast(b), vec![1]);
    assert_eq!(onity_batch_drain(rt.0, b), OnityStatus::Ok);
    assert_eq!(take_fast(b), vec![1], "a drain leaves the report alone");
    assert_eq!(onity_batch_tick(rt.0, b, UPDATE as u32), OnityStatus::Ok);
    assert!(take_fast(b).is_empty(), "the next tick replaces it");
    // A full buffer is filed by flush (what a host does when fast_count reaches capacity).
    for i in 0..4 {
        fast(b, 20 + i, UPDATE, 0);
    }
    assert_eq!(onity_batch_flush(rt.0, b), OnityStatus::Ok);
    // SAFETY: live batch.
    assert_eq!(unsafe { (*b).fast_count }, 0);
    fast(b, 24, UPDATE, 0);
    assert_eq!(onity_batch_tick(rt.0, b, UPDATE as u32), OnityStatus::Ok);
    assert_eq!(take_fast(b), vec![20, 21, 22, 23, 24]);
    // A rejected tick changes nothing and loses nothing.
    fast(b, 30, UPDATE, 0);
    assert_eq!(onity_batch_tick(rt.0, b, 16), OnityStatus::InvalidArgument);
    assert_eq!(take_fast(b), vec![20, 21, 22, 23, 24]);
    assert_eq!(onity_batch_tick(rt.0, b, UPDATE as u32), OnityStatus::Ok);
    assert_eq!(take_fast(b), vec![30]);
}

struct Nested {
    rt: *mut OnityRuntime,
    b: *mut OnityBatch,
    drain: OnityStatus,
    tick: OnityStatus,
}

unsafe extern "C" fn nested_calls(user: *mut std::ffi::c_void, _task: u64, _state: u32) {
    let n = &mut *(user as *mut Nested);
    n.drain = onity_batch_drain(n.rt, n.b);
    n.tick = onity_batch_tick(n.rt, n.b, UPDATE as u32);
}

#[test]
fn fast_report_survives_a_drain_or_rejected_tick_from_a_continuation() {
    let rt = Rt::new();
    let b = batch(&rt, 8);
    let mut n = Nested { rt: rt.0, b, drain: OnityStatus::Panic, tick: OnityStatus::Panic };
    fast(b, 7, UPDATE, 0);
    assert_eq!(
        onity_yield_then(rt.0, UPDATE as u32, 0, Some(nested_calls), &mut n as *mut Nested as *mut std::ffi::c_void),
        OnityStatus::Ok
    );
    assert_eq!(onity_batch_tick(rt.0, b, UPDATE as u32), OnityStatus::Ok);
    assert_eq!(n.drain, OnityStatus::Ok);
    assert_eq!(n.tick, OnityStatus::Reentrant);
    assert_eq!(take_fast(b), vec![7], "the id reported before the timing ran is still there");
}

#[test]
fn the_runtime_reads_records_through_its_own_buffers_not_the_host_fields() {
    let rt = Rt::new();
    let b = batch(&rt, 4);
    fast(b, 3, UPDATE, 0);
    // A host that scribbles over the descriptive fields cannot make the runtime
    // read elsewhere or past the buffer.
    // SAFETY: live batch; deliberately bad values in host-writable fields.
    unsafe {
        (*b).fast_submit = ptr::null_mut();
        (*b).fast_capacity = u32::MAX;
        (*b).fast_count = 1000;
        (*b).submit = ptr::null_mut();
        (*b).submit_capacity = u32::MAX;
        (*b).submit_count = 1000;
    }
    assert_eq!(onity_batch_tick(rt.0, b, UPDATE as u32), OnityStatus::Ok);
    let got = take_fast(b);
    assert!(got.contains(&3), "the real record was filed");
    assert!(got.len() <= 4, "at most the buffer's capacity");
    // The 4 (zeroed) slot records are Yields on timing 0: filed, not more.
    assert!(take(b).is_empty());
    assert_eq!(onity_batch_tick(rt.0, b, 0), OnityStatus::Ok);
    assert_eq!(take(b).len(), 4, "slot records: at most the buffer's capacity");
}

#[test]
fn destroying_a_batch_cancels_its_fast_lane_waits_in_the_statistics() {
    let rt = Rt::new();
    let b = batch(&rt, 8);
    rt.frame_dt(1, 0.5);
    fast(b, 1, UPDATE, 0);
    fast(b, 2, UPDATE, 1);
    fast(b, 3, UPDATE, 7);
    assert_eq!(onity_batch_flush(rt.0, b), OnityStatus::Ok);
    assert_eq!(wait_stats(&rt, OnityWaitKind::DelayFrame).pending, 1);
    assert_eq!(onity_batch_destroy(rt.0, b), OnityStatus::Ok);
    for k in [OnityWaitKind::Yield, OnityWaitKind::NextFrame, OnityWaitKind::DelayFrame] {
        let s = wait_stats(&rt, k);
        assert_eq!((s.scheduled, s.canceled, s.pending), (1, 1, 0), "{k:?}");
    }
}

#[test]
fn fast_record_layout_and_bad_input() {
    let mut r = 0u64;
    assert_eq!(onity_batch_fast_record(7, 8, 3, &mut r), OnityStatus::Ok);
    assert_eq!(r, 7 | 8 << 32 | 3 << 36);
    assert_eq!(onity_batch_fast_record(u32::MAX, 15, (1 << 28) - 1, &mut r), OnityStatus::Ok);
    assert_eq!(r, u64::MAX);
    assert_eq!(onity_batch_fast_record(1, 16, 0, &mut r), OnityStatus::InvalidArgument);
    assert_eq!(onity_batch_fast_record(1, 0, 1 << 28, &mut r), OnityStatus::CountOutOfRange);
    assert_eq!(onity_batch_fast_record(1, 0, 0, ptr::null_mut()), OnityStatus::NullPointer);
}

#[test]
fn batch_create_beyond_65536_live_batches_is_exhausted_and_makes_nothing() {
    let rt = Rt::new();
    let mut live = Vec::with_capacity(65_536);
    for _ in 0..65_536 {
        live.push(batch(&rt, 1));
    }
    let mut out = ptr::null_mut();
    assert_eq!(onity_batch_create(rt.0, 1, &mut out), OnityStatus::Exhausted);
    assert!(out.is_null(), "nothing written on EXHAUSTED");
    // A destroyed batch frees its lane: the next create succeeds.
    assert_eq!(onity_batch_destroy(rt.0, live.pop().unwrap()), OnityStatus::Ok);
    assert_eq!(onity_batch_create(rt.0, 1, &mut out), OnityStatus::Ok);
    assert!(!out.is_null());
}
