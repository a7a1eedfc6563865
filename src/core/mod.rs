//! The runtime in plain Rust. Nothing here knows about the C ABI.

pub mod arena;
pub mod completion_stack;
pub mod error;
pub mod frame_alloc;
pub mod handle;
pub mod pool;
pub mod runtime;
pub mod types;

pub use error::{Error, Result};
pub use pool::PoolStats;
pub use runtime::{Runtime, Stats, WaitStats, WaitTarget};
pub use types::*;
