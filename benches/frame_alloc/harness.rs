//! The harness: persistent workers released by a generation counter, CPU
//! and active time per worker, the sets of a case, the interleaved 2-vs-1 mode.

use super::*;

pub(crate) fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: valid out-pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Minor page faults of the whole process so far.
pub(crate) fn minor_faults() -> u64 {
    // SAFETY: plain getrusage with a valid out-pointer.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    ru.ru_minflt as u64
}

/// Cost of one `thread_cpu_ns` pair, subtracted from CPU measurements.
pub(crate) fn cpu_clock_overhead_ns() -> u64 {
    (0..2000)
        .map(|_| {
            let a = thread_cpu_ns();
            let b = thread_cpu_ns();
            b - a
        })
        .min()
        .unwrap()
}

/// `ONITY_BENCH_JOB_THREADS=1`: every worker is a spawned thread and the
/// main thread only releases them and rewinds (Unity's benchmark runs its
/// workers as jobs). Default: the main thread is worker 0, so a 1-worker row
/// allocates on the rewinding thread and pays no cross-core transfer.
pub(crate) fn job_threads() -> bool {
    std::env::var("ONITY_BENCH_JOB_THREADS").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Waits for `cond`: pure spinning when every worker has a core of its own,
/// otherwise spin briefly then yield the core.
pub(crate) fn wait_until(spin_only: bool, mut cond: impl FnMut() -> bool) {
    let mut spins = 0u32;
    while !cond() {
        if spin_only || spins < 200 {
            spins += 1;
            std::hint::spin_loop();
        } else {
            thread::yield_now();
        }
    }
}

pub(crate) struct Control {
    /// Odd: measure; even (> 0): teardown. `u64::MAX`: stop.
    pub(crate) phase: Padded<AtomicU64>,
    pub(crate) done: Padded<AtomicUsize>,
    pub(crate) cpu_mode: Padded<AtomicUsize>,
    /// When the workers of a measured set start (ns since `base`; 0: at once).
    pub(crate) start_at: Padded<AtomicU64>,
    pub(crate) base: Instant,
    pub(crate) cpu_ns: Vec<Padded<AtomicU64>>,
    pub(crate) active_ns: Vec<Padded<AtomicU64>>,
}

/// How long before a measured set's start its release is published, when
/// every worker has a core: enough for a spinning worker to see the release
/// (50–350 ns here), so that the workers start together rather than the
/// releasing thread first.
pub(crate) const START_LEAD_NS: u64 = 3_000;

/// Spins until `base.elapsed()` reaches `at` nanoseconds.
pub(crate) fn spin_until(base: Instant, at: u64) {
    while (base.elapsed().as_nanos() as u64) < at {
        std::hint::spin_loop();
    }
}

pub(crate) struct Measured {
    /// OS allocations during the measured (non-warm-up) sets.
    pub(crate) os_allocs_measured: u64,
    /// Minor page faults of the process during the measured sets (both
    /// passes, teardowns included).
    pub(crate) faults_measured: u64,
    pub(crate) wall_ns: u64,
    pub(crate) cpu_ns: u64,
    pub(crate) active_ns: u64,
    /// Each worker's own best set (minimum of its active time over the
    /// sets), slowest worker: unlike `active_ns` it does not need every
    /// worker to have its best set in the same set.
    pub(crate) own_best_ns: u64,
}

pub(crate) fn worker_step<S: Subject>(
    ctl: &Control,
    subject: &S,
    w: usize,
    phase: u64,
    sizes: &[usize],
    out: &mut [*mut u8],
    clock_cost: u64,
) {
    if phase % 2 == 1 {
        spin_until(ctl.base, ctl.start_at.load(Ordering::Relaxed));
        if ctl.cpu_mode.load(Ordering::Relaxed) == 1 {
            let c0 = thread_cpu_ns();
            let t0 = Instant::now();
            subject.run(w, sizes, out);
            let active = t0.elapsed().as_nanos() as u64;
            let c1 = thread_cpu_ns();
            ctl.cpu_ns[w].store((c1 - c0).saturating_sub(clock_cost), Ordering::Relaxed);
            ctl.active_ns[w].store(active, Ordering::Relaxed);
        } else {
            subject.run(w, sizes, out);
        }
    } else {
        subject.worker_teardown(w, out);
    }
}

pub(crate) fn measure<S: Subject>(
    subject: &S,
    workers: usize,
    sizes: &[usize],
    warmup: usize,
    sets: usize,
    clock_cost: u64,
) -> Measured {
    let ctl = Control {
        phase: Padded(AtomicU64::new(0)),
        done: Padded(AtomicUsize::new(0)),
        cpu_mode: Padded(AtomicUsize::new(0)),
        start_at: Padded(AtomicU64::new(0)),
        base: Instant::now(),
        cpu_ns: (0..workers).map(|_| Padded(AtomicU64::new(0))).collect(),
        active_ns: (0..workers).map(|_| Padded(AtomicU64::new(0))).collect(),
    };
    let cores = thread::available_parallelism().map_or(1, |n| n.get());
    // Job-thread mode: every worker is a spawned thread; the main thread only
    // releases them and rewinds. Otherwise the main thread is worker 0.
    let jobs = job_threads();
    let first_spawned = usize::from(!jobs);
    let spawned = workers - first_spawned;
    let spin_only = workers + usize::from(jobs) <= cores;
    let mut best_wall = u64::MAX;
    let mut best_cpu = u64::MAX;
    let mut best_active = u64::MAX;
    let mut own_best = vec![u64::MAX; workers];
    let mut os_after_warmup = 0;
    let mut faults_after_warmup = 0;
    thread::scope(|sc| {
        for w in first_spawned..workers {
            let ctl = &ctl;
            sc.spawn(move || {
                let mut out = vec![ptr::null_mut::<u8>(); ALLOCS];
                let mut seen = 0u64;
                loop {
                    wait_until(spin_only, || ctl.phase.load(Ordering::Acquire) != seen);
                    seen = ctl.phase.load(Ordering::Acquire);
                    if seen == u64::MAX {
                        break;
                    }
                    worker_step(ctl, subject, w, seen, sizes, &mut out, clock_cost);
                    ctl.done.fetch_add(1, Ordering::AcqRel);
                }
            });
        }
        let mut out = vec![ptr::null_mut::<u8>(); ALLOCS];
        let mut phase = 0u64;
        // Pass 0: warm-up + wall time. Pass 1: per-worker CPU time.
        for pass in 0..2 {
            ctl.cpu_mode.store(pass, Ordering::Relaxed);
            let n = if pass == 0 { warmup + sets } else { sets };
            for set in 0..n {
                if pass == 0 && set == warmup {
                    os_after_warmup = subject.os_allocations();
                    faults_after_warmup = minor_faults();
                }
                // Measure. With a core per worker, every worker starts at
                // `start_at` (the wall time runs from there); otherwise at
                // once (the wall time runs from the release).
                ctl.done.store(0, Ordering::Relaxed);
                phase += 1;
                let t0 = Instant::now();
                let start_at = if spin_only { ctl.base.elapsed().as_nanos() as u64 + START_LEAD_NS } else { 0 };
                ctl.start_at.store(start_at, Ordering::Relaxed);
                ctl.phase.store(phase, Ordering::Release);
                if !jobs {
                    worker_step(&ctl, subject, 0, phase, sizes, &mut out, clock_cost);
                }
                wait_until(spin_only, || ctl.done.load(Ordering::Acquire) == spawned);
                let wall = if spin_only {
                    (ctl.base.elapsed().as_nanos() as u64).saturating_sub(start_at)
                } else {
                    t0.elapsed().as_nanos() as u64
                };
                if pass == 0 && set >= warmup {
                    best_wall = best_wall.min(wall);
                }
                if pass == 1 {
                    let slowest = ctl.cpu_ns.iter().map(|c| c.load(Ordering::Relaxed)).max().unwrap();
                    best_cpu = best_cpu.min(slowest);
                    let slowest = ctl.active_ns.iter().map(|c| c.load(Ordering::Relaxed)).max().unwrap();
                    best_active = best_active.min(slowest);
                    for (b, a) in own_best.iter_mut().zip(&ctl.active_ns) {
                        *b = (*b).min(a.load(Ordering::Relaxed));
                    }
                }
                // Teardown (untimed).
                ctl.done.store(0, Ordering::Relaxed);
                phase += 1;
                ctl.phase.store(phase, Ordering::Release);
                if !jobs {
                    worker_step(&ctl, subject, 0, phase, sizes, &mut out, clock_cost);
                }
                wait_until(spin_only, || ctl.done.load(Ordering::Acquire) == spawned);
                subject.teardown();
            }
        }
        ctl.phase.store(u64::MAX, Ordering::Release);
    });
    Measured {
        os_allocs_measured: subject.os_allocations() - os_after_warmup,
        faults_measured: minor_faults() - faults_after_warmup,
        wall_ns: best_wall,
        cpu_ns: best_cpu,
        active_ns: best_active,
        own_best_ns: own_best.iter().copied().max().unwrap_or(0),
    }
}

/// Which workers run in a set of the interleaved measurement.
pub(crate) const ALONE_MAIN: usize = 0b01;
pub(crate) const ALONE_SPAWNED: usize = 0b10;
pub(crate) const BOTH: usize = 0b11;

/// 2 workers against 1, measured side by side in one process: two threads
/// (the main thread, which also rewinds, and one spawned thread) and three
/// kinds of set in rotating order, `rounds` of each: the main thread alone,
/// the spawned thread alone (the main thread only releases it and rewinds,
/// as in Unity's benchmark, whose workers are jobs), and both. Whatever the
/// machine does over seconds (other load, frequency, placement) hits the
/// three kinds alike. Every set starts at a common deadline (see
/// [`START_LEAD_NS`]); a set with both threads counts only if at least 90 %
/// of the shorter timed run overlaps the other, so that "both" means both at
/// once.
pub(crate) fn measure_interleaved<S: Subject>(subject: &S, sizes: &[usize], rounds: usize) -> Interleaved {
    let phase = Padded(AtomicU64::new(0));
    let mask = Padded(AtomicUsize::new(0));
    let done = Padded(AtomicUsize::new(0));
    let start_at = Padded(AtomicU64::new(0));
    let spawned_span = Padded([AtomicU64::new(0), AtomicU64::new(0)]);
    let base = Instant::now();
    let now = || base.elapsed().as_nanos() as u64;
    let mut r = Interleaved { best: [u64::MAX; 4], both_sets: 0, both_kept: 0 };
    thread::scope(|sc| {
        sc.spawn(|| {
            let mut out = vec![ptr::null_mut::<u8>(); ALLOCS];
            let mut seen = 0u64;
            loop {
                wait_until(true, || phase.load(Ordering::Acquire) != seen);
                seen = phase.load(Ordering::Acquire);
                if seen == u64::MAX {
                    break;
                }
                if mask.load(Ordering::Relaxed) & ALONE_SPAWNED != 0 {
                    if seen % 2 == 1 {
                        spin_until(base, start_at.load(Ordering::Relaxed));
                        let t0 = now();
                        subject.run(1, sizes, &mut out);
                        let t1 = now();
                        spawned_span.0[0].store(t0, Ordering::Relaxed);
                        spawned_span.0[1].store(t1, Ordering::Relaxed);
                    } else {
                        subject.worker_teardown(1, &mut out);
                    }
                }
                done.fetch_add(1, Ordering::AcqRel);
            }
        });
        let mut out = vec![ptr::null_mut::<u8>(); ALLOCS];
        let mut ph = 0u64;
        let kinds = [ALONE_MAIN, ALONE_SPAWNED, BOTH];
        // 5 warm-up rounds, then `rounds` measured ones.
        for round in 0..rounds + 5 {
            for k in 0..3 {
                let m = kinds[(round + k) % 3];
                mask.store(m, Ordering::Relaxed);
                let mut main_span = (0, 0);
                for step in 0..2 {
                    done.store(0, Ordering::Relaxed);
                    ph += 1;
                    if step == 0 {
                        start_at.store(now() + START_LEAD_NS, Ordering::Relaxed);
                    }
                    phase.store(ph, Ordering::Release);
                    if m & ALONE_MAIN != 0 {
                        if step == 0 {
                            spin_until(base, start_at.load(Ordering::Relaxed));
                            let t0 = now();
                            subject.run(0, sizes, &mut out);
                            main_span = (t0, now());
                        } else {
                            subject.worker_teardown(0, &mut out);
                        }
                    }
                    wait_until(true, || done.load(Ordering::Acquire) == 1);
                }
                subject.teardown();
                if round < 5 {
                    continue;
                }
                let sp = (spawned_span.0[0].load(Ordering::Relaxed), spawned_span.0[1].load(Ordering::Relaxed));
                let (main_ns, sp_ns) = (main_span.1 - main_span.0, sp.1 - sp.0);
                match m {
                    ALONE_MAIN => r.best[0] = r.best[0].min(main_ns),
                    ALONE_SPAWNED => r.best[1] = r.best[1].min(sp_ns),
                    _ => {
                        r.both_sets += 1;
                        let overlap = main_span.1.min(sp.1).saturating_sub(main_span.0.max(sp.0));
                        if overlap * 10 >= main_ns.min(sp_ns) * 9 {
                            r.both_kept += 1;
                            r.best[2] = r.best[2].min(main_ns);
                            r.best[3] = r.best[3].min(sp_ns);
                        }
                    }
                }
            }
        }
        phase.store(u64::MAX, Ordering::Release);
    });
    r
}

/// What [`measure_interleaved`] returns.
pub(crate) struct Interleaved {
    /// Each thread's own best active time per kind: `[main alone, spawned
    /// alone, main with both, spawned with both]` (`u64::MAX`: no set).
    pub(crate) best: [u64; 4],
    /// Sets with both threads, and those of them that overlapped enough.
    pub(crate) both_sets: u64,
    pub(crate) both_kept: u64,
}

/// `ONITY_BENCH_INTERLEAVED=N`: the 2-vs-1 table from [`measure_interleaved`]
/// for the onity and thread-local columns, instead of the full benchmark.
/// The N rounds of every row are split into [`BLOCKS`] blocks run in turn
/// across the rows, so each row is measured throughout the run and a burst of
/// other load (which slows the sets with both threads most: they need both
/// cores) cannot spoil a whole row.
pub(crate) fn run_interleaved(rounds: usize, filter: Option<&str>) {
    const BLOCKS: usize = 10;
    let per_block = rounds.div_ceil(BLOCKS);
    println!(
        "## 2 workers vs 1, interleaved in one process ({} rounds per row in {BLOCKS} blocks; each thread's own best \
         active time, ns)\n",
        per_block * BLOCKS
    );
    println!(
        "Every set starts at a common deadline; a set with both threads counts only if 90 % or more of the shorter \
         run overlaps the other (kept: how many did). Per thread: each thread's best set with both threads allocating against its \
         best set alone (`main` also rewinds; `spawned` is a worker thread, as a job). Vs main alone: the slower \
         thread with both against the main thread alone. Spawned / main: the two threads alone (what a rewind on \
         the other core costs the worker).\n"
    );
    struct Subjects {
        name: String,
        sizes: Vec<usize>,
        ours: Ours,
        tls: ThreadLocalBump,
        best: [[u64; 4]; 2],
        both: [(u64, u64); 2],
    }
    let mut rows: Vec<Subjects> = all_cases()
        .into_iter()
        .filter(|c| c.workers == 2)
        // The filter matches the case's own name or the table's `(w, ..)` form.
        .filter(|c| filter.map_or(true, |f| c.name().contains(f) || c.name_w().contains(f)))
        .map(|c| {
            let sizes = c.sizes();
            let tls = ThreadLocalBump::new(2, per_worker_bytes(&sizes));
            let name = c.name_w();
            Subjects { name, sizes, ours: Ours::new(), tls, best: [[u64::MAX; 4]; 2], both: [(0, 0); 2] }
        })
        .collect();
    assert!(!rows.is_empty(), "no 2-worker row matches the filter");
    for _ in 0..BLOCKS {
        for r in &mut rows {
            let results =
                [measure_interleaved(&r.ours, &r.sizes, per_block), measure_interleaved(&r.tls, &r.sizes, per_block)];
            for (col, m) in results.into_iter().enumerate() {
                for (best, v) in r.best[col].iter_mut().zip(m.best) {
                    *best = (*best).min(v);
                }
                r.both[col].0 += m.both_sets;
                r.both[col].1 += m.both_kept;
            }
        }
    }
    println!(
        "| row | column | main alone | spawned alone | main, both | spawned, both | per thread (max) | vs main alone \
         | spawned / main alone | both sets kept |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for r in &rows {
        for ((col, b), (sets, kept)) in ["onity", "thread-local"].into_iter().zip(r.best).zip(r.both) {
            assert!(kept > 0, "{} {col}: no set with both threads overlapped enough", r.name);
            let per_thread = (b[2] as f64 / b[0] as f64).max(b[3] as f64 / b[1] as f64);
            let vs_main = b[2].max(b[3]) as f64 / b[0] as f64;
            let mark = |x: f64| if x <= 1.3 { "✓" } else { "✗" };
            println!(
                "| {} | {col} | {} | {} | {} | {} | {per_thread:.2}x {} | {vs_main:.2}x {} | {:.2}x | {kept} of {sets} |",
                r.name,
                b[0],
                b[1],
                b[2],
                b[3],
                mark(per_thread),
                mark(vs_main),
                b[1] as f64 / b[0] as f64
            );
        }
    }
    let os: u64 = rows.iter().map(|r| r.ours.os_allocations()).sum();
    println!("\nonity OS allocations over the whole run (all rows, warm-up included): {os}");
}
