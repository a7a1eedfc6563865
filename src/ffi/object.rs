//! The opaque `OnityRuntime` a C host holds, and the one check of a runtime
//! pointer every export makes ([`runtime_ref`]).
//!
//! The pointer a host holds is not the runtime's memory: it is a cell of a
//! static table, [`CELLS`], one per runtime tag (the process has 255 tags,
//! `core::tags`; a tag is unique among live runtimes). A cell holds a
//! pointer to its live runtime, or null. Checking a pointer is a range and
//! alignment test against the table and one load of the cell: nothing is
//! read through memory the caller owns, so a garbage, freed, unmapped or
//! copied pointer is `InvalidRuntime` without a read through it.
//!
//! A destroyed runtime's cell is reused when its tag is: tags are handed out
//! round robin, so every other free tag is used first (254 creations when no
//! other runtime is alive) before a destroyed runtime's pointer designates
//! a runtime again (then it is the new one; the old runtime's handles stay
//! `StaleHandle` there). Documented on `ONITY_STATUS_INVALID_RUNTIME`.

use std::cell::{Cell, UnsafeCell};
use std::ptr;
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicU64, Ordering};

use super::status::OnityStatus;
use super::types::{OnityBatch, OnityDeferredFrame, OnityFrameInfo, ONITY_FRAME_RING_CAPACITY};
use crate::core;

/// An Onity runtime. Opaque; create with `onity_runtime_create`.
// Inside: a cell of the live-runtime table. 64 bytes, aligned, so that a
// byte copy of the first 64 bytes a host makes is of one cell, and no two
// cells share a cache line.
#[repr(align(64))]
pub struct OnityRuntime {
    live: AtomicPtr<RuntimeObject>,
    /// The live runtime's id (never 0, never reused), 0 when none: the
    /// word a host checks before it reads memory shared with the runtime
    /// (`onity_runtime_live_word`). Static like the cell, so it outlives the
    /// runtime.
    id: AtomicU64,
}

/// Runtime ids (see `OnityRuntime::id`).
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// Cells in the table: one per runtime tag (tag 0 is never used: its cell
/// stays null).
const CELL_COUNT: usize = 256;
const CELL_SHIFT: u32 = 6;
const _: () = assert!(std::mem::size_of::<OnityRuntime>() == 1 << CELL_SHIFT);
const _: () = assert!(CELL_COUNT == u8::MAX as usize + 1);

/// The live-runtime table: `CELLS[tag]` points at the live runtime with
/// that tag, or is null.
static CELLS: [OnityRuntime; CELL_COUNT] =
    [const { OnityRuntime { live: AtomicPtr::new(ptr::null_mut()), id: AtomicU64::new(0) } }; CELL_COUNT];

/// What a runtime pointer designates while its runtime lives.
// `rt` first: the core runtime's address is the object's (no offset to add
// in every export that passes it on).
#[repr(C)]
pub(crate) struct RuntimeObject {
    pub(crate) rt: core::Runtime,
    /// The frame ring shared with the host (`deferred.rs`): written by the
    /// host on the owner thread between calls; entry 0's `pending` (the
    /// count) is read atomically (any thread).
    deferred: UnsafeCell<[OnityDeferredFrame; ONITY_FRAME_RING_CAPACITY as usize]>,
    /// Live batches (owner thread only).
    batches: UnsafeCell<Vec<*mut OnityBatch>>,
    /// The batch whose records the deferred frame's splits count (owner
    /// thread only; null when none).
    deferred_batch: Cell<*mut OnityBatch>,
}

impl RuntimeObject {
    /// A new runtime object, for [`publish`].
    pub(crate) fn new(rt: core::Runtime) -> RuntimeObject {
        let info =
            OnityFrameInfo { size: 0, reserved: 0, frame: 0, delta_time: 0.0, unscaled_delta_time: 0.0, realtime: 0.0 };
        let deferred = OnityDeferredFrame { pending: 0, submit_split: 0, fast_split: 0, status: 0, info };
        RuntimeObject {
            rt,
            deferred: UnsafeCell::new([deferred; ONITY_FRAME_RING_CAPACITY as usize]),
            batches: UnsafeCell::new(Vec::new()),
            deferred_batch: Cell::new(ptr::null_mut()),
        }
    }

    /// The frame ring the host writes, entry 0 first (stable: the runtime
    /// is boxed).
    pub(crate) fn deferred(&self) -> *mut OnityDeferredFrame {
        self.deferred.get().cast()
    }

    /// The deferred frame's `pending` word, accessed atomically on this side
    /// (the host stores it with a plain aligned store on the owner thread).
    #[inline(always)]
    pub(crate) fn deferred_pending(&self) -> &AtomicU32 {
        // SAFETY: the field lives as long as `self`, is 4-aligned, and is
        // only ever accessed atomically on the runtime's side.
        unsafe { AtomicU32::from_ptr(ptr::addr_of_mut!((*self.deferred()).pending)) }
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
}

/// Makes `obj` live: stores it in the cell of its tag and returns the
/// cell, the pointer the host gets.
pub(crate) fn publish(obj: Box<RuntimeObject>) -> *mut OnityRuntime {
    let cell = &CELLS[obj.rt.tag() as usize];
    // The tag is unique among live runtimes and a cell is cleared before
    // its runtime (and tag) is dropped.
    debug_assert!(cell.live.load(Ordering::Relaxed).is_null());
    cell.id.store(NEXT_ID.fetch_add(1, Ordering::Relaxed), Ordering::Relaxed);
    cell.live.store(Box::into_raw(obj), Ordering::Release);
    cell as *const OnityRuntime as *mut OnityRuntime
}

/// Frees the runtime behind `p` (already closed), returning its batches for
/// the caller to free. Its cell is cleared first: from here on `p` is
/// `InvalidRuntime`.
///
/// # Safety
/// `p` passed [`runtime_ref`]; its runtime is closed and nothing uses it
/// any more.
pub(crate) unsafe fn free(p: *mut OnityRuntime) -> Vec<*mut OnityBatch> {
    let obj = (*p).live.swap(ptr::null_mut(), Ordering::AcqRel);
    // Release: a host that reads 0 with an acquire load sees the runtime
    // gone (on the destroying thread, any load does).
    (*p).id.store(0, Ordering::Release);
    let mut boxed = Box::from_raw(obj);
    std::mem::take(boxed.batches.get_mut())
}

/// Borrows the runtime behind `p`: `NullPointer`, or `InvalidRuntime` for
/// any pointer that is not the cell of a live runtime. Nothing is read
/// through `p` unless it points at a cell of [`CELLS`].
///
/// # Safety
/// A runtime is not destroyed while the borrow lives (the documented
/// contract of every export).
#[inline(always)]
pub(crate) unsafe fn runtime_ref<'a>(p: *const OnityRuntime) -> Result<&'a RuntimeObject, OnityStatus> {
    // One test for "inside the table and on a cell boundary": the offset
    // from the table, rotated right by the cell shift, moves a misaligned
    // offset's low bits to the top; below the cell count only for a cell.
    // Null and every pointer outside the table fail it too.
    let off = (p as usize).wrapping_sub(CELLS.as_ptr() as usize);
    if off.rotate_right(CELL_SHIFT) >= CELL_COUNT {
        return Err(bad_runtime(p));
    }
    // SAFETY: `p` is the address of a cell of the static table.
    let obj = (*p).live.load(Ordering::Acquire);
    if obj.is_null() {
        return Err(OnityStatus::InvalidRuntime);
    }
    Ok(&*obj)
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

/// The live word of the runtime behind `p` (see `OnityRuntime::id`): its
/// address, static, and the id it holds while this runtime lives. Errors
/// as [`runtime_ref`].
pub(crate) fn live_word(p: *const OnityRuntime) -> Result<(*const u64, u64), OnityStatus> {
    // SAFETY: the caller does not destroy the runtime during the call
    // (documented for every export).
    unsafe { runtime_ref(p) }?;
    // SAFETY: `runtime_ref` checked that `p` is a cell of the static table.
    let id = unsafe { &(*p).id };
    Ok((id.as_ptr() as *const u64, id.load(Ordering::Relaxed)))
}

/// The core runtime behind `p` (see [`runtime_ref`]).
#[inline(always)]
pub(crate) fn core_of<'a>(p: *const OnityRuntime) -> Result<&'a core::Runtime, OnityStatus> {
    // SAFETY: the caller does not destroy the runtime during the call
    // (documented for every export).
    unsafe { runtime_ref(p) }.map(|r| &r.rt)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pointers near and inside the table that are not a live cell.
    #[test]
    fn only_a_live_cell_passes() {
        let base = CELLS.as_ptr() as usize;
        for p in [0, 0x10, 0x7fff_ffff_fff0, base - 64, base + 1, base + 8, base + 63, base + 64 * CELL_COUNT, base] {
            let want = if p == 0 { OnityStatus::NullPointer } else { OnityStatus::InvalidRuntime };
            // SAFETY: the check reads only cells of the table.
            assert_eq!(unsafe { runtime_ref(p as *const OnityRuntime) }.err(), Some(want), "{p:#x}");
        }
    }
}
