//! Home chunks: reuse every frame, reclaim when idle, resize to the frame,
//! return when they shrink.

use super::*;

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
