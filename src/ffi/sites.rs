//! Creation sites (ABI 1.2): the `_at` forms of the calls that create tasks
//! and waits, site capture, the live-task report grouped by site. The `_at`
//! forms of the waits and combinators are generated (`families.g.rs`).
//!
//! Each `_at` function is its plain function with two more parameters,
//! `file` and `line`, that the `ONITY_SITE` macro fills with `__FILE__` and
//! `__LINE__`. `file` is compared by address first and copied the first
//! time it is seen (once per distinct name, at most 4,096 bytes of it:
//! nothing past them is read): pass a string that stays valid and unchanged
//! while the runtime lives (a literal, a `std::source_location`'s file
//! name), or NULL for no site. While capture is off (the default;
//! `onity_runtime_set_site_capture`) an `_at` call records nothing and costs
//! its plain call plus one test; the plain calls never record a site.
//!
//! A callback wait (`_then_at`) made while capture is on is run as a task
//! wait whose continuation consumes it and calls the callback with 0: same
//! queue, order, cancellation and destruction rules, and it appears in the
//! report until it has run.
//!
//! Out of memory while capture is on: a task (or task wait) whose site
//! cannot be stored is made without one (reported under
//! `ONITY_SITE_NONE`); a callback wait whose callback cannot be stored is
//! not made (`OUT_OF_MEMORY`).

use std::ffi::c_char;

use super::deferred::core_at_frame;
use super::error::{fill_array, Out};
use super::object::{core_of, OnityRuntime};
use super::status::OnityStatus;
use crate::core::sites::{SiteCount, SiteRef};
use crate::core::Runtime;

/// `OnitySiteReport::site` of tasks made without a site (by a plain call,
/// or while capture was off).
pub const ONITY_SITE_NONE: u32 = 0;
/// `OnitySiteReport::site` of tasks made at sites past the table (4096
/// distinct sites per runtime).
pub const ONITY_SITE_OVERFLOW: u32 = 0xFFFF_FFFF;
const _: () = assert!(ONITY_SITE_NONE == crate::core::sites::SITE_NONE);
const _: () = assert!(ONITY_SITE_OVERFLOW == crate::core::sites::SITE_OVERFLOW);

/// One line of `onity_runtime_site_report`: the live tasks made at one site
/// that are at least the asked age, and what they are doing.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct OnitySiteReport {
    /// The file given to the `_at` call (a copy, valid until the runtime is
    /// destroyed); NULL for `ONITY_SITE_NONE` and `ONITY_SITE_OVERFLOW`.
    pub file: *const c_char,
    pub line: u32,
    /// The site's id in this runtime (1 to 4096), or `ONITY_SITE_NONE`,
    /// `ONITY_SITE_OVERFLOW`.
    pub site: u32,
    /// Live tasks (created, not consumed) of this line.
    pub tasks: u64,
    /// Of those, not completed yet.
    pub pending: u64,
    /// Of those, completed and never consumed.
    pub completed: u64,
    /// Of those, with a continuation (awaited, a callback wait, or an input
    /// of a WhenAny / WhenAll).
    pub awaited: u64,
    /// Age in frames (the current frame number minus the one current when the task was made) of the oldest
    /// and newest of them; `UINT64_MAX` for `ONITY_SITE_NONE` (unknown).
    pub oldest_age_frames: u64,
    pub newest_age_frames: u64,
}

impl Default for OnitySiteReport {
    /// An empty line (to fill an output array with).
    fn default() -> Self {
        SiteCount::default().into()
    }
}

impl From<SiteCount> for OnitySiteReport {
    fn from(c: SiteCount) -> Self {
        OnitySiteReport {
            file: c.file,
            line: c.line,
            site: c.site,
            tasks: c.tasks,
            pending: c.pending,
            completed: c.completed,
            awaited: c.awaited,
            oldest_age_frames: c.oldest_age,
            newest_age_frames: c.newest_age,
        }
    }
}

/// The site a C caller passes.
#[inline(always)]
pub(super) fn site(file: *const c_char, line: u32) -> Option<SiteRef> {
    // SAFETY: the documented contract of every `_at` function's `file`.
    unsafe { SiteRef::from_raw(file, line) }
}

/// Turns site capture on (`enabled` = 1) or off (0, the default). Owner
/// thread. Errors: `NULL_POINTER`, `INVALID_RUNTIME`, `WRONG_THREAD`,
/// `INVALID_ARGUMENT` (other values), `OUT_OF_MEMORY` (turning it on the
/// first time: capture stays off). ABI 1.2.
#[no_mangle]
pub extern "C" fn onity_runtime_set_site_capture(runtime: *mut OnityRuntime, enabled: u32) -> OnityStatus {
    crate::ffi!({
        let rt = core_of(runtime)?;
        if enabled > 1 {
            return Err(OnityStatus::InvalidArgument);
        }
        Ok(rt.set_site_capture(enabled == 1)?)
    })
}

/// The live-task report: the live tasks at least `min_age_frames` frames old
/// (tasks of unknown age, made without a site, only when it is 0), grouped
/// by creation site, most tasks first. Writes up to `capacity` lines to
/// `out_lines` and the number of lines to `*out_count` (which may exceed
/// `capacity`); `out_lines` may be NULL when `capacity` is 0. Scans every
/// task slot; allocates only the first time (and when sites were added).
/// Owner thread. Errors: `NULL_POINTER`, `INVALID_RUNTIME`, `WRONG_THREAD`,
/// `OUT_OF_MEMORY` (nothing written). ABI 1.2.
#[no_mangle]
pub extern "C" fn onity_runtime_site_report(
    runtime: *mut OnityRuntime,
    min_age_frames: u64,
    out_lines: *mut OnitySiteReport,
    capacity: u32,
    out_count: *mut u32,
) -> OnityStatus {
    crate::ffi!({
        let rt = core_at_frame(runtime)?;
        fill_array(out_lines, capacity, out_count, |capacity| {
            Ok(rt.site_report(min_age_frames, capacity, |i, c| {
                // SAFETY: non-null, the caller provides `capacity` writable
                // lines, and `i < capacity`.
                unsafe { out_lines.add(i).write(c.into()) }
            })?)
        })
    })
}

/// The creation site of a live task: `*out_file` (the runtime's copy of the
/// file name, valid until it is destroyed), `*out_line` and `*out_frame`
/// (the frame current when it was made). A task made without a site, or at
/// a site past the 4,096-site table (counted under `ONITY_SITE_OVERFLOW` in
/// the report), gives NULL, 0 and 0: its site is not known. Any output may
/// be NULL. Owner thread.
/// Errors: `INVALID_RUNTIME`, `INVALID_HANDLE`, `STALE_HANDLE`,
/// `FOREIGN_HANDLE`, `WRONG_THREAD`. ABI 1.2.
#[no_mangle]
pub extern "C" fn onity_task_site(
    runtime: *mut OnityRuntime,
    task: u64,
    out_file: *mut *const c_char,
    out_line: *mut u32,
    out_frame: *mut u64,
) -> OnityStatus {
    crate::ffi!({
        let rt = core_of(runtime)?;
        let (file, line, frame) = match rt.task_site(task)? {
            Some((f, l, fr)) => (f.as_ptr(), l, fr),
            None => (std::ptr::null(), 0, 0),
        };
        Out::put_optional(out_file, file);
        Out::put_optional(out_line, line);
        Out::put_optional(out_frame, frame);
        Ok(())
    })
}

/// The `_at` forms of `onity_task_create` and `onity_task_from_result`
/// (generated, `families.g.rs`): the runtime with its deferred frame applied
/// (a task records its creation frame), the output checked, then `make`
/// makes the task at the caller's site and hands it to its `take`, which
/// writes the output (on success only).
#[inline(always)]
pub(super) fn create_at(
    runtime: *mut OnityRuntime,
    out_task: *mut u64,
    file: *const c_char,
    line: u32,
    make: impl FnOnce(&Runtime, Option<SiteRef>, Out<u64>) -> crate::core::Result<()>,
) -> Result<(), OnityStatus> {
    let rt = core_at_frame(runtime)?;
    let out = Out::new(out_task)?;
    Ok(make(rt, site(file, line), out)?)
}
