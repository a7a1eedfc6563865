//! Deterministic model-based randomized tests of the rewindable frame
//! allocator (`onity::core::frame_alloc`), directly and through the C ABI.
//!
//! Each seed draws a configuration, then frames in which 1 to 4 persistent
//! worker threads (released per frame by a barrier) and the owner thread
//! make random allocations: sizes from 1 byte to several MiB (sometimes
//! above the chunk sizes and the byte cap), alignments 1..=4096 and invalid
//! ones, sizes that overflow, both lifetimes. Every allocation is filled
//! with a pattern of its own. A model of the live allocations and of the
//! statistics checks, at every frame:
//!
//! - every live allocation (Frame: until the next rewind; TwoFrames: one
//!   rewind more) keeps its pattern and is aligned, and no two overlap;
//! - with poisoning on, the memory whose lifetime a rewind ended reads as
//!   `POISON_BYTE` right after that rewind;
//! - the documented error of every bad request (in the documented order);
//! - `allocations`, `failed_allocations`, `bytes_in_use`,
//!   `high_water_bytes_in_use`, `rewinds` exactly; the documented bounds of
//!   the other counters (`bytes_claimed` between `bytes_in_use` and
//!   `bytes_reserved`, the byte cap, `os_allocations` monotonic);
//! - once warmed up, a steady repeated frame makes no OS allocation.
//!
//! Reproductions of the findings are `#[ignore]`d tests at the end of the
//! file.

use std::ffi::c_void;
use std::ptr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Barrier, Mutex};

use onity::core::frame_alloc::{
    AllocError, FrameAllocConfig, FrameAllocStats, FrameAllocator, Lifetime, MAX_ALIGN, MAX_CONFIG_BYTES, POISON_BYTE,
};
use onity::ffi::*;

// ---------------------------------------------------------------------------
// PRNG and patterns
// ---------------------------------------------------------------------------

mod support;
use support::Rng;

/// The seeds of this file, apart from the other files'.
fn rng(seed: u64) -> Rng {
    Rng(seed ^ 0x5DEE_CE66_D1CE_4E5B)
}

/// Byte `i` of the pattern of the allocation tagged `tag` (tags are unique
/// per allocation; neighbouring bytes and allocations differ).
fn pattern_byte(tag: u64, i: usize) -> u8 {
    let x = tag.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (i as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93);
    let b = (x >> 56) as u8;
    // Never the poison byte, so a poisoned live allocation is always seen.
    if b == POISON_BYTE {
        0x5A
    } else {
        b
    }
}

/// Byte ranges of an allocation of `len` bytes that the test writes and
/// checks: all of it up to 4 KiB; else the first and last KiB and 64 bytes
/// at a varying offset of every 4 KiB (keeps multi-MiB allocations fast in
/// debug builds; overlaps are checked on the address ranges anyway).
fn touched(len: usize) -> Vec<(usize, usize)> {
    const FULL: usize = 4 << 10;
    const EDGE: usize = 1 << 10;
    if len <= FULL {
        return vec![(0, len)];
    }
    let mut v = vec![(0, EDGE)];
    let mut page = FULL;
    while page + FULL <= len - EDGE {
        let off = page + (page / FULL * 448) % (FULL - 64);
        v.push((off, off + 64));
        page += FULL;
    }
    v.push((len - EDGE, len));
    v
}

fn fill(addr: usize, len: usize, tag: u64) {
    for (a, b) in touched(len) {
        for i in a..b {
            // SAFETY: the caller passes a live allocation of `len` bytes.
            unsafe { ((addr + i) as *mut u8).write(pattern_byte(tag, i)) };
        }
    }
}

/// Index of the first byte that does not hold the pattern, if any.
fn first_bad_pattern(addr: usize, len: usize, tag: u64) -> Option<usize> {
    for (a, b) in touched(len) {
        for i in a..b {
            // SAFETY: the caller passes an allocation of `len` bytes, still
            // inside a block of the allocator.
            if unsafe { ((addr + i) as *const u8).read() } != pattern_byte(tag, i) {
                return Some(i);
            }
        }
    }
    None
}

/// Index of the first sampled byte that is not `POISON_BYTE`, if any.
fn first_unpoisoned(addr: usize, len: usize) -> Option<usize> {
    for (a, b) in touched(len) {
        // SAFETY: released memory, still inside a block the allocator keeps
        // (see `Model::rewound`).
        let s = unsafe { std::slice::from_raw_parts((addr + a) as *const u8, b - a) };
        if let Some(i) = s.iter().position(|&x| x != POISON_BYTE) {
            return Some(a + i);
        }
    }
    None
}

// ---------------------------------------------------------------------------
// Requests and their documented outcome
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    /// Must succeed (or, with a byte cap, may be `Exhausted`).
    Valid,
    /// Must fail with this error.
    Error(AllocError),
}

#[derive(Clone, Copy, Debug)]
struct Op {
    lifetime: Lifetime,
    size: usize,
    align: usize,
    tag: u64,
    expect: Expect,
}

/// The documented outcome: checks in the order zero size, alignment, size
/// overflow, byte cap.
fn expected(size: usize, align: usize, max_bytes: usize) -> Expect {
    if size == 0 {
        return Expect::Error(AllocError::ZeroSize);
    }
    if align == 0 || !align.is_power_of_two() || align > MAX_ALIGN {
        return Expect::Error(AllocError::InvalidAlignment);
    }
    if size > isize::MAX as usize - (align - 1) {
        return Expect::Error(AllocError::TooLarge);
    }
    if max_bytes != 0 && size > max_bytes {
        // No block (nor home chunk) can hold more than the cap.
        return Expect::Error(AllocError::Exhausted);
    }
    Expect::Valid
}

/// Sizes and alignments the generator draws from, given the normalised
/// configuration.
#[derive(Clone, Copy)]
struct Shape {
    chunk: usize,
    max_chunk: usize,
    max_bytes: usize,
}

fn random_align(rng: &mut Rng) -> usize {
    match rng.below(100) {
        0..=69 => 1 << rng.below(7),      // 1..=64
        70..=89 => 1 << rng.range(7, 12), // 128..=4096
        _ => {
            // Invalid: 0, not a power of two, above MAX_ALIGN.
            rng.pick(&[3, 6, 12, 48, 100, 4095, 4097, 8192, 1 << 20, usize::MAX, 1 << 63])
        }
    }
}

fn random_size(rng: &mut Rng, shape: Shape, big_budget: &mut usize) -> usize {
    let mut s = match rng.below(1000) {
        0..=599 => rng.range(1, 256) as usize,
        600..=799 => rng.range(257, 16 << 10) as usize,
        800..=899 => rng.range(16 << 10, 512 << 10) as usize,
        900..=939 => rng.range(512 << 10, 6 << 20) as usize,
        940..=969 => {
            // Around the chunk sizes.
            let base = if rng.pct(50) { shape.chunk } else { shape.max_chunk.min(8 << 20) };
            (base + rng.range(0, 128) as usize).saturating_sub(64).max(1)
        }
        970..=979 if shape.max_bytes != 0 => {
            // Around and above the byte cap.
            shape.max_bytes + rng.range(0, 8192) as usize - 4096
        }
        970..=979 => rng.range(1, 64) as usize,
        980..=989 => 0,
        _ => {
            // Overflowing sizes.
            rng.pick(&[usize::MAX, usize::MAX - 4095, isize::MAX as usize + 1, 1 << 63, usize::MAX / 2 + 4096])
        }
    };
    // Keep a frame's memory bounded (reserved memory stays small).
    if s > (64 << 10) && expected(s, 1, shape.max_bytes) == Expect::Valid {
        if s > *big_budget {
            s = rng.range(1, 4096) as usize;
        } else {
            *big_budget -= s;
        }
    }
    s
}

fn random_ops(rng: &mut Rng, shape: Shape, n: usize, next_tag: &mut u64, big_budget: &mut usize) -> Vec<Op> {
    (0..n)
        .map(|_| {
            let lifetime = if rng.pct(40) { Lifetime::TwoFrames } else { Lifetime::Frame };
            let size = random_size(rng, shape, big_budget);
            let mut align = random_align(rng);
            if size == 0 && expected(1, align, 0) != Expect::Valid {
                // Size 0 with a bad alignment: see the ignored
                // `repro_zero_size_is_checked_after_alignment`.
                align = 8;
            }
            *next_tag += 1;
            Op { lifetime, size, align, tag: *next_tag, expect: expected(size, align, shape.max_bytes) }
        })
        .collect()
}

// ---------------------------------------------------------------------------
// The model
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, Debug)]
struct Live {
    addr: usize,
    len: usize,
    tag: u64,
    lifetime: Lifetime,
    /// Epoch (number of rewinds) when it was allocated.
    epoch: u64,
}

#[derive(Default, Debug)]
struct Model {
    allocations: u64,
    failed: u64,
    rewinds: u64,
    high_water: u64,
    live: Vec<Live>,
    poison: bool,
    max_bytes: usize,
    /// Allocations that failed with `Exhausted` though valid (byte cap).
    exhausted: u64,
}

impl Model {
    fn in_use(&self) -> u64 {
        self.live.iter().map(|l| l.len as u64).sum()
    }

    /// Records the outcome of `op`; `ctx` names it in failures.
    fn record(&mut self, op: &Op, r: Result<usize, AllocError>, ctx: &str) {
        match (op.expect, r) {
            (Expect::Valid, Ok(addr)) => {
                assert_eq!(addr % op.align, 0, "{ctx}: misaligned {addr:#x} for {op:?}");
                assert_ne!(addr, 0, "{ctx}");
                self.allocations += 1;
                self.live.push(Live { addr, len: op.size, tag: op.tag, lifetime: op.lifetime, epoch: self.rewinds });
            }
            (Expect::Valid, Err(AllocError::Exhausted)) if self.max_bytes != 0 => {
                self.failed += 1;
                self.exhausted += 1;
            }
            (Expect::Error(e), Err(got)) => {
                assert_eq!(got, e, "{ctx}: wrong error for {op:?}");
                self.failed += 1;
            }
            (_, r) => panic!("{ctx}: {op:?} gave {r:x?}"),
        }
    }

    /// Every live allocation keeps its pattern; no two overlap.
    fn check_live(&self, ctx: &str) {
        let mut v: Vec<&Live> = self.live.iter().collect();
        v.sort_unstable_by_key(|l| l.addr);
        for w in v.windows(2) {
            assert!(w[0].addr + w[0].len <= w[1].addr, "{ctx}: live allocations overlap: {:x?} and {:x?}", w[0], w[1]);
        }
        for l in &self.live {
            if let Some(i) = first_bad_pattern(l.addr, l.len, l.tag) {
                panic!("{ctx}: pattern of live {l:x?} broken at byte {i} (epoch {})", self.rewinds);
            }
        }
    }

    /// Compares the counters documented as exact (no allocation running)
    /// and the documented bounds of the others. Samples the high-water
    /// mark, as `stats` does.
    fn check_stats(&mut self, s: &FrameAllocStats, prev: &FrameAllocStats, ctx: &str) {
        let in_use = self.in_use();
        self.high_water = self.high_water.max(in_use);
        assert_eq!(s.allocations, self.allocations, "{ctx}: allocations {s:?}");
        assert_eq!(s.failed_allocations, self.failed, "{ctx}: failed_allocations {s:?}");
        assert_eq!(s.rewinds, self.rewinds, "{ctx}: rewinds {s:?}");
        assert_eq!(s.bytes_in_use, in_use, "{ctx}: bytes_in_use {s:?}");
        assert_eq!(s.high_water_bytes_in_use, self.high_water, "{ctx}: high water {s:?}");
        assert!(s.bytes_claimed >= s.bytes_in_use, "{ctx}: claimed < in use {s:?}");
        assert!(s.bytes_reserved >= s.bytes_claimed, "{ctx}: reserved < claimed {s:?}");
        assert_eq!(s.bytes_reserved % 4096, 0, "{ctx}: blocks are multiples of 4096 {s:?}");
        assert_eq!(s.blocks == 0, s.bytes_reserved == 0, "{ctx}: {s:?}");
        assert!(s.os_allocations >= prev.os_allocations, "{ctx}: os_allocations decreased {s:?}");
        assert!(s.os_allocations >= s.blocks, "{ctx}: {s:?}");
        if self.max_bytes != 0 {
            assert!(s.bytes_reserved <= self.max_bytes as u64, "{ctx}: above the byte cap {s:?}");
        }
    }

    /// A rewind is about to happen: samples the high-water mark and checks
    /// every live allocation. Returns the allocations it ends.
    fn rewinding(&mut self, ctx: &str) -> Vec<Live> {
        self.high_water = self.high_water.max(self.in_use());
        self.check_live(ctx);
        let e = self.rewinds;
        let (ended, kept): (Vec<Live>, Vec<Live>) = self.live.iter().partition(|l| match l.lifetime {
            Lifetime::Frame => true,
            Lifetime::TwoFrames => l.epoch < e,
        });
        self.live = kept;
        self.rewinds += 1;
        ended
    }

    /// Right after the rewind: the survivors are intact and, with poisoning
    /// on, the memory it released reads as `POISON_BYTE` (the released
    /// blocks and home chunks are kept by the rewind that releases them:
    /// only blocks no recent reset used, and homes idle for 8 rewinds, are
    /// freed).
    fn rewound(&self, ended: &[Live], ctx: &str) {
        self.check_live(ctx);
        if self.poison {
            for l in ended {
                if let Some(i) = first_unpoisoned(l.addr, l.len) {
                    panic!("{ctx}: released {l:x?} not poisoned at byte {i} (rewind {})", self.rewinds);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Persistent workers
// ---------------------------------------------------------------------------

const WORKERS: usize = 4;

/// Per-frame plans and results shared with the workers.
struct Crew {
    start: Barrier,
    end: Barrier,
    quit: AtomicBool,
    plans: Vec<Mutex<Vec<Op>>>,
    results: Vec<Mutex<Vec<Result<usize, AllocError>>>>,
    /// A worker's failure, reported by `run` on the owner thread (a panic
    /// on a worker would leave the others waiting at a barrier).
    failure: Mutex<Option<String>>,
}

impl Crew {
    fn new() -> Crew {
        Crew {
            start: Barrier::new(WORKERS + 1),
            end: Barrier::new(WORKERS + 1),
            quit: AtomicBool::new(false),
            plans: (0..WORKERS).map(|_| Mutex::new(Vec::new())).collect(),
            results: (0..WORKERS).map(|_| Mutex::new(Vec::new())).collect(),
            failure: Mutex::new(None),
        }
    }

    /// Worker `w`'s loop: each frame, run its plan with `alloc`, filling
    /// every allocation, then check its own patterns.
    fn work(&self, w: usize, alloc: &dyn Fn(&Op) -> Result<usize, AllocError>) {
        loop {
            self.start.wait();
            if self.quit.load(Ordering::Acquire) {
                return;
            }
            let plan = std::mem::take(&mut *self.plans[w].lock().unwrap());
            let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let mut out = Vec::with_capacity(plan.len());
                for op in &plan {
                    let r = alloc(op);
                    if let Ok(a) = r {
                        if op.expect == Expect::Valid && a % op.align == 0 {
                            fill(a, op.size, op.tag);
                        }
                    }
                    out.push(r);
                }
                // The other threads' writes did not touch ours.
                for (op, r) in plan.iter().zip(&out) {
                    if let (Ok(a), Expect::Valid) = (r, op.expect) {
                        if let Some(i) = first_bad_pattern(*a, op.size, op.tag) {
                            panic!("worker {w}: pattern of {op:?} at {a:#x} broken at byte {i} within its frame");
                        }
                    }
                }
                out
            }));
            let out = match run {
                Ok(out) => out,
                Err(e) => {
                    let msg = e
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default();
                    self.failure.lock().unwrap().get_or_insert(msg);
                    Vec::new()
                }
            };
            *self.results[w].lock().unwrap() = out;
            self.end.wait();
        }
    }

    /// Runs one frame of the workers' plans (`plans[w]` for worker `w`,
    /// empty for idle ones) and returns their results.
    fn run(&self, plans: Vec<Vec<Op>>) -> Vec<Vec<Result<usize, AllocError>>> {
        for (w, p) in plans.into_iter().enumerate() {
            *self.plans[w].lock().unwrap() = p;
        }
        self.start.wait();
        self.end.wait();
        if let Some(msg) = self.failure.lock().unwrap().take() {
            panic!("{msg}");
        }
        self.results.iter().map(|r| std::mem::take(&mut *r.lock().unwrap())).collect()
    }

    fn stop(&self) {
        self.quit.store(true, Ordering::Release);
        self.start.wait();
    }

    /// Runs `body` on the owner thread with the workers (each calling
    /// `alloc`) and stops them even if `body` panics (else they would wait
    /// at a barrier forever).
    fn with_workers<A, B>(alloc: A, body: B)
    where
        A: Fn(&Op) -> Result<usize, AllocError> + Sync,
        B: FnOnce(&Crew),
    {
        let crew = Crew::new();
        std::thread::scope(|s| {
            for w in 0..WORKERS {
                let (crew, alloc) = (&crew, &alloc);
                s.spawn(move || crew.work(w, alloc));
            }
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(&crew)));
            crew.stop();
            if let Err(e) = r {
                std::panic::resume_unwind(e);
            }
        });
    }
}

/// One random frame's plans: 1 to 4 active workers (a random subset), each
/// with up to `max_ops` requests, plus some for the owner thread.
fn frame_plans(rng: &mut Rng, shape: Shape, next_tag: &mut u64, max_ops: u64) -> (Vec<Vec<Op>>, Vec<Op>) {
    let active = rng.range(1, WORKERS as u64) as usize;
    let mut who: Vec<usize> = (0..WORKERS).collect();
    for i in (1..WORKERS).rev() {
        who.swap(i, rng.below(i as u64 + 1) as usize);
    }
    // Bytes of large requests per frame.
    let mut budget = rng.pick(&[256 << 10, 4 << 20, 16 << 20]);
    let mut plans = vec![Vec::new(); WORKERS];
    for &w in &who[..active] {
        let n = rng.below(max_ops + 1) as usize;
        plans[w] = random_ops(rng, shape, n, next_tag, &mut budget);
    }
    let n = rng.below(8) as usize;
    let own = random_ops(rng, shape, n, next_tag, &mut budget);
    (plans, own)
}

/// A steady frame: the same plans every frame (fresh tags).
fn steady_plans(rng: &mut Rng, shape: Shape) -> Vec<Vec<(Lifetime, usize, usize)>> {
    // Often one worker, whose steady frame is deterministic whatever its size
    // (see `steady_is_strict`).
    let active = if rng.pct(40) { 1 } else { rng.range(1, WORKERS as u64) as usize };
    let mut budget = 8 << 20;
    let mut tag = 0;
    (0..WORKERS)
        .map(|w| {
            if w >= active {
                return Vec::new();
            }
            let n = rng.range(1, 150) as usize;
            random_ops(rng, shape, n, &mut tag, &mut budget)
                .into_iter()
                .filter(|op| op.expect == Expect::Valid)
                .map(|op| (op.lifetime, op.size, op.align))
                .collect()
        })
        .collect()
}

/// Whether the steady-frame promise is checked for `recipe`: no byte cap
/// (a cap can keep homes from settling: see the ignored
/// `repro_cap_delays_the_steady_state`), and one active worker or every
/// worker's frame well within its largest home (16 segments): beyond it,
/// the overflow arenas' next-fit packing depends on the threads'
/// interleaving, and a rare unlucky frame needs one more block (seen once
/// in about 15 runs, not reproduced deterministically).
fn steady_is_strict(recipe: &[Vec<(Lifetime, usize, usize)>], cfg: FrameAllocConfig) -> bool {
    if cfg.max_bytes != 0 {
        return false;
    }
    let max_chunk = cfg.max_chunk_bytes.min(1 << 31);
    let max_home = (1usize << (usize::BITS - 1 - max_chunk.leading_zeros())).max(cfg.chunk_bytes.next_power_of_two());
    let active = recipe.iter().filter(|p| !p.is_empty()).count();
    active <= 1
        || recipe.iter().all(|p| {
            [Lifetime::Frame, Lifetime::TwoFrames].iter().all(|&lt| {
                let bytes: usize = p.iter().filter(|o| o.0 == lt).map(|o| o.1 + o.2).sum();
                bytes <= max_home * 16 / 2
            })
        })
}

fn retag(plans: &[Vec<(Lifetime, usize, usize)>], next_tag: &mut u64, max_bytes: usize) -> Vec<Vec<Op>> {
    plans
        .iter()
        .map(|p| {
            p.iter()
                .map(|&(lifetime, size, align)| {
                    *next_tag += 1;
                    Op { lifetime, size, align, tag: *next_tag, expect: expected(size, align, max_bytes) }
                })
                .collect()
        })
        .collect()
}

// ---------------------------------------------------------------------------
// Core API
// ---------------------------------------------------------------------------

fn random_core_config(rng: &mut Rng) -> FrameAllocConfig {
    let chunk = rng.pick(&[0, 1, 63, 64, 100, 1000, 4096, 16 << 10, 64 << 10, 1 << 20]);
    FrameAllocConfig {
        first_block_bytes: rng.pick(&[0, 1, 4095, 4096, 5000, 64 << 10, 256 << 10, 1 << 20, 4 << 20]),
        chunk_bytes: chunk,
        max_chunk_bytes: rng.pick(&[0, chunk, chunk * 2 + 3, 4096, 64 << 10, 1 << 20, 4 << 20, 64 << 20, usize::MAX]),
        max_bytes: if rng.pct(35) { rng.pick(&[1 << 20, 4 << 20, 16 << 20, 48 << 20]) } else { 0 },
        poison_on_rewind: rng.pct(50),
        prefault: rng.pct(25),
    }
}

/// The documented normalisation of a configuration.
fn normalized(c: FrameAllocConfig) -> FrameAllocConfig {
    let up = |x: usize, to: usize| x.div_ceil(to) * to;
    let first = up(c.first_block_bytes.clamp(4096, MAX_CONFIG_BYTES), 4096);
    let chunk = up(c.chunk_bytes.clamp(64, MAX_CONFIG_BYTES), 64);
    let max_chunk = up(c.max_chunk_bytes.min(MAX_CONFIG_BYTES), 64).max(chunk);
    FrameAllocConfig { first_block_bytes: first, chunk_bytes: chunk, max_chunk_bytes: max_chunk, ..c }
}

fn core_alloc(fa: &FrameAllocator, op: &Op) -> Result<usize, AllocError> {
    fa.alloc(op.lifetime, op.size, op.align).map(|p| p.as_ptr() as usize)
}

const CORE_SEEDS: u64 = 10;
const CORE_FRAMES: usize = 40;
const STEADY_WARMUP: usize = 6;
const STEADY_FRAMES: usize = 10;

fn run_core_seed(seed: u64) {
    let mut rng = rng(seed);
    let cfg = random_core_config(&mut rng);
    let fa = FrameAllocator::new(cfg);
    let ncfg = fa.config();
    assert_eq!(ncfg, normalized(cfg), "seed {seed}: normalisation of {cfg:?}");
    let shape = Shape { chunk: ncfg.chunk_bytes, max_chunk: ncfg.max_chunk_bytes, max_bytes: ncfg.max_bytes };
    let mut m = Model { poison: ncfg.poison_on_rewind, max_bytes: ncfg.max_bytes, ..Model::default() };
    let mut prev = fa.stats();
    assert_eq!(prev, FrameAllocStats::default(), "seed {seed}: a new allocator reserves nothing");
    let mut tag = seed << 40;
    Crew::with_workers(
        |op| core_alloc(&fa, op),
        |crew| {
            let frame = |m: &mut Model, prev: &mut FrameAllocStats, plans: Vec<Vec<Op>>, own: Vec<Op>, ctx: &str| {
                let all: Vec<Vec<Op>> = plans.clone();
                let results = crew.run(plans);
                for (w, (p, r)) in all.iter().zip(&results).enumerate() {
                    assert_eq!(p.len(), r.len());
                    for (op, r) in p.iter().zip(r) {
                        m.record(op, *r, &format!("{ctx} worker {w}"));
                    }
                }
                // The owner thread allocates too (between the workers' runs).
                for op in &own {
                    let r = core_alloc(&fa, op);
                    if let (Ok(a), Expect::Valid) = (r, op.expect) {
                        if a % op.align == 0 {
                            fill(a, op.size, op.tag);
                        }
                    }
                    m.record(op, r, &format!("{ctx} owner"));
                }
                let st = fa.stats();
                m.check_stats(&st, prev, ctx);
                *prev = st;
                let ended = m.rewinding(ctx);
                fa.rewind();
                assert_eq!(fa.epoch(), m.rewinds);
                m.rewound(&ended, &format!("{ctx} after rewind"));
                let st = fa.stats();
                m.check_stats(&st, prev, &format!("{ctx} after rewind"));
                *prev = st;
            };
            for f in 0..CORE_FRAMES {
                let (plans, own) = frame_plans(&mut rng, shape, &mut tag, 120);
                frame(&mut m, &mut prev, plans, own, &format!("seed {seed} cfg {ncfg:?} frame {f}"));
                // Sometimes several rewinds in a row (empty frames).
                if rng.pct(5) {
                    frame(&mut m, &mut prev, vec![Vec::new(); WORKERS], Vec::new(), &format!("seed {seed} empty {f}"));
                }
            }
            // A steady frame repeated: once warmed up, no OS allocation.
            let recipe = steady_plans(&mut rng, shape);
            let mut os_warm = 0;
            let mut hist = Vec::new();
            for f in 0..STEADY_WARMUP + STEADY_FRAMES {
                let plans = retag(&recipe, &mut tag, ncfg.max_bytes);
                frame(&mut m, &mut prev, plans, Vec::new(), &format!("seed {seed} cfg {ncfg:?} steady frame {f}"));
                hist.push((prev.os_allocations, prev.blocks));
                if f + 1 == STEADY_WARMUP {
                    os_warm = prev.os_allocations;
                }
            }
            if steady_is_strict(&recipe, ncfg) {
                assert_eq!(
                prev.os_allocations, os_warm,
                "seed {seed} cfg {ncfg:?}: a steady frame made OS allocations after warm-up: {prev:?} (os, blocks) per frame {hist:?}"
            );
            }
            println!("core seed {seed} (steady strict: {}): {prev:?}", steady_is_strict(&recipe, ncfg));
        },
    );
}

#[test]
fn core_model_random_frames() {
    let only: Option<u64> = std::env::var("SEED").ok().and_then(|v| v.parse().ok());
    for seed in 0..CORE_SEEDS {
        if only.is_some_and(|o| o != seed) {
            continue;
        }
        run_core_seed(seed);
    }
}

// ---------------------------------------------------------------------------
// C ABI through a runtime
// ---------------------------------------------------------------------------

/// `onity_frame_alloc`, with its status mapped back to the core error it
/// documents (checked to be the documented one by the model).
fn ffi_alloc(rt: usize, op: &Op) -> Result<usize, AllocError> {
    let mut p: *mut c_void = 1 as *mut c_void;
    let lt = op.lifetime as u32;
    let st = onity_frame_alloc(rt as *mut OnityRuntime, op.size as u64, op.align as u32, lt, &mut p);
    if st == OnityStatus::Ok {
        assert!(!p.is_null());
        return Ok(p as usize);
    }
    assert!(p.is_null(), "*out_ptr is NULL on error ({st:?})");
    Err(match st {
        OnityStatus::InvalidArgument => AllocError::ZeroSize,
        OnityStatus::InvalidAlignment => AllocError::InvalidAlignment,
        OnityStatus::CountOutOfRange => AllocError::TooLarge,
        OnityStatus::Exhausted => AllocError::Exhausted,
        OnityStatus::OutOfMemory => AllocError::OutOfMemory,
        s => panic!("undocumented status {s:?} for {op:?}"),
    })
}

fn ffi_stats(rt: *mut OnityRuntime) -> FrameAllocStats {
    // SAFETY: plain-old-data struct.
    let mut s: OnityStats = unsafe { std::mem::zeroed() };
    s.size = std::mem::size_of::<OnityStats>() as u32;
    assert_eq!(onity_runtime_stats(rt, &mut s), OnityStatus::Ok);
    let f = s.frame_alloc;
    FrameAllocStats {
        bytes_in_use: f.bytes_in_use,
        bytes_claimed: f.bytes_claimed,
        bytes_reserved: f.bytes_reserved,
        blocks: f.blocks,
        high_water_bytes_in_use: f.high_water_bytes_in_use,
        rewinds: f.rewinds,
        os_allocations: f.os_allocations,
        allocations: f.allocations,
        failed_allocations: f.failed_allocations,
    }
}

fn create(cfg: &OnityRuntimeConfig) -> Result<*mut OnityRuntime, OnityStatus> {
    let mut out = ptr::null_mut();
    match onity_runtime_create(cfg, &mut out) {
        OnityStatus::Ok => Ok(out),
        s => {
            assert!(out.is_null(), "nothing created on error");
            Err(s)
        }
    }
}

/// A random configuration the header documents as invalid, and its status.
fn random_bad_ffi_config(rng: &mut Rng) -> (OnityRuntimeConfig, OnityStatus) {
    let d = OnityRuntimeConfig::default();
    let chunk = rng.pick(&[0u64, 64, 4096, 16 << 10, 1 << 20]);
    let bad = match rng.below(7) {
        0 => OnityRuntimeConfig { frame_alloc_prefault: rng.range(2, u32::MAX as u64) as u32, ..d },
        1 => OnityRuntimeConfig { reserved: rng.range(1, u32::MAX as u64) as u32, ..d },
        2 => OnityRuntimeConfig {
            frame_alloc_rewind_timing: rng.pick(&[ONITY_TIMING_COUNT + 1, 17, 100, u32::MAX]),
            ..d
        },
        3 => OnityRuntimeConfig {
            // Below max(chunk, 64), not 0.
            frame_alloc_max_chunk_bytes: rng.range(1, chunk.max(64) - 1),
            frame_alloc_chunk_bytes: chunk,
            ..d
        },
        4 => OnityRuntimeConfig { frame_alloc_max_chunk_bytes: rng.range((1 << 48) + 1, u64::MAX), ..d },
        5 => {
            let size =
                rng.pick(&[0, 4, ONITY_RUNTIME_CONFIG_SIZE_1_0 - 8, ONITY_RUNTIME_CONFIG_SIZE_1_0 + 8, u32::MAX]);
            return (OnityRuntimeConfig { size, ..d }, OnityStatus::SizeMismatch);
        }
        _ => OnityRuntimeConfig { size: std::mem::size_of::<OnityRuntimeConfig>() as u32 + 8, ..d },
    };
    let status = if bad.size == d.size { OnityStatus::InvalidArgument } else { OnityStatus::SizeMismatch };
    (bad, status)
}

fn random_ffi_config(rng: &mut Rng) -> OnityRuntimeConfig {
    let chunk = rng.pick(&[0u64, 64, 1000, 4096, 16 << 10, 256 << 10]);
    let lo = chunk.max(64);
    OnityRuntimeConfig {
        frame_alloc_rewind_timing: if rng.pct(15) {
            ONITY_FRAME_ALLOC_REWIND_MANUAL
        } else {
            rng.below(ONITY_TIMING_COUNT as u64) as u32
        },
        frame_alloc_poison: rng.pick(&[0, 0, 1, 7]),
        frame_alloc_first_block_bytes: rng.pick(&[0, 4096, 10_000, 256 << 10, 2 << 20]),
        frame_alloc_chunk_bytes: chunk,
        frame_alloc_max_bytes: if rng.pct(30) { rng.pick(&[2 << 20, 8 << 20, 32 << 20]) } else { 0 },
        frame_alloc_max_chunk_bytes: rng.pick(&[0, lo, lo + 1, lo * 4, 1 << 20, 64 << 20, 1 << 48]),
        frame_alloc_prefault: if rng.pct(20) { 1 } else { 0 },
        ..OnityRuntimeConfig::default()
    }
}

const FFI_SEEDS: u64 = 6;
const FFI_FRAMES: usize = 30;

fn run_ffi_seed(seed: u64) {
    let mut rng = rng(seed.wrapping_add(1000));
    for _ in 0..4 {
        let (bad, status) = random_bad_ffi_config(&mut rng);
        assert_eq!(create(&bad), Err(status), "seed {seed}: {bad:?}");
    }
    let cfg = random_ffi_config(&mut rng);
    let rt = create(&cfg).unwrap_or_else(|s| panic!("seed {seed}: {cfg:?} refused: {s:?}"));
    let addr = rt as usize;
    let max_bytes = cfg.frame_alloc_max_bytes as usize;
    let chunk = (cfg.frame_alloc_chunk_bytes as usize).max(64);
    let max_chunk = match cfg.frame_alloc_max_chunk_bytes {
        0 => chunk.max(64 << 20),
        n => n as usize,
    };
    let shape = Shape { chunk, max_chunk, max_bytes };
    let mut m = Model { poison: cfg.frame_alloc_poison != 0, max_bytes, ..Model::default() };
    let mut prev = ffi_stats(rt);
    let manual = cfg.frame_alloc_rewind_timing == ONITY_FRAME_ALLOC_REWIND_MANUAL;
    let mut tag = (seed + 1000) << 40;
    let ctx0 = format!("ffi seed {seed} cfg {cfg:?}");
    Crew::with_workers(
        |op| ffi_alloc(addr, op),
        |crew| {
            let mut frame_no = 0u64;
            let mut rewound_in_frame = false;
            let rewind_event = |m: &mut Model, prev: &mut FrameAllocStats, how: &dyn Fn(), ctx: &str| {
                let ended = m.rewinding(ctx);
                how();
                m.rewound(&ended, &format!("{ctx} after rewind"));
                let st = ffi_stats(rt);
                m.check_stats(&st, prev, &format!("{ctx} after rewind"));
                *prev = st;
            };
            for f in 0..FFI_FRAMES {
                let ctx = format!("{ctx0} frame {f}");
                frame_no += rng.range(1, 3);
                let fi = OnityFrameInfo {
                    size: std::mem::size_of::<OnityFrameInfo>() as u32,
                    reserved: 0,
                    frame: frame_no,
                    delta_time: 0.016,
                    unscaled_delta_time: 0.016,
                    realtime: frame_no as f64 * 0.016,
                };
                assert_eq!(onity_runtime_frame_begin(rt, &fi), OnityStatus::Ok);
                rewound_in_frame = false;
                // A manual rewind between frames (the only ones with
                // ONITY_FRAME_ALLOC_REWIND_MANUAL).
                if rng.pct(if manual { 70 } else { 10 }) {
                    rewind_event(
                        &mut m,
                        &mut prev,
                        &|| assert_eq!(onity_frame_alloc_rewind(rt), OnityStatus::Ok),
                        &format!("{ctx} manual"),
                    );
                }
                // Timings run this frame, in order (FixedUpdate 0 to 3 times,
                // others sometimes twice or skipped).
                let mut ticks = Vec::new();
                for t in 0..ONITY_TIMING_COUNT {
                    let n = if t == OnityTiming::FixedUpdate as u32 {
                        rng.below(4)
                    } else if rng.pct(75) {
                        1 + rng.pct(10) as u64
                    } else {
                        0
                    };
                    ticks.extend(std::iter::repeat(t).take(n as usize));
                }
                let work_at = rng.below(ticks.len() as u64 + 1) as usize;
                for i in 0..=ticks.len() {
                    if i == work_at {
                        let (plans, mut own) = frame_plans(&mut rng, shape, &mut tag, 80);
                        let all = plans.clone();
                        let results = crew.run(plans);
                        for (w, (p, r)) in all.iter().zip(&results).enumerate() {
                            for (op, r) in p.iter().zip(r) {
                                m.record(op, *r, &format!("{ctx} worker {w}"));
                            }
                        }
                        // The owner thread, with aligns that fit the ABI's
                        // uint32_t and some bad lifetimes.
                        for op in own.iter_mut() {
                            if op.align > u32::MAX as usize {
                                op.align = 1 << 31;
                                op.expect = expected(op.size, op.align, max_bytes);
                            }
                            let r = ffi_alloc(addr, op);
                            if let (Ok(a), Expect::Valid) = (r, op.expect) {
                                fill(a, op.size, op.tag);
                            }
                            m.record(op, r, &format!("{ctx} owner"));
                        }
                        if rng.pct(20) {
                            let mut p = 1 as *mut c_void;
                            let lt = rng.pick(&[2, 3, u32::MAX]);
                            assert_eq!(onity_frame_alloc(rt, 64, 8, lt, &mut p), OnityStatus::InvalidArgument);
                            assert!(p.is_null());
                            // Not seen by the allocator: not counted (see the
                            // report: undocumented).
                        }
                        let st = ffi_stats(rt);
                        m.check_stats(&st, &prev, &format!("{ctx} after work"));
                        prev = st;
                    }
                    if i < ticks.len() {
                        let t = ticks[i];
                        let rewinds = !manual && t == cfg.frame_alloc_rewind_timing && !rewound_in_frame;
                        if rewinds {
                            rewound_in_frame = true;
                            rewind_event(
                                &mut m,
                                &mut prev,
                                &|| assert_eq!(onity_runtime_tick(rt, t), OnityStatus::Ok),
                                &format!("{ctx} tick {t}"),
                            );
                        } else {
                            assert_eq!(onity_runtime_tick(rt, t), OnityStatus::Ok);
                            let st = ffi_stats(rt);
                            assert_eq!(st.rewinds, m.rewinds, "{ctx}: tick {t} must not rewind");
                        }
                    }
                }
            }
            let _ = rewound_in_frame;
            // Only the owner thread rewinds.
            let p = addr;
            std::thread::spawn(move || {
                assert_eq!(onity_frame_alloc_rewind(p as *mut OnityRuntime), OnityStatus::WrongThread);
            })
            .join()
            .unwrap();
            // A steady frame, rewound by hand: no OS allocation once warm.
            let recipe = steady_plans(&mut rng, shape);
            let mut os_warm = 0;
            for f in 0..STEADY_WARMUP + STEADY_FRAMES {
                let ctx = format!("{ctx0} steady frame {f}");
                let plans = retag(&recipe, &mut tag, max_bytes);
                let all = plans.clone();
                let results = crew.run(plans);
                for (w, (p, r)) in all.iter().zip(&results).enumerate() {
                    for (op, r) in p.iter().zip(r) {
                        m.record(op, *r, &format!("{ctx} worker {w}"));
                    }
                }
                let st = ffi_stats(rt);
                m.check_stats(&st, &prev, &ctx);
                prev = st;
                if f + 1 == STEADY_WARMUP {
                    os_warm = prev.os_allocations;
                }
                rewind_event(&mut m, &mut prev, &|| assert_eq!(onity_frame_alloc_rewind(rt), OnityStatus::Ok), &ctx);
            }
            let ncfg = FrameAllocConfig {
                first_block_bytes: 4096,
                chunk_bytes: chunk.div_ceil(64) * 64,
                max_chunk_bytes: max_chunk.min(MAX_CONFIG_BYTES).div_ceil(64) * 64,
                max_bytes,
                poison_on_rewind: false,
                prefault: false,
            };
            if steady_is_strict(&recipe, ncfg) {
                assert_eq!(prev.os_allocations, os_warm, "{ctx0}: steady frames made OS allocations: {prev:?}");
            }
        },
    );
    println!("ffi seed {seed}: {prev:?}");
    assert_eq!(onity_runtime_destroy(rt), OnityStatus::Ok);
}

#[test]
fn ffi_model_random_frames() {
    let only: Option<u64> = std::env::var("SEED").ok().and_then(|v| v.parse().ok());
    for seed in 0..FFI_SEEDS {
        if only.is_some_and(|o| o != seed) {
            continue;
        }
        run_ffi_seed(seed);
    }
}

// ---------------------------------------------------------------------------
// The findings of this test, as documented since
// ---------------------------------------------------------------------------

/// The alignment is checked first (on the fast path), then the size: a zero
/// size with an invalid alignment is `InvalidAlignment`.
#[test]
fn alignment_is_checked_before_the_size() {
    let fa = FrameAllocator::new(FrameAllocConfig::default());
    assert_eq!(fa.alloc(Lifetime::Frame, 0, 3), Err(AllocError::InvalidAlignment));
    assert_eq!(fa.alloc(Lifetime::Frame, 0, 16), Err(AllocError::ZeroSize));
}

/// With poisoning on, memory never handed out before (a fresh block) reads
/// as `POISON_BYTE` too, as released memory does after a rewind. (It did
/// not: only released memory was poisoned.)
#[test]
fn fresh_memory_is_poisoned_when_poisoning_is_on() {
    for size in [4096, 1 << 20, 100 << 20] {
        let fa = FrameAllocator::new(FrameAllocConfig { poison_on_rewind: true, ..FrameAllocConfig::default() });
        let p = fa.alloc(Lifetime::Frame, size, 16).unwrap();
        // SAFETY: `size` bytes valid until the next rewind.
        let s = unsafe { std::slice::from_raw_parts(p.as_ptr(), size) };
        assert!(s.iter().all(|&b| b == POISON_BYTE), "size {size}: first bytes {:?}", &s[..8]);
        let q = fa.alloc(Lifetime::TwoFrames, 64, 64).unwrap();
        // SAFETY: 64 bytes valid for two rewinds.
        assert!(unsafe { std::slice::from_raw_parts(q.as_ptr(), 64) }.iter().all(|&b| b == POISON_BYTE));
    }
}

/// `TooLarge` is a size whose block (rounded up to cache lines, plus its
/// alignment padding, rounded up to 4096) would exceed `isize::MAX`: checked
/// before the byte cap.
#[test]
fn too_large_is_checked_on_the_rounded_block_size_before_the_cap() {
    let fa = FrameAllocator::new(FrameAllocConfig { max_bytes: 1 << 20, ..FrameAllocConfig::default() });
    assert_eq!(fa.alloc(Lifetime::Frame, isize::MAX as usize, 1), Err(AllocError::TooLarge));
    assert_eq!(fa.alloc(Lifetime::Frame, 2 << 20, 1), Err(AllocError::Exhausted));
}

/// Under a byte cap, a home resize the cap refuses falls back to overflow
/// chunks; once the rewinds return the blocks no reset needed (8 resets),
/// the home grows: one more OS allocation in a steady state, then none.
#[test]
fn under_a_cap_a_steady_frame_settles_once_unneeded_blocks_are_returned() {
    let fa = FrameAllocator::new(FrameAllocConfig {
        first_block_bytes: 1 << 20,
        max_bytes: 24 << 20,
        ..FrameAllocConfig::default()
    });
    // A one-off heavy TwoFrames frame holds 12 MiB of the cap.
    fa.alloc(Lifetime::TwoFrames, 12 << 20, 16).unwrap();
    fa.rewind();
    let mut os = Vec::new();
    for _ in 0..40 {
        for _ in 0..4 {
            fa.alloc(Lifetime::Frame, 1 << 20, 16).unwrap();
        }
        os.push(fa.stats().os_allocations);
        fa.rewind();
    }
    // Settled within 8 rewinds of the heavy frame's memory being returned.
    let settled = os[25];
    assert!(os[25..].iter().all(|&n| n == settled), "OS allocations per steady frame: {os:?}");
    assert!(os.windows(2).filter(|w| w[1] != w[0]).count() <= 3, "OS allocations per steady frame: {os:?}");
}

/// `TooLarge` comes before `Exhausted` also when the block table is full
/// (the table used to be checked first).
#[test]
fn too_large_is_checked_before_a_full_block_table() {
    let fa = FrameAllocator::new(FrameAllocConfig {
        first_block_bytes: 4096,
        chunk_bytes: 64,
        max_chunk_bytes: 64,
        max_bytes: 4096 * 504,
        ..FrameAllocConfig::default()
    });
    while fa.alloc(Lifetime::Frame, 4096, 64).is_ok() {}
    assert_eq!(fa.alloc(Lifetime::Frame, 4096, 64), Err(AllocError::Exhausted));
    assert_eq!(fa.alloc(Lifetime::Frame, isize::MAX as usize - 10, 1), Err(AllocError::TooLarge));
}
