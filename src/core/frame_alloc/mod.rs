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
//!
//! # Skipped rewinds
//!
//! A host that skips idle ticks skips the rewind when
//! [`FrameAllocator::rewind_idle`] (it reads [`FrameAllocator::live_byte`]
//! from outside): an allocation lives at least until its
//! rewind, later when frames with nothing to release passed without one
//! (`live.rs`: what is noted, on the slow path only, and when).

mod blocks;
mod config;
mod fork;
mod home;
mod live;
mod per_thread;
mod rewind;
mod stats;

use std::fmt;
use std::ptr::{self, NonNull};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

use blocks::Blocks;
use config::{lock, round_up_sat, DEDICATED_HOME_BYTES, LINE, TRIM_WINDOW};
pub use config::{
    AllocError, FrameAllocConfig, Lifetime, HOME_RECLAIM_FRAMES, MAX_ALIGN, MAX_BLOCKS_PER_ARENA, MAX_CHUNK_BYTES,
    MAX_CONFIG_BYTES, MAX_GROWTH_BLOCK_BYTES, MAX_HOME_SEGMENTS, POISON_BYTE,
};
use home::Homes;
use live::Live;
use per_thread::{bump, Bump, Cache, ChunkState, Slots, CACHE};
pub use stats::FrameAllocStats;
use stats::{RewindState, Totals};

// ---------------------------------------------------------------------------
// Shared state
// ---------------------------------------------------------------------------

/// Unique allocator ids; 0 marks an empty thread-cache entry.
static NEXT_ALLOCATOR_ID: AtomicU64 = AtomicU64::new(1);
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
    /// Set while a rewind runs (debug check of the rewind contract).
    rewinding: AtomicBool,
}

/// A rewindable frame allocator. See the [module documentation](self).
pub struct FrameAllocator {
    hot: Hot,
    blocks: Blocks,
    homes: Homes,
    slots: Slots,
    cfg: FrameAllocConfig,
    failed: AtomicU64,
    rewind_state: Mutex<RewindState>,
    live: Live,
}

// The type is Send + Sync by construction (atomics, mutexes, boxes); this
// fails to compile if a field ever breaks that.
const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<FrameAllocator>();
};

// ---------------------------------------------------------------------------
// The allocator
// ---------------------------------------------------------------------------

impl FrameAllocator {
    /// Creates an allocator. No memory is reserved until the first
    /// allocation of each lifetime. Panics when out of memory (see
    /// [`FrameAllocator::try_new`]).
    pub fn new(cfg: FrameAllocConfig) -> Self {
        Self::try_new(cfg).expect("out of memory")
    }

    /// Creates an allocator, or `OutOfMemory` when its tables cannot be
    /// allocated (nothing is kept then).
    pub fn try_new(cfg: FrameAllocConfig) -> crate::core::error::Result<Self> {
        fork::install();
        let cfg = cfg.normalized();
        // Chunk sizes the allocator works with (see `MAX_CHUNK_BYTES`); both
        // are multiples of 64 and `chunk <= max_chunk` still holds.
        let chunk = cfg.chunk_bytes.min(MAX_CHUNK_BYTES);
        let max_chunk = cfg.max_chunk_bytes.min(MAX_CHUNK_BYTES);
        // Largest power of two <= max_chunk, but at least the smallest home
        // (the power of two >= chunk); at most MAX_CHUNK_BYTES.
        let max_home = (1usize << (usize::BITS - 1 - max_chunk.leading_zeros())).max(chunk.next_power_of_two());
        let blocks = Blocks::try_new(&cfg, chunk)?;
        let homes = Homes::try_new(chunk, max_home)?;
        Ok(FrameAllocator {
            hot: Hot {
                stamp: AtomicU64::new(NEXT_STAMP.fetch_add(1, Ordering::Relaxed)),
                id: NEXT_ALLOCATOR_ID.fetch_add(1, Ordering::Relaxed),
                epoch: AtomicU64::new(0),
                chunk_bytes: chunk,
                max_chunk_bytes: max_chunk,
                rewinding: AtomicBool::new(false),
            },
            blocks,
            homes,
            slots: Slots::default(),
            cfg,
            failed: AtomicU64::new(0),
            rewind_state: Mutex::new(RewindState::default()),
            live: Live::default(),
        })
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
        self.slots.lock().len()
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
        match self.alloc_fast(lifetime, size, align) {
            Some(p) => Ok(p),
            None => self.alloc_checked(lifetime, size, align),
        }
    }

    /// The fast path of [`FrameAllocator::alloc`] alone: a bump in this
    /// thread's current chunk for an alignment up to 64, or `None`
    /// (anything else, errors included: then call [`FrameAllocator::alloc`],
    /// which decides).
    #[inline(always)]
    pub fn alloc_fast(&self, lifetime: Lifetime, size: usize, align: usize) -> Option<NonNull<u8>> {
        // A power of two in 1..=64 (align 0 fails the first test); larger
        // alignments take `alloc`'s checked path (the bump then needs one
        // more test).
        if align.wrapping_sub(1) >= LINE || align & (align - 1) != 0 {
            return None;
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
            unsafe {
                let e = &mut (*cache).entries[0];
                if e.stamp != stamp {
                    return None;
                }
                let r = bump(&mut e.bumps[lifetime as usize], size, align);
                if r.is_some() {
                    (*e.slot).record_fast(lifetime as usize, size);
                }
                r
            }
        })
    }

    /// Every case of [`FrameAllocator::alloc`]: the checks in the documented
    /// order, then the fast path again or the slow path.
    #[cold]
    #[inline(never)]
    fn alloc_checked(&self, lifetime: Lifetime, size: usize, align: usize) -> Result<NonNull<u8>, AllocError> {
        if align.wrapping_sub(1) >= MAX_ALIGN || align & (align - 1) != 0 {
            return Err(self.fail(AllocError::InvalidAlignment));
        }
        let stamp = self.hot.stamp.load(Ordering::Acquire);
        CACHE.with(|cache| {
            let cache = cache.get();
            // SAFETY: as in `alloc_fast`.
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
        self.live.note(lifetime);
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
            if !self.slots.rebind(cache, self.hot.id, stamp, epoch) {
                return Err(self.fail(AllocError::OutOfMemory));
            }
        } else {
            // SAFETY: as above.
            unsafe { per_thread::renew(&mut (*cache).entries[0], stamp, epoch) };
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
            let segs = self.homes.install(
                cell,
                &slot.per_frame.last_epoch[a],
                &slot.per_frame.consumed[lt],
                epoch,
                &self.blocks,
            );
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
        let (base, len) = match self.blocks.claim(a, need, want) {
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

    /// Whether a rewind now would release nothing: no allocation since the
    /// last rewind and no [`Lifetime::TwoFrames`] allocation of the epoch
    /// before (`live.rs`). Any thread; another thread may allocate just
    /// after it returned `true`.
    pub fn rewind_idle(&self) -> bool {
        self.live.idle()
    }

    /// The address of a byte that is non-zero while a rewind would
    /// release something ([`FrameAllocator::rewind_idle`] false): any
    /// thread's first allocation of a lifetime in an epoch sets it, a
    /// rewind resets it. Valid while `self` lives and does not move; read
    /// it as one byte load.
    pub fn live_byte(&self) -> *const u8 {
        self.live.byte()
    }

    /// A snapshot of the counters. Exact when no allocation runs
    /// concurrently; otherwise it may be off by the allocations in flight
    /// (a thread folding its packed counter meanwhile can make it miss or
    /// count twice the allocations of that thread's last chunk).
    pub fn stats(&self) -> FrameAllocStats {
        let mut st = lock(&self.rewind_state);
        let slots = self.slots.lock();
        let rewinds = self.hot.epoch.load(Ordering::Acquire);
        stats::snapshot(&mut st, &slots, &self.blocks, rewinds, self.failed.load(Ordering::Relaxed))
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
        // Freed in place, without collecting them first: a drop must not
        // allocate (a runtime is destroyed even while memory is refused).
        //
        // Both `os_free`s are sound: every published arena block and every
        // dedicated home segment (held by exactly one slot; released ones
        // were freed already) comes from `os_alloc(size)` and is freed
        // once, here.
        for slot in self.slots.lock().iter() {
            for cell in &slot.homes {
                let len = cell.seg_len.load(Ordering::Relaxed);
                if len >= DEDICATED_HOME_BYTES {
                    let n = cell.segs.load(Ordering::Relaxed);
                    for base in &cell.bases[..n] {
                        // SAFETY: as above.
                        unsafe { self.blocks.os_free(base.load(Ordering::Relaxed), round_up_sat(len, MAX_ALIGN)) };
                    }
                }
            }
        }
        for arena in &self.blocks.arenas {
            let n = arena.head.count.load(Ordering::Acquire);
            for m in &arena.meta[..n] {
                // SAFETY: as above.
                unsafe { self.blocks.os_free(m.base.load(Ordering::Relaxed), m.size.load(Ordering::Relaxed)) };
            }
        }
    }
}
