//! Batches: the waits a host files through shared memory instead of one call
//! each, and the fast lane for the commonest of them.
//!
//! A batch files two kinds of records:
//! - [`Request`]s: any wait kind
//!   with a token, or a task to watch. The runtime schedules them as
//!   callback waits (and continuations) that call the batch's callback with
//!   the record's id (`Runtime::file_requests`).
//! - Fast records (one `u64`: id, timing, delay in frames; see
//!   [`fast_record`]): Yield, NextFrame and DelayFrame without a token. They
//!   never enter the timing queues: each batch keeps them per timing in a
//!   [`Lane`], and its own tick reports the due ones as a list of ids.
//!
//! The runtime owns every lane: it files them with its own frame counter,
//! rebases them at the first frame with the queues ([`super::rebased`]),
//! and counts them in its wait statistics (by record: delay 0 as a Yield, 1
//! as a NextFrame, more as a DelayFrame) but not in the wait-record pool,
//! whose storage they do not use.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::ffi::c_void;
use std::ptr::NonNull;

use super::{rebased, Counts, Now, Timings};
use crate::core::error::{Error, Result};
use crate::core::fallible;
use crate::core::types::{CallbackFn, WaitKind, TIMING_COUNT, WAIT_KIND_COUNT};

/// Record kind of a [`Request`] that watches a task (the four [`WaitKind`]
/// values are the others).
pub const REQUEST_TASK: u8 = 4;

/// One wait request a batch files: a wait of any kind (with a token) or a
/// task to watch, resumed by the batch's callback with `id`.
#[derive(Debug, Clone, Copy)]
pub struct Request {
    /// The host's id for the continuation, passed to the batch's callback.
    pub id: u64,
    /// Cancellation token (0 for none).
    pub token: u64,
    /// DelayFrame: the frame count (at most `u32::MAX`, else the request
    /// is rejected with [`Error::CountOutOfRange`]). Delay: the seconds as
    /// `f64` bits. [`REQUEST_TASK`]: the task handle. Otherwise ignored.
    pub arg: u64,
    /// A [`WaitKind`] value, or [`REQUEST_TASK`].
    pub kind: u8,
    /// A [`crate::core::Timing`] value (ignored for [`REQUEST_TASK`]).
    pub timing: u8,
    /// A [`crate::core::Clock`] value. Only Delay uses it, but every wait kind
    /// checks it; ignored for [`REQUEST_TASK`].
    pub clock: u8,
}

/// Bits of a fast record's delay field.
pub const FAST_DELAY_BITS: u32 = 28;

/// A fast record: `id` (bits 0-31), `timing` (bits 32-35) and
/// `delay_frames` (bits 36-63): 0 = Yield, 1 = NextFrame, n = DelayFrame(n).
/// `InvalidArgument` for a timing >= 16, `CountOutOfRange` for a delay >=
/// 2^28.
pub fn fast_record(id: u32, timing: u32, delay_frames: u32) -> Result<u64> {
    if timing >= TIMING_COUNT as u32 {
        return Err(Error::InvalidArgument);
    }
    if delay_frames >= 1 << FAST_DELAY_BITS {
        return Err(Error::CountOutOfRange);
    }
    Ok(id as u64 | (timing as u64) << 32 | (delay_frames as u64) << 36)
}

/// One timing's fast-lane waits of one batch.
#[derive(Default)]
struct FastQueue {
    /// Yields: due at the next run of the timing.
    yields: Vec<u32>,
    /// NextFrame waits in filing order...
    next_ids: Vec<u32>,
    /// ...as runs of (due frame, count); due frames increase.
    next_runs: VecDeque<(u64, usize)>,
    /// DelayFrame(n > 1) waits: (due frame, filing sequence, id).
    later: BinaryHeap<Reverse<(u64, u64, u32)>>,
}

/// One batch: what its waits call, and its fast lane.
pub struct Lane {
    /// The callback the batch's queued waits and watched tasks call, with
    /// `user` and the record id.
    pub emit: CallbackFn,
    pub user: *mut c_void,
    queues: Vec<FastQueue>,
    /// Ids found due by the last run (see [`Lanes::run`]).
    out: Vec<u32>,
    /// Fast waits filed and not yet reported.
    pending: u64,
    seq: u64,
}

/// Appends `src` to `dst`, by swapping the buffers when `dst` is empty.
fn append_ids(dst: &mut Vec<u32>, src: &mut Vec<u32>) {
    if dst.is_empty() {
        std::mem::swap(dst, src);
    } else {
        dst.extend_from_slice(src);
        src.clear();
    }
}

/// Every batch of a runtime.
#[derive(Default)]
pub struct Lanes {
    /// Each from `Box::leak` (freed by `remove` or `Drop`). Raw, not `Box`:
    /// the tasks a lane watches keep a pointer to it ([`Lanes::ptr`]) across
    /// the lane's own mutations.
    list: Vec<LaneSlot>,
    /// Fast-lane waits, per kind (by record: see the module docs).
    pub counts: [Counts; WAIT_KIND_COUNT],
}

/// A batch's lane in [`Lanes`]: its index (bits 0-15) and the generation of
/// that index (bits 16-31), so an id of a removed lane is refused
/// (`StaleHandle`) even once a new lane took its index (until the index was
/// reused 65,536 times).
pub type LaneId = u32;

/// Lanes live at once, at most (the index bits of a [`LaneId`]).
pub const MAX_LANES: usize = 1 << 16;

/// One index of [`Lanes`]: the lane there, if any, and the generation its
/// next lane gets.
#[derive(Default)]
struct LaneSlot {
    gen: u16,
    lane: Option<NonNull<Lane>>,
}

impl Lanes {
    /// Adds a batch whose waits call `emit(user, id, state)`; `OutOfMemory`
    /// (nothing added) when its memory cannot be had.
    pub fn create(&mut self, emit: CallbackFn, user: *mut c_void) -> Result<LaneId> {
        let mut queues = fallible::vec_with_capacity(TIMING_COUNT)?;
        queues.extend((0..TIMING_COUNT).map(|_| FastQueue::default()));
        let out = fallible::vec_with_capacity(1024)?;
        let free = self.list.iter().position(|s| s.lane.is_none());
        if free.is_none() {
            if self.list.len() == MAX_LANES {
                return Err(Error::Exhausted);
            }
            fallible::reserve(&mut self.list, 1)?;
        }
        let lane = fallible::try_box(|| Lane { emit, user, queues, out, pending: 0, seq: 0 })?;
        let lane = NonNull::from(Box::leak(lane));
        let i = free.unwrap_or_else(|| {
            self.list.push(LaneSlot::default());
            self.list.len() - 1
        });
        self.list[i].lane = Some(lane);
        Ok(u32::from(self.list[i].gen) << 16 | i as u32)
    }

    /// Lane `id`: `InvalidHandle` for an id never issued, `StaleHandle` for
    /// one whose lane was removed.
    fn find(&self, id: LaneId) -> Result<NonNull<Lane>> {
        let slot = self.list.get((id & 0xFFFF) as usize).ok_or(Error::InvalidHandle)?;
        match slot.lane {
            Some(lane) if u32::from(slot.gen) == id >> 16 => Ok(lane),
            _ if id >> 16 > u32::from(slot.gen) => Err(Error::InvalidHandle),
            _ => Err(Error::StaleHandle),
        }
    }

    /// Whether no lane holds a fast wait of `timing`, and at most one lane
    /// is live (the host that skips runs reads only its own batch's
    /// unfiled records: `idle.rs`).
    pub fn idle(&self, timing: usize) -> bool {
        let mut live = 0;
        for lane in self.list.iter().filter_map(|s| s.lane) {
            live += 1;
            // SAFETY: a live lane (see `list`); shared borrow of `self`.
            let q = unsafe { &lane.as_ref().queues[timing] };
            if live > 1 || !(q.yields.is_empty() && q.next_ids.is_empty() && q.later.is_empty()) {
                return false;
            }
        }
        true
    }

    /// The lane `id`; errors as [`Lanes::ptr`].
    pub fn get(&self, id: LaneId) -> Result<&Lane> {
        // SAFETY: a live lane (see `list`); shared borrow of `self`.
        self.find(id).map(|p| unsafe { p.as_ref() })
    }

    /// A pointer to lane `id`, valid until it is removed. `InvalidHandle`
    /// for an id never issued, `StaleHandle` for a removed lane's.
    pub fn ptr(&self, id: LaneId) -> Result<NonNull<Lane>> {
        self.find(id)
    }

    /// Removes lane `id`, counting its fast waits as canceled. Errors as
    /// [`Lanes::ptr`] (then nothing changed).
    pub fn remove(&mut self, id: LaneId) -> Result<()> {
        self.find(id)?;
        let slot = &mut self.list[(id & 0xFFFF) as usize];
        slot.gen = slot.gen.wrapping_add(1);
        if let Some(lane) = slot.lane.take() {
            // SAFETY: from `Box::leak` in `create`, freed once (taken out of
            // the list).
            let lane = unsafe { Box::from_raw(lane.as_ptr()) };
            for q in lane.queues.iter() {
                self.counts[WaitKind::Yield as usize].canceled += q.yields.len() as u64;
                self.counts[WaitKind::NextFrame as usize].canceled += q.next_ids.len() as u64;
                self.counts[WaitKind::DelayFrame as usize].canceled += q.later.len() as u64;
            }
        }
        Ok(())
    }

    /// Files fast records in lane `id`, with due frames from `now`. When
    /// the storage they need cannot grow, it stops at a run of records
    /// (same timing and delay) and returns `Err(k)`: the first `k` were
    /// filed, the others were not.
    /// Each timing given a wait has its idle byte cleared in `timings`.
    /// An `id` refused by [`Lanes::ptr`]: `Err((that error, 0))`.
    pub fn file(
        &mut self,
        id: LaneId,
        recs: &[u64],
        now: &Now,
        timings: &mut Timings,
    ) -> std::result::Result<(), (Error, usize)> {
        // SAFETY: a live lane (see `list`); exclusive borrow of `self`.
        let lane = unsafe { self.find(id).map_err(|e| (e, 0))?.as_mut() };
        if recs.is_empty() {
            return Ok(());
        }
        let mut n = [0u64; 3];
        let mut filed = Ok(());
        // Records come in runs with the same timing and delay (a loop of
        // awaits): file a run at once.
        let mut i = 0;
        while i < recs.len() {
            let hi = recs[i] >> 32;
            let mut j = i + 1;
            while j < recs.len() && recs[j] >> 32 == hi {
                j += 1;
            }
            let run = &recs[i..j];
            timings.clear_idle_of((hi & 0xF) as usize);
            let q = &mut lane.queues[(hi & 0xF) as usize];
            let room = match hi >> 4 {
                0 => q.yields.try_reserve(run.len()).is_ok(),
                1 => q.next_ids.try_reserve(run.len()).is_ok() && q.next_runs.try_reserve(1).is_ok(),
                _ => q.later.try_reserve(run.len()).is_ok(),
            };
            if !room {
                filed = Err((Error::OutOfMemory, i));
                break;
            }
            match hi >> 4 {
                0 => {
                    n[0] += run.len() as u64;
                    q.yields.extend(run.iter().map(|&r| r as u32));
                }
                1 => {
                    n[1] += run.len() as u64;
                    q.next_ids.extend(run.iter().map(|&r| r as u32));
                    let due_frame = now.due_frame(WaitKind::NextFrame, 0);
                    match q.next_runs.back_mut() {
                        Some((due, count)) if *due == due_frame => *count += run.len(),
                        _ => q.next_runs.push_back((due_frame, run.len())),
                    }
                }
                delay => {
                    n[2] += run.len() as u64;
                    let due = now.due_frame(WaitKind::DelayFrame, delay as u32);
                    for &r in run {
                        lane.seq += 1;
                        q.later.push(Reverse((due, lane.seq, r as u32)));
                    }
                }
            }
            i = j;
        }
        for (k, n) in n.into_iter().enumerate() {
            self.counts[k].scheduled += n;
            lane.pending += n;
        }
        filed
    }

    /// Moves the fast waits of `timing` in lane `id` that are due at `now`
    /// (the frame half of the due rule, [`Now::frame_come`]) into the lane's report, which it returns: Yields (in filing
    /// order), then NextFrame waits, then DelayFrame waits (each by due
    /// frame, then filing order). The report stays until the next run.
    /// Its storage grows fallibly: when it cannot, the waits it has no room
    /// for stay pending (reported by a later run). Errors as [`Lanes::ptr`].
    pub fn run(&mut self, id: LaneId, timing: usize, now: &Now) -> Result<&[u32]> {
        // SAFETY: a live lane (see `list`); exclusive borrow of `self`, and
        // the report returned borrows it.
        let lane = unsafe { self.find(id)?.as_mut() };
        lane.out.clear();
        if lane.pending != 0 {
            let q = &mut lane.queues[timing];
            // `out` is empty: this swaps buffers (no allocation).
            append_ids(&mut lane.out, &mut q.yields);
            let yields = lane.out.len() as u64;
            let mut due_n = 0usize;
            let mut due_runs = 0usize;
            for &(due, count) in q.next_runs.iter() {
                if !now.frame_come(due) {
                    break;
                }
                due_n += count;
                due_runs += 1;
            }
            let room = |out: &mut Vec<u32>, n: usize| n == 0 || out.try_reserve(n).is_ok();
            if due_n > 0 && ((lane.out.is_empty() && due_n == q.next_ids.len()) || room(&mut lane.out, due_n)) {
                q.next_runs.drain(..due_runs);
                if due_n == q.next_ids.len() {
                    append_ids(&mut lane.out, &mut q.next_ids);
                } else {
                    lane.out.extend_from_slice(&q.next_ids[..due_n]);
                    q.next_ids.drain(..due_n);
                }
            }
            let nexts = lane.out.len() as u64 - yields;
            while let Some(&Reverse((due, _, id))) = q.later.peek() {
                if !now.frame_come(due) || !(lane.out.len() < lane.out.capacity() || room(&mut lane.out, q.later.len()))
                {
                    break;
                }
                lane.out.push(id);
                q.later.pop();
            }
            let total = lane.out.len() as u64;
            lane.pending -= total;
            self.counts[WaitKind::Yield as usize].completed += yields;
            self.counts[WaitKind::NextFrame as usize].completed += nexts;
            self.counts[WaitKind::DelayFrame as usize].completed += total - yields - nexts;
        }
        Ok(&lane.out)
    }

    /// Moves every fast wait's due frame `by` frames later (filed before
    /// the first frame).
    pub fn rebase(&mut self, by: u64) {
        for lane in self.list.iter_mut().filter_map(|s| s.lane) {
            // SAFETY: a live lane (see `list`); exclusive borrow of `self`.
            let lane = unsafe { &mut *lane.as_ptr() };
            for q in lane.queues.iter_mut() {
                for run in q.next_runs.iter_mut() {
                    run.0 = rebased(run.0, by);
                }
                if !q.later.is_empty() {
                    let later = std::mem::take(&mut q.later);
                    q.later =
                        later.into_iter().map(|Reverse((due, seq, id))| Reverse((rebased(due, by), seq, id))).collect();
                }
            }
        }
    }
}

impl Drop for Lanes {
    fn drop(&mut self) {
        for lane in self.list.drain(..).filter_map(|s| s.lane) {
            // SAFETY: from `Box::leak` in `create`, freed once.
            drop(unsafe { Box::from_raw(lane.as_ptr()) });
        }
    }
}
