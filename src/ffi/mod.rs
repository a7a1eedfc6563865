//! The C ABI: one module per C type, every export behind [`ffi_guard!`].
//!
//! Conventions (after rustls-ffi):
//! - Fallible functions return [`OnityStatus`]; outputs go through
//!   out-parameters that are written only on success.
//! - Every pointer is checked for null, every handle decoded and checked
//!   against its slot's generation before use.
//! - A panic never unwinds into the caller: it becomes [`OnityStatus::Panic`].
//! - Enum-valued inputs are plain `u32` and validated; Rust enums never cross
//!   the boundary as inputs.

// Exported functions take raw pointers from C and check them (null, magic);
// they cannot be `unsafe fn` without changing nothing for C callers.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

/// Runs `body` (a block evaluating to `OnityStatus`) behind a panic boundary.
#[macro_export]
#[doc(hidden)]
macro_rules! ffi_guard {
    ($body:block) => {{
        match ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(|| -> $crate::ffi::OnityStatus { $body })) {
            Ok(status) => status,
            Err(_) => $crate::ffi::OnityStatus::Panic,
        }
    }};
}

/// Returns `OnityStatus::NullPointer` from the enclosing closure if a pointer is null.
#[macro_export]
#[doc(hidden)]
macro_rules! check_ptr {
    ($($p:expr),+) => {
        $( if $p.is_null() { return $crate::ffi::OnityStatus::NullPointer; } )+
    };
}

/// Unwraps a core `Result`, returning the mapped status on error.
#[macro_export]
#[doc(hidden)]
macro_rules! tri {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return $crate::ffi::OnityStatus::from(e),
        }
    };
}

pub mod batch;
pub mod cancel;
pub mod combinator;
pub mod frame_alloc;
pub mod runtime;
pub mod status;
pub mod task;
pub mod types;
pub mod wait;

pub use batch::*;
pub use cancel::*;
pub use combinator::*;
pub use frame_alloc::*;
pub use runtime::*;
pub use status::OnityStatus;
pub use task::*;
pub use types::*;
pub use wait::*;
