//! WhenAny and WhenAll over task handles (the exports, plain and `_at`, are
//! generated into `families.g.rs` and call [`combine`]).
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

/// Copies the outcome of each input of a completed, not yet consumed WhenAll
/// task into `out_outcomes` (`count` must equal the input count). Inputs
/// still pending (the WhenAll was canceled) read as `ONITY_TASK_STATE_PENDING`.
/// Owner thread. Errors: `NULL_POINTER`, `TASK_PENDING`, `COUNT_OUT_OF_RANGE`,
/// `INVALID_HANDLE` (not a WhenAll task), `STALE_HANDLE`, `FOREIGN_HANDLE`,
/// `WRONG_THREAD`.
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
