//! Configuration and limits: normalised config, exact statistics, prefault,
//! Send + Sync, the debug rewind check, growth overflow and fallback, an
//! allocator dropped while its threads live.

use super::*;

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
