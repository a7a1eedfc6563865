//! Cancellation sources. A source's handle is also its token: pass it to
//! waits and combinators. 0 means "no token".

use super::error::Out;
use super::object::{core_of, OnityRuntime};
use super::status::OnityStatus;

/// Creates a cancellation source and writes its handle (= its token) to
/// `*out_source`. Owner thread. Errors: `NULL_POINTER`, `WRONG_THREAD`,
/// `EXHAUSTED`, `REENTRANT`, `OUT_OF_MEMORY` (nothing made).
#[no_mangle]
pub extern "C" fn onity_cancel_source_create(runtime: *mut OnityRuntime, out_source: *mut u64) -> OnityStatus {
    crate::ffi!({
        let rt = core_of(runtime)?;
        let out = Out::new(out_source)?;
        out.set(rt.create_cancel_source()?)
    })
}

/// Cancels a source. Any thread; canceling twice is fine. Waits holding the
/// token complete canceled at the next run of their timing; combinators
/// complete canceled at the owner's next tick (any timing) or drain, or at
/// once when created with an already-canceled token. Combinators canceled by
/// the same tick or drain complete in creation order, so a combinator whose
/// input is another of them completes with that input's cancellation
/// (`index` = the input).
/// Errors: `INVALID_HANDLE`, `STALE_HANDLE` (destroyed), `FOREIGN_HANDLE`.
#[no_mangle]
pub extern "C" fn onity_cancel_source_cancel(runtime: *mut OnityRuntime, source: u64) -> OnityStatus {
    crate::ffi_host!({ Ok(core_of(runtime)?.cancel(source)?) })
}

/// Writes 1 to `*out_canceled` if the source is canceled, else 0. Any thread.
/// Errors: `NULL_POINTER`, `INVALID_HANDLE`, `STALE_HANDLE`, `FOREIGN_HANDLE`.
#[no_mangle]
pub extern "C" fn onity_cancel_source_is_canceled(
    runtime: *mut OnityRuntime,
    source: u64,
    out_canceled: *mut u32,
) -> OnityStatus {
    crate::ffi!({
        let rt = core_of(runtime)?;
        let out = Out::new(out_canceled)?;
        out.set(rt.is_canceled(source)? as u32)
    })
}

/// Destroys a source. Destroying does not cancel: if the source was not
/// canceled, waits still holding its token are never canceled by it; if it
/// was, they still observe the cancellation as usual. Owner thread. Errors: `INVALID_HANDLE`,
/// `STALE_HANDLE`, `FOREIGN_HANDLE`, `WRONG_THREAD`.
#[no_mangle]
pub extern "C" fn onity_cancel_source_destroy(runtime: *mut OnityRuntime, source: u64) -> OnityStatus {
    crate::ffi!({ Ok(core_of(runtime)?.destroy_cancel_source(source)?) })
}
