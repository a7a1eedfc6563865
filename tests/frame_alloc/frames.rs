//! Rewind, lifetimes and steady state: memory reuse, TwoFrames, no OS
//! allocation in steady frames, per-lifetime statistics.

use super::*;

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
