//! Runs one benchmark scenario through the C ABI a given number of times, so
//! `scripts/opcount.sh` can count instructions per operation with callgrind
//! (repeatable whatever else the machine is doing, unlike wall time).
//!
//! Every export is called through a function pointer the compiler cannot see
//! through (as a host calls a DLL), so nothing of the library is inlined into
//! the caller. `scripts/opcount_host.c` runs the same scenarios from C
//! through `libonity.so`.
//!
//!     cargo run --release --example opcount -- SCENARIO ITERATIONS

use std::ffi::c_void;
use std::hint::black_box;
use std::ptr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Barrier;

use onity::core::frame_alloc::{FrameAllocConfig, FrameAllocator, Lifetime};
use onity::ffi::*;

const UPDATE: u32 = OnityTiming::Update as u32;
/// Tasks of the frame-wait scenarios (one op = one task-frame).
const TASKS: u64 = 4096;
/// Allocations per frame of the frame-allocator scenarios.
const ALLOCS: u64 = 150;
/// Tasks per cross-thread round.
const CROSS: usize = 4096;

type Rt = *mut OnityRuntime;

/// The exports the scenarios call, as function pointers.
#[derive(Clone, Copy)]
struct Api {
    create: extern "C" fn(Rt, *mut u64) -> OnityStatus,
    from_result: extern "C" fn(Rt, u64, *mut u64) -> OnityStatus,
    set_result: extern "C" fn(Rt, u64, u64) -> OnityStatus,
    consume: extern "C" fn(Rt, u64, *mut OnityOutcome) -> OnityStatus,
    on_complete: extern "C" fn(Rt, u64, OnityCallback, *mut c_void) -> OnityStatus,
    next_frame: extern "C" fn(Rt, u32, u64, *mut u64) -> OnityStatus,
    next_frame_then: extern "C" fn(Rt, u32, u64, OnityCallback, *mut c_void) -> OnityStatus,
    yield_then: extern "C" fn(Rt, u32, u64, OnityCallback, *mut c_void) -> OnityStatus,
    when_any: extern "C" fn(Rt, *const u64, u32, u64, *mut u64) -> OnityStatus,
    when_all: extern "C" fn(Rt, *const u64, u32, u64, *mut u64) -> OnityStatus,
    when_all_results: extern "C" fn(Rt, u64, *mut OnityOutcome, u32) -> OnityStatus,
    frame_begin: extern "C" fn(Rt, *const OnityFrameInfo) -> OnityStatus,
    tick: extern "C" fn(Rt, u32) -> OnityStatus,
    drain: extern "C" fn(Rt) -> OnityStatus,
    frame_alloc: extern "C" fn(Rt, u64, u32, u32, *mut *mut c_void) -> OnityStatus,
    frame_alloc_rewind: extern "C" fn(Rt) -> OnityStatus,
    batch_tick: extern "C" fn(Rt, *mut OnityBatch, u32) -> OnityStatus,
}

/// What the re-registering continuations get as `user`.
struct Ctx {
    rt: Rt,
    api: Api,
}

const OUTCOME: OnityOutcome = OnityOutcome { value: 0, error: 0, state: 0, index: 0, reserved: 0 };

fn frame_info(n: u64) -> OnityFrameInfo {
    OnityFrameInfo {
        size: std::mem::size_of::<OnityFrameInfo>() as u32,
        reserved: 0,
        frame: n,
        delta_time: 0.016,
        unscaled_delta_time: 0.016,
        realtime: n as f64,
    }
}

unsafe extern "C" fn next_frame_then_cb(user: *mut c_void, _task: u64, _state: u32) {
    let c = &*(user as *const Ctx);
    (c.api.next_frame_then)(c.rt, UPDATE, 0, Some(next_frame_then_cb), user);
}

unsafe extern "C" fn yield_then_cb(user: *mut c_void, _task: u64, _state: u32) {
    let c = &*(user as *const Ctx);
    (c.api.yield_then)(c.rt, UPDATE, 0, Some(yield_then_cb), user);
}

unsafe extern "C" fn next_frame_task_cb(user: *mut c_void, task: u64, _state: u32) {
    let c = &*(user as *const Ctx);
    let mut o = OUTCOME;
    (c.api.consume)(c.rt, task, &mut o);
    let mut h = 0;
    (c.api.next_frame)(c.rt, UPDATE, 0, &mut h);
    (c.api.on_complete)(c.rt, h, Some(next_frame_task_cb), user);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let scenario = args.get(1).map(String::as_str).unwrap_or("completed");
    let n: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let api = black_box(Api {
        create: onity_task_create,
        from_result: onity_task_from_result,
        set_result: onity_task_set_result,
        consume: onity_task_consume,
        on_complete: onity_task_on_complete,
        next_frame: onity_next_frame,
        next_frame_then: onity_next_frame_then,
        yield_then: onity_yield_then,
        when_any: onity_when_any,
        when_all: onity_when_all,
        when_all_results: onity_when_all_results,
        frame_begin: onity_runtime_frame_begin,
        tick: onity_runtime_tick,
        drain: onity_runtime_drain,
        frame_alloc: onity_frame_alloc,
        frame_alloc_rewind: onity_frame_alloc_rewind,
        batch_tick: onity_batch_tick,
    });
    if scenario == "frame_alloc_core" {
        return frame_alloc_core(n);
    }
    let mut rt = ptr::null_mut();
    let mut cfg = OnityRuntimeConfig { task_capacity: 65_536, ..OnityRuntimeConfig::default() };
    if scenario.starts_with("far_future") {
        cfg.wait_capacity = FAR as u32 + 1024;
    }
    if scenario == "frame_alloc" {
        cfg.frame_alloc_rewind_timing = ONITY_FRAME_ALLOC_REWIND_MANUAL;
    }
    assert_eq!(onity_runtime_create(&cfg, &mut rt), OnityStatus::Ok);
    // Issue 20's overhead rows (docs/observability.md): ONITY_OPCOUNT_TRACE=runs|all
    // records the frame timeline, ONITY_OPCOUNT_SITES=1 turns site capture on.
    observe(rt);
    let ctx = Ctx { rt, api };
    let user = &ctx as *const Ctx as *mut c_void;
    match scenario {
        // One op = create, set result, consume.
        "completed" => {
            for i in 0..n {
                let mut h = 0;
                (api.create)(rt, &mut h);
                (api.set_result)(rt, h, i);
                let mut o = OUTCOME;
                (api.consume)(rt, h, &mut o);
                black_box(o.value);
            }
        }
        // One op = from_result, consume.
        "from_result" => {
            for i in 0..n {
                let mut h = 0;
                (api.from_result)(rt, i, &mut h);
                let mut o = OUTCOME;
                (api.consume)(rt, h, &mut o);
                black_box(o.value);
            }
        }
        // One op = from_result at a creation site, consume (the `_at` form).
        "from_result_at" => {
            for i in 0..n {
                let mut h = 0;
                black_box(onity_task_from_result_at)(rt, i, &mut h, c"opcount.rs".as_ptr(), 7);
                let mut o = OUTCOME;
                (api.consume)(rt, h, &mut o);
                black_box(o.value);
            }
        }
        // One op = a frame of 4096 resumptions (divide by 4096).
        "next_frame_callback" | "yield_callback" | "next_frame_task" => {
            for _ in 0..TASKS {
                match scenario {
                    "next_frame_task" => {
                        let mut h = 0;
                        (api.next_frame)(rt, UPDATE, 0, &mut h);
                        (api.on_complete)(rt, h, Some(next_frame_task_cb), user);
                    }
                    "yield_callback" => {
                        (api.yield_then)(rt, UPDATE, 0, Some(yield_then_cb), user);
                    }
                    _ => {
                        (api.next_frame_then)(rt, UPDATE, 0, Some(next_frame_then_cb), user);
                    }
                }
            }
            for f in 1..=n {
                (api.frame_begin)(rt, &frame_info(f));
                (api.tick)(rt, UPDATE);
            }
        }
        // One op = a WhenAny / WhenAll over 32 inputs completed in reverse
        // (WhenAll: and its 32 results read).
        "when_any_32" | "when_all_32" => {
            let all = scenario == "when_all_32";
            let mut ins = [0u64; 32];
            let mut outs = [OUTCOME; 32];
            for _ in 0..n {
                for h in ins.iter_mut() {
                    (api.create)(rt, h);
                }
                let mut out = 0;
                if all {
                    (api.when_all)(rt, ins.as_ptr(), 32, 0, &mut out);
                } else {
                    (api.when_any)(rt, ins.as_ptr(), 32, 0, &mut out);
                }
                for (i, h) in ins.iter().enumerate().rev() {
                    (api.set_result)(rt, *h, i as u64);
                }
                if all {
                    (api.when_all_results)(rt, out, outs.as_mut_ptr(), 32);
                }
                (api.consume)(rt, out, ptr::null_mut());
            }
            black_box(outs);
        }
        // One op = a task the owner creates, a worker completes, the owner
        // drains and consumes (4096 per round).
        "cross_thread" => cross_thread(&ctx, n),
        // One op = one 1024-byte allocation plus 1/150 of a rewind.
        "frame_alloc" => {
            for _ in 0..n {
                for _ in 0..ALLOCS {
                    let mut p = ptr::null_mut();
                    (api.frame_alloc)(rt, 1024, 16, 0, &mut p);
                    // SAFETY: 1024 bytes were just allocated.
                    unsafe { ptr::write_volatile(p as *mut u8, 1) };
                }
                (api.frame_alloc_rewind)(rt);
            }
        }
        // One op = a frame of the batch fast lane's NextFrame cycle: 4096
        // records filed and reported (the native share of the C# binding's
        // `await NextFrame()`; divide by 4096).
        "batch_fast_next_frame" => batch_fast(&ctx, n),
        // One op = a frame begin and an Update tick with FAR waits pending
        // and not due (issue 17 #2): DelayFrame(10^9), Delay(10^9 s), or
        // DelayFrame(10^9) with a token (never canceled).
        "far_future_delay_frame" | "far_future_delay" | "far_future_token" => far_future(&ctx, scenario, n),
        other => panic!("unknown scenario {other}"),
    }
    assert_eq!(onity_runtime_destroy(rt), OnityStatus::Ok);
}

/// Pending waits of the far-future scenarios.
const FAR: u64 = 1_000_000;

unsafe extern "C" fn nop_cb(_user: *mut c_void, _task: u64, _state: u32) {}

fn far_future(ctx: &Ctx, scenario: &str, n: u64) {
    let (rt, api) = (ctx.rt, ctx.api);
    (api.frame_begin)(rt, &frame_info(1));
    let mut token = 0;
    if scenario == "far_future_token" {
        assert_eq!(onity_cancel_source_create(rt, &mut token), OnityStatus::Ok);
    }
    for _ in 0..FAR {
        let s = match scenario {
            "far_future_delay" => onity_delay_then(rt, 1e9, 0, UPDATE, 0, Some(nop_cb), ptr::null_mut()),
            _ => onity_delay_frame_then(rt, 1_000_000_000, UPDATE, token, Some(nop_cb), ptr::null_mut()),
        };
        assert_eq!(s, OnityStatus::Ok);
    }
    for f in 2..n + 2 {
        (api.frame_begin)(rt, &frame_info(f));
        (api.tick)(rt, UPDATE);
    }
}

/// The batch fast lane's NextFrame cycle: `TASKS` records, each reported
/// every frame and filed again.
fn batch_fast(ctx: &Ctx, n: u64) {
    let (rt, api) = (ctx.rt, ctx.api);
    let mut b = ptr::null_mut();
    assert_eq!(onity_batch_create(rt, 65_536, &mut b), OnityStatus::Ok);
    let mut rec = 0u64;
    assert_eq!(onity_batch_fast_record(0, UPDATE, 1, &mut rec), OnityStatus::Ok);
    // SAFETY (both blocks): a live batch with room (capacity 65,536 >
    // TASKS), read and written between calls.
    unsafe {
        let bb = &mut *b;
        for id in 0..TASKS {
            *bb.fast_submit.add(id as usize) = rec | id;
        }
        bb.fast_count = TASKS as u32;
    }
    for f in 1..=n {
        (api.frame_begin)(rt, &frame_info(f));
        (api.batch_tick)(rt, b, UPDATE);
        unsafe {
            let bb = &mut *b;
            let count = bb.fast_resumed_count as usize;
            for i in 0..count {
                *bb.fast_submit.add(bb.fast_count as usize) = rec | *bb.fast_resumed.add(i) as u64;
                bb.fast_count += 1;
            }
        }
    }
}

/// `n` rounds of `CROSS` tasks: created on the owner, completed by one
/// persistent worker, drained and consumed on the owner. The threads hand
/// over through a barrier (blocking, not spinning: callgrind counts every
/// spin, and the number of spins would vary from run to run).
fn cross_thread(ctx: &Ctx, n: u64) {
    let (rt, api) = (ctx.rt as usize, ctx.api);
    let slots: Vec<AtomicU64> = (0..CROSS).map(|_| AtomicU64::new(0)).collect();
    let barrier = Barrier::new(2);
    std::thread::scope(|s| {
        s.spawn(|| {
            for _ in 0..n {
                barrier.wait(); // the owner created this round's tasks
                for h in &slots {
                    (api.set_result)(rt as Rt, h.load(Ordering::Relaxed), 1);
                }
                barrier.wait(); // completed
            }
        });
        for _ in 0..n {
            for s in &slots {
                let mut h = 0;
                (api.create)(rt as Rt, &mut h);
                s.store(h, Ordering::Relaxed);
            }
            barrier.wait();
            barrier.wait();
            (api.drain)(rt as Rt);
            for s in &slots {
                (api.consume)(rt as Rt, s.load(Ordering::Relaxed), ptr::null_mut());
            }
        }
    });
}

/// The frame allocator's own Rust path (no C ABI): one op = one 1024-byte
/// allocation plus 1/150 of a rewind.
fn frame_alloc_core(n: u64) {
    let fa = black_box(FrameAllocator::new(FrameAllocConfig::default()));
    for _ in 0..n {
        for _ in 0..ALLOCS {
            let p = fa.alloc(black_box(Lifetime::Frame), black_box(1024), 16).unwrap();
            // SAFETY: 1024 bytes were just allocated.
            unsafe { ptr::write_volatile(p.as_ptr(), 1) };
        }
        fa.rewind();
    }
}

/// Turns on what ONITY_OPCOUNT_TRACE / ONITY_OPCOUNT_SITES ask for.
fn observe(rt: *mut OnityRuntime) {
    let flags = match std::env::var("ONITY_OPCOUNT_TRACE").as_deref() {
        Ok("runs") => ONITY_TRACE_RUNS,
        Ok("all") => ONITY_TRACE_RUNS | ONITY_TRACE_CONTINUATIONS,
        _ => 0,
    };
    if flags != 0 {
        assert_eq!(onity_trace_start(rt, 1 << 16, flags), OnityStatus::Ok);
    }
    if std::env::var("ONITY_OPCOUNT_SITES").as_deref() == Ok("1") {
        assert_eq!(onity_runtime_set_site_capture(rt, 1), OnityStatus::Ok);
    }
}
