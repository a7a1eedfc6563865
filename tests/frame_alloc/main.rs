//! Integration tests of the rewindable frame allocator
//! (`onity::core::frame_alloc`).

use onity::core::frame_alloc::{
    AllocError, FrameAllocConfig, FrameAllocStats, FrameAllocator, Lifetime, HOME_RECLAIM_FRAMES, MAX_ALIGN,
    MAX_CHUNK_BYTES, MAX_GROWTH_BLOCK_BYTES, MAX_HOME_SEGMENTS, POISON_BYTE,
};
use std::ptr::NonNull;
use std::sync::{Arc, Barrier, Mutex};
use std::thread;

#[path = "../support/mod.rs"]
mod support;
use support::Rng;

// The tests, by topic.
mod concurrency;
mod frames;
mod homes;
mod limits;
mod requests;

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
