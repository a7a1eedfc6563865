//! Onity native: a frame-based async task runtime for game engines.
//!
//! The crate has two layers:
//! - [`core`]: the runtime in plain Rust (no FFI types): generational task
//!   slots, timing queues, combinators, cancellation, pool statistics and the
//!   rewindable frame allocator.
//! - [`ffi`]: the C ABI. Every exported function is wrapped in a panic
//!   boundary, checks its pointers and handles and returns an [`ffi::OnityStatus`].
//!
//! `include/onity.h` is generated from [`ffi`] by cbindgen (see `build.rs`).

pub mod core;
pub mod ffi;

/// Version of the C ABI (`major << 16 | minor`); see [`ffi::ONITY_ABI_VERSION`].
pub const ABI_VERSION: u32 = ffi::ONITY_ABI_VERSION;
