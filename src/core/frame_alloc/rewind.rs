//! [`FrameAllocator::rewind`]: the end of a frame (arenas reset and
//! trimmed, home chunks poisoned and reclaimed, counters rebased, a new
//! epoch). Its contract is the parent module's "Rewind contract".

use super::*;

impl FrameAllocator {
    /// Ends the current frame: releases all [`Lifetime::Frame`] memory and
    /// the [`Lifetime::TwoFrames`] memory allocated before the previous
    /// rewind, keeping every block for reuse (a steady frame makes no OS
    /// allocation). Poisons the released memory if configured.
    ///
    /// Contract (see the [module documentation](super)): call it from one
    /// owner thread only (the first thread that rewinds; a different thread
    /// trips a debug assertion), and never concurrently with [`alloc`](Self::alloc):
    /// the runtime calls it from its tick, after every job of the frame
    /// finished and before any job of the next frame starts.
    pub fn rewind(&self) {
        let mut st = lock(&self.rewind_state);
        // A plain per-thread counter (no thread handle: it costs an
        // allocation on a thread's first use and a reference count per call).
        let me = crate::core::owner::current_thread_id();
        match st.owner {
            None => st.owner = Some(me),
            Some(owner) => {
                debug_assert_eq!(owner, me, "FrameAllocator::rewind called from a thread other than its owner")
            }
        }
        self.hot.rewinding.store(true, Ordering::Relaxed);

        let slots = self.slots.lock();
        let totals = Totals::of(&slots);
        let in_use = st.in_use(&totals);
        st.high_water = st.high_water.max(in_use);

        let epoch = self.hot.epoch.load(Ordering::Relaxed);
        let next = epoch.wrapping_add(1);
        let poison = self.cfg.poison_on_rewind;
        // Released now: all Frame memory, and the TwoFrames arena that
        // becomes current (it holds the frame before the one ending now).
        let released = [0, Self::arena_index(Lifetime::TwoFrames, next)];
        for a in released {
            let used_blocks = self.blocks.arenas[a].reset(poison);
            let r = st.resets[a];
            st.recent_used[a][r % TRIM_WINDOW] = used_blocks;
            st.resets[a] = r.wrapping_add(1);
            // Keep the blocks any of the last resets needed (a steady frame
            // makes no OS allocation), return the rest (a one-off heavy
            // frame does not pin its memory).
            let keep = st.recent_used[a].iter().copied().max().unwrap_or(0);
            let _g = lock(&self.blocks.grow);
            self.blocks.arenas[a].trim(keep, |base, size| {
                // SAFETY: an overflow block from `os_alloc(size)`, unpublished
                // by `trim`, freed once. Nothing in it is alive: this rewind
                // ended the lifetime of everything in the arena, no allocation
                // runs concurrently (rewind contract), and thread-cache chunks
                // into it belong to older epochs, never used again.
                unsafe { self.blocks.os_free(base, size) };
            });
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
                    self.homes.release_cell(cell, &self.blocks);
                }
            }
        }
        drop(slots);

        st.frame_base = totals.frame_bytes;
        st.two_base_prev = st.two_base_cur;
        st.two_base_cur = totals.two_bytes;

        self.live.rewound();
        self.hot.rewinding.store(false, Ordering::Relaxed);
        // Release: pairs with the Acquire in `alloc`; cached chunks of the
        // old epoch carry the old stamp and no longer match.
        self.hot.epoch.store(next, Ordering::Release);
        self.hot.stamp.store(NEXT_STAMP.fetch_add(1, Ordering::Relaxed), Ordering::Release);
    }
}
