//! The runtime in plain Rust. Nothing here knows about the C ABI.
//!
//! | file | what |
//! |---|---|
//! | `runtime.rs` | the [`Runtime`]: what it is made of; frames, ticks, drain, close |
//! | `task.rs` | tasks: create, complete (any thread), continue, consume |
//! | `cancel.rs` | cancellation sources and tokens |
//! | `when.rs` | WhenAny / WhenAll on the runtime |
//! | `batch.rs` | batches on the runtime (lanes filed, ticked, destroyed) |
//! | `stats.rs` | the statistics snapshot |
//! | `slot.rs` | the task state word, task and cancel slots, the free list |
//! | `timing.rs` | wait records, the 16 timing queues, due-ness, runs |
//! | `far.rs` | far-future waits of a timing: heaps by due frame / due time |
//! | `lane.rs` | batch records and fast lanes |
//! | `combinator.rs` | WhenAny / WhenAll coordinators, watches, pools |
//! | `handle.rs` | generational handles |
//! | `owner.rs` | the owner-thread check |
//! | `arena.rs`, `pool.rs`, `completion_stack.rs` | slot tables, object pools, the cross-thread stack |
//! | `frame_alloc/` | the rewindable frame allocator |
//! | `types.rs`, `config.rs`, `error.rs` | value types and the enums that cross the C boundary, configuration, errors |

pub mod arena;
mod batch;
mod cancel;
pub mod combinator;
pub mod completion_stack;
pub mod config;
pub mod error;
mod far;
pub mod frame_alloc;
pub mod handle;
pub mod lane;
pub mod owner;
pub mod pool;
pub mod runtime;
pub mod slot;
pub mod stats;
mod task;
pub mod timing;
pub mod types;
mod when;

pub use config::Config;
pub use error::{Error, Result};
pub use lane::{LaneId, Request};
pub use pool::PoolStats;
pub use runtime::Runtime;
pub use stats::{Stats, WaitStats};
pub use timing::{WaitSpec, WaitTarget};
pub use types::*;
