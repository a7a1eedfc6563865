//! A batch's runtime-private state and the moving of its records between
//! the host's memory and the core: filing pending records, compacting
//! consumed resumptions, freeing. The exports are `batch.rs`; applying a
//! deferred frame (`deferred.rs`) files through here too.

use super::error::status_code;
use super::object::{runtime_ref, OnityRuntime, RuntimeObject};
use super::status::OnityStatus;
use super::types::{OnityBatch, OnityBatchRecord, OnityResume, OnityTaskState, ONITY_FRAME_RING_CAPACITY};
use crate::core::LaneId;
use std::ffi::c_void;
use std::sync::atomic::Ordering;

/// The runtime-private part of a batch (`OnityBatch::internal`).
pub(super) struct BatchState {
    /// The host's record buffers, shared with it through `submit` and
    /// `fast_submit`: raw allocations of `capacity` records each (freed by
    /// `Drop`), always read through these pointers, never through the
    /// host-writable fields.
    pub(super) records: *mut OnityBatchRecord,
    pub(super) fast_records: *mut u64,
    pub(super) capacity: usize,
    pub(super) resumed: Vec<OnityResume>,
    /// Requests filed whose resumption is not yet in `resumed`: `resumed`
    /// keeps room for them (reserved fallibly when they are filed), so a
    /// completing wait never allocates.
    pub(super) outstanding: usize,
    pub(super) lane: LaneId,
}

impl Drop for BatchState {
    fn drop(&mut self) {
        // SAFETY: both came from `Box::into_raw` of `capacity`-long boxed
        // slices in `onity_batch_create` and are freed once, here.
        unsafe {
            drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(self.records, self.capacity)));
            drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(self.fast_records, self.capacity)));
        }
    }
}

/// The state of a live batch.
///
/// # Safety
/// `b` is a live batch; owner thread; the borrow is short.
#[allow(clippy::mut_from_ref)]
pub(super) unsafe fn state<'a>(b: *mut OnityBatch) -> &'a mut BatchState {
    &mut *((*b).internal as *mut BatchState)
}

/// Appends a resumption and republishes `resumed` (it may have moved).
///
/// # Safety
/// `b` is a live batch; owner thread.
pub(super) unsafe fn push_resume(b: *mut OnityBatch, r: OnityResume) {
    let st = state(b);
    st.outstanding = st.outstanding.saturating_sub(1);
    st.resumed.push(r);
    (*b).resumed = st.resumed.as_ptr();
    (*b).resumed_count = st.resumed.len() as u32;
}

/// The callback every batch wait and watched task completes through.
pub(super) unsafe extern "C" fn batch_emit(user: *mut c_void, id: u64, state: u32) {
    push_resume(user as *mut OnityBatch, OnityResume { id, state, status: 0 });
}

/// Hands the batch's pending records to the core (which files them with
/// the frame current now).
///
/// # Safety
/// `b` is a live batch of `r`; owner thread.
pub(super) unsafe fn file(r: &RuntimeObject, b: *mut OnityBatch) -> Result<(), OnityStatus> {
    file_first(r, b, usize::MAX, usize::MAX)
}

/// Files the batch's first `fast_max` fast records and first `requests_max`
/// requests (the deferred frame's split, `deferred.rs`); the later ones stay
/// pending, moved to the front of their buffers.
///
/// # Safety
/// `b` is a live batch of `r`; owner thread.
pub(super) unsafe fn file_first(
    r: &RuntimeObject,
    b: *mut OnityBatch,
    fast_max: usize,
    requests_max: usize,
) -> Result<(), OnityStatus> {
    // Frames waiting in the ring (inside a tick): the bound batch's records
    // after the first one are left for it.
    let held = filable_now(r, b);
    let (fast_max, requests_max) =
        held.map_or((fast_max, requests_max), |(f, q)| (fast_max.min(f), requests_max.min(q)));
    let st = state(b);
    let (records, fast_records, capacity, lane) = (st.records, st.fast_records, st.capacity, st.lane);
    // The buffers and their lengths come from the runtime's own state, not
    // from the host-writable `submit` / `fast_submit` / capacity fields; a
    // count above the capacity is read as the capacity.
    let nf_all = ((*b).fast_count as usize).min(capacity);
    let n_all = ((*b).submit_count as usize).min(capacity);
    let (nf, n) = (nf_all.min(fast_max), n_all.min(requests_max));
    if nf != 0 {
        (*b).fast_count = (nf_all - nf) as u32;
    }
    if n != 0 {
        (*b).submit_count = (n_all - n) as u32;
    }
    if nf == 0 && n == 0 {
        return Ok(());
    }
    // SAFETY: both buffers hold `capacity` initialised records; the host
    // writes them only between calls (owner thread).
    let fast = std::slice::from_raw_parts(fast_records as *const u64, nf);
    let requests = std::slice::from_raw_parts(records as *const OnityBatchRecord, n);
    // Room for every request's resumption (see `outstanding`).
    let st = state(b);
    if n != 0 && st.resumed.try_reserve(st.outstanding + n).is_err() {
        (*b).fast_count = nf_all as u32;
        (*b).submit_count = n_all as u32;
        return Err(OnityStatus::OutOfMemory);
    }
    st.outstanding += n;
    let reject =
        |id, e| push_resume(b, OnityResume { id, state: OnityTaskState::Faulted as u32, status: status_code(e) });
    // Owner thread (the caller checked): fails only when the fast records
    // cannot be stored (nothing filed): they stay pending, for a later call.
    if let Err((e, k)) = r.rt.file_lane(lane, fast, requests.iter().map(|&q| q.into()), reject) {
        // The records not filed stay pending, first in the buffers.
        state(b).outstanding -= n;
        std::ptr::copy(fast_records.add(k), fast_records, nf_all - k);
        (*b).fast_count = (nf_all - k) as u32;
        (*b).submit_count = n_all as u32;
        if held.is_some() {
            filed_before_frames(r, (k, nf_all), (0, n_all));
        }
        return Err(e.into());
    }
    // The records after the split move to the front (filed ones were
    // copied out above).
    if nf < nf_all {
        std::ptr::copy(fast_records.add(nf), fast_records, nf_all - nf);
    }
    if n < n_all {
        std::ptr::copy(records.add(n), records, n_all - n);
    }
    if held.is_some() {
        filed_before_frames(r, (nf, nf_all), (n, n_all));
    }
    Ok(())
}

/// Files every batch's pending records, on the owner thread (elsewhere the
/// call that follows fails with `WRONG_THREAD` and nothing is touched).
pub(crate) fn file_all(r: &RuntimeObject) {
    if r.rt.is_owner_thread() {
        file_all_but(r, std::ptr::null_mut());
    }
}

/// Files the pending records of every batch but `skip` (null: none
/// skipped). Owner thread.
pub(super) fn file_all_but(r: &RuntimeObject, skip: *mut OnityBatch) {
    // SAFETY: owner thread. Filing runs no host code (rejections only
    // append resumptions), so the list cannot change while we walk it.
    for &b in unsafe { r.batches() }.iter() {
        if b != skip {
            // SAFETY: listed batches are live. A batch whose fast records
            // cannot be stored keeps them pending (flush reports it).
            let _ = unsafe { file(r, b) };
        }
    }
}

/// Drops the resumptions the host reported as processed.
///
/// # Safety
/// `b` is a live batch; owner thread.
pub(super) unsafe fn compact(b: *mut OnityBatch) {
    let st = state(b);
    let consumed = ((*b).resumed_consumed as usize).min(st.resumed.len());
    if consumed == st.resumed.len() {
        st.resumed.clear();
    } else {
        st.resumed.drain(..consumed);
    }
    (*b).resumed_consumed = 0;
    (*b).resumed = st.resumed.as_ptr();
    (*b).resumed_count = st.resumed.len() as u32;
    // The fast report is left alone: only a successful onity_batch_tick
    // replaces it (a drain or a rejected nested tick from inside a
    // continuation must not drop ids the host has not read yet).
}

/// Frees a batch allocated by `onity_batch_create`.
///
/// # Safety
/// `b` came from `Box::into_raw` in `onity_batch_create` and is freed once.
pub(crate) unsafe fn free(b: *mut OnityBatch) {
    let bb = Box::from_raw(b);
    drop(Box::from_raw(bb.internal as *mut BatchState));
}

/// The runtime and a live batch of it, on the owner thread: `NullPointer`,
/// `InvalidRuntime`, `WrongThread`, or `InvalidHandle` (not a live batch of
/// this runtime).
pub(super) fn lookup<'a>(runtime: *mut OnityRuntime, b: *mut OnityBatch) -> Result<&'a RuntimeObject, OnityStatus> {
    // SAFETY: documented contract of the runtime pointer.
    let r = unsafe { runtime_ref(runtime) }?;
    if b.is_null() {
        return Err(OnityStatus::NullPointer);
    }
    if !r.rt.is_owner_thread() {
        return Err(OnityStatus::WrongThread);
    }
    // SAFETY: owner thread.
    if unsafe { r.batches() }.contains(&b) {
        Ok(r)
    } else {
        Err(OnityStatus::InvalidHandle)
    }
}

/// The bound batch's records that may be filed now, with the current frame,
/// when frames wait in the ring (inside a tick, see [`apply`]): those
/// written before the first waiting frame, entry 0's splits (fast,
/// requests). `None` for another batch, or no waiting frame (filing then
/// comes after the ring was applied, or is part of applying it).
pub(super) fn filable_now(r: &RuntimeObject, b: *mut OnityBatch) -> Option<(usize, usize)> {
    if r.deferred_pending().load(Ordering::Relaxed) == 0 || r.deferred_batch().get() != b {
        return None;
    }
    // SAFETY: owner thread (the filing caller checked); entry 0.
    let e = unsafe { &*r.deferred() };
    Some((e.fast_split as usize, e.submit_split as usize))
}

/// The bound batch's first `fast` / `requests` records (of `fast_all` /
/// `requests_all`) were filed while frames wait (after [`filable_now`]):
/// the rest moved to the front of the buffers, so every waiting frame's
/// splits (read as at most the count, as when applied) move down with them.
pub(super) fn filed_before_frames(
    r: &RuntimeObject,
    (fast, fast_all): (usize, usize),
    (requests, requests_all): (usize, usize),
) {
    let ring = r.deferred();
    let n = (r.deferred_pending().load(Ordering::Relaxed) as usize).min(ONITY_FRAME_RING_CAPACITY as usize);
    let moved = |split: u32, filed: usize, all: usize| (split as usize).min(all).saturating_sub(filed) as u32;
    for i in 0..n {
        // SAFETY: owner thread, between the host's writes; `i` < the ring's length.
        let e = unsafe { &mut *ring.add(i) };
        e.fast_split = moved(e.fast_split, fast, fast_all);
        e.submit_split = moved(e.submit_split, requests, requests_all);
    }
}
