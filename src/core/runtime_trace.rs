//! The runtime's event-trace calls: start, stop, dump, and the events its
//! frames, runs and continuations record. The ring itself is `trace.rs`,
//! which knows nothing of the runtime.

use super::error::{Error, Result};
use super::runtime::Runtime;
use super::trace::*;
use super::types::{Outcome, TaskState, Timing, TIMING_COUNT};

impl Runtime {
    /// Starts recording into a ring of `events` events (rounded up to a
    /// power of two, [`TRACE_MIN_EVENTS`] to [`TRACE_MAX_EVENTS`], else
    /// `CountOutOfRange`) with `flags` ([`TRACE_RUNS`],
    /// [`TRACE_CONTINUATIONS`]; other bits or none: `InvalidArgument`).
    /// Starting again restarts (the ring is emptied; reallocated only when
    /// its size changes). Owner thread.
    pub fn trace_start(&self, events: u32, flags: u32) -> Result<()> {
        self.check_owner()?;
        if !(TRACE_MIN_EVENTS..=TRACE_MAX_EVENTS).contains(&events) {
            return Err(Error::CountOutOfRange);
        }
        // Continuation events nest in run events: never one without the other.
        if flags & TRACE_RUNS == 0 || flags & !TRACE_ALL != 0 {
            return Err(Error::InvalidArgument);
        }
        // SAFETY: owner thread, short borrow.
        let inner = unsafe { self.inner() };
        // Every run is recorded from now on: none is skipped (`frame/idle.rs`).
        inner.timings.clear_idle();
        inner.trace.start(events, flags, self.tag)
    }

    /// Stops recording; what was recorded stays readable. Stopping a trace
    /// that is not recording does nothing (`Ok`). Owner thread.
    pub fn trace_stop(&self) -> Result<()> {
        self.check_owner()?;
        // SAFETY: owner thread, short borrow.
        unsafe { self.inner() }.trace.on = false;
        Ok(())
    }

    /// (events held, events overwritten since the start). Owner thread.
    pub fn trace_counts(&self) -> Result<(u64, u64)> {
        self.check_owner()?;
        // SAFETY: owner thread, short borrow.
        Ok(unsafe { self.inner() }.trace.counts())
    }

    /// The recorded events as Chrome trace event JSON, lent to `read`
    /// (kept, and remade only after new events). Owner thread.
    pub fn trace_json<R>(&self, read: impl FnOnce(&str) -> R) -> Result<R> {
        self.check_owner()?;
        // SAFETY: owner thread, short borrow; `read` is the caller's
        // conversion (no host code).
        let t = &mut unsafe { self.inner() }.trace;
        t.render()?;
        Ok(read(&t.json))
    }

    /// Whether tracing is on (owner thread: the callers checked it).
    #[inline(always)]
    pub(super) fn tracing(&self) -> bool {
        // SAFETY: owner thread, short borrow.
        unsafe { self.inner() }.trace.on
    }

    #[inline]
    fn trace_now(&self) -> u64 {
        // SAFETY: owner thread (tracing code runs only there), short borrow.
        unsafe { self.inner() }.trace.now()
    }

    #[inline]
    fn trace_span(&self, kind: u8, start: u64, fill: impl FnOnce(&mut Event)) {
        // SAFETY: owner thread, short borrow; `fill` runs no host code.
        unsafe { self.inner() }.trace.span(kind, start, fill);
    }

    #[inline]
    fn trace_has(&self, flag: u32) -> bool {
        // SAFETY: owner thread, short borrow.
        unsafe { self.inner() }.trace.flags & flag != 0
    }

    /// Recording is on, with every resumed wait ([`TRACE_CONTINUATIONS`]).
    pub(super) fn tracing_continuations(&self) -> bool {
        self.tracing() && self.trace_has(TRACE_CONTINUATIONS)
    }

    /// Frame begin: the frame marker and the runtime's counters.
    pub(super) fn trace_frame(&self) {
        if !self.tracing() {
            return;
        }
        // SAFETY: owner thread, short borrow; no host code runs.
        let inner = unsafe { self.inner() };
        let t = &inner.timings;
        let pending: u64 = t.counts.iter().zip(inner.lanes.counts.iter()).map(|(q, l)| q.pending() + l.pending()).sum();
        let (frame, live) = (t.host_frame(), inner.tasks.live());
        let now = inner.trace.now();
        let sat = |v: u64| v.min(u32::MAX as u64) as u32;
        inner.trace.push(Event {
            start: now,
            kind: kind::FRAME,
            a: frame,
            b: sat(pending),
            c: sat(live),
            ..Event::default()
        });
    }

    /// A tick while tracing (see [`Runtime::tick_allowed`], which this
    /// follows step by step): rewind, drain, watches, the run, each timed.
    pub(super) fn tick_traced(&self, timing: Timing) {
        let t0 = self.trace_now();
        if self.rewind_if_due(timing) {
            self.trace_span(kind::REWIND, t0, |_| {});
        }
        self.drain_traced();
        self.poll_watches();
        // Runs only: the untimed loop (a resumed wait then costs what it costs untraced).
        let tally = if self.trace_has(TRACE_CONTINUATIONS) {
            self.run_queue::<false, false, true>(timing as usize)
        } else {
            self.run_queue::<false, false, false>(timing as usize)
        };
        // SAFETY: owner thread, short borrow.
        let frame = unsafe { self.inner() }.timings.host_frame();
        let sat = |v: u64| v.min(u32::MAX as u64) as u32;
        let (done, canceled): (u64, u64) = (tally.done.iter().sum(), tally.canceled.iter().sum());
        self.trace_span(kind::RUN, t0, |e| {
            e.timing = timing as u8;
            e.a = frame;
            e.b = sat(done + canceled);
            e.c = sat(canceled);
        });
        debug_assert!((timing as usize) < TIMING_COUNT);
    }

    /// Drains cross-thread completions as a timed, counted span (none when
    /// there is nothing to drain).
    pub(super) fn drain_traced(&self) {
        let head = self.queued.take_all();
        if head == 0 {
            return;
        }
        let mut n = 0u32;
        let mut cur = head;
        while cur != 0 {
            n += 1;
            cur = self.slot(cur - 1).next_queued.load(std::sync::atomic::Ordering::Relaxed);
        }
        let t0 = self.trace_now();
        self.drain_list(head);
        self.trace_span(kind::DRAIN, t0, |e| e.b = n);
    }

    /// The start of a resumed wait's span (the run loop's traced
    /// instance), or `None` when continuations are not recorded.
    #[inline]
    pub(super) fn trace_resume_start(&self) -> Option<u64> {
        self.trace_has(TRACE_CONTINUATIONS).then(|| self.trace_now())
    }

    /// The end of a resumed wait's span.
    #[inline]
    pub(super) fn trace_resume_end(&self, start: Option<u64>, callback: bool, state: TaskState) {
        if let Some(t0) = start {
            self.trace_span(kind::CONT, t0, |e| {
                e.sub = callback as u8;
                e.state = state as u8;
            });
        }
    }

    /// A combinator output settles with `o` (`all`: a WhenAll): `complete`
    /// completes it (running its continuation), timed when tracing.
    #[inline(always)]
    pub(super) fn trace_settle(&self, all: bool, o: &Outcome, complete: impl FnOnce()) {
        if !self.tracing() {
            return complete();
        }
        self.settle_traced(all, o.state, o.index, complete);
    }

    #[cold]
    #[inline(never)]
    fn settle_traced(&self, all: bool, state: TaskState, index: u32, complete: impl FnOnce()) {
        let t0 = self.trace_now();
        complete();
        self.trace_span(kind::SETTLE, t0, |e| {
            e.sub = all as u8;
            e.state = state as u8;
            e.a = index as u64;
        });
    }

    /// An explicit frame-allocator rewind, timed when tracing.
    #[inline(always)]
    pub(super) fn trace_rewind(&self, rewind: impl FnOnce()) {
        if !self.tracing() {
            return rewind();
        }
        let t0 = self.trace_now();
        rewind();
        self.trace_span(kind::REWIND, t0, |e| e.state = 1);
    }
}
