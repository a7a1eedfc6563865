//! Retirable callback waits (ABI 1.3): the `_then_id` forms of the frame
//! waits take a caller-owned slot, `uint64_t *wait`, which receives the
//! wait's id and is the callback's `user`; `onity_wait_retire(rt, wait)`
//! drops the pending wait without calling it. For a caller that stops
//! caring about a wait before it is due (a C++20 coroutine finished at that
//! wait): the slot's memory is the caller's again at once, and the wait
//! does not stay queued until it is due (a far DelayFrame would keep its
//! record for its whole delay). The `_then_id` exports are generated
//! (`families.g.rs`); `onity_wait_retire` is here.

use super::object::{core_of, OnityRuntime};
use super::status::OnityStatus;

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
