//! The frame timeline (issue 20 #2): an optional ring buffer of what each
//! timing run did, dumped as Chrome trace event JSON (Perfetto UI,
//! chrome://tracing).
//!
//! Off by default. [`Runtime::trace_start`](crate::core::Runtime::trace_start) allocates a ring of a fixed
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
use super::types::Timing;

/// Record runs, drains, rewinds, settles and frames.
pub const TRACE_RUNS: u32 = 1;
/// Also record every resumed wait with its continuation (one event each).
pub const TRACE_CONTINUATIONS: u32 = 2;
/// Every flag.
pub const TRACE_ALL: u32 = TRACE_RUNS | TRACE_CONTINUATIONS;
/// Smallest and largest ring, in events (rounded up to a power of two).
pub const TRACE_MIN_EVENTS: u32 = 64;
pub const TRACE_MAX_EVENTS: u32 = 1 << 24;

pub(super) mod kind {
    pub const FRAME: u8 = 1;
    pub const RUN: u8 = 2;
    pub const REWIND: u8 = 3;
    pub const DRAIN: u8 = 4;
    pub const CONT: u8 = 5;
    pub const SETTLE: u8 = 6;
}

/// One recorded event: 32 bytes.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Event {
    /// Nanoseconds since the trace started.
    pub(super) start: u64,
    /// Nanoseconds (saturated at about 4.3 s).
    pub(super) dur: u32,
    pub(super) kind: u8,
    /// The timing (runs), or 0.
    pub(super) timing: u8,
    /// A `TaskState` (continuations, settles), or the rewind's origin.
    pub(super) state: u8,
    /// Continuations: 1 for a callback wait. Settles: 1 for WhenAll.
    pub(super) sub: u8,
    /// Runs and frames: the frame. Settles: the winner / first failure.
    pub(super) a: u64,
    /// Runs: waits resumed. Drains: completions. Frames: pending waits.
    pub(super) b: u32,
    /// Runs: of those, canceled. Frames: live tasks.
    pub(super) c: u32,
}

const _: () = assert!(std::mem::size_of::<Event>() == 32);

/// The ring and its state. Owner thread only.
#[derive(Default)]
pub struct Trace {
    /// Recording is on.
    pub on: bool,
    pub(super) flags: u32,
    ring: Vec<Event>,
    /// Events written since the start (the ring holds the last ones).
    written: u64,
    base: Option<Instant>,
    order: Vec<u32>,
    pub(super) json: String,
    /// `written` when `json` was made (`u64::MAX`: stale).
    json_at: u64,
    tag: u8,
}

impl Trace {
    #[inline]
    pub(super) fn now(&self) -> u64 {
        self.base.map_or(0, |b| b.elapsed().as_nanos() as u64)
    }

    #[inline]
    pub(super) fn push(&mut self, e: Event) {
        if self.ring.is_empty() {
            return;
        }
        let mask = self.ring.len() as u64 - 1;
        self.ring[(self.written & mask) as usize] = e;
        self.written += 1;
    }

    /// A span from `start` to now.
    #[inline]
    pub(super) fn span(&mut self, kind: u8, start: u64, fill: impl FnOnce(&mut Event)) {
        let end = self.now();
        let mut e =
            Event { start, dur: end.saturating_sub(start).min(u32::MAX as u64) as u32, kind, ..Event::default() };
        fill(&mut e);
        self.push(e);
    }

    /// Nothing changes when the ring cannot be allocated (`OutOfMemory`).
    pub(super) fn start(&mut self, events: u32, flags: u32, tag: u8) -> Result<()> {
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
    pub(super) fn counts(&self) -> (u64, u64) {
        let held = self.written.min(self.ring.len() as u64);
        (held, self.written - held)
    }

    /// Writes the held events as Chrome trace JSON into `self.json`;
    /// `OutOfMemory` (and no JSON kept) when it cannot grow.
    pub(super) fn render(&mut self) -> Result<()> {
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
