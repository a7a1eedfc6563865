//! Tasks: manual completion sources, state, consumption, continuations.
//!
//! A task handle is a 64-bit generational handle (0 is never valid). A task
//! is live from creation until it is consumed; consuming it retires the
//! handle, after which every use gets `ONITY_STATUS_STALE_HANDLE`.

use std::ffi::c_void;

use super::runtime::{rt, OnityRuntime};
use super::status::OnityStatus;
use super::types::*;
use crate::core::TaskState;

/// Creates a manual completion source (a pending task) and writes its handle
/// to `*out_task`. Owner thread. Consume it once it has completed.
/// Errors: `NULL_POINTER`, `WRONG_THREAD`, `EXHAUSTED` (4M live tasks),
/// `REENTRANT` (runtime being destroyed).
#[no_mangle]
pub extern "C" fn onity_task_create(runtime: *mut OnityRuntime, out_task: *mut u64) -> OnityStatus {
    crate::ffi_guard!({
        let rt = rt!(runtime);
        crate::check_ptr!(out_task);
        let h = crate::tri!(rt.create_task());
        // SAFETY: checked non-null.
        unsafe { *out_task = h };
        OnityStatus::Ok
    })
}

/// Creates a task that has already succeeded with `value` (like UniTask's
/// `FromResult`), for functions that may finish synchronously. Consume it as
/// any task. Owner thread. Errors: `NULL_POINTER`, `WRONG_THREAD`,
/// `EXHAUSTED`, `REENTRANT`.
#[no_mangle]
pub extern "C" fn onity_task_from_result(runtime: *mut OnityRuntime, value: u64, out_task: *mut u64) -> OnityStatus {
    crate::ffi_guard!({
        let rt = rt!(runtime);
        crate::check_ptr!(out_task);
        let h = crate::tri!(rt.create_completed(TaskState::Succeeded, value, 0));
        // SAFETY: checked non-null.
        unsafe { *out_task = h };
        OnityStatus::Ok
    })
}

/// Completes a manual task with a result. Any thread. The first completion
/// wins. On the owner thread the continuation runs before this returns; on
/// another thread it runs at the owner's next tick or drain.
/// Errors: `INVALID_HANDLE` (also: not a manual source, whatever its state),
/// `STALE_HANDLE`, `FOREIGN_HANDLE`, `ALREADY_COMPLETED`.
#[no_mangle]
pub extern "C" fn onity_task_set_result(runtime: *mut OnityRuntime, task: u64, value: u64) -> OnityStatus {
    crate::ffi_guard!({
        let rt = rt!(runtime);
        crate::tri!(rt.complete(task, TaskState::Succeeded, value, 0, true));
        OnityStatus::Ok
    })
}

/// Completes a manual task with an error code. Any thread. Same rules as
/// `onity_task_set_result`.
#[no_mangle]
pub extern "C" fn onity_task_set_error(runtime: *mut OnityRuntime, task: u64, error: i32) -> OnityStatus {
    crate::ffi_guard!({
        let rt = rt!(runtime);
        crate::tri!(rt.complete(task, TaskState::Faulted, 0, error, true));
        OnityStatus::Ok
    })
}

/// Completes any pending task (manual, wait or combinator output) as
/// canceled. Manual sources: any thread. Wait and combinator tasks: owner
/// thread only (`WRONG_THREAD` elsewhere; from other threads cancel them
/// through a cancellation token), which keeps their completion free of
/// atomic read-modify-writes. A canceled wait's record is dropped when it
/// would have been due. Errors: `INVALID_HANDLE`, `STALE_HANDLE`,
/// `FOREIGN_HANDLE`, `ALREADY_COMPLETED`, `WRONG_THREAD`.
#[no_mangle]
pub extern "C" fn onity_task_cancel(runtime: *mut OnityRuntime, task: u64) -> OnityStatus {
    crate::ffi_guard!({
        let rt = rt!(runtime);
        crate::tri!(rt.complete(task, TaskState::Canceled, 0, 0, false));
        OnityStatus::Ok
    })
}

/// Writes the task's `OnityTaskState` to `*out_state`. Any thread. A task
/// completed on another thread reads as completed at once, before its
/// continuation has run. Errors: `NULL_POINTER`, `INVALID_HANDLE`,
/// `STALE_HANDLE` (consumed), `FOREIGN_HANDLE`.
#[no_mangle]
pub extern "C" fn onity_task_state(runtime: *mut OnityRuntime, task: u64, out_state: *mut u32) -> OnityStatus {
    crate::ffi_guard!({
        let rt = rt!(runtime);
        crate::check_ptr!(out_state);
        let s = crate::tri!(rt.task_state(task));
        // SAFETY: checked non-null.
        unsafe { *out_state = s as u32 };
        OnityStatus::Ok
    })
}

/// Consumes a completed task: writes its outcome to `*out_outcome` (which may
/// be null to discard it) and retires the handle. Exactly once per task.
/// Owner thread. Errors: `TASK_PENDING`, `STALE_HANDLE` (already consumed),
/// `ALREADY_AWAITED` (owned by a WhenAny/WhenAll, which consumes it, or by a
/// continuation registered with `onity_task_on_complete` that has not run
/// yet: it runs at the owner's next drain or tick and may consume it then),
/// `INVALID_HANDLE`, `FOREIGN_HANDLE`, `WRONG_THREAD`.
#[no_mangle]
pub extern "C" fn onity_task_consume(
    runtime: *mut OnityRuntime,
    task: u64,
    out_outcome: *mut OnityOutcome,
) -> OnityStatus {
    crate::ffi_guard!({
        let rt = rt!(runtime);
        let o = crate::tri!(rt.consume(task));
        if !out_outcome.is_null() {
            // SAFETY: non-null, provided by the caller.
            unsafe { out_outcome.write(o.into()) };
        }
        OnityStatus::Ok
    })
}

/// Registers the task's one continuation. Owner thread. It runs on the owner
/// thread once the task completes: inline when completed on the owner thread,
/// at the next tick or drain when completed elsewhere, and immediately (before
/// this returns) if the task has already completed (on any thread). The continuation usually
/// consumes the task. Errors: `NULL_POINTER` (callback), `ALREADY_AWAITED`
/// (a continuation exists or a combinator owns the task), `INVALID_HANDLE`,
/// `STALE_HANDLE`, `FOREIGN_HANDLE`, `WRONG_THREAD`.
#[no_mangle]
pub extern "C" fn onity_task_on_complete(
    runtime: *mut OnityRuntime,
    task: u64,
    callback: OnityCallback,
    user: *mut c_void,
) -> OnityStatus {
    crate::ffi_guard!({
        let rt = rt!(runtime);
        let Some(f) = callback else { return OnityStatus::NullPointer };
        crate::tri!(rt.on_complete(task, f, user));
        OnityStatus::Ok
    })
}
