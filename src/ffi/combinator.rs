//! WhenAny and WhenAll over task handles.
//!
//! Both take ownership of their inputs: from the call on, the inputs are
//! consumed by the combinator as they complete (losers included), and
//! consuming or awaiting them yourself fails with `ALREADY_AWAITED`.
//! Coordinators are pooled in buckets: up to 16 inputs (256 kept), up to 32
//! (128 kept), larger ones are never pooled.

use super::deferred::core_at_frame;
use super::error::Out;
use super::object::{core_of, OnityRuntime};
use super::status::OnityStatus;
use super::types::{OnityOutcome, ONITY_MAX_COMBINATOR_INPUTS};
use crate::core::Runtime;

/// WhenAny and WhenAll: checks and converts, then `make`s the combinator.
/// `AT_FRAME`: the `_at` forms, which record the creation frame (a deferred
/// frame is applied first, `deferred.rs`).
pub(super) fn combine<const AT_FRAME: bool>(
    runtime: *mut OnityRuntime,
    tasks: *const u64,
    count: u32,
    token: u64,
    out_task: *mut u64,
    make: impl FnOnce(&Runtime, &[u64], u64) -> crate::core::Result<u64>,
) -> Result<(), OnityStatus> {
    let rt = if AT_FRAME { core_at_frame(runtime)? } else { core_of(runtime)? };
    let out = Out::new(out_task)?;
    out.set(make(rt, inputs(tasks, count)?, token)?)
}

/// The inputs of a combinator as a slice, checked by [`array`] before a
/// slice of a bad length is ever made.
fn inputs<'a>(tasks: *const u64, count: u32) -> Result<&'a [u64], OnityStatus> {
    let n = array(tasks, count)?;
    // SAFETY: non-null; the caller provides `count` readable handles.
    Ok(unsafe { std::slice::from_raw_parts(tasks, n) })
}

/// A combinator's array (its inputs, a WhenAll's outcomes) and its length:
/// `NullPointer`, or `CountOutOfRange` (0 or more than
/// `ONITY_MAX_COMBINATOR_INPUTS`).
#[inline(always)]
fn array<T>(p: *const T, count: u32) -> Result<usize, OnityStatus> {
    if p.is_null() {
        return Err(OnityStatus::NullPointer);
    }
    if count == 0 || count > ONITY_MAX_COMBINATOR_INPUTS {
        return Err(OnityStatus::CountOutOfRange);
    }
    Ok(count as usize)
}

/// WhenAny: writes to `*out_task` a task that completes like the first input
/// to complete (succeeded, faulted or canceled, with its value or error);
/// its outcome's `index` is the winner's position. If inputs have already
/// completed (including on other threads, not yet drained), the first of
/// them in array order wins at once. With a token,
/// it completes canceled (index `UINT32_MAX`) if the token is canceled first.
/// An input canceled with `onity_task_cancel` is an input that completed
/// canceled: if it is the first, the WhenAny completes canceled with `index`
/// = its position. Each input is consumed by the combinator when it
/// completes: from then on its handle is `STALE_HANDLE` everywhere (a second
/// `set_result` too). Pending inputs can still be completed, canceled and
/// read with `onity_task_state`. Owner thread. Errors: `NULL_POINTER`, `COUNT_OUT_OF_RANGE` (0 or more than
/// `ONITY_MAX_COMBINATOR_INPUTS`), `DUPLICATE_INPUT`, `ALREADY_AWAITED` (an
/// input has a continuation or belongs to another combinator), handle errors
/// for inputs and token, `WRONG_THREAD`, `REENTRANT`, `EXHAUSTED`,
/// `OUT_OF_MEMORY`. On error nothing changes.
#[no_mangle]
pub extern "C" fn onity_when_any(
    runtime: *mut OnityRuntime,
    tasks: *const u64,
    count: u32,
    token: u64,
    out_task: *mut u64,
) -> OnityStatus {
    crate::ffi!({ combine::<false>(runtime, tasks, count, token, out_task, Runtime::when_any) })
}

/// WhenAll: writes to `*out_task` a task that completes once every input has.
/// It succeeds with value = `count` when all succeeded; otherwise it takes the
/// state and error of the first input (in completion order; inputs already
/// complete when the WhenAll is made count in array order) that faulted or
/// was canceled, with `index` = that input. Read every input's outcome with
/// `onity_when_all_results` before consuming it. Owner thread; the inputs
/// belong to the WhenAll from the call on, and are consumed (retired) as they
/// complete, as for `onity_when_any`. Token and errors as `onity_when_any`.
#[no_mangle]
pub extern "C" fn onity_when_all(
    runtime: *mut OnityRuntime,
    tasks: *const u64,
    count: u32,
    token: u64,
    out_task: *mut u64,
) -> OnityStatus {
    crate::ffi!({ combine::<false>(runtime, tasks, count, token, out_task, Runtime::when_all) })
}

/// Copies the outcome of each input of a completed, not yet consumed WhenAll
/// task into `out_outcomes` (`count` must equal the input count). Inputs
/// still pending (the WhenAll was canceled) read as `ONITY_TASK_STATE_PENDING`.
/// Owner thread. Errors: `NULL_POINTER`, `TASK_PENDING`, `COUNT_OUT_OF_RANGE`,
/// `INVALID_HANDLE` (not a WhenAll task), `STALE_HANDLE`, `WRONG_THREAD`.
#[no_mangle]
pub extern "C" fn onity_when_all_results(
    runtime: *mut OnityRuntime,
    task: u64,
    out_outcomes: *mut OnityOutcome,
    count: u32,
) -> OnityStatus {
    crate::ffi!({
        let rt = core_of(runtime)?;
        rt.when_all_results_with(task, array(out_outcomes, count)?, |outcomes| {
            // SAFETY: non-null, the caller provides `count` writable outcomes
            // (`outcomes` has `count` entries); the layouts are the same
            // (asserted in types.rs) and a core state is a valid u32.
            unsafe {
                std::ptr::copy_nonoverlapping(outcomes.as_ptr() as *const OnityOutcome, out_outcomes, outcomes.len())
            };
        })?;
        Ok(())
    })
}
