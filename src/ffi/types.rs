//! `#[repr(C)]` types of the C ABI, its constants, and the C names of the
//! enums and counter structs the core defines (`src/core/types.rs`,
//! `pool.rs`, `stats.rs`, `frame_alloc/stats.rs`: their one definition,
//! which cbindgen renders into the header under these names).

use std::ffi::c_void;

use crate::core::frame_alloc::FrameAllocStats;
use crate::core::{self, Pool, PoolStats, WaitStats, POOL_COUNT, TIMING_COUNT, WAIT_KIND_COUNT};

pub use crate::core::frame_alloc::FrameAllocStats as OnityFrameAllocStats;
pub use crate::core::{
    Clock as OnityClock, Lifetime as OnityLifetime, Pool as OnityPool, PoolStats as OnityPoolStats,
    TaskState as OnityTaskState, Timing as OnityTiming, WaitKind as OnityWaitKind, WaitStats as OnityWaitStats,
};

/// ABI version of this header: `major << 16 | minor`. The major changes on
/// any incompatible change; the minor when functions or enum values are added.
/// Compare with `onity_abi_version()` at startup.
pub const ONITY_ABI_VERSION: u32 = 0x0001_0007;

/// ABI 1.6. Entries of the frame ring (`onity_batch_frame_ring`): frames a
/// host may write before a call applies them.
pub const ONITY_FRAME_RING_CAPACITY: u32 = 8;

/// A continuation. `task` is the completed task's handle (0 for callback
/// waits, which have no task); `state` is its `OnityTaskState`. It runs on the
/// owner thread. It may call any `onity_*` function except
/// `onity_runtime_destroy` of its own runtime, which returns
/// `ONITY_STATUS_REENTRANT` while any of that runtime's continuations,
/// callbacks or ticks is running. Destroying another runtime from it is
/// allowed.
pub type OnityCallback = Option<unsafe extern "C" fn(user: *mut c_void, task: u64, state: u32)>;

// The core stores and calls exactly this function type (no conversion).
const _: fn(OnityCallback) -> Option<core::CallbackFn> = |f| f;

/// Number of timings.
pub const ONITY_TIMING_COUNT: u32 = 16;
const _: () = assert!(ONITY_TIMING_COUNT as usize == TIMING_COUNT);

/// Number of entries in `OnityStats::pools`.
pub const ONITY_POOL_COUNT: usize = 9;
const _: () = assert!(ONITY_POOL_COUNT == POOL_COUNT);

/// Number of entries in `OnityStats::waits`.
pub const ONITY_WAIT_KIND_COUNT: usize = 4;
const _: () = assert!(ONITY_WAIT_KIND_COUNT == WAIT_KIND_COUNT);

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
    /// Task slots allocated up front (about 80 bytes each), at most 4,194,304
    /// (`EXHAUSTED` beyond that many live tasks); larger values act as
    /// 4,194,304. Default 4096.
    pub task_capacity: u32,
    /// Cancellation source slots allocated up front (16 bytes each), at most
    /// 4,194,304; larger values act as 4,194,304. Default 256.
    pub cancel_capacity: u32,
    /// Wait records of storage each timing queue keeps after a burst. Default
    /// 8192. No upper bound: it is only storage kept after a burst.
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
    /// Keep it at most 64 MiB: a first block the OS refuses makes every new
    /// block cost a failed request before the fallback.
    pub frame_alloc_first_block_bytes: u64,
    /// Smallest chunk a thread claims at once (bytes; below 64, 0 included,
    /// it is 64, and it is rounded up to 64). Default 16 KiB. Above 64 MiB,
    /// raise `frame_alloc_max_chunk_bytes` too (to at least this, or 0):
    /// `onity_runtime_config_init` sets it to 64 MiB, and a chunk larger than
    /// the largest chunk is `INVALID_ARGUMENT`.
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
    /// Ignored; write 0 (a later version may give it a meaning).
    pub reserved: u32,
    /// Frame number (e.g. Unity's `Time.frameCount`); must increase.
    pub frame: u64,
    /// Scaled seconds since the previous frame (`Time.deltaTime`).
    pub delta_time: f64,
    /// Unscaled seconds since the previous frame (`Time.unscaledDeltaTime`).
    pub unscaled_delta_time: f64,
    /// Absolute real-time seconds (`Time.realtimeSinceStartupAsDouble`),
    /// finite (else `INVALID_ARGUMENT`). It may go backwards (a clock
    /// reset); `ONITY_CLOCK_REALTIME` delays then wait until it is again
    /// their creation value plus their seconds.
    pub realtime: f64,
}

impl From<OnityFrameInfo> for core::FrameInfo {
    fn from(f: OnityFrameInfo) -> Self {
        core::FrameInfo {
            frame: f.frame,
            delta_time: f.delta_time,
            unscaled_delta_time: f.unscaled_delta_time,
            realtime: f.realtime,
        }
    }
}

/// ABI 1.3. A frame begin written into memory instead of a call to
/// `onity_runtime_frame_begin`, for a host that pays for every call (C# on
/// Mono): one call a frame fewer. One per runtime; its address comes from
/// `onity_batch_deferred_frame`. A deferred frame is applied by the next
/// call, on the owner thread, of a function whose result depends on the
/// frame: `onity_runtime_frame_begin` (which then begins its own frame),
/// `onity_runtime_tick`, `onity_runtime_drain`, `onity_runtime_stats`,
/// `onity_runtime_site_report`, `onity_batch_tick`, `onity_batch_drain`,
/// `onity_batch_flush`, `onity_batch_cancel_pass`,
/// `onity_batch_deferred_frame`, `onity_batch_frame_ring`, `onity_runtime_frame_clock`, `onity_batch_create` (the new batch's
/// records are written in the new frame), every wait (`onity_yield`,
/// `onity_next_frame`, `onity_delay_frame`, `onity_delay`, their `_then`,
/// `_then_id` and `_at` forms), `onity_task_create_at`, `onity_task_from_result_at`,
/// `onity_when_any_at`, `onity_when_all_at` (they record the creation
/// frame), `onity_frame_alloc_rewind` (traced in its frame) and the
/// `onity_trace_*` calls. No other function reads or
/// changes the frame, so C and C++ code calling the runtime between the
/// host's begin and its first tick sees the new frame, as with a call. One
/// difference: while tracing, a WhenAny / WhenAll settle that
/// `onity_task_set_result`, `_set_error` or `_cancel` causes before the
/// frame is applied is recorded before its frame marker (they do not check
/// for a deferred frame: completion stays one call with nothing added).
/// Applying it files the bound batch's records written before the begin
/// (and every other batch's records) with the previous frame, begins the
/// frame exactly as `onity_runtime_frame_begin` would, then files the bound
/// batch's later records. ABI 1.6: the frame ring (`onity_batch_frame_ring`)
/// is an array of these; the frames written there are applied in order, as
/// begun one by one (docs/frame-protocol.md). Inside a tick (a
/// continuation, C code it calls) those calls leave written frames as they
/// are (`pending` and `status` unchanged; a begin there would be
/// `REENTRANT`): waits made there count from the current frame, and the
/// frames apply at the first such call after the tick; a call there that
/// files records (`onity_runtime_drain`, `onity_batch_flush`) files the
/// bound batch's only up to entry 0's split (until 2026-12-06: applied
/// there, each refused `REENTRANT` and dropped). A frame still deferred when
/// the runtime is destroyed is dropped. Owner thread only. Its memory is freed with the
/// runtime: a host whose runtime other code may destroy checks
/// `onity_runtime_live_word` before it reads or writes it.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct OnityDeferredFrame {
    /// In entry 0: the number of frames written and not yet applied (0 to
    /// the ring's capacity, a count above it: its entries apply, `status`
    /// `COUNT_OUT_OF_RANGE`; a single deferred frame: 0 or 1); in later
    /// entries unused. To begin a frame the host writes entry `pending`'s
    /// `info` and splits, then adds 1; the runtime resets it to 0 when it
    /// applies them, in order, each as `onity_runtime_frame_begin` would.
    /// When the ring is full, begin the next frame with
    /// `onity_runtime_frame_begin` (it applies the ring first). Calls from
    /// other threads only read this word (they leave the frames to the
    /// owner): store it as one aligned 32-bit store (C#'s is). (ABI 1.4 to
    /// 1.5 hosts that merged a frame into a pending one by summing deltas
    /// may still do so; it rounds differently from frame by frame.)
    pub pending: u32,
    /// The bound batch's `submit_count` when the host began the frame: its
    /// records before it are filed with the frames before, the later ones
    /// (up to the next entry's split) with this frame. A value above the
    /// count is read as the count; one below the previous entry's as that.
    pub submit_split: u32,
    /// The same for the bound batch's `fast_count`.
    pub fast_split: u32,
    /// In entry 0: `ONITY_STATUS_OK`, or the status the first refused
    /// frame got (what `onity_runtime_frame_begin` returns for it:
    /// `SIZE_MISMATCH`, `INVALID_ARGUMENT`, `FRAME_ORDER`), or
    /// `COUNT_OUT_OF_RANGE` (`pending` above the capacity, no frame
    /// refused); a refused frame is dropped, the later ones still apply. Written only on
    /// refusal, when it is 0: the host reads it after its calls and resets
    /// it to 0. In later entries unused.
    pub status: u32,
    /// The frame, as for `onity_runtime_frame_begin` (`size` =
    /// `sizeof(OnityFrameInfo)`).
    pub info: OnityFrameInfo,
}

const _: () = assert!(std::mem::size_of::<OnityDeferredFrame>() == 56);

/// ABI 1.7. The frame state the runtime publishes at every frame begin (by
/// `onity_runtime_frame_begin` or from the frame ring), from
/// `onity_runtime_frame_clock`; a host that begins frames without a call
/// (the ring) reads it instead of keeping its own copy of the runtime's
/// rules. Valid until the runtime is destroyed; read it on the owner
/// thread, between calls; never write. Frames still in the ring are not
/// in it until a call applies them; a refused frame leaves it unchanged.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OnityFrameClock {
    /// The newest frame's number (0 before the first frame).
    pub frame: u64,
    /// The first frame's number minus 1, wrapping (`UINT64_MAX` when the
    /// first frame is 0; 0 before the first frame). The frame count
    /// `frame - origin` (mod 2^64) is 0 before the first frame and 1 at it;
    /// a frame wait made at count `c` for `n` frames is due in the frame
    /// whose count is `c + n` (waits made before the first frame count from
    /// the frame before it). A host writing frame `f` into the ring counts
    /// it `f - origin`, once the first frame has begun.
    pub origin: u64,
    /// Frames begun (refused frames are not counted): 0 until the first.
    pub frames_begun: u64,
    /// The sum of the frames' `delta_time`, added in turn.
    pub scaled_time: f64,
    /// The sum of the frames' `unscaled_delta_time`, added in turn.
    pub unscaled_time: f64,
    /// The newest frame's `realtime` (0 before the first frame).
    pub realtime: f64,
}

// The core's published frame state has this layout: its address is handed
// out as is (`onity_runtime_frame_clock`).
const _: () = {
    use crate::core::frame::FrameClock;
    use std::mem::{offset_of, size_of};
    assert!(size_of::<OnityFrameClock>() == size_of::<FrameClock>());
    assert!(offset_of!(OnityFrameClock, frame) == offset_of!(FrameClock, frame));
    assert!(offset_of!(OnityFrameClock, origin) == offset_of!(FrameClock, origin));
    assert!(offset_of!(OnityFrameClock, frames_begun) == offset_of!(FrameClock, frames_begun));
    assert!(offset_of!(OnityFrameClock, scaled_time) == offset_of!(FrameClock, clocks));
    assert!(offset_of!(OnityFrameClock, unscaled_time) == offset_of!(FrameClock, clocks) + 8);
    assert!(offset_of!(OnityFrameClock, realtime) == offset_of!(FrameClock, clocks) + 16);
    assert!(core::Clock::Scaled as usize == 0 && core::Clock::Unscaled as usize == 1);
    assert!(core::Clock::Realtime as usize == 2);
};

/// ABI 1.4. Where a batch host reads whether a timing's run has anything
/// to do, to skip its `onity_batch_tick` when it has not (C# on Mono, where
/// the call is most of a frame's cost when nothing native is pending).
/// From `onity_batch_idle`; its addresses are valid until the runtime is
/// destroyed. Read them on the owner thread, between calls; never write
/// (other threads may write two of them: see below).
///
/// A host may skip `onity_batch_tick(runtime, batch, t)` when, read just
/// before it: timing `t`'s byte is non-zero, `*cross_thread` is 0, if `t`
/// is `rewind_timing` `*frame_memory` is 0, the batch's
/// `submit_count` and `fast_count` are 0, and its `resumed_count` equals
/// `resumed_consumed` (or it processes them as after a tick). The skipped
/// call would have filed nothing, reported nothing, run no continuation
/// and changed nothing a later call sees, but for three things the host
/// then does not get: `fast_resumed` keeps the last tick's ids (do not
/// process them again), a deferred frame stays pending (see
/// `OnityDeferredFrame::pending` for beginning another), and a refused
/// deferred frame is reported by the next call that applies it. A
/// skipped `rewind_timing` run skips its rewind, which released nothing:
/// the frame allocator's `rewinds` count and idle-home reclaim advance
/// only with rewinds that run.
///
/// Timing `t`'s byte is set by a run of `t` when, after it, `t` holds no wait
/// (queue, far store, or any batch's fast lane), the runtime has at most
/// one batch, no WhenAny / WhenAll watches a token, tracing is off (and
/// Tracy is not built in). It is cleared by every wait scheduled or fast
/// record filed on `t` (any export, any continuation), and on every timing
/// by a second batch, a WhenAny / WhenAll with a token, `onity_trace_start`
/// and the runtime's destruction; only the owner thread writes it.
///
/// `*frame_memory` is non-zero while a rewind of the frame allocator would
/// release something (an `onity_frame_alloc` since the last rewind, or an
/// `ONITY_LIFETIME_TWO_FRAMES` allocation of the frame before): the first
/// allocation of each lifetime in a frame, on any thread, sets it (read it
/// as one volatile byte load); a rewind resets it. An allocation another thread
/// makes after the host read it and skipped the rewind timing's tick is
/// rewound at the next tick that runs: frame memory lives at least until
/// the rewind that ends it, and longer while the host skips idle ticks.
/// Tasks other threads complete make `*cross_thread` non-zero until the
/// owner's next tick or drain.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct OnityTickIdle {
    /// Timing `t`'s byte is `timings[t * timing_stride]` (`t` an
    /// `OnityTiming`): non-zero when a run of that timing now would do
    /// nothing (see above) but, on `rewind_timing`, rewind the frame
    /// allocator (`*frame_memory` says whether that releases anything).
    /// The bytes are apart: each sits beside its
    /// timing's queue, so that scheduling a wait clears it with one store.
    pub timings: *const u8,
    /// Non-zero while tasks completed on other threads wait for the owner's
    /// next tick or drain. Other threads write it: read it as one aligned
    /// 32-bit volatile (or relaxed atomic) load, so that a loop of skipped
    /// ticks does not keep an old value.
    pub cross_thread: *const u32,
    /// Non-zero while a frame-allocator rewind would release something
    /// (see above); other threads set it: read it as one volatile (or
    /// relaxed atomic) byte load.
    pub frame_memory: *const u8,
    /// Bytes from one timing's byte to the next.
    pub timing_stride: u32,
    /// The frame allocator's automatic rewind timing (an `OnityTiming`), or
    /// `ONITY_FRAME_ALLOC_REWIND_MANUAL` when it rewinds only on request.
    pub rewind_timing: u32,
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

// The core's outcome has this layout: arrays of them are handed over as they
// are (`onity_when_all_results`).
const _: () = {
    use std::mem::{offset_of, size_of};
    assert!(size_of::<OnityOutcome>() == size_of::<core::Outcome>());
    assert!(offset_of!(OnityOutcome, value) == offset_of!(core::Outcome, value));
    assert!(offset_of!(OnityOutcome, error) == offset_of!(core::Outcome, error));
    assert!(offset_of!(OnityOutcome, state) == offset_of!(core::Outcome, state));
    assert!(offset_of!(OnityOutcome, index) == offset_of!(core::Outcome, index));
    assert!(offset_of!(OnityOutcome, reserved) == offset_of!(core::Outcome, reserved));
    assert!(size_of::<core::TaskState>() == size_of::<u32>());
};

impl From<core::Outcome> for OnityOutcome {
    fn from(o: core::Outcome) -> Self {
        OnityOutcome { value: o.value, error: o.error, state: o.state as u32, index: o.index, reserved: 0 }
    }
}

/// One wait request written by the host into `OnityBatch::submit`. 32 bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct OnityBatchRecord {
    /// The host's id for the continuation; reported back in `OnityResume`.
    pub id: u64,
    /// Cancellation token (0 for none).
    pub token: u64,
    /// DelayFrame: the frame count (at most `UINT32_MAX`, else the record is
    /// rejected with `COUNT_OUT_OF_RANGE`). Delay: the seconds as IEEE-754
    /// double bits. `ONITY_BATCH_TASK`: the task handle. Otherwise ignored
    /// (write 0).
    pub arg: u64,
    /// An `OnityWaitKind` value, or `ONITY_BATCH_TASK`.
    pub kind: u8,
    /// An `OnityTiming` value (ignored for `ONITY_BATCH_TASK`).
    pub timing: u8,
    /// An `OnityClock` value. Only Delay uses it, but every wait kind checks
    /// it (write 0 when unused); ignored for `ONITY_BATCH_TASK`.
    pub clock: u8,
    pub reserved: [u8; 5],
}

const _: () = assert!(std::mem::size_of::<OnityBatchRecord>() == 32);

impl From<OnityBatchRecord> for core::Request {
    #[inline(always)]
    fn from(r: OnityBatchRecord) -> Self {
        core::Request { id: r.id, token: r.token, arg: r.arg, kind: r.kind, timing: r.timing, clock: r.clock }
    }
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
    pub pools: [PoolStats; ONITY_POOL_COUNT],
    /// Indexed by `OnityWaitKind`.
    pub waits: [WaitStats; ONITY_WAIT_KIND_COUNT],
    /// Tasks created and not consumed.
    pub live_tasks: u64,
    /// Tasks completed but not consumed: a growing number is a leak.
    pub completed_unconsumed: u64,
    /// Tasks completed on other threads whose continuations have not run yet.
    pub cross_thread_queued: u64,
    /// The current frame number.
    pub frame: u64,
    /// The frame allocator.
    pub frame_alloc: FrameAllocStats,
}

impl OnityStats {
    pub(crate) fn from_core(s: &core::Stats, frame_alloc: OnityFrameAllocStats) -> Self {
        let mut pools = [OnityPoolStats::default(); ONITY_POOL_COUNT];
        pools[Pool::Tasks as usize] = s.tasks;
        pools[Pool::CancelSources as usize] = s.cancel_sources;
        pools[Pool::WaitRecords as usize] = s.wait_records;
        pools[Pool::WhenAny16 as usize..=Pool::WhenAnyLarge as usize].copy_from_slice(&s.when_any);
        pools[Pool::WhenAll16 as usize..=Pool::WhenAllLarge as usize].copy_from_slice(&s.when_all);
        OnityStats {
            size: std::mem::size_of::<OnityStats>() as u32,
            pool_count: ONITY_POOL_COUNT as u32,
            pools,
            waits: s.waits,
            live_tasks: s.live_tasks,
            completed_unconsumed: s.completed_unconsumed,
            cross_thread_queued: s.cross_thread_queued,
            frame: s.frame,
            frame_alloc,
        }
    }
}

/// One resumption reported to the host. 16 bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OnityResume {
    /// The record's id.
    pub id: u64,
    /// `OnityTaskState`: SUCCEEDED (due), CANCELED (token canceled or runtime
    /// destroyed), FAULTED (record rejected; see `status`). For
    /// `ONITY_BATCH_TASK` the task's own final state (consume the task).
    pub state: u32,
    /// `ONITY_STATUS_OK`, or why the record was rejected (bad timing, stale
    /// token, task already awaited, ...). A rejected `ONITY_BATCH_TASK`
    /// record leaves its task with the host, which still has to consume it.
    pub status: u32,
}

/// A batch. Allocated by `onity_batch_create`; the host reads and writes the
/// public fields directly, on the owner thread, between calls. Freed with
/// its runtime: a host whose runtime other code may destroy checks
/// `onity_runtime_live_word` before it touches the batch without a call.
#[repr(C)]
#[derive(Debug)]
pub struct OnityBatch {
    /// `sizeof(OnityBatch)`.
    pub size: u32,
    /// Capacity of `submit` in records (fixed at creation).
    pub submit_capacity: u32,
    /// Where the host writes records. Call `onity_batch_flush` when full.
    pub submit: *mut OnityBatchRecord,
    /// Number of records written and not yet filed. The host increments it;
    /// the runtime resets it to 0 when it files them. A count above the
    /// capacity is read as the capacity (the runtime never reads past its
    /// buffer; records written past it were never in it).
    pub submit_count: u32,
    /// Resumptions the host has processed (it sets this, typically to
    /// `resumed_count`); dropped by the next `onity_batch_tick` or
    /// `onity_batch_drain` (also one that then fails on its arguments), not
    /// by `onity_batch_flush`.
    pub resumed_consumed: u32,
    /// Resumptions. Any call on this runtime may append to it and move it
    /// (re-read the pointer after every call, including calls made from a
    /// continuation); only `onity_batch_tick` and `onity_batch_drain` drop
    /// entries, and only the `resumed_consumed` first ones.
    pub resumed: *const OnityResume,
    /// Number of entries in `resumed`.
    pub resumed_count: u32,
    pub reserved: u32,
    /// Runtime-private state.
    pub internal: *mut c_void,
    /// ABI 1.1. Fast-lane records (`u64` each, see
    /// [`onity_batch_fast_record`]), written by the host like `submit`.
    pub fast_submit: *mut u64,
    /// Capacity of `fast_submit` in records (equal to `submit_capacity`).
    /// Call `onity_batch_flush` when full.
    pub fast_capacity: u32,
    /// Number of fast records written and not yet filed (the host
    /// increments it; the runtime resets it to 0 when it files them). A
    /// count above the capacity is read as the capacity.
    pub fast_count: u32,
    /// Ids of the fast-lane waits found due by the last successful
    /// `onity_batch_tick` of this batch, in this order: Yields (in the order
    /// they were filed), then NextFrame waits, then DelayFrame waits (each by
    /// due frame, then filing order). Read it after `onity_batch_tick`
    /// returns OK; it stays valid (and unchanged) until the next successful
    /// `onity_batch_tick` of this batch: drains, flushes, failed ticks and
    /// any other call leave it alone.
    pub fast_resumed: *const u32,
    /// Number of ids in `fast_resumed`.
    pub fast_resumed_count: u32,
    pub reserved2: u32,
}

const _: () = assert!(std::mem::size_of::<OnityResume>() == 16);
