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
//! - for the frame allocator's automatic rewind timing: a rewind now would
//!   release nothing (no frame allocation since the last rewind, and no
//!   TwoFrames allocation of the epoch before:
//!   [`FrameAllocator::rewind_idle`](super::frame_alloc::FrameAllocator::rewind_idle)).
//!
//! The byte is cleared by everything that breaks one of these: every wait
//! pushed into the timing (one store in `Timings::push` and
//! `push_frame_wait`), every fast record filed for it (`Lanes::file`), for
//! every timing a second lane, a watched combinator, or tracing started,
//! and for the rewind timing the first frame allocation of each lifetime
//! in an epoch, on any thread (the allocator's slow path, once the host
//! took the bytes' address: [`Runtime::idle_bytes`]). It is only ever set
//! by a run of its timing.
//!
//! The rewind timing's byte is stored 1 and then the allocator re-read
//! (both sequentially consistent, as the allocator's bit set and byte
//! clear), so an allocation racing with the publish always leaves it 0.
//! An allocation on another thread just after the host read 1 and skipped
//! the run is rewound one run later: frame memory lives at least until
//! its rewind, later when the host skipped runs with nothing to do.
//!
//! What other threads add is not in the byte: tasks they complete go
//! through the cross-thread stack, whose head the host reads too
//! ([`Runtime::cross_thread_head`]); a run is skipped only when it is 0.
//! Canceling a source from another thread changes nothing a run of an idle
//! timing would do (no wait and no watch holds a token).

use std::sync::atomic::Ordering;

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
        }
    }

    /// [`Runtime::publish_idle`] for a timing whose queue is empty.
    #[cold]
    #[inline(never)]
    fn publish_idle_empty(&self, timing: Timing) {
        let t = timing as usize;
        // SAFETY: owner thread (the caller ran the timing), short borrow.
        let inner = unsafe { self.inner() };
        let idle =
            !cfg!(feature = "tracy") && !inner.trace.on && inner.comb.watches().is_empty() && inner.lanes.idle(t);
        if !idle || inner.cfg.frame_alloc_rewind_timing != Some(timing) {
            inner.timings.set_idle(t, idle);
            return;
        }
        // The rewind timing: 1, then the allocator re-read (pairs with
        // `Live::note`'s bit set then byte clear; see the module docs).
        let byte = inner.timings.idle_byte(t);
        byte.store(1, Ordering::SeqCst);
        if !self.frame_alloc.rewind_idle() {
            byte.store(0, Ordering::SeqCst);
        }
    }

    /// Where the runtime's idle bytes are: timing `t`'s byte is at the
    /// address plus `t` times the stride (each sits beside its timing's
    /// queue, where a push clears it through an address it has already).
    /// Non-zero when a run of `t` now would do nothing but what the host
    /// sees itself (its own batch's unfiled records, the cross-thread
    /// stack). Valid while the runtime lives and does not move; read on
    /// the owner thread, between calls, never written. Owner thread
    /// (`WrongThread`).
    ///
    /// From this call on, the frame allocator clears the rewind timing's
    /// byte through its address when any thread allocates (module docs).
    ///
    /// # Safety
    /// The runtime does not move while it lives (it is boxed, as the C
    /// ABI's): the allocator keeps the byte's address.
    pub unsafe fn idle_bytes(&self) -> super::error::Result<(*const u8, usize)> {
        self.check_owner()?;
        // SAFETY: the runtime's own state, live; no reference is made.
        let (first, stride) =
            unsafe { super::timing::Timings::idle_bytes(std::ptr::addr_of!((*self.inner_raw()).timings)) };
        // SAFETY: owner thread (checked), short borrow.
        if let Some(t) = unsafe { self.inner() }.cfg.frame_alloc_rewind_timing {
            // SAFETY: the byte is the runtime's and stays in place while it
            // lives (the caller's contract); the allocator dies with it.
            unsafe { self.frame_alloc.set_idle_hook(first.add(t as usize * stride).cast()) };
        }
        Ok((first, stride))
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
