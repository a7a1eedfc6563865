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

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::ffi::c_void;

use super::runtime::{timing, OnityRuntime};
use super::status::OnityStatus;
use super::types::OnityTaskState;
use crate::core::{self, Clock, WaitKind, WaitTarget};

/// Record kinds of `OnityBatchRecord::kind`: the four `OnityWaitKind`
/// values, plus `ONITY_BATCH_TASK` (resume when the task in `arg` completes).
pub const ONITY_BATCH_TASK: u8 = 4;

/// One wait request written by the host into `OnityBatch::submit`. 32 bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct OnityBatchRecord {
    /// The host's id for the continuation; reported back in `OnityResume`.
    pub id: u64,
    /// Cancellation token (0 for none).
    pub token: u64,
    /// DelayFrame: the frame count (at most `UINT32_MAX`, else the record is
    /// rejected with `COUNT_OUT_OF_RANGE`). Delay: the seconds as IEEE-754
    /// double bits. `ONITY_BATCH_TASK`: the task handle. Otherwise ignored
    /// (write 0).
    pub arg: u64,
    /// An `OnityWaitKind` value, or `ONITY_BATCH_TASK`.
    pub kind: u8,
    /// An `OnityTiming` value (ignored for `ONITY_BATCH_TASK`).
    pub timing: u8,
    /// An `OnityClock` value. Only Delay uses it, but every wait kind checks
    /// it (write 0 when unused); ignored for `ONITY_BATCH_TASK`.
    pub clock: u8,
    pub reserved: [u8; 5],
}

/// One resumption reported to the host. 16 bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OnityResume {
    /// The record's id.
    pub id: u64,
    /// `OnityTaskState`: SUCCEEDED (due), CANCELED (token canceled or runtime
    /// destroyed), FAULTED (record rejected; see `status`). For
    /// `ONITY_BATCH_TASK` the task's own final state (consume the task).
    pub state: u32,
    /// `ONITY_STATUS_OK`, or why the record was rejected (bad timing, stale
    /// token, task already awaited, ...). A rejected `ONITY_BATCH_TASK`
    /// record leaves its task with the host, which still has to consume it.
    pub status: u32,
}

/// A batch. Allocated by `onity_batch_create`; the host reads and writes the
/// public fields directly, on the owner thread, between calls.
#[repr(C)]
#[derive(Debug)]
pub struct OnityBatch {
    /// `sizeof(OnityBatch)`.
    pub size: u32,
    /// Capacity of `submit` in records (fixed at creation).
    pub submit_capacity: u32,
    /// Where the host writes records. Call `onity_batch_flush` when full.
    pub submit: *mut OnityBatchRecord,
    /// Number of records written and not yet filed. The host increments it;
    /// the runtime resets it to 0 when it files them. A count above the
    /// capacity is read as the capacity (the runtime never reads past its
    /// buffer; records written past it were never in it).
    pub submit_count: u32,
    /// Resumptions the host has processed (it sets this, typically to
    /// `resumed_count`); dropped by the next `onity_batch_tick` or
    /// `onity_batch_drain` (also one that then fails on its arguments), not
    /// by `onity_batch_flush`.
    pub resumed_consumed: u32,
    /// Resumptions. Any call on this runtime may append to it and move it
    /// (re-read the pointer after every call, including calls made from a
    /// continuation); only `onity_batch_tick` and `onity_batch_drain` drop
    /// entries, and only the `resumed_consumed` first ones.
    pub resumed: *const OnityResume,
    /// Number of entries in `resumed`.
    pub resumed_count: u32,
    pub reserved: u32,
    /// Runtime-private state.
    pub internal: *mut c_void,
    /// ABI 1.1. Fast-lane records (`u64` each, see
    /// [`onity_batch_fast_record`]), written by the host like `submit`.
    pub fast_submit: *mut u64,
    /// Capacity of `fast_submit` in records (equal to `submit_capacity`).
    /// Call `onity_batch_flush` when full.
    pub fast_capacity: u32,
    /// Number of fast records written and not yet filed (the host
    /// increments it; the runtime resets it to 0 when it files them). A
    /// count above the capacity is read as the capacity.
    pub fast_count: u32,
    /// Ids of the fast-lane waits found due by the last successful
    /// `onity_batch_tick` of this batch, in this order: Yields (in the order
    /// they were filed), then NextFrame waits, then DelayFrame waits (each by
    /// due frame, then filing order). Read it after `onity_batch_tick`
    /// returns OK; it stays valid (and unchanged) until the next successful
    /// `onity_batch_tick` of this batch: drains, flushes, failed ticks and
    /// any other call leave it alone.
    pub fast_resumed: *const u32,
    /// Number of ids in `fast_resumed`.
    pub fast_resumed_count: u32,
    pub reserved2: u32,
}

/// One timing's fast-lane waits of one batch.
#[derive(Default)]
struct Lane {
    /// Yields: due at the next run of the timing.
    yields: Vec<u32>,
    /// NextFrame waits in filing order...
    next_ids: Vec<u32>,
    /// ...as runs of (due frame, count); due frames increase.
    next_runs: VecDeque<(u64, usize)>,
    /// DelayFrame(n > 1) waits: (due frame, filing sequence, id).
    later: BinaryHeap<Reverse<(u64, u64, u32)>>,
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

/// Appends `src` to `dst`, by swapping the buffers when `dst` is empty.
fn append_ids(dst: &mut Vec<u32>, src: &mut Vec<u32>) {
    if dst.is_empty() {
        std::mem::swap(dst, src);
    } else {
        dst.extend_from_slice(src);
        src.clear();
    }
}

pub(crate) struct BatchState {
    /// The host's record buffers, shared with it through `submit` and
    /// `fast_submit`: raw allocations of `capacity` records each (freed by
    /// `Drop`), always read through these pointers, never through the
    /// host-writable fields.
    records: *mut OnityBatchRecord,
    fast_records: *mut u64,
    capacity: usize,
    resumed: Vec<OnityResume>,
    lanes: Vec<Lane>,
    fast_out: Vec<u32>,
    fast_pending: u64,
    seq: u64,
}

/// Bits of a fast-lane record's delay field.
const FAST_DELAY_BITS: u32 = 28;

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
    crate::ffi_guard!({
        crate::check_ptr!(out_record);
        if timing >= 16 {
            return OnityStatus::InvalidArgument;
        }
        if delay_frames >= 1 << FAST_DELAY_BITS {
            return OnityStatus::CountOutOfRange;
        }
        // SAFETY: checked non-null.
        unsafe { *out_record = id as u64 | (timing as u64) << 32 | (delay_frames as u64) << 36 };
        OnityStatus::Ok
    })
}

/// Files the pending fast-lane records of one batch.
///
/// # Safety
/// `b` is a live batch of `rt`; owner thread.
unsafe fn file_fast(rt: &core::Runtime, b: *mut OnityBatch) {
    let bb = &mut *b;
    let st = &mut *(bb.internal as *mut BatchState);
    // The buffer and its length come from the runtime's own state, not from
    // the host-writable `fast_submit` / `fast_capacity` fields.
    let n = (bb.fast_count as usize).min(st.capacity);
    if n == 0 {
        return;
    }
    bb.fast_count = 0;
    let fnum = rt.frame_counter();
    // SAFETY: `fast_records` holds `capacity` initialised records; the host
    // writes them only between calls (owner thread).
    let recs = std::slice::from_raw_parts(st.fast_records as *const u64, n);
    st.fast_pending += n as u64;
    let (mut yields, mut nexts, mut laters) = (0u64, 0u64, 0u64);
    // Records come in runs with the same timing and delay (a loop of awaits): file a run at once.
    let mut i = 0;
    while i < n {
        let hi = recs[i] >> 32;
        let mut j = i + 1;
        while j < n && recs[j] >> 32 == hi {
            j += 1;
        }
        let run = &recs[i..j];
        let lane = &mut st.lanes[(hi & 0xF) as usize];
        match hi >> 4 {
            0 => {
                yields += run.len() as u64;
                lane.yields.extend(run.iter().map(|&r| r as u32));
            }
            1 => {
                nexts += run.len() as u64;
                lane.next_ids.extend(run.iter().map(|&r| r as u32));
                let due_frame = fnum.saturating_add(1);
                match lane.next_runs.back_mut() {
                    Some((due, count)) if *due == due_frame => *count += run.len(),
                    _ => lane.next_runs.push_back((due_frame, run.len())),
                }
            }
            delay => {
                laters += run.len() as u64;
                for &r in run {
                    st.seq += 1;
                    lane.later.push(Reverse((fnum.saturating_add(delay), st.seq, r as u32)));
                }
            }
        }
        i = j;
    }
    rt.count_external_waits(WaitKind::Yield, yields, 0, 0);
    rt.count_external_waits(WaitKind::NextFrame, nexts, 0, 0);
    rt.count_external_waits(WaitKind::DelayFrame, laters, 0, 0);
}

/// Moves the fast-lane waits of `timing` that are due into `fast_resumed`.
///
/// # Safety
/// `b` is a live batch of `rt`; owner thread.
unsafe fn run_fast(rt: &core::Runtime, b: *mut OnityBatch, timing: usize) {
    let bb = &mut *b;
    let st = &mut *(bb.internal as *mut BatchState);
    st.fast_out.clear();
    if st.fast_pending != 0 {
        let fnum = rt.frame_counter();
        let lane = &mut st.lanes[timing];
        append_ids(&mut st.fast_out, &mut lane.yields);
        let yields = st.fast_out.len() as u64;
        let mut due_n = 0usize;
        while let Some(&(due, count)) = lane.next_runs.front() {
            if due > fnum {
                break;
            }
            due_n += count;
            lane.next_runs.pop_front();
        }
        if due_n == lane.next_ids.len() {
            append_ids(&mut st.fast_out, &mut lane.next_ids);
        } else if due_n > 0 {
            st.fast_out.extend_from_slice(&lane.next_ids[..due_n]);
            lane.next_ids.drain(..due_n);
        }
        let nexts = st.fast_out.len() as u64 - yields;
        while let Some(&Reverse((due, _, id))) = lane.later.peek() {
            if due > fnum {
                break;
            }
            st.fast_out.push(id);
            lane.later.pop();
        }
        let total = st.fast_out.len() as u64;
        st.fast_pending -= total;
        rt.count_external_waits(WaitKind::Yield, 0, yields, 0);
        rt.count_external_waits(WaitKind::NextFrame, 0, nexts, 0);
        rt.count_external_waits(WaitKind::DelayFrame, 0, total - yields - nexts, 0);
    }
    bb.fast_resumed = st.fast_out.as_ptr();
    bb.fast_resumed_count = st.fast_out.len() as u32;
}

/// The callback every batch wait completes through: appends a resumption.
unsafe extern "C" fn batch_emit(user: *mut c_void, id: u64, state: u32) {
    let b = &mut *(user as *mut OnityBatch);
    let st = &mut *(b.internal as *mut BatchState);
    st.resumed.push(OnityResume { id, state, status: 0 });
    b.resumed = st.resumed.as_ptr();
    b.resumed_count = st.resumed.len() as u32;
}

unsafe fn reject(b: *mut OnityBatch, id: u64, status: OnityStatus) {
    let bb = &mut *b;
    let st = &mut *(bb.internal as *mut BatchState);
    st.resumed.push(OnityResume { id, state: OnityTaskState::Faulted as u32, status: status as u32 });
    bb.resumed = st.resumed.as_ptr();
    bb.resumed_count = st.resumed.len() as u32;
}

/// Moves the due frames of the batch's fast-lane NextFrame and DelayFrame
/// waits `by` frames later (waits filed before the first frame).
///
/// # Safety
/// `b` is a live batch of the runtime; owner thread, outside any call that
/// walks its lanes.
pub(crate) unsafe fn rebase_fast(b: *mut OnityBatch, by: u64) {
    let st = &mut *((*b).internal as *mut BatchState);
    for lane in st.lanes.iter_mut() {
        for run in lane.next_runs.iter_mut() {
            run.0 = run.0.saturating_add(by);
        }
        if !lane.later.is_empty() {
            let later = std::mem::take(&mut lane.later);
            lane.later =
                later.into_iter().map(|Reverse((due, seq, id))| Reverse((due.saturating_add(by), seq, id))).collect();
        }
    }
}

/// Files the pending records of one batch.
///
/// # Safety
/// `b` is a live batch of `rt`; owner thread.
pub(crate) unsafe fn file(rt: &core::Runtime, b: *mut OnityBatch) {
    file_fast(rt, b);
    let st = &*((*b).internal as *const BatchState);
    let n = ((*b).submit_count as usize).min(st.capacity);
    if n == 0 {
        return;
    }
    (*b).submit_count = 0;
    let recs = st.records as *const OnityBatchRecord;
    for i in 0..n {
        let r = *recs.add(i);
        let res = if r.kind == ONITY_BATCH_TASK {
            rt.on_complete_with_arg(r.arg, batch_emit, b as *mut c_void, r.id).map_err(OnityStatus::from)
        } else {
            let kind = match r.kind {
                0 => Some(WaitKind::Yield),
                1 => Some(WaitKind::NextFrame),
                2 => Some(WaitKind::DelayFrame),
                3 => Some(WaitKind::Delay),
                _ => None,
            };
            match (kind, timing(r.timing as u32), Clock::from_u32(r.clock as u32)) {
                // `onity_delay_frame` takes a u32 count: a larger one is refused, not clamped.
                (Some(WaitKind::DelayFrame), Ok(_), Some(_)) if r.arg > u32::MAX as u64 => {
                    Err(OnityStatus::CountOutOfRange)
                }
                (Some(k), Ok(t), Some(c)) => {
                    let frames = if k == WaitKind::DelayFrame { r.arg as u32 } else { 0 };
                    let seconds = if k == WaitKind::Delay { f64::from_bits(r.arg) } else { 0.0 };
                    rt.wait(k, t, frames, seconds, c, r.token, WaitTarget::Callback(batch_emit, b as *mut c_void, r.id))
                        .map(|_| ())
                        .map_err(OnityStatus::from)
                }
                _ => Err(OnityStatus::InvalidArgument),
            }
        };
        if let Err(s) = res {
            reject(b, r.id, s);
        }
    }
}

/// Drops the batch's fast-lane waits (the batch is going away), counting
/// them as canceled.
///
/// # Safety
/// `b` is a live batch of `rt`; owner thread.
unsafe fn cancel_fast(rt: &core::Runtime, b: *mut OnityBatch) {
    let bb = &mut *b;
    bb.fast_count = 0;
    let st = &mut *(bb.internal as *mut BatchState);
    let (mut y, mut n, mut l) = (0u64, 0u64, 0u64);
    for lane in st.lanes.iter_mut() {
        y += lane.yields.len() as u64;
        n += lane.next_ids.len() as u64;
        l += lane.later.len() as u64;
        *lane = Lane::default();
    }
    st.fast_pending = 0;
    rt.count_external_waits(WaitKind::Yield, 0, 0, y);
    rt.count_external_waits(WaitKind::NextFrame, 0, 0, n);
    rt.count_external_waits(WaitKind::DelayFrame, 0, 0, l);
}

/// Drops the resumptions the host reported as processed.
unsafe fn compact(b: *mut OnityBatch) {
    let bb = &mut *b;
    let st = &mut *(bb.internal as *mut BatchState);
    let consumed = (bb.resumed_consumed as usize).min(st.resumed.len());
    if consumed == st.resumed.len() {
        st.resumed.clear();
    } else {
        st.resumed.drain(..consumed);
    }
    bb.resumed_consumed = 0;
    bb.resumed = st.resumed.as_ptr();
    bb.resumed_count = st.resumed.len() as u32;
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

/// Validates the runtime pointer, the owner thread and that `b` is a live
/// batch of this runtime, or returns the status to report.
fn lookup<'a>(
    runtime: *mut OnityRuntime,
    b: *mut OnityBatch,
) -> Result<(&'a OnityRuntime, *mut OnityBatch), OnityStatus> {
    // SAFETY: documented contract of the runtime pointer.
    let r = unsafe { super::runtime::runtime_ref(runtime) }?;
    if b.is_null() {
        return Err(OnityStatus::NullPointer);
    }
    if !r.rt.is_owner_thread() {
        return Err(OnityStatus::WrongThread);
    }
    // SAFETY: owner thread.
    if unsafe { r.batches() }.contains(&b) {
        Ok((r, b))
    } else {
        Err(OnityStatus::InvalidHandle)
    }
}

/// `let (r, b) = batch!(runtime, batch);` inside an `ffi_guard!` body.
macro_rules! batch {
    ($rt:expr, $b:expr) => {
        match lookup($rt, $b) {
            Ok(rb) => rb,
            Err(s) => return s,
        }
    };
}

/// Creates a batch with room for `submit_capacity` records (1 to 1,048,576)
/// and writes it to `*out_batch`. It lives until `onity_batch_destroy` or the
/// runtime's destruction. Owner thread. Errors: `NULL_POINTER`,
/// `COUNT_OUT_OF_RANGE`, `WRONG_THREAD`.
#[no_mangle]
pub extern "C" fn onity_batch_create(
    runtime: *mut OnityRuntime,
    submit_capacity: u32,
    out_batch: *mut *mut OnityBatch,
) -> OnityStatus {
    crate::ffi_guard!({
        // SAFETY: documented contract of the runtime pointer.
        let r = match unsafe { super::runtime::runtime_ref(runtime) } {
            Ok(r) => r,
            Err(s) => return s,
        };
        crate::check_ptr!(out_batch);
        if !r.rt.is_owner_thread() {
            return OnityStatus::WrongThread;
        }
        if submit_capacity == 0 || submit_capacity > 1 << 20 {
            return OnityStatus::CountOutOfRange;
        }
        let zero = OnityBatchRecord { id: 0, token: 0, arg: 0, kind: 0, timing: 0, clock: 0, reserved: [0; 5] };
        let cap = submit_capacity as usize;
        let st = Box::new(BatchState {
            records: Box::into_raw(vec![zero; cap].into_boxed_slice()) as *mut OnityBatchRecord,
            fast_records: Box::into_raw(vec![0u64; cap].into_boxed_slice()) as *mut u64,
            capacity: cap,
            resumed: Vec::with_capacity(1024),
            lanes: (0..16).map(|_| Lane::default()).collect(),
            fast_out: Vec::with_capacity(1024),
            fast_pending: 0,
            seq: 0,
        });
        let fast_submit = st.fast_records;
        let fast_resumed = st.fast_out.as_ptr();
        let b = Box::new(OnityBatch {
            size: std::mem::size_of::<OnityBatch>() as u32,
            submit_capacity,
            submit: st.records,
            submit_count: 0,
            resumed_consumed: 0,
            resumed: st.resumed.as_ptr(),
            resumed_count: 0,
            reserved: 0,
            internal: Box::into_raw(st) as *mut c_void,
            fast_submit,
            fast_capacity: submit_capacity,
            fast_count: 0,
            fast_resumed,
            fast_resumed_count: 0,
            reserved2: 0,
        });
        let p = Box::into_raw(b);
        // SAFETY: owner thread checked above.
        unsafe { r.batches().push(p) };
        // SAFETY: checked non-null.
        unsafe { *out_batch = p };
        OnityStatus::Ok
    })
}

/// Files the batch's pending records now (call it when `submit` is full).
/// Owner thread. Errors: `NULL_POINTER`, `INVALID_HANDLE` (not a live batch
/// of this runtime), `WRONG_THREAD`.
#[no_mangle]
pub extern "C" fn onity_batch_flush(runtime: *mut OnityRuntime, batch: *mut OnityBatch) -> OnityStatus {
    crate::ffi_guard!({
        let (r, b) = batch!(runtime, batch);
        // SAFETY: live batch of this runtime, owner thread.
        unsafe { file(&r.rt, b) };
        OnityStatus::Ok
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
    crate::ffi_guard!({
        let (r, b) = batch!(runtime, batch);
        // SAFETY: live batch, owner thread.
        unsafe { compact(b) };
        let t = match super::runtime::timing(timing) {
            Ok(t) => t,
            Err(s) => return s,
        };
        r.file_batches();
        // The fast lane's due waits are reported before the timing runs
        // (the host resumes them first); a rejected tick reports none.
        if let Err(e) = r.rt.check_tick_allowed() {
            return OnityStatus::from(e);
        }
        // SAFETY: live batch, owner thread.
        unsafe { run_fast(&r.rt, b, t as usize) };
        crate::tri!(r.rt.tick(t));
        OnityStatus::Ok
    })
}

/// Like `onity_batch_tick` without running a timing: files pending records
/// and runs continuations of tasks completed on other threads (as
/// `onity_runtime_drain`), reporting resumptions. Owner thread.
#[no_mangle]
pub extern "C" fn onity_batch_drain(runtime: *mut OnityRuntime, batch: *mut OnityBatch) -> OnityStatus {
    crate::ffi_guard!({
        let (r, b) = batch!(runtime, batch);
        // SAFETY: live batch, owner thread.
        unsafe { compact(b) };
        r.file_batches();
        crate::tri!(r.rt.drain());
        OnityStatus::Ok
    })
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
    crate::ffi_guard!({
        let (r, b) = batch!(runtime, batch);
        crate::tri!(r.rt.forget_callbacks_for(b as *mut c_void));
        // SAFETY: live batch, owner thread.
        unsafe { cancel_fast(&r.rt, b) };
        // SAFETY: owner thread; `b` is in the list (checked by lookup).
        unsafe {
            let list = r.batches();
            list.retain(|&x| x != b);
            free(b);
        }
        OnityStatus::Ok
    })
}

const _: () = assert!(std::mem::size_of::<OnityBatchRecord>() == 32);
const _: () = assert!(std::mem::size_of::<OnityResume>() == 16);
