//! The frame ring's shared memory (ABI 1.3 `OnityDeferredFrame`, a ring of
//! one; ABI 1.6 `onity_batch_frame_ring`, eight): a host that pays for
//! every call (C# through P/Invoke) begins a frame by writing it into
//! memory the runtime shares with it, and makes no call. What applying
//! means (order, splits, refusals, the first frame) is the core's
//! (`src/core/frame`); this file checks and converts: it reads the
//! entries, hands them over, and files the batches' records when the core
//! asks (`Filing`). The protocol: docs/frame-protocol.md.
//!
//! The rule: written frames are applied by the next call, on the owner
//! thread, of an export whose result depends on the frame (the list is on
//! `OnityDeferredFrame`). Those exports get the runtime through
//! [`frame_ref`] / [`core_at_frame`] (the waits: [`frame_pending`]) instead
//! of `runtime_ref` / `core_of`; every other export neither reads nor
//! changes the frame, so it gives the same result whether the frames were
//! applied or not, and pays nothing. The check is one load of the count
//! word (entry 0's `pending`, next to the runtime's magic, on the line the
//! pointer check reads) and one branch; applying is out of line
//! ([`apply`]). Inside a tick the frames wait, untouched (the core's
//! `can_apply_frames`); a call there that files the bound batch's records
//! files only those before the first waiting frame
//! ([`filable_now`], [`filed_before_frames`]).

use std::sync::atomic::Ordering;

use super::batch_state::{file_all_but, file_first, lookup};
use super::error::Out;
use super::object::{runtime_ref, OnityRuntime, RuntimeObject};
use super::status::OnityStatus;
use super::types::{OnityBatch, OnityDeferredFrame, OnityFrameClock, OnityFrameInfo, ONITY_FRAME_RING_CAPACITY};
use crate::core::frame::WrittenFrame;
use crate::core::{self, FrameInfo};

/// Whether the host has deferred a frame not yet applied: the check, one
/// load and one branch. A hot export branches on it to an out-of-line
/// copy of the rest of its work that calls [`sync_frame`] first
/// (`wait.rs`), so that its usual path keeps no register across a call it
/// does not make.
#[inline(always)]
pub(crate) fn frame_pending(r: &RuntimeObject) -> bool {
    r.deferred_pending().load(Ordering::Relaxed) != 0
}

/// Applies the frame the host deferred, if any (see the module docs). Off
/// the owner thread it leaves it to the owner.
#[inline(always)]
pub(crate) fn sync_frame(r: &RuntimeObject) {
    if frame_pending(r) {
        apply(r);
    }
}

/// [`runtime_ref`], then [`sync_frame`]: for the exports whose result
/// depends on the frame.
///
/// # Safety
/// As [`runtime_ref`].
#[inline(always)]
pub(crate) unsafe fn frame_ref<'a>(p: *const OnityRuntime) -> Result<&'a RuntimeObject, OnityStatus> {
    let r = runtime_ref(p)?;
    sync_frame(r);
    Ok(r)
}

/// The core runtime behind `p`, with a deferred frame applied (see
/// [`frame_ref`]).
#[inline(always)]
pub(crate) fn core_at_frame<'a>(p: *const OnityRuntime) -> Result<&'a core::Runtime, OnityStatus> {
    // SAFETY: the caller passes a pointer from onity_runtime_create
    // (documented for every export).
    unsafe { frame_ref(p) }.map(|r| &r.rt)
}

/// Files the batches' records for [`core::Runtime::apply_frames`].
struct Filer<'a> {
    r: &'a RuntimeObject,
    bound: *mut OnityBatch,
}

impl core::frame::Filing for Filer<'_> {
    fn file_others(&mut self) {
        file_all_but(self.r, self.bound);
    }

    fn file_bound(&mut self, fast: usize, requests: usize) {
        if !self.bound.is_null() && (fast != 0 || requests != 0) {
            // SAFETY: the bound batch is live (destroying it unbinds it).
            let _ = unsafe { file_first(self.r, self.bound, fast, requests) };
        }
    }
}

#[cold]
#[inline(never)]
fn apply(r: &RuntimeObject) {
    // Off the owner thread, or inside a tick: left as written (the core's rule).
    if !r.rt.can_apply_frames() {
        return;
    }
    let pending = r.deferred_pending();
    // Acquire: the host's writes of the frames and splits happen before its
    // store of the count (the same thread, here).
    let count = pending.load(Ordering::Acquire) as usize;
    // A count above the ring's capacity: its entries are applied, the
    // count is refused (nothing past the ring's end is read).
    let n = count.min(RING);
    if n == 0 {
        return;
    }
    let ring = r.deferred();
    let mut frames = [WrittenFrame { info: ZERO, fast_split: 0, submit_split: 0 }; RING];
    // `at[k]`: the ring entry of `frames[k]`; the first entry not read.
    let (mut at, mut m, mut size_mismatch) = ([0usize; RING], 0, None);
    for i in 0..n {
        // SAFETY: owner thread; the host writes the ring only between calls
        // on this thread. `i` < the ring's length.
        let e = unsafe { *ring.add(i) };
        // A frame of another size is not read: it is refused (dropped).
        if e.info.size as usize != std::mem::size_of::<OnityFrameInfo>() {
            size_mismatch = size_mismatch.or(Some(i));
            continue;
        }
        frames[m] = WrittenFrame { info: e.info.into(), fast_split: e.fast_split, submit_split: e.submit_split };
        at[m] = i;
        m += 1;
    }
    pending.store(0, Ordering::Relaxed);
    let mut filer = Filer { r, bound: r.deferred_batch().get() };
    // The first refusal in ring order: a frame not read, or one the core refused.
    let refused = r.rt.apply_frames(&frames[..m], &mut filer).err().map(|(k, e)| (at[k], OnityStatus::from(e)));
    let first = match (size_mismatch, refused) {
        (Some(i), Some((j, _))) if i < j => Some(OnityStatus::SizeMismatch),
        (Some(_), None) => Some(OnityStatus::SizeMismatch),
        (_, refused) => refused.map(|(_, e)| e),
    };
    let first = first.or((count > RING).then_some(OnityStatus::CountOutOfRange));
    if let Some(e) = first {
        // SAFETY: owner thread, as above; entry 0's status.
        unsafe {
            if (*ring).status == 0 {
                (*ring).status = e as u32;
            }
        }
    }
}

const RING: usize = ONITY_FRAME_RING_CAPACITY as usize;
const ZERO: FrameInfo = FrameInfo { frame: 0, delta_time: 0.0, unscaled_delta_time: 0.0, realtime: 0.0 };

/// ABI 1.3. Writes the address of the runtime's deferred frame (see
/// `OnityDeferredFrame`) to `*out_frame` and binds it to `batch`: its splits
/// count this batch's records. Applies a frame still deferred first. The
/// address is valid until the runtime is destroyed; binding another batch
/// (or destroying this one) unbinds this one. A host that begins frames
/// through it makes one call a frame fewer: begin the frame by writing it
/// there, then tick as usual. Owner thread. Errors: `NULL_POINTER`, `INVALID_RUNTIME`,
/// `INVALID_HANDLE` (not a live batch of this runtime), `WRONG_THREAD`,
/// `REENTRANT` (inside a tick while frames written in the ring wait, for a
/// batch other than the bound one: their splits count its records; ABI 1.7).
#[no_mangle]
pub extern "C" fn onity_batch_deferred_frame(
    runtime: *mut OnityRuntime,
    batch: *mut OnityBatch,
    out_frame: *mut *mut OnityDeferredFrame,
) -> OnityStatus {
    crate::ffi!({
        let out = Out::new(out_frame)?;
        out.set(bind(runtime, batch)?)
    })
}

/// Binds the ring to `batch` after applying what it holds; its address.
/// Frames still written (inside a tick they wait) keep the batch they were
/// split against: another one is `Reentrant`.
fn bind(runtime: *mut OnityRuntime, batch: *mut OnityBatch) -> Result<*mut OnityDeferredFrame, OnityStatus> {
    let r = lookup(runtime, batch)?;
    sync_frame(r);
    if frame_pending(r) && r.deferred_batch().get() != batch {
        return Err(OnityStatus::Reentrant);
    }
    r.deferred_batch().set(batch);
    Ok(r.deferred())
}

/// ABI 1.6. Writes the address of the runtime's frame ring (an array of
/// `*out_capacity` = `ONITY_FRAME_RING_CAPACITY` `OnityDeferredFrame`s,
/// entry 0's `pending` the number written) to `*out_ring` and binds it to
/// `batch`: the splits count this batch's records. Applies frames still
/// written first. The address is valid until the runtime is destroyed;
/// binding another batch (or destroying this one) unbinds this one. The
/// ring's entry 0 is `onity_batch_deferred_frame`'s frame (a ring of one).
/// Owner thread. Errors: `NULL_POINTER`, `INVALID_RUNTIME`,
/// `INVALID_HANDLE` (not a live batch of this runtime), `WRONG_THREAD`,
/// `REENTRANT` (as `onity_batch_deferred_frame`).
#[no_mangle]
pub extern "C" fn onity_batch_frame_ring(
    runtime: *mut OnityRuntime,
    batch: *mut OnityBatch,
    out_ring: *mut *mut OnityDeferredFrame,
    out_capacity: *mut u32,
) -> OnityStatus {
    crate::ffi!({
        let (out, cap) = (Out::new(out_ring)?, Out::new(out_capacity)?);
        out.put(bind(runtime, batch)?);
        cap.set(ONITY_FRAME_RING_CAPACITY)
    })
}

/// ABI 1.7. Writes to `*out_clock` the address of the frame state the
/// runtime publishes at every frame begin (`OnityFrameClock`: the newest
/// frame, the first frame's origin, the clocks). Applies frames still
/// written in the ring first. The address is valid until the runtime is
/// destroyed. Owner thread. Errors: `NULL_POINTER`, `INVALID_RUNTIME`,
/// `WRONG_THREAD`.
#[no_mangle]
pub extern "C" fn onity_runtime_frame_clock(
    runtime: *mut OnityRuntime,
    out_clock: *mut *const OnityFrameClock,
) -> OnityStatus {
    crate::ffi!({
        let rt = core_at_frame(runtime)?;
        let out = Out::new(out_clock)?;
        // The same layout (asserted in types.rs).
        out.set(rt.frame_clock()?.cast())
    })
}

/// Unbinds `batch` from the deferred frame if it is bound (it is being
/// destroyed). Owner thread.
pub(super) fn unbind(r: &RuntimeObject, batch: *mut OnityBatch) {
    if r.deferred_batch().get() == batch {
        r.deferred_batch().set(std::ptr::null_mut());
    }
}
