//! Zero heap allocations per operation after warm-up, counted by a global
//! allocator, through the C ABI. Counts are per thread so parallel tests and
//! the harness do not interfere.

use std::ffi::c_void;
use std::ptr;

use onity::ffi::*;

mod counting_alloc;
use counting_alloc::allocs;

const UPDATE: u32 = OnityTiming::Update as u32;

mod support;
use support::Rt;

/// Runs `warm` iterations, then asserts that `measured` more allocate nothing.
fn assert_steady_state_allocation_free(name: &str, mut op: impl FnMut(u64)) {
    for i in 0..2_000 {
        op(i);
    }
    let before = allocs();
    for i in 2_000..12_000 {
        op(i);
    }
    let n = allocs() - before;
    assert_eq!(n, 0, "{name}: {n} heap allocations in 10,000 operations after warm-up");
}

#[test]
fn counting_allocator_sees_allocations() {
    // Control: the counter works (a test that could not fail would be no test).
    let before = allocs();
    let v: Vec<u64> = Vec::with_capacity(10);
    std::hint::black_box(&v);
    assert!(allocs() > before);
}

#[test]
fn create_complete_consume() {
    let rt = Rt::new();
    assert_steady_state_allocation_free("create/complete/consume", |i| {
        let mut h = 0;
        assert_eq!(onity_task_create(rt.0, &mut h), OnityStatus::Ok);
        assert_eq!(onity_task_set_result(rt.0, h, i), OnityStatus::Ok);
        let mut o = OnityOutcome { value: 0, error: 0, state: 0, index: 0, reserved: 0 };
        assert_eq!(onity_task_consume(rt.0, h, &mut o), OnityStatus::Ok);
        assert_eq!(o.value, i);
    });
}

unsafe extern "C" fn consume_cb(user: *mut c_void, task: u64, _state: u32) {
    let rt = user as *mut OnityRuntime;
    assert_eq!(onity_task_consume(rt, task, ptr::null_mut()), OnityStatus::Ok);
}

#[test]
fn next_frame_schedule_resume_consume() {
    let rt = Rt::new();
    let mut tasks = vec![0u64; 256];
    assert_steady_state_allocation_free("next frame cycle (256 tasks per frame)", |i| {
        if i % 256 == 0 {
            rt.frame(i / 256);
            assert_eq!(onity_runtime_tick(rt.0, UPDATE), OnityStatus::Ok);
            for h in tasks.iter_mut() {
                if *h != 0 {
                    assert_eq!(onity_task_consume(rt.0, *h, ptr::null_mut()), OnityStatus::Ok);
                }
            }
        }
        let slot = &mut tasks[(i % 256) as usize];
        assert_eq!(onity_next_frame(rt.0, UPDATE, 0, slot), OnityStatus::Ok);
    });
    // Continuation form: the continuation consumes.
    assert_steady_state_allocation_free("next frame with continuation", |i| {
        if i % 256 == 0 {
            rt.frame(1_000_000 + i / 256);
            assert_eq!(onity_runtime_tick(rt.0, UPDATE), OnityStatus::Ok);
        }
        let mut h = 0;
        assert_eq!(onity_next_frame(rt.0, UPDATE, 0, &mut h), OnityStatus::Ok);
        assert_eq!(onity_task_on_complete(rt.0, h, Some(consume_cb), rt.0 as *mut c_void), OnityStatus::Ok);
    });
}

unsafe extern "C" fn noop_cb(_user: *mut c_void, _task: u64, _state: u32) {}

#[test]
fn yield_and_delay_frame_cycles() {
    let rt = Rt::new();
    let mut frame_no = 0;
    assert_steady_state_allocation_free("yield", |_| {
        let mut h = 0;
        assert_eq!(onity_yield(rt.0, UPDATE, 0, &mut h), OnityStatus::Ok);
        assert_eq!(onity_runtime_tick(rt.0, UPDATE), OnityStatus::Ok);
        assert_eq!(onity_task_consume(rt.0, h, ptr::null_mut()), OnityStatus::Ok);
    });
    assert_steady_state_allocation_free("yield callback", |_| {
        assert_eq!(onity_yield_then(rt.0, UPDATE, 0, Some(noop_cb), ptr::null_mut()), OnityStatus::Ok);
        assert_eq!(onity_runtime_tick(rt.0, UPDATE), OnityStatus::Ok);
    });
    assert_steady_state_allocation_free("delay frame(1)", |_| {
        let mut h = 0;
        assert_eq!(onity_delay_frame(rt.0, 1, UPDATE, 0, &mut h), OnityStatus::Ok);
        frame_no += 1;
        rt.frame(frame_no);
        assert_eq!(onity_runtime_tick(rt.0, UPDATE), OnityStatus::Ok);
        assert_eq!(onity_task_consume(rt.0, h, ptr::null_mut()), OnityStatus::Ok);
    });
}

#[test]
fn when_any_32_and_when_all_32() {
    let rt = Rt::new();
    let mut ins = [0u64; 32];
    assert_steady_state_allocation_free("when_any(32)", |_| {
        for h in ins.iter_mut() {
            assert_eq!(onity_task_create(rt.0, h), OnityStatus::Ok);
        }
        let mut any = 0;
        assert_eq!(onity_when_any(rt.0, ins.as_ptr(), 32, 0, &mut any), OnityStatus::Ok);
        for (i, h) in ins.iter().enumerate().rev() {
            assert_eq!(onity_task_set_result(rt.0, *h, i as u64), OnityStatus::Ok);
        }
        let mut o = OnityOutcome { value: 0, error: 0, state: 0, index: 0, reserved: 0 };
        assert_eq!(onity_task_consume(rt.0, any, &mut o), OnityStatus::Ok);
        assert_eq!(o.index, 31);
    });
    let mut outs = [OnityOutcome { value: 0, error: 0, state: 0, index: 0, reserved: 0 }; 32];
    assert_steady_state_allocation_free("when_all(32)", |_| {
        for h in ins.iter_mut() {
            assert_eq!(onity_task_create(rt.0, h), OnityStatus::Ok);
        }
        let mut all = 0;
        assert_eq!(onity_when_all(rt.0, ins.as_ptr(), 32, 0, &mut all), OnityStatus::Ok);
        for (i, h) in ins.iter().enumerate().rev() {
            assert_eq!(onity_task_set_result(rt.0, *h, i as u64), OnityStatus::Ok);
        }
        assert_eq!(onity_when_all_results(rt.0, all, outs.as_mut_ptr(), 32), OnityStatus::Ok);
        assert_eq!(onity_task_consume(rt.0, all, ptr::null_mut()), OnityStatus::Ok);
        assert_eq!(outs[5].value, 5);
    });
}

#[test]
fn cross_thread_completion_is_allocation_free_on_the_owner() {
    use std::sync::atomic::{AtomicU64, Ordering};
    const BATCH: usize = 1000;
    let rt = Rt::new();
    let rtp = rt.0 as usize;
    // A persistent worker, fed through preallocated atomics (no channel).
    let slots: Vec<AtomicU64> = (0..BATCH).map(|_| AtomicU64::new(0)).collect();
    let round = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let mut hs = vec![0u64; BATCH];
    std::thread::scope(|s| {
        s.spawn(|| {
            let mut seen = 0;
            loop {
                let r = round.load(Ordering::Acquire);
                if r == u64::MAX {
                    return;
                }
                if r == seen {
                    std::hint::spin_loop();
                    continue;
                }
                for h in &slots {
                    let st = onity_task_set_result(rtp as *mut OnityRuntime, h.load(Ordering::Relaxed), 1);
                    assert_eq!(st, OnityStatus::Ok);
                }
                seen = r;
                done.store(r, Ordering::Release);
            }
        });
        assert_steady_state_allocation_free("cross-thread completion (owner side)", |i| {
            let k = (i as usize) % BATCH;
            assert_eq!(onity_task_create(rt.0, &mut hs[k]), OnityStatus::Ok);
            slots[k].store(hs[k], Ordering::Relaxed);
            if k == BATCH - 1 {
                let r = i / BATCH as u64 + 1;
                round.store(r, Ordering::Release);
                while done.load(Ordering::Acquire) != r {
                    std::hint::spin_loop();
                }
                assert_eq!(onity_runtime_drain(rt.0), OnityStatus::Ok);
                for h in hs.iter() {
                    assert_eq!(onity_task_consume(rt.0, *h, ptr::null_mut()), OnityStatus::Ok);
                }
            }
        });
        round.store(u64::MAX, Ordering::Release);
    });
}

#[test]
fn from_result_and_next_frame_callback_form() {
    let rt = Rt::new();
    assert_steady_state_allocation_free("task_from_result/consume", |i| {
        let mut h = 0;
        assert_eq!(onity_task_from_result(rt.0, i, &mut h), OnityStatus::Ok);
        let mut o = OnityOutcome { value: 0, error: 0, state: 0, index: 0, reserved: 0 };
        assert_eq!(onity_task_consume(rt.0, h, &mut o), OnityStatus::Ok);
        assert_eq!(o.value, i);
    });
    // The callback form of the NextFrame cycle: 256 waits re-registered per frame.
    assert_steady_state_allocation_free("next_frame_then (256 per frame)", |i| {
        if i % 256 == 0 {
            rt.frame(1 + i / 256);
            assert_eq!(onity_runtime_tick(rt.0, UPDATE), OnityStatus::Ok);
        }
        assert_eq!(onity_next_frame_then(rt.0, UPDATE, 0, Some(noop_cb), ptr::null_mut()), OnityStatus::Ok);
    });
}

/// The batch paths a P/Invoke host uses: 32-byte records (waits with a token)
/// and fast-lane records (token-less frame waits), one batch tick per frame.
#[test]
fn batch_record_and_fast_lane_cycles() {
    let rt = Rt::new();
    let mut b = ptr::null_mut();
    assert_eq!(onity_batch_create(rt.0, 1024, &mut b), OnityStatus::Ok);
    let mut token = 0;
    assert_eq!(onity_cancel_source_create(rt.0, &mut token), OnityStatus::Ok);
    let mut frame_no = 0;
    assert_steady_state_allocation_free("batch NextFrame records (256 per frame)", |i| {
        // SAFETY: live batch, owner thread, between calls: what a host does with plain writes.
        unsafe {
            let bb = &mut *b;
            *bb.submit.add(bb.submit_count as usize) = OnityBatchRecord {
                id: i,
                token,
                arg: 0,
                kind: OnityWaitKind::NextFrame as u8,
                timing: UPDATE as u8,
                clock: 0,
                reserved: [0; 5],
            };
            bb.submit_count += 1;
            if i % 256 == 255 {
                frame_no += 1;
                rt.frame(frame_no);
                assert_eq!(onity_batch_tick(rt.0, b, UPDATE), OnityStatus::Ok);
                let bb = &mut *b;
                if i >= 511 {
                    assert_eq!(bb.resumed_count, 256, "the previous frame's waits resumed");
                }
                bb.resumed_consumed = bb.resumed_count;
            }
        }
    });
    assert_steady_state_allocation_free("batch fast-lane NextFrame (256 per frame)", |i| {
        let mut rec = 0;
        assert_eq!(onity_batch_fast_record((i % 256) as u32, UPDATE, 1, &mut rec), OnityStatus::Ok);
        // SAFETY: as above.
        unsafe {
            let bb = &mut *b;
            *bb.fast_submit.add(bb.fast_count as usize) = rec;
            bb.fast_count += 1;
            if i % 256 == 255 {
                frame_no += 1;
                rt.frame(frame_no);
                assert_eq!(onity_batch_tick(rt.0, b, UPDATE), OnityStatus::Ok);
                if i >= 511 {
                    assert_eq!((*b).fast_resumed_count, 256, "the previous frame's waits resumed");
                }
            }
        }
    });
    assert_eq!(onity_batch_destroy(rt.0, b), OnityStatus::Ok);
}
