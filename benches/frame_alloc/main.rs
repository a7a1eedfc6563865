//! Frame allocator benchmark in the shape of Unity's allocator benchmark
//! table (RewindableAllocator vs Temp vs Persistent).
//!
//! Run: `cargo bench --bench frame_alloc` (add `ONITY_BENCH_QUICK=1` for a
//! short smoke run, `ONITY_BENCH_SETS=N` to measure N sets instead of 50; a
//! non-flag argument filters cases by substring, e.g.
//! `cargo bench --bench frame_alloc -- FixedSize`).
//!
//! Harness (as Unity's): every worker makes the same 150 consecutive
//! allocations per sample set (work duplicated, not split); 5 warm-up sets;
//! the minimum of 50 sets is taken. The matrix runs in 3 processes one after
//! the other (`ONITY_BENCH_PROCESSES=K`; 1 in quick mode) and every value
//! reported is the best of the processes: how fast a row runs moves by up to
//! 2x between processes on this machine (where their memory lands), and
//! unevenly between columns. Workers are persistent threads (the
//! main thread is worker 0; with `ONITY_BENCH_JOB_THREADS=1` every worker
//! is a spawned thread and the main thread only releases them and rewinds)
//! released by an atomic generation counter; a
//! set's wall time runs from the release to the last worker done. Waiting
//! workers spin when each has a core, otherwise spin briefly then `yield`,
//! so oversubscribed runs (4 and 8 workers on a 2-core machine) measure
//! scheduling too, like Unity's job scheduling. A second pass of 50 sets
//! measures each worker's CPU time with `CLOCK_THREAD_CPUTIME_ID` (minus the
//! clock's own cost) and its active time with the monotonic clock around its
//! 150 allocations (reported: the slowest worker of a set, minimum over
//! sets), and each worker's own best set (minimum over sets of its active
//! time, slowest worker: the per-worker cost without needing every worker's
//! best set to fall in the same set). `scripts/frame-alloc-scaling.sh`
//! runs 1- and 2-worker processes alternately and prints the 2-vs-1 ratios
//! of the best over all runs; `ONITY_BENCH_INTERLEAVED=N` (and
//! `scripts/frame-alloc-interleaved.sh`) measures 2 workers against 1 in one
//! process instead, the sets of its three kinds interleaved. The frame allocator uses `prefault: true` and the bump buffers
//! are pre-faulted, so no column but malloc pays first-touch page faults.
//!
//! Profiling aid: `ONITY_BENCH_ONLY_OURS=N` runs only the onity column (N
//! times as many sets) and prints its block statistics.
//!
//! Columns:
//! - onity `FrameAllocator`, `Lifetime::Frame` (rewound after each set);
//! - one shared atomic bump pointer with a CAS loop per allocation (the
//!   analogue of Unity's RewindableAllocator);
//! - a thread-local bump allocator, one preallocated buffer per worker (the
//!   analogue of Unity's Temp);
//! - `libc::malloc` (the analogue of Persistent and the ratio baseline).
//!   Only the mallocs are timed; each worker frees its blocks after the set,
//!   outside the timed region, as Unity's benchmark frees in its Teardown.
//!
//! Every allocation is 16-byte aligned and has one byte written (volatile)
//! so nothing is optimised away.

use onity::core::frame_alloc::{FrameAllocConfig, FrameAllocStats, FrameAllocator, Lifetime};
use std::alloc::{self, Layout};
use std::hint::black_box;
use std::ptr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::thread;
use std::time::Instant;

// The pieces: the allocators measured, the timing harness, the tables.
mod harness;
mod report;
mod subjects;
use harness::*;
use report::*;
use subjects::*;

const ALLOCS: usize = 150;
const ALIGN: usize = 16;
const WORKERS: [usize; 4] = [1, 2, 4, 8];

// ---------------------------------------------------------------------------
// Cases
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq)]
enum Shape {
    Fixed,
    Inc,
    Dec,
}

#[derive(Clone, Copy)]
struct Case {
    shape: Shape,
    workers: usize,
    size: usize,
}

impl Case {
    fn name(&self) -> String {
        let s = match self.shape {
            Shape::Fixed => "FixedSize",
            Shape::Inc => "IncSize",
            Shape::Dec => "DecSize",
        };
        format!("{s}({}, {})", self.workers, self.size)
    }

    fn sizes(&self) -> Vec<usize> {
        (0..ALLOCS)
            .map(|i| match self.shape {
                Shape::Fixed => self.size,
                Shape::Inc => (i + 1) * self.size,
                Shape::Dec => (ALLOCS - i) * self.size,
            })
            .collect()
    }
}

impl Case {
    /// The row's name with the worker count as `w` (the 2-vs-1 tables).
    fn name_w(&self) -> String {
        self.name().replace(&format!("({}, ", self.workers), "(w, ")
    }
}

/// Bytes one worker's set needs in a bump buffer: every size aligned, plus slack.
fn per_worker_bytes(sizes: &[usize]) -> usize {
    sizes.iter().map(|s| (s + ALIGN - 1) & !(ALIGN - 1)).sum::<usize>() + ALIGN
}

fn all_cases() -> Vec<Case> {
    let mut v = Vec::new();
    for size in [1024, 1 << 20] {
        for workers in WORKERS {
            v.push(Case { shape: Shape::Fixed, workers, size });
        }
    }
    for shape in [Shape::Inc, Shape::Dec] {
        for size in [4096, 65536] {
            for workers in WORKERS {
                v.push(Case { shape, workers, size });
            }
        }
    }
    v
}

fn main() {
    // The harness's threads wait for each other by spinning, so a panic on
    // any of them (a failed allocation, a bad line from a child process)
    // would leave the others spinning forever: end the whole process
    // instead, after the default report, with the exit status of a panic.
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        report(info);
        std::process::exit(101);
    }));
    let quick = std::env::var("ONITY_BENCH_QUICK").is_ok_and(|v| !v.is_empty() && v != "0");
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    // Profiling aid: ONITY_BENCH_ONLY_OURS=N runs only the onity column, N times as many sets.
    let only_ours = std::env::var("ONITY_BENCH_ONLY_OURS").is_ok_and(|v| !v.is_empty() && v != "0");
    let (warmup, mut sets) = if quick { (1, 5) } else { (5, 50) };
    // ONITY_BENCH_SETS=N: N measured sets instead of 50 (less noise on a
    // shared machine; the seed's harness uses 50).
    if let Some(n) = std::env::var("ONITY_BENCH_SETS").ok().and_then(|v| v.parse::<usize>().ok()).filter(|&n| n > 0) {
        sets = n;
    }
    if let Ok(v) = std::env::var("ONITY_BENCH_INTERLEAVED") {
        let n = v.parse::<usize>().ok().filter(|&n| n > 0);
        run_interleaved(n.expect("ONITY_BENCH_INTERLEAVED: a number of rounds > 0"), filter.as_deref());
        return;
    }
    let clock_cost = cpu_clock_overhead_ns();
    let cores = thread::available_parallelism().map_or(0, |n| n.get());
    let cpu_model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into());

    // ONITY_BENCH_PROCESSES=K (default 3, as the seed's method; 1 in quick
    // mode): the matrix runs in K processes and each value is the best of them.
    let child = std::env::var("ONITY_BENCH_CHILD").is_ok();
    let processes = if child || only_ours {
        1
    } else {
        std::env::var("ONITY_BENCH_PROCESSES")
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|&n| n > 0)
            .unwrap_or(if quick { 1 } else { 3 })
    };
    let mut rows = Vec::new();
    let mut peak_kb = 0;
    if processes > 1 {
        (rows, peak_kb) = run_processes(processes);
    }
    for case in all_cases().into_iter().filter(|_| processes == 1) {
        let name = case.name();
        if filter.as_ref().is_some_and(|f| !name.contains(f.as_str())) {
            continue;
        }
        let sizes = case.sizes();
        let per_worker = per_worker_bytes(&sizes);
        let w = case.workers;

        if only_ours {
            let ours = Ours::new();
            let reps: usize = std::env::var("ONITY_BENCH_ONLY_OURS").unwrap().parse().unwrap_or(1);
            let m = measure(&ours, w, &sizes, warmup, sets * reps, clock_cost);
            let st = ours.0.stats();
            eprintln!(
                "{name:<22} ours {:>10} cpu {:>10} active {:>10} own best {:>10} | OS allocations {} ({} and {} page faults during \
                 the {} measured sets), reserved {} MiB (peak {} MiB), claimed {} MiB, high water {} MiB",
                fmt_us(m.wall_ns),
                fmt_us(m.cpu_ns),
                fmt_us(m.active_ns),
                fmt_us(m.own_best_ns),
                st.os_allocations,
                m.os_allocs_measured,
                m.faults_measured,
                sets * reps * 2,
                st.bytes_reserved >> 20,
                ours.peak_reserved() >> 20,
                st.bytes_claimed >> 20,
                st.high_water_bytes_in_use >> 20
            );
            continue;
        }
        let ours = Ours::new();
        let m_ours = measure(&ours, w, &sizes, warmup, sets, clock_cost);
        let ours_stats = ours.0.stats();
        let ours_peak = ours.peak_reserved();
        drop(ours);

        let shared = SharedAtomicBump { buf: Buffer::new(per_worker * w), top: Cursor(AtomicUsize::new(0)) };
        let m_shared = measure(&shared, w, &sizes, warmup, sets, clock_cost);
        drop(shared);

        let tls = ThreadLocalBump::new(w, per_worker);
        let m_tls = measure(&tls, w, &sizes, warmup, sets, clock_cost);
        drop(tls);

        let m_malloc = measure(&Malloc, w, &sizes, warmup, sets, clock_cost);

        eprintln!(
            "{name:<22} ours {:>10} shared {:>10} tls {:>10} malloc {:>10} | cpu ours {:>9} shared {:>9}",
            fmt_us(m_ours.wall_ns),
            fmt_us(m_shared.wall_ns),
            fmt_us(m_tls.wall_ns),
            fmt_us(m_malloc.wall_ns),
            fmt_us(m_ours.cpu_ns),
            fmt_us(m_shared.cpu_ns),
        );
        rows.push(Row { name, case, results: [m_ours, m_shared, m_tls, m_malloc], ours_stats, ours_peak });
    }
    if child {
        for r in &rows {
            println!("{}", encode_row(r));
        }
        println!("HWM\t{}", peak_resident_kb());
        return;
    }

    println!("# Frame allocator benchmark\n");
    println!(
        "Machine: {cpu_model}, {cores} logical cores (this machine has only {cores} cores: runs with 4 and 8 workers are \
         oversubscribed, so their wall time includes OS scheduling; see the per-worker CPU table)."
    );
    println!(
        "{ALLOCS} consecutive allocations per worker per sample set (work duplicated on every worker); \
         {warmup} warm-up sets; minimum of {sets} sets{}; ratio = malloc / column (higher is faster). \
         🟢 fastest, 🟠 slowest in the row.{}",
        if processes > 1 {
            format!(" in each of {processes} processes run one after the other, best of the processes")
        } else {
            String::new()
        },
        if quick { " QUICK MODE (ONITY_BENCH_QUICK): not representative." } else { "" }
    );
    println!(
        "\nWorkers: {}.",
        if job_threads() {
            "job threads (ONITY_BENCH_JOB_THREADS=1): every worker is a spawned thread; the main thread only \
             releases them and rewinds"
        } else {
            "the main thread is worker 0 and also rewinds; workers 1.. are spawned threads"
        }
    );
    print_table(&rows, "## Wall time per sample set (release to last worker done)", |m| m.wall_ns);
    print_table(
        &rows,
        &format!(
            "## Per-worker CPU time per sample set (CLOCK_THREAD_CPUTIME_ID, slowest worker, minimum over sets, \
             clock cost of {} subtracted)",
            if processes > 1 {
                "the clock's cost measured in each process".to_string()
            } else {
                format!("{clock_cost} ns")
            }
        ),
        |m| m.cpu_ns,
    );
    print_table(
        &rows,
        "## Per-worker active time per sample set (monotonic clock around the worker's 150 allocations, slowest \
         worker, minimum over sets; equals CPU time when the worker is not preempted, with a finer clock)",
        |m| m.active_ns,
    );

    print_table(
        &rows,
        "## Per-worker best set (each worker's own minimum of its active time over the sets, slowest worker; \
         does not need every worker's best set to fall in the same set)",
        |m| m.own_best_ns,
    );

    // Targets.
    println!("\n## Targets\n");
    let find = |shape: Shape, w: usize, size: usize| {
        rows.iter().find(|r| r.case.shape == shape && r.case.workers == w && r.case.size == size)
    };
    if let Some(r) = find(Shape::Fixed, 1, 1024) {
        let v = r.results[0].wall_ns;
        println!("- FixedSize(1, 1024) ≤ 0.5 µs per set: {} ({})", fmt_us(v), if v <= 500 { "met" } else { "NOT met" });
    }
    for (shape, size) in [
        (Shape::Fixed, 1024),
        (Shape::Fixed, 1 << 20),
        (Shape::Inc, 4096),
        (Shape::Inc, 65536),
        (Shape::Dec, 4096),
        (Shape::Dec, 65536),
    ] {
        if let (Some(a), Some(b)) = (find(shape, 1, size), find(shape, 2, size)) {
            let ratio = |col: usize, pick: fn(&Measured) -> u64| {
                pick(&b.results[col]) as f64 / pick(&a.results[col]).max(1) as f64
            };
            let (cpu, active, own) = (ratio(0, |m| m.cpu_ns), ratio(0, |m| m.active_ns), ratio(0, |m| m.own_best_ns));
            let verdict = |r: f64| if r <= 1.3 { "within 1.3x" } else { "NOT within 1.3x" };
            println!(
                "- per-worker time, 2 workers vs 1, {}: CPU {:.2}x ({}), active {:.2}x ({}), each worker's own best \
                 set {:.2}x ({}); same ratios of the thread-local bump column (nothing shared; the machine's own \
                 2-vs-1 effect): CPU {:.2}x, active {:.2}x, own best {:.2}x",
                b.case.name_w(),
                cpu,
                verdict(cpu),
                active,
                verdict(active),
                own,
                verdict(own),
                ratio(2, |m| m.cpu_ns),
                ratio(2, |m| m.active_ns),
                ratio(2, |m| m.own_best_ns)
            );
        }
    }
    for (label, pick) in [
        ("wall", (|m: &Measured| m.wall_ns) as fn(&Measured) -> u64),
        ("per-worker CPU", |m: &Measured| m.cpu_ns),
        ("per-worker active", |m: &Measured| m.active_ns),
    ] {
        let behind: Vec<&str> =
            rows.iter().filter(|r| pick(&r.results[0]) >= pick(&r.results[1])).map(|r| r.name.as_str()).collect();
        if behind.is_empty() {
            println!("- {label} time: ahead of the shared-atomic column in every row");
        } else {
            println!(
                "- {label} time: ahead of the shared-atomic column in {} of {} rows; not in: {}",
                rows.len() - behind.len(),
                rows.len(),
                behind.join(", ")
            );
        }
    }
    report_nonzero(
        &rows,
        |m| m.os_allocs_measured,
        "- onity FrameAllocator made no OS allocation after the warm-up sets in any row (of any process)",
        "- onity FrameAllocator OS allocations after the warm-up sets (summed over the processes)",
    );
    report_nonzero(
        &rows,
        |m| m.faults_measured,
        "- no page fault in the process during the onity column's measured sets, in any row (of any process)",
        "- page faults in the process during the onity column's measured sets (summed over the processes)",
    );

    println!(
        "\n## onity FrameAllocator memory per row (after the run{})\n",
        if processes > 1 { " of the first process; peak reserved: the highest of the processes" } else { "" }
    );
    println!(
        "| Functionality | live per set (all workers) | high water | claimed by threads | reserved | peak reserved | OS \
         allocations |"
    );
    println!("|---|---|---|---|---|---|---|");
    for r in &rows {
        let s = &r.ours_stats;
        let mib = |b: u64| format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64);
        println!(
            "| {} | {} | {} | {} | {} | {} | {} |",
            r.name,
            mib(r.case.sizes().iter().sum::<usize>() as u64 * r.case.workers as u64),
            mib(s.high_water_bytes_in_use),
            mib(s.bytes_claimed),
            mib(s.bytes_reserved),
            mib(r.ours_peak),
            s.os_allocations
        );
    }
    // Peak resident memory of the whole run (all columns; the frame
    // allocator and the bump buffers are pre-faulted).
    let hwm = if processes > 1 { peak_kb } else { peak_resident_kb() };
    if hwm > 0 {
        let of = if processes > 1 { format!(", highest of the {processes} processes") } else { String::new() };
        println!("\nPeak resident set size of the benchmark process (VmHWM{of}): {hwm} kB.");
    }
}

/// This process's peak resident set size (VmHWM), in kB; 0 if unknown.
fn peak_resident_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l["VmHWM:".len()..].trim().trim_end_matches(" kB").parse().ok())
        })
        .unwrap_or(0)
}
