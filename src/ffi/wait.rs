//! Frame waits: Yield, NextFrame, DelayFrame, Delay. Their exports, every
//! form, are generated into `families.g.rs`; they call [`schedule`] and
//! [`schedule_at`].
//!
//! Each comes in two forms: one that returns a task (consume it after it
//! completes) and a `_then` form that calls a callback and has no task at all
//! (the fastest path: nothing to consume). Rules, with F the frame current at
//! scheduling time (the last `onity_runtime_frame_begin`):
//!
//! | wait            | completes at                                              |
//! |-----------------|-----------------------------------------------------------|
//! | Yield(t)        | the next run of timing t (this frame if t has not run yet) |
//! | NextFrame(t)    | the first run of t in a frame > F                          |
//! | DelayFrame(n,t) | the first run of t in a frame >= F + n (n = 0: as Yield)   |
//! | Delay(s,c,t)    | the first run of t in a frame > F at which clock c has advanced by >= s since F |
//!
//! With a cancellation token, a wait whose source is canceled completes
//! canceled at the next run of its timing, even if it is not yet due.

use std::ffi::{c_char, c_void};

use super::deferred::{frame_pending, sync_frame};
use super::error::{arg, Out};
use super::object::{runtime_ref, OnityRuntime, RuntimeObject};
use super::status::OnityStatus;
use super::types::OnityCallback;
use crate::core::sites::SiteRef;
use crate::core::{Clock, Timing, WaitKind, WaitSpec, WaitTarget};

/// The output of a wait: the task (task forms), or nothing (callback forms),
/// or the wait's id in the slot that is the callback's `user` (the
/// retirable `_then_id` forms, `retire.rs`).
pub(super) enum Target {
    Task(*mut u64),
    Callback(OnityCallback, *mut c_void),
    Retirable(OnityCallback, *mut u64),
}

/// What a wait export asks for: the kind and its parameters as the C ABI
/// gives them (checked by [`file_wait`]).
#[derive(Clone, Copy)]
pub(super) struct Ask {
    kind: WaitKind,
    timing: u32,
    frames: u32,
    seconds: f64,
    clock: u32,
    token: u64,
}

impl Ask {
    #[inline(always)]
    pub(super) fn yield_(timing: u32, token: u64) -> Ask {
        Ask { kind: WaitKind::Yield, timing, frames: 0, seconds: 0.0, clock: 0, token }
    }

    #[inline(always)]
    pub(super) fn next_frame(timing: u32, token: u64) -> Ask {
        Ask { kind: WaitKind::NextFrame, ..Ask::yield_(timing, token) }
    }

    #[inline(always)]
    pub(super) fn delay_frame(frames: u32, timing: u32, token: u64) -> Ask {
        Ask { kind: WaitKind::DelayFrame, frames, ..Ask::yield_(timing, token) }
    }

    #[inline(always)]
    pub(super) fn delay(seconds: f64, clock: u32, timing: u32, token: u64) -> Ask {
        Ask { kind: WaitKind::Delay, seconds, clock, ..Ask::yield_(timing, token) }
    }
}

/// Every wait export (the plain, `_then` and `_then_id` forms; the `_at`
/// forms call [`schedule_at`]): converts, then schedules. Errors in this
/// order: a null output (task forms), the runtime pointer, the timing, the
/// clock, a null callback (callback forms), a null slot (`_then_id`), then
/// the core's checks.
#[inline(always)]
pub(super) fn schedule(runtime: *mut OnityRuntime, ask: Ask, target: Target) -> Result<(), OnityStatus> {
    schedule_at(runtime, ask, target, std::ptr::null(), 0)
}

/// [`schedule`] with a creation site (the `_at` exports, `sites.rs`): `file`
/// and `line` as those take them (a null `file`: no site).
#[inline(always)]
pub(super) fn schedule_at(
    runtime: *mut OnityRuntime,
    ask: Ask,
    target: Target,
    file: *const c_char,
    line: u32,
) -> Result<(), OnityStatus> {
    // The target as scalars (a task form is the one with an output), so
    // that the call below takes them in registers.
    // A retirable wait's slot is its callback's `user`, checked after the
    // callback (`file_wait`).
    let (out, callback, user, retirable) = match target {
        Target::Task(p) => (Some(Out::new(p)?), None, std::ptr::null_mut(), false),
        Target::Callback(f, user) => (None, f, user, false),
        Target::Retirable(f, wait) => (None, f, wait.cast(), true),
    };
    // SAFETY: documented contract of the runtime pointer.
    let r = unsafe { runtime_ref(runtime) }?;
    if frame_pending(r) {
        let Ask { kind, timing, frames, seconds, clock, token } = ask;
        return schedule_deferred(
            r, timing, token, callback, user, out, kind, frames, seconds, clock, file, line, retirable,
        );
    }
    file_wait(&r.rt, ask, callback, user, file, line, out, retirable)
}

/// [`file_wait`] after applying the deferred frame: out of line with its
/// own copy of `file_wait`, so the usual path pays the check alone
/// (returning to an inlined `file_wait` after a call would make it keep its
/// arguments in saved registers).
#[allow(clippy::too_many_arguments)]
#[cold]
#[inline(never)]
fn schedule_deferred(
    // In the registers the callback forms of Yield and NextFrame get their
    // arguments in (no move on the usual path).
    r: &RuntimeObject,
    timing: u32,
    token: u64,
    callback: OnityCallback,
    user: *mut c_void,
    out: Option<Out<u64>>,
    kind: WaitKind,
    frames: u32,
    seconds: f64,
    clock: u32,
    file: *const c_char,
    line: u32,
    retirable: bool,
) -> Result<(), OnityStatus> {
    sync_frame(r);
    let ask = Ask { kind, timing, frames, seconds, clock, token };
    file_wait(&r.rt, ask, callback, user, file, line, out, retirable)
}

/// The rest of [`schedule_at`]: checks the timing, clock and callback (a
/// callback form is one without `out`) and a `retirable` one's slot (its
/// `user`, which receives its id), then schedules.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn file_wait(
    rt: &crate::core::Runtime,
    ask: Ask,
    callback: OnityCallback,
    user: *mut c_void,
    file: *const c_char,
    line: u32,
    out: Option<Out<u64>>,
    retirable: bool,
) -> Result<(), OnityStatus> {
    let Ask { kind, timing, frames, seconds, clock, token } = ask;
    // SAFETY: the documented contract of every `_at` function's `file`.
    let site = unsafe { SiteRef::from_raw(file, line) };
    let t = arg(Timing::from_u32(timing))?;
    let c = arg(Clock::from_u32(clock))?;
    let target = match out {
        Some(_) => WaitTarget::Task,
        None => WaitTarget::Callback(callback.ok_or(OnityStatus::NullPointer)?, user, 0),
    };
    let out = if retirable { Some(Out::new(user.cast::<u64>())?) } else { out };
    let spec = WaitSpec { kind, timing: t, frames, seconds, clock: c, token };
    let take = move |h| {
        if let Some(out) = out {
            out.put(h);
        }
    };
    Ok(match site {
        None => rt.wait_with(spec, target, take),
        Some(_) => rt.wait_at(spec, target, site, take),
    }?)
}
