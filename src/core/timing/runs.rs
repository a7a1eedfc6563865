//! Running a timing's waits: the near queue and the far slots a run holds,
//! merged by scheduling sequence ([`run`]), and what a run resumed
//! ([`Tally`]).

use super::*;

/// How many waits of each kind a run resumed.
#[derive(Default)]
pub struct Tally {
    pub done: [u64; WAIT_KIND_COUNT],
    pub canceled: [u64; WAIT_KIND_COUNT],
}

/// Runs the waits `items` (near) and `held` (far slots of `timing`) taken
/// by [`Timings::start_run`], merged in the order they were scheduled: each
/// one due at `now` (or, with `CANCEL_ALL`, every one), or whose token is
/// `canceled`, is removed and `resume`d (task handle or callback argument,
/// callback, user pointer, state: `Canceled` for the latter); the others
/// stay in `items` / `held`. With `CANCELED_ONLY` only canceled ones
/// resume, and only near ones scheduled up to sequence `limit` (the passes
/// after a run's first: nothing new is due). Counts go to `tally`. `timings` is the queue set (its `running` field lets
/// `repoint` reach the records while `resume` runs host code).
///
/// # Safety
/// `timings` must be valid for writes whenever this function touches it:
/// outside the `resume` calls (it is the owner's state, which host code may
/// reach only through `resume`).
#[allow(clippy::too_many_arguments)]
pub unsafe fn run<const CANCEL_ALL: bool, const CANCELED_ONLY: bool>(
    timings: *mut Timings,
    timing: usize,
    items: &mut Vec<Wait>,
    held: &mut Vec<u32>,
    now: &Now,
    limit: u64,
    canceled: impl Fn(u64) -> bool,
    resume: impl FnMut(u64, Option<CallbackFn>, *mut c_void, TaskState),
    tally: &mut Tally,
) {
    let run = Run { timings, timing, items, held, now, limit, tally };
    // Most runs hold no far wait: that loop is compiled without the merge.
    if run.held.is_empty() {
        run_merged::<CANCEL_ALL, CANCELED_ONLY, false>(run, canceled, resume)
    } else {
        run_merged::<CANCEL_ALL, CANCELED_ONLY, true>(run, canceled, resume)
    }
}

/// What [`run`] works on (its arguments but the two closures).
struct Run<'a> {
    timings: *mut Timings,
    timing: usize,
    items: &'a mut Vec<Wait>,
    held: &'a mut Vec<u32>,
    now: &'a Now,
    limit: u64,
    tally: &'a mut Tally,
}

/// [`run`], with `HAS_FAR` false when `held` is empty.
///
/// # Safety
/// As [`run`].
#[inline(always)]
unsafe fn run_merged<const CANCEL_ALL: bool, const CANCELED_ONLY: bool, const HAS_FAR: bool>(
    run: Run<'_>,
    canceled: impl Fn(u64) -> bool,
    mut resume: impl FnMut(u64, Option<CallbackFn>, *mut c_void, TaskState),
) {
    let Run { timings, timing, items, held, now, limit, tally } = run;
    let len = items.len();
    let base = items.as_mut_ptr();
    let n_far = held.len();
    let key = now.frame_key();
    (*timings).running = (base, len, items.capacity());
    let (mut kept, mut kept_far) = (0usize, 0usize);
    let (mut i, mut j) = (0usize, 0usize);
    let mut local = Tally::default();
    loop {
        // The next record in scheduling order: far slot `held[j]` or near
        // record `i`.
        let far_slot = if HAS_FAR && j < n_far {
            let slot = held[j];
            // SAFETY: no borrow of `timings` is alive (outside `resume`).
            let far = unsafe { &(*timings).queues[timing].far };
            if i >= len || far.get(slot).seq < unsafe { (*base.add(i)).seq } {
                Some(slot)
            } else {
                None
            }
        } else {
            None
        };
        let rec = match far_slot {
            Some(slot) => {
                j += 1;
                // SAFETY: as above.
                unsafe { &(*timings).queues[timing].far }.get(slot)
            }
            None if i < len => {
                i += 1;
                // SAFETY: i - 1 < len; records are read through `base` only
                // (repoint writes through the same pointer while `resume`
                // runs).
                unsafe { &*base.add(i - 1) }
            }
            None => break,
        };
        let swept = HAS_FAR && far_slot.is_some_and(|s| unsafe { &(*timings).queues[timing].far }.swept(s));
        let is_canceled =
            CANCEL_ALL || swept || (rec.token != 0 && (!CANCELED_ONLY || rec.seq <= limit) && canceled(rec.token));
        if !is_canceled && (CANCELED_ONLY || !rec.is_due(now, key)) {
            match far_slot {
                Some(slot) => {
                    held[kept_far] = slot;
                    kept_far += 1;
                }
                None => {
                    // SAFETY: kept < i <= len; copy within the local vector.
                    unsafe { *base.add(kept) = *rec };
                    kept += 1;
                }
            }
            continue;
        }
        let kind = rec.kind_index();
        let state = if is_canceled {
            local.canceled[kind] += 1;
            TaskState::Canceled
        } else {
            local.done[kind] += 1;
            TaskState::Succeeded
        };
        // Copied out first: `resume` runs host code, which may re-point
        // the record's token through `base`, or reuse a freed far slot.
        let (arg, func, user) = (rec.arg, rec.func, rec.user);
        if let Some(slot) = far_slot {
            // SAFETY: as above.
            unsafe { &mut (*timings).queues[timing].far }.free(slot);
        } else {
            // Resumed: sequence 0 (none), so `retire.rs` never takes it for
            // a pending wait. SAFETY: i - 1 < len, through `base` as above.
            unsafe { (*base.add(i - 1)).seq = 0 };
        }
        resume(arg, func, user, state);
    }
    // SAFETY: the first `kept` elements are initialised copies.
    unsafe { items.set_len(kept) };
    held.truncate(kept_far);
    for k in 0..WAIT_KIND_COUNT {
        tally.done[k] += local.done[k];
        tally.canceled[k] += local.canceled[k];
    }
}
