//! The frame timeline (issue 20 #2): an optional ring buffer of what each
//! timing run did, dumped as Chrome trace event JSON (Perfetto UI,
//! chrome://tracing).
//!
//! Off by default. [`Runtime::trace_start`] allocates a ring of a fixed
//! number of 32-byte events; recording never allocates, and when the ring is
//! full the oldest events are overwritten (counted as dropped). Each event
//! is written when its span ends, with its start and duration, so a ring
//! that wrapped never holds half a span.
//!
//! What is recorded (owner thread, times from the monotonic clock, in
//! nanoseconds since the trace started):
//!
//! | event | when | JSON |
//! |---|---|---|
//! | frame | each frame begin | instant `frame` + counter `runtime` (pending waits, live tasks) |
//! | run | each tick of a timing (also a batch's) | complete event named after the timing: frame, waits resumed, canceled |
//! | rewind | a frame-allocator rewind (automatic or explicit) | complete `frame allocator rewind` |
//! | drain | cross-thread completions drained (tick or drain) | complete `drain`: completions |
//! | continuation | each wait a run resumes (its cancel passes and a later `cancel_pass` included), with its continuation (flag [`TRACE_CONTINUATIONS`]) | complete `callback` / `task`: state |
//! | settle | a WhenAny / WhenAll output completing (its continuation included) | complete `WhenAny` / `WhenAll`: state, index |
//!
//! The hot paths pay nothing while tracing is off: a tick, a drain, a frame
//! begin and a rewind test one flag once, a combinator settle tests it once;
//! the per-wait timing is in a separate instance of the run loop.

use std::fmt::Write as _;
use std::time::Instant;

use super::error::{Error, Result};
use super::runtime::Runtime;
use super::types::{Outcome, TaskState, Timing, TIMING_COUNT};

/// Record runs, drains, rewinds, settles and frames.
pub const TRACE_RUNS: u32 = 1;
/// Also record every resumed wait with its continuation (one event each).
pub const TRACE_CONTINUATIONS: u32 = 2;
/// Every flag.
pub const TRACE_ALL: u32 = TRACE_RUNS | TRACE_CONTINUATIONS;
/// Smallest and largest ring, in events (rounded up to a power of two).
pub const TRACE_MIN_EVENTS: u32 = 64;
pub const TRACE_MAX_EVENTS: u32 = 1 << 24;

mod kind {
    pub const FRAME: u8 = 1;
    pub const RUN: u8 = 2;
    pub const REWIND: u8 = 3;
    pub const DRAIN: u8 = 4;
    pub const CONT: u8 = 5;
    pub const SETTLE: u8 = 6;
}

/// One recorded event: 32 bytes.
#[derive(Debug, Clone, Copy, Default)]
struct Event {
    /// Nanoseconds since the trace started.
    start: u64,
    /// Nanoseconds (saturated at about 4.3 s).
    dur: u32,
    kind: u8,
    /// The timing (runs), or 0.
    timing: u8,
    /// A `TaskState` (continuations, settles), or the rewind's origin.
    state: u8,
    /// Continuations: 1 for a callback wait. Settles: 1 for WhenAll.
    sub: u8,
    /// Runs and frames: the frame. Settles: the winner / first failure.
    a: u64,
    /// Runs: waits resumed. Drains: completions. Frames: pending waits.
    b: u32,
    /// Runs: of those, canceled. Frames: live tasks.
    c: u32,
}

const _: () = assert!(std::mem::size_of::<Event>() == 32);

/// The ring and its state. Owner thread only.
#[derive(Default)]
pub struct Trace {
    /// Recording is on.
    pub on: bool,
    flags: u32,
    ring: Vec<Event>,
    /// Events written since the start (the ring holds the last ones).
    written: u64,
    base: Option<Instant>,
    order: Vec<u32>,
    json: String,
    /// `written` when `json` was made (`u64::MAX`: stale).
    json_at: u64,
    tag: u8,
}

impl Trace {
    #[inline]
    fn now(&self) -> u64 {
        self.base.map_or(0, |b| b.elapsed().as_nanos() as u64)
    }

    #[inline]
    fn push(&mut self, e: Event) {
        if self.ring.is_empty() {
            return;
        }
        let mask = self.ring.len() as u64 - 1;
        self.ring[(self.written & mask) as usize] = e;
        self.written += 1;
    }

    /// A span from `start` to now.
    #[inline]
    fn span(&mut self, kind: u8, start: u64, fill: impl FnOnce(&mut Event)) {
        let end = self.now();
        let mut e =
            Event { start, dur: end.saturating_sub(start).min(u32::MAX as u64) as u32, kind, ..Event::default() };
        fill(&mut e);
        self.push(e);
    }

    /// Nothing changes when the ring cannot be allocated (`OutOfMemory`).
    fn start(&mut self, events: u32, flags: u32, tag: u8) -> Result<()> {
        let n = events.next_power_of_two() as usize;
        if self.ring.len() != n {
            let (mut ring, mut order) = (Vec::new(), Vec::new());
            ring.try_reserve_exact(n).map_err(|_| Error::OutOfMemory)?;
            order.try_reserve_exact(n).map_err(|_| Error::OutOfMemory)?;
            ring.resize(n, Event::default());
            (self.ring, self.order) = (ring, order);
        }
        self.flags = flags;
        self.written = 0;
        self.json_at = u64::MAX;
        self.base = Some(Instant::now());
        self.tag = tag;
        self.on = true;
        Ok(())
    }

    /// Events held and events overwritten.
    fn counts(&self) -> (u64, u64) {
        let held = self.written.min(self.ring.len() as u64);
        (held, self.written - held)
    }

    /// Writes the held events as Chrome trace JSON into `self.json`;
    /// `OutOfMemory` (and no JSON kept) when it cannot grow.
    fn render(&mut self) -> Result<()> {
        if self.json_at == self.written && !self.json.is_empty() {
            return Ok(());
        }
        let (held, dropped) = self.counts();
        let mask = self.ring.len().saturating_sub(1) as u64;
        self.order.clear();
        self.order.extend((self.written - held..self.written).map(|i| (i & mask) as u32));
        let ring = &self.ring;
        // Start time; a parent (longer) before the children it contains;
        // then recording order (an unstable sort: a stable one allocates).
        let first = (self.written - held) & mask;
        self.order.sort_unstable_by(|&x, &y| {
            let (a, b) = (&ring[x as usize], &ring[y as usize]);
            let seq = |i: u32| (i as u64).wrapping_sub(first) & mask;
            a.start.cmp(&b.start).then(b.dur.cmp(&a.dur)).then(seq(x).cmp(&seq(y)))
        });
        self.json.clear();
        let j = &mut TryString(&mut self.json, false);
        let pid = self.tag;
        let _ = write!(
            j,
            "{{\"displayTimeUnit\":\"ns\",\"otherData\":{{\"producer\":\"onity\",\"format\":1,\"events\":{held},\
             \"dropped\":{dropped}}},\"traceEvents\":[\n\
             {{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{pid},\"tid\":1,\"args\":{{\"name\":\"onity runtime {pid}\"}}}},\n\
             {{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{pid},\"tid\":1,\"args\":{{\"name\":\"owner thread\"}}}}"
        );
        for &i in self.order.iter() {
            let e = ring[i as usize];
            let ts = Us(e.start);
            let head = |j: &mut TryString, name: &str, cat: &str, ph: &str| {
                let _ = write!(
                    j,
                    ",\n{{\"name\":\"{name}\",\"cat\":\"{cat}\",\"ph\":\"{ph}\",\"ts\":{ts},\"pid\":{pid},\"tid\":1"
                );
            };
            match e.kind {
                kind::FRAME => {
                    head(j, "frame", "frame", "i");
                    let _ = write!(j, ",\"s\":\"t\",\"args\":{{\"frame\":{}}}}}", e.a);
                    head(j, "runtime", "counter", "C");
                    let _ = write!(j, ",\"args\":{{\"pending waits\":{},\"live tasks\":{}}}}}", e.b, e.c);
                }
                kind::RUN => {
                    let name = Timing::from_u32(e.timing as u32).map_or("run", |t| t.name().to_str().unwrap_or("run"));
                    head(j, name, "run", "X");
                    let _ = write!(
                        j,
                        ",\"dur\":{},\"args\":{{\"frame\":{},\"resumed\":{},\"canceled\":{}}}}}",
                        Us(e.dur as u64),
                        e.a,
                        e.b,
                        e.c
                    );
                }
                kind::REWIND => {
                    head(j, "frame allocator rewind", "frame_alloc", "X");
                    let how = if e.state == 1 { "explicit" } else { "automatic" };
                    let _ = write!(j, ",\"dur\":{},\"args\":{{\"rewind\":\"{how}\"}}}}", Us(e.dur as u64));
                }
                kind::DRAIN => {
                    head(j, "drain", "drain", "X");
                    let _ = write!(j, ",\"dur\":{},\"args\":{{\"completions\":{}}}}}", Us(e.dur as u64), e.b);
                }
                kind::CONT => {
                    head(j, if e.sub == 1 { "callback" } else { "task" }, "continuation", "X");
                    let _ =
                        write!(j, ",\"dur\":{},\"args\":{{\"state\":\"{}\"}}}}", Us(e.dur as u64), state_name(e.state));
                }
                _ => {
                    head(j, if e.sub == 1 { "WhenAll" } else { "WhenAny" }, "combinator", "X");
                    let _ = write!(
                        j,
                        ",\"dur\":{},\"args\":{{\"state\":\"{}\",\"index\":{}}}}}",
                        Us(e.dur as u64),
                        state_name(e.state),
                        if e.a as u32 == u32::MAX { -1 } else { e.a as i64 }
                    );
                }
            }
        }
        let _ = j.write_str("\n]}\n");
        if j.1 {
            self.json = String::new();
            return Err(Error::OutOfMemory);
        }
        self.json_at = self.written;
        Ok(())
    }
}

/// A `String` that grows fallibly: a write that cannot get room writes
/// nothing and sets `.1`.
struct TryString<'a>(&'a mut String, bool);

impl std::fmt::Write for TryString<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        if self.1 || self.0.try_reserve(s.len()).is_err() {
            self.1 = true;
            return Err(std::fmt::Error);
        }
        self.0.push_str(s);
        Ok(())
    }
}

fn state_name(s: u8) -> &'static str {
    match s {
        1 => "succeeded",
        2 => "faulted",
        3 => "canceled",
        _ => "pending",
    }
}

/// Nanoseconds written as microseconds with three decimals.
struct Us(u64);

impl std::fmt::Display for Us {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{:03}", self.0 / 1000, self.0 % 1000)
    }
}

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
        // Every run is recorded from now on: none is skipped (`idle.rs`).
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
        let (frame, live) = (t.host_frame, inner.tasks.live());
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
        let frame = unsafe { self.inner() }.timings.host_frame;
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
