//! `#[repr(C)]` types of the C ABI.

use std::ffi::c_void;

use super::status::OnityStatus;
use crate::core;

/// ABI version of this header: `major << 16 | minor`. The major changes on
/// any incompatible change; the minor when functions or enum values are added.
/// Compare with `onity_abi_version()` at startup.
pub const ONITY_ABI_VERSION: u32 = 0x0001_0001;

/// A continuation. `task` is the completed task's handle (0 for callback
/// waits, which have no task); `state` is its `OnityTaskState`. It runs on the
/// owner thread. It may call any `onity_*` function except
/// `onity_runtime_destroy`, which returns `ONITY_STATUS_REENTRANT` while any
/// continuation or callback is running.
pub type OnityCallback = Option<unsafe extern "C" fn(user: *mut c_void, task: u64, state: u32)>;

/// Player-loop timings, in the order Unity runs them in a frame (UniTask's
/// `PlayerLoopTiming`). Functions take them as `uint32_t`; other values are
/// rejected with `ONITY_STATUS_INVALID_ARGUMENT`.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnityTiming {
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
pub const ONITY_TIMING_COUNT: u32 = 16;

/// Clocks for `onity_delay`. Passed as `uint32_t`.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnityClock {
    /// Sum of `delta_time` of the frames begun since the delay was created.
    Scaled = 0,
    /// Sum of `unscaled_delta_time`.
    Unscaled = 1,
    /// `realtime` of the current frame minus `realtime` of the creation frame
    /// (of the first frame, for a delay created before any frame began).
    Realtime = 2,
}

/// State of a task, as returned by `onity_task_state` and given to
/// continuations. Passed as `uint32_t`.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnityTaskState {
    Pending = 0,
    Succeeded = 1,
    Faulted = 2,
    Canceled = 3,
}

/// Indices into `OnityStats::pools`.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnityPool {
    /// Task slots. Slots are never freed while the runtime lives (a slot's
    /// generation must outlive every handle to it). `capacity` is the number
    /// of slots allocated (in chunks of 1024; at least the configured
    /// `task_capacity`, which are allocated up front); a rent of a never-used
    /// slot beyond the configured capacity is a cold allocation; a slot whose
    /// 32-bit generation is exhausted is retired for good (a discard).
    Tasks = 0,
    /// Cancellation source slots (same rules as tasks).
    CancelSources = 1,
    /// Wait records in the 16 timing queues: `live` records queued, `idle`
    /// spare record storage, `cold_allocations` queue growths, `discards`
    /// records of storage released when a queue shrinks back to `capacity / 16`.
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

/// Number of entries in `OnityStats::pools`.
pub const ONITY_POOL_COUNT: usize = 9;

/// Wait kinds, indices into `OnityStats::waits`.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnityWaitKind {
    Yield = 0,
    NextFrame = 1,
    DelayFrame = 2,
    Delay = 3,
}

/// Number of entries in `OnityStats::waits`.
pub const ONITY_WAIT_KIND_COUNT: usize = 4;

/// Most inputs `onity_when_any` / `onity_when_all` accept.
pub const ONITY_MAX_COMBINATOR_INPUTS: u32 = 4096;
const _: () = assert!(ONITY_MAX_COMBINATOR_INPUTS == core::MAX_COMBINATOR_INPUTS);

/// Runtime configuration. Fill with `onity_runtime_config_init(&c,
/// sizeof c)` (every field) or `onity_runtime_config_default(&c)` (the ABI
/// 1.0 fields, `size = ONITY_RUNTIME_CONFIG_SIZE_1_0`), then change fields.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct OnityRuntimeConfig {
    /// `sizeof(OnityRuntimeConfig)`, or `ONITY_RUNTIME_CONFIG_SIZE_1_0`.
    pub size: u32,
    /// Task slots allocated up front. Default 4096.
    pub task_capacity: u32,
    /// Cancellation source slots allocated up front. Default 256.
    pub cancel_capacity: u32,
    /// Wait records of storage each timing queue keeps after a burst. Default 8192.
    pub wait_capacity: u32,
    /// WhenAny / WhenAll coordinators kept for up to 16 inputs. Default 256.
    pub combinator16_capacity: u32,
    /// WhenAny / WhenAll coordinators kept for 17 to 32 inputs. Default 128.
    pub combinator32_capacity: u32,
    /// The `OnityTiming` at whose first run in each frame the frame allocator
    /// is rewound, or `ONITY_FRAME_ALLOC_REWIND_MANUAL` (only
    /// `onity_frame_alloc_rewind`). Default `ONITY_TIMING_INITIALIZATION`.
    pub frame_alloc_rewind_timing: u32,
    /// Non-zero: fill released frame memory with 0xDD on rewind, and new
    /// blocks when reserved (debug aid: use after rewind and reads before
    /// writes show up; like `frame_alloc_prefault`, it makes blocks resident).
    pub frame_alloc_poison: u32,
    /// Size of the frame allocator's first block per lifetime (bytes, rounded
    /// up to 4096; blocks double from there up to 64 MiB). Default 256 KiB.
    pub frame_alloc_first_block_bytes: u64,
    /// Smallest chunk a thread claims at once (bytes; below 64, 0 included,
    /// it is 64, and it is rounded up to 64). Default 16 KiB.
    pub frame_alloc_chunk_bytes: u64,
    /// Cap on bytes the frame allocator reserves from the OS; 0 = none.
    pub frame_alloc_max_bytes: u64,
    // Fields below were appended in ABI 1.1. A config whose `size` is
    // `ONITY_RUNTIME_CONFIG_SIZE_1_0` (it ends here) is accepted and gets
    // their defaults.
    /// Largest chunk a thread takes at once (bytes, rounded up to 64): a
    /// thread's home chunk is at most the largest power of two at or below
    /// it, or the smallest at or above `frame_alloc_chunk_bytes` when that is
    /// larger (a frame needing more uses up to 16 such segments), and larger
    /// requests are carved directly from blocks. 0 means the default (64 MiB,
    /// or `frame_alloc_chunk_bytes` when that is larger); otherwise from
    /// `frame_alloc_chunk_bytes` (at least 64, at most 2^48; compared before
    /// rounding) to 2^48, else `onity_runtime_create` returns
    /// `INVALID_ARGUMENT`. Chunks never
    /// exceed 2 GiB: larger values (here and in `frame_alloc_chunk_bytes`)
    /// act as 2 GiB.
    pub frame_alloc_max_chunk_bytes: u64,
    /// 1: touch every page of a frame allocator block when it is reserved, so
    /// that allocations never page-fault later (no first-touch hitch in a
    /// frame) at the cost of keeping the reserved bytes resident. 0 or 1,
    /// else `INVALID_ARGUMENT`. Default 0.
    pub frame_alloc_prefault: u32,
    /// Must be 0 (`INVALID_ARGUMENT` otherwise).
    pub reserved: u32,
}

/// `OnityRuntimeConfig::size` of ABI 1.0 callers (the struct before
/// `frame_alloc_max_chunk_bytes` was appended); `onity_runtime_create`
/// accepts it and uses the defaults for the later fields.
pub const ONITY_RUNTIME_CONFIG_SIZE_1_0: u32 = 56;
const _: () = assert!(
    ONITY_RUNTIME_CONFIG_SIZE_1_0 as usize == std::mem::offset_of!(OnityRuntimeConfig, frame_alloc_max_chunk_bytes)
);

/// `OnityRuntimeConfig::frame_alloc_rewind_timing` value: no automatic rewind.
pub const ONITY_FRAME_ALLOC_REWIND_MANUAL: u32 = 16;

impl Default for OnityRuntimeConfig {
    fn default() -> Self {
        let c = core::Config::default();
        OnityRuntimeConfig {
            size: std::mem::size_of::<OnityRuntimeConfig>() as u32,
            task_capacity: c.task_capacity,
            cancel_capacity: c.cancel_capacity,
            wait_capacity: c.wait_capacity,
            combinator16_capacity: c.combinator16_capacity,
            combinator32_capacity: c.combinator32_capacity,
            frame_alloc_rewind_timing: c
                .frame_alloc_rewind_timing
                .map_or(ONITY_FRAME_ALLOC_REWIND_MANUAL, |t| t as u32),
            frame_alloc_poison: c.frame_alloc.poison_on_rewind as u32,
            frame_alloc_first_block_bytes: c.frame_alloc.first_block_bytes as u64,
            frame_alloc_chunk_bytes: c.frame_alloc.chunk_bytes as u64,
            frame_alloc_max_bytes: c.frame_alloc.max_bytes as u64,
            frame_alloc_max_chunk_bytes: c.frame_alloc.max_chunk_bytes as u64,
            frame_alloc_prefault: c.frame_alloc.prefault as u32,
            reserved: 0,
        }
    }
}

/// Time values of a frame, for `onity_runtime_frame_begin`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct OnityFrameInfo {
    /// `sizeof(OnityFrameInfo)`.
    pub size: u32,
    pub reserved: u32,
    /// Frame number (e.g. Unity's `Time.frameCount`); must increase.
    pub frame: u64,
    /// Scaled seconds since the previous frame (`Time.deltaTime`).
    pub delta_time: f64,
    /// Unscaled seconds since the previous frame (`Time.unscaledDeltaTime`).
    pub unscaled_delta_time: f64,
    /// Absolute real-time seconds (`Time.realtimeSinceStartupAsDouble`).
    pub realtime: f64,
}

/// What a consumed task produced.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OnityOutcome {
    /// Result payload (when `state` is `ONITY_TASK_STATE_SUCCEEDED`).
    pub value: u64,
    /// Error code (when `state` is `ONITY_TASK_STATE_FAULTED`).
    pub error: i32,
    /// An `OnityTaskState`.
    pub state: u32,
    /// WhenAny: index of the winning input. WhenAll: index of the first
    /// input (in completion order) that faulted or was canceled. Otherwise
    /// `UINT32_MAX`.
    pub index: u32,
    pub reserved: u32,
}

impl From<core::Outcome> for OnityOutcome {
    fn from(o: core::Outcome) -> Self {
        OnityOutcome { value: o.value, error: o.error, state: o.state as u32, index: o.index, reserved: 0 }
    }
}

/// Counters of one pool. `live` objects are handed out, `idle` ones kept for
/// reuse (at most `capacity`). A rent with nothing idle is a cold allocation;
/// a return with the idle list full is a discard.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OnityPoolStats {
    pub capacity: u64,
    pub idle: u64,
    pub live: u64,
    pub high_water: u64,
    pub rents: u64,
    pub returns: u64,
    pub cold_allocations: u64,
    pub discards: u64,
}

impl From<core::PoolStats> for OnityPoolStats {
    fn from(p: core::PoolStats) -> Self {
        OnityPoolStats {
            capacity: p.capacity,
            idle: p.idle,
            live: p.live,
            high_water: p.high_water,
            rents: p.rents,
            returns: p.returns,
            cold_allocations: p.cold_allocations,
            discards: p.discards,
        }
    }
}

/// Counters of one wait kind.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OnityWaitStats {
    pub pending: u64,
    pub high_water: u64,
    pub scheduled: u64,
    pub completed: u64,
    pub canceled: u64,
}

/// Everything `onity_runtime_stats` reports.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct OnityStats {
    /// `sizeof(OnityStats)`, set by the caller.
    pub size: u32,
    /// `ONITY_POOL_COUNT`.
    pub pool_count: u32,
    /// Indexed by `OnityPool`.
    pub pools: [OnityPoolStats; ONITY_POOL_COUNT],
    /// Indexed by `OnityWaitKind`.
    pub waits: [OnityWaitStats; ONITY_WAIT_KIND_COUNT],
    /// Tasks created and not consumed.
    pub live_tasks: u64,
    /// Tasks completed but not consumed: a growing number is a leak.
    pub completed_unconsumed: u64,
    /// Tasks completed on other threads whose continuations have not run yet.
    pub cross_thread_queued: u64,
    /// The current frame number.
    pub frame: u64,
    /// The frame allocator.
    pub frame_alloc: OnityFrameAllocStats,
}

/// Counters of the frame allocator.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OnityFrameAllocStats {
    /// Requested bytes of live allocations (this frame's, plus the two-frame
    /// allocations of the previous frame).
    pub bytes_in_use: u64,
    /// Bytes carved out of blocks: live allocations with their padding, the
    /// unused tails of threads' chunks, and the home chunks threads keep
    /// (also those of threads idle now, until reclaimed).
    pub bytes_claimed: u64,
    /// Bytes reserved from the OS.
    pub bytes_reserved: u64,
    /// Blocks reserved from the OS (kept across rewinds).
    pub blocks: u64,
    /// Highest `bytes_in_use` seen.
    pub high_water_bytes_in_use: u64,
    pub rewinds: u64,
    /// Blocks ever allocated: constant in a steady state (under
    /// `frame_alloc_max_bytes`, possibly only from 8 rewinds after a heavier
    /// frame: see the allocator's documentation).
    pub os_allocations: u64,
    pub allocations: u64,
    /// Allocations the allocator refused (calls the C ABI rejects before it:
    /// a NULL `out_ptr` or a bad lifetime, are not counted).
    pub failed_allocations: u64,
}

impl OnityStats {
    pub(crate) fn from_core(s: &core::Stats) -> Self {
        let w = |w: core::WaitStats| OnityWaitStats {
            pending: w.pending,
            high_water: w.high_water,
            scheduled: w.scheduled,
            completed: w.completed,
            canceled: w.canceled,
        };
        OnityStats {
            size: std::mem::size_of::<OnityStats>() as u32,
            pool_count: ONITY_POOL_COUNT as u32,
            pools: [
                s.tasks.into(),
                s.cancel_sources.into(),
                s.wait_records.into(),
                s.when_any[0].into(),
                s.when_any[1].into(),
                s.when_any[2].into(),
                s.when_all[0].into(),
                s.when_all[1].into(),
                s.when_all[2].into(),
            ],
            waits: [w(s.waits[0]), w(s.waits[1]), w(s.waits[2]), w(s.waits[3])],
            live_tasks: s.live_tasks,
            completed_unconsumed: s.completed_unconsumed,
            cross_thread_queued: s.cross_thread_queued,
            frame: s.frame,
            frame_alloc: OnityFrameAllocStats::default(),
        }
    }
}

impl From<core::Error> for OnityStatus {
    fn from(e: core::Error) -> Self {
        use core::Error as E;
        match e {
            E::InvalidHandle => OnityStatus::InvalidHandle,
            E::StaleHandle => OnityStatus::StaleHandle,
            E::ForeignHandle => OnityStatus::ForeignHandle,
            E::WrongThread => OnityStatus::WrongThread,
            E::InvalidArgument => OnityStatus::InvalidArgument,
            E::CountOutOfRange => OnityStatus::CountOutOfRange,
            E::DuplicateInput => OnityStatus::DuplicateInput,
            E::TaskPending => OnityStatus::TaskPending,
            E::AlreadyCompleted => OnityStatus::AlreadyCompleted,
            E::AlreadyAwaited => OnityStatus::AlreadyAwaited,
            E::Reentrant => OnityStatus::Reentrant,
            E::FrameOrder => OnityStatus::FrameOrder,
            E::Exhausted => OnityStatus::Exhausted,
        }
    }
}
