//! `OnityRuntime`: creation, destruction, frames, ticks, statistics.

use std::ffi::c_char;
use std::sync::atomic::Ordering;

use super::batch_state;
use super::deferred::{core_at_frame, frame_ref};
use super::error::{arg, fill_array, Out};
use super::object::{self, core_of, runtime_ref, OnityRuntime, RuntimeObject};
use super::status::OnityStatus;
use super::types::*;
use crate::core::frame_alloc::FrameAllocConfig;
use crate::core::{Config, Pool, Timing};

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
    Timing::from_u32(timing).map_or(c"invalid", Timing::name).as_ptr()
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
    crate::ffi!({
        if config.is_null() {
            return Err(OnityStatus::NullPointer);
        }
        if size as usize != std::mem::size_of::<OnityRuntimeConfig>() && size != ONITY_RUNTIME_CONFIG_SIZE_1_0 {
            return Err(OnityStatus::SizeMismatch);
        }
        let d = OnityRuntimeConfig { size, ..OnityRuntimeConfig::default() };
        // SAFETY: checked non-null; the caller provides `size` writable bytes
        // (the size of the struct its header declares): only those are
        // written.
        unsafe { std::ptr::copy_nonoverlapping(&d as *const _ as *const u8, config as *mut u8, size as usize) };
        Ok(())
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
/// range), `EXHAUSTED` (255 runtimes alive), `OUT_OF_MEMORY` (nothing made).
#[no_mangle]
pub extern "C" fn onity_runtime_create(
    config: *const OnityRuntimeConfig,
    out_runtime: *mut *mut OnityRuntime,
) -> OnityStatus {
    crate::ffi!({
        let out = Out::new(out_runtime)?;
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
                return Err(OnityStatus::SizeMismatch);
            }
        };
        // Conversions only: the core checks the values (`Config::validated`).
        if cfg.frame_alloc_prefault > 1 || cfg.reserved != 0 {
            return Err(OnityStatus::InvalidArgument);
        }
        let rewind_timing = match cfg.frame_alloc_rewind_timing {
            ONITY_FRAME_ALLOC_REWIND_MANUAL => None,
            t => Some(arg(Timing::from_u32(t))?),
        };
        let bytes = |v: u64| v.min(usize::MAX as u64) as usize;
        let core_cfg = Config {
            task_capacity: cfg.task_capacity,
            cancel_capacity: cfg.cancel_capacity,
            wait_capacity: cfg.wait_capacity,
            combinator16_capacity: cfg.combinator16_capacity,
            combinator32_capacity: cfg.combinator32_capacity,
            frame_alloc: FrameAllocConfig {
                first_block_bytes: bytes(cfg.frame_alloc_first_block_bytes),
                chunk_bytes: bytes(cfg.frame_alloc_chunk_bytes),
                max_bytes: bytes(cfg.frame_alloc_max_bytes),
                poison_on_rewind: cfg.frame_alloc_poison != 0,
                max_chunk_bytes: bytes(cfg.frame_alloc_max_chunk_bytes),
                prefault: cfg.frame_alloc_prefault != 0,
            },
            frame_alloc_rewind_timing: rewind_timing,
        };
        let rt = crate::core::Runtime::try_new(core_cfg)?;
        // Out of memory here drops `rt` (never shared: nothing to close).
        let obj = crate::core::fallible::try_box(|| RuntimeObject::new(rt))?;
        out.set(object::publish(obj))
    })
}

/// Destroys a runtime. Owner thread, or any thread once the owner thread has
/// exited (a runtime a thread left behind: its continuations then run on the
/// calling thread, and calls they make to this runtime get `WRONG_THREAD`);
/// not from inside a tick, a continuation or a callback of this runtime
/// (those get `REENTRANT`; destroying another runtime there is allowed).
/// Everything in flight is cancelled first: the continuations of tasks
/// completed on other threads run (as a drain), every pending WhenAny /
/// WhenAll completes canceled (`index` `UINT32_MAX`, never from an input
/// canceled below), every pending wait completes canceled (callback waits
/// are called with `ONITY_TASK_STATE_CANCELED`), then every other pending
/// task is canceled and its continuation runs; tasks never consumed are
/// released. After this returns `ONITY_STATUS_OK` the pointer and every
/// handle of the runtime are invalid (its handles are never issued again).
/// No other thread may be inside a call on the runtime while this runs
/// (a use after free): workers must have stopped completing its tasks and
/// allocating from it, their last call ordered before this one (a join,
/// a mutex). Errors:
/// `WRONG_THREAD` (another thread while the owner lives), `REENTRANT`
/// (called from a continuation or callback of this runtime, during one of
/// its ticks, or while it is being destroyed); on error nothing is
/// destroyed. A frame still deferred (`OnityDeferredFrame`) is dropped,
/// also for the continuations that run here.
#[no_mangle]
pub extern "C" fn onity_runtime_destroy(runtime: *mut OnityRuntime) -> OnityStatus {
    crate::ffi_host!({
        // SAFETY: documented contract of the runtime pointer.
        let r = unsafe { runtime_ref(runtime) }?;
        // A frame still deferred is dropped, not applied by a continuation
        // that reads the frame while the runtime closes; kept if the
        // destroy is refused (nothing changes then). Off the owner thread
        // nothing applies it.
        // The count of written frames is restored whole (a ring holds up to
        // its capacity).
        let dropped = if r.rt.is_owner_thread() { r.deferred_pending().swap(0, Ordering::Relaxed) } else { 0 };
        if let Err(e) = r.rt.close() {
            if dropped != 0 {
                r.deferred_pending().store(dropped, Ordering::Relaxed);
            }
            return Err(e.into());
        }
        // SAFETY: created by onity_runtime_create, still live (checked), and
        // closed: nothing runs on it any more.
        for b in unsafe { object::free(runtime) } {
            // SAFETY: listed batches are live and freed once.
            unsafe { batch_state::free(b) };
        }
        Ok(())
    })
}

/// Begins a frame: sets the frame number (must increase strictly) and
/// advances the clocks (`delta_time`, `unscaled_delta_time` >= 0 and finite;
/// `realtime` is the host's absolute real-time clock, finite; `frame` < 2^59,
/// else `INVALID_ARGUMENT`; see `OnityFrameInfo`). Owner thread.
/// Errors: `NULL_POINTER`, `SIZE_MISMATCH`, `INVALID_ARGUMENT`, `FRAME_ORDER`,
/// `WRONG_THREAD`, `REENTRANT` (inside a tick).
#[no_mangle]
pub extern "C" fn onity_runtime_frame_begin(runtime: *mut OnityRuntime, frame: *const OnityFrameInfo) -> OnityStatus {
    crate::ffi!({
        // SAFETY: documented contract of the runtime pointer.
        let r = unsafe { frame_ref(runtime) }?;
        if frame.is_null() {
            return Err(OnityStatus::NullPointer);
        }
        // SAFETY: non-null, provided by the caller. `size` first, alone: a
        // struct of another size is refused without reading past its end.
        if unsafe { std::ptr::read_unaligned(std::ptr::addr_of!((*frame).size)) } as usize
            != std::mem::size_of::<OnityFrameInfo>()
        {
            return Err(OnityStatus::SizeMismatch);
        }
        // SAFETY: as above; the caller's struct has our size.
        let f = unsafe { std::ptr::read_unaligned(frame) };
        batch_state::file_all(r);
        Ok(r.rt.begin_frame(&f.into())?)
    })
}

/// Runs one player-loop timing (`OnityTiming` value): first the
/// continuations of tasks completed on other threads, then cancellation of
/// combinators whose token was canceled, then every due wait of this timing
/// in the order the waits were scheduled. Waits scheduled by the
/// continuations of those due waits are looked at by the next run of their
/// timing; the continuations run first (off-thread completions, canceled
/// combinators) come before this run's waits, so a Yield of this timing they
/// schedule resumes in this run. A token canceled by a continuation of this
/// run cancels, before the run returns, this timing's waits scheduled before
/// the run (and the WhenAny / WhenAll watching the token); a wait scheduled
/// during the run and canceled in it completes canceled at the next run.
/// A timing may
/// run several times per frame (FixedUpdate) or not at all. May be called
/// before the first frame (Yields of the timing resume; frame waits count
/// from the first frame) and from a continuation that runs outside a tick
/// (it runs the timing there, nested); inside a tick it is `REENTRANT`.
/// Rewinds of the frame allocator happen here (the first run of
/// `frame_alloc_rewind_timing` in each frame): see `onity_frame_alloc`.
/// Owner thread.
/// Errors: `INVALID_ARGUMENT` (timing >= 16), `WRONG_THREAD`, `REENTRANT`
/// (called from a continuation during a tick, or while destroying).
#[no_mangle]
pub extern "C" fn onity_runtime_tick(runtime: *mut OnityRuntime, timing: u32) -> OnityStatus {
    crate::ffi_host!({
        // SAFETY: documented contract of the runtime pointer.
        let r = unsafe { frame_ref(runtime) }?;
        let t = arg(Timing::from_u32(timing))?;
        batch_state::file_all(r);
        Ok(r.rt.tick(t)?)
    })
}

/// Runs the continuations of tasks completed on other threads (in
/// completion order) and cancels combinators whose token was canceled,
/// without ticking a timing. Allowed inside a tick (from a continuation).
/// Owner thread. Errors: `WRONG_THREAD`.
#[no_mangle]
pub extern "C" fn onity_runtime_drain(runtime: *mut OnityRuntime) -> OnityStatus {
    crate::ffi_host!({
        // SAFETY: documented contract of the runtime pointer.
        let r = unsafe { frame_ref(runtime) }?;
        batch_state::file_all(r);
        Ok(r.rt.drain()?)
    })
}

/// Fills `stats` (set `stats->size = sizeof(OnityStats)` first) with every
/// pool's counters, per-wait-kind counters, leak diagnostics and the frame
/// allocator's counters. Owner thread. Errors: `NULL_POINTER`, `SIZE_MISMATCH`, `WRONG_THREAD`.
#[no_mangle]
pub extern "C" fn onity_runtime_stats(runtime: *mut OnityRuntime, stats: *mut OnityStats) -> OnityStatus {
    crate::ffi!({
        let rt = core_at_frame(runtime)?;
        let out = Out::new(stats)?;
        // SAFETY: non-null, provided by the caller; only `size` is read.
        if unsafe { std::ptr::read_unaligned(std::ptr::addr_of!((*stats).size)) } as usize
            != std::mem::size_of::<OnityStats>()
        {
            return Err(OnityStatus::SizeMismatch);
        }
        let s = rt.stats()?;
        out.set(OnityStats::from_core(&s, rt.frame_alloc_stats()))
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
    crate::ffi!({
        let rt = core_of(runtime)?;
        fill_array(out_tasks, capacity, out_count, |capacity| {
            let buf: &mut [u64] = if capacity == 0 {
                &mut []
            } else {
                // SAFETY: non-null, the caller provides `capacity` writable slots.
                unsafe { std::slice::from_raw_parts_mut(out_tasks, capacity) }
            };
            Ok(rt.live_tasks(buf)?)
        })
    })
}

/// The name of a pool (`OnityPool` value) or "invalid". Infallible; any
/// thread; static string.
#[no_mangle]
pub extern "C" fn onity_pool_name(pool: u32) -> *const c_char {
    Pool::name_of(pool).unwrap_or(c"invalid").as_ptr()
}
