//! Plain value types of the runtime API, and the enums that cross the C
//! boundary.
//!
//! This file is the one definition of those enums ([`Timing`], [`Clock`],
//! [`TaskState`], [`Pool`], [`WaitKind`], [`Lifetime`]): cbindgen renders
//! them into `include/onity.h` as `OnityTiming`, `OnityClock`, ... (see
//! `build.rs` and `cbindgen.toml`), `src/ffi` re-exports them under those
//! names, and the C++ wrapper and the C# binding are generated from the
//! header or checked against it by tests.

use std::ffi::{c_void, CStr};

/// `ALL` (every value, in value order) and `from_u32` (`None` out of range)
/// of a boundary enum whose values are `0..$count`, `$last` the greatest.
macro_rules! dense_values {
    ($t:ident, $count:expr, $last:ident) => {
        const _: () = assert!($t::$last as usize + 1 == $count);

        impl $t {
            /// Every value, in value order.
            pub const ALL: [$t; $count] = {
                let mut all = [$t::nth(0); $count];
                let mut i = 0;
                while i < $count {
                    all[i] = $t::nth(i as u32);
                    i += 1;
                }
                all
            };

            /// The value `v`, or `None` out of range.
            #[inline(always)]
            pub fn from_u32(v: u32) -> Option<$t> {
                (v < $count as u32).then(|| $t::nth(v))
            }

            /// The value `v`, which is below `$count`.
            #[inline(always)]
            const fn nth(v: u32) -> $t {
                // SAFETY: `repr(u32)` with the values `0..$count` (written
                // out, the last asserted above), and `v < $count`.
                unsafe { std::mem::transmute::<u32, $t>(v) }
            }
        }
    };
}

/// Player-loop timings, in the order Unity runs them in a frame (UniTask's
/// `PlayerLoopTiming`). Functions take them as `uint32_t`; other values are
/// rejected with `ONITY_STATUS_INVALID_ARGUMENT`.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Timing {
    Initialization = 0,
    LastInitialization = 1,
    EarlyUpdate = 2,
    LastEarlyUpdate = 3,
    FixedUpdate = 4,
    LastFixedUpdate = 5,
    PreUpdate = 6,
    LastPreUpdate = 7,
    Update = 8,
    LastUpdate = 9,
    PreLateUpdate = 10,
    LastPreLateUpdate = 11,
    PostLateUpdate = 12,
    LastPostLateUpdate = 13,
    TimeUpdate = 14,
    LastTimeUpdate = 15,
}

/// Number of timings.
pub const TIMING_COUNT: usize = 16;
dense_values!(Timing, TIMING_COUNT, LastTimeUpdate);

impl Timing {
    const NAMES: [&'static CStr; TIMING_COUNT] = [
        c"Initialization",
        c"LastInitialization",
        c"EarlyUpdate",
        c"LastEarlyUpdate",
        c"FixedUpdate",
        c"LastFixedUpdate",
        c"PreUpdate",
        c"LastPreUpdate",
        c"Update",
        c"LastUpdate",
        c"PreLateUpdate",
        c"LastPreLateUpdate",
        c"PostLateUpdate",
        c"LastPostLateUpdate",
        c"TimeUpdate",
        c"LastTimeUpdate",
    ];

    /// The timing's name ("Update", ...).
    pub fn name(self) -> &'static CStr {
        Self::NAMES[self as usize]
    }
}

/// Clocks for `onity_delay`. Passed as `uint32_t`.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clock {
    /// Sum of `delta_time` of the frames begun since the delay was created.
    Scaled = 0,
    /// Sum of `unscaled_delta_time`.
    Unscaled = 1,
    /// `realtime` of the current frame minus `realtime` of the creation frame
    /// (of the first frame, for a delay created before any frame began).
    Realtime = 2,
}
dense_values!(Clock, 3, Realtime);

/// State of a task, as returned by `onity_task_state` and given to
/// continuations. Passed as `uint32_t`.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskState {
    Pending = 0,
    Succeeded = 1,
    Faulted = 2,
    Canceled = 3,
}

/// Wait kinds, indices into `OnityStats::waits`.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitKind {
    Yield = 0,
    NextFrame = 1,
    DelayFrame = 2,
    Delay = 3,
}

/// Number of wait kinds.
pub const WAIT_KIND_COUNT: usize = 4;
dense_values!(WaitKind, WAIT_KIND_COUNT, Delay);

/// Indices into `OnityStats::pools`.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pool {
    /// Task slots. Slots are never freed while the runtime lives (a slot's
    /// generation must outlive every handle to it). `capacity` is the number
    /// of slots allocated (in chunks of 1024; at least the configured
    /// `task_capacity`, which are allocated up front); a rent of a never-used
    /// slot beyond the configured capacity is a cold allocation; a slot whose
    /// 32-bit generation is exhausted is retired for good (a discard).
    Tasks = 0,
    /// Cancellation source slots (same rules as tasks).
    CancelSources = 1,
    /// Wait records in the 16 timing queues and their far-future stores:
    /// `capacity` records of storage allocated now, `live` records queued,
    /// `idle` = `capacity` - `live`, `cold_allocations` storage growths,
    /// `discards` records of storage released when a queue or store shrinks
    /// back to `wait_capacity`.
    WaitRecords = 2,
    /// WhenAny coordinators for 1-16 inputs (256 kept by default).
    WhenAny16 = 3,
    /// WhenAny coordinators for 17-32 inputs (128 kept by default).
    WhenAny32 = 4,
    /// WhenAny coordinators for more than 32 inputs (never pooled).
    WhenAnyLarge = 5,
    /// WhenAll coordinators for 1-16 inputs.
    WhenAll16 = 6,
    /// WhenAll coordinators for 17-32 inputs.
    WhenAll32 = 7,
    /// WhenAll coordinators for more than 32 inputs (never pooled).
    WhenAllLarge = 8,
}

/// Number of pools.
pub const POOL_COUNT: usize = 9;

impl Pool {
    const NAMES: [&'static CStr; POOL_COUNT] = [
        c"tasks",
        c"cancel_sources",
        c"wait_records",
        c"when_any_16",
        c"when_any_32",
        c"when_any_large",
        c"when_all_16",
        c"when_all_32",
        c"when_all_large",
    ];

    /// The pool's name ("tasks", ...), or `None` for a value out of range.
    pub fn name_of(v: u32) -> Option<&'static CStr> {
        Self::NAMES.get(v as usize).copied()
    }
}

/// Lifetimes of frame allocations. Passed as `uint32_t`.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lifetime {
    /// Valid until the next rewind.
    Frame = 0,
    /// Valid until the second rewind from now.
    TwoFrames = 1,
}
dense_values!(Lifetime, 2, TwoFrames);

/// What a consumed task produced.
///
/// `repr(C)`: its layout is fixed, so a layer above may copy arrays of
/// outcomes (WhenAll results) into a type of the same layout at once (it
/// asserts the layout on its side).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// The result payload (`Succeeded`).
    pub value: u64,
    /// The error code (`Faulted`).
    pub error: i32,
    pub state: TaskState,
    /// WhenAny: the winner's index. WhenAll: the index of the first input that
    /// failed or was canceled. Otherwise `u32::MAX`.
    pub index: u32,
    /// Always 0.
    pub reserved: u32,
}

impl Outcome {
    pub const PENDING: Outcome = Outcome::new(TaskState::Pending, 0, 0, u32::MAX);

    #[inline(always)]
    pub const fn new(state: TaskState, value: u64, error: i32, index: u32) -> Outcome {
        Outcome { value, error, state, index, reserved: 0 }
    }
}

/// A continuation: a function pointer, called with its user pointer, the
/// task handle (0 for callback waits) and the final [`TaskState`] as `u32`.
/// It uses the platform's C calling convention (`extern "C"`) so that code
/// in any language registers it and the runtime calls it directly, with no
/// thunk; the runtime assumes nothing else about the caller.
pub type CallbackFn = unsafe extern "C" fn(user: *mut c_void, task: u64, state: u32);

/// Time values of a frame, given at frame begin.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrameInfo {
    pub frame: u64,
    pub delta_time: f64,
    pub unscaled_delta_time: f64,
    pub realtime: f64,
}

/// Most inputs a WhenAny / WhenAll accepts.
pub const MAX_COMBINATOR_INPUTS: u32 = 4096;

#[cfg(test)]
mod tests {
    use super::*;

    /// The timing names are the enum's variants (the one list; the C# enum is generated from the
    /// header, and the C# tests compare it with `onity_timing_name`).
    #[test]
    fn timing_names_are_the_variants() {
        for t in Timing::ALL {
            assert_eq!(t.name().to_str().unwrap(), format!("{t:?}"));
        }
    }
}

/// The frame state the core publishes at every frame begin (by call or
/// from a host's ring), for a host that reads it without a call: C# counts
/// its frames from `origin` and resyncs its clocks from it. `repr(C)`: a
/// layer above hands out its address (it asserts the layout on its side).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FrameClock {
    /// The newest frame's host number (0 before the first frame).
    pub frame: u64,
    /// The first frame's number minus 1, wrapping (0 before the first
    /// frame): the host's frame count `frame - origin` (mod 2^64) is 1 at
    /// the first frame, 0 before it, and grows with the frame numbers;
    /// differences of it are the core's due arithmetic (`timing/due.rs`:
    /// waits made before the first frame count from the frame before it).
    pub origin: u64,
    /// Frames begun (refused ones not counted).
    pub frames_begun: u64,
    /// The scaled, unscaled and real-time clocks (`Clock` order): the
    /// deltas added in turn, the newest realtime.
    pub clocks: [f64; 3],
}
