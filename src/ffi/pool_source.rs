//! External pool sources (ABI 1.2): pools the runtime does not own (the
//! C++ coroutine layer's frame pool, an engine's job system) reported in
//! `OnityStats::pool_sources` beside the runtime's own.

use std::ffi::{c_char, c_void, CStr};

use super::error::Out;
use super::object::{core_of, OnityRuntime};
use super::status::OnityStatus;
use super::types::OnityPoolStats;

/// Most pool sources a runtime has at once (`OnityStats::pool_sources`).
pub const ONITY_MAX_POOL_SOURCES: usize = 16;
const _: () = assert!(ONITY_MAX_POOL_SOURCES == crate::core::pool_sources::MAX_POOL_SOURCES);

/// Fills `*out` (zeroed before the call) with a source's counters. Called by
/// `onity_runtime_stats`, on the owner thread; it may call the runtime but
/// not add or remove sources (`REENTRANT`) nor destroy it.
pub type OnityPoolSourceFn = Option<unsafe extern "C" fn(user: *mut c_void, out: *mut OnityPoolStats)>;

/// Adds a pool source: `onity_runtime_stats` calls `source(user, &stats)` and
/// reports it in `OnityStats::pool_sources`, under `*out_id` (never 0, not
/// reused while the runtime lives) and `name` (1 to 63 bytes, copied; read
/// it back with `onity_pool_source_name`). Owner thread. Errors:
/// `NULL_POINTER` (name, source, out_id), `INVALID_RUNTIME`, `WRONG_THREAD`,
/// `INVALID_ARGUMENT` (name empty or longer than 63 bytes), `EXHAUSTED` (16
/// sources), `REENTRANT` (from inside a source's function). ABI 1.2.
#[no_mangle]
pub extern "C" fn onity_runtime_add_pool_source(
    runtime: *mut OnityRuntime,
    name: *const c_char,
    source: OnityPoolSourceFn,
    user: *mut c_void,
    out_id: *mut u32,
) -> OnityStatus {
    crate::ffi!({
        let rt = core_of(runtime)?;
        let out = Out::new(out_id)?;
        let f = source.ok_or(OnityStatus::NullPointer)?;
        if name.is_null() {
            return Err(OnityStatus::NullPointer);
        }
        // SAFETY: non-null; the caller passes a NUL-terminated string. Its
        // length is checked before it is read past 64 bytes.
        let bytes = unsafe { std::slice::from_raw_parts(name as *const u8, 64.min(strnlen(name, 64) + 1)) };
        let name = CStr::from_bytes_until_nul(bytes).map_err(|_| OnityStatus::InvalidArgument)?;
        out.set(rt.add_pool_source(name, f, user)?)
    })
}

/// The length of `s`, reading at most `max` bytes.
fn strnlen(s: *const c_char, max: usize) -> usize {
    // SAFETY: the caller's string is NUL-terminated; we stop at the NUL or
    // after `max` bytes, whichever comes first.
    (0..max).find(|&i| unsafe { *s.add(i) } == 0).unwrap_or(max)
}

/// Removes pool source `id`. Allowed while the runtime is being destroyed
/// (from a continuation). Owner thread. Errors: `NULL_POINTER`,
/// `INVALID_RUNTIME`, `WRONG_THREAD`, `INVALID_HANDLE` (no source `id`),
/// `REENTRANT` (from inside a source's function). ABI 1.2.
#[no_mangle]
pub extern "C" fn onity_runtime_remove_pool_source(runtime: *mut OnityRuntime, id: u32) -> OnityStatus {
    crate::ffi!({ Ok(core_of(runtime)?.remove_pool_source(id)?) })
}

/// The name of pool source `id` (`OnityStats::pool_source_ids`): the
/// runtime's copy, valid until the source is removed. Owner thread.
/// Errors: `NULL_POINTER`, `INVALID_RUNTIME`, `WRONG_THREAD`,
/// `INVALID_HANDLE` (no source `id`). ABI 1.2.
#[no_mangle]
pub extern "C" fn onity_pool_source_name(
    runtime: *mut OnityRuntime,
    id: u32,
    out_name: *mut *const c_char,
) -> OnityStatus {
    crate::ffi!({
        let rt = core_of(runtime)?;
        let out = Out::new(out_name)?;
        out.set(rt.pool_source_name(id)?.as_ptr())
    })
}
