//! Retiring a pending callback wait on the runtime (the ids and the queues'
//! side are `timing/retire.rs`).

use std::ffi::c_void;

use super::error::Result;
use super::runtime::Runtime;

impl Runtime {
    /// Retires the pending callback wait `id` (as returned by
    /// [`Runtime::wait`] for a callback target) made with `user`: its
    /// callback is never called. Owner thread; also inside a tick and while
    /// the runtime is being closed.
    pub fn retire_wait(&self, id: u64, user: *mut c_void) -> Result<()> {
        self.check_owner()?;
        // SAFETY: owner thread, short borrow; no host code runs below.
        let inner = unsafe { self.inner() };
        // A far wait leaves now, lowering `pending`: record its peak first
        // (runs sample it, but a host skips idle timings' runs: `frame/idle.rs`).
        inner.timings.sample_high_water(&inner.lanes.counts);
        inner.timings.retire(id, user)
    }
}
