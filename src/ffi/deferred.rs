//! The deferred frame begin (ABI 1.3, `OnityDeferredFrame`): a host that
//! pays for every call (C# through P/Invoke) begins a frame by writing it
//! into memory the runtime shares with it, and makes no call.
//!
//! The rule: a deferred frame is applied by the next call, on the owner
//! thread, of an export whose result depends on the frame (the list is on
//! `OnityDeferredFrame`): the waits, the calls that tick, drain or file
//! batch records, and the ones that read or record the frame. Those exports
//! get the runtime through [`frame_ref`] / [`core_at_frame`] (the waits:
//! [`frame_pending`]) instead of `runtime_ref` / `core_of`; every other export neither reads nor changes
//! the frame, so it gives the same result whether the frame was applied or
//! not, and pays nothing. The check is one load of the `pending` word (next
//! to the runtime's magic, on the line the pointer check reads) and one
//! branch; applying is out of line ([`apply`]).
//!
//! Applying files the bound batch's records written before the begin (the
//! splits) and every other batch's records with the previous frame, begins
//! the frame exactly as `onity_runtime_frame_begin` does (a refusal is left
//! in `status` for the host), then files the bound batch's later records.
//! So C and C++ code calling the runtime between the host's begin and its
//! first tick sees the new frame, and waits keep the order they were
//! scheduled in.
//!
//! A host that skips its ticks (ABI 1.4, `idle.rs`) may begin several frames
//! before any call: it merges each into the pending one (newest frame and
//! realtime, deltas summed (C#: the deltas that take the clocks where frame
//! by frame would); never into the runtime's first frame, by which
//! waits made before it are rebased), which this applies as one frame. Nothing here
//! changes for it: other threads still only read `pending`.

use std::sync::atomic::Ordering;

use super::batch_state::{file, file_first, lookup};
use super::error::Out;
use super::object::{runtime_ref, OnityRuntime, RuntimeObject};
use super::status::OnityStatus;
use super::types::{OnityBatch, OnityDeferredFrame, OnityFrameInfo};
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

#[cold]
#[inline(never)]
fn apply(r: &RuntimeObject) {
    if !r.rt.is_owner_thread() {
        return;
    }
    let pending = r.deferred_pending();
    // Acquire: the host's writes of the frame and splits happen before its
    // store of `pending` (the same thread, here).
    if pending.load(Ordering::Acquire) == 0 {
        return;
    }
    let d = r.deferred();
    // SAFETY: owner thread; the host writes the slot only between calls on
    // this thread (while `pending` is 0, or merging a later frame into it:
    // `OnityDeferredFrame::pending`).
    let (info, fast_split, submit_split) = unsafe { ((*d).info, (*d).fast_split, (*d).submit_split) };
    pending.store(0, Ordering::Relaxed);
    let bound = r.deferred_batch().get();
    // The records written before the begin, with the previous frame. A
    // batch whose fast records cannot be stored keeps them pending (they
    // are then filed with the new frame; a flush reports it).
    // SAFETY: owner thread; filing runs no host code, so the list cannot
    // change while we walk it.
    for &b in unsafe { r.batches() }.iter() {
        // SAFETY: listed batches are live, owner thread.
        let _ = unsafe {
            if b == bound {
                file_first(r, b, fast_split as usize, submit_split as usize)
            } else {
                file(r, b)
            }
        };
    }
    let began = if info.size as usize != std::mem::size_of::<OnityFrameInfo>() {
        Err(OnityStatus::SizeMismatch)
    } else {
        r.rt.begin_frame(&FrameInfo {
            frame: info.frame,
            delta_time: info.delta_time,
            unscaled_delta_time: info.unscaled_delta_time,
            realtime: info.realtime,
        })
        .map_err(OnityStatus::from)
    };
    if let Err(e) = began {
        // SAFETY: owner thread, as above.
        unsafe { (*d).status = e as u32 };
    }
    if !bound.is_null() {
        // SAFETY: the bound batch is live (destroying it unbinds it).
        let _ = unsafe { file(r, bound) };
    }
}

/// ABI 1.3. Writes the address of the runtime's deferred frame (see
/// `OnityDeferredFrame`) to `*out_frame` and binds it to `batch`: its splits
/// count this batch's records. Applies a frame still deferred first. The
/// address is valid until the runtime is destroyed; binding another batch
/// (or destroying this one) unbinds this one. A host that begins frames
/// through it makes one call a frame fewer: begin the frame by writing it
/// there, then tick as usual. Owner thread. Errors: `NULL_POINTER`,
/// `INVALID_HANDLE` (not a live batch of this runtime), `WRONG_THREAD`.
#[no_mangle]
pub extern "C" fn onity_batch_deferred_frame(
    runtime: *mut OnityRuntime,
    batch: *mut OnityBatch,
    out_frame: *mut *mut OnityDeferredFrame,
) -> OnityStatus {
    crate::ffi!({
        let r = lookup(runtime, batch)?;
        let out = Out::new(out_frame)?;
        sync_frame(r);
        r.deferred_batch().set(batch);
        out.set(r.deferred())
    })
}

/// Unbinds `batch` from the deferred frame if it is bound (it is being
/// destroyed). Owner thread.
pub(super) fn unbind(r: &RuntimeObject, batch: *mut OnityBatch) {
    if r.deferred_batch().get() == batch {
        r.deferred_batch().set(std::ptr::null_mut());
    }
}
