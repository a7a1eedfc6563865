//! Rewindable frame allocator: one allocator any thread can use, flat with
//! the number of threads, rewound once per frame by the runtime.
//!
//! # Why
//!
//! Unity's `RewindableAllocator` is fast on one thread but collapses with
//! workers because every allocation updates shared words; its `Temp`
//! allocator stays flat because each thread has its own. This allocator
//! gives both: a single instance shared by every thread, where an allocation
//! touches only thread-local state.
//!
//! # API
//!
//! ```
//! use onity::core::frame_alloc::{FrameAllocator, FrameAllocConfig, Lifetime};
//!
//! let fa = FrameAllocator::new(FrameAllocConfig::default());
//! let p = fa.alloc(Lifetime::Frame, 256, 16).unwrap();      // any thread
//! let q = fa.alloc(Lifetime::TwoFrames, 64, 64).unwrap();   // any thread
//! // SAFETY: `p` is valid for 256 bytes until the next rewind.
//! unsafe { p.as_ptr().write_bytes(0, 256) };
//! fa.rewind(); // owner thread, once per frame: `p` is dead, `q` still valid
//! fa.rewind(); // `q` is dead too
//! let s = fa.stats();
//! assert_eq!(s.rewinds, 2);
//! # let _ = q;
//! ```
//!
//! - [`FrameAllocator::new`]`(FrameAllocConfig) -> FrameAllocator`
//! - [`FrameAllocator::alloc`]`(&self, Lifetime, size, align) -> Result<NonNull<u8>, AllocError>`:
//!   any thread, memory uninitialised (or [`POISON_BYTE`] if poisoning is on:
//!   fresh blocks are filled with it, released memory at each rewind).
//! - [`FrameAllocator::rewind`]`(&self)`: owner thread only, never concurrently
//!   with an `alloc` (see its documentation).
//! - [`FrameAllocator::stats`]`(&self) -> FrameAllocStats` (a `Copy` struct).
//! - [`FrameAllocator::epoch`], [`FrameAllocator::id`], [`FrameAllocator::config`].
//! - `FrameAllocator` is `Send + Sync`; dropping it frees every block.
//!
//! Lifetimes: [`Lifetime::Frame`] memory is valid until the next rewind;
//! [`Lifetime::TwoFrames`] memory survives one more rewind (two arenas
//! swapped on each rewind, the one becoming current is reset: Unity's
//! `DoubleRewindableAllocators` pattern).
//!
//! Errors never panic: an alignment that is 0, not a power of two or above
//! [`MAX_ALIGN`] ([`AllocError::InvalidAlignment`]; checked first, on the
//! fast path), zero size ([`AllocError::ZeroSize`]), a size that cannot be
//! served: rounded up to whole cache lines, plus its alignment padding and
//! rounded up to 4096 for a block of its own, it exceeds `isize::MAX`
//! ([`AllocError::TooLarge`]), the configured byte cap or the block table
//! ([`AllocError::Exhausted`]), the OS refusing a block
//! ([`AllocError::OutOfMemory`]). Checks are made in that order.
//!
//! # Design
//!
//! - **Blocks.** Four arenas own blocks: the overflow arenas of Frame,
//!   TwoFrames A and TwoFrames B (reset by the rewinds that end their
//!   lifetimes) and the home arena (never reset, see below). Each holds up
//!   to [`MAX_BLOCKS_PER_ARENA`] blocks, 4096-aligned. Block sizes grow
//!   geometrically (`first_block_bytes`, doubling up to
//!   [`MAX_GROWTH_BLOCK_BYTES`], then constant); a block is at least as
//!   large as the request that created it. Blocks are kept across rewinds,
//!   so a steady frame makes no OS allocation; an overflow arena's blocks
//!   that none of its last [`HOME_RECLAIM_FRAMES`] resets needed are
//!   returned to the OS, so a one-off heavy frame does not pin its memory.
//!   Under a byte cap a thread's home may only grow once such blocks were
//!   returned (until then the frame uses overflow chunks), so a steady frame
//!   may still make one OS allocation up to that many rewinds after a
//!   heavier one. Adding a block takes a mutex (rare).
//! - **Home chunks.** Each (thread, allocator) pair owns one *home* per
//!   arena (Frame, TwoFrames A, TwoFrames B), sized to what the thread
//!   consumed in its last two frames (the smaller, so a one-off spike does
//!   not grow it) plus 1/8: one chunk of a size class (`2^k` times 1, 1.25,
//!   1.5 or 1.75) up to the largest power of two ≤ `max_chunk_bytes` (but
//!   at least the power of two ≥ `chunk_bytes`), or,
//!   for a frame needing more, up to [`MAX_HOME_SEGMENTS`] *segments* of
//!   that largest size (the thread moves to its next segment when a request
//!   does not fit the rest of the current one). A home is grown when too
//!   small and shrunk when 8 times too large (a home of segments by adding
//!   or dropping segments at its end). Small home chunks are carved from
//!   the home arena and pooled when released; those of 1 MiB or more get a
//!   block of their own, returned to the OS when released. Each frame the
//!   thread restarts at the beginning of its home: a steady frame makes no
//!   shared write and no OS allocation at all, however large, and a thread
//!   reuses the same memory every frame, which stays in its core's cache
//!   and TLB (like a per-thread Temp allocator). Homes of threads idle for
//!   [`HOME_RECLAIM_FRAMES`] to twice as many rewinds (including exited
//!   threads) are reclaimed by `rewind` and reused by other threads.
//! - **Overflow chunks.** When its home is full, a thread carves a chunk
//!   from the lifetime's overflow arena with one compare-and-swap on the
//!   current block's `used` word (next fit; a chunk may take a block's tail
//!   if it still holds the request), then bumps a cursor in it with no
//!   shared write. Overflow chunks start at the home's size (at least
//!   `chunk_bytes`) and double, up to `max_chunk_bytes`, so even a frame
//!   far above the steady state costs O(log n) shared operations per
//!   thread. A request whose worst case (size + alignment padding) exceeds
//!   `max_chunk_bytes` is carved directly from a block. Chunks are whole
//!   cache lines, so two threads never write to the same line.
//! - **Thread cache.** Each thread keeps a small (4 entries) cache of
//!   `(stamp, slot, chunk per lifetime, allocator id, epoch)`. The stamp is
//!   unique per (allocator, epoch): drawn from a global counter when the
//!   allocator is created and at every rewind, never reused, never an
//!   address. So one compare tells that the entry belongs to this allocator
//!   (not to a dropped one that lived at the same address) and that its
//!   chunk was not rewound since. The cache holds no owning pointer and has
//!   no destructor (its access is a plain TLS offset).
//! - **Fast path:** check the alignment (folded away when it is a
//!   constant), one TLS access, compare the stamp, align the cursor, one
//!   compare against the chunk's end (which also rejects size 0; sizes are
//!   validated on the slow path), bump, one plain (relaxed-atomic) add to a
//!   packed counter (`count << 32 | bytes`) on this thread's own slot.
//! - **Statistics** are exact without a shared write per allocation: each
//!   (thread, allocator) pair has its own cache-line aligned slot of
//!   counters, written only by that thread and summed by
//!   [`FrameAllocator::stats`] and `rewind`. The fast path counts the
//!   allocations and requested bytes of the thread's current chunk in one
//!   packed word; the slow path folds it into 64-bit counters before the
//!   thread enters another chunk, and readers add both. Chunks (home
//!   segments and overflow chunks) are at most [`MAX_CHUNK_BYTES`] (2 GiB),
//!   so neither 32-bit half can overflow. A thread registers a slot on its first
//!   allocation (and a thread-local guard with a destructor, off the fast
//!   path); when the thread exits the guard releases the slot and the next
//!   thread that registers takes it over, with its counters (so the sums
//!   stay exact) and its homes (a home the exited thread installed in the
//!   current frame is not reused before the next rewind; TwoFrames homes are
//!   per epoch parity, so nothing still alive is handed out). The number of
//!   slots ([`FrameAllocator::thread_slots`]) is thus the largest number of
//!   threads that allocated while alive at the same time, not the number of
//!   threads that ever allocated.

//! # Rewind contract
//!
//! [`FrameAllocator::rewind`] takes `&self` so the allocator can live in a
//! runtime shared by reference with worker threads. It must be called by a
//! single owner thread (the first thread that rewinds; checked in debug
//! builds) and no `alloc` may run concurrently with it: every allocation of
//! the ending frame must *happen before* the rewind, and the rewind must
//! happen before any allocation of the next frame (the runtime's tick
//! provides both). Breaking the contract cannot make this module itself
//! misbehave (all shared state is atomic), but pointers handed out around a
//! concurrent rewind may alias, so dereferencing them is undefined behaviour
//! on the caller's side.

use std::alloc::{self, Layout};
use std::cell::{RefCell, UnsafeCell};
use std::fmt;
use std::ptr::{self, NonNull};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::thread::{self, ThreadId};

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
const LINE: usize = 64;
/// Thread-cache entries (allocators a thread can alternate between without
/// taking the slow path).
const CACHE_ENTRIES: usize = 4;
/// Number of arenas: the overflow arenas of Frame, TwoFrames A and
/// TwoFrames B, and the home arena.
const ARENAS: usize = 4;
/// Overflow arenas (reset by rewinds) are `0..OVERFLOW_ARENAS`.
const OVERFLOW_ARENAS: usize = 3;
/// The home arena: never reset; home chunks are carved from it.
const HOME: usize = 3;
/// An overflow arena's blocks unused in its last `TRIM_WINDOW` resets are
/// returned to the OS.
const TRIM_WINDOW: usize = HOME_RECLAIM_FRAMES as usize;
/// Home chunk size classes per power of two (sizes `2^k * (4 + q) / 4`).
const HOME_SUBCLASSES: usize = 4;
/// Most segments a thread's home holds per lifetime arena: a home is one
/// segment (a size class up to the largest power of two <=
/// `max_chunk_bytes`) or up to this many segments of that largest size
/// (1 GiB per thread and arena with the default `max_chunk_bytes`); frames
/// beyond that use overflow chunks.
pub const MAX_HOME_SEGMENTS: usize = 16;
/// Home chunks at least this large get a block of their own, returned to the
/// OS when the home shrinks or is reclaimed (smaller ones are pooled).
const DEDICATED_HOME_BYTES: usize = 1 << 20;
/// Largest chunk the fast path bumps in (home segments and overflow
/// chunks; `chunk_bytes` and `max_chunk_bytes` above it act as this value):
/// the bytes bumped from one chunk then always fit the 32-bit halves of
/// `ThreadSlot::recent`. Requests above it are carved directly.
pub const MAX_CHUNK_BYTES: usize = 1 << 31;
/// One allocation in `ThreadSlot::recent` (allocations in the high half,
/// requested bytes in the low half).
const RECENT_ONE: u64 = 1 << 32;
const RECENT_BYTES: u64 = RECENT_ONE - 1;

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
    fn normalized(self) -> Self {
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

/// How long an allocation lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lifetime {
    /// Valid until the next [`FrameAllocator::rewind`].
    Frame = 0,
    /// Valid until the second [`FrameAllocator::rewind`] after the allocation.
    TwoFrames = 1,
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

/// A snapshot of a [`FrameAllocator`]'s counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct FrameAllocStats {
    /// Requested bytes of live allocations: Frame allocations since the last
    /// rewind plus TwoFrames allocations since the rewind before it.
    pub bytes_in_use: u64,
    /// Bytes handed to threads: their home chunks plus the overflow carved
    /// for the live lifetimes. At least `bytes_in_use`; the difference is
    /// alignment padding, chunk tails and home-chunk headroom.
    pub bytes_claimed: u64,
    /// Bytes reserved from the OS (sum of all blocks).
    pub bytes_reserved: u64,
    /// Number of blocks (all arenas).
    pub blocks: u64,
    /// Highest `bytes_in_use` seen (sampled right before each rewind, where
    /// it peaks, and by every `stats` call).
    pub high_water_bytes_in_use: u64,
    /// Number of rewinds.
    pub rewinds: u64,
    /// Number of OS allocations (blocks ever allocated).
    pub os_allocations: u64,
    /// Successful allocations since creation.
    pub allocations: u64,
    /// Failed allocations since creation.
    pub failed_allocations: u64,
}

// ---------------------------------------------------------------------------
// Shared state
// ---------------------------------------------------------------------------

/// Unique allocator ids; 0 marks an empty thread-cache entry.
static NEXT_ALLOCATOR_ID: AtomicU64 = AtomicU64::new(1);
/// Unique thread tokens (per thread, assigned on first slow path); 0 = none.
static NEXT_THREAD_TOKEN: AtomicU64 = AtomicU64::new(1);
/// Unique stamps, one per (allocator, epoch); 0 marks an empty entry.
static NEXT_STAMP: AtomicU64 = AtomicU64::new(1);

/// Read-mostly fields read by every allocation, on their own cache line.
#[repr(align(64))]
struct Hot {
    /// Unique per (allocator, epoch): a fresh value of `NEXT_STAMP` at
    /// creation and at every rewind, never reused. The fast path compares
    /// only this.
    stamp: AtomicU64,
    id: u64,
    /// Number of rewinds so far. Written only by `rewind`.
    epoch: AtomicU64,
    chunk_bytes: usize,
    max_chunk_bytes: usize,
    /// Largest home chunk (a power of two).
    max_home_bytes: usize,
    /// Set while a rewind runs (debug check of the rewind contract).
    rewinding: AtomicBool,
}

/// Where a block is. Written once under the grow lock before the block is
/// published by `ArenaHead::count`, then read-only until drop.
struct BlockMeta {
    base: AtomicPtr<u8>,
    size: AtomicUsize,
}

#[repr(align(64))]
struct ArenaHead {
    /// Index of the block chunks are carved from; only moves forward within
    /// an epoch, reset to 0 by rewind.
    current: AtomicUsize,
    /// Number of published blocks (Release on publish, Acquire on read).
    count: AtomicUsize,
}

struct Arena {
    head: ArenaHead,
    meta: Box<[BlockMeta]>,
    /// Bytes carved from each block (a multiple of 64, never above its size).
    used: Box<[AtomicUsize]>,
}

impl Arena {
    fn new() -> Self {
        Arena {
            head: ArenaHead { current: AtomicUsize::new(0), count: AtomicUsize::new(0) },
            meta: (0..MAX_BLOCKS_PER_ARENA)
                .map(|_| BlockMeta { base: AtomicPtr::new(ptr::null_mut()), size: AtomicUsize::new(0) })
                .collect(),
            used: (0..MAX_BLOCKS_PER_ARENA).map(|_| AtomicUsize::new(0)).collect(),
        }
    }

    /// Carves between `need` and `want` bytes (multiples of 64) from block
    /// `i` (which must be published). On failure returns the block's free
    /// bytes.
    #[inline]
    fn try_claim_in(&self, i: usize, need: usize, want: usize) -> Result<(*mut u8, usize), usize> {
        let size = self.meta[i].size.load(Ordering::Relaxed);
        let used = &self.used[i];
        let mut cur = used.load(Ordering::Relaxed);
        loop {
            let avail = size.saturating_sub(cur);
            if avail < need {
                return Err(avail);
            }
            let take = want.min(avail);
            // Relaxed is enough: the word only partitions the block; no data
            // is published through it (the block itself was published by the
            // Acquire load of `count` in the caller).
            match used.compare_exchange_weak(cur, cur + take, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => {
                    let base = self.meta[i].base.load(Ordering::Relaxed);
                    // SAFETY: `cur + take <= size`, so the offset stays inside
                    // the block allocated with `size` bytes at `base`.
                    return Ok((unsafe { base.add(cur) }, take));
                }
                Err(now) => cur = now,
            }
        }
    }

    /// Lock-free claim from the published blocks (next fit from `current`).
    ///
    /// A block that fails a request it could have held when empty (or that
    /// cannot even hold a minimal chunk) is retired: `current` moves past it
    /// and its tail (smaller than the request) stays unused until the
    /// rewind. A block merely too small for this request is skipped without
    /// being retired. So the scan is O(1) amortised, except for requests
    /// larger than most blocks.
    #[inline]
    fn claim_published(&self, need: usize, want: usize, min_chunk: usize) -> Option<(*mut u8, usize)> {
        let n = self.head.count.load(Ordering::Acquire);
        let mut i = self.head.current.load(Ordering::Relaxed);
        // True while every block before `i` is retired, so `i` may be too.
        let mut retiring = true;
        while i < n {
            match self.try_claim_in(i, need, want) {
                Ok(r) => return Some(r),
                Err(avail) => {
                    if retiring {
                        let size = self.meta[i].size.load(Ordering::Relaxed);
                        if avail < min_chunk || need <= size {
                            // Either we advance it or someone else already did
                            // (`current` never moves backwards within an epoch).
                            let _ = self.head.current.compare_exchange(i, i + 1, Ordering::Relaxed, Ordering::Relaxed);
                        } else {
                            retiring = false;
                        }
                    }
                }
            }
            i += 1;
        }
        None
    }

    /// Bytes carved from published blocks.
    fn claimed(&self) -> u64 {
        let n = self.head.count.load(Ordering::Acquire);
        self.used[..n].iter().map(|u| u.load(Ordering::Relaxed) as u64).sum()
    }

    /// Releases everything carved from this arena (rewind path). Returns
    /// the number of blocks that were used (highest used index + 1).
    fn reset(&self, poison: bool) -> usize {
        let n = self.head.count.load(Ordering::Acquire);
        let mut used_blocks = 0;
        for i in 0..n {
            let used = self.used[i].swap(0, Ordering::Relaxed);
            if used > 0 {
                used_blocks = i + 1;
            }
            if poison && used > 0 {
                let base = self.meta[i].base.load(Ordering::Relaxed);
                // SAFETY: `base` points at a published block of at least
                // `used` bytes (used <= size). The rewind contract guarantees
                // no allocation runs concurrently and the memory's lifetime
                // has ended, so nobody may access it any more.
                unsafe { ptr::write_bytes(base, POISON_BYTE, used) };
            }
        }
        self.head.current.store(0, Ordering::Relaxed);
        used_blocks
    }

    /// Unpublishes the blocks from index `keep` on and returns them as
    /// `(base, size)` for the caller to free (rewind path, after `reset`,
    /// under the grow lock).
    fn trim(&self, keep: usize) -> Vec<(*mut u8, usize)> {
        let n = self.head.count.load(Ordering::Relaxed);
        if keep >= n {
            return Vec::new();
        }
        self.head.count.store(keep, Ordering::Release);
        (keep..n)
            .map(|i| {
                self.used[i].store(0, Ordering::Relaxed);
                (
                    self.meta[i].base.swap(ptr::null_mut(), Ordering::Relaxed),
                    self.meta[i].size.swap(0, Ordering::Relaxed),
                )
            })
            .collect()
    }
}

/// A thread's home for one arena: `segs` segments of `seg_len` bytes (one
/// segment unless the thread's frame needs more than the largest home
/// chunk). Written by the owning thread in its slow path when it resizes
/// the home (rarely) and by `rewind` (reclaim), which never run
/// concurrently under the rewind contract; atomics keep even a broken
/// contract data-race free. `stats` reads it, so nothing the thread writes
/// every frame lives here (see [`PerFrame`]).
struct HomeCell {
    /// Length of every segment (0: no home).
    seg_len: AtomicUsize,
    /// Number of segments at the front of `bases`.
    segs: AtomicUsize,
    bases: [AtomicPtr<u8>; MAX_HOME_SEGMENTS],
}

impl HomeCell {
    fn new() -> Self {
        HomeCell {
            seg_len: AtomicUsize::new(0),
            segs: AtomicUsize::new(0),
            bases: [(); MAX_HOME_SEGMENTS].map(|_| AtomicPtr::new(ptr::null_mut())),
        }
    }

    /// Bytes held (all segments).
    fn total(&self) -> usize {
        self.seg_len.load(Ordering::Relaxed) * self.segs.load(Ordering::Relaxed)
    }
}

/// Per-(thread, allocator) state owned by the allocator. The counters are
/// written by one thread only (plain load + store, no read-modify-write)
/// and read by `stats` and `rewind`. When its thread exits the slot is
/// released (`token` 0) and the next thread that registers takes it over,
/// with its counters, consumption history and home chunks.
// repr(C): the field order below is the cache-line layout.
#[repr(C, align(64))]
struct ThreadSlot {
    /// Allocations made since the last [`fold`](Self::fold) of each
    /// lifetime, packed as `count << 32 | requested bytes`: the fast path's
    /// only statistics write (one add). It only counts bumps in the chunk
    /// the thread is in, and the slow path folds it into `allocations` and
    /// `bytes` before entering another chunk; a chunk holds at most
    /// [`MAX_CHUNK_BYTES`] (2^31) bytes and an allocation at least one, so
    /// neither half overflows.
    recent: [AtomicU64; 2],
    /// Folded allocation count (add `recent`'s high halves for the total).
    allocations: AtomicU64,
    /// Folded requested bytes per lifetime, monotonic (add `recent`'s low
    /// halves for the total).
    bytes: [AtomicU64; 2],
    /// Token of the thread using the slot; 0: free (its thread exited).
    token: AtomicU64,
    /// Written by the thread once per frame, on a cache line of its own.
    per_frame: PerFrame,
    /// Homes of the Frame, TwoFrames A and TwoFrames B arenas.
    homes: [HomeCell; OVERFLOW_ARENAS],
}

/// The part of a [`ThreadSlot`] its thread writes once per frame (first
/// allocation of each lifetime), on its own cache line: `stats` (which reads
/// the home cells) and most rewinds (which read only the counters on the
/// slot's first line) never read it, so the thread's first writes of a frame
/// do not have to take the line back from the rewinding thread.
#[repr(align(64))]
struct PerFrame {
    /// Bytes this thread consumed per lifetime in the last two frames it used
    /// it (`[lifetime][0]` the last one): the smaller sizes its home chunks,
    /// so a one-off heavy frame does not grow them.
    consumed: [[AtomicUsize; 2]; 2],
    /// Per home cell: last epoch the thread installed it (`u64::MAX`:
    /// never). Written only by the thread using the slot; read by rewinds
    /// that reclaim idle homes (every [`HOME_RECLAIM_FRAMES`]).
    last_epoch: [AtomicU64; OVERFLOW_ARENAS],
}

impl ThreadSlot {
    /// Fast path: counts an allocation of `size` bytes (at most
    /// [`MAX_CHUNK_BYTES`]: it was bumped from a chunk) in `recent`.
    #[inline(always)]
    fn record_fast(&self, lt: usize, size: usize) {
        debug_assert!(size <= MAX_CHUNK_BYTES);
        let inc = RECENT_ONE | size as u64;
        let r = &self.recent[lt];
        r.store(r.load(Ordering::Relaxed).wrapping_add(inc), Ordering::Relaxed);
    }

    /// Slow path: counts an allocation of any size in the folded counters.
    #[inline]
    fn record_slow(&self, lt: usize, size: usize) {
        let a = &self.allocations;
        a.store(a.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
        let b = &self.bytes[lt];
        b.store(b.load(Ordering::Relaxed) + size as u64, Ordering::Relaxed);
    }

    /// Moves `recent[lt]` into the folded counters (slow path, by the thread
    /// using the slot, before it enters another chunk of `lt`).
    #[inline]
    fn fold(&self, lt: usize) {
        let r = self.recent[lt].load(Ordering::Relaxed);
        if r != 0 {
            let a = &self.allocations;
            a.store(a.load(Ordering::Relaxed) + (r >> 32), Ordering::Relaxed);
            let b = &self.bytes[lt];
            b.store(b.load(Ordering::Relaxed) + (r & RECENT_BYTES), Ordering::Relaxed);
            self.recent[lt].store(0, Ordering::Relaxed);
        }
    }

    fn new(token: u64) -> Self {
        ThreadSlot {
            recent: [AtomicU64::new(0), AtomicU64::new(0)],
            allocations: AtomicU64::new(0),
            bytes: [AtomicU64::new(0), AtomicU64::new(0)],
            token: AtomicU64::new(token),
            per_frame: PerFrame {
                consumed: [[AtomicUsize::new(0), AtomicUsize::new(0)], [AtomicUsize::new(0), AtomicUsize::new(0)]],
                last_epoch: [(); OVERFLOW_ARENAS].map(|_| AtomicU64::new(u64::MAX)),
            },
            homes: [(); OVERFLOW_ARENAS].map(|_| HomeCell::new()),
        }
    }
}

// The counters (written per allocation, read by every rewind) fill the
// slot's first cache line; the per-frame fields start the second.
const _: () = assert!(std::mem::offset_of!(ThreadSlot, per_frame) == 64);

/// A free home chunk (in the pool).
struct FreeHome(NonNull<u8>);

// SAFETY: a free home chunk is just an address inside one of the
// allocator's blocks, owned by the pool; moving it between threads is fine.
unsafe impl Send for FreeHome {}

#[derive(Default)]
struct Totals {
    allocations: u64,
    frame_bytes: u64,
    two_bytes: u64,
}

/// State only touched by `rewind` and `stats`.
#[derive(Default)]
struct RewindState {
    owner: Option<ThreadId>,
    /// Frame bytes total at the last rewind.
    frame_base: u64,
    /// TwoFrames bytes total at the rewind before the last one.
    two_base_prev: u64,
    /// TwoFrames bytes total at the last rewind.
    two_base_cur: u64,
    high_water: u64,
    /// Blocks used by each overflow arena in its last `TRIM_WINDOW` resets
    /// (ring buffer); blocks beyond the maximum are freed.
    recent_used: [[usize; TRIM_WINDOW]; OVERFLOW_ARENAS],
    resets: [usize; OVERFLOW_ARENAS],
}

impl RewindState {
    fn in_use(&self, t: &Totals) -> u64 {
        (t.frame_bytes - self.frame_base) + (t.two_bytes - self.two_base_prev)
    }
}

/// A rewindable frame allocator. See the [module documentation](self).
pub struct FrameAllocator {
    hot: Hot,
    arenas: [Arena; ARENAS],
    cfg: FrameAllocConfig,
    /// Serialises block creation (all arenas, so the byte cap is exact).
    grow: Mutex<()>,
    bytes_reserved: AtomicU64,
    blocks: AtomicU64,
    os_allocations: AtomicU64,
    failed: AtomicU64,
    slots: Mutex<Vec<Arc<ThreadSlot>>>,
    /// Free home chunks by size class (log2 of the size).
    home_pool: Mutex<Vec<Vec<FreeHome>>>,
    rewind_state: Mutex<RewindState>,
}

// The type is Send + Sync by construction (atomics, mutexes, boxes); this
// fails to compile if a field ever breaks that.
const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<FrameAllocator>();
};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding one of these locks cannot leave the protected
    // data inconsistent (plain counters / a Vec push), so ignore poisoning.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[inline]
fn round_up_sat(x: usize, to: usize) -> usize {
    debug_assert!(to.is_power_of_two());
    match x.checked_add(to - 1) {
        Some(v) => v & !(to - 1),
        None => usize::MAX & !(to - 1),
    }
}

// ---------------------------------------------------------------------------
// Thread cache
// ---------------------------------------------------------------------------

/// The part of a chunk the fast path touches.
#[derive(Clone, Copy)]
struct Bump {
    /// Next free byte (null when empty).
    cursor: *mut u8,
    /// Address one past the chunk (0 when empty). Always a multiple of 64
    /// (chunks are whole cache lines), so aligning the cursor to at most 64
    /// never passes it.
    end: usize,
}

impl Bump {
    const EMPTY: Bump = Bump { cursor: ptr::null_mut(), end: 0 };

    /// A chunk of `len` bytes at `base`.
    fn new(base: *mut u8, len: usize) -> Bump {
        debug_assert!((base as usize + len) % LINE == 0);
        Bump { cursor: base, end: base as usize + len }
    }

    fn remaining(&self) -> usize {
        self.end - self.cursor as usize
    }
}

/// The rest of a thread's per-lifetime state (slow path only).
#[derive(Clone, Copy)]
struct ChunkState {
    /// Size of the next overflow chunk to claim.
    next_claim: usize,
    /// Bytes handed to this thread for this lifetime in this epoch (home
    /// segments entered plus overflow chunks).
    claimed: usize,
    /// Index of the next home segment to enter.
    seg: usize,
    /// Home segments usable in this epoch.
    segs: usize,
    /// The home is not installed yet in this epoch.
    fresh: bool,
}

impl ChunkState {
    const FRESH: ChunkState = ChunkState { next_claim: 0, claimed: 0, seg: 0, segs: 0, fresh: true };
}

/// One allocator's state in a thread's cache. The fields the fast path
/// reads come first (one cache line).
#[repr(C)]
#[derive(Clone, Copy)]
struct Entry {
    /// The allocator's stamp when the entry was last renewed: unique per
    /// (allocator, epoch), 0 for an empty entry. One compare checks both.
    stamp: u64,
    /// This thread's slot, owned by the allocator `id`.
    slot: *const ThreadSlot,
    bumps: [Bump; 2],
    /// Allocator id (0 = empty entry).
    id: u64,
    /// Allocator epoch the chunks belong to.
    epoch: u64,
    states: [ChunkState; 2],
}

impl Entry {
    const EMPTY: Entry =
        Entry { stamp: 0, slot: ptr::null(), bumps: [Bump::EMPTY; 2], id: 0, epoch: 0, states: [ChunkState::FRESH; 2] };
}

#[repr(C, align(64))]
struct Cache {
    /// Most recently used first.
    entries: [Entry; CACHE_ENTRIES],
    /// This thread's token (0 until first needed).
    token: u64,
}

thread_local! {
    // No destructor and a const initialiser: access is a plain TLS offset,
    // never fails (not even during thread teardown).
    static CACHE: UnsafeCell<Cache> = const {
        UnsafeCell::new(Cache { entries: [Entry::EMPTY; CACHE_ENTRIES], token: 0 })
    };
    // Registered on a thread's first slot registration (slow path): releases
    // its slots when it exits.
    static EXIT_GUARD: ExitGuard = const { ExitGuard(RefCell::new(Vec::new())) };
}

/// Releases this thread's slots (in every allocator still alive) when the
/// thread exits, so that new threads reuse them instead of adding slots.
struct ExitGuard(RefCell<Vec<Weak<ThreadSlot>>>);

impl Drop for ExitGuard {
    fn drop(&mut self) {
        // Forget the cached entries first: an allocation made on this thread
        // after this point (from a later thread-local destructor) registers
        // again, and then keeps its slot for good, instead of using a slot
        // another thread may take over.
        CACHE.with(|c| {
            // SAFETY: the cache is this thread's own and no allocation is in
            // progress on this thread (we are in its exit path).
            let c = unsafe { &mut *c.get() };
            c.entries = [Entry::EMPTY; CACHE_ENTRIES];
        });
        for slot in self.0.get_mut().drain(..) {
            if let Some(s) = slot.upgrade() {
                // Release: the next owner (Acquire in `register`) sees every
                // write this thread made to the slot.
                s.token.store(0, Ordering::Release);
            }
        }
    }
}

/// Bumps `size` bytes aligned to `align` (a power of two up to `MAX_ALIGN`)
/// out of `b`. Fails for `size == 0` (so the fast path needs no separate
/// check).
///
/// # Safety
/// `b` must be empty or describe the bytes `cursor..end` of a live block,
/// with `end` a multiple of 64 below `usize::MAX - MAX_ALIGN`.
#[inline(always)]
unsafe fn bump(b: &mut Bump, size: usize, align: usize) -> Option<NonNull<u8>> {
    let cur = b.cursor as usize;
    let start = (cur + (align - 1)) & !(align - 1);
    // `end` is a multiple of 64 >= `cur`, so for `align <= 64` (usually a
    // constant) `start <= end` holds without a test. `size - 1 < end -
    // start` is `0 < size <= end - start`.
    if (align <= LINE || start <= b.end) && size.wrapping_sub(1) < b.end.wrapping_sub(start) {
        // SAFETY: `start + size <= end`, so both offsets stay within the
        // chunk (caller contract); a pointer into a live block is non-null.
        // (An empty chunk never gets here: its `end - start` is 0.)
        unsafe {
            let p = b.cursor.add(start - cur);
            b.cursor = p.add(size);
            Some(NonNull::new_unchecked(p))
        }
    } else {
        None
    }
}

// ---------------------------------------------------------------------------
// The allocator
// ---------------------------------------------------------------------------

impl FrameAllocator {
    /// Creates an allocator. No memory is reserved until the first
    /// allocation of each lifetime.
    pub fn new(cfg: FrameAllocConfig) -> Self {
        let cfg = cfg.normalized();
        // Chunk sizes the allocator works with (see `MAX_CHUNK_BYTES`); both
        // are multiples of 64 and `chunk <= max_chunk` still holds.
        let chunk = cfg.chunk_bytes.min(MAX_CHUNK_BYTES);
        let max_chunk = cfg.max_chunk_bytes.min(MAX_CHUNK_BYTES);
        FrameAllocator {
            hot: Hot {
                stamp: AtomicU64::new(NEXT_STAMP.fetch_add(1, Ordering::Relaxed)),
                id: NEXT_ALLOCATOR_ID.fetch_add(1, Ordering::Relaxed),
                epoch: AtomicU64::new(0),
                chunk_bytes: chunk,
                max_chunk_bytes: max_chunk,
                // Largest power of two <= max_chunk, but at least the smallest
                // home (the power of two >= chunk); at most MAX_CHUNK_BYTES.
                max_home_bytes: (1usize << (usize::BITS - 1 - max_chunk.leading_zeros()))
                    .max(chunk.next_power_of_two()),
                rewinding: AtomicBool::new(false),
            },
            arenas: [Arena::new(), Arena::new(), Arena::new(), Arena::new()],
            cfg,
            grow: Mutex::new(()),
            bytes_reserved: AtomicU64::new(0),
            blocks: AtomicU64::new(0),
            os_allocations: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            slots: Mutex::new(Vec::new()),
            home_pool: Mutex::new((0..(usize::BITS as usize + 1) * HOME_SUBCLASSES).map(|_| Vec::new()).collect()),
            rewind_state: Mutex::new(RewindState::default()),
        }
    }

    /// The normalised configuration.
    pub fn config(&self) -> FrameAllocConfig {
        self.cfg
    }

    /// This allocator's process-unique id (never reused).
    pub fn id(&self) -> u64 {
        self.hot.id
    }

    /// Number of rewinds so far (the current frame's epoch).
    pub fn epoch(&self) -> u64 {
        self.hot.epoch.load(Ordering::Acquire)
    }

    /// Number of per-thread slots (statistics and home chunks). A thread
    /// gets one on its first allocation; when it exits the slot is released
    /// and reused by the next new thread, so this is at most the largest
    /// number of threads that were alive at the same time and allocated.
    pub fn thread_slots(&self) -> usize {
        lock(&self.slots).len()
    }

    /// Allocates `size` bytes aligned to `align` from any thread.
    ///
    /// The memory is uninitialised and stays valid until the rewind that
    /// ends `lifetime` (the next rewind for [`Lifetime::Frame`], the second
    /// next for [`Lifetime::TwoFrames`]), provided the rewind contract (see
    /// [`rewind`](Self::rewind)) is respected. It is never freed
    /// individually.
    #[inline]
    pub fn alloc(&self, lifetime: Lifetime, size: usize, align: usize) -> Result<NonNull<u8>, AllocError> {
        // A power of two in 1..=MAX_ALIGN (align 0 fails the first test).
        if align.wrapping_sub(1) >= MAX_ALIGN || align & (align - 1) != 0 {
            return Err(self.fail(AllocError::InvalidAlignment));
        }
        // The size is validated by `bump` (0 never fits; a size that fits is
        // below isize::MAX) and else by `alloc_slow`.
        debug_assert!(
            !self.hot.rewinding.load(Ordering::Relaxed),
            "FrameAllocator::alloc ran concurrently with rewind"
        );
        let stamp = self.hot.stamp.load(Ordering::Acquire);
        CACHE.with(|cache| {
            let cache = cache.get();
            // SAFETY: the cache is this thread's own; the exclusive borrow is
            // confined to this block, which calls nothing that could re-enter.
            // Stamps are unique per (allocator, epoch) and never reused, so a
            // matching stamp means the entry was renewed by `self` (alive: we
            // hold `&self`) in the current epoch: its chunk lies in one of our
            // live blocks and `slot` points at a slot owned by `self`.
            let hit = unsafe {
                let e = &mut (*cache).entries[0];
                if e.stamp == stamp {
                    let r = bump(&mut e.bumps[lifetime as usize], size, align);
                    if r.is_some() {
                        (*e.slot).record_fast(lifetime as usize, size);
                    }
                    r
                } else {
                    None
                }
            };
            match hit {
                Some(p) => Ok(p),
                None => self.alloc_slow(cache, stamp, lifetime, size, align),
            }
        })
    }

    #[cold]
    #[inline(never)]
    fn fail(&self, e: AllocError) -> AllocError {
        self.failed.fetch_add(1, Ordering::Relaxed);
        e
    }

    /// Index of the overflow arena (and home chunk) of `lifetime` in `epoch`.
    #[inline]
    fn arena_index(lifetime: Lifetime, epoch: u64) -> usize {
        match lifetime {
            Lifetime::Frame => 0,
            Lifetime::TwoFrames => 1 + (epoch & 1) as usize,
        }
    }

    /// Slow path: the current chunk is exhausted, or this thread's cache
    /// entry is for another epoch or missing. Installs the home (first
    /// allocation of the lifetime in this frame), else enters the home's
    /// next segment, else claims an overflow chunk (or carves a large
    /// request directly).
    ///
    /// Borrows of the thread cache are kept short and never span a call out
    /// (mutex, global allocator), so even a re-entrant call from a custom
    /// global allocator could not alias them.
    #[cold]
    #[inline(never)]
    fn alloc_slow(
        &self,
        cache: *mut Cache,
        stamp: u64,
        lifetime: Lifetime,
        size: usize,
        align: usize,
    ) -> Result<NonNull<u8>, AllocError> {
        if size == 0 {
            return Err(self.fail(AllocError::ZeroSize));
        }
        // `size + align - 1` fits in isize, so no later padding sum overflows.
        if size > isize::MAX as usize - (align - 1) {
            return Err(self.fail(AllocError::TooLarge));
        }
        let epoch = self.hot.epoch.load(Ordering::Acquire);
        let lt = lifetime as usize;
        let a = Self::arena_index(lifetime, epoch);

        // SAFETY (every `&mut *cache` below): the cache is this thread's own,
        // each borrow is short and no call out happens while it lives. Entry
        // 0 is ours after `rebind` / `renew`; its `slot` is owned by `self`,
        // which is alive while we hold `&self`.
        // SAFETY: as above.
        let rebound = unsafe { (*cache).entries[0].id } != self.hot.id;
        if rebound {
            self.rebind(cache, stamp, epoch);
        } else {
            // SAFETY: as above.
            unsafe { self.renew(&mut (*cache).entries[0], stamp, epoch) };
        }
        // SAFETY: as above.
        let (slot, mut b, mut st) = unsafe {
            let e = &(*cache).entries[0];
            (&*e.slot, e.bumps[lt], e.states[lt])
        };
        // Before any other chunk is entered (only this function enters
        // chunks): see `ThreadSlot::recent`. The records below are slow ones.
        slot.fold(lt);
        // Writes the thread's state back, unless something re-entered and
        // replaced the entry meanwhile (then the rest of the chunk stays
        // unused this frame).
        let store = |b: Bump, st: ChunkState| {
            // SAFETY: as above.
            unsafe {
                let e = &mut (*cache).entries[0];
                if e.stamp == stamp {
                    e.bumps[lt] = b;
                    e.states[lt] = st;
                }
            }
        };
        if rebound {
            // The entry may have moved to the front with room left.
            // SAFETY: `b` is entry 0's chunk of this epoch, or empty.
            if let Some(p) = unsafe { bump(&mut b, size, align) } {
                store(b, st);
                slot.record_slow(lt, size);
                return Ok(p);
            }
        }
        let cell = &slot.homes[a];
        // Worst case of the request in a 64-aligned region: the padding is
        // at most `align - 64` for larger alignments and 0 otherwise. No
        // overflow: `size + align - 1 <= isize::MAX` (checked above).
        let need = round_up_sat(size, LINE) + align.saturating_sub(LINE);

        // 1. First allocation of this lifetime in this frame: install the
        //    home (start over at its beginning).
        if st.fresh {
            let segs = self.install_home(slot, a, lt, epoch);
            let total = if segs > 0 { cell.seg_len.load(Ordering::Relaxed) * segs } else { 0 };
            st = ChunkState {
                next_claim: total.clamp(self.hot.chunk_bytes, self.hot.max_chunk_bytes),
                claimed: 0,
                seg: 0,
                segs,
                fresh: false,
            };
        }

        // 2. The home's next segment: the first one right after the install,
        //    a later one if the request fits an empty segment.
        if st.seg < st.segs {
            let seg_len = cell.seg_len.load(Ordering::Relaxed);
            if st.seg == 0 || need <= seg_len {
                let base = cell.bases[st.seg].load(Ordering::Relaxed);
                st.seg += 1;
                st.claimed += seg_len;
                b = Bump::new(base, seg_len);
                // SAFETY: `base..base + seg_len` is a segment of this thread's
                // home, inside a live block.
                let r = unsafe { bump(&mut b, size, align) };
                store(b, st);
                if let Some(p) = r {
                    slot.record_slow(lt, size);
                    return Ok(p);
                }
            }
        }

        // 3. Overflow.
        let direct = need > self.hot.max_chunk_bytes;
        let want = if direct { need } else { st.next_claim.max(need) };
        let (base, len) = match self.claim(&self.arenas[a], need, want) {
            Ok(r) => r,
            Err(e) => {
                store(b, st);
                return Err(self.fail(e));
            }
        };
        let pad = (base as usize).wrapping_neg() & (align - 1);
        debug_assert!(pad + size <= len);
        // SAFETY: the claimed region has `len >= need >= pad + size` bytes.
        let p = unsafe { base.add(pad) };
        slot.record_slow(lt, size);
        if !direct {
            // SAFETY: as above; `p + size` is inside the claimed region.
            b = Bump { cursor: unsafe { p.add(size) }, end: base as usize + len };
            // Grow only after a full-size claim (not a block's tail), so the
            // chunk size does not depend on interleavings.
            if len >= want {
                st.next_claim = st.next_claim.saturating_mul(2).min(self.hot.max_chunk_bytes);
            }
            st.claimed = st.claimed.saturating_add(len);
        }
        store(b, st);
        // SAFETY: a pointer into a live block is non-null.
        Ok(unsafe { NonNull::new_unchecked(p) })
    }

    /// Installs this thread's home for arena `a` in `epoch` and returns its
    /// number of segments, after resizing it to what the thread consumed in
    /// the last two frames (the smaller) plus 1/8 if it is too small or 8
    /// times too large. 0 if it has none and none can be reserved (byte
    /// cap, OS refusal), or if it was already installed in this epoch:
    /// overflow chunks then serve the frame.
    #[inline]
    fn install_home(&self, slot: &ThreadSlot, a: usize, lt: usize, epoch: u64) -> usize {
        let cell = &slot.homes[a];
        let last_epoch = &slot.per_frame.last_epoch[a];
        // Only the thread using the slot writes `last_epoch`: no
        // read-modify-write needed.
        if last_epoch.load(Ordering::Relaxed) == epoch {
            // Already installed in this epoch: this thread's cache entry was
            // evicted (it alternates between more than 4 allocators) and its
            // cursor lost, or the slot's previous thread exited in this frame,
            // so the home may be partly in use. Use overflow chunks for the
            // rest of the frame.
            return 0;
        }
        last_epoch.store(epoch, Ordering::Relaxed);
        let [last, prev] = &slot.per_frame.consumed[lt];
        let consumed = last.load(Ordering::Relaxed).min(prev.load(Ordering::Relaxed));
        let target = consumed.saturating_add(consumed / 8).max(self.hot.chunk_bytes);
        let segs = cell.segs.load(Ordering::Relaxed);
        let total = cell.total();
        if segs > 0 && target <= total && target.saturating_mul(8) > total {
            return segs;
        }
        self.resize_home(cell, target)
    }

    /// Gives `cell` a home of at least `target` bytes if it can (one
    /// segment of a size class up to `max_home_bytes`, else up to
    /// [`MAX_HOME_SEGMENTS`] segments of `max_home_bytes`). Returns the
    /// number of segments. The old home's memory is dead: a Frame home was
    /// last used before the last rewind, a TwoFrames home (of this epoch's
    /// parity) at least two rewinds ago.
    #[cold]
    #[inline(never)]
    fn resize_home(&self, cell: &HomeCell, target: usize) -> usize {
        let max_home = self.hot.max_home_bytes;
        let (len, n) = if target <= max_home {
            (self.home_class(target).1, 1)
        } else {
            (max_home, target.div_ceil(max_home).min(MAX_HOME_SEGMENTS))
        };
        let len0 = cell.seg_len.load(Ordering::Relaxed);
        let n0 = cell.segs.load(Ordering::Relaxed);
        if n0 > 0 && len == len0 {
            // Same segment size: drop or add segments at the end.
            for base in &cell.bases[n.min(n0)..n0] {
                self.release_home(base.swap(ptr::null_mut(), Ordering::Relaxed), len0);
            }
            let mut k = n.min(n0);
            while k < n {
                match self.acquire_home(len) {
                    Some(p) => {
                        cell.bases[k].store(p, Ordering::Relaxed);
                        k += 1;
                    }
                    None => break,
                }
            }
            cell.segs.store(k, Ordering::Relaxed);
            return k;
        }
        // A new segment size: reserve the new home first (keep the old one if
        // nothing can be reserved), then release the old one.
        let mut new = [ptr::null_mut(); MAX_HOME_SEGMENTS];
        let mut k = 0;
        while k < n {
            match self.acquire_home(len) {
                Some(p) => {
                    new[k] = p;
                    k += 1;
                }
                None => break,
            }
        }
        if k == 0 {
            return n0;
        }
        self.release_cell(cell);
        for (slot, p) in cell.bases.iter().zip(&new[..k]) {
            slot.store(*p, Ordering::Relaxed);
        }
        cell.seg_len.store(len, Ordering::Relaxed);
        cell.segs.store(k, Ordering::Relaxed);
        k
    }

    /// Releases every segment of `cell` (their memory must be dead).
    fn release_cell(&self, cell: &HomeCell) {
        let len = cell.seg_len.load(Ordering::Relaxed);
        let n = cell.segs.swap(0, Ordering::Relaxed);
        for base in &cell.bases[..n] {
            self.release_home(base.swap(ptr::null_mut(), Ordering::Relaxed), len);
        }
        cell.seg_len.store(0, Ordering::Relaxed);
    }

    /// The size class for a home chunk of at least `target` bytes: `(class
    /// index, size)`, sizes `2^k`, `1.25 * 2^k`, `1.5 * 2^k`, `1.75 * 2^k`
    /// (rounded up to 64), between `chunk_bytes` and `max_home_bytes`. A
    /// class size maps to itself.
    fn home_class(&self, target: usize) -> (usize, usize) {
        let t = target.clamp(self.hot.chunk_bytes, self.hot.max_home_bytes);
        let k = (usize::BITS - 1 - t.leading_zeros()) as usize; // 2^k <= t
        for q in 0..HOME_SUBCLASSES {
            let size = round_up_sat(((1usize << k) >> 2) * (HOME_SUBCLASSES + q), LINE).max(1 << k);
            if size >= t {
                return (k * HOME_SUBCLASSES + q, size);
            }
        }
        // t <= max_home_bytes (a power of two), so 2^(k+1) <= max_home_bytes.
        ((k + 1) * HOME_SUBCLASSES, 1 << (k + 1))
    }

    /// A home chunk of `size` bytes (a class size) from the pool or the home
    /// arena.
    fn acquire_home(&self, size: usize) -> Option<*mut u8> {
        if size >= DEDICATED_HOME_BYTES {
            let _g = lock(&self.grow);
            return self.os_alloc(round_up_sat(size, MAX_ALIGN)).ok();
        }
        let (class, _) = self.home_class(size);
        if let Some(h) = lock(&self.home_pool)[class].pop() {
            return Some(h.0.as_ptr());
        }
        // `need == want == size`: a successful claim is exactly `size` bytes.
        self.claim(&self.arenas[HOME], size, size).ok().map(|(p, _)| p)
    }

    /// Returns a dead home chunk to the pool, or to the OS if it has its own
    /// block.
    fn release_home(&self, base: *mut u8, len: usize) {
        if base.is_null() {
            return;
        }
        if len >= DEDICATED_HOME_BYTES {
            let _g = lock(&self.grow);
            // SAFETY: a dedicated home comes from `os_alloc` of its rounded
            // size; callers release a home once, when nothing in it is alive.
            unsafe { self.os_free(base, round_up_sat(len, MAX_ALIGN)) };
            return;
        }
        if let Some(p) = NonNull::new(base) {
            let (class, size) = self.home_class(len);
            debug_assert_eq!(size, len);
            lock(&self.home_pool)[class].push(FreeHome(p));
        }
    }

    /// Makes entry 0 of this thread's cache `self`'s entry for `epoch`:
    /// finds (or registers) it, moves it to the front, drops chunks of an
    /// older epoch.
    ///
    /// Only called when entry 0 is not ours.
    #[cold]
    #[inline(never)]
    fn rebind(&self, cache: *mut Cache, stamp: u64, epoch: u64) {
        let id = self.hot.id;
        // SAFETY (every `&mut *cache`): as in `alloc_slow`.
        let (found, token) = unsafe {
            let c = &mut *cache;
            match c.entries.iter().position(|e| e.id == id) {
                Some(i) => {
                    c.entries[..=i].rotate_right(1);
                    (true, c.token)
                }
                None => (false, c.token),
            }
        };
        if !found {
            let token = if token == 0 {
                let t = NEXT_THREAD_TOKEN.fetch_add(1, Ordering::Relaxed);
                // SAFETY: as above.
                unsafe { (*cache).token = t };
                t
            } else {
                token
            };
            let slot = self.register(token);
            // SAFETY: as above. The evicted last entry holds no resource.
            unsafe {
                let c = &mut *cache;
                c.entries.rotate_right(1);
                c.entries[0] = Entry {
                    id,
                    epoch: epoch.wrapping_sub(1), // forces the reset below
                    slot,
                    ..Entry::EMPTY
                };
            }
        }
        // SAFETY: as above.
        unsafe { self.renew(&mut (*cache).entries[0], stamp, epoch) };
    }

    /// Drops the chunks of `e` if they belong to an older epoch, recording
    /// what the thread consumed in it (sizes the next home chunks), and
    /// stamps it with `stamp`.
    ///
    /// # Safety
    /// `e` must be `self`'s entry (its `slot` owned by `self`).
    #[inline]
    unsafe fn renew(&self, e: &mut Entry, stamp: u64, epoch: u64) {
        if e.stamp == stamp {
            return;
        }
        if e.epoch != epoch {
            // SAFETY: caller contract.
            let slot = unsafe { &*e.slot };
            for lt in 0..2 {
                if !e.states[lt].fresh {
                    let [last, prev] = &slot.per_frame.consumed[lt];
                    prev.store(last.load(Ordering::Relaxed), Ordering::Relaxed);
                    last.store(e.states[lt].claimed.saturating_sub(e.bumps[lt].remaining()), Ordering::Relaxed);
                }
                e.bumps[lt] = Bump::EMPTY;
                e.states[lt] = ChunkState::FRESH;
            }
            e.epoch = epoch;
        }
        e.stamp = stamp;
    }

    /// Finds this thread's slot, or takes over the slot of an exited thread,
    /// or creates one.
    fn register(&self, token: u64) -> *const ThreadSlot {
        let slot = {
            let mut slots = lock(&self.slots);
            // This thread's own (its cache entry was evicted).
            if let Some(s) = slots.iter().find(|s| s.token.load(Ordering::Relaxed) == token) {
                return Arc::as_ptr(s);
            }
            // Acquire: pairs with the Release of the exited thread's guard.
            match slots
                .iter()
                .find(|s| s.token.compare_exchange(0, token, Ordering::Acquire, Ordering::Relaxed).is_ok())
            {
                Some(s) => s.clone(),
                None => {
                    let s = Arc::new(ThreadSlot::new(token));
                    slots.push(s.clone());
                    s
                }
            }
        };
        // Release it when this thread exits. If the thread is already being
        // torn down the guard is gone: the slot then stays this thread's.
        let _ = EXIT_GUARD.try_with(|g| {
            let mut v = g.0.borrow_mut();
            v.retain(|w| w.strong_count() > 0);
            v.push(Arc::downgrade(&slot));
        });
        Arc::as_ptr(&slot)
    }

    /// Carves `need..=want` bytes from `arena`, adding a block if needed.
    #[inline]
    fn claim(&self, arena: &Arena, need: usize, want: usize) -> Result<(*mut u8, usize), AllocError> {
        match arena.claim_published(need, want, self.hot.chunk_bytes) {
            Some(r) => Ok(r),
            None => self.grow_and_claim(arena, need, want),
        }
    }

    /// Rare path of `claim`: adds a block under the grow lock.
    #[cold]
    #[inline(never)]
    fn grow_and_claim(&self, arena: &Arena, need: usize, want: usize) -> Result<(*mut u8, usize), AllocError> {
        let min_chunk = self.hot.chunk_bytes;
        let _g = lock(&self.grow);
        // Someone may have added a block while we waited.
        if let Some(r) = arena.claim_published(need, want, min_chunk) {
            return Ok(r);
        }
        // Minimal block for this request; beyond isize::MAX no layout exists
        // (checked before the block table: the documented error order).
        let minimal = need
            .checked_add(MAX_ALIGN - 1)
            .map(|v| v & !(MAX_ALIGN - 1))
            .filter(|&v| v <= isize::MAX as usize)
            .ok_or(AllocError::TooLarge)?;
        let n = arena.head.count.load(Ordering::Relaxed);
        if n == MAX_BLOCKS_PER_ARENA {
            return Err(AllocError::Exhausted);
        }
        let first = self.cfg.first_block_bytes;
        let cap_growth = first.max(MAX_GROWTH_BLOCK_BYTES);
        // `first << n`, capped; compared before shifting (bits shifted out
        // of the top would wrap silently: `checked_shl` checks only `n`).
        let geometric = if n >= usize::BITS as usize || first > cap_growth >> n { cap_growth } else { first << n };
        let preferred = match geometric.max(minimal) {
            p if p <= isize::MAX as usize => p,
            _ => minimal,
        };
        let mut size = if self.fits_cap(preferred) { preferred } else { minimal };
        let base = match self.os_alloc(size) {
            Ok(b) => b,
            // The OS refused the geometric block (a huge `first_block_bytes`,
            // or memory running low): the request alone may still fit.
            Err(AllocError::OutOfMemory) if size > minimal => {
                size = minimal;
                self.os_alloc(size)?
            }
            Err(e) => return Err(e),
        };
        let take = want.min(size);
        arena.meta[n].base.store(base, Ordering::Relaxed);
        arena.meta[n].size.store(size, Ordering::Relaxed);
        arena.used[n].store(take, Ordering::Relaxed);
        // Publish: readers Acquire `count` before touching meta[n]/used[n].
        arena.head.count.store(n + 1, Ordering::Release);
        Ok((base, take))
    }

    /// Whether `size` more bytes stay under the `max_bytes` cap.
    fn fits_cap(&self, size: usize) -> bool {
        let reserved = self.bytes_reserved.load(Ordering::Relaxed);
        self.cfg.max_bytes == 0 || reserved.saturating_add(size as u64) <= self.cfg.max_bytes as u64
    }

    /// Allocates a block of `size` bytes (a non-zero multiple of
    /// `MAX_ALIGN`, at most `isize::MAX`) from the OS, within the cap.
    /// Caller holds the grow lock (so the cap check is exact).
    fn os_alloc(&self, size: usize) -> Result<*mut u8, AllocError> {
        if !self.fits_cap(size) {
            return Err(AllocError::Exhausted);
        }
        let layout = Layout::from_size_align(size, MAX_ALIGN).map_err(|_| AllocError::OutOfMemory)?;
        // SAFETY: `size > 0`.
        let base = unsafe { alloc::alloc(layout) };
        if base.is_null() {
            return Err(AllocError::OutOfMemory);
        }
        // `bump` aligns cursors without an overflow check: it needs chunk
        // ends below `usize::MAX - MAX_ALIGN` (never otherwise in practice).
        if (base as usize).checked_add(size + MAX_ALIGN).is_none() {
            // SAFETY: just allocated with this layout.
            unsafe { alloc::dealloc(base, layout) };
            return Err(AllocError::OutOfMemory);
        }
        if self.cfg.poison_on_rewind {
            // Memory never handed out reads as poison too, as released memory
            // does after a rewind: a read before a write shows up the same.
            // SAFETY: the block just allocated, `size` bytes, unseen yet.
            unsafe { ptr::write_bytes(base, POISON_BYTE, size) };
        } else if self.cfg.prefault {
            for off in (0..size).step_by(4096) {
                // SAFETY: `off < size`: inside the block just allocated, which
                // nobody else can see yet. Volatile so the write is kept.
                unsafe { ptr::write_volatile(base.add(off), 0) };
            }
        }
        self.bytes_reserved.fetch_add(size as u64, Ordering::Relaxed);
        self.blocks.fetch_add(1, Ordering::Relaxed);
        self.os_allocations.fetch_add(1, Ordering::Relaxed);
        Ok(base)
    }

    /// Frees a block from `os_alloc`.
    ///
    /// # Safety
    /// `base` must come from `os_alloc(size)` and nothing in it be alive; it
    /// is freed once.
    unsafe fn os_free(&self, base: *mut u8, size: usize) {
        // SAFETY: caller contract; same layout as in `os_alloc`.
        unsafe { alloc::dealloc(base, Layout::from_size_align_unchecked(size, MAX_ALIGN)) };
        self.bytes_reserved.fetch_sub(size as u64, Ordering::Relaxed);
        self.blocks.fetch_sub(1, Ordering::Relaxed);
    }

    fn totals(slots: &[Arc<ThreadSlot>]) -> Totals {
        let mut t = Totals::default();
        for s in slots.iter() {
            let [r0, r1] = [0, 1].map(|lt| s.recent[lt].load(Ordering::Relaxed));
            t.allocations += s.allocations.load(Ordering::Relaxed) + (r0 >> 32) + (r1 >> 32);
            t.frame_bytes += s.bytes[0].load(Ordering::Relaxed) + (r0 & RECENT_BYTES);
            t.two_bytes += s.bytes[1].load(Ordering::Relaxed) + (r1 & RECENT_BYTES);
        }
        t
    }

    /// Ends the current frame: releases all [`Lifetime::Frame`] memory and
    /// the [`Lifetime::TwoFrames`] memory allocated before the previous
    /// rewind, keeping every block for reuse (a steady frame makes no OS
    /// allocation). Poisons the released memory if configured.
    ///
    /// Contract (see the [module documentation](self)): call it from one
    /// owner thread only (the first thread that rewinds; a different thread
    /// trips a debug assertion), and never concurrently with [`alloc`](Self::alloc):
    /// the runtime calls it from its tick, after every job of the frame
    /// finished and before any job of the next frame starts.
    pub fn rewind(&self) {
        let mut st = lock(&self.rewind_state);
        let me = thread::current().id();
        match st.owner {
            None => st.owner = Some(me),
            Some(owner) => {
                debug_assert_eq!(owner, me, "FrameAllocator::rewind called from a thread other than its owner")
            }
        }
        self.hot.rewinding.store(true, Ordering::Relaxed);

        let slots = lock(&self.slots);
        let totals = Self::totals(&slots);
        let in_use = st.in_use(&totals);
        st.high_water = st.high_water.max(in_use);

        let epoch = self.hot.epoch.load(Ordering::Relaxed);
        let next = epoch.wrapping_add(1);
        let poison = self.cfg.poison_on_rewind;
        // Released now: all Frame memory, and the TwoFrames arena that
        // becomes current (it holds the frame before the one ending now).
        let released = [0, Self::arena_index(Lifetime::TwoFrames, next)];
        for a in released {
            let used_blocks = self.arenas[a].reset(poison);
            let r = st.resets[a];
            st.recent_used[a][r % TRIM_WINDOW] = used_blocks;
            st.resets[a] = r.wrapping_add(1);
            // Keep the blocks any of the last resets needed (a steady frame
            // makes no OS allocation), return the rest (a one-off heavy
            // frame does not pin its memory).
            let keep = st.recent_used[a].iter().copied().max().unwrap_or(0);
            let _g = lock(&self.grow);
            for (base, size) in self.arenas[a].trim(keep) {
                // SAFETY: an overflow block from `os_alloc(size)`, unpublished
                // by `trim`, freed once. Nothing in it is alive: this rewind
                // ended the lifetime of everything in the arena, no allocation
                // runs concurrently (rewind contract), and thread-cache chunks
                // into it belong to older epochs, never used again.
                unsafe { self.os_free(base, size) };
            }
        }
        // Home chunks: poisoned every rewind if configured; checked for
        // reclaim every HOME_RECLAIM_FRAMES rewinds only, so that most
        // rewinds do not read the lines the workers write first in a frame
        // (each such read costs a worker a cache miss).
        let reclaim = next % HOME_RECLAIM_FRAMES == 0;
        for slot in slots.iter().filter(|_| poison || reclaim) {
            for (a, cell) in slot.homes.iter().enumerate() {
                let n = cell.segs.load(Ordering::Relaxed);
                if n == 0 {
                    continue;
                }
                if poison && released.contains(&a) {
                    let len = cell.seg_len.load(Ordering::Relaxed);
                    for base in &cell.bases[..n] {
                        // SAFETY: a home segment is `len` bytes inside a live
                        // block; its memory's lifetime ends now and no
                        // allocation runs concurrently (rewind contract).
                        unsafe { ptr::write_bytes(base.load(Ordering::Relaxed), POISON_BYTE, len) };
                    }
                }
                // Idle long enough for nothing in it to be alive (>= 2
                // rewinds): back to the pool. The thread using the slot, if it
                // comes back, sees no home and acquires a new one.
                // Read only on reclaim rewinds (see `PerFrame`).
                if reclaim
                    && slot.per_frame.last_epoch[a].load(Ordering::Relaxed).saturating_add(HOME_RECLAIM_FRAMES) <= next
                {
                    self.release_cell(cell);
                }
            }
        }
        drop(slots);

        st.frame_base = totals.frame_bytes;
        st.two_base_prev = st.two_base_cur;
        st.two_base_cur = totals.two_bytes;

        self.hot.rewinding.store(false, Ordering::Relaxed);
        // Release: pairs with the Acquire in `alloc`; cached chunks of the
        // old epoch carry the old stamp and no longer match.
        self.hot.epoch.store(next, Ordering::Release);
        self.hot.stamp.store(NEXT_STAMP.fetch_add(1, Ordering::Relaxed), Ordering::Release);
    }

    /// A snapshot of the counters. Exact when no allocation runs
    /// concurrently; otherwise it may be off by the allocations in flight
    /// (a thread folding its packed counter meanwhile can make it miss or
    /// count twice the allocations of that thread's last chunk).
    pub fn stats(&self) -> FrameAllocStats {
        let mut st = lock(&self.rewind_state);
        let slots = lock(&self.slots);
        let totals = Self::totals(&slots);
        let homes: u64 = slots.iter().flat_map(|s| s.homes.iter()).map(|c| c.total() as u64).sum();
        drop(slots);
        let in_use = st.in_use(&totals);
        st.high_water = st.high_water.max(in_use);
        let epoch = self.hot.epoch.load(Ordering::Acquire);
        FrameAllocStats {
            bytes_in_use: in_use,
            // Both TwoFrames overflow arenas are live (current and previous).
            bytes_claimed: homes + self.arenas[..OVERFLOW_ARENAS].iter().map(Arena::claimed).sum::<u64>(),
            bytes_reserved: self.bytes_reserved.load(Ordering::Relaxed),
            blocks: self.blocks.load(Ordering::Relaxed),
            high_water_bytes_in_use: st.high_water,
            rewinds: epoch,
            os_allocations: self.os_allocations.load(Ordering::Relaxed),
            allocations: totals.allocations,
            failed_allocations: self.failed.load(Ordering::Relaxed),
        }
    }
}

impl fmt::Debug for FrameAllocator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FrameAllocator")
            .field("id", &self.hot.id)
            .field("config", &self.cfg)
            .field("stats", &self.stats())
            .finish()
    }
}

impl Drop for FrameAllocator {
    fn drop(&mut self) {
        // `&mut self`: no thread is allocating. Stale thread-cache entries
        // carry our stamps, which are never reused, so they are never used
        // again; exit guards of threads hold only weak references to slots.
        let mut blocks: Vec<(*mut u8, usize)> = Vec::new();
        for slot in lock(&self.slots).iter() {
            for cell in &slot.homes {
                let len = cell.seg_len.load(Ordering::Relaxed);
                if len >= DEDICATED_HOME_BYTES {
                    let n = cell.segs.load(Ordering::Relaxed);
                    for base in &cell.bases[..n] {
                        blocks.push((base.load(Ordering::Relaxed), round_up_sat(len, MAX_ALIGN)));
                    }
                }
            }
        }
        for arena in &self.arenas {
            let n = arena.head.count.load(Ordering::Acquire);
            for m in &arena.meta[..n] {
                blocks.push((m.base.load(Ordering::Relaxed), m.size.load(Ordering::Relaxed)));
            }
        }
        for (base, size) in blocks {
            // SAFETY: every published arena block and every dedicated home
            // segment (held by exactly one slot; released ones were freed
            // already) comes from `os_alloc(size)` and is freed once, here.
            unsafe { self.os_free(base, size) };
        }
    }
}
