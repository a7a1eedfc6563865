//! The main job: a demo game loop driving the runtime through its C ABI
//! (the exported `extern "C"` functions, exactly as a C or C# host calls
//! them; nothing of the Rust API is used).
//!
//! Each frame it begins the frame, ticks the 16 player-loop timings in
//! order, and keeps thousands of waits and WhenAny races alive:
//! - "walkers": 2,000 callback loops awaiting NextFrame / Yield / DelayFrame,
//! - "timers": 500 task-form Delay waits on the three clocks,
//! - "races": 64 WhenAny(8) groups per frame whose inputs are completed by
//!   two worker threads (cross-thread completion) or time out through a
//!   DelayFrame input, some cancelled through a cancellation source,
//! - a WhenAll(16) per frame over worker-completed tasks.
//!
//! It prints per-frame timings and, at the end, every pool's statistics, and
//! writes an SVG picture of frame time and pending waits per frame (default
//! `target/demo-frames.svg` in the repository; `--svg PATH` chooses).
//!
//! Observability (issue 20): the tasks and waits it makes carry their
//! creation site (the `_at` calls; site capture is on), and it prints the
//! live-task report grouped by site. `--trace PATH` records the frame
//! timeline (runs, drains, settles; `--trace-continuations` adds every
//! resumed wait) and writes it as Chrome trace JSON.
//!
//! Frames are paced at 2 ms so the worker threads get to run.
//!
//!     cargo run --release --example demo [-- [FRAMES] [--svg PATH] [--trace PATH [--trace-continuations]]]

use std::ffi::{c_void, CStr};
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use onity::ffi::*;

#[path = "support/frame_chart.rs"]
mod frame_chart;
#[path = "support/observe.rs"]
mod observe;
use observe::site;

const UPDATE: u32 = OnityTiming::Update as u32;
/// The wait kinds of `OnityStats::waits`, in order.
const WAIT_KINDS: [&str; 4] = ["yield", "next_frame", "delay_frame", "delay"];

fn ok(s: OnityStatus, what: &str) {
    if s != OnityStatus::Ok {
        // SAFETY: onity_status_text returns a static NUL-terminated string.
        let text = unsafe { CStr::from_ptr(onity_status_text(s as u32)) };
        panic!("{what}: {s:?} ({})", text.to_string_lossy());
    }
}

/// Counters the continuations update (owner thread only).
#[derive(Default)]
struct Counters {
    walker_resumes: u64,
    timer_fires: u64,
    races_won_by_worker: u64,
    races_timed_out: u64,
    races_canceled: u64,
    when_all_done: u64,
    wrong_thread: u64,
}

struct Ctx {
    rt: *mut OnityRuntime,
    owner: std::thread::ThreadId,
    counters: Counters,
}

struct Walker {
    ctx: *mut Ctx,
    step: u32,
}

unsafe extern "C" fn walker_cb(user: *mut c_void, _task: u64, state: u32) {
    let w = &mut *(user as *mut Walker);
    let ctx = &mut *w.ctx;
    if state != OnityTaskState::Succeeded as u32 {
        return; // runtime closing
    }
    if std::thread::current().id() != ctx.owner {
        ctx.counters.wrong_thread += 1;
    }
    ctx.counters.walker_resumes += 1;
    w.step = w.step.wrapping_add(1);
    let timing = [UPDATE, OnityTiming::LastUpdate as u32, OnityTiming::PreLateUpdate as u32][w.step as usize % 3];
    let s = match w.step % 3 {
        0 => onity_next_frame_then(ctx.rt, timing, 0, Some(walker_cb), user),
        1 => onity_delay_frame_then(ctx.rt, 2, timing, 0, Some(walker_cb), user),
        _ => onity_yield_then(ctx.rt, OnityTiming::PostLateUpdate as u32, 0, Some(walker_cb), user),
    };
    ok(s, "walker reschedule");
}

unsafe extern "C" fn timer_cb(user: *mut c_void, task: u64, state: u32) {
    let ctx = &mut *(user as *mut Ctx);
    ok(onity_task_consume(ctx.rt, task, ptr::null_mut()), "timer consume");
    if state != OnityTaskState::Succeeded as u32 {
        return;
    }
    ctx.counters.timer_fires += 1;
    let clock = (ctx.counters.timer_fires % 3) as u32;
    let (mut h, (file, line)) = (0, site!());
    ok(onity_delay_at(ctx.rt, 0.05, clock, UPDATE, 0, &mut h, file, line), "delay");
    ok(onity_task_on_complete(ctx.rt, h, Some(timer_cb), user), "timer continuation");
}

unsafe extern "C" fn race_cb(user: *mut c_void, task: u64, _state: u32) {
    let ctx = &mut *(user as *mut Ctx);
    let mut o = OnityOutcome { value: 0, error: 0, state: 0, index: 0, reserved: 0 };
    ok(onity_task_consume(ctx.rt, task, &mut o), "race consume");
    match o.state {
        s if s == OnityTaskState::Canceled as u32 => ctx.counters.races_canceled += 1,
        _ if o.index == 7 => ctx.counters.races_timed_out += 1,
        _ => ctx.counters.races_won_by_worker += 1,
    }
}

unsafe extern "C" fn all_cb(user: *mut c_void, task: u64, _state: u32) {
    let ctx = &mut *(user as *mut Ctx);
    let mut outs = [OnityOutcome { value: 0, error: 0, state: 0, index: 0, reserved: 0 }; 16];
    ok(onity_when_all_results(ctx.rt, task, outs.as_mut_ptr(), 16), "when_all results");
    ok(onity_task_consume(ctx.rt, task, ptr::null_mut()), "when_all consume");
    ctx.counters.when_all_done += 1;
}

/// The command line: the frame count (default 300), where the picture goes,
/// where the frame timeline goes (none by default) and with what.
struct Args {
    frames: u64,
    svg: std::path::PathBuf,
    trace: Option<std::path::PathBuf>,
    trace_flags: u32,
}

fn parse_args() -> Result<Args, String> {
    // The onity-demo package (demo/) sits one level below the repository.
    let pkg = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let svg = pkg.parent().unwrap_or(pkg).join("target/demo-frames.svg");
    let mut a = Args { frames: 300, svg, trace: None, trace_flags: ONITY_TRACE_RUNS };
    let mut args = std::env::args().skip(1);
    while let Some(s) = args.next() {
        match s.as_str() {
            "--svg" => a.svg = args.next().ok_or("--svg needs a path")?.into(),
            "--trace" => a.trace = Some(args.next().ok_or("--trace needs a path")?.into()),
            "--trace-continuations" => a.trace_flags |= ONITY_TRACE_CONTINUATIONS,
            _ if s.starts_with("--svg=") => a.svg = s["--svg=".len()..].into(),
            _ if s.starts_with("--trace=") => a.trace = Some(s["--trace=".len()..].into()),
            _ => a.frames = s.parse().ok().filter(|&n| n > 0).ok_or(format!("not a frame count: {s}"))?,
        }
    }
    Ok(a)
}

fn main() {
    let args = parse_args().unwrap_or_else(|e| {
        eprintln!(
            "demo: {e}\nusage: cargo run --release --example demo -- [FRAMES] [--svg PATH] \
             [--trace PATH [--trace-continuations]]"
        );
        std::process::exit(2)
    });
    let (frames, svg_path) = (args.frames, args.svg.clone());
    println!("onity demo: ABI {:#x}, {frames} frames", onity_abi_version());

    let mut rt = ptr::null_mut();
    let mut cfg = OnityRuntimeConfig { size: 0, ..OnityRuntimeConfig::default() };
    ok(onity_runtime_config_init(&mut cfg, std::mem::size_of::<OnityRuntimeConfig>() as u32), "config");
    cfg.task_capacity = 16_384;
    ok(onity_runtime_create(&cfg, &mut rt), "create");
    ok(onity_runtime_set_site_capture(rt, 1), "site capture");
    if args.trace.is_some() {
        // 2^20 events of 32 bytes: the last ~5,000 frames of runs, or the
        // last few hundred frames with every continuation.
        ok(onity_trace_start(rt, 1 << 20, args.trace_flags), "trace start");
    }

    let mut ctx = Box::new(Ctx { rt, owner: std::thread::current().id(), counters: Counters::default() });
    let ctxp = &mut *ctx as *mut Ctx;

    let mut walkers: Vec<Walker> = (0..2_000).map(|i| Walker { ctx: ctxp, step: i }).collect();
    for w in walkers.iter_mut() {
        ok(onity_next_frame_then(rt, UPDATE, 0, Some(walker_cb), w as *mut Walker as *mut c_void), "walker start");
    }
    for i in 0..500 {
        let (mut h, (file, line)) = (0, site!());
        ok(onity_delay_at(rt, 0.01 * (i % 10) as f64, i % 3, UPDATE, 0, &mut h, file, line), "timer start");
        ok(onity_task_on_complete(rt, h, Some(timer_cb), ctxp as *mut c_void), "timer continuation");
    }

    // Two workers complete whatever the owner hands them.
    let inbox: Arc<Mutex<Vec<u64>>> = Arc::new(Mutex::new(Vec::with_capacity(8192)));
    let stop = Arc::new(AtomicBool::new(false));
    let completed_by_workers = Arc::new(AtomicU64::new(0));
    let rt_addr = rt as usize;
    let workers: Vec<_> = (0..2)
        .map(|w| {
            let (inbox, stop, done) = (inbox.clone(), stop.clone(), completed_by_workers.clone());
            std::thread::spawn(move || {
                let mut local = Vec::with_capacity(8192);
                while !stop.load(Ordering::Relaxed) {
                    std::mem::swap(&mut local, &mut *inbox.lock().unwrap());
                    for (i, h) in local.drain(..).enumerate() {
                        // Any thread may complete a manual task; losing a
                        // race (the task already completed) is fine.
                        let s = if (i + w) % 13 == 0 {
                            onity_task_set_error(rt_addr as *mut OnityRuntime, h, -1)
                        } else {
                            onity_task_set_result(rt_addr as *mut OnityRuntime, h, i as u64)
                        };
                        if s == OnityStatus::Ok {
                            done.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    std::thread::yield_now();
                }
            })
        })
        .collect();

    let mut cancel = 0;
    ok(onity_cancel_source_create(rt, &mut cancel), "cancel source");
    let mut frame_times = Vec::with_capacity(frames as usize);
    // Pending waits of each kind after every frame, for the picture.
    let mut pending: [Vec<f64>; 4] = Default::default();
    let mut delayed: std::collections::VecDeque<(u64, Vec<u64>)> = std::collections::VecDeque::new();
    let started = Instant::now();
    for f in 1..=frames {
        let t0 = Instant::now();
        let fi = OnityFrameInfo {
            size: std::mem::size_of::<OnityFrameInfo>() as u32,
            reserved: 0,
            frame: f,
            delta_time: 1.0 / 60.0,
            unscaled_delta_time: 1.0 / 60.0,
            realtime: f as f64 / 60.0,
        };
        ok(onity_runtime_frame_begin(rt, &fi), "frame begin");
        if f % 50 == 0 {
            // Cancel the current generation of races, start a new source.
            ok(onity_cancel_source_cancel(rt, cancel), "cancel");
            ok(onity_cancel_source_destroy(rt, cancel), "destroy source");
            ok(onity_cancel_source_create(rt, &mut cancel), "cancel source");
        }
        for timing in 0..ONITY_TIMING_COUNT {
            if timing == UPDATE {
                // 64 WhenAny(8) races: 7 worker-completed inputs + a timeout.
                let mut handoff = Vec::with_capacity(64 * 7 + 16);
                let mut late = Vec::with_capacity(16 * 7);
                for r in 0..64 {
                    let mut ins = [0u64; 8];
                    for h in ins.iter_mut().take(7) {
                        let (file, line) = site!();
                        ok(onity_task_create_at(rt, h, file, line), "task");
                        // A quarter of the races get their inputs completed
                        // only 6 frames later: the DelayFrame(3) timeout (or
                        // the cancellation) wins, and the losers are consumed
                        // by the runtime when they finally complete.
                        if r % 4 == 0 {
                            late.push(*h);
                        } else {
                            handoff.push(*h);
                        }
                    }
                    let (file, line) = site!();
                    ok(onity_delay_frame_at(rt, 3, UPDATE, 0, &mut ins[7], file, line), "timeout");
                    let (mut any, (file, line)) = (0, site!());
                    ok(onity_when_any_at(rt, ins.as_ptr(), 8, cancel, &mut any, file, line), "when_any");
                    ok(onity_task_on_complete(rt, any, Some(race_cb), ctxp as *mut c_void), "race continuation");
                }
                let mut ins = [0u64; 16];
                for h in ins.iter_mut() {
                    let (file, line) = site!();
                    ok(onity_task_create_at(rt, h, file, line), "task");
                    handoff.push(*h);
                }
                let (mut all, (file, line)) = (0, site!());
                ok(onity_when_all_at(rt, ins.as_ptr(), 16, 0, &mut all, file, line), "when_all");
                ok(onity_task_on_complete(rt, all, Some(all_cb), ctxp as *mut c_void), "all continuation");
                inbox.lock().unwrap().extend_from_slice(&handoff);
                delayed.push_back((f + 6, late));
                while delayed.front().is_some_and(|(due, _)| *due <= f) {
                    let (_, batch) = delayed.pop_front().unwrap();
                    inbox.lock().unwrap().extend_from_slice(&batch);
                }
            }
            ok(onity_runtime_tick(rt, timing), "tick");
        }
        frame_times.push(t0.elapsed().as_secs_f64() * 1e6);
        // Pace frames at 2 ms (a 500 fps game) so the workers get to run.
        if let Some(rest) = std::time::Duration::from_millis(2).checked_sub(t0.elapsed()) {
            std::thread::sleep(rest);
        }
        let mut s: OnityStats = unsafe { std::mem::zeroed() };
        s.size = std::mem::size_of::<OnityStats>() as u32;
        ok(onity_runtime_stats(rt, &mut s), "stats");
        for (series, w) in pending.iter_mut().zip(s.waits.iter()) {
            series.push(w.pending as f64);
        }
        if f % 50 == 0 || f == 1 {
            println!(
                "frame {f:4}: {:7.1} us  live tasks {:5}  pending waits {:5}  cross-thread queued {:4}",
                frame_times.last().unwrap(),
                s.live_tasks,
                s.waits.iter().map(|w| w.pending).sum::<u64>(),
                s.cross_thread_queued
            );
        }
    }
    let wall = started.elapsed();
    stop.store(true, Ordering::Relaxed);
    for w in workers {
        w.join().unwrap();
    }
    // Complete the inputs still held back, then let the last worker
    // completions reach their continuations.
    for (_, batch) in delayed.drain(..) {
        for h in batch {
            let _ = onity_task_set_result(rt, h, 0);
        }
    }
    ok(onity_runtime_drain(rt), "drain");

    let mut sorted = frame_times.clone();
    sorted.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let pct = |p: f64| sorted[((sorted.len() - 1) as f64 * p) as usize];
    println!(
        "\nframe time: mean {:.1} us, median {:.1} us, p95 {:.1} us, max {:.1} us ({} frames in {:.2} s)",
        frame_times.iter().sum::<f64>() / frame_times.len() as f64,
        pct(0.5),
        pct(0.95),
        pct(1.0),
        frames,
        wall.as_secs_f64()
    );
    let c = &ctx.counters;
    println!(
        "walker resumes {}, timer fires {}, races: {} won by a worker, {} timed out, {} canceled; when_all {}; \
         worker completions {}; continuations off the owner thread: {}",
        c.walker_resumes,
        c.timer_fires,
        c.races_won_by_worker,
        c.races_timed_out,
        c.races_canceled,
        c.when_all_done,
        completed_by_workers.load(Ordering::Relaxed),
        c.wrong_thread
    );

    let mut s: OnityStats = unsafe { std::mem::zeroed() };
    s.size = std::mem::size_of::<OnityStats>() as u32;
    ok(onity_runtime_stats(rt, &mut s), "stats");
    println!(
        "\n{:<16} {:>9} {:>9} {:>9} {:>10} {:>10} {:>10} {:>8} {:>8}",
        "pool", "capacity", "idle", "live", "high-water", "rents", "returns", "cold", "discards"
    );
    for (i, p) in s.pools.iter().enumerate() {
        // SAFETY: static NUL-terminated string.
        let name = unsafe { CStr::from_ptr(onity_pool_name(i as u32)) }.to_string_lossy();
        println!(
            "{:<16} {:>9} {:>9} {:>9} {:>10} {:>10} {:>10} {:>8} {:>8}",
            name, p.capacity, p.idle, p.live, p.high_water, p.rents, p.returns, p.cold_allocations, p.discards
        );
    }
    println!(
        "\n{:<12} {:>8} {:>10} {:>10} {:>10} {:>9}",
        "wait", "pending", "high-water", "scheduled", "completed", "canceled"
    );
    for (name, w) in WAIT_KINDS.iter().zip(s.waits.iter()) {
        println!(
            "{:<12} {:>8} {:>10} {:>10} {:>10} {:>9}",
            name, w.pending, w.high_water, w.scheduled, w.completed, w.canceled
        );
    }
    println!(
        "\nlive tasks {}, completed but never consumed {}, cross-thread queued {}",
        s.live_tasks, s.completed_unconsumed, s.cross_thread_queued
    );
    observe::print_site_report(rt, 0, 8);
    if let Some(path) = &args.trace {
        ok(onity_trace_stop(rt), "trace stop");
        if let Err(e) = observe::write_trace(rt, path) {
            eprintln!("demo: cannot write {}: {e}", path.display());
            std::process::exit(1);
        }
    }
    // Destroy with everything in flight: every wait and task is canceled
    // and its continuation runs once; nothing leaks.
    ok(onity_runtime_destroy(rt), "destroy");
    println!("runtime destroyed with {} tasks in flight: all canceled", s.live_tasks);
    assert_eq!(c.wrong_thread, 0);

    let picture = frame_svg(&frame_times, &pending, pct(0.5), pct(0.95));
    match std::fs::create_dir_all(svg_path.parent().unwrap_or(std::path::Path::new(".")))
        .and_then(|_| std::fs::write(&svg_path, picture))
    {
        Ok(()) => println!("\nframe time and pending waits per frame: {} (--svg PATH to choose)", svg_path.display()),
        Err(e) => {
            eprintln!("demo: cannot write {}: {e}", svg_path.display());
            std::process::exit(1);
        }
    }
}

/// The picture: frame time per frame, and the pending waits of each kind
/// and in all after every frame.
fn frame_svg(frame_times: &[f64], pending: &[Vec<f64>; 4], median: f64, p95: f64) -> String {
    use frame_chart::{Line, Panel};
    let total: Vec<f64> = (0..frame_times.len()).map(|i| pending.iter().map(|k| k[i]).sum()).collect();
    let colors = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd"];
    let mut waits: Vec<Line> =
        vec![Line { name: "all pending waits".into(), color: "#222", values: &total, bold: true }];
    for ((name, values), color) in WAIT_KINDS.iter().zip(pending.iter()).zip(colors) {
        waits.push(Line { name: (*name).into(), color, values, bold: false });
    }
    // A few preempted frames on a loaded machine can be 30x the median: then
    // a log axis keeps the ordinary frames readable.
    let log = frame_times.iter().cloned().fold(0.0, f64::max) > 10.0 * median;
    let panels = [
        Panel {
            y_label: if log { "frame time, µs (log scale)" } else { "frame time, µs (begin + 16 ticks)" },
            lines: vec![Line { name: "frame time".into(), color: "#1f77b4", values: frame_times, bold: true }],
            guides: vec![(median, format!("median {median:.0} µs")), (p95, format!("p95 {p95:.0} µs"))],
            log,
        },
        Panel { y_label: "pending waits (after the frame)", lines: waits, guides: vec![], log: false },
    ];
    frame_chart::svg(
        "onity demo: frame time and pending waits per frame",
        &format!(
            "{} frames paced at 2 ms, driven through the C ABI\n2,000 callback loops, 500 Delay timers, 64 WhenAny(8) races and a WhenAll(16) per frame; \
             2 worker threads complete their inputs",
            frame_times.len()
        ),
        "frame",
        &panels,
    )
}
