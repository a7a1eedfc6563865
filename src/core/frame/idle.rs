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
//!
//! The byte is cleared by everything that breaks one of these: every wait
//! pushed into the timing (one store in `Timings::push` and
//! `push_frame_wait`), every fast record filed for it (`Lanes::file`), and
//! for every timing a second lane, a watched combinator, or tracing
//! started. It is only ever set by a run of its timing, and only the owner
//! thread writes it.
//!
//! The frame allocator's automatic rewind timing has one more condition,
//! which the byte does not include: a rewind now would release nothing.
//! The allocator keeps that in a byte of its own, set by any thread's first
//! allocation of a lifetime in an epoch
//! ([`FrameAllocator::live_byte`](crate::core::frame_alloc::FrameAllocator::live_byte));
//! the host skips the rewind timing's run only when that byte is 0 too
//! ([`Runtime::frame_memory`]). An allocation on another thread just after
//! the host read 0 and skipped the run is rewound one run later: frame
//! memory lives at least until its rewind, later when the host skipped
//! runs with nothing to do.
//!
//! What other threads add is not in the byte: tasks they complete go
//! through the cross-thread stack, whose head the host reads too
//! ([`Runtime::cross_thread_head`]); a run is skipped only when it is 0.
//! Canceling a source from another thread changes nothing a run of an idle
//! timing would do (no wait and no watch holds a token).

use crate::core::runtime::Runtime;
use crate::core::types::Timing;

impl Runtime {
    /// After a run of `timing`: publishes whether its next run would do
    /// nothing (see the module docs). Owner thread, not inside a run.
    #[inline(always)]
    pub(in crate::core) fn publish_idle(&self, timing: Timing) {
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
        // SAFETY: owner thread (the caller ran the timing), short borrow.
        let inner = unsafe { self.inner() };
        let idle = !cfg!(feature = "tracy")
            && !inner.trace.on
            && inner.comb.watches().is_empty()
            && inner.lanes.idle(timing as usize);
        inner.timings.set_idle(timing as usize, idle);
    }

    /// Where the runtime's idle bytes are: timing `t`'s byte is at the
    /// address plus `t` times the stride (each sits beside its timing's
    /// queue, where a push clears it through an address it has already).
    /// Non-zero when a run of `t` now would do nothing but what the host
    /// sees itself (its own batch's unfiled records, the cross-thread
    /// stack, and on the rewind timing the rewind: [`Runtime::frame_memory`]).
    /// Valid while the runtime lives and does not move; read on
    /// the owner thread, between calls, never written. Owner thread
    /// (`WrongThread`).
    ///
    /// # Safety
    /// The runtime does not move while the host keeps the address (it is
    /// boxed, as the C ABI's).
    pub unsafe fn idle_bytes(&self) -> crate::core::error::Result<(*const u8, usize)> {
        self.check_owner()?;
        // SAFETY: the runtime's own state, live; no reference is made.
        let (first, stride) =
            unsafe { crate::core::timing::Timings::idle_bytes(std::ptr::addr_of!((*self.inner_raw()).timings)) };
        Ok((first, stride))
    }

    /// The frame allocator's automatic rewind timing (`None`: manual
    /// rewind) and the address of the allocator's byte that is non-zero
    /// while a rewind would release something: a host skips the rewind
    /// timing's run only when that byte is 0 as well as the timing's idle
    /// byte (module docs). Valid while the runtime lives and does not
    /// move; any thread may set it, so read it as one byte load. Owner
    /// thread (`WrongThread`).
    pub fn frame_memory(&self) -> crate::core::error::Result<(Option<Timing>, *const u8)> {
        self.check_owner()?;
        // SAFETY: owner thread (checked), short borrow.
        let timing = unsafe { self.inner() }.cfg.frame_alloc_rewind_timing;
        Ok((timing, self.frame_alloc.live_byte()))
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
