//! The C ABI: checks and conversions only; what the runtime does is in
//! [`crate::core`].
//!
//! | file | what |
//! |---|---|
//! | `object.rs` | the opaque `OnityRuntime` and the check of a runtime pointer |
//! | `error.rs` | the one mapping from core errors to `OnityStatus`, and outputs written only on success |
//! | `status.rs` | `OnityStatus` and its texts |
//! | `types.rs` | every `#[repr(C)]` type, the boundary enums' C names, constants |
//! | `runtime.rs`, `task.rs`, `wait.rs`, `cancel.rs`, `combinator.rs`, `frame_alloc.rs`, `batch.rs` | the exports, one file per C type or family |
//! | `retire.rs` | retirable callback waits (`_then_id`, `onity_wait_retire`) |
//! | `families.g.rs` | generated (`scripts/gen_ffi_families.py`): every form of the waits (task, `_then`, `_then_id`, `_at`, `_then_at`) and of WhenAny / WhenAll (plain, `_at`) |
//! | `batch_state.rs` | a batch's private state; filing its records, compacting its resumptions |
//! | `deferred.rs` | the deferred frame begin: which exports apply it, and applying it |
//! | `idle.rs` | where a batch host reads which timings' ticks it may skip (`OnityTickIdle`), and whether its runtime still lives (`onity_runtime_live_word`) |
//!
//! Conventions (after rustls-ffi and wasmtime's C API):
//! - Every export is a body behind [`ffi!`]: it returns
//!   `Result<(), OnityStatus>`, `?` turns a core error into its status
//!   ([`error`]), and a panic never unwinds into the caller: it becomes
//!   [`OnityStatus::Panic`].
//! - Outputs go through [`error::Out`], checked for null before anything
//!   happens and written only with a success value.
//! - Every handle is decoded and checked against its slot's generation by
//!   the core; enum-valued inputs are plain `u32` and converted here (the
//!   enums themselves are defined once, in `src/core/types.rs`).

// Exported functions take raw pointers from C and check them (null, the
// live-runtime table);
// they cannot be `unsafe fn` without changing nothing for C callers.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

/// Runs `body` (a block evaluating to `Result<(), OnityStatus>`) behind a
/// panic boundary and returns its status. The happy path costs nothing: the
/// boundary is a landing pad, off the path.
#[macro_export]
#[doc(hidden)]
macro_rules! ffi {
    ($body:block) => {{
        match ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(
            || -> ::std::result::Result<(), $crate::ffi::status::OnityStatus> { $body },
        )) {
            Ok(Ok(())) => $crate::ffi::status::OnityStatus::Ok,
            Ok(Err(status)) => status,
            Err(payload) => $crate::ffi::panicked(payload),
        }
    }};
}

/// [`ffi!`] for the exports that can call host code (continuations,
/// callback waits): a foreign exception (C++) unwinding out of that code
/// aborts with [`HOST_UNWIND_MESSAGE`] ([`HostUnwindGuard`]) before the panic
/// boundary, which cannot catch it. Only there: the guard's landing pad costs
/// some exports a saved register.
#[macro_export]
#[doc(hidden)]
macro_rules! ffi_host {
    ($body:block) => {
        $crate::ffi!({
            let guard = $crate::ffi::HostUnwindGuard;
            #[allow(clippy::redundant_closure_call)]
            let result = (|| -> ::std::result::Result<(), $crate::ffi::status::OnityStatus> { $body })();
            ::std::mem::forget(guard);
            result
        })
    };
}

/// Printed before the abort when an exception unwinds out of host code into
/// an export: what host code must not do, and where it happens.
pub const HOST_UNWIND_MESSAGE: &str = "onity: fatal: an exception unwound out of a callback into the Onity runtime \
     (callbacks, C++ coroutines and until/while_ predicates must not throw across the C ABI: in code built \
     with -fno-exceptions nothing can catch it); aborting";

/// Armed by [`ffi_host!`] around an export's body; its drop runs only while
/// something unwinds out of the body. A Rust panic goes on to the panic
/// boundary (`PANIC`); anything else is a foreign exception from host code
/// (a C++ exception escaping a callback), which Rust cannot catch: abort with
/// [`HOST_UNWIND_MESSAGE`] (instead of Rust's message about foreign
/// exceptions).
#[doc(hidden)]
pub struct HostUnwindGuard;

impl Drop for HostUnwindGuard {
    #[inline(always)]
    fn drop(&mut self) {
        if !std::thread::panicking() {
            host_unwound();
        }
    }
}

#[cold]
#[inline(never)]
fn host_unwound() -> ! {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{HOST_UNWIND_MESSAGE}");
    std::process::abort();
}

/// What [`ffi!`] returns for a caught panic. Out of line: the payload's drop
/// would otherwise make every export keep registers for its landing pad.
#[doc(hidden)]
#[cold]
#[inline(never)]
pub fn panicked(payload: Box<dyn std::any::Any + Send>) -> OnityStatus {
    drop(payload);
    OnityStatus::Panic
}

pub mod batch;
mod batch_state;
pub mod cancel;
pub mod combinator;
pub mod deferred;
pub mod error;
#[path = "families.g.rs"]
pub mod families;
pub mod frame_alloc;
pub mod idle;
pub mod object;
pub mod retire;
pub mod runtime;
pub mod sites;
pub mod status;
pub mod task;
pub mod trace;
pub mod types;
pub mod wait;

pub use batch::*;
pub use cancel::*;
pub use combinator::*;
pub use deferred::{onity_batch_deferred_frame, onity_batch_frame_ring, onity_runtime_frame_clock};
pub use families::*;
pub use frame_alloc::*;
pub use idle::{onity_batch_idle, onity_runtime_live_word};
pub use object::OnityRuntime;
pub use retire::*;
pub use runtime::*;
pub use sites::*;
pub use status::OnityStatus;
pub use task::*;
pub use trace::*;
pub use types::*;

#[cfg(test)]
mod tests {
    use super::OnityStatus;

    /// What a boundary macro (`ffi` or `ffi_host`) returns for a panic, an
    /// error and a success.
    macro_rules! statuses_behind {
        ($boundary:ident) => {{
            let status = crate::$boundary!({
                if std::hint::black_box(true) {
                    panic!("a panic the boundary catches (expected in this test)");
                }
                Ok(())
            });
            assert_eq!(status, OnityStatus::Panic);
            assert_eq!(crate::$boundary!({ Err(OnityStatus::Reentrant) }), OnityStatus::Reentrant);
            assert_eq!(crate::$boundary!({ Ok(()) }), OnityStatus::Ok);
        }};
    }

    /// The boundary turns a panic into `OnityStatus::Panic` (its drop is out
    /// of line, see `panicked`).
    #[test]
    fn a_panic_becomes_the_panic_status() {
        statuses_behind!(ffi);
    }

    /// Behind [`ffi_host!`]'s unwind guard a Rust panic still reaches the
    /// boundary (`PANIC`, no abort), and early returns pass the guard.
    #[test]
    fn a_panic_behind_the_host_unwind_guard_becomes_the_panic_status() {
        statuses_behind!(ffi_host);
    }
}
