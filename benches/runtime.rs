//! Runtime benchmarks through the C ABI (the exported `extern "C"` functions,
//! called exactly as a C host would). Mirrors the seed's scenarios.
//!
//! `cargo bench --bench runtime` (add `-- --quick` for a fast pass).

use std::ffi::c_void;
use std::hint::black_box;
use std::ptr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use onity::ffi::*;

const UPDATE: u32 = OnityTiming::Update as u32;

struct Rt(*mut OnityRuntime);
impl Rt {
    fn new() -> Rt {
        let mut p = ptr::null_mut();
        let cfg = OnityRuntimeConfig { task_capacity: 65_536, ..OnityRuntimeConfig::default() };
        assert_eq!(onity_runtime_create(&cfg, &mut p), OnityStatus::Ok);
        Rt(p)
    }
}
impl Drop for Rt {
    fn drop(&mut self) {
        assert_eq!(onity_runtime_destroy(self.0), OnityStatus::Ok);
    }
}

fn frame_info(n: u64) -> OnityFrameInfo {
    OnityFrameInfo {
        size: std::mem::size_of::<OnityFrameInfo>() as u32,
        reserved: 0,
        frame: n,
        delta_time: 0.016,
        unscaled_delta_time: 0.016,
        realtime: n as f64 * 0.016,
    }
}

fn completed_cycle(c: &mut Criterion) {
    let rt = Rt::new();
    let mut g = c.benchmark_group("completed_task");
    g.throughput(Throughput::Elements(1));
    g.bench_function("create_set_consume", |b| {
        b.iter(|| {
            let mut h = 0;
            onity_task_create(rt.0, &mut h);
            onity_task_set_result(rt.0, h, 7);
            let mut o = OnityOutcome { value: 0, error: 0, state: 0, index: 0, reserved: 0 };
            onity_task_consume(rt.0, h, &mut o);
            black_box(o.value)
        })
    });
    g.bench_function("from_result_consume", |b| {
        b.iter(|| {
            let mut h = 0;
            onity_task_from_result(rt.0, 7, &mut h);
            let mut o = OnityOutcome { value: 0, error: 0, state: 0, index: 0, reserved: 0 };
            onity_task_consume(rt.0, h, &mut o);
            black_box(o.value)
        })
    });
    g.finish();
}

/// Per-task state for the re-registering continuations.
struct Looper {
    rt: *mut OnityRuntime,
    resumed: u64,
}

/// Task form: consume the NextFrame task (reading its outcome), then schedule
/// the next one and register this continuation again: 3 C-ABI calls.
unsafe extern "C" fn next_frame_task_cb(user: *mut c_void, task: u64, _state: u32) {
    let l = &mut *(user as *mut Looper);
    let mut o = OnityOutcome { value: 0, error: 0, state: 0, index: 0, reserved: 0 };
    onity_task_consume(l.rt, task, &mut o);
    l.resumed += 1;
    let mut h = 0;
    onity_next_frame(l.rt, UPDATE, 0, &mut h);
    onity_task_on_complete(l.rt, h, Some(next_frame_task_cb), user);
}

/// Callback form: nothing to consume, one C-ABI call to re-register.
unsafe extern "C" fn next_frame_then_cb(user: *mut c_void, _task: u64, _state: u32) {
    let l = &mut *(user as *mut Looper);
    l.resumed += 1;
    onity_next_frame_then(l.rt, UPDATE, 0, Some(next_frame_then_cb), user);
}

unsafe extern "C" fn yield_then_cb(user: *mut c_void, _task: u64, _state: u32) {
    let l = &mut *(user as *mut Looper);
    l.resumed += 1;
    onity_yield_then(l.rt, UPDATE, 0, Some(yield_then_cb), user);
}

unsafe extern "C" fn yield_task_cb(user: *mut c_void, task: u64, _state: u32) {
    let l = &mut *(user as *mut Looper);
    onity_task_consume(l.rt, task, ptr::null_mut());
    l.resumed += 1;
    let mut h = 0;
    onity_yield(l.rt, UPDATE, 0, &mut h);
    onity_task_on_complete(l.rt, h, Some(yield_task_cb), user);
}

fn frame_loops(c: &mut Criterion) {
    let mut g = c.benchmark_group("frame_wait_cycle");
    for &n in &[128usize, 4096] {
        g.throughput(Throughput::Elements(n as u64));
        for (name, task_form, next_frame) in [
            ("next_frame_task", true, true),
            ("next_frame_callback", false, true),
            ("yield_task", true, false),
            ("yield_callback", false, false),
        ] {
            let rt = Rt::new();
            let mut loopers: Vec<Looper> = (0..n).map(|_| Looper { rt: rt.0, resumed: 0 }).collect();
            for l in loopers.iter_mut() {
                let user = l as *mut Looper as *mut c_void;
                match (task_form, next_frame) {
                    (true, true) => {
                        let mut h = 0;
                        onity_next_frame(rt.0, UPDATE, 0, &mut h);
                        onity_task_on_complete(rt.0, h, Some(next_frame_task_cb), user);
                    }
                    (false, true) => {
                        onity_next_frame_then(rt.0, UPDATE, 0, Some(next_frame_then_cb), user);
                    }
                    (true, false) => {
                        let mut h = 0;
                        onity_yield(rt.0, UPDATE, 0, &mut h);
                        onity_task_on_complete(rt.0, h, Some(yield_task_cb), user);
                    }
                    (false, false) => {
                        onity_yield_then(rt.0, UPDATE, 0, Some(yield_then_cb), user);
                    }
                }
            }
            let mut f = 0u64;
            g.bench_with_input(BenchmarkId::new(name, n), &n, |b, _| {
                b.iter(|| {
                    f += 1;
                    if next_frame {
                        onity_runtime_frame_begin(rt.0, &frame_info(f));
                    }
                    onity_runtime_tick(rt.0, UPDATE);
                })
            });
            // Validate: every task resumed once per tick (the first tick of
            // the NextFrame loop may be in the creation frame).
            let ticks = f;
            for l in &loopers {
                assert!(l.resumed + 1 >= ticks && l.resumed <= ticks, "resumed {} of {}", l.resumed, ticks);
            }
            drop(rt);
        }
    }
    g.finish();
}

/// The batch path a P/Invoke host (the C# binding) uses: per frame one
/// frame-begin and one batch tick; the "host" re-submits each resumed id as
/// a NextFrame record with plain memory writes. Measures the native share of
/// a C# NextFrame await.
fn batch_loop(c: &mut Criterion) {
    let mut g = c.benchmark_group("batch_next_frame_cycle");
    for &n in &[128usize, 4096] {
        let rt = Rt::new();
        let mut b = ptr::null_mut();
        assert_eq!(onity_batch_create(rt.0, 65_536, &mut b), OnityStatus::Ok);
        let submit = |b: *mut OnityBatch, id: u64| {
            // SAFETY: live batch with room (capacity 65,536 > n).
            unsafe {
                let bb = &mut *b;
                *bb.submit.add(bb.submit_count as usize) = OnityBatchRecord {
                    id,
                    token: 0,
                    arg: 0,
                    kind: OnityWaitKind::NextFrame as u8,
                    timing: UPDATE as u8,
                    clock: 0,
                    reserved: [0; 5],
                };
                bb.submit_count += 1;
            }
        };
        for id in 0..n as u64 {
            submit(b, id);
        }
        let mut f = 0u64;
        let mut resumed_total = 0u64;
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |bch, _| {
            bch.iter(|| {
                f += 1;
                onity_runtime_frame_begin(rt.0, &frame_info(f));
                onity_batch_tick(rt.0, b, UPDATE);
                // SAFETY: live batch, read between calls.
                unsafe {
                    let bb = &mut *b;
                    let count = bb.resumed_count as usize;
                    for i in 0..count {
                        submit(b, (*bb.resumed.add(i)).id);
                    }
                    bb.resumed_consumed = count as u32;
                    resumed_total += count as u64;
                }
            })
        });
        assert!(resumed_total + n as u64 >= f * n as u64, "every wait resumed each frame");
    }
    g.finish();
}

/// The fast lane (ABI 1.1) the C# binding uses for `await NextFrame()`: the
/// host writes one 8-byte record per wait, one batch tick per frame reports
/// due ids. Measures the native share of a C# fast-lane NextFrame await.
fn batch_fast_loop(c: &mut Criterion) {
    let mut g = c.benchmark_group("batch_fast_next_frame_cycle");
    for &n in &[128usize, 4096] {
        let rt = Rt::new();
        let mut b = ptr::null_mut();
        assert_eq!(onity_batch_create(rt.0, 65_536, &mut b), OnityStatus::Ok);
        let mut rec = 0u64;
        assert_eq!(onity_batch_fast_record(0, UPDATE, 1, &mut rec), OnityStatus::Ok);
        let submit = |b: *mut OnityBatch, id: u32| {
            // SAFETY: live batch with room (capacity 65,536 > n).
            unsafe {
                let bb = &mut *b;
                *bb.fast_submit.add(bb.fast_count as usize) = rec | id as u64;
                bb.fast_count += 1;
            }
        };
        for id in 0..n as u32 {
            submit(b, id);
        }
        let mut f = 0u64;
        let mut resumed_total = 0u64;
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |bch, _| {
            bch.iter(|| {
                f += 1;
                onity_runtime_frame_begin(rt.0, &frame_info(f));
                onity_batch_tick(rt.0, b, UPDATE);
                // SAFETY: live batch, read between calls.
                unsafe {
                    let bb = &*b;
                    let count = bb.fast_resumed_count as usize;
                    for i in 0..count {
                        submit(b, *bb.fast_resumed.add(i));
                    }
                    resumed_total += count as u64;
                }
            })
        });
        assert!(resumed_total + n as u64 >= f * n as u64, "every wait resumed each frame");
    }
    g.finish();
}

fn when_any(c: &mut Criterion) {
    let mut g = c.benchmark_group("when_any_reverse");
    for &n in &[2usize, 16, 32] {
        let rt = Rt::new();
        let mut ins = vec![0u64; n];
        g.throughput(Throughput::Elements(1));
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| {
                for h in ins.iter_mut() {
                    onity_task_create(rt.0, h);
                }
                let mut any = 0;
                onity_when_any(rt.0, ins.as_ptr(), n as u32, 0, &mut any);
                for (i, h) in ins.iter().enumerate().rev() {
                    onity_task_set_result(rt.0, *h, i as u64);
                }
                let mut o = OnityOutcome { value: 0, error: 0, state: 0, index: 0, reserved: 0 };
                onity_task_consume(rt.0, any, &mut o);
                assert_eq!(o.index as usize, n - 1);
            })
        });
    }
    g.finish();
    let mut g = c.benchmark_group("when_all_reverse");
    let rt = Rt::new();
    let mut ins = [0u64; 32];
    let mut outs = [OnityOutcome { value: 0, error: 0, state: 0, index: 0, reserved: 0 }; 32];
    g.throughput(Throughput::Elements(1));
    g.bench_function("32", |b| {
        b.iter(|| {
            for h in ins.iter_mut() {
                onity_task_create(rt.0, h);
            }
            let mut all = 0;
            onity_when_all(rt.0, ins.as_ptr(), 32, 0, &mut all);
            for (i, h) in ins.iter().enumerate().rev() {
                onity_task_set_result(rt.0, *h, i as u64);
            }
            onity_when_all_results(rt.0, all, outs.as_mut_ptr(), 32);
            onity_task_consume(rt.0, all, ptr::null_mut());
            assert_eq!(outs[31].value, 31);
        })
    });
    g.finish();
}

/// Owner creates a batch, a persistent worker completes it, the owner drains
/// and consumes: tasks per second through the cross-thread path.
fn cross_thread(c: &mut Criterion) {
    // Large batches amortise the hand-off latency between the two threads
    // (which on a 2-vCPU VM depends on the hypervisor's scheduling).
    const BATCH: usize = 32_768;
    let rt = Rt::new();
    let rtp = rt.0 as usize;
    let slots: Vec<AtomicU64> = (0..BATCH).map(|_| AtomicU64::new(0)).collect();
    let round = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let mut g = c.benchmark_group("cross_thread");
    g.throughput(Throughput::Elements(BATCH as u64));
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
                    onity_task_set_result(rtp as *mut OnityRuntime, h.load(Ordering::Relaxed), 1);
                }
                seen = r;
                done.store(r, Ordering::Release);
            }
        });
        let mut r = 0;
        g.bench_function("complete_drain_consume_32768", |b| {
            b.iter(|| {
                for s in &slots {
                    let mut h = 0;
                    onity_task_create(rt.0, &mut h);
                    s.store(h, Ordering::Relaxed);
                }
                r += 1;
                round.store(r, Ordering::Release);
                while done.load(Ordering::Acquire) != r {
                    std::thread::yield_now();
                }
                onity_runtime_drain(rt.0);
                for s in &slots {
                    onity_task_consume(rt.0, s.load(Ordering::Relaxed), ptr::null_mut());
                }
            })
        });
        round.store(u64::MAX, Ordering::Release);
    });
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(30)
}

criterion_group! { name = benches; config = config(); targets = completed_cycle, frame_loops, batch_loop, batch_fast_loop, when_any, cross_thread }
criterion_main!(benches);
