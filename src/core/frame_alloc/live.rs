//! Whether a rewind now would release anything: one byte, non-zero while
//! it would, that the runtime's host reads (its address:
//! [`FrameAllocator::live_byte`](super::FrameAllocator::live_byte)) to
//! skip the rewind timing's run when it is 0 (`src/core/frame/idle.rs`).
//!
//! A rewind releases nothing when no allocation was made since the last
//! one and no [`Lifetime::TwoFrames`] allocation of the epoch before is
//! still held (the next rewind releases those). The allocator notes the
//! first allocation of each lifetime per epoch on its slow path (the first
//! allocation of an epoch on a thread always takes it: the rewind changed
//! the stamp), so the fast path pays nothing. The byte is the allocator's
//! own (other threads set its bits): nothing writes into the runtime's
//! state from another thread.
//!
//! A skipped rewind keeps blocks and homes (nothing is reclaimed either:
//! only rewinds count idle frames), so the last busy frame's memory stays
//! reserved until allocations resume.

use std::sync::atomic::{AtomicU8, Ordering};

use super::config::Lifetime;

/// Allocated from in this epoch (any lifetime).
const NOW: u8 = 1;
/// A TwoFrames allocation made in this epoch.
const TWO_NOW: u8 = 2;
/// A TwoFrames allocation made in the previous epoch (alive until the
/// next rewind).
const TWO_PREV: u8 = 4;

/// See the module docs.
#[derive(Default)]
pub(super) struct Live {
    /// `NOW | TWO_NOW | TWO_PREV` bits; set by any thread, reset by the
    /// rewind (which no allocation runs concurrently with). 0: a rewind
    /// now would release nothing.
    bits: AtomicU8,
}

impl Live {
    /// Notes an allocation of `lifetime` (slow path, any thread).
    #[inline]
    pub(super) fn note(&self, lifetime: Lifetime) {
        let bits = NOW | if lifetime == Lifetime::TwoFrames { TWO_NOW } else { 0 };
        if self.bits.load(Ordering::Relaxed) & bits != bits {
            // Release: a host that reads the bits non-zero sees the
            // allocation's bookkeeping before it rewinds.
            self.bits.fetch_or(bits, Ordering::Release);
        }
    }

    /// At a rewind (owner, no allocation concurrent): this epoch's
    /// TwoFrames allocations become the previous epoch's.
    pub(super) fn rewound(&self) {
        let b = self.bits.load(Ordering::Relaxed);
        self.bits.store(if b & TWO_NOW != 0 { TWO_PREV } else { 0 }, Ordering::Release);
    }

    /// Whether a rewind now would release nothing (see the module docs).
    #[inline]
    pub(super) fn idle(&self) -> bool {
        self.bits.load(Ordering::Acquire) == 0
    }

    /// The byte's address, for a host to read (one byte load).
    pub(super) fn byte(&self) -> *const u8 {
        self.bits.as_ptr().cast_const()
    }
}

#[cfg(test)]
mod tests {
    use crate::core::frame_alloc::{FrameAllocConfig, FrameAllocator, Lifetime};

    #[test]
    fn rewind_idle_follows_what_a_rewind_would_release() {
        let fa = FrameAllocator::new(FrameAllocConfig::default());
        let byte = fa.live_byte();
        // SAFETY: the allocator's own byte, live while `fa` is; no
        // allocation runs during these reads but the ones made here.
        let read = || unsafe { std::ptr::read_volatile(byte) };
        assert!(fa.rewind_idle(), "nothing allocated");
        assert_eq!(read(), 0);
        fa.alloc(Lifetime::Frame, 64, 16).unwrap();
        assert!(!fa.rewind_idle());
        assert_ne!(read(), 0, "the first allocation set the byte");
        fa.rewind();
        assert!(fa.rewind_idle(), "frame memory released");
        assert_eq!(read(), 0);
        // Another thread; then TwoFrames, alive across one rewind.
        std::thread::scope(|s| {
            s.spawn(|| assert!(fa.alloc(Lifetime::TwoFrames, 64, 16).is_ok()));
        });
        assert_ne!(read(), 0, "set from another thread");
        fa.rewind();
        assert!(!fa.rewind_idle(), "TwoFrames memory of the epoch before");
        assert_ne!(read(), 0);
        fa.rewind();
        assert!(fa.rewind_idle());
        assert_eq!(read(), 0);
        assert_eq!(fa.stats().rewinds, 3);
    }
}
