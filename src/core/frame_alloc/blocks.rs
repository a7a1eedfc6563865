//! Blocks and chunks: the arenas of OS blocks a frame allocator carves
//! chunks from (lock-free), and the rare path that adds a block.

use std::alloc::{self, Layout};
use std::ptr;
use std::sync::atomic::{AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use super::super::error::Result as CoreResult;
use super::super::fallible;
use super::config::{
    lock, round_up_sat, AllocError, FrameAllocConfig, ARENAS, MAX_ALIGN, MAX_BLOCKS_PER_ARENA, MAX_GROWTH_BLOCK_BYTES,
    POISON_BYTE,
};

/// Where a block is. Written once under the grow lock before the block is
/// published by `ArenaHead::count`, then read-only until drop.
pub(super) struct BlockMeta {
    pub(super) base: AtomicPtr<u8>,
    pub(super) size: AtomicUsize,
}

#[repr(align(64))]
pub(super) struct ArenaHead {
    /// Index of the block chunks are carved from; only moves forward within
    /// an epoch, reset to 0 by rewind.
    pub(super) current: AtomicUsize,
    /// Number of published blocks (Release on publish, Acquire on read).
    pub(super) count: AtomicUsize,
}

pub(super) struct Arena {
    pub(super) head: ArenaHead,
    pub(super) meta: Box<[BlockMeta]>,
    /// Bytes carved from each block (a multiple of 64, never above its size).
    used: Box<[AtomicUsize]>,
}

impl Arena {
    /// `OutOfMemory` when its block tables cannot be allocated.
    pub(super) fn try_new() -> CoreResult<Self> {
        Ok(Arena {
            head: ArenaHead { current: AtomicUsize::new(0), count: AtomicUsize::new(0) },
            meta: fallible::try_boxed_slice(MAX_BLOCKS_PER_ARENA, || BlockMeta {
                base: AtomicPtr::new(ptr::null_mut()),
                size: AtomicUsize::new(0),
            })?,
            used: fallible::try_boxed_slice(MAX_BLOCKS_PER_ARENA, || AtomicUsize::new(0))?,
        })
    }

    /// Carves between `need` and `want` bytes (multiples of 64) from block
    /// `i` (which must be published). On failure returns the block's free
    /// bytes.
    #[inline]
    pub(super) fn try_claim_in(&self, i: usize, need: usize, want: usize) -> Result<(*mut u8, usize), usize> {
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
    pub(super) fn claim_published(&self, need: usize, want: usize, min_chunk: usize) -> Option<(*mut u8, usize)> {
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
    pub(super) fn claimed(&self) -> u64 {
        let n = self.head.count.load(Ordering::Acquire);
        self.used[..n].iter().map(|u| u.load(Ordering::Relaxed) as u64).sum()
    }

    /// Releases everything carved from this arena (rewind path). Returns
    /// the number of blocks that were used (highest used index + 1).
    pub(super) fn reset(&self, poison: bool) -> usize {
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

    /// Unpublishes the blocks from index `keep` on and hands each to `free`
    /// as `(base, size)` (rewind path, after `reset`, under the grow lock).
    pub(super) fn trim(&self, keep: usize, mut free: impl FnMut(*mut u8, usize)) {
        let n = self.head.count.load(Ordering::Relaxed);
        if keep >= n {
            return;
        }
        self.head.count.store(keep, Ordering::Release);
        // No list of the blocks: nothing here allocates (a rewind cannot
        // fail on memory).
        for i in keep..n {
            self.used[i].store(0, Ordering::Relaxed);
            free(
                self.meta[i].base.swap(ptr::null_mut(), Ordering::Relaxed),
                self.meta[i].size.swap(0, Ordering::Relaxed),
            );
        }
    }
}

/// Every block of an allocator: the overflow arenas of Frame, TwoFrames A
/// and TwoFrames B, the home arena, and the byte cap over all of them.
pub(super) struct Blocks {
    pub(super) arenas: [Arena; ARENAS],
    /// Serialises block creation (all arenas, so the byte cap is exact).
    pub(super) grow: Mutex<()>,
    pub(super) bytes_reserved: AtomicU64,
    pub(super) blocks: AtomicU64,
    pub(super) os_allocations: AtomicU64,
    first_block_bytes: usize,
    max_bytes: usize,
    poison: bool,
    prefault: bool,
    /// The smallest chunk (`chunk_bytes`, capped): a block's tail below it
    /// is not worth scanning again.
    min_chunk: usize,
}

impl Blocks {
    /// No block yet; `cfg` is normalised, `min_chunk` the allocator's
    /// smallest chunk.
    /// `OutOfMemory` when the block tables cannot be allocated.
    pub(super) fn try_new(cfg: &FrameAllocConfig, min_chunk: usize) -> CoreResult<Blocks> {
        Ok(Blocks {
            arenas: [Arena::try_new()?, Arena::try_new()?, Arena::try_new()?, Arena::try_new()?],
            grow: Mutex::new(()),
            bytes_reserved: AtomicU64::new(0),
            blocks: AtomicU64::new(0),
            os_allocations: AtomicU64::new(0),
            first_block_bytes: cfg.first_block_bytes,
            max_bytes: cfg.max_bytes,
            poison: cfg.poison_on_rewind,
            prefault: cfg.prefault,
            min_chunk,
        })
    }

    /// A block of its own for a large home chunk of `size` bytes.
    pub(super) fn alloc_dedicated(&self, size: usize) -> Option<*mut u8> {
        let _g = lock(&self.grow);
        self.os_alloc(round_up_sat(size, MAX_ALIGN)).ok()
    }

    /// Frees a block from `alloc_dedicated(len)`.
    ///
    /// # Safety
    /// As [`Blocks::os_free`].
    pub(super) unsafe fn free_dedicated(&self, base: *mut u8, len: usize) {
        let _g = lock(&self.grow);
        // SAFETY: caller contract.
        unsafe { self.os_free(base, round_up_sat(len, MAX_ALIGN)) };
    }

    /// Carves `need..=want` bytes from `arena`, adding a block if needed.
    #[inline]
    pub(super) fn claim(&self, a: usize, need: usize, want: usize) -> Result<(*mut u8, usize), AllocError> {
        match self.arenas[a].claim_published(need, want, self.min_chunk) {
            Some(r) => Ok(r),
            None => self.grow_and_claim(&self.arenas[a], need, want),
        }
    }

    /// Rare path of `claim`: adds a block under the grow lock.
    #[cold]
    #[inline(never)]
    fn grow_and_claim(&self, arena: &Arena, need: usize, want: usize) -> Result<(*mut u8, usize), AllocError> {
        let min_chunk = self.min_chunk;
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
        let first = self.first_block_bytes;
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
        self.max_bytes == 0 || reserved.saturating_add(size as u64) <= self.max_bytes as u64
    }

    /// Allocates a block of `size` bytes (a non-zero multiple of
    /// `MAX_ALIGN`, at most `isize::MAX`) from the OS, within the cap.
    /// Caller holds the grow lock (so the cap check is exact).
    pub(super) fn os_alloc(&self, size: usize) -> Result<*mut u8, AllocError> {
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
        if self.poison {
            // Memory never handed out reads as poison too, as released memory
            // does after a rewind: a read before a write shows up the same.
            // SAFETY: the block just allocated, `size` bytes, unseen yet.
            unsafe { ptr::write_bytes(base, POISON_BYTE, size) };
        } else if self.prefault {
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
    pub(super) unsafe fn os_free(&self, base: *mut u8, size: usize) {
        // SAFETY: caller contract; same layout as in `os_alloc`.
        unsafe { alloc::dealloc(base, Layout::from_size_align_unchecked(size, MAX_ALIGN)) };
        self.bytes_reserved.fetch_sub(size as u64, Ordering::Relaxed);
        self.blocks.fetch_sub(1, Ordering::Relaxed);
    }
}
