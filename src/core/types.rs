//! Plain value types of the runtime API.

use std::ffi::c_void;

/// The 16 player-loop phases, in UniTask's `PlayerLoopTiming` order (which is
/// the order Unity runs them in a frame).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u32)]
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

pub const TIMING_COUNT: usize = 16;

impl Timing {
    pub const ALL: [Timing; TIMING_COUNT] = [
        Timing::Initialization,
        Timing::LastInitialization,
        Timing::EarlyUpdate,
        Timing::LastEarlyUpdate,
        Timing::FixedUpdate,
        Timing::LastFixedUpdate,
        Timing::PreUpdate,
        Timing::LastPreUpdate,
        Timing::Update,
        Timing::LastUpdate,
        Timing::PreLateUpdate,
        Timing::LastPreLateUpdate,
        Timing::PostLateUpdate,
        Timing::LastPostLateUpdate,
        Timing::TimeUpdate,
        Timing::LastTimeUpdate,
    ];

    pub fn from_u32(v: u32) -> Option<Timing> {
        Self::ALL.get(v as usize).copied()
    }
}

/// Which clock a time-based delay counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum Clock {
    /// Sum of the frames' `delta_time` (affected by time scale).
    Scaled = 0,
    /// Sum of the frames' `unscaled_delta_time`.
    Unscaled = 1,
    /// The host's real-time clock as given at each frame begin.
    Realtime = 2,
}

impl Clock {
    pub fn from_u32(v: u32) -> Option<Clock> {
        match v {
            0 => Some(Clock::Scaled),
            1 => Some(Clock::Unscaled),
            2 => Some(Clock::Realtime),
            _ => None,
        }
    }
}

/// The kinds of frame waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum WaitKind {
    Yield = 0,
    NextFrame = 1,
    DelayFrame = 2,
    Delay = 3,
}

pub const WAIT_KIND_COUNT: usize = 4;

/// Observable state of a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum TaskState {
    Pending = 0,
    Succeeded = 1,
    Faulted = 2,
    Canceled = 3,
}

/// What a consumed task produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    pub state: TaskState,
    /// The result payload (`Succeeded`).
    pub value: u64,
    /// The error code (`Faulted`).
    pub error: i32,
    /// WhenAny: the winner's index. WhenAll: the index of the first input that
    /// failed or was canceled. Otherwise `u32::MAX`.
    pub index: u32,
}

impl Outcome {
    pub const PENDING: Outcome = Outcome { state: TaskState::Pending, value: 0, error: 0, index: u32::MAX };
}

/// A continuation: a C function pointer and its user pointer. It receives the
/// task handle (0 for callback waits) and the final [`TaskState`] as `u32`.
pub type CallbackFn = unsafe extern "C" fn(user: *mut c_void, task: u64, state: u32);

/// Time values of a frame, given at frame begin.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrameInfo {
    pub frame: u64,
    pub delta_time: f64,
    pub unscaled_delta_time: f64,
    pub realtime: f64,
}

/// Runtime configuration. Capacities are the most idle objects each pool keeps.
#[derive(Debug, Clone, Copy)]
pub struct Config {
    /// Task slots allocated up front (and the task pool's capacity).
    pub task_capacity: u32,
    /// Cancellation source slots allocated up front.
    pub cancel_capacity: u32,
    /// Wait records whose storage each timing queue keeps after a burst.
    pub wait_capacity: u32,
    /// Pooled WhenAny / WhenAll coordinators for up to 16 inputs.
    pub combinator16_capacity: u32,
    /// Pooled WhenAny / WhenAll coordinators for 17 to 32 inputs.
    pub combinator32_capacity: u32,
    /// The frame allocator's configuration.
    pub frame_alloc: crate::core::frame_alloc::FrameAllocConfig,
    /// The timing at whose first run in each frame the frame allocator is
    /// rewound; `None`: only by an explicit `rewind_frame_allocator`.
    pub frame_alloc_rewind_timing: Option<Timing>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            task_capacity: 4096,
            cancel_capacity: 256,
            wait_capacity: 8192,
            combinator16_capacity: 256,
            combinator32_capacity: 128,
            frame_alloc: Default::default(),
            frame_alloc_rewind_timing: Some(Timing::Initialization),
        }
    }
}

/// Most inputs a WhenAny / WhenAll accepts.
pub const MAX_COMBINATOR_INPUTS: u32 = 4096;
