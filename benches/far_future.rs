//! Issue 17 #2: what an Update tick costs while many waits are pending and
//! not yet due, side by side with the paths the fix must not slow down.
//!
//! `cargo bench --bench far_future` prints, for N pending items (default
//! 1,000,000; `ONITY_BENCH_WAITS`), the fastest and the median of 50 Update
//! ticks (after a warm-up tick) with:
//!
//! | row | pending on Update |
//! |---|---|
//! | manual tasks | N manual tasks (no wait: the baseline, no queue to walk) |
//! | DelayFrame | N callback DelayFrame waits due in 10^9 frames |
//! | Delay | N callback Delay waits due in 10^9 scaled seconds |
//!
//! and the cost per resumed wait of 10,000 NextFrame / Yield callback loops
//! (each resumes and schedules its next wait every frame), the hot paths a
//! timing wheel or heap must keep as fast. Issue 17's goal: the DelayFrame
//! and Delay rows <= 10 us per tick (`tests/issue17.rs` asserts it, ignored
//! until phase B). Repeatable instruction counts: run the binary under
//! `valgrind --tool=callgrind --toggle-collect=onity_runtime_tick` with
//! `ONITY_BENCH_WAITS=100000 ONITY_BENCH_TICKS=5` and one row
//! (`ONITY_BENCH_ROW=manual|delay_frame|delay|next_frame|yield`): the
//! collected instructions are those of `ONITY_BENCH_TICKS + 1` ticks.

use std::ffi::c_void;
use std::ptr;
use std::time::{Duration, Instant};

use onity::ffi::*;

#[path = "../tests/support/mod.rs"]
mod support;
use support::{frame, runtime_with, S};

const UPDATE: u32 = OnityTiming::Update as u32;

fn env(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn runtime(capacity: usize) -> *mut OnityRuntime {
    runtime_with(|c| {
        c.task_capacity = capacity as u32 + 1024;
        c.wait_capacity = capacity as u32 + 1024;
    })
}

unsafe extern "C" fn nop(_user: *mut c_void, _task: u64, _state: u32) {}

/// Per Update tick: fastest and median of `ticks` (after one warm-up tick).
fn ticks(rt: *mut OnityRuntime, ticks: usize) -> (Duration, Duration) {
    let mut times = Vec::with_capacity(ticks);
    for f in 0..=ticks as u64 {
        frame(rt, 10 + f);
        let t = Instant::now();
        assert_eq!(onity_runtime_tick(rt, UPDATE), S::Ok);
        if f > 0 {
            times.push(t.elapsed());
        }
    }
    times.sort();
    (times[0], times[times.len() / 2])
}

fn pending_row(name: &str, n: usize, n_ticks: usize, add: impl Fn(*mut OnityRuntime)) {
    let rt = runtime(n);
    frame(rt, 1);
    for _ in 0..n {
        add(rt);
    }
    let (min, med) = ticks(rt, n_ticks);
    println!(
        "| {name} | {n} | {:.1} | {:.1} | {:.2} |",
        min.as_secs_f64() * 1e6,
        med.as_secs_f64() * 1e6,
        min.as_secs_f64() * 1e9 / n as f64
    );
    assert_eq!(onity_runtime_destroy(rt), S::Ok);
}

struct Looping {
    rt: *mut OnityRuntime,
    next_frame: bool,
    resumed: u64,
}

unsafe extern "C" fn again(user: *mut c_void, _task: u64, state: u32) {
    let l = &mut *(user as *mut Looping);
    if state != OnityTaskState::Succeeded as u32 {
        return;
    }
    l.resumed += 1;
    let s = if l.next_frame {
        onity_next_frame_then(l.rt, UPDATE, 0, Some(again), user)
    } else {
        onity_yield_then(l.rt, UPDATE, 0, Some(again), user)
    };
    assert_eq!(s, S::Ok);
}

/// 10,000 callback loops: ns per resumed wait over `frames` frames.
fn loop_row(next_frame: bool, frames: u64) {
    const LOOPS: usize = 10_000;
    let rt = runtime(LOOPS);
    let mut ls: Vec<Looping> = (0..LOOPS).map(|_| Looping { rt, next_frame, resumed: 0 }).collect();
    frame(rt, 1);
    for l in ls.iter_mut() {
        let user = l as *mut Looping as *mut c_void;
        let s = if next_frame {
            onity_next_frame_then(rt, UPDATE, 0, Some(again), user)
        } else {
            onity_yield_then(rt, UPDATE, 0, Some(again), user)
        };
        assert_eq!(s, S::Ok);
    }
    let mut best = f64::MAX;
    for f in 2..frames + 2 {
        frame(rt, f);
        let before: u64 = ls.iter().map(|l| l.resumed).sum();
        let t = Instant::now();
        assert_eq!(onity_runtime_tick(rt, UPDATE), S::Ok);
        let dt = t.elapsed().as_secs_f64();
        let n = ls.iter().map(|l| l.resumed).sum::<u64>() - before;
        assert_eq!(n as usize, LOOPS);
        best = best.min(dt * 1e9 / n as f64);
    }
    let name = if next_frame { "NextFrame loop" } else { "Yield loop" };
    println!("| {name} | {LOOPS} | | | {best:.2} (per resumed wait) |");
    assert_eq!(onity_runtime_destroy(rt), S::Ok);
}

fn main() {
    // `cargo bench` passes `--bench`; other arguments are ignored.
    let n = env("ONITY_BENCH_WAITS", 1_000_000);
    let n_ticks = env("ONITY_BENCH_TICKS", 50);
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("far_future: Update tick with pending items not due (loadavg {})", load.trim());
    println!("| row | pending | fastest tick (us) | median tick (us) | ns per pending item |");
    println!("|---|---|---|---|---|");
    if only("manual") {
        pending_row("manual tasks", n, n_ticks, |rt| {
            let mut h = 0;
            assert_eq!(onity_task_create(rt, &mut h), S::Ok);
        });
    }
    if only("delay_frame") {
        pending_row("DelayFrame(10^9)", n, n_ticks, |rt| {
            assert_eq!(onity_delay_frame_then(rt, 1_000_000_000, UPDATE, 0, Some(nop), ptr::null_mut()), S::Ok);
        });
    }
    if only("delay") {
        pending_row("Delay(10^9 s)", n, n_ticks, |rt| {
            let s = onity_delay_then(rt, 1e9, OnityClock::Scaled as u32, UPDATE, 0, Some(nop), ptr::null_mut());
            assert_eq!(s, S::Ok);
        });
    }
    let frames = n_ticks as u64;
    if only("next_frame") {
        loop_row(true, frames);
    }
    if only("yield") {
        loop_row(false, frames);
    }
}

fn only(row: &str) -> bool {
    std::env::var("ONITY_BENCH_ROW").map_or(true, |r| r == row)
}
