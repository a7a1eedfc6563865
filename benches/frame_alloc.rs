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

// ---------------------------------------------------------------------------
// Subjects
// ---------------------------------------------------------------------------

#[inline(always)]
fn touch(p: *mut u8, i: usize) {
    // SAFETY: `p` points at a fresh allocation of at least one byte.
    unsafe { ptr::write_volatile(p, i as u8) };
    black_box(p);
}

trait Subject: Sync {
    /// Worker `w`'s timed work: allocate every size, store the pointers.
    fn run(&self, w: usize, sizes: &[usize], out: &mut [*mut u8]);
    /// Worker `w`, after the set, untimed.
    fn worker_teardown(&self, _w: usize, _out: &mut [*mut u8]) {}
    /// Main thread, after every worker's teardown, untimed.
    fn teardown(&self) {}
    /// OS allocations so far, if the subject counts them.
    fn os_allocations(&self) -> u64 {
        0
    }
}

struct Ours(FrameAllocator, AtomicU64);

impl Ours {
    fn new() -> Self {
        Ours(FrameAllocator::new(ours_config()), AtomicU64::new(0))
    }
    /// Highest `bytes_reserved` seen at the end of a set (before its rewind).
    fn peak_reserved(&self) -> u64 {
        self.1.load(Ordering::Relaxed)
    }
}

impl Subject for Ours {
    fn run(&self, _w: usize, sizes: &[usize], out: &mut [*mut u8]) {
        for (i, (&s, o)) in sizes.iter().zip(out.iter_mut()).enumerate() {
            let p = match self.0.alloc(Lifetime::Frame, s, ALIGN) {
                Ok(p) => p.as_ptr(),
                Err(e) => panic!("frame allocator failed: {e}"),
            };
            touch(p, i);
            *o = p;
        }
    }
    fn teardown(&self) {
        self.1.fetch_max(self.0.stats().bytes_reserved, Ordering::Relaxed);
        self.0.rewind();
    }
    fn os_allocations(&self) -> u64 {
        self.0.stats().os_allocations
    }
}

struct Malloc;

impl Subject for Malloc {
    fn run(&self, _w: usize, sizes: &[usize], out: &mut [*mut u8]) {
        for (i, (&s, o)) in sizes.iter().zip(out.iter_mut()).enumerate() {
            // SAFETY: plain malloc; checked for null below.
            let p = unsafe { libc::malloc(s) } as *mut u8;
            assert!(!p.is_null(), "malloc failed");
            touch(p, i);
            *o = p;
        }
    }
    fn worker_teardown(&self, _w: usize, out: &mut [*mut u8]) {
        for p in out.iter_mut() {
            // SAFETY: allocated by `run` with malloc, freed once.
            unsafe { libc::free(*p as *mut libc::c_void) };
            *p = ptr::null_mut();
        }
    }
}

/// An owned, page-aligned buffer.
struct Buffer {
    base: *mut u8,
    layout: Layout,
}

impl Buffer {
    fn new(bytes: usize) -> Self {
        let layout = Layout::from_size_align(bytes.max(1), 4096).unwrap();
        // SAFETY: non-zero size.
        let base = unsafe { alloc::alloc(layout) };
        assert!(!base.is_null(), "buffer allocation failed");
        // Pre-fault, as the frame allocator does with `prefault: true`.
        for off in (0..layout.size()).step_by(4096) {
            // SAFETY: in bounds.
            unsafe { ptr::write_volatile(base.add(off), 0) };
        }
        Buffer { base, layout }
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout.
        unsafe { alloc::dealloc(self.base, self.layout) };
    }
}

// SAFETY: the buffer is only a region of memory; the subjects below make
// sure threads use disjoint parts of it.
unsafe impl Sync for Buffer {}
unsafe impl Send for Buffer {}

#[repr(align(64))]
struct Cursor(AtomicUsize);

/// A value on cache lines of its own (two: adjacent-line prefetch pairs lines), so that
/// the harness's synchronisation writes never invalidate a line a timed thread uses (its
/// stack, or another control variable).
#[repr(align(128))]
struct Padded<T>(T);

impl<T> std::ops::Deref for Padded<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// Temp analogue: one buffer and one cursor per worker, nothing shared.
struct ThreadLocalBump {
    bufs: Vec<Buffer>,
    cursors: Vec<Cursor>,
}

impl ThreadLocalBump {
    fn new(workers: usize, per_worker: usize) -> Self {
        ThreadLocalBump {
            bufs: (0..workers).map(|_| Buffer::new(per_worker)).collect(),
            cursors: (0..workers).map(|_| Cursor(AtomicUsize::new(0))).collect(),
        }
    }
}

impl Subject for ThreadLocalBump {
    fn run(&self, w: usize, sizes: &[usize], out: &mut [*mut u8]) {
        let buf = &self.bufs[w];
        // Only worker `w` touches its cursor: keep it in a register.
        let mut cur = self.cursors[w].0.load(Ordering::Relaxed);
        for (i, (&s, o)) in sizes.iter().zip(out.iter_mut()).enumerate() {
            let start = (cur + ALIGN - 1) & !(ALIGN - 1);
            assert!(start + s <= buf.layout.size(), "thread-local buffer too small");
            // SAFETY: in bounds (checked above).
            let p = unsafe { buf.base.add(start) };
            cur = start + s;
            touch(p, i);
            *o = p;
        }
        self.cursors[w].0.store(cur, Ordering::Relaxed);
    }
    fn worker_teardown(&self, w: usize, _out: &mut [*mut u8]) {
        self.cursors[w].0.store(0, Ordering::Relaxed);
    }
}

/// Rewindable analogue: one bump pointer shared by every worker, advanced
/// with a compare-and-swap loop per allocation.
struct SharedAtomicBump {
    buf: Buffer,
    top: Cursor,
}

impl Subject for SharedAtomicBump {
    fn run(&self, _w: usize, sizes: &[usize], out: &mut [*mut u8]) {
        let cap = self.buf.layout.size();
        for (i, (&s, o)) in sizes.iter().zip(out.iter_mut()).enumerate() {
            let mut cur = self.top.0.load(Ordering::Relaxed);
            let start = loop {
                let start = (cur + ALIGN - 1) & !(ALIGN - 1);
                assert!(start + s <= cap, "shared buffer too small");
                match self.top.0.compare_exchange_weak(cur, start + s, Ordering::AcqRel, Ordering::Relaxed) {
                    Ok(_) => break start,
                    Err(now) => cur = now,
                }
            };
            // SAFETY: in bounds (checked above).
            let p = unsafe { self.buf.base.add(start) };
            touch(p, i);
            *o = p;
        }
    }
    fn teardown(&self) {
        self.top.0.store(0, Ordering::Relaxed);
    }
}

/// Default configuration plus `prefault`, so that no column pays page
/// faults for memory it reuses (the bump buffers are pre-faulted too; malloc
/// is measured as it is).
fn ours_config() -> FrameAllocConfig {
    FrameAllocConfig { prefault: true, ..FrameAllocConfig::default() }
}

// ---------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------

fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: valid out-pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Minor page faults of the whole process so far.
fn minor_faults() -> u64 {
    // SAFETY: plain getrusage with a valid out-pointer.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    ru.ru_minflt as u64
}

/// Cost of one `thread_cpu_ns` pair, subtracted from CPU measurements.
fn cpu_clock_overhead_ns() -> u64 {
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
fn job_threads() -> bool {
    std::env::var("ONITY_BENCH_JOB_THREADS").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Waits for `cond`: pure spinning when every worker has a core of its own,
/// otherwise spin briefly then yield the core.
fn wait_until(spin_only: bool, mut cond: impl FnMut() -> bool) {
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

struct Control {
    /// Odd: measure; even (> 0): teardown. `u64::MAX`: stop.
    phase: Padded<AtomicU64>,
    done: Padded<AtomicUsize>,
    cpu_mode: Padded<AtomicUsize>,
    /// When the workers of a measured set start (ns since `base`; 0: at once).
    start_at: Padded<AtomicU64>,
    base: Instant,
    cpu_ns: Vec<Padded<AtomicU64>>,
    active_ns: Vec<Padded<AtomicU64>>,
}

/// How long before a measured set's start its release is published, when
/// every worker has a core: enough for a spinning worker to see the release
/// (50–350 ns here), so that the workers start together rather than the
/// releasing thread first.
const START_LEAD_NS: u64 = 3_000;

/// Spins until `base.elapsed()` reaches `at` nanoseconds.
fn spin_until(base: Instant, at: u64) {
    while (base.elapsed().as_nanos() as u64) < at {
        std::hint::spin_loop();
    }
}

struct Measured {
    /// OS allocations during the measured (non-warm-up) sets.
    os_allocs_measured: u64,
    /// Minor page faults of the process during the measured sets (both
    /// passes, teardowns included).
    faults_measured: u64,
    wall_ns: u64,
    cpu_ns: u64,
    active_ns: u64,
    /// Each worker's own best set (minimum of its active time over the
    /// sets), slowest worker: unlike `active_ns` it does not need every
    /// worker to have its best set in the same set.
    own_best_ns: u64,
}

fn worker_step<S: Subject>(
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

fn measure<S: Subject>(
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
const ALONE_MAIN: usize = 0b01;
const ALONE_SPAWNED: usize = 0b10;
const BOTH: usize = 0b11;

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
fn measure_interleaved<S: Subject>(subject: &S, sizes: &[usize], rounds: usize) -> Interleaved {
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
struct Interleaved {
    /// Each thread's own best active time per kind: `[main alone, spawned
    /// alone, main with both, spawned with both]` (`u64::MAX`: no set).
    best: [u64; 4],
    /// Sets with both threads, and those of them that overlapped enough.
    both_sets: u64,
    both_kept: u64,
}

/// `ONITY_BENCH_INTERLEAVED=N`: the 2-vs-1 table from [`measure_interleaved`]
/// for the onity and thread-local columns, instead of the full benchmark.
/// The N rounds of every row are split into [`BLOCKS`] blocks run in turn
/// across the rows, so each row is measured throughout the run and a burst of
/// other load (which slows the sets with both threads most: they need both
/// cores) cannot spoil a whole row.
fn run_interleaved(rounds: usize, filter: Option<&str>) {
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

// ---------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------

const COLUMNS: [&str; 4] = [
    "onity FrameAllocator (Frame)",
    "Shared atomic bump, CAS loop (Rewindable analogue)",
    "Thread-local bump (Temp analogue)",
    "malloc (Persistent analogue)",
];
const MALLOC: usize = 3;

struct Row {
    name: String,
    case: Case,
    results: [Measured; 4],
    /// The frame allocator's statistics after the run.
    ours_stats: FrameAllocStats,
    /// Its highest `bytes_reserved` at the end of a set.
    ours_peak: u64,
}

fn fmt_us(ns: u64) -> String {
    let us = ns as f64 / 1000.0;
    if us < 1.0 {
        format!("{us:.2}µs")
    } else {
        format!("{us:.1}µs")
    }
}

fn print_table(rows: &[Row], title: &str, pick: impl Fn(&Measured) -> u64) {
    println!("\n{title}\n");
    println!("| Functionality | {} |", COLUMNS.join(" | "));
    println!("|---|{}", "---|".repeat(COLUMNS.len()));
    for r in rows {
        let vals: Vec<u64> = r.results.iter().map(&pick).collect();
        let base = vals[MALLOC] as f64;
        let best = *vals.iter().min().unwrap();
        let worst = *vals.iter().max().unwrap();
        let cells: Vec<String> = vals
            .iter()
            .map(|&v| {
                let mark = if v == best {
                    " 🟢"
                } else if v == worst {
                    " 🟠"
                } else {
                    ""
                };
                format!("{} ({:.1}x){mark}", fmt_us(v), base / v.max(1) as f64)
            })
            .collect();
        println!("| {} | {} |", r.name, cells.join(" | "));
    }
}

/// Prints `none` when `count` of the onity column is 0 in every row, else
/// `some` and the rows where it is not, with their counts.
fn report_nonzero(rows: &[Row], count: fn(&Measured) -> u64, none: &str, some: &str) {
    let hits: Vec<String> = rows
        .iter()
        .filter(|r| count(&r.results[0]) > 0)
        .map(|r| format!("{} ({})", r.name, count(&r.results[0])))
        .collect();
    if hits.is_empty() {
        println!("{none}");
    } else {
        println!("{some}: {}", hits.join(", "));
    }
}

/// One row as a line of text, for a parent process (see [`run_processes`]).
fn encode_row(r: &Row) -> String {
    let mut f = vec!["ROW".to_string(), r.name.clone()];
    for m in &r.results {
        for v in [m.os_allocs_measured, m.faults_measured, m.wall_ns, m.cpu_ns, m.active_ns, m.own_best_ns] {
            f.push(v.to_string());
        }
    }
    let s = &r.ours_stats;
    for v in [s.high_water_bytes_in_use, s.bytes_claimed, s.bytes_reserved, s.os_allocations, r.ours_peak] {
        f.push(v.to_string());
    }
    f.join("\t")
}

fn decode_row(line: &str) -> Option<Row> {
    let mut f = line.strip_prefix("ROW\t")?.split('\t');
    let name = f.next()?.to_string();
    let case = all_cases().into_iter().find(|c| c.name() == name)?;
    let v: Vec<u64> = f.map(|x| x.parse().ok()).collect::<Option<_>>()?;
    if v.len() != 4 * 6 + 5 {
        return None;
    }
    let m = |i: usize| Measured {
        os_allocs_measured: v[6 * i],
        faults_measured: v[6 * i + 1],
        wall_ns: v[6 * i + 2],
        cpu_ns: v[6 * i + 3],
        active_ns: v[6 * i + 4],
        own_best_ns: v[6 * i + 5],
    };
    let ours_stats = FrameAllocStats {
        high_water_bytes_in_use: v[24],
        bytes_claimed: v[25],
        bytes_reserved: v[26],
        os_allocations: v[27],
        ..FrameAllocStats::default()
    };
    Some(Row { name, case, results: [m(0), m(1), m(2), m(3)], ours_stats, ours_peak: v[28] })
}

/// Runs the matrix in `processes` child processes of this benchmark, one
/// after the other, and merges their rows: every time is the minimum over
/// the processes (the seed's method: several processes per revision, each
/// the minimum of its sets), OS allocations and page faults are summed, the
/// memory statistics are the first process's and the peaks the highest.
/// Returns the rows and the highest peak resident set size (kB).
fn run_processes(processes: usize) -> (Vec<Row>, u64) {
    let exe = std::env::current_exe().expect("benchmark executable");
    let mut merged: Vec<Row> = Vec::new();
    let mut peak_kb = 0;
    for p in 0..processes {
        eprintln!("# process {} of {processes}", p + 1);
        let out = std::process::Command::new(&exe)
            .args(std::env::args().skip(1))
            .env("ONITY_BENCH_CHILD", "1")
            .stderr(std::process::Stdio::inherit())
            .output()
            .expect("start a benchmark process");
        assert!(out.status.success(), "benchmark process {} failed: {}", p + 1, out.status);
        let text = String::from_utf8_lossy(&out.stdout);
        for kb in text.lines().filter_map(|l| l.strip_prefix("HWM\t")?.parse::<u64>().ok()) {
            peak_kb = peak_kb.max(kb);
        }
        let rows: Vec<Row> = text
            .lines()
            .filter(|l| l.starts_with("ROW\t"))
            .map(|l| decode_row(l).unwrap_or_else(|| panic!("benchmark process {}: bad line {l:?}", p + 1)))
            .collect();
        // Every process measures the same rows, in the same order.
        if p > 0 {
            let names = |v: &[Row]| v.iter().map(|r| r.name.clone()).collect::<Vec<_>>();
            assert_eq!(names(&rows), names(&merged), "benchmark process {} measured other rows", p + 1);
        }
        for row in rows {
            match merged.iter_mut().find(|r| r.name == row.name) {
                None => merged.push(row),
                Some(r) => {
                    for (a, b) in r.results.iter_mut().zip(&row.results) {
                        a.os_allocs_measured += b.os_allocs_measured;
                        a.faults_measured += b.faults_measured;
                        a.wall_ns = a.wall_ns.min(b.wall_ns);
                        a.cpu_ns = a.cpu_ns.min(b.cpu_ns);
                        a.active_ns = a.active_ns.min(b.active_ns);
                        a.own_best_ns = a.own_best_ns.min(b.own_best_ns);
                    }
                    r.ours_peak = r.ours_peak.max(row.ours_peak);
                }
            }
        }
    }
    (merged, peak_kb)
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
