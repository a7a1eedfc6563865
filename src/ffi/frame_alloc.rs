//! The frame allocator: per-frame scratch memory for any thread, rewound by
//! the runtime.
//!
//! Memory of lifetime `ONITY_LIFETIME_FRAME` is valid until the next rewind;
//! `ONITY_LIFETIME_TWO_FRAMES` until the one after (Unity's
//! `DoubleRewindableAllocators` pattern). The runtime rewinds at the first
//! run in each frame of `OnityRuntimeConfig::frame_alloc_rewind_timing`
//! (default Initialization), or only when `onity_frame_alloc_rewind` is
//! called. Rewinding requires that no thread is allocating at that moment:
//! finish the frame's jobs before the rewind timing runs.
//!
//! Allocation takes no lock and writes nothing shared: each thread bumps a
//! cursor in its own chunk and claims a new chunk with one atomic operation;
//! blocks are kept across rewinds, so a steady frame makes no OS allocation.

use std::ffi::c_void;

use super::runtime::{rt, OnityRuntime};
use super::status::OnityStatus;
use crate::core::frame_alloc::{AllocError, Lifetime};

/// Lifetimes of frame allocations. Passed as `uint32_t`.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnityLifetime {
    /// Valid until the next rewind.
    Frame = 0,
    /// Valid until the second rewind from now.
    TwoFrames = 1,
}

impl From<AllocError> for OnityStatus {
    fn from(e: AllocError) -> Self {
        match e {
            AllocError::ZeroSize => OnityStatus::InvalidArgument,
            AllocError::InvalidAlignment => OnityStatus::InvalidAlignment,
            AllocError::TooLarge => OnityStatus::CountOutOfRange,
            AllocError::Exhausted => OnityStatus::Exhausted,
            AllocError::OutOfMemory => OnityStatus::OutOfMemory,
        }
    }
}

/// Allocates `size` bytes aligned to `align` (a power of two up to 4096)
/// with an `OnityLifetime`, and writes the address to `*out_ptr`. Any thread;
/// no lock. The memory is uninitialised (0xDD with `frame_alloc_poison`).
/// Errors: `NULL_POINTER`, `INVALID_ARGUMENT` (size 0, bad lifetime),
/// `INVALID_ALIGNMENT` (checked before the size), `COUNT_OUT_OF_RANGE`
/// (size too large to serve: with its alignment padding, rounded up to a
/// 4096-byte block, above `INTPTR_MAX`), `EXHAUSTED`
/// (`frame_alloc_max_bytes` reached; space returns after rewinds),
/// `OUT_OF_MEMORY`. On error `*out_ptr` is set to NULL.
#[no_mangle]
pub extern "C" fn onity_frame_alloc(
    runtime: *mut OnityRuntime,
    size: u64,
    align: u32,
    lifetime: u32,
    out_ptr: *mut *mut c_void,
) -> OnityStatus {
    crate::ffi_guard!({
        let rt = rt!(runtime);
        crate::check_ptr!(out_ptr);
        // SAFETY: checked non-null.
        unsafe { *out_ptr = std::ptr::null_mut() };
        let lifetime = match lifetime {
            0 => Lifetime::Frame,
            1 => Lifetime::TwoFrames,
            _ => return OnityStatus::InvalidArgument,
        };
        if size > usize::MAX as u64 {
            return OnityStatus::CountOutOfRange;
        }
        let p = crate::tri!(rt.frame_alloc(lifetime, size as usize, align as usize));
        // SAFETY: checked non-null.
        unsafe { *out_ptr = p as *mut c_void };
        OnityStatus::Ok
    })
}

/// Rewinds the frame allocator now (for `ONITY_FRAME_ALLOC_REWIND_MANUAL`
/// hosts, or an extra rewind). Owner thread, not inside a tick; no thread
/// may be allocating. Errors: `WRONG_THREAD`, `REENTRANT`.
#[no_mangle]
pub extern "C" fn onity_frame_alloc_rewind(runtime: *mut OnityRuntime) -> OnityStatus {
    crate::ffi_guard!({
        let rt = rt!(runtime);
        crate::tri!(rt.rewind_frame_allocator());
        OnityStatus::Ok
    })
}
