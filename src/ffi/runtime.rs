//! `OnityRuntime`: creation, destruction, frames, ticks, statistics.

use std::cell::UnsafeCell;
use std::ffi::c_char;

use super::status::OnityStatus;
use super::types::*;
use crate::core::frame_alloc::{FrameAllocConfig, MAX_CONFIG_BYTES};
use crate::core::{self, Config, FrameInfo, Timing};

const MAGIC: u64 = 0x4f4e_4954_5952_5431; // "ONITYRT1"
const DEAD: u64 = 0xdead_dead_dead_dead;

/// An Onity runtime. Opaque; create with `onity_runtime_create`.
pub struct OnityRuntime {
    // The only field, at offset 0 (asserted below), and `repr(C)` with
    // `magic` first: the best-effort check of a bad pointer reads the first
    // 8 bytes it points to and nothing past them.
    f: RuntimeFields,
}

#[repr(C)]
#[doc(hidden)]
pub struct RuntimeFields {
    magic: u64,
    pub(crate) rt: core::Runtime,
    /// Live batches (owner thread only).
    batches: UnsafeCell<Vec<*mut super::batch::OnityBatch>>,
}

const _: () = assert!(std::mem::offset_of!(OnityRuntime, f) == 0);

impl std::ops::Deref for OnityRuntime {
    type Target = RuntimeFields;
    fn deref(&self) -> &RuntimeFields {
        &self.f
    }
}

impl std::ops::DerefMut for OnityRuntime {
    fn deref_mut(&mut self) -> &mut RuntimeFields {
        &mut self.f
    }
}

impl OnityRuntime {
    /// # Safety
    /// Owner thread only; the borrow must not outlive the call.
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn batches(&self) -> &mut Vec<*mut super::batch::OnityBatch> {
        &mut *self.batches.get()
    }

    /// Moves the due frames of every batch's fast-lane waits `by` frames
    /// later (see `onity_runtime_frame_begin`). Owner thread.
    fn rebase_batches(&self, by: u64) {
        // SAFETY: owner thread (the caller's begin_frame succeeded); no user
        // code runs while we walk the list.
        for &b in unsafe { self.batches() }.iter() {
            // SAFETY: listed batches are live.
            unsafe { super::batch::rebase_fast(b, by) };
        }
    }

    /// Files every batch's pending records. Owner thread (checked).
    pub(crate) fn file_batches(&self) {
        if !self.rt.is_owner_thread() {
            return;
        }
        // SAFETY: owner thread. Filing runs no user code, so the list
        // cannot change while we walk it.
        for &b in unsafe { self.batches() }.iter() {
            // SAFETY: listed batches are live.
            unsafe { super::batch::file(&self.rt, b) };
        }
    }
}

/// Borrows the runtime behind `p`, or returns the status to report.
///
/// # Safety
/// `p` is null or was returned by `onity_runtime_create` and not destroyed.
pub(crate) unsafe fn runtime_ref<'a>(p: *const OnityRuntime) -> Result<&'a OnityRuntime, OnityStatus> {
    if p.is_null() {
        return Err(OnityStatus::NullPointer);
    }
    // A garbage pointer may be misaligned: check before making a reference,
    // and read the magic (the first 8 bytes) without one.
    if (p as usize) % std::mem::align_of::<OnityRuntime>() != 0 {
        return Err(OnityStatus::InvalidRuntime);
    }
    if std::ptr::read_volatile(p as *const u64) != MAGIC {
        return Err(OnityStatus::InvalidRuntime);
    }
    Ok(&*p)
}

/// `let rt = rt!(ptr);` inside an `ffi_guard!` body.
macro_rules! rt {
    ($p:expr) => {
        // SAFETY: the caller passes a pointer from onity_runtime_create (documented).
        match unsafe { $crate::ffi::runtime::runtime_ref($p) } {
            Ok(r) => &r.rt,
            Err(s) => return s,
        }
    };
}
pub(crate) use rt;

pub(crate) fn timing(v: u32) -> Result<Timing, OnityStatus> {
    Timing::from_u32(v).ok_or(OnityStatus::InvalidArgument)
}

/// Version of the C ABI this library implements: `major << 16 | minor`.
/// Compare with `ONITY_ABI_VERSION` from the header you compiled against: the
/// majors must be equal and the library's minor at least the header's.
/// Infallible; any thread.
#[no_mangle]
pub extern "C" fn onity_abi_version() -> u32 {
    crate::ABI_VERSION
}

/// A static, NUL-terminated English description of any status value
/// (unknown values give "unknown status"). Infallible; any thread; the
/// string must not be freed.
#[no_mangle]
pub extern "C" fn onity_status_text(status: u32) -> *const c_char {
    let text = OnityStatus::from_u32(status).map(|s| s.text()).unwrap_or("unknown status\0");
    text.as_ptr() as *const c_char
}

/// The name of a timing ("Update", ...), or "invalid" for values >= 16.
/// Infallible; any thread; static string.
#[no_mangle]
pub extern "C" fn onity_timing_name(timing: u32) -> *const c_char {
    const NAMES: [&str; 16] = [
        "Initialization\0",
        "LastInitialization\0",
        "EarlyUpdate\0",
        "LastEarlyUpdate\0",
        "FixedUpdate\0",
        "LastFixedUpdate\0",
        "PreUpdate\0",
        "LastPreUpdate\0",
        "Update\0",
        "LastUpdate\0",
        "PreLateUpdate\0",
        "LastPreLateUpdate\0",
        "PostLateUpdate\0",
        "LastPostLateUpdate\0",
        "TimeUpdate\0",
        "LastTimeUpdate\0",
    ];
    NAMES.get(timing as usize).copied().unwrap_or("invalid\0").as_ptr() as *const c_char
}

/// Fills the ABI 1.0 part of `config` (its first
/// `ONITY_RUNTIME_CONFIG_SIZE_1_0` bytes) with the defaults and sets
/// `config->size` to `ONITY_RUNTIME_CONFIG_SIZE_1_0`: programs built against
/// a 1.0 header (whose struct ends there) keep working. Fields appended
/// later are not written, and `onity_runtime_create` gives them their
/// defaults. To set them, use `onity_runtime_config_init(config,
/// sizeof *config)` instead. Any thread. Errors: `NULL_POINTER`.
#[no_mangle]
pub extern "C" fn onity_runtime_config_default(config: *mut OnityRuntimeConfig) -> OnityStatus {
    onity_runtime_config_init(config, ONITY_RUNTIME_CONFIG_SIZE_1_0)
}

/// Fills the first `size` bytes of `config` with the defaults and sets
/// `config->size = size`. `size` is `sizeof(OnityRuntimeConfig)` (every
/// field of this header) or `ONITY_RUNTIME_CONFIG_SIZE_1_0`; nothing past
/// `size` bytes is written. ABI 1.1. Any thread. Errors: `NULL_POINTER`,
/// `SIZE_MISMATCH` (any other size).
#[no_mangle]
pub extern "C" fn onity_runtime_config_init(config: *mut OnityRuntimeConfig, size: u32) -> OnityStatus {
    crate::ffi_guard!({
        crate::check_ptr!(config);
        if size as usize != std::mem::size_of::<OnityRuntimeConfig>() && size != ONITY_RUNTIME_CONFIG_SIZE_1_0 {
            return OnityStatus::SizeMismatch;
        }
        let d = OnityRuntimeConfig { size, ..OnityRuntimeConfig::default() };
        // SAFETY: checked non-null; the caller provides `size` writable bytes
        // (the size of the struct its header declares).
        unsafe { std::ptr::copy_nonoverlapping(&d as *const _ as *const u8, config as *mut u8, size as usize) };
        OnityStatus::Ok
    })
}

/// Creates a runtime owned by the calling thread (any thread may create one;
/// it becomes that runtime's owner thread). `config` may be null for
/// the defaults; otherwise `config->size` must be `sizeof(OnityRuntimeConfig)`
/// (start from `onity_runtime_config_init(config, sizeof *config)`) or
/// `ONITY_RUNTIME_CONFIG_SIZE_1_0` (start from `onity_runtime_config_default`;
/// fields appended later get their defaults).
/// On success `*out_runtime` receives the runtime; destroy it with
/// `onity_runtime_destroy` on the same thread. Several runtimes may coexist.
/// Errors: `NULL_POINTER`, `SIZE_MISMATCH`, `INVALID_ARGUMENT` (rewind timing,
/// `frame_alloc_max_chunk_bytes`, `frame_alloc_prefault` or `reserved` out of
/// range), `EXHAUSTED` (255 runtimes alive).
#[no_mangle]
pub extern "C" fn onity_runtime_create(
    config: *const OnityRuntimeConfig,
    out_runtime: *mut *mut OnityRuntime,
) -> OnityStatus {
    crate::ffi_guard!({
        crate::check_ptr!(out_runtime);
        let cfg = if config.is_null() {
            OnityRuntimeConfig::default()
        } else {
            // SAFETY: non-null; we read `size` first, then only as many
            // bytes as the caller's struct has. Unaligned reads: a caller's
            // copy need not be aligned for the whole struct (a 1.0 struct
            // in a byte buffer); reading it must not be undefined behaviour.
            let size = unsafe { std::ptr::read_unaligned(std::ptr::addr_of!((*config).size)) };
            if size as usize == std::mem::size_of::<OnityRuntimeConfig>() {
                // SAFETY: as above.
                unsafe { std::ptr::read_unaligned(config) }
            } else if size == ONITY_RUNTIME_CONFIG_SIZE_1_0 {
                let mut c = OnityRuntimeConfig::default();
                // SAFETY: as above; the first `size` bytes have the same
                // layout in both versions (fields are only appended).
                unsafe {
                    std::ptr::copy_nonoverlapping(config as *const u8, &mut c as *mut _ as *mut u8, size as usize)
                };
                c.size = std::mem::size_of::<OnityRuntimeConfig>() as u32;
                // A 1.0 caller has no say on the largest chunk: the default,
                // raised to its chunk size as 1.0 did.
                c.frame_alloc_max_chunk_bytes = 0;
                c
            } else {
                return OnityStatus::SizeMismatch;
            }
        };
        // 0 (a zero-initialised struct, or a 1.0 config): the default, but
        // never below the smallest chunk (ABI 1.0 accepted any chunk size and
        // clamped it; so does this path).
        let chunk = cfg.frame_alloc_chunk_bytes.clamp(64, MAX_CONFIG_BYTES as u64);
        let max_chunk = match cfg.frame_alloc_max_chunk_bytes {
            0 => (FrameAllocConfig::default().max_chunk_bytes as u64).max(chunk),
            n => n,
        };
        if cfg.frame_alloc_prefault > 1 || cfg.reserved != 0 || max_chunk < chunk || max_chunk > MAX_CONFIG_BYTES as u64
        {
            return OnityStatus::InvalidArgument;
        }
        let rewind_timing = match cfg.frame_alloc_rewind_timing {
            ONITY_FRAME_ALLOC_REWIND_MANUAL => None,
            t => match self::timing(t) {
                Ok(t) => Some(t),
                Err(s) => return s,
            },
        };
        let core_cfg = Config {
            task_capacity: cfg.task_capacity,
            cancel_capacity: cfg.cancel_capacity,
            wait_capacity: cfg.wait_capacity,
            combinator16_capacity: cfg.combinator16_capacity,
            combinator32_capacity: cfg.combinator32_capacity,
            frame_alloc: FrameAllocConfig {
                first_block_bytes: cfg.frame_alloc_first_block_bytes.min(usize::MAX as u64) as usize,
                chunk_bytes: cfg.frame_alloc_chunk_bytes.min(usize::MAX as u64) as usize,
                max_bytes: cfg.frame_alloc_max_bytes.min(usize::MAX as u64) as usize,
                poison_on_rewind: cfg.frame_alloc_poison != 0,
                max_chunk_bytes: max_chunk as usize,
                prefault: cfg.frame_alloc_prefault != 0,
            },
            frame_alloc_rewind_timing: rewind_timing,
        };
        let core_rt = crate::tri!(core::Runtime::try_new(core_cfg));
        let boxed = Box::new(OnityRuntime {
            f: RuntimeFields { magic: MAGIC, rt: core_rt, batches: UnsafeCell::new(Vec::new()) },
        });
        // SAFETY: checked non-null.
        unsafe { *out_runtime = Box::into_raw(boxed) };
        OnityStatus::Ok
    })
}

/// Destroys a runtime. Owner thread only, and not from inside a tick, a
/// continuation or a callback (those get `REENTRANT`).
/// Everything in flight is cancelled first: every pending wait completes
/// canceled (callback waits are called with `ONITY_TASK_STATE_CANCELED`), then every
/// pending task is canceled and its continuation runs; tasks never consumed
/// are released. After this returns `ONITY_STATUS_OK` the pointer and every
/// handle of the runtime are invalid; worker threads must have stopped
/// completing its tasks. Errors: `NULL_POINTER`, `INVALID_RUNTIME`,
/// `WRONG_THREAD`, `REENTRANT` (called from a continuation or callback, or
/// during a tick); on error nothing is destroyed.
#[no_mangle]
pub extern "C" fn onity_runtime_destroy(runtime: *mut OnityRuntime) -> OnityStatus {
    crate::ffi_guard!({
        let rt = rt!(runtime);
        if let Err(e) = rt.close() {
            return e.into();
        }
        // SAFETY: created by Box::into_raw in onity_runtime_create, still live.
        let mut boxed = unsafe { Box::from_raw(runtime) };
        boxed.magic = DEAD;
        for b in boxed.batches.get_mut().drain(..) {
            // SAFETY: listed batches are live and freed once.
            unsafe { super::batch::free(b) };
        }
        drop(boxed);
        OnityStatus::Ok
    })
}

/// Begins a frame: sets the frame number (must increase strictly) and
/// advances the clocks (`delta_time`, `unscaled_delta_time` >= 0 and finite;
/// `realtime` is the host's absolute real-time clock; `frame` < 2^59, else
/// `INVALID_ARGUMENT`). Owner thread.
/// Errors: `NULL_POINTER`, `SIZE_MISMATCH`, `INVALID_ARGUMENT`, `FRAME_ORDER`,
/// `WRONG_THREAD`, `REENTRANT` (inside a tick).
#[no_mangle]
pub extern "C" fn onity_runtime_frame_begin(runtime: *mut OnityRuntime, frame: *const OnityFrameInfo) -> OnityStatus {
    crate::ffi_guard!({
        let rt = rt!(runtime);
        crate::check_ptr!(frame);
        // SAFETY: non-null, provided by the caller. `size` first, alone: a
        // struct of another size is refused without reading past its end.
        if unsafe { std::ptr::read_unaligned(std::ptr::addr_of!((*frame).size)) } as usize
            != std::mem::size_of::<OnityFrameInfo>()
        {
            return OnityStatus::SizeMismatch;
        }
        // SAFETY: as above; the caller's struct has our size.
        let f = unsafe { std::ptr::read_unaligned(frame) };
        let first = rt.frame_counter() == 0;
        // SAFETY: the pointer was validated by rt! above.
        unsafe { &*runtime }.file_batches();
        crate::tri!(rt.begin_frame(&FrameInfo {
            frame: f.frame,
            delta_time: f.delta_time,
            unscaled_delta_time: f.unscaled_delta_time,
            realtime: f.realtime,
        }));
        if first {
            // Fast-lane waits filed before the first frame count from the
            // frame before it, as `begin_frame` does for the queues.
            // SAFETY: as above; owner thread (begin_frame succeeded).
            unsafe { &*runtime }.rebase_batches(f.frame);
        }
        OnityStatus::Ok
    })
}

/// Runs one player-loop timing (`OnityTiming` value): first the
/// continuations of tasks completed on other threads, then cancellation of
/// combinators whose token was canceled, then every due wait of this timing
/// in the order the waits were scheduled. Waits scheduled by the
/// continuations of those due waits are looked at by the next run of their
/// timing; the continuations run first (off-thread completions, canceled
/// combinators) come before this run's waits, so a Yield of this timing they
/// schedule resumes in this run. A timing may
/// run several times per frame (FixedUpdate) or not at all. Owner thread.
/// Errors: `INVALID_ARGUMENT` (timing >= 16), `WRONG_THREAD`, `REENTRANT`
/// (called from a continuation during a tick, or while destroying).
#[no_mangle]
pub extern "C" fn onity_runtime_tick(runtime: *mut OnityRuntime, timing: u32) -> OnityStatus {
    crate::ffi_guard!({
        let rt = rt!(runtime);
        let t = match self::timing(timing) {
            Ok(t) => t,
            Err(s) => return s,
        };
        // SAFETY: the pointer was validated by rt! above.
        unsafe { &*runtime }.file_batches();
        crate::tri!(rt.tick(t));
        OnityStatus::Ok
    })
}

/// Runs the continuations of tasks completed on other threads (in
/// completion order) and cancels combinators whose token was canceled,
/// without ticking a timing. Owner thread. Errors: `WRONG_THREAD`.
#[no_mangle]
pub extern "C" fn onity_runtime_drain(runtime: *mut OnityRuntime) -> OnityStatus {
    crate::ffi_guard!({
        let rt = rt!(runtime);
        // SAFETY: the pointer was validated by rt! above.
        unsafe { &*runtime }.file_batches();
        crate::tri!(rt.drain());
        OnityStatus::Ok
    })
}

/// Fills `stats` (set `stats->size = sizeof(OnityStats)` first) with every
/// pool's counters, per-wait-kind counters, leak diagnostics and the frame
/// allocator's counters. Owner thread. Errors: `NULL_POINTER`, `SIZE_MISMATCH`, `WRONG_THREAD`.
#[no_mangle]
pub extern "C" fn onity_runtime_stats(runtime: *mut OnityRuntime, stats: *mut OnityStats) -> OnityStatus {
    crate::ffi_guard!({
        let rt = rt!(runtime);
        crate::check_ptr!(stats);
        // SAFETY: non-null, provided by the caller; only `size` is read.
        if unsafe { std::ptr::read_unaligned(std::ptr::addr_of!((*stats).size)) } as usize
            != std::mem::size_of::<OnityStats>()
        {
            return OnityStatus::SizeMismatch;
        }
        let s = crate::tri!(rt.stats());
        let mut out = OnityStats::from_core(&s);
        let f = rt.frame_alloc_stats();
        out.frame_alloc = OnityFrameAllocStats {
            bytes_in_use: f.bytes_in_use,
            bytes_claimed: f.bytes_claimed,
            bytes_reserved: f.bytes_reserved,
            blocks: f.blocks,
            high_water_bytes_in_use: f.high_water_bytes_in_use,
            rewinds: f.rewinds,
            os_allocations: f.os_allocations,
            allocations: f.allocations,
            failed_allocations: f.failed_allocations,
        };
        // SAFETY: as above.
        unsafe { stats.write(out) };
        OnityStatus::Ok
    })
}

/// Writes up to `capacity` handles of live (created, not consumed) tasks to
/// `out_tasks` and the number of live tasks to `*out_count` (which may exceed
/// `capacity`). `out_tasks` may be null when `capacity` is 0. Owner thread.
/// Errors: `NULL_POINTER`, `WRONG_THREAD`.
#[no_mangle]
pub extern "C" fn onity_runtime_live_tasks(
    runtime: *mut OnityRuntime,
    out_tasks: *mut u64,
    capacity: u32,
    out_count: *mut u32,
) -> OnityStatus {
    crate::ffi_guard!({
        let rt = rt!(runtime);
        crate::check_ptr!(out_count);
        if capacity > 0 {
            crate::check_ptr!(out_tasks);
        }
        let buf: &mut [u64] = if capacity == 0 {
            &mut []
        } else {
            // SAFETY: non-null, the caller provides `capacity` writable slots.
            unsafe { std::slice::from_raw_parts_mut(out_tasks, capacity as usize) }
        };
        let n = crate::tri!(rt.live_tasks(buf));
        // SAFETY: non-null.
        unsafe { *out_count = n.min(u32::MAX as usize) as u32 };
        OnityStatus::Ok
    })
}

/// The name of a pool (`OnityPool` value) or "invalid". Infallible; any
/// thread; static string.
#[no_mangle]
pub extern "C" fn onity_pool_name(pool: u32) -> *const c_char {
    const NAMES: [&str; ONITY_POOL_COUNT] = [
        "tasks\0",
        "cancel_sources\0",
        "wait_records\0",
        "when_any_16\0",
        "when_any_32\0",
        "when_any_large\0",
        "when_all_16\0",
        "when_all_32\0",
        "when_all_large\0",
    ];
    NAMES.get(pool as usize).copied().unwrap_or("invalid\0").as_ptr() as *const c_char
}
