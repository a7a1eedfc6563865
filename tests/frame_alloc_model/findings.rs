//! The findings of this test, as documented since: one reproduction each.

use super::*;

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
