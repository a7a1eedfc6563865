//! Whether a rewind now would release anything: read by the runtime to
//! publish its rewind timing idle (`src/core/idle.rs`), and the hook that
//! clears that timing's idle byte from whichever thread allocates.
//!
//! A rewind releases nothing when no allocation was made since the last
//! one and no [`Lifetime::TwoFrames`] allocation of the epoch before is
//! still held (the next rewind releases those). The allocator notes the
//! first allocation of each lifetime per epoch on its slow path (the first
//! allocation of an epoch on a thread always takes it: the rewind changed
//! the stamp), so the fast path pays nothing.
//!
//! A skipped rewind keeps blocks and homes (nothing is reclaimed either:
//! only rewinds count idle frames), so the last busy frame's memory stays
//! reserved until allocations resume.

use std::sync::atomic::{AtomicPtr, AtomicU8, Ordering};

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
    /// rewind (which no allocation runs concurrently with).
    bits: AtomicU8,
    /// The byte cleared (set to 0) when a bit is first set in an epoch;
    /// null for none.
    hook: AtomicPtr<AtomicU8>,
}

impl Live {
    /// Notes an allocation of `lifetime` (slow path, any thread): sets its
    /// bits and clears the hooked byte the first time in the epoch.
    #[inline]
    pub(super) fn note(&self, lifetime: Lifetime) {
        let bits = NOW | if lifetime == Lifetime::TwoFrames { TWO_NOW } else { 0 };
        if self.bits.load(Ordering::Relaxed) & bits == bits {
            return;
        }
        // SeqCst: pairs with `publish_idle`'s store of 1 then load of the
        // bits, so a byte set to 1 while a bit is set is always cleared by
        // one of the two sides.
        self.bits.fetch_or(bits, Ordering::SeqCst);
        let hook = self.hook.load(Ordering::Acquire);
        if !hook.is_null() {
            // SAFETY: `set_hook`'s contract: the byte outlives the allocator.
            unsafe { (*hook).store(0, Ordering::SeqCst) };
        }
    }

    /// At a rewind (owner, no allocation concurrent): this epoch's
    /// TwoFrames allocations become the previous epoch's.
    pub(super) fn rewound(&self) {
        let b = self.bits.load(Ordering::Relaxed);
        self.bits.store(if b & TWO_NOW != 0 { TWO_PREV } else { 0 }, Ordering::SeqCst);
    }

    /// Whether a rewind now would release nothing (see the module docs).
    #[inline]
    pub(super) fn idle(&self) -> bool {
        self.bits.load(Ordering::SeqCst) == 0
    }

    /// Sets the byte [`Live::note`] clears.
    ///
    /// # Safety
    /// `byte` is null or stays valid (does not move) while the allocator
    /// lives.
    pub(super) unsafe fn set_hook(&self, byte: *const AtomicU8) {
        self.hook.store(byte.cast_mut(), Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU8, Ordering};

    use crate::core::frame_alloc::{FrameAllocConfig, FrameAllocator, Lifetime};

    #[test]
    fn rewind_idle_follows_what_a_rewind_would_release() {
        let fa = FrameAllocator::new(FrameAllocConfig::default());
        let byte = Box::new(AtomicU8::new(1));
        // SAFETY: the hook is removed (below) before the box is dropped.
        unsafe { fa.set_idle_hook(&*byte) };
        assert!(fa.rewind_idle(), "nothing allocated");
        fa.alloc(Lifetime::Frame, 64, 16).unwrap();
        assert!(!fa.rewind_idle());
        assert_eq!(byte.load(Ordering::Relaxed), 0, "the first allocation cleared the byte");
        byte.store(1, Ordering::Relaxed);
        fa.alloc(Lifetime::Frame, 64, 16).unwrap();
        assert_eq!(byte.load(Ordering::Relaxed), 1, "only the first of the epoch stores");
        fa.rewind();
        assert!(fa.rewind_idle(), "frame memory released");
        // Another thread; then TwoFrames, alive across one rewind.
        std::thread::scope(|s| {
            s.spawn(|| assert!(fa.alloc(Lifetime::TwoFrames, 64, 16).is_ok()));
        });
        assert_eq!(byte.load(Ordering::Relaxed), 0, "cleared from another thread");
        fa.rewind();
        assert!(!fa.rewind_idle(), "TwoFrames memory of the epoch before");
        fa.rewind();
        assert!(fa.rewind_idle());
        assert_eq!(fa.stats().rewinds, 3);
        // SAFETY: no hook before the byte is dropped.
        unsafe { fa.set_idle_hook(std::ptr::null()) };
    }
}
