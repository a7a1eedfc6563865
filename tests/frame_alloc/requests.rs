//! Alignment, sizes and errors: every alignment, direct requests, bad inputs,
//! the byte cap, large requests.

use super::*;

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
