//! The frame timeline (ABI 1.2): a ring buffer of what each timing run did,
//! read back as Chrome trace event JSON (Perfetto UI, chrome://tracing).
//! Off by default; recording never allocates. The format and what each
//! event means: `docs/observability.md` and `src/core/trace.rs`.

use std::ffi::c_char;

use super::deferred::core_at_frame;
use super::error::{array_arg, Out};
use super::object::OnityRuntime;
use super::status::OnityStatus;
use crate::core::trace;

/// `onity_trace_start` flag: record runs (a complete event per tick of a
/// timing), drains of cross-thread completions, frame-allocator rewinds,
/// WhenAny / WhenAll settles and frame markers with counters.
pub const ONITY_TRACE_RUNS: u32 = 1;
/// `onity_trace_start` flag: also record every wait a run resumes, with the
/// cost of its continuation (one event each). Only with `ONITY_TRACE_RUNS`
/// (the events nest in the runs' events).
pub const ONITY_TRACE_CONTINUATIONS: u32 = 2;
const _: () = assert!(ONITY_TRACE_RUNS == trace::TRACE_RUNS && ONITY_TRACE_CONTINUATIONS == trace::TRACE_CONTINUATIONS);

/// Starts recording into a ring of `events` events of 32 bytes (64 to
/// 16,777,216, rounded up to a power of two; allocated here, and only when
/// its size changes), with `flags` (`ONITY_TRACE_RUNS`, optionally
/// `| ONITY_TRACE_CONTINUATIONS`). When the ring is full the oldest events
/// are overwritten. Starting again restarts from an empty ring. Owner
/// thread. Errors: `NULL_POINTER`, `INVALID_RUNTIME`, `WRONG_THREAD`,
/// `COUNT_OUT_OF_RANGE` (events), `INVALID_ARGUMENT` (flags without
/// `ONITY_TRACE_RUNS`, or with unknown bits), `OUT_OF_MEMORY` (the ring:
/// nothing changed). ABI 1.2.
#[no_mangle]
pub extern "C" fn onity_trace_start(runtime: *mut OnityRuntime, events: u32, flags: u32) -> OnityStatus {
    crate::ffi!({ Ok(core_at_frame(runtime)?.trace_start(events, flags)?) })
}

/// Stops recording; the events recorded stay readable with
/// `onity_trace_dump` (until the next `onity_trace_start`). Stopping a
/// trace that is not recording (stopped, or never started) does nothing
/// and returns `OK`. Owner thread. Errors: `NULL_POINTER`,
/// `INVALID_RUNTIME`, `WRONG_THREAD`. ABI 1.2.
#[no_mangle]
pub extern "C" fn onity_trace_stop(runtime: *mut OnityRuntime) -> OnityStatus {
    crate::ffi!({ Ok(core_at_frame(runtime)?.trace_stop()?) })
}

/// The events the ring holds (`*out_events`) and those overwritten since
/// the start (`*out_dropped`); either output may be NULL. Owner thread.
/// Errors: `NULL_POINTER`, `INVALID_RUNTIME`, `WRONG_THREAD`. ABI 1.2.
#[no_mangle]
pub extern "C" fn onity_trace_counts(
    runtime: *mut OnityRuntime,
    out_events: *mut u64,
    out_dropped: *mut u64,
) -> OnityStatus {
    crate::ffi!({
        let (held, dropped) = core_at_frame(runtime)?.trace_counts()?;
        Out::put_optional(out_events, held);
        Out::put_optional(out_dropped, dropped);
        Ok(())
    })
}

/// Writes the recorded events as Chrome trace event JSON (UTF-8, not
/// NUL-terminated) to `buf` and its length to `*out_len`. When `capacity`
/// is smaller than that length nothing is written to `buf` and the call
/// still succeeds with `*out_len` = the length needed: call again with a
/// larger buffer (`buf` may be NULL then). The JSON is made once per batch
/// of new events and kept by the runtime (no allocation when nothing was
/// recorded since). Owner thread. Errors: `NULL_POINTER` (`out_len`, or
/// `buf` with a non-zero capacity), `INVALID_RUNTIME`, `WRONG_THREAD`,
/// `OUT_OF_MEMORY` (the JSON could not be made; recording goes on, and a
/// later call tries again). ABI 1.2.
#[no_mangle]
pub extern "C" fn onity_trace_dump(
    runtime: *mut OnityRuntime,
    buf: *mut c_char,
    capacity: usize,
    out_len: *mut usize,
) -> OnityStatus {
    crate::ffi!({
        let rt = core_at_frame(runtime)?;
        let out = Out::new(out_len)?;
        array_arg(buf, capacity)?;
        let len = rt.trace_json(|json| {
            if json.len() <= capacity {
                // SAFETY: non-null (checked when capacity > 0; a 0-byte copy
                // otherwise), the caller provides `capacity` writable bytes.
                unsafe { std::ptr::copy_nonoverlapping(json.as_ptr(), buf as *mut u8, json.len()) };
            }
            json.len()
        })?;
        out.set(len)
    })
}
