//! The frame allocator: per-frame scratch memory for any thread, rewound by
//! the runtime.
//!
//! Memory of lifetime `ONITY_LIFETIME_FRAME` is valid until the next rewind;
//! `ONITY_LIFETIME_TWO_FRAMES` until the one after (Unity's
//! `DoubleRewindableAllocators` pattern). The runtime rewinds at the first
//! run in each frame of `OnityRuntimeConfig::frame_alloc_rewind_timing`
//! (default Initialization), or only when `onity_frame_alloc_rewind` is
//! called. Rewinding requires that no thread is allocating at that moment:
//! finish the frame's jobs before the rewind timing runs. A host that skips
//! idle ticks (`OnityTickIdle`, the C# binding) skips the rewind timing's
//! tick when a rewind would release nothing; memory allocated after such a
//! skip is rewound at the next tick that runs (one frame later or more):
//! memory lives at least until its rewind, never less.
//!
//! Allocation takes no lock and writes nothing shared: each thread bumps a
//! cursor in its own chunk and claims a new chunk with one atomic operation;
//! blocks are kept across rewinds, so a steady frame makes no OS allocation.

use std::ffi::c_void;

use super::deferred::core_at_frame;
use super::error::arg;
use super::object::{core_of, OnityRuntime};
use super::status::OnityStatus;
use crate::core::{Lifetime, Runtime};

/// Allocates `size` bytes aligned to `align` (a power of two up to 4096)
/// with an `OnityLifetime`, and writes the address to `*out_ptr`. Any thread;
/// no lock. The memory is uninitialised (0xDD with `frame_alloc_poison`).
/// Errors: `NULL_POINTER`, `INVALID_ARGUMENT` (size 0, bad lifetime),
/// `INVALID_ALIGNMENT` (checked before the size), `COUNT_OUT_OF_RANGE`
/// (size too large to serve: with its alignment padding, rounded up to a
/// 4096-byte block, above `INTPTR_MAX`), `EXHAUSTED`
/// (`frame_alloc_max_bytes` reached; space returns after rewinds),
/// `OUT_OF_MEMORY`, `INVALID_RUNTIME`. On every error but a NULL `out_ptr`,
/// `*out_ptr` is set to NULL (also for a NULL or invalid runtime).
/// Rewinds happen inside `onity_runtime_tick` (the first run of
/// `frame_alloc_rewind_timing` in each frame) and in
/// `onity_frame_alloc_rewind`. Worker threads must have finished the frame's
/// allocations before the owner makes that call, and must not allocate until
/// it returns; the host makes the hand-off a happens-before edge (join the
/// jobs, a mutex, a release/acquire flag). Memory allocated before a rewind
/// is invalid after it (`FRAME`) or after the next one (`TWO_FRAMES`), on
/// every thread.
#[no_mangle]
pub extern "C" fn onity_frame_alloc(
    runtime: *mut OnityRuntime,
    size: u64,
    align: u32,
    lifetime: u32,
    out_ptr: *mut *mut c_void,
) -> OnityStatus {
    crate::ffi!({ frame_alloc(runtime, size, align, lifetime, out_ptr) })
}

#[inline(always)]
fn frame_alloc(
    runtime: *mut OnityRuntime,
    size: u64,
    align: u32,
    lifetime: u32,
    out_ptr: *mut *mut c_void,
) -> Result<(), OnityStatus> {
    // The runtime is checked before `out_ptr` (the documented order); a
    // NULL `out_ptr` is never written.
    if out_ptr.is_null() {
        core_of(runtime)?;
        return Err(OnityStatus::NullPointer);
    }
    // Every error leaves it NULL: a bad runtime's here, the others in
    // `alloc_checked`.
    let rt = match core_of(runtime) {
        Ok(rt) => rt,
        Err(e) => return Err(null_out(out_ptr, e)),
    };
    match Lifetime::from_u32(lifetime) {
        Some(lt) if size <= usize::MAX as u64 => match rt.frame_alloc_fast(lt, size as usize, align as usize) {
            Some(p) => {
                // SAFETY: checked non-null, provided by the caller.
                unsafe { *out_ptr = p as *mut c_void };
                Ok(())
            }
            None => alloc_checked(rt, size, align, lifetime, out_ptr),
        },
        _ => alloc_checked(rt, size, align, lifetime, out_ptr),
    }
}

/// Sets `*out_ptr` to NULL and returns `e` (off the fast path).
#[cold]
#[inline(never)]
fn null_out(out_ptr: *mut *mut c_void, e: OnityStatus) -> OnityStatus {
    // SAFETY: checked non-null by the caller, provided by the host.
    unsafe { *out_ptr = std::ptr::null_mut() };
    e
}

/// Every case of `onity_frame_alloc` but the fast path: `*out_ptr` is NULL
/// on error (documented), the pointer on success.
#[cold]
#[inline(never)]
fn alloc_checked(
    rt: &Runtime,
    size: u64,
    align: u32,
    lifetime: u32,
    out_ptr: *mut *mut c_void,
) -> Result<(), OnityStatus> {
    let r = (|| {
        let lifetime = arg(Lifetime::from_u32(lifetime))?;
        if size > usize::MAX as u64 {
            return Err(OnityStatus::CountOutOfRange);
        }
        Ok(rt.frame_alloc(lifetime, size as usize, align as usize)?)
    })();
    // SAFETY: checked non-null by the caller, provided by the host.
    unsafe { *out_ptr = r.map_or(std::ptr::null_mut(), |p| p as *mut c_void) };
    r.map(|_| ())
}

/// Rewinds the frame allocator now (for `ONITY_FRAME_ALLOC_REWIND_MANUAL`
/// hosts, or an extra rewind). Owner thread, not inside a tick; no thread
/// may be allocating. Errors: `WRONG_THREAD`, `REENTRANT`.
#[no_mangle]
pub extern "C" fn onity_frame_alloc_rewind(runtime: *mut OnityRuntime) -> OnityStatus {
    // Traced in the frame it is made in: a deferred frame is applied first.
    crate::ffi!({ Ok(core_at_frame(runtime)?.rewind_frame_allocator()?) })
}
