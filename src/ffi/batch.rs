//! Batches: waits scheduled and resumptions reported through shared memory,
//! for hosts where each call across the boundary is expensive (C# through
//! P/Invoke costs 15-90 ns a call on Mono).
//!
//! The host writes `OnityBatchRecord`s into `submit[submit_count++]` with
//! plain memory writes (no call). Pending records of every batch are filed
//! at the start of `onity_runtime_frame_begin`, `onity_runtime_tick`,
//! `onity_batch_tick`, `onity_batch_flush` and `onity_runtime_drain`, with
//! the frame that was current when the host wrote them. When a filed wait
//! completes, an `OnityResume { id, state }` is appended to `resumed`; the
//! host reads `resumed[0 .. resumed_count]` after a call returns, and sets
//! `resumed_consumed` to the number it has processed; the next batch call
//! drops those. So a frame costs one call per timing, whatever the number of
//! waits.
//!
//! The fast lane (ABI 1.1) is a second, leaner channel for the commonest
//! waits: Yield, NextFrame and DelayFrame without a cancellation token. The
//! host writes one `u64` per wait into `fast_submit` (see
//! [`onity_batch_fast_record`] for the layout) and `onity_batch_tick` reports
//! the due ones as `u32` ids in `fast_resumed`. Nothing is validated per
//! record because nothing can be wrong: every bit pattern is a valid wait.
//! Fast-lane waits appear in the runtime's per-kind wait statistics by their
//! record (delay 0 counts as a Yield, 1 as a NextFrame, more as a DelayFrame)
//! but not in the wait-record pool, whose storage they do not use.
//!
//! A host may also begin frames without a call (ABI 1.3, `deferred.rs`):
//! then the records it wrote before the begin are filed with the previous
//! frame, the later ones with the new frame, as with a call.
//!
//! This file only moves records between the host's memory and the core,
//! which files, rebases, runs and counts them (`src/core/timing/lane.rs`).

use std::ffi::c_void;

use super::batch_state::{batch_emit, compact, file, file_all, free, lookup, state, BatchState};
use super::deferred::{sync_frame, unbind};
use super::error::{arg, Out};
use super::object::{runtime_ref, OnityRuntime, RuntimeObject};
use super::status::OnityStatus;
use super::types::{OnityBatch, OnityBatchRecord};
use crate::core::timing::lane;
use crate::core::{fallible, Timing};

/// Record kinds of `OnityBatchRecord::kind`: the four `OnityWaitKind`
/// values, plus `ONITY_BATCH_TASK` (resume when the task in `arg` completes).
pub const ONITY_BATCH_TASK: u8 = 4;
const _: () = assert!(ONITY_BATCH_TASK == lane::REQUEST_TASK);

/// Builds a fast-lane record into `*out_record`: `id` (bits 0-31, reported
/// back in `fast_resumed`), `timing` (bits 32-35, an `OnityTiming` value)
/// and `delay_frames` (bits 36-63): 0 = Yield (due at the next run of the
/// timing, possibly in this frame); n >= 1 = due at the first run of the
/// timing in a frame at least n frames after the frame current when the
/// record is filed (1 = NextFrame, n = DelayFrame(n); filed before the first
/// frame: the first frame is 1 frame after). Hosts usually compute
/// the record inline; this function documents and checks the layout. Any
/// thread. Errors: `NULL_POINTER`, `INVALID_ARGUMENT` (timing >= 16),
/// `COUNT_OUT_OF_RANGE` (delay_frames >= 2^28).
#[no_mangle]
pub extern "C" fn onity_batch_fast_record(
    id: u32,
    timing: u32,
    delay_frames: u32,
    out_record: *mut u64,
) -> OnityStatus {
    crate::ffi!({
        let out = Out::new(out_record)?;
        out.set(lane::fast_record(id, timing, delay_frames)?)
    })
}

/// Creates a batch with room for `submit_capacity` records (1 to 1,048,576)
/// and writes it to `*out_batch`. It lives until `onity_batch_destroy` or the
/// runtime's destruction. Owner thread. Errors: `NULL_POINTER`,
/// `INVALID_RUNTIME`, `COUNT_OUT_OF_RANGE`, `WRONG_THREAD`, `EXHAUSTED` (65,536 batches already
/// live in this runtime), `OUT_OF_MEMORY` (nothing made).
#[no_mangle]
pub extern "C" fn onity_batch_create(
    runtime: *mut OnityRuntime,
    submit_capacity: u32,
    out_batch: *mut *mut OnityBatch,
) -> OnityStatus {
    crate::ffi!({
        // SAFETY: documented contract of the runtime pointer.
        let r = unsafe { runtime_ref(runtime) }?;
        let out = Out::new(out_batch)?;
        if !r.rt.is_owner_thread() {
            return Err(OnityStatus::WrongThread);
        }
        // A deferred frame is applied first: the new batch's records are
        // written after it (a host that skipped its ticks would otherwise
        // merge a later frame into it and file them a frame early).
        sync_frame(r);
        if submit_capacity == 0 || submit_capacity > 1 << 20 {
            return Err(OnityStatus::CountOutOfRange);
        }
        let zero = OnityBatchRecord { id: 0, token: 0, arg: 0, kind: 0, timing: 0, clock: 0, reserved: [0; 5] };
        let cap = submit_capacity as usize;
        // Everything allocated first, fallibly; the lane last (the one step
        // to undo if a later one failed). Out of memory drops what was made.
        let records = fallible::try_boxed_slice(cap, || zero)?;
        let fast_records = fallible::try_boxed_slice(cap, || 0u64)?;
        let resumed = fallible::vec_with_capacity(1024)?;
        // From here the state's drop frees the record buffers.
        let mut st = fallible::try_box(move || BatchState {
            records: Box::into_raw(records) as *mut OnityBatchRecord,
            fast_records: Box::into_raw(fast_records) as *mut u64,
            capacity: cap,
            resumed,
            outstanding: 0,
            lane: 0,
        })?;
        let b = Box::into_raw(fallible::try_box(|| OnityBatch {
            size: std::mem::size_of::<OnityBatch>() as u32,
            submit_capacity,
            submit: st.records,
            submit_count: 0,
            resumed_consumed: 0,
            resumed: st.resumed.as_ptr(),
            resumed_count: 0,
            reserved: 0,
            internal: std::ptr::null_mut(),
            fast_submit: st.fast_records,
            fast_capacity: submit_capacity,
            fast_count: 0,
            fast_resumed: (&[] as &[u32]).as_ptr(),
            fast_resumed_count: 0,
            reserved2: 0,
        })?);
        // SAFETY: owner thread, short borrow.
        let room = fallible::reserve(unsafe { r.batches() }, 1);
        let lane = room.and_then(|()| r.rt.create_lane(batch_emit, b as *mut c_void));
        match lane {
            Ok(l) => st.lane = l,
            Err(e) => {
                // SAFETY: just made, never shared.
                drop(unsafe { Box::from_raw(b) });
                return Err(e.into());
            }
        }
        // SAFETY: `b` was just made on this thread; nobody else has it yet.
        unsafe {
            (*b).internal = Box::into_raw(st) as *mut c_void;
            r.batches().push(b);
        }
        out.set(b)
    })
}

/// Files the batch's pending records now (call it when `submit` is full).
/// Owner thread. Errors: `NULL_POINTER`, `INVALID_HANDLE` (not a live batch
/// of this runtime), `WRONG_THREAD`, `OUT_OF_MEMORY` (the fast-lane records
/// could not all be stored: those not filed stay pending, first in
/// `fast_submit`, with every `submit` record, for a later call; the other
/// calls that file records leave them pending the same way).
#[no_mangle]
pub extern "C" fn onity_batch_flush(runtime: *mut OnityRuntime, batch: *mut OnityBatch) -> OnityStatus {
    crate::ffi!({
        let r = lookup(runtime, batch)?;
        sync_frame(r);
        // SAFETY: live batch of this runtime, owner thread.
        unsafe { file(r, batch) }
    })
}

/// The per-timing call of a batch host: drops the resumptions marked
/// consumed, files every batch's pending records, reports this batch's due
/// fast-lane waits of `timing` in `fast_resumed`, runs `timing` (as
/// `onity_runtime_tick`) and leaves this batch's resumptions in
/// `resumed[0 .. resumed_count]`. Fast-lane waits are run only by their own
/// batch's `onity_batch_tick` (not by `onity_runtime_tick`). Owner thread. Errors: as
/// `onity_runtime_tick`, plus `NULL_POINTER` and `INVALID_HANDLE` (batch).
#[no_mangle]
pub extern "C" fn onity_batch_tick(runtime: *mut OnityRuntime, batch: *mut OnityBatch, timing: u32) -> OnityStatus {
    crate::ffi_host!({
        let (r, t) = run_start(runtime, batch, timing)?;
        // SAFETY: live batch, owner thread.
        let lane = unsafe { state(batch) }.lane;
        // The fast lane's due waits are reported before the timing runs
        // (the host resumes them first); a rejected tick reports none.
        Ok(r.rt.tick_lane(lane, t, |ids| {
            // SAFETY: live batch, owner thread; `ids` stay valid until the
            // lane's next tick (documented for `fast_resumed`).
            unsafe {
                (*batch).fast_resumed = ids.as_ptr();
                (*batch).fast_resumed_count = ids.len() as u32;
            }
        })?)
    })
}

/// The canceled-only pass of `timing`'s latest run (ABI 1.2), for a host
/// that runs the continuations `onity_batch_tick` reported after it
/// returns: call it when those continuations canceled a token. Files
/// pending records (as `onity_batch_tick`), then completes canceled the
/// waits of `timing` scheduled before that run whose token is canceled, and
/// the WhenAny / WhenAll watching a canceled token, reporting resumptions
/// as `onity_batch_tick` does (`fast_resumed` is left alone: fast-lane
/// waits have no token). So a token canceled by a continuation of a run
/// cancels the run's other pending waits in the same frame, as it does for
/// a callback host whose continuations run inside the tick. Nothing
/// becomes due; waits scheduled since that run are left to the next one.
/// Owner thread. Errors: as `onity_batch_tick`.
#[no_mangle]
pub extern "C" fn onity_batch_cancel_pass(
    runtime: *mut OnityRuntime,
    batch: *mut OnityBatch,
    timing: u32,
) -> OnityStatus {
    crate::ffi_host!({
        let (r, t) = run_start(runtime, batch, timing)?;
        Ok(r.rt.cancel_pass(t)?)
    })
}

/// Like `onity_batch_tick` without running a timing: files pending records
/// and runs continuations of tasks completed on other threads (as
/// `onity_runtime_drain`), reporting resumptions. Owner thread.
/// Errors: `NULL_POINTER` (batch), `INVALID_HANDLE` (not a live batch of
/// this runtime), `WRONG_THREAD`.
#[no_mangle]
pub extern "C" fn onity_batch_drain(runtime: *mut OnityRuntime, batch: *mut OnityBatch) -> OnityStatus {
    crate::ffi_host!({
        let r = report_start(runtime, batch)?;
        file_all(r);
        Ok(r.rt.drain()?)
    })
}

/// The start of the calls that report resumptions (tick, cancel pass,
/// drain): the batch checked, the deferred frame applied, and the
/// resumptions the host consumed dropped.
#[inline(always)]
fn report_start<'a>(runtime: *mut OnityRuntime, batch: *mut OnityBatch) -> Result<&'a RuntimeObject, OnityStatus> {
    let r = lookup(runtime, batch)?;
    sync_frame(r);
    // SAFETY: live batch, owner thread.
    unsafe { compact(batch) };
    Ok(r)
}

/// [`report_start`] of a call that runs `timing` (tick, cancel pass): then
/// the timing checked and every batch's pending records filed.
#[inline(always)]
fn run_start<'a>(
    runtime: *mut OnityRuntime,
    batch: *mut OnityBatch,
    timing: u32,
) -> Result<(&'a RuntimeObject, Timing), OnityStatus> {
    let r = report_start(runtime, batch)?;
    let t = arg(Timing::from_u32(timing))?;
    file_all(r);
    Ok((r, t))
}

/// Destroys a batch. Waits it filed that are still pending are canceled
/// first (reported nowhere: the batch is gone). An `ONITY_BATCH_TASK`
/// record only watched its task: the task is not canceled, it stays
/// pending or completed and the host still consumes it. Owner thread; not from
/// inside a tick nor while the runtime is being destroyed (the runtime
/// frees its batches then). Errors: `NULL_POINTER`, `INVALID_HANDLE`,
/// `WRONG_THREAD`, `REENTRANT`.
#[no_mangle]
pub extern "C" fn onity_batch_destroy(runtime: *mut OnityRuntime, batch: *mut OnityBatch) -> OnityStatus {
    crate::ffi_host!({
        let r = lookup(runtime, batch)?;
        // SAFETY: live batch, owner thread.
        r.rt.destroy_lane(unsafe { state(batch) }.lane)?;
        // SAFETY: owner thread; `batch` is in the list (checked by lookup)
        // and its lane is gone: nothing refers to it any more.
        unsafe {
            r.batches().retain(|&x| x != batch);
            free(batch);
        }
        unbind(r, batch);
        Ok(())
    })
}
