//! Home chunks: the memory each (thread, allocator) pair restarts at every
//! frame, sized to what the thread consumed, and the pool of free ones.

use std::ptr::{self, NonNull};
use std::sync::atomic::{AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use super::super::error::Result as CoreResult;
use super::super::fallible;
use super::blocks::Blocks;
use super::config::{lock, round_up_sat, DEDICATED_HOME_BYTES, HOME, HOME_SUBCLASSES, LINE, MAX_HOME_SEGMENTS};

/// A thread's home for one arena: `segs` segments of `seg_len` bytes (one
/// segment unless the thread's frame needs more than the largest home
/// chunk). Written by the owning thread in its slow path when it resizes
/// the home (rarely) and by `rewind` (reclaim), which never run
/// concurrently under the rewind contract; atomics keep even a broken
/// contract data-race free. `stats` reads it, so nothing the thread writes
/// every frame lives here (see [`PerFrame`]).
pub(super) struct HomeCell {
    /// Length of every segment (0: no home).
    pub(super) seg_len: AtomicUsize,
    /// Number of segments at the front of `bases`.
    pub(super) segs: AtomicUsize,
    pub(super) bases: [AtomicPtr<u8>; MAX_HOME_SEGMENTS],
}

impl HomeCell {
    pub(super) fn new() -> Self {
        HomeCell {
            seg_len: AtomicUsize::new(0),
            segs: AtomicUsize::new(0),
            bases: [(); MAX_HOME_SEGMENTS].map(|_| AtomicPtr::new(ptr::null_mut())),
        }
    }

    /// Bytes held (all segments).
    pub(super) fn total(&self) -> usize {
        self.seg_len.load(Ordering::Relaxed) * self.segs.load(Ordering::Relaxed)
    }
}

/// A free home chunk (in the pool).
pub(super) struct FreeHome(NonNull<u8>);

// SAFETY: a free home chunk is just an address inside one of the
// allocator's blocks, owned by the pool; moving it between threads is fine.
unsafe impl Send for FreeHome {}

/// Sizes and recycles home chunks.
pub(super) struct Homes {
    /// Free home chunks by size class.
    pool: Mutex<Vec<Vec<FreeHome>>>,
    /// The smallest chunk.
    chunk_bytes: usize,
    /// Largest home chunk (a power of two).
    pub(super) max_home_bytes: usize,
}

impl Homes {
    /// `OutOfMemory` when the pool's class table cannot be allocated.
    pub(super) fn try_new(chunk_bytes: usize, max_home_bytes: usize) -> CoreResult<Homes> {
        let classes = (usize::BITS as usize + 1) * HOME_SUBCLASSES;
        let mut pool = fallible::vec_with_capacity(classes)?;
        pool.resize_with(classes, Vec::new);
        Ok(Homes { pool: Mutex::new(pool), chunk_bytes, max_home_bytes })
    }

    /// Installs this thread's home for arena `a` in `epoch` and returns its
    /// number of segments, after resizing it to what the thread consumed in
    /// the last two frames (the smaller) plus 1/8 if it is too small or 8
    /// times too large. 0 if it has none and none can be reserved (byte
    /// cap, OS refusal), or if it was already installed in this epoch:
    /// overflow chunks then serve the frame.
    #[inline]
    pub(super) fn install(
        &self,
        cell: &HomeCell,
        last_epoch: &AtomicU64,
        consumed: &[AtomicUsize; 2],
        epoch: u64,
        blocks: &Blocks,
    ) -> usize {
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
        let [last, prev] = consumed;
        let consumed = last.load(Ordering::Relaxed).min(prev.load(Ordering::Relaxed));
        let target = consumed.saturating_add(consumed / 8).max(self.chunk_bytes);
        let segs = cell.segs.load(Ordering::Relaxed);
        let total = cell.total();
        if segs > 0 && target <= total && target.saturating_mul(8) > total {
            return segs;
        }
        self.resize(cell, target, blocks)
    }

    /// Gives `cell` a home of at least `target` bytes if it can (one
    /// segment of a size class up to `max_home_bytes`, else up to
    /// [`MAX_HOME_SEGMENTS`] segments of `max_home_bytes`). Returns the
    /// number of segments. The old home's memory is dead: a Frame home was
    /// last used before the last rewind, a TwoFrames home (of this epoch's
    /// parity) at least two rewinds ago.
    #[cold]
    #[inline(never)]
    fn resize(&self, cell: &HomeCell, target: usize, blocks: &Blocks) -> usize {
        let max_home = self.max_home_bytes;
        let (len, n) = if target <= max_home {
            (self.class(target).1, 1)
        } else {
            (max_home, target.div_ceil(max_home).min(MAX_HOME_SEGMENTS))
        };
        let len0 = cell.seg_len.load(Ordering::Relaxed);
        let n0 = cell.segs.load(Ordering::Relaxed);
        if n0 > 0 && len == len0 {
            // Same segment size: drop or add segments at the end.
            for base in &cell.bases[n.min(n0)..n0] {
                self.release(base.swap(ptr::null_mut(), Ordering::Relaxed), len0, blocks);
            }
            let mut k = n.min(n0);
            while k < n {
                match self.acquire(len, blocks) {
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
            match self.acquire(len, blocks) {
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
        self.release_cell(cell, blocks);
        for (slot, p) in cell.bases.iter().zip(&new[..k]) {
            slot.store(*p, Ordering::Relaxed);
        }
        cell.seg_len.store(len, Ordering::Relaxed);
        cell.segs.store(k, Ordering::Relaxed);
        k
    }

    /// Releases every segment of `cell` (their memory must be dead).
    pub(super) fn release_cell(&self, cell: &HomeCell, blocks: &Blocks) {
        let len = cell.seg_len.load(Ordering::Relaxed);
        let n = cell.segs.swap(0, Ordering::Relaxed);
        for base in &cell.bases[..n] {
            self.release(base.swap(ptr::null_mut(), Ordering::Relaxed), len, blocks);
        }
        cell.seg_len.store(0, Ordering::Relaxed);
    }

    /// The size class for a home chunk of at least `target` bytes: `(class
    /// index, size)`, sizes `2^k`, `1.25 * 2^k`, `1.5 * 2^k`, `1.75 * 2^k`
    /// (rounded up to 64), between `chunk_bytes` and `max_home_bytes`. A
    /// class size maps to itself.
    fn class(&self, target: usize) -> (usize, usize) {
        let t = target.clamp(self.chunk_bytes, self.max_home_bytes);
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
    fn acquire(&self, size: usize, blocks: &Blocks) -> Option<*mut u8> {
        if size >= DEDICATED_HOME_BYTES {
            return blocks.alloc_dedicated(size);
        }
        let (class, _) = self.class(size);
        if let Some(h) = lock(&self.pool)[class].pop() {
            return Some(h.0.as_ptr());
        }
        // `need == want == size`: a successful claim is exactly `size` bytes.
        blocks.claim(HOME, size, size).ok().map(|(p, _)| p)
    }

    /// Returns a dead home chunk to the pool, or to the OS if it has its own
    /// block.
    pub(super) fn release(&self, base: *mut u8, len: usize, blocks: &Blocks) {
        if base.is_null() {
            return;
        }
        if len >= DEDICATED_HOME_BYTES {
            // SAFETY: a dedicated home comes from `alloc_dedicated(len)`;
            // callers release a home once, when nothing in it is alive.
            unsafe { blocks.free_dedicated(base, len) };
            return;
        }
        if let Some(p) = NonNull::new(base) {
            let (class, size) = self.class(len);
            debug_assert_eq!(size, len);
            lock(&self.pool)[class].push(FreeHome(p));
        }
    }
}
