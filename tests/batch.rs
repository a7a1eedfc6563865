//! Batches: waits submitted through shared memory, resumptions reported in
//! one call per timing.

use std::ptr;

use onity::ffi::*;

const UPDATE: u8 = OnityTiming::Update as u8;

struct Rt(*mut OnityRuntime);
impl Rt {
    fn new() -> Rt {
        let mut p = ptr::null_mut();
        assert_eq!(onity_runtime_create(ptr::null(), &mut p), OnityStatus::Ok);
        Rt(p)
    }
    fn frame(&self, n: u64) {
        let fi = OnityFrameInfo {
            size: std::mem::size_of::<OnityFrameInfo>() as u32,
            reserved: 0,
            frame: n,
            delta_time: 0.5,
            unscaled_delta_time: 0.5,
            realtime: n as f64,
        };
        assert_eq!(onity_runtime_frame_begin(self.0, &fi), OnityStatus::Ok);
    }
}
impl Drop for Rt {
    fn drop(&mut self) {
        assert_eq!(onity_runtime_destroy(self.0), OnityStatus::Ok);
    }
}

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
    rt.frame(1);
    assert_eq!(onity_batch_tick(rt.0, b, UPDATE as u32), OnityStatus::Ok);
    // Written during frame 1 after Update ran: NextFrame resumes in frame 2.
    submit(b, 10, OnityWaitKind::NextFrame as u8, UPDATE, 0, 0);
    submit(b, 11, OnityWaitKind::Yield as u8, UPDATE, 0, 0);
    submit(b, 12, OnityWaitKind::DelayFrame as u8, UPDATE, 2, 0);
    submit(b, 13, OnityWaitKind::Delay as u8, UPDATE, 0.75f64.to_bits(), 0);
    assert_eq!(onity_batch_tick(rt.0, b, OnityTiming::LastUpdate as u32), OnityStatus::Ok);
    assert!(take(b).is_empty());
    // Filed by frame_begin with the frame they were written in.
    rt.frame(2);
    assert_eq!(onity_batch_tick(rt.0, b, UPDATE as u32), OnityStatus::Ok);
    assert_eq!(take(b), vec![(10, SUCC, OK), (11, SUCC, OK)]);
    rt.frame(3);
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
        ]
    );
    assert_eq!(onity_batch_tick(rt.0, ptr::null_mut(), UPDATE as u32), OnityStatus::NullPointer);
    let mut other = ptr::null_mut();
    let rt2 = Rt::new();
    assert_eq!(onity_batch_create(rt2.0, 4, &mut other), OnityStatus::Ok);
    assert_eq!(onity_batch_tick(rt.0, other, UPDATE as u32), OnityStatus::InvalidHandle);
    assert_eq!(onity_batch_create(rt.0, 0, &mut other), OnityStatus::CountOutOfRange);
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
    rt.frame(1);
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
