//! Configuration, limits and errors of the frame allocator, and two small
//! helpers every part of it uses.

use std::fmt;

/// How long an allocation lives: [`Lifetime::Frame`] until the next
/// [`rewind`](super::FrameAllocator::rewind), [`Lifetime::TwoFrames`] until
/// the second next (defined with the other enums that cross the C boundary).
pub use crate::core::types::Lifetime;

/// Largest supported alignment (one page). Blocks are aligned to it.
pub const MAX_ALIGN: usize = 4096;
/// Blocks per arena; a request needing more returns [`AllocError::Exhausted`].
/// With the default growth this is more than 15 GiB per arena.
pub const MAX_BLOCKS_PER_ARENA: usize = 256;
/// Geometric block growth stops at this size (later blocks keep this size,
/// unless a single request needs a larger one).
pub const MAX_GROWTH_BLOCK_BYTES: usize = 64 << 20;
/// Byte written over released memory on rewind when
/// [`FrameAllocConfig::poison_on_rewind`] is set.
pub const POISON_BYTE: u8 = 0xDD;
/// A thread's home chunk for a lifetime is reclaimed once it has been unused
/// for at least this many frames (at least 2, so no TwoFrames allocation can
/// still live in it): rewinds check every this many frames, so reclaim
/// happens after this many to twice as many idle frames. Also the number of
/// resets after which an overflow block no reset needed is returned to the
/// OS.
pub const HOME_RECLAIM_FRAMES: u64 = 8;

/// Upper bound of the size fields of [`FrameAllocConfig`] (256 TiB), so that
/// size arithmetic on them never overflows.
pub const MAX_CONFIG_BYTES: usize = 1 << 48;
/// Granularity of chunks and block offsets: a cache line, so chunks owned by
/// different threads never share a line.
pub(super) const LINE: usize = 64;
/// Thread-cache entries (allocators a thread can alternate between without
/// taking the slow path).
pub(super) const CACHE_ENTRIES: usize = 4;
/// Number of arenas: the overflow arenas of Frame, TwoFrames A and
/// TwoFrames B, and the home arena.
pub(super) const ARENAS: usize = 4;
/// Overflow arenas (reset by rewinds) are `0..OVERFLOW_ARENAS`.
pub(super) const OVERFLOW_ARENAS: usize = 3;
/// The home arena: never reset; home chunks are carved from it.
pub(super) const HOME: usize = 3;
/// An overflow arena's blocks unused in its last `TRIM_WINDOW` resets are
/// returned to the OS.
pub(super) const TRIM_WINDOW: usize = HOME_RECLAIM_FRAMES as usize;
/// Home chunk size classes per power of two (sizes `2^k * (4 + q) / 4`).
pub(super) const HOME_SUBCLASSES: usize = 4;
/// Most segments a thread's home holds per lifetime arena: a home is one
/// segment (a size class up to the largest power of two <=
/// `max_chunk_bytes`) or up to this many segments of that largest size
/// (1 GiB per thread and arena with the default `max_chunk_bytes`); frames
/// beyond that use overflow chunks.
pub const MAX_HOME_SEGMENTS: usize = 16;
/// Home chunks at least this large get a block of their own, returned to the
/// OS when the home shrinks or is reclaimed (smaller ones are pooled).
pub(super) const DEDICATED_HOME_BYTES: usize = 1 << 20;
/// Largest chunk the fast path bumps in (home segments and overflow
/// chunks; `chunk_bytes` and `max_chunk_bytes` above it act as this value):
/// the bytes bumped from one chunk then always fit the 32-bit halves of
/// `ThreadSlot::recent`. Requests above it are carved directly.
pub const MAX_CHUNK_BYTES: usize = 1 << 31;
/// One allocation in `ThreadSlot::recent` (allocations in the high half,
/// requested bytes in the low half).
pub(super) const RECENT_ONE: u64 = 1 << 32;
pub(super) const RECENT_BYTES: u64 = RECENT_ONE - 1;

/// Configuration of a [`FrameAllocator`]. Values are normalised by
/// [`FrameAllocator::new`] (see each field; the block and chunk sizes are
/// also capped at 256 TiB); [`FrameAllocator::config`] returns the
/// normalised values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FrameAllocConfig {
    /// Size of the first block of each arena. Rounded up to a multiple of
    /// 4096, at least 4096 (Unity's RewindableAllocator uses at least
    /// 128 KiB; smaller values are meant for tests). Default 256 KiB.
    pub first_block_bytes: usize,
    /// Smallest chunk: a thread's first home chunk is the power of two at or
    /// above it, and overflow chunks are at least this large. Rounded up to
    /// a multiple of 64, at least 64. Default 16 KiB.
    pub chunk_bytes: usize,
    /// Largest chunk: home chunks are at most the largest power of two at
    /// or below it, or the power of two at or above `chunk_bytes` when that
    /// is larger (a thread whose frame needs more gets a home of up to
    /// [`MAX_HOME_SEGMENTS`] segments of that size), overflow chunks double
    /// up to it, and requests larger than it are carved directly from a
    /// block. Rounded up to a multiple
    /// of 64, at least `chunk_bytes`. Default 64 MiB
    /// ([`MAX_GROWTH_BLOCK_BYTES`]): growth is geometric, so a thread's
    /// unused space is bounded by about what it uses in a frame. Chunks
    /// never exceed [`MAX_CHUNK_BYTES`] (2 GiB): larger values of this
    /// field and of `chunk_bytes` act as that (and [`FrameAllocator::config`]
    /// still returns them).
    pub max_chunk_bytes: usize,
    /// Cap on bytes reserved from the OS (sum of all blocks of all arenas).
    /// 0 = unlimited. Default 0.
    pub max_bytes: usize,
    /// Fill released memory with [`POISON_BYTE`] on rewind, and new blocks
    /// when reserved (debug aid: a use-after-rewind or a read before a write
    /// reads `0xDD`). Default false.
    pub poison_on_rewind: bool,
    /// Touch every page of a block when it is allocated, so allocations
    /// never page-fault later (no first-touch hitch in a frame) at the cost
    /// of keeping `bytes_reserved` resident. Default false.
    pub prefault: bool,
}

impl Default for FrameAllocConfig {
    fn default() -> Self {
        FrameAllocConfig {
            first_block_bytes: 256 << 10,
            chunk_bytes: 16 << 10,
            max_chunk_bytes: MAX_GROWTH_BLOCK_BYTES,
            max_bytes: 0,
            poison_on_rewind: false,
            prefault: false,
        }
    }
}

impl FrameAllocConfig {
    pub(super) fn normalized(self) -> Self {
        let first = round_up_sat(self.first_block_bytes.clamp(4096, MAX_CONFIG_BYTES), 4096);
        let chunk = round_up_sat(self.chunk_bytes.clamp(LINE, MAX_CONFIG_BYTES), LINE);
        let max_chunk = round_up_sat(self.max_chunk_bytes.min(MAX_CONFIG_BYTES), LINE).max(chunk);
        FrameAllocConfig {
            first_block_bytes: first,
            chunk_bytes: chunk,
            max_chunk_bytes: max_chunk,
            max_bytes: self.max_bytes,
            poison_on_rewind: self.poison_on_rewind,
            prefault: self.prefault,
        }
    }
}

/// Why an allocation failed. Failures are counted in
/// [`FrameAllocStats::failed_allocations`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AllocError {
    /// `size` was 0.
    ZeroSize,
    /// `align` was 0, not a power of two, or above [`MAX_ALIGN`].
    InvalidAlignment,
    /// `size` plus alignment padding overflows or exceeds `isize::MAX`.
    TooLarge,
    /// The configured `max_bytes` cap (or the block table) is exhausted.
    /// Memory is available again after the rewinds that release it.
    Exhausted,
    /// The OS refused to provide a new block.
    OutOfMemory,
}

impl fmt::Display for AllocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AllocError::ZeroSize => "zero-sized allocation",
            AllocError::InvalidAlignment => "alignment is not a power of two in 1..=4096",
            AllocError::TooLarge => "allocation size overflows",
            AllocError::Exhausted => "frame allocator byte cap exhausted",
            AllocError::OutOfMemory => "the OS refused a new frame allocator block",
        })
    }
}

impl std::error::Error for AllocError {}

pub(super) use super::fork::lock;

#[inline]
pub(super) fn round_up_sat(x: usize, to: usize) -> usize {
    debug_assert!(to.is_power_of_two());
    match x.checked_add(to - 1) {
        Some(v) => v & !(to - 1),
        None => usize::MAX & !(to - 1),
    }
}
