//! Idle timings: after each run of a timing the runtime publishes whether
//! its next run would do nothing, so that a host paying for every call (C#
//! on Mono) can skip that run's call.
//!
//! A timing is idle when, after its run:
//! - its near queue and far store hold no wait, and no batch lane holds a
//!   fast wait of it;
//! - at most one batch lane is live (the host sees only its own batch's
//!   unfiled records);
//! - no WhenAny / WhenAll watches a token (every run polls the watches);
//! - tracing is off (every run is recorded) and Tracy is not built in
//!   (every run is a zone);
//! - it is not the frame allocator's automatic rewind timing (the rewind
//!   is due at its first run of each frame, and other threads allocate
//!   without telling the owner).
//!
//! The byte is cleared by everything that breaks one of these: every wait
//! pushed into the timing (one store in `Timings::push` and
//! `push_frame_wait`), every fast record filed for it (`Lanes::file`), and
//! for every timing a second lane, a watched combinator, or tracing
//! started. It is only ever set by a run of its timing.
//!
//! What other threads add is not in the byte: tasks they complete go
//! through the cross-thread stack, whose head the host reads too
//! ([`Runtime::cross_thread_head`]); a run is skipped only when it is 0.
//! Canceling a source from another thread changes nothing a run of an idle
//! timing would do (no wait and no watch holds a token).

use super::runtime::Runtime;
use super::types::Timing;

impl Runtime {
    /// After a run of `timing`: publishes whether its next run would do
    /// nothing (see the module docs). Owner thread, not inside a run.
    #[inline(always)]
    pub(super) fn publish_idle(&self, timing: Timing) {
        // SAFETY: owner thread (the caller ran the timing), short borrow.
        let inner = unsafe { self.inner() };
        // A timing holding a wait is not idle, and its byte is 0 already: a
        // wait enters a queue only through a push, which clears it. So a
        // busy timing pays one test and no store.
        if inner.timings.queue_empty(timing as usize) {
            self.publish_idle_empty(timing);
        } else {
            debug_assert!(
                !inner.timings.is_idle(timing as usize),
                "a wait entered {timing:?} without clearing its byte"
            );
        }
    }

    /// [`Runtime::publish_idle`] for a timing whose queue is empty.
    #[cold]
    #[inline(never)]
    fn publish_idle_empty(&self, timing: Timing) {
        let t = timing as usize;
        // SAFETY: owner thread (the caller ran the timing), short borrow.
        let inner = unsafe { self.inner() };
        let idle = !cfg!(feature = "tracy")
            && !inner.trace.on
            && inner.comb.watches().is_empty()
            && inner.cfg.frame_alloc_rewind_timing != Some(timing)
            && inner.lanes.idle(t);
        inner.timings.set_idle(t, idle);
    }

    /// Where the runtime's idle bytes are: timing `t`'s byte is at the
    /// address plus `t` times the stride (each sits beside its timing's
    /// queue, where a push clears it through an address it has already).
    /// Non-zero when a run of `t` now would do nothing but what the host
    /// sees itself (its own batch's unfiled records, the cross-thread
    /// stack). Valid while the runtime lives and does not move; read on
    /// the owner thread, between calls, never written. Owner thread
    /// (`WrongThread`).
    pub fn idle_bytes(&self) -> super::error::Result<(*const u8, usize)> {
        self.check_owner()?;
        // SAFETY: the runtime's own state, live; no reference is made.
        Ok(unsafe { super::timing::Timings::idle_bytes(std::ptr::addr_of!((*self.inner_raw()).timings)) })
    }

    /// The address of the cross-thread completion stack's head: non-zero
    /// while tasks completed on other threads wait for the owner's next
    /// tick or drain. Valid as [`Runtime::idle_bytes`]; any thread may
    /// change it, so read it as one aligned 32-bit load.
    pub fn cross_thread_head(&self) -> *const u32 {
        #[cfg(not(loom))]
        return self.queued.head_ptr();
        #[cfg(loom)]
        return std::ptr::null();
    }
}
