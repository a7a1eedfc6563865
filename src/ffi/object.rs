//! The opaque `OnityRuntime` a C host holds, and the one check of a runtime
//! pointer every export makes. (Issue 17's live-runtime table replaces the
//! magic check here, and nowhere else.)

use std::cell::{Cell, UnsafeCell};
use std::sync::atomic::AtomicU32;

use super::status::OnityStatus;
use super::types::{OnityBatch, OnityDeferredFrame, OnityFrameInfo};
use crate::core;

/// The first 8 bytes of a live runtime. Its upper half is all ones so that
/// it is a sign-extended 32-bit immediate: the check is one compare with
/// memory on x86_64 ("ONIT" in the low half).
const MAGIC: u64 = 0xffff_ffff_4f4e_4954;
const DEAD: u64 = 0xdead_dead_dead_dead;

/// An Onity runtime. Opaque; create with `onity_runtime_create`.
pub struct OnityRuntime {
    // The only field, at offset 0 (asserted below), and `repr(C)` with
    // `magic` first: the best-effort check of a bad pointer reads the first
    // 8 bytes it points to and nothing past them.
    f: RuntimeFields,
}

#[repr(C)]
#[doc(hidden)]
pub struct RuntimeFields {
    magic: u64,
    /// The deferred frame begin shared with the host (`deferred.rs`), next
    /// to `magic` so that its `pending` word shares the cache line every
    /// export reads: written by the host on the owner thread between calls;
    /// `pending` is read atomically (any thread).
    deferred: UnsafeCell<OnityDeferredFrame>,
    pub(crate) rt: core::Runtime,
    /// Live batches (owner thread only).
    batches: UnsafeCell<Vec<*mut OnityBatch>>,
    /// The batch whose records the deferred frame's splits count (owner
    /// thread only; null when none).
    deferred_batch: Cell<*mut OnityBatch>,
}

const _: () = assert!(std::mem::offset_of!(OnityRuntime, f) == 0);

impl std::ops::Deref for OnityRuntime {
    type Target = RuntimeFields;
    fn deref(&self) -> &RuntimeFields {
        &self.f
    }
}

impl OnityRuntime {
    /// A new runtime object, for `Box::into_raw`.
    pub(crate) fn new(rt: core::Runtime) -> OnityRuntime {
        let info =
            OnityFrameInfo { size: 0, reserved: 0, frame: 0, delta_time: 0.0, unscaled_delta_time: 0.0, realtime: 0.0 };
        let deferred = OnityDeferredFrame { pending: 0, submit_split: 0, fast_split: 0, status: 0, info };
        OnityRuntime {
            f: RuntimeFields {
                magic: MAGIC,
                deferred: UnsafeCell::new(deferred),
                rt,
                batches: UnsafeCell::new(Vec::new()),
                deferred_batch: Cell::new(std::ptr::null_mut()),
            },
        }
    }

    /// The deferred frame the host writes (stable: the runtime is boxed).
    pub(crate) fn deferred(&self) -> *mut OnityDeferredFrame {
        self.deferred.get()
    }

    /// The deferred frame's `pending` word, accessed atomically on this side
    /// (the host stores it with a plain aligned store on the owner thread).
    #[inline(always)]
    pub(crate) fn deferred_pending(&self) -> &AtomicU32 {
        // SAFETY: the field lives as long as `self`, is 4-aligned, and is
        // only ever accessed atomically on the runtime's side.
        unsafe { AtomicU32::from_ptr(std::ptr::addr_of_mut!((*self.deferred.get()).pending)) }
    }

    /// The batch the deferred frame's splits count (owner thread only).
    pub(crate) fn deferred_batch(&self) -> &Cell<*mut OnityBatch> {
        &self.deferred_batch
    }

    /// The live batches of this runtime.
    ///
    /// # Safety
    /// Owner thread only; the borrow must not outlive the call, nor span a
    /// call into host code.
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn batches(&self) -> &mut Vec<*mut OnityBatch> {
        &mut *self.batches.get()
    }

    /// Frees a runtime made by `onity_runtime_create` (already closed),
    /// returning its batches for the caller to free.
    ///
    /// # Safety
    /// `p` came from `Box::into_raw` of [`OnityRuntime::new`] and is freed
    /// once; nothing uses it afterwards.
    pub(crate) unsafe fn free(p: *mut OnityRuntime) -> Vec<*mut OnityBatch> {
        let mut boxed = Box::from_raw(p);
        boxed.f.magic = DEAD;
        std::mem::take(boxed.f.batches.get_mut())
    }
}

/// Borrows the runtime behind `p`: `NullPointer`, or `InvalidRuntime` for
/// a misaligned pointer or one whose first 8 bytes are not a live
/// runtime's magic.
///
/// # Safety
/// `p` is null or was returned by `onity_runtime_create` and not destroyed
/// (a best-effort check catches other pointers that are readable).
#[inline(always)]
pub(crate) unsafe fn runtime_ref<'a>(p: *const OnityRuntime) -> Result<&'a OnityRuntime, OnityStatus> {
    // A garbage pointer may be misaligned: check before making a reference,
    // and read the magic (the first 8 bytes) without one. Null and
    // misaligned pointers fail one test: `p - ALIGN`, rotated left by one,
    // has its low bits clear only when `p` is a non-null multiple of the
    // alignment (null wraps to a value with the top bit set). Which error it
    // is, is told apart off the fast path.
    const ALIGN: usize = std::mem::align_of::<OnityRuntime>();
    const _: () = assert!(ALIGN.is_power_of_two() && ALIGN >= 8);
    if (p as usize).wrapping_sub(ALIGN).rotate_left(1) & (2 * ALIGN - 1) != 0
        || std::ptr::read(p as *const u64) != MAGIC
    {
        return Err(bad_runtime(p));
    }
    Ok(&*p)
}

#[cold]
#[inline(never)]
fn bad_runtime(p: *const OnityRuntime) -> OnityStatus {
    if p.is_null() {
        OnityStatus::NullPointer
    } else {
        OnityStatus::InvalidRuntime
    }
}

/// The core runtime behind `p` (see [`runtime_ref`]).
#[inline(always)]
pub(crate) fn core_of<'a>(p: *const OnityRuntime) -> Result<&'a core::Runtime, OnityStatus> {
    // SAFETY: the caller passes a pointer from onity_runtime_create
    // (documented for every export).
    unsafe { runtime_ref(p) }.map(|r| &r.rt)
}
