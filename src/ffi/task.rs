//! Tasks: manual completion sources, state, consumption, continuations.
//!
//! A task handle is a 64-bit generational handle (0 is never valid). A task
//! is live from creation until it is consumed; consuming it retires the
//! handle, after which every use gets `ONITY_STATUS_STALE_HANDLE`.

use std::ffi::c_void;

use super::error::Out;
use super::object::{core_of, OnityRuntime};
use super::status::OnityStatus;
use super::types::*;
use crate::core::TaskState;

/// Creates a manual completion source (a pending task) and writes its handle
/// to `*out_task`. Owner thread. Consume it once it has completed.
/// Errors: `NULL_POINTER`, `WRONG_THREAD`, `EXHAUSTED` (4M live tasks),
/// `REENTRANT` (runtime being destroyed), `OUT_OF_MEMORY` (nothing made).
#[no_mangle]
pub extern "C" fn onity_task_create(runtime: *mut OnityRuntime, out_task: *mut u64) -> OnityStatus {
    crate::ffi!({
        let rt = core_of(runtime)?;
        let out = Out::new(out_task)?;
        Ok(rt.create_task_with(move |h| out.put(h))?)
    })
}

/// Creates a task that has already succeeded with `value` (like UniTask's
/// `FromResult`), for functions that may finish synchronously. Consume it as
/// any task. It is not a manual source: `set_result` / `set_error` on it
/// return `INVALID_HANDLE`, `onity_task_cancel` returns `ALREADY_COMPLETED`.
/// Owner thread. Errors: `NULL_POINTER`, `WRONG_THREAD`, `EXHAUSTED`,
/// `OUT_OF_MEMORY`, `REENTRANT`.
#[no_mangle]
pub extern "C" fn onity_task_from_result(runtime: *mut OnityRuntime, value: u64, out_task: *mut u64) -> OnityStatus {
    crate::ffi!({
        let rt = core_of(runtime)?;
        let out = Out::new(out_task)?;
        Ok(rt.create_completed_with(TaskState::Succeeded, value, 0, move |h| out.put(h))?)
    })
}

/// Completes a manual task with a result. Any thread. The first completion
/// wins. On the owner thread the continuation runs before this returns; on
/// another thread it runs at the owner's next tick or drain.
/// Errors: `INVALID_HANDLE` (also: not a manual source, whatever its state),
/// `STALE_HANDLE`, `FOREIGN_HANDLE`, `ALREADY_COMPLETED`.
#[no_mangle]
pub extern "C" fn onity_task_set_result(runtime: *mut OnityRuntime, task: u64, value: u64) -> OnityStatus {
    crate::ffi_host!({ Ok(core_of(runtime)?.complete(task, TaskState::Succeeded, value, 0, true)?) })
}

/// Completes a manual task with an error code. Any thread. Same rules as
/// `onity_task_set_result`; errors as `onity_task_set_result`.
#[no_mangle]
pub extern "C" fn onity_task_set_error(runtime: *mut OnityRuntime, task: u64, error: i32) -> OnityStatus {
    crate::ffi_host!({ Ok(core_of(runtime)?.complete(task, TaskState::Faulted, 0, error, true)?) })
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
    crate::ffi_host!({ Ok(core_of(runtime)?.complete(task, TaskState::Canceled, 0, 0, false)?) })
}

/// Writes the task's `OnityTaskState` to `*out_state`. Any thread. A task
/// completed on another thread reads as completed at once, before its
/// continuation has run. Errors: `NULL_POINTER`, `INVALID_HANDLE`,
/// `STALE_HANDLE` (consumed), `FOREIGN_HANDLE`.
#[no_mangle]
pub extern "C" fn onity_task_state(runtime: *mut OnityRuntime, task: u64, out_state: *mut u32) -> OnityStatus {
    crate::ffi!({
        let rt = core_of(runtime)?;
        let out = Out::new(out_state)?;
        out.set(rt.task_state(task)? as u32)
    })
}

/// Consumes a completed task: writes its outcome to `*out_outcome` (which may
/// be null to discard it) and retires the handle. Exactly once per task.
/// Owner thread. Errors: `TASK_PENDING`, `STALE_HANDLE` (already consumed),
/// `ALREADY_AWAITED` (checked before `TASK_PENDING`; owned by a
/// WhenAny/WhenAll, which consumes it, or by a
/// continuation registered with `onity_task_on_complete` that has not run
/// yet: it runs at the owner's next drain or tick and may consume it then),
/// `INVALID_HANDLE`, `FOREIGN_HANDLE`, `WRONG_THREAD`.
#[no_mangle]
pub extern "C" fn onity_task_consume(
    runtime: *mut OnityRuntime,
    task: u64,
    out_outcome: *mut OnityOutcome,
) -> OnityStatus {
    crate::ffi!({ Ok(core_of(runtime)?.consume_with(task, move |o| Out::put_optional(out_outcome, o.into()))?) })
}

/// Registers the task's one continuation. Owner thread. It runs on the owner
/// thread once the task completes: inline when completed on the owner thread,
/// at the next tick or drain when completed elsewhere, and immediately (before
/// this returns) if the task has already completed (on any thread). The continuation usually
/// consumes the task. A task takes one continuation in its lifetime: once
/// registered (also after it ran), `on_complete` and the combinators return
/// `ALREADY_AWAITED` for it; only `onity_task_consume` remains. Errors: `NULL_POINTER` (callback), `ALREADY_AWAITED`
/// (a continuation exists or a combinator owns the task), `INVALID_HANDLE`,
/// `STALE_HANDLE`, `FOREIGN_HANDLE`, `WRONG_THREAD`.
#[no_mangle]
pub extern "C" fn onity_task_on_complete(
    runtime: *mut OnityRuntime,
    task: u64,
    callback: OnityCallback,
    user: *mut c_void,
) -> OnityStatus {
    crate::ffi_host!({
        let rt = core_of(runtime)?;
        let f = callback.ok_or(OnityStatus::NullPointer)?;
        Ok(rt.on_complete(task, f, user)?)
    })
}
