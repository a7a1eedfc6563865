//! Integration tests of the rewindable frame allocator
//! (`onity::core::frame_alloc`).

use onity::core::frame_alloc::{
    AllocError, FrameAllocConfig, FrameAllocStats, FrameAllocator, Lifetime, HOME_RECLAIM_FRAMES, MAX_ALIGN,
    MAX_CHUNK_BYTES, MAX_GROWTH_BLOCK_BYTES, MAX_HOME_SEGMENTS, POISON_BYTE,
};
use std::ptr::NonNull;
use std::sync::{Arc, Barrier, Mutex};
use std::thread;

mod support;
use support::Rng;

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// Smaller workloads under Miri (`cargo +nightly miri test --test frame_alloc`).
const fn scale(normal: usize, miri: usize) -> usize {
    if cfg!(miri) {
        miri
    } else {
        normal
    }
}

/// One allocation made by a test.
#[derive(Clone, Copy, Debug)]
struct Rec {
    addr: usize,
    len: usize,
    tag: u64,
    lifetime: Lifetime,
}

fn pattern_byte(tag: u64, i: usize) -> u8 {
    (tag.wrapping_mul(0x9E37_79B9).wrapping_add(i as u64 * 7) >> 3) as u8
}

/// Fills an allocation with its own pattern (first and last 256 bytes for
/// big allocations, to keep the tests fast).
fn fill(r: &Rec) {
    let p = r.addr as *mut u8;
    for i in touched(r.len) {
        // SAFETY: `r` describes a live allocation of `len` bytes.
        unsafe { p.add(i).write(pattern_byte(r.tag, i)) };
    }
}

fn check(r: &Rec) {
    let p = r.addr as *const u8;
    for i in touched(r.len) {
        // SAFETY: as in `fill`.
        let b = unsafe { p.add(i).read() };
        assert_eq!(b, pattern_byte(r.tag, i), "pattern of {r:?} broken at byte {i}");
    }
}

fn touched(len: usize) -> impl Iterator<Item = usize> {
    let head = len.min(256);
    let tail_start = len.saturating_sub(256).max(head);
    (0..head).chain(tail_start..len)
}

fn all_bytes_are(p: NonNull<u8>, len: usize, v: u8) -> bool {
    // SAFETY: callers pass a range inside a live block of the allocator.
    (0..len).all(|i| unsafe { p.as_ptr().add(i).read() } == v)
}

fn assert_disjoint(recs: &[Rec]) {
    let mut v: Vec<(usize, usize)> = recs.iter().map(|r| (r.addr, r.addr + r.len)).collect();
    v.sort_unstable();
    for w in v.windows(2) {
        assert!(w[0].1 <= w[1].0, "allocations overlap: {:#x}..{:#x} and {:#x}..{:#x}", w[0].0, w[0].1, w[1].0, w[1].1);
    }
}

fn alloc_rec(fa: &FrameAllocator, lifetime: Lifetime, len: usize, align: usize, tag: u64) -> Rec {
    let p = fa.alloc(lifetime, len, align).expect("allocation failed");
    assert_eq!(p.as_ptr() as usize % align, 0, "alignment {align} not honoured");
    let r = Rec { addr: p.as_ptr() as usize, len, tag, lifetime };
    fill(&r);
    r
}

// ---------------------------------------------------------------------------
// Concurrency
// ---------------------------------------------------------------------------

/// 8 threads allocate concurrently (small, chunk-sized and direct requests,
/// random alignments, both lifetimes) over several frames. All live
/// allocations (this frame's and the previous frame's TwoFrames) must be
/// disjoint and keep their patterns until the rewind that ends them.
#[test]
fn concurrent_threads_get_disjoint_memory_that_survives_until_rewind() {
    const THREADS: usize = scale(8, 3);
    const FRAMES: u64 = scale(4, 3) as u64;
    const PER_FRAME: usize = scale(1200, 40);
    let fa = Arc::new(FrameAllocator::new(FrameAllocConfig {
        first_block_bytes: 64 << 10, // force concurrent block growth
        chunk_bytes: 4 << 10,
        max_chunk_bytes: 64 << 10, // some requests go direct
        ..FrameAllocConfig::default()
    }));
    let start = Arc::new(Barrier::new(THREADS + 1));
    let end = Arc::new(Barrier::new(THREADS + 1));
    let out: Arc<Mutex<Vec<Rec>>> = Arc::new(Mutex::new(Vec::new()));

    let workers: Vec<_> = (0..THREADS)
        .map(|t| {
            let (fa, start, end, out) = (fa.clone(), start.clone(), end.clone(), out.clone());
            thread::spawn(move || {
                let mut rng = Rng(t as u64 + 1);
                for frame in 0..FRAMES {
                    start.wait();
                    let mut mine = Vec::with_capacity(PER_FRAME);
                    for i in 0..PER_FRAME {
                        let len = match rng.below(100) {
                            0..=79 => 1 + rng.below(512) as usize,
                            80..=97 => 1 + rng.below(16 << 10) as usize,
                            _ => (64 << 10) + rng.below(200 << 10) as usize,
                        };
                        let max_shift = if rng.below(10) == 0 { 13 } else { 7 };
                        let align = 1usize << rng.below(max_shift);
                        let lifetime = if rng.below(3) == 0 { Lifetime::TwoFrames } else { Lifetime::Frame };
                        let tag = (frame << 40) | ((t as u64) << 32) | i as u64;
                        mine.push(alloc_rec(&fa, lifetime, len, align, tag));
                    }
                    out.lock().unwrap().extend(mine);
                    end.wait();
                }
            })
        })
        .collect();

    let mut prev_two: Vec<Rec> = Vec::new();
    let mut total_allocs = 0u64;
    for frame in 0..FRAMES {
        start.wait();
        end.wait();
        let mut live = std::mem::take(&mut *out.lock().unwrap());
        assert_eq!(live.len(), THREADS * PER_FRAME);
        total_allocs += live.len() as u64;
        live.extend(prev_two.iter().copied());
        for r in &live {
            check(r);
        }
        assert_disjoint(&live);
        let s = fa.stats();
        assert_eq!(s.allocations, total_allocs);
        let expect_in_use: usize = live.iter().map(|r| r.len).sum();
        assert_eq!(s.bytes_in_use, expect_in_use as u64, "frame {frame}");
        assert!(s.bytes_claimed >= s.bytes_in_use);
        assert!(s.bytes_reserved >= s.bytes_claimed);
        fa.rewind();
        prev_two = live.into_iter().filter(|r| r.lifetime == Lifetime::TwoFrames && r.tag >> 40 == frame).collect();
        // TwoFrames memory of the ending frame survives the rewind.
        for r in &prev_two {
            check(r);
        }
    }
    for w in workers {
        w.join().unwrap();
    }
    assert_eq!(fa.stats().failed_allocations, 0);
}

/// Several allocators (more than the per-thread cache holds) used in
/// interleaved fashion by several threads never mix their memory or counts.
#[test]
fn several_allocators_coexist() {
    const ALLOCATORS: usize = 6;
    const THREADS: usize = 4;
    const PER_THREAD: usize = scale(600, 30);
    let fas: Arc<Vec<FrameAllocator>> = Arc::new(
        (0..ALLOCATORS)
            .map(|_| FrameAllocator::new(FrameAllocConfig { chunk_bytes: 1 << 10, ..FrameAllocConfig::default() }))
            .collect(),
    );
    let recs: Vec<Vec<(usize, Rec)>> = (0..THREADS)
        .map(|t| {
            let fas = fas.clone();
            thread::spawn(move || {
                let mut rng = Rng(100 + t as u64);
                (0..PER_THREAD)
                    .map(|i| {
                        let k = rng.below(ALLOCATORS as u64) as usize;
                        let len = 1 + rng.below(3000) as usize;
                        let tag = ((t as u64) << 32) | i as u64;
                        (k, alloc_rec(&fas[k], Lifetime::Frame, len, 8, tag))
                    })
                    .collect()
            })
        })
        .map(|h| h.join().unwrap())
        .collect();
    let all: Vec<(usize, Rec)> = recs.into_iter().flatten().collect();
    let only: Vec<Rec> = all.iter().map(|(_, r)| *r).collect();
    for r in &only {
        check(r);
    }
    assert_disjoint(&only);
    for (k, fa) in fas.iter().enumerate() {
        let n = all.iter().filter(|(j, _)| *j == k).count() as u64;
        let s = fa.stats();
        assert_eq!(s.allocations, n, "allocator {k}");
        assert_ne!(fa.id(), fas[(k + 1) % ALLOCATORS].id());
    }
    // Rewinding one allocator does not disturb the others' memory.
    fas[0].rewind();
    for (k, r) in &all {
        if *k != 0 {
            check(r);
        }
    }
}

/// An allocator dropped and replaced by a new one at the same address must
/// not be confused with it by a thread's cache.
#[test]
fn replaced_allocator_at_same_address_does_not_reuse_stale_cache() {
    let mut fa = FrameAllocator::new(FrameAllocConfig::default());
    let addr_before = &fa as *const FrameAllocator as usize;
    let old_id = fa.id();
    let _ = alloc_rec(&fa, Lifetime::Frame, 100, 8, 1);
    let _ = alloc_rec(&fa, Lifetime::TwoFrames, 100, 8, 2);
    // Dropping the old value and moving the new one into the same place.
    fa = FrameAllocator::new(FrameAllocConfig::default());
    assert_eq!(&fa as *const FrameAllocator as usize, addr_before);
    assert_ne!(fa.id(), old_id);
    let r = alloc_rec(&fa, Lifetime::Frame, 100, 8, 3);
    let s = fa.stats();
    // A stale cache hit would have served this without any block.
    assert_eq!(s.os_allocations, 1);
    assert_eq!(s.allocations, 1);
    assert_eq!(s.bytes_in_use, 100);
    check(&r);
}

/// Threads that allocate and exit leave no dangling state; their counts
/// remain and their TwoFrames memory lives on.
#[test]
fn threads_may_exit_between_frames() {
    let fa = Arc::new(FrameAllocator::new(FrameAllocConfig::default()));
    let mut recs = Vec::new();
    for t in 0..scale(20, 4) as u64 {
        let fa2 = fa.clone();
        recs.push(thread::spawn(move || alloc_rec(&fa2, Lifetime::TwoFrames, 333, 16, t)).join().unwrap());
    }
    assert_eq!(fa.stats().allocations, scale(20, 4) as u64);
    fa.rewind();
    for r in &recs {
        check(r);
    }
    // New threads after a rewind work too (and do not overlap last frame's
    // TwoFrames memory).
    for t in 0..scale(20, 4) as u64 {
        let fa2 = fa.clone();
        recs.push(thread::spawn(move || alloc_rec(&fa2, Lifetime::TwoFrames, 333, 16, 100 + t)).join().unwrap());
    }
    for r in &recs {
        check(r);
    }
    assert_disjoint(&recs);
    assert_eq!(fa.stats().allocations, scale(40, 8) as u64);
}

/// A thread's slot (statistics, home chunks) is released when it exits and
/// taken over by the next new thread: the number of slots follows the
/// threads alive at the same time, not every thread that ever allocated.
/// Counts stay exact.
#[test]
fn slots_of_exited_threads_are_reused() {
    let fa = Arc::new(FrameAllocator::new(FrameAllocConfig::default()));
    let rounds = scale(40, 4) as u64;
    for t in 0..rounds {
        let fa2 = fa.clone();
        thread::spawn(move || {
            fa2.alloc(Lifetime::Frame, 100, 8).unwrap();
            fa2.alloc(Lifetime::TwoFrames, 10 + t as usize, 8).unwrap();
        })
        .join()
        .unwrap();
        if t % 3 == 0 {
            fa.rewind();
        }
        assert_eq!(fa.thread_slots(), 1, "thread {t} did not reuse the exited thread's slot");
    }
    // Several threads alive at once each need a slot; later threads reuse them.
    const ALIVE: usize = scale(4, 2);
    for _ in 0..3 {
        let barrier = Arc::new(Barrier::new(ALIVE));
        let hs: Vec<_> = (0..ALIVE)
            .map(|_| {
                let (fa, barrier) = (fa.clone(), barrier.clone());
                thread::spawn(move || {
                    fa.alloc(Lifetime::Frame, 64, 8).unwrap();
                    barrier.wait(); // all alive (and registered) at once
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
        assert_eq!(fa.thread_slots(), ALIVE);
    }
    // The main thread takes over one of the released slots too.
    fa.alloc(Lifetime::Frame, 8, 8).unwrap();
    assert_eq!(fa.thread_slots(), ALIVE);
    let s = fa.stats();
    assert_eq!(s.allocations, 2 * rounds + 3 * ALIVE as u64 + 1);
    fa.rewind();
    fa.rewind();
    assert_eq!(fa.stats().bytes_in_use, 0);
    assert_eq!(fa.stats().allocations, s.allocations);
}

/// A thread taking over the slot of a thread that exited in the same frame
/// never gets memory still in use: neither that frame's allocations nor
/// the TwoFrames allocations that outlive the next rewind.
#[test]
fn a_reused_slot_never_aliases_live_memory() {
    let fa = Arc::new(FrameAllocator::new(FrameAllocConfig { chunk_bytes: 4096, ..FrameAllocConfig::default() }));
    let spawn = |tag: u64| {
        let fa = fa.clone();
        thread::spawn(move || {
            let mut v = Vec::new();
            for i in 0..scale(40, 8) as u64 {
                let lifetime = if i % 2 == 0 { Lifetime::Frame } else { Lifetime::TwoFrames };
                v.push(alloc_rec(&fa, lifetime, 64 + (i as usize * 97) % 700, 16, tag * 1000 + i));
            }
            v
        })
        .join()
        .unwrap()
    };
    let mut frames: Vec<Vec<Rec>> = Vec::new();
    // Each thread exits before the next starts, so each reuses the same slot.
    for f in 0..scale(5, 3) as u64 {
        let mut live: Vec<Rec> = Vec::new();
        // The TwoFrames allocations of the previous frame are still live.
        if let Some(prev) = frames.last() {
            live.extend(prev.iter().filter(|r| r.lifetime == Lifetime::TwoFrames).copied());
        }
        let mut this = Vec::new();
        for t in 0..3 {
            this.extend(spawn(f * 10 + t));
            assert_eq!(fa.thread_slots(), 1);
        }
        live.extend(this.iter().copied());
        for r in &live {
            check(r);
        }
        assert_disjoint(&live);
        frames.push(this);
        fa.rewind();
    }
}

/// A frame needing more than the largest home chunk gets a home of several
/// segments of that size: a steady frame then uses only its own memory (no
/// overflow chunk, no OS allocation, the same addresses every frame),
/// however large it is, up to `MAX_HOME_SEGMENTS` segments.
#[test]
fn frames_above_the_largest_home_chunk_use_home_segments() {
    const THREADS: usize = 2;
    // Segments of SEG bytes; frames of about 12 segments per thread (+ 1/8
    // headroom and segment tails: 14 segments, below MAX_HOME_SEGMENTS).
    const SEG: usize = scale(64 << 10, 16 << 10);
    let cfg = FrameAllocConfig { chunk_bytes: 4096, max_chunk_bytes: SEG, ..FrameAllocConfig::default() };
    let fa = Arc::new(FrameAllocator::new(cfg));
    let per_frame = scale(192, 48);
    let frames = scale(8, 5);
    let barrier = Arc::new(Barrier::new(THREADS + 1));
    let firsts: Arc<Mutex<Vec<Vec<usize>>>> = Arc::new(Mutex::new(vec![Vec::new(); THREADS]));
    let recs: Arc<Mutex<Vec<Rec>>> = Arc::new(Mutex::new(Vec::new()));
    let workers: Vec<_> = (0..THREADS)
        .map(|t| {
            let (fa, barrier, firsts, recs) = (fa.clone(), barrier.clone(), firsts.clone(), recs.clone());
            thread::spawn(move || {
                for f in 0..frames {
                    barrier.wait();
                    let mut v = Vec::new();
                    for i in 0..per_frame {
                        // 4 KiB on average, sizes varying, so segment tails are left.
                        let len = 1024 + (i * 1237 + t * 17) % 6144;
                        v.push(alloc_rec(&fa, Lifetime::Frame, len, 16, ((t * 100 + f) * 1000 + i) as u64));
                    }
                    firsts.lock().unwrap()[t].push(v[0].addr);
                    recs.lock().unwrap().extend(v);
                    barrier.wait();
                }
            })
        })
        .collect();
    let mut steady = None;
    for f in 0..frames {
        barrier.wait();
        barrier.wait();
        let mut all = std::mem::take(&mut *recs.lock().unwrap());
        for r in &all {
            check(r);
        }
        assert_disjoint(&all);
        all.clear();
        let s = fa.stats();
        if f == 2 {
            steady = Some(s);
        }
        if f >= 2 {
            let homes_only = s.bytes_claimed;
            // Each thread's home: segments of SEG bytes covering its frame
            // (its TwoFrames homes were never created), nothing else claimed.
            assert_eq!(homes_only % SEG as u64, 0, "{s:?}");
            assert!(homes_only >= s.bytes_in_use, "{s:?}");
            assert!(homes_only <= (THREADS * MAX_HOME_SEGMENTS * SEG) as u64, "{s:?}");
        }
        fa.rewind();
    }
    for w in workers {
        w.join().unwrap();
    }
    let s = fa.stats();
    assert_eq!(s.os_allocations, steady.unwrap().os_allocations, "steady frames made OS allocations");
    for (t, f) in firsts.lock().unwrap().iter().enumerate() {
        assert!(f[2..].iter().all(|&a| a == f[2]), "thread {t} did not restart in its home: {f:x?}");
    }
}

/// Frames beyond `MAX_HOME_SEGMENTS` segments still work (the rest comes
/// from overflow chunks), and a home of segments shrinks back once the
/// frames get small.
#[test]
fn homes_of_segments_are_capped_and_shrink() {
    let cfg = FrameAllocConfig { chunk_bytes: 4096, max_chunk_bytes: 16 << 10, ..FrameAllocConfig::default() };
    let fa = FrameAllocator::new(cfg);
    // 512 KiB per frame > 16 segments of 16 KiB.
    let heavy = |fa: &FrameAllocator, tag: u64| {
        let v: Vec<Rec> =
            (0..scale(128, 128)).map(|i| alloc_rec(fa, Lifetime::Frame, 4096, 64, tag + i as u64)).collect();
        for r in &v {
            check(r);
        }
        assert_disjoint(&v);
    };
    for f in 0..4 {
        heavy(&fa, f * 1000);
        fa.rewind();
    }
    let os = fa.stats().os_allocations;
    heavy(&fa, 9000);
    let s = fa.stats();
    assert_eq!(s.os_allocations, os, "steady frames made OS allocations");
    // 16 segments of 16 KiB, plus overflow chunks for the rest.
    assert!(s.bytes_claimed >= 512 << 10, "{s:?}");
    fa.rewind();
    for _ in 0..HOME_RECLAIM_FRAMES + 2 {
        fa.alloc(Lifetime::Frame, 64, 8).unwrap();
        fa.rewind();
    }
    fa.alloc(Lifetime::Frame, 64, 8).unwrap();
    assert!(fa.stats().bytes_claimed <= 16 << 10, "home did not shrink: {:?}", fa.stats());
}

// ---------------------------------------------------------------------------
// Alignment, sizes, errors
// ---------------------------------------------------------------------------

#[test]
fn alignment_is_honoured_from_1_to_4096() {
    let fa = FrameAllocator::new(FrameAllocConfig::default());
    let mut recs = Vec::new();
    let mut tag = 0;
    for lifetime in [Lifetime::Frame, Lifetime::TwoFrames] {
        for shift in 0..=12 {
            let align = 1usize << shift;
            for len in [1, 3, 64, 1000, 5000, 20_000] {
                tag += 1;
                recs.push(alloc_rec(&fa, lifetime, len, align, tag));
            }
        }
    }
    // Interleave odd sizes and big alignments in the same chunk.
    let mut rng = Rng(7);
    for _ in 0..scale(2000, 100) {
        tag += 1;
        let align = 1usize << rng.below(13);
        let len = 1 + rng.below(100) as usize;
        recs.push(alloc_rec(&fa, Lifetime::Frame, len, align, tag));
    }
    assert_eq!(MAX_ALIGN, 4096);
    for r in &recs {
        check(r);
    }
    assert_disjoint(&recs);
}

/// Requests larger than the largest chunk are carved straight from blocks;
/// their alignment padding must be accounted for too.
#[test]
fn alignment_is_honoured_for_direct_requests() {
    let fa = FrameAllocator::new(FrameAllocConfig {
        chunk_bytes: 1 << 10,
        max_chunk_bytes: 8 << 10,
        ..FrameAllocConfig::default()
    });
    let mut recs = Vec::new();
    let mut rng = Rng(99);
    for tag in 0..scale(400, 30) as u64 {
        let align = 1usize << rng.below(13);
        // Mostly above max_chunk_bytes, with odd lengths so block offsets
        // are rarely page aligned.
        let len = (8 << 10) + 1 + rng.below(20 << 10) as usize;
        let lifetime = if tag % 2 == 0 { Lifetime::Frame } else { Lifetime::TwoFrames };
        recs.push(alloc_rec(&fa, lifetime, len, align, tag));
    }
    for r in &recs {
        check(r);
    }
    assert_disjoint(&recs);
}

#[test]
fn bad_inputs_return_errors() {
    let fa = FrameAllocator::new(FrameAllocConfig::default());
    let f = Lifetime::Frame;
    assert_eq!(fa.alloc(f, 0, 8), Err(AllocError::ZeroSize));
    assert_eq!(fa.alloc(Lifetime::TwoFrames, 0, 1), Err(AllocError::ZeroSize));
    for align in [0, 3, 6, 12, 8192, 1 << 20, usize::MAX] {
        assert_eq!(fa.alloc(f, 16, align), Err(AllocError::InvalidAlignment), "align {align}");
    }
    // Alignment is checked before the size.
    assert_eq!(fa.alloc(f, 0, 3), Err(AllocError::InvalidAlignment));
    assert_eq!(fa.alloc(f, usize::MAX, 1), Err(AllocError::TooLarge));
    assert_eq!(fa.alloc(f, usize::MAX - 10, 4096), Err(AllocError::TooLarge));
    assert_eq!(fa.alloc(f, isize::MAX as usize + 1, 1), Err(AllocError::TooLarge));
    assert_eq!(fa.alloc(f, isize::MAX as usize, 2), Err(AllocError::TooLarge));
    assert_eq!(fa.alloc(f, isize::MAX as usize - 4095, 4096), Err(AllocError::TooLarge));
    // Representable but impossible: the OS refuses the block. (Miri aborts
    // on such a request instead of failing it.)
    let oom = if cfg!(miri) { 0 } else { 1 };
    if !cfg!(miri) {
        assert_eq!(fa.alloc(f, 1 << 62, 8), Err(AllocError::OutOfMemory));
    }
    let s = fa.stats();
    assert_eq!(s.failed_allocations, 2 + 7 + 1 + 5 + oom);
    assert_eq!(s.allocations, 0);
    // At most the thread's home chunk was reserved.
    assert!(s.os_allocations <= 1);
    // Still usable.
    let r = alloc_rec(&fa, f, 10, 8, 1);
    check(&r);
    for e in [
        AllocError::ZeroSize,
        AllocError::InvalidAlignment,
        AllocError::TooLarge,
        AllocError::Exhausted,
        AllocError::OutOfMemory,
    ] {
        assert!(!e.to_string().is_empty());
    }
}

#[test]
fn byte_cap_exhaustion_is_an_error_and_rewind_recovers() {
    const CAP: usize = 1 << 20;
    let fa = FrameAllocator::new(FrameAllocConfig {
        first_block_bytes: 256 << 10,
        max_bytes: CAP,
        ..FrameAllocConfig::default()
    });
    let frame = |tag_base: u64| -> Vec<Rec> {
        let mut v = Vec::new();
        loop {
            match fa.alloc(Lifetime::Frame, 60 << 10, 64) {
                Ok(p) => {
                    let r = Rec {
                        addr: p.as_ptr() as usize,
                        len: 60 << 10,
                        tag: tag_base + v.len() as u64,
                        lifetime: Lifetime::Frame,
                    };
                    fill(&r);
                    v.push(r);
                }
                Err(e) => {
                    assert_eq!(e, AllocError::Exhausted);
                    break;
                }
            }
            assert!(v.len() < 100, "cap not enforced");
        }
        v
    };
    let first = frame(0);
    assert!(first.len() >= 8, "only {} allocations fit under a 1 MiB cap", first.len());
    for r in &first {
        check(r);
    }
    assert_disjoint(&first);
    let s = fa.stats();
    assert!(s.bytes_reserved <= CAP as u64);
    assert_eq!(s.failed_allocations, 1);
    // A request larger than the cap fails the same way.
    assert_eq!(fa.alloc(Lifetime::Frame, 2 * CAP, 8), Err(AllocError::Exhausted));
    // Further failures do not reserve anything.
    assert_eq!(fa.stats().bytes_reserved, s.bytes_reserved);

    fa.rewind();
    let second = frame(1000);
    assert_eq!(second.len(), first.len());
    assert_eq!(fa.stats().os_allocations, s.os_allocations, "rewind must reuse blocks");
}

#[test]
#[cfg_attr(miri, ignore = "hundreds of MiB are too slow under Miri")]
fn large_requests_work() {
    let fa = FrameAllocator::new(FrameAllocConfig::default());
    let mut recs = Vec::new();
    let sizes = [20 << 10, 1 << 20, (4 << 20) + 1, 10 << 20, 100 << 20, 3];
    for (i, &len) in sizes.iter().enumerate() {
        recs.push(alloc_rec(&fa, Lifetime::Frame, len, 16, i as u64));
        recs.push(alloc_rec(&fa, Lifetime::TwoFrames, len, 4096, 100 + i as u64));
    }
    for r in &recs {
        check(r);
    }
    assert_disjoint(&recs);
    let s = fa.stats();
    let total: usize = recs.iter().map(|r| r.len).sum();
    assert_eq!(s.bytes_in_use, total as u64);
    assert!(s.bytes_reserved >= 2 * (100 << 20));
    // Repeating the frame: after a few frames (chunk sizes adapt to what the
    // thread consumed), no more blocks.
    let mut os = Vec::new();
    for _ in 0..8 {
        fa.rewind();
        for (i, &len) in sizes.iter().enumerate() {
            alloc_rec(&fa, Lifetime::Frame, len, 16, i as u64);
            alloc_rec(&fa, Lifetime::TwoFrames, len, 4096, 100 + i as u64);
        }
        os.push(fa.stats().os_allocations);
    }
    assert!(os[3..].iter().all(|&n| n == os[3]), "blocks still added in steady state: {os:?}");
}

// ---------------------------------------------------------------------------
// Rewind, lifetimes, steady state
// ---------------------------------------------------------------------------

#[test]
fn rewind_reuses_the_same_memory() {
    let fa = FrameAllocator::new(FrameAllocConfig::default());
    let a = fa.alloc(Lifetime::Frame, 100, 16).unwrap();
    fa.rewind();
    let b = fa.alloc(Lifetime::Frame, 100, 16).unwrap();
    assert_eq!(a, b);
    // TwoFrames alternates between two arenas.
    let t0 = fa.alloc(Lifetime::TwoFrames, 100, 16).unwrap();
    fa.rewind();
    let t1 = fa.alloc(Lifetime::TwoFrames, 100, 16).unwrap();
    assert_ne!(t0, t1);
    fa.rewind();
    let t2 = fa.alloc(Lifetime::TwoFrames, 100, 16).unwrap();
    assert_eq!(t0, t2);
}

#[test]
fn two_frames_memory_survives_exactly_one_extra_rewind() {
    let fa = FrameAllocator::new(FrameAllocConfig { poison_on_rewind: true, ..FrameAllocConfig::default() });
    const N: usize = 1000;
    let fill_with = |p: NonNull<u8>, v: u8| unsafe { p.as_ptr().write_bytes(v, N) };
    let a = fa.alloc(Lifetime::Frame, N, 8).unwrap();
    let b = fa.alloc(Lifetime::TwoFrames, N, 8).unwrap();
    fill_with(a, 0xAB);
    fill_with(b, 0xCD);

    fa.rewind();
    assert!(all_bytes_are(a, N, POISON_BYTE), "Frame memory must be poisoned by the first rewind");
    assert!(all_bytes_are(b, N, 0xCD), "TwoFrames memory must survive the first rewind");
    let c = fa.alloc(Lifetime::TwoFrames, N, 8).unwrap();
    let d = fa.alloc(Lifetime::Frame, N, 8).unwrap();
    fill_with(c, 0xEE);
    fill_with(d, 0x11);
    assert!(all_bytes_are(b, N, 0xCD), "new allocations must not overlap live TwoFrames memory");

    fa.rewind();
    assert!(all_bytes_are(b, N, POISON_BYTE), "TwoFrames memory must be poisoned by the second rewind");
    assert!(all_bytes_are(c, N, 0xEE));
    assert!(all_bytes_are(d, N, POISON_BYTE));

    fa.rewind();
    assert!(all_bytes_are(c, N, POISON_BYTE));
}

/// Allocates a deterministic frame (several blocks' worth, both lifetimes).
fn steady_frame(fa: &FrameAllocator, rng_seed: u64) {
    let mut rng = Rng(rng_seed);
    for i in 0..scale(3000, 400) {
        let len = if i % 100 == 0 { 300 << 10 } else { 1 + rng.below(2000) as usize };
        let lifetime = if i % 3 == 0 { Lifetime::TwoFrames } else { Lifetime::Frame };
        let p = fa.alloc(lifetime, len, 1 << rng.below(7)).unwrap();
        // SAFETY: live allocation of at least one byte.
        unsafe { p.as_ptr().write(i as u8) };
    }
}

#[test]
fn steady_state_frames_make_no_os_allocation() {
    let fa = FrameAllocator::new(FrameAllocConfig::default());
    // Warm up: frames 0 and 1 fill the overflow arenas (Frame, TwoFrames A
    // and B) and size the home chunks; frames 2 and 3 resize the TwoFrames
    // homes.
    for _ in 0..4 {
        steady_frame(&fa, 42);
        fa.rewind();
    }
    let warm = fa.stats();
    assert!(warm.blocks >= 4, "the frame should span several blocks: {warm:?}");
    for _ in 0..scale(50, 3) {
        steady_frame(&fa, 42);
        fa.rewind();
    }
    let s = fa.stats();
    assert_eq!(s.os_allocations, warm.os_allocations);
    // Overflow blocks only the first frames needed (before the home chunks
    // were sized) may have been returned; nothing was added.
    assert!(s.bytes_reserved <= warm.bytes_reserved);
    assert!(s.blocks <= warm.blocks);
    assert_eq!(s.rewinds, 4 + scale(50, 3) as u64);
}

/// Overflow blocks a one-off heavy frame needed are returned to the OS once
/// `HOME_RECLAIM_FRAMES` frames in a row did not need them; blocks a steady
/// frame uses are kept.
#[test]
fn blocks_of_a_one_off_heavy_frame_are_returned() {
    let fa = FrameAllocator::new(FrameAllocConfig::default());
    let light = |fa: &FrameAllocator| {
        for _ in 0..10 {
            fa.alloc(Lifetime::Frame, 1000, 8).unwrap();
        }
    };
    for _ in 0..3 {
        light(&fa);
        fa.rewind();
    }
    let steady = fa.stats();
    // One heavy frame: 40 MiB of overflow.
    for _ in 0..40 {
        fa.alloc(Lifetime::Frame, 1 << 20, 8).unwrap();
    }
    fa.rewind();
    let heavy = fa.stats();
    assert!(heavy.bytes_reserved >= steady.bytes_reserved + (40 << 20), "{heavy:?}");
    for i in 0..HOME_RECLAIM_FRAMES {
        light(&fa);
        fa.rewind();
        let s = fa.stats();
        if i + 1 < HOME_RECLAIM_FRAMES - 1 {
            assert!(s.bytes_reserved >= heavy.bytes_reserved - (16 << 20), "returned too early ({i}): {s:?}");
        }
    }
    let s = fa.stats();
    // The home chunk grew for the heavy frame and stays (it shrinks only
    // when 8 times too large and is then recycled, not freed); the overflow
    // blocks are gone.
    assert!(s.bytes_reserved < heavy.bytes_reserved - (32 << 20), "heavy frame memory kept: {s:?}");
    assert_eq!(s.os_allocations, heavy.os_allocations);
}

#[test]
fn steady_state_with_threads_makes_no_os_allocation() {
    const THREADS: usize = scale(4, 2);
    const PER_FRAME: u64 = scale(400, 20) as u64;
    let fa =
        Arc::new(FrameAllocator::new(FrameAllocConfig { first_block_bytes: 8 << 20, ..FrameAllocConfig::default() }));
    let barrier = Arc::new(Barrier::new(THREADS + 1));
    let frames = scale(30, 4) as u64;
    let workers: Vec<_> = (0..THREADS)
        .map(|t| {
            let (fa, barrier) = (fa.clone(), barrier.clone());
            thread::spawn(move || {
                for _ in 0..frames {
                    barrier.wait();
                    // The same workload every frame (per thread): its
                    // footprint is reached in the warm-up.
                    let mut rng = Rng(t as u64 * 1000);
                    for _ in 0..PER_FRAME {
                        let lifetime = if rng.below(2) == 0 { Lifetime::Frame } else { Lifetime::TwoFrames };
                        let p = fa.alloc(lifetime, 1 + rng.below(1000) as usize, 8).unwrap();
                        // SAFETY: live allocation of at least one byte.
                        unsafe { p.as_ptr().write(1) };
                    }
                    barrier.wait();
                }
            })
        })
        .collect();
    let mut after_warmup = None;
    for f in 0..frames {
        barrier.wait();
        barrier.wait();
        if f == 2 {
            after_warmup = Some(fa.stats());
        }
        fa.rewind();
    }
    for w in workers {
        w.join().unwrap();
    }
    let warm = after_warmup.unwrap();
    let s = fa.stats();
    assert!(warm.os_allocations >= 1, "{warm:?}");
    assert_eq!(s.os_allocations, warm.os_allocations);
    assert_eq!(s.allocations, THREADS as u64 * PER_FRAME * frames);
}

#[test]
fn stats_track_usage_per_lifetime() {
    let fa = FrameAllocator::new(FrameAllocConfig::default());
    assert_eq!(fa.stats(), FrameAllocStats::default());
    fa.alloc(Lifetime::Frame, 1000, 8).unwrap();
    fa.alloc(Lifetime::Frame, 24, 8).unwrap();
    fa.alloc(Lifetime::TwoFrames, 500, 8).unwrap();
    let s = fa.stats();
    assert_eq!(s.bytes_in_use, 1524);
    assert_eq!(s.allocations, 3);
    // Both home chunks (16 KiB each) come from the first block of the home
    // arena.
    assert_eq!(s.os_allocations, 1);
    assert_eq!(s.blocks, 1);
    assert_eq!(s.bytes_reserved, 256 << 10);
    assert_eq!(s.bytes_claimed, 2 * (16 << 10));
    assert_eq!(s.high_water_bytes_in_use, 1524);

    fa.rewind();
    let s = fa.stats();
    assert_eq!(s.bytes_in_use, 500, "only the TwoFrames allocation is live");
    assert_eq!(s.rewinds, 1);
    assert_eq!(fa.epoch(), 1);
    fa.alloc(Lifetime::TwoFrames, 100, 8).unwrap();
    assert_eq!(fa.stats().bytes_in_use, 600);

    fa.rewind();
    let s = fa.stats();
    assert_eq!(s.bytes_in_use, 100);
    fa.rewind();
    let s = fa.stats();
    assert_eq!(s.bytes_in_use, 0);
    assert_eq!(s.bytes_claimed, 3 * (16 << 10), "the thread keeps its three home chunks");
    assert_eq!(s.high_water_bytes_in_use, 1524);
    assert_eq!(s.allocations, 4);
    assert_eq!(s.failed_allocations, 0);
    assert_eq!(s.rewinds, 3);
    // The runtime can print it.
    assert!(format!("{fa:?}").contains("FrameAllocator"));
}

/// Each thread restarts in its own home chunk every frame: the same memory,
/// whatever other threads do (cache and TLB affinity, no shared write).
#[test]
fn threads_reuse_their_home_chunk_every_frame() {
    const THREADS: usize = 3;
    let fa = Arc::new(FrameAllocator::new(FrameAllocConfig::default()));
    let barrier = Arc::new(Barrier::new(THREADS + 1));
    let firsts: Arc<Mutex<Vec<Vec<usize>>>> = Arc::new(Mutex::new(vec![Vec::new(); THREADS]));
    let frames = scale(6, 4);
    let workers: Vec<_> = (0..THREADS)
        .map(|t| {
            let (fa, barrier, firsts) = (fa.clone(), barrier.clone(), firsts.clone());
            thread::spawn(move || {
                for _ in 0..frames {
                    barrier.wait();
                    let first = fa.alloc(Lifetime::Frame, 100, 16).unwrap().as_ptr() as usize;
                    for i in 0..scale(200, 20) {
                        fa.alloc(Lifetime::Frame, 1 + (i * 7 + t) % 300, 8).unwrap();
                    }
                    firsts.lock().unwrap()[t].push(first);
                    barrier.wait();
                }
            })
        })
        .collect();
    for _ in 0..frames {
        barrier.wait();
        barrier.wait();
        fa.rewind();
    }
    for w in workers {
        w.join().unwrap();
    }
    let firsts = firsts.lock().unwrap();
    for (t, f) in firsts.iter().enumerate() {
        // Frames 0 and 1 size the home chunk (it starts at `chunk_bytes` and
        // follows the smaller consumption of the last two frames).
        assert!(f[2..].iter().all(|&a| a == f[2]), "thread {t} did not restart in its home chunk: {f:x?}");
    }
}

/// Home chunks of threads that stopped allocating (here: exited) are
/// reclaimed after `HOME_RECLAIM_FRAMES` rewinds and reused by new threads.
#[test]
fn idle_home_chunks_are_reclaimed_and_reused() {
    let fa = Arc::new(FrameAllocator::new(FrameAllocConfig::default()));
    // Not at a multiple of HOME_RECLAIM_FRAMES (rewinds check every that
    // many frames).
    for _ in 0..3 {
        fa.rewind();
    }
    let fa2 = fa.clone();
    thread::spawn(move || {
        fa2.alloc(Lifetime::Frame, 100, 8).unwrap();
        fa2.alloc(Lifetime::TwoFrames, 100, 8).unwrap();
    })
    .join()
    .unwrap();
    let held = fa.stats().bytes_claimed;
    assert_eq!(held, 2 * (16 << 10));
    for _ in 0..HOME_RECLAIM_FRAMES - 1 {
        fa.rewind();
        assert_eq!(fa.stats().bytes_claimed, held, "reclaimed too early");
    }
    for _ in 0..HOME_RECLAIM_FRAMES + 1 {
        fa.rewind();
    }
    let s = fa.stats();
    assert_eq!(s.bytes_claimed, 0, "home chunks of the exited thread not reclaimed");
    // A new thread gets them back without reserving anything.
    let fa2 = fa.clone();
    thread::spawn(move || {
        fa2.alloc(Lifetime::Frame, 100, 8).unwrap();
        fa2.alloc(Lifetime::TwoFrames, 100, 8).unwrap();
    })
    .join()
    .unwrap();
    let s2 = fa.stats();
    assert_eq!(s2.os_allocations, s.os_allocations);
    assert_eq!(s2.bytes_claimed, held);
}

/// A home chunk grows to the power of two covering what its thread
/// consumed last frame plus 1/8 (so a steady frame needs no overflow), and
/// the chunk it replaces is recycled for another thread.
#[test]
fn home_chunks_resize_to_the_frame_and_are_recycled() {
    let fa = Arc::new(FrameAllocator::new(FrameAllocConfig::default()));
    let frame = |fa: &FrameAllocator| {
        let first = fa.alloc(Lifetime::Frame, 1000, 8).unwrap();
        for _ in 0..99 {
            fa.alloc(Lifetime::Frame, 1000, 8).unwrap();
        }
        first
    };
    let first0 = frame(&fa); // 16 KiB home + overflow
    fa.rewind();
    frame(&fa); // same (homes follow the smaller of the last two frames)
    fa.rewind();
    frame(&fa); // home resized, no overflow
    let s = fa.stats();
    // 100 000 bytes + 1/8 -> size class 112 KiB (7/4 * 64 KiB).
    assert_eq!(s.bytes_claimed, 112 << 10, "{s:?}");
    fa.rewind();
    frame(&fa);
    assert_eq!(fa.stats().bytes_claimed, 112 << 10);
    // The first 16 KiB home went back to the pool: a new thread gets it.
    let fa2 = fa.clone();
    let other = thread::spawn(move || fa2.alloc(Lifetime::Frame, 10, 8).unwrap().as_ptr() as usize).join().unwrap();
    assert_eq!(other, first0.as_ptr() as usize);
}

/// Home chunks of 1 MiB or more have a block of their own: freed when the
/// home shrinks, or when the allocator is dropped while a thread holds it.
#[test]
fn large_home_chunks_are_returned_when_they_shrink() {
    let heavy = |fa: &FrameAllocator| {
        for _ in 0..scale(512, 300) {
            fa.alloc(Lifetime::Frame, 4096, 8).unwrap();
        }
    };
    let fa = FrameAllocator::new(FrameAllocConfig::default());
    for _ in 0..3 {
        heavy(&fa);
        fa.rewind();
    }
    heavy(&fa);
    let s = fa.stats();
    assert!(s.bytes_claimed >= 1 << 20, "home chunk not grown: {s:?}");
    // Dropping it now frees the dedicated home block too (checked by Miri
    // and valgrind).
    drop(fa);

    let fa = FrameAllocator::new(FrameAllocConfig::default());
    // Long enough for the overflow blocks of the first frames (before the
    // home chunk grew) to be returned.
    for _ in 0..3 + HOME_RECLAIM_FRAMES {
        heavy(&fa);
        fa.rewind();
    }
    let s = fa.stats();
    assert!(s.bytes_claimed >= 1 << 20, "home chunk not grown: {s:?}");
    for _ in 0..HOME_RECLAIM_FRAMES + 2 {
        fa.alloc(Lifetime::Frame, 64, 8).unwrap();
        fa.rewind();
    }
    let s2 = fa.stats();
    assert!(s2.bytes_claimed < 64 << 10, "home chunk did not shrink: {s2:?}");
    assert!(s2.bytes_reserved + (1 << 20) <= s.bytes_reserved, "large home not returned: {s:?} -> {s2:?}");
}

#[test]
fn config_is_normalised() {
    let fa = FrameAllocator::new(FrameAllocConfig {
        first_block_bytes: 1,
        chunk_bytes: 1,
        max_chunk_bytes: 0,
        max_bytes: 0,
        poison_on_rewind: false,
        prefault: false,
    });
    let c = fa.config();
    assert_eq!(c.first_block_bytes, 4096);
    assert_eq!(c.chunk_bytes, 64);
    assert_eq!(c.max_chunk_bytes, 64);
    // Tiny chunks and blocks still work, including requests bigger than both.
    let mut recs = Vec::new();
    for i in 0..500u64 {
        recs.push(alloc_rec(&fa, Lifetime::Frame, 1 + (i as usize * 37) % 9000, 8, i));
    }
    for r in &recs {
        check(r);
    }
    assert_disjoint(&recs);

    // Absurd sizes are capped and never overflow or panic.
    let huge = FrameAllocator::new(FrameAllocConfig {
        first_block_bytes: usize::MAX,
        chunk_bytes: usize::MAX,
        max_chunk_bytes: usize::MAX,
        max_bytes: usize::MAX,
        poison_on_rewind: false,
        prefault: false,
    });
    assert_eq!(huge.config().chunk_bytes, 1 << 48);
    if !cfg!(miri) {
        // Chunks act as MAX_CHUNK_BYTES (a 2 GiB home, reserved but never
        // touched: no prefault); the first overflow block would be 256 TiB.
        match huge.alloc(Lifetime::Frame, 8, 8) {
            Ok(p) => {
                assert_eq!(p.as_ptr() as usize % 8, 0);
                let s = huge.stats();
                assert_eq!(s.bytes_claimed, MAX_CHUNK_BYTES as u64, "{s:?}");
                assert_eq!((s.allocations, s.bytes_in_use), (1, 8));
            }
            Err(e) => assert_eq!(e, AllocError::OutOfMemory),
        }
    }
}

/// The fast path counts into a packed per-thread word that the slow path
/// folds when the thread changes chunk: the statistics stay exact after
/// every allocation, across chunk changes, lifetimes and rewinds.
#[test]
fn statistics_are_exact_after_every_allocation() {
    let fa = FrameAllocator::new(FrameAllocConfig {
        first_block_bytes: 4096,
        chunk_bytes: 256,
        max_chunk_bytes: 1024,
        ..FrameAllocConfig::default()
    });
    let mut rng = Rng(7);
    let (mut allocs, mut live) = (0u64, [0u64; 3]); // live: Frame, TwoFrames now, TwoFrames previous
    let mut high = 0;
    for frame in 0..scale(6, 3) {
        for _ in 0..scale(400, 60) {
            let max = if rng.below(8) == 0 { 3000 } else { 40 };
            let len = 1 + rng.below(max) as usize;
            let align = 1 << rng.below(7);
            let two = rng.below(3) == 0;
            let lt = if two { Lifetime::TwoFrames } else { Lifetime::Frame };
            fa.alloc(lt, len, align).unwrap();
            allocs += 1;
            live[two as usize] += len as u64;
            let s = fa.stats();
            assert_eq!(s.allocations, allocs, "frame {frame}");
            assert_eq!(s.bytes_in_use, live.iter().sum::<u64>(), "frame {frame}");
            high = high.max(s.bytes_in_use);
            assert_eq!(s.high_water_bytes_in_use, high);
        }
        fa.rewind();
        live = [0, 0, live[1]];
        assert_eq!(fa.stats().bytes_in_use, live[2]);
    }
    // Another thread's counts are visible to this one once it is joined.
    std::thread::scope(|sc| {
        sc.spawn(|| {
            for i in 0..scale(300, 40) {
                fa.alloc(Lifetime::Frame, 1 + i % 7, 1).unwrap();
            }
        });
    });
    let n = scale(300, 40);
    assert_eq!(fa.stats().allocations, allocs + n as u64);
    assert_eq!(fa.stats().bytes_in_use, live[2] + (0..n).map(|i| 1 + i as u64 % 7).sum::<u64>());
}

#[test]
fn prefault_touches_new_blocks() {
    let fa = FrameAllocator::new(FrameAllocConfig {
        prefault: true,
        first_block_bytes: 64 << 10,
        ..FrameAllocConfig::default()
    });
    let mut recs = Vec::new();
    for i in 0..scale(200, 20) as u64 {
        recs.push(alloc_rec(&fa, Lifetime::Frame, 1 + (i as usize * 997) % 20_000, 32, i));
    }
    for r in &recs {
        check(r);
    }
    assert_disjoint(&recs);
    assert!(fa.stats().os_allocations >= 2);
    assert!(fa.config().prefault);
}

#[test]
fn allocator_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<FrameAllocator>();
    fn assert_copy<T: Copy>() {}
    assert_copy::<FrameAllocStats>();
    assert_copy::<FrameAllocConfig>();
}

#[cfg(debug_assertions)]
#[test]
fn rewind_from_a_second_thread_is_caught_in_debug_builds() {
    let fa = Arc::new(FrameAllocator::new(FrameAllocConfig::default()));
    fa.rewind(); // this thread becomes the owner
    let fa2 = fa.clone();
    let r = thread::spawn(move || fa2.rewind()).join();
    assert!(r.is_err(), "a rewind from another thread must trip the debug check");
    // The allocator is still usable by its owner.
    fa.rewind();
    fa.alloc(Lifetime::Frame, 8, 8).unwrap();
}

/// Block sizes double from `first_block_bytes` up to MAX_GROWTH_BLOCK_BYTES
/// and then stay constant. `first << n` overflowed silently for n >= 46 with
/// the default 256 KiB first block (`checked_shl` checks only the shift
/// amount), so blocks 46..63 of an arena got just the request rounded up:
/// each 33 MiB request below needs a block of its own, and every block from
/// the 10th on must be 64 MiB. The memory is reserved, never touched.
#[test]
#[cfg_attr(miri, ignore)] // 64 x 64 MiB of address space
fn block_growth_does_not_overflow() {
    let fa = FrameAllocator::new(FrameAllocConfig::default());
    let req = 33 << 20;
    let mut before = fa.stats();
    for i in 0..64 {
        fa.alloc(Lifetime::Frame, req, 16).unwrap();
        let s = fa.stats();
        let added = s.bytes_reserved - before.bytes_reserved;
        // The first request also creates the home arena's first block.
        assert_eq!(s.blocks, before.blocks + 1 + (i == 0) as u64, "request {i}");
        if i >= 10 {
            assert_eq!(added, MAX_GROWTH_BLOCK_BYTES as u64, "request {i}: block {} has {added} bytes", s.blocks - 1);
        }
        before = s;
    }
}

/// A first block the OS refuses (here 128 TiB of address space) used to make
/// every allocation fail with `OutOfMemory`; the block for the request alone
/// is tried next.
#[test]
#[cfg_attr(miri, ignore)] // asks the allocator for 128 TiB
fn a_refused_geometric_block_falls_back_to_the_request_alone() {
    let fa = FrameAllocator::new(FrameAllocConfig { first_block_bytes: 1 << 47, ..FrameAllocConfig::default() });
    for _ in 0..3 {
        for size in [64, 100_000, 3 << 20] {
            let p = fa.alloc(Lifetime::Frame, size, 16).expect("the request alone fits");
            // SAFETY: a fresh allocation of `size` bytes.
            unsafe { std::ptr::write_bytes(p.as_ptr(), 0xAB, size) };
        }
        fa.rewind();
    }
    let s = fa.stats();
    assert!(s.bytes_reserved < 64 << 20, "only what the requests needed: {}", s.bytes_reserved);
    assert_eq!(s.failed_allocations, 0);
}

/// An allocator dropped while threads that allocated from it still live:
/// some exit after the drop, some race it, one allocates from a new
/// allocator first (which lets go of the dead allocator's slot). Each
/// thread's slot is freed exactly once, by whichever of the allocator and
/// the thread's exit lets go of it last (checked by Miri and the
/// sanitizers: a use after free or a double free is reported there).
#[test]
fn an_allocator_dropped_while_its_threads_live() {
    const THREADS: usize = scale(4, 2);
    for round in 0..scale(20, 2) {
        let fa = Arc::new(FrameAllocator::new(FrameAllocConfig::default()));
        let registered = Arc::new(Barrier::new(THREADS + 1));
        // The threads with an odd index wait for the drop.
        let dropped = Arc::new(Barrier::new(THREADS / 2 + 1));
        let hs: Vec<_> = (0..THREADS)
            .map(|i| {
                let (fa, registered, dropped) = (fa.clone(), registered.clone(), dropped.clone());
                thread::spawn(move || {
                    fa.alloc(Lifetime::Frame, 64, 8).unwrap();
                    fa.alloc(Lifetime::TwoFrames, 64, 8).unwrap();
                    drop(fa);
                    registered.wait();
                    // Half the threads exit while the allocator drops.
                    if i % 2 == 0 {
                        return;
                    }
                    dropped.wait();
                    if i % 4 == 1 {
                        // A new allocator: registering prunes the dead slot.
                        let b = FrameAllocator::new(FrameAllocConfig::default());
                        b.alloc(Lifetime::Frame, 32, 8).unwrap();
                        assert_eq!(b.thread_slots(), 1);
                    }
                })
            })
            .collect();
        registered.wait();
        let fa = Arc::try_unwrap(fa).unwrap_or_else(|_| panic!("round {round}: the threads let go of it"));
        assert_eq!(fa.thread_slots(), THREADS);
        // Threads with an even index may be exiting right now.
        drop(fa);
        dropped.wait();
        for h in hs {
            h.join().unwrap();
        }
    }
}
