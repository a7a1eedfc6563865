//! Statistics: exact counters without a shared write per allocation.

use std::sync::atomic::Ordering;

use super::blocks::{Arena, Blocks};
use super::config::{OVERFLOW_ARENAS, RECENT_BYTES, TRIM_WINDOW};
use super::per_thread::SlotRc;

/// Counters of the frame allocator.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct FrameAllocStats {
    /// Requested bytes of live allocations (this frame's, plus the two-frame
    /// allocations of the previous frame).
    // (Frame allocations since the last rewind plus TwoFrames allocations
    // since the rewind before it.)
    pub bytes_in_use: u64,
    /// Bytes carved out of blocks: live allocations with their padding, the
    /// unused tails of threads' chunks, and the home chunks threads keep
    /// (also those of threads idle now, until reclaimed).
    // (At least `bytes_in_use`.)
    pub bytes_claimed: u64,
    /// Bytes reserved from the OS.
    // (The sum of all blocks.)
    pub bytes_reserved: u64,
    /// Blocks held now (kept across rewinds; those no recent frame needed
    /// are returned to the OS).
    pub blocks: u64,
    /// Highest `bytes_in_use` seen.
    // (Sampled right before each rewind, where it peaks, and by every
    // statistics call.)
    pub high_water_bytes_in_use: u64,
    // Number of rewinds.
    pub rewinds: u64,
    /// Blocks allocated since creation (cumulative; growing in a steady
    /// state means frames keep needing new blocks): constant in a steady state (under
    /// `frame_alloc_max_bytes`, possibly only from 8 rewinds after a heavier
    /// frame: see the allocator's documentation).
    pub os_allocations: u64,
    // Successful allocations since creation.
    pub allocations: u64,
    /// Allocations the allocator refused (calls the C ABI rejects before it:
    /// a NULL `out_ptr` or a bad lifetime, are not counted).
    pub failed_allocations: u64,
}

#[derive(Default)]
pub(super) struct Totals {
    pub(super) allocations: u64,
    pub(super) frame_bytes: u64,
    pub(super) two_bytes: u64,
}

/// State only touched by `rewind` and `stats`.
#[derive(Default)]
pub(super) struct RewindState {
    /// The rewinding thread (`owner::current_thread_id`).
    pub(super) owner: Option<u64>,
    /// Frame bytes total at the last rewind.
    pub(super) frame_base: u64,
    /// TwoFrames bytes total at the rewind before the last one.
    pub(super) two_base_prev: u64,
    /// TwoFrames bytes total at the last rewind.
    pub(super) two_base_cur: u64,
    pub(super) high_water: u64,
    /// Blocks used by each overflow arena in its last `TRIM_WINDOW` resets
    /// (ring buffer); blocks beyond the maximum are freed.
    pub(super) recent_used: [[usize; TRIM_WINDOW]; OVERFLOW_ARENAS],
    pub(super) resets: [usize; OVERFLOW_ARENAS],
}

impl RewindState {
    pub(super) fn in_use(&self, t: &Totals) -> u64 {
        (t.frame_bytes - self.frame_base) + (t.two_bytes - self.two_base_prev)
    }
}
impl Totals {
    /// Sums the counters of every thread's slot.
    pub(super) fn of(slots: &[SlotRc]) -> Totals {
        let mut t = Totals::default();
        for s in slots.iter() {
            let [r0, r1] = [0, 1].map(|lt| s.recent[lt].load(Ordering::Relaxed));
            t.allocations += s.allocations.load(Ordering::Relaxed) + (r0 >> 32) + (r1 >> 32);
            t.frame_bytes += s.bytes[0].load(Ordering::Relaxed) + (r0 & RECENT_BYTES);
            t.two_bytes += s.bytes[1].load(Ordering::Relaxed) + (r1 & RECENT_BYTES);
        }
        t
    }
}

/// The snapshot [`super::FrameAllocator::stats`] returns; samples the high
/// water mark.
pub(super) fn snapshot(
    st: &mut RewindState,
    slots: &[SlotRc],
    blocks: &Blocks,
    rewinds: u64,
    failed: u64,
) -> FrameAllocStats {
    let totals = Totals::of(slots);
    let homes: u64 = slots.iter().flat_map(|s| s.homes.iter()).map(|c| c.total() as u64).sum();
    let in_use = st.in_use(&totals);
    st.high_water = st.high_water.max(in_use);
    FrameAllocStats {
        bytes_in_use: in_use,
        // Both TwoFrames overflow arenas are live (current and previous).
        bytes_claimed: homes + blocks.arenas[..OVERFLOW_ARENAS].iter().map(Arena::claimed).sum::<u64>(),
        bytes_reserved: blocks.bytes_reserved.load(Ordering::Relaxed),
        blocks: blocks.blocks.load(Ordering::Relaxed),
        high_water_bytes_in_use: st.high_water,
        rewinds,
        os_allocations: blocks.os_allocations.load(Ordering::Relaxed),
        allocations: totals.allocations,
        failed_allocations: failed,
    }
}
