//! Concurrency: threads allocating at once, several allocators, thread exit
//! and slot reuse, home segments of large frames.

use super::*;

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
