//! The runtime in plain Rust. Nothing here knows about the C ABI.
//!
//! | file | what |
//! |---|---|
//! | `runtime.rs` | the [`Runtime`]: what it is made of; ticks, drain, close |
//! | `task.rs` | tasks: create, complete (any thread), continue, consume |
//! | `cancel.rs` | cancellation sources and tokens |
//! | `when.rs` | WhenAny / WhenAll on the runtime |
//! | `batch.rs` | batches on the runtime (lanes filed, ticked, destroyed) |
//! | `stats.rs` | the statistics snapshot |
//! | `slot.rs` | the task state word, task and cancel slots, the free list |
//! | `timing.rs`, `timing/` | wait records, the 16 timing queues, runs, retiring by id (`docs/timing.md`) |
//! | `timing/due.rs` | when a wait is due: the one rule the queues, far heaps and fast lanes ask |
//! | `retire.rs` | retiring a pending callback wait (`Runtime::retire_wait`; the ids are `timing/retire.rs`) |
//! | `frame/` | the frame: begin, its checks, the first frame's rebase, frames written without a call and their apply order; `frame/idle.rs`: which timings' next run would do nothing |
//! | `timing/far.rs` | far-future waits of a timing: heaps by due frame / due time |
//! | `timing/lane.rs` | batch records and fast lanes |
//! | `sites.rs`, `runtime_sites.rs` | creation sites: the table, and the runtime's calls that record and report them |
//! | `trace.rs`, `runtime_trace.rs` | the event trace: the ring and its JSON, and the runtime's calls that record into it |
//! | `tracy.rs` | Tracy zones and frame plots (the `tracy` feature; empty without it) |
//! | `combinator.rs` | WhenAny / WhenAll coordinators, watches, pools |
//! | `handle.rs` | generational handles |
//! | `owner.rs` | the owner-thread check |
//! | `tags.rs` | runtime tags and the generation floors that keep handles unique over the process lifetime |
//! | `fallible.rs` | allocation that returns `OutOfMemory` instead of aborting |
//! | `arena.rs`, `pool.rs`, `completion_stack.rs` | slot tables, object pools, the cross-thread stack |
//! | `frame_alloc/` | the rewindable frame allocator |
//! | `types.rs`, `config.rs`, `error.rs` | value types and the enums that cross the C boundary, configuration, errors |
//!
//! No two modules import each other, directly or through others
//! (`scripts/check-import-cycles.py`, in `scripts/test-all.sh`): a data
//! structure the [`Runtime`] holds (`timing` with its `lane`, `sites`, `trace`)
//! never names the runtime; the runtime's calls on it live in a file of
//! their own (`batch.rs`, `retire.rs`, `runtime_sites.rs`, `runtime_trace.rs`).
//!
//! # Values lent to a closure
//!
//! The C layer's hot paths take a consumed outcome, a WhenAll's outcomes or
//! a batch tick's ids through a closure the runtime calls while it lends
//! them (`consume_with`, `when_all_results_with`, `tick_lane`). Such a
//! closure must not call the runtime back, so these are crate-private; Rust
//! callers use the forms that return or copy ([`Runtime::consume`],
//! [`Runtime::when_all_results`]):
//!
//! ```
//! # use onity::core::{timing::lane, Config, Runtime, TaskState, Timing, Outcome};
//! # unsafe extern "C" fn emit(_: *mut std::ffi::c_void, _: u64, _: u32) {}
//! let rt = Runtime::new(Config::default());
//! let h = rt.create_completed(TaskState::Succeeded, 1, 0).unwrap();
//! let w = rt.when_all(&[h], 0).unwrap();
//! let mut r = [Outcome::PENDING; 1];
//! rt.when_all_results(w, &mut r).unwrap();
//! assert_eq!((r[0].value, rt.consume(w).unwrap().value), (1, 1));
//! let l = rt.create_lane(emit, std::ptr::null_mut()).unwrap();
//! let f = [lane::fast_record(1, Timing::Update as u32, 0).unwrap()];
//! rt.file_lane(l, &f, std::iter::empty(), |_, _| {}).unwrap();
//! rt.destroy_lane(l).unwrap();
//! ```
//!
//! A consume from inside `consume_with` retired the task twice:
//!
//! ```compile_fail
//! # use onity::core::{Config, Runtime, TaskState};
//! let rt = Runtime::new(Config::default());
//! let h = rt.create_completed(TaskState::Succeeded, 1, 0).unwrap();
//! rt.consume_with(h, |_| drop(rt.consume(h))).unwrap();
//! ```
//!
//! Consuming the WhenAll inside `when_all_results_with` freed the outcomes:
//!
//! ```compile_fail
//! # use onity::core::{Config, Runtime, TaskState};
//! let rt = Runtime::new(Config::default());
//! let h = rt.create_completed(TaskState::Succeeded, 1, 0).unwrap();
//! let w = rt.when_all(&[h], 0).unwrap();
//! rt.when_all_results_with(w, 1, |r| drop((rt.consume(w), r.len()))).unwrap();
//! ```
//!
//! The free list of slots trusts the indices it is given (it reads listed
//! slots unchecked), so it is the runtime's alone: outside the crate a
//! forged index would have made safe code read a slot that does not exist:
//!
//! ```compile_fail
//! # use onity::core::{arena::Arena, slot::{FreeList, TaskSlot}};
//! let arena: Arena<TaskSlot> = Arena::new();
//! let mut free = FreeList::new(0);
//! free.give_back(&TaskSlot::default(), 5);
//! let _ = free.pop(&arena);
//! ```
//!
//! Destroying the lane inside `tick_lane`'s report freed the ids:
//!
//! ```compile_fail
//! # use onity::core::{timing::lane, Config, Runtime, Timing};
//! # unsafe extern "C" fn emit(_: *mut std::ffi::c_void, _: u64, _: u32) {}
//! let rt = Runtime::new(Config::default());
//! let l = rt.create_lane(emit, std::ptr::null_mut()).unwrap();
//! let f = [lane::fast_record(1, Timing::Update as u32, 0).unwrap()];
//! rt.file_lane(l, &f, std::iter::empty(), |_, _| {}).unwrap();
//! rt.tick_lane(l, Timing::Update, |ids| drop((rt.destroy_lane(l), ids.len()))).unwrap();
//! ```

pub mod arena;
mod batch;
mod cancel;
pub mod combinator;
pub mod completion_stack;
pub mod config;
pub mod error;
pub mod fallible;
pub mod frame;
pub mod frame_alloc;
pub mod handle;
pub mod owner;
pub mod pool;
mod retire;
pub mod runtime;
mod runtime_sites;
mod runtime_trace;
pub mod sites;
pub mod slot;
pub mod stats;
pub mod tags;
mod task;
pub mod timing;
pub mod trace;
pub mod tracy;
pub mod types;
mod when;

pub use config::Config;
pub use error::{Error, Result};
pub use pool::PoolStats;
pub use runtime::Runtime;
pub use stats::{Stats, WaitStats};
pub use timing::lane::{LaneId, Request};
pub use timing::{WaitSpec, WaitTarget};
pub use types::*;
