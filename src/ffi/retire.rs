//! Retirable callback waits (ABI 1.3): the `_then_id` forms of the frame
//! waits take a caller-owned slot, `uint64_t *wait`, which receives the
//! wait's id and is the callback's `user`; `onity_wait_retire(rt, wait)`
//! drops the pending wait without calling it. For a caller that stops
//! caring about a wait before it is due (a C++20 coroutine finished at that
//! wait): the slot's memory is the caller's again at once, and the wait
//! does not stay queued until it is due (a far DelayFrame would keep its
//! record for its whole delay).

use super::object::{core_of, OnityRuntime};
use super::status::OnityStatus;
use super::types::OnityCallback;
use super::wait::{schedule, Ask, Target};

/// Callback form of `onity_yield` that can be retired: `callback(wait, 0,
/// state)` runs as for `onity_yield_then` with `user` = `wait`, a slot the
/// caller keeps until the callback ran or the wait was retired; `*wait`
/// receives the wait's id (on success only; do not change it). Owner
/// thread. ABI 1.3.
/// Errors: `NULL_POINTER` (runtime, callback, wait), `INVALID_RUNTIME`,
/// `INVALID_ARGUMENT` (timing), `INVALID_HANDLE` / `STALE_HANDLE` /
/// `FOREIGN_HANDLE` (token), `WRONG_THREAD`, `REENTRANT` (being
/// destroyed), `OUT_OF_MEMORY`; so do the other `_then_id` forms.
#[no_mangle]
pub extern "C" fn onity_yield_then_id(
    runtime: *mut OnityRuntime,
    timing: u32,
    token: u64,
    callback: OnityCallback,
    wait: *mut u64,
) -> OnityStatus {
    crate::ffi!({ schedule(runtime, Ask::yield_(timing, token), Target::Retirable(callback, wait)) })
}

/// `onity_next_frame_then` that can be retired (see `onity_yield_then_id`).
/// Owner thread. ABI 1.3.
#[no_mangle]
pub extern "C" fn onity_next_frame_then_id(
    runtime: *mut OnityRuntime,
    timing: u32,
    token: u64,
    callback: OnityCallback,
    wait: *mut u64,
) -> OnityStatus {
    crate::ffi!({ schedule(runtime, Ask::next_frame(timing, token), Target::Retirable(callback, wait)) })
}

/// `onity_delay_frame_then` that can be retired (see
/// `onity_yield_then_id`). Owner thread. ABI 1.3.
#[no_mangle]
pub extern "C" fn onity_delay_frame_then_id(
    runtime: *mut OnityRuntime,
    frames: u32,
    timing: u32,
    token: u64,
    callback: OnityCallback,
    wait: *mut u64,
) -> OnityStatus {
    crate::ffi!({ schedule(runtime, Ask::delay_frame(frames, timing, token), Target::Retirable(callback, wait)) })
}

/// `onity_delay_then` that can be retired (see `onity_yield_then_id`; also
/// `INVALID_ARGUMENT` for a bad clock or seconds). Owner thread. ABI 1.3.
#[no_mangle]
pub extern "C" fn onity_delay_then_id(
    runtime: *mut OnityRuntime,
    seconds: f64,
    clock: u32,
    timing: u32,
    token: u64,
    callback: OnityCallback,
    wait: *mut u64,
) -> OnityStatus {
    crate::ffi!({ schedule(runtime, Ask::delay(seconds, clock, timing, token), Target::Retirable(callback, wait)) })
}

/// Retires the pending wait whose slot is `wait` (from a `_then_id` form):
/// its callback is never called, and the slot is the caller's again when
/// this returns. A far wait (a DelayFrame due after the next frame, a Delay
/// not yet due) leaves its timing's store now; a near one is marked and
/// leaves at its timing's next run, or in the run in progress (found by a
/// scan of that run's waits). Counted canceled in the wait statistics.
/// Owner thread; also from a callback inside a tick and during the
/// runtime's destruction. ABI 1.3.
/// Errors: `NULL_POINTER` (runtime, wait), `INVALID_RUNTIME`,
/// `WRONG_THREAD`, `INVALID_HANDLE` (`*wait` cannot be an id this runtime
/// gave yet: 0, or a near wait's sequence number not reached),
/// `STALE_HANDLE` (no wait with that id and slot is pending: it ran, also
/// earlier in the run in progress or as the callback now running, was
/// retired, the id was copied to another slot, or it is another runtime's
/// or a made-up far id); nothing changes then. `_then_id` waits record no
/// creation site (site capture applies to the `_at` forms).
#[no_mangle]
pub extern "C" fn onity_wait_retire(runtime: *mut OnityRuntime, wait: *mut u64) -> OnityStatus {
    crate::ffi!({
        let rt = core_of(runtime)?;
        if wait.is_null() {
            return Err(OnityStatus::NullPointer);
        }
        // SAFETY: non-null; the caller's slot (the documented contract).
        let id = unsafe { wait.read() };
        Ok(rt.retire_wait(id, wait.cast())?)
    })
}
