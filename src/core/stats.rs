//! Statistics: the snapshot of every pool and counter of a runtime.
//!
//! The counters live where they change (`FreeList` for slots, `Timings`
//! and `Lanes` for waits, the pools for coordinators); what can be derived
//! (live, idle, pending, cold allocations of slot tables, tasks queued from
//! other threads) is derived here instead of being counted twice.

use std::sync::atomic::Ordering;

use super::error::Result;
use super::pool::PoolStats;
use super::runtime::Runtime;
use super::slot::{self, cont, GEN_MASK, QUEUED, STATE_MASK};
use super::types::WAIT_KIND_COUNT;

/// Counters of one wait kind.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WaitStats {
    pub pending: u64,
    pub high_water: u64,
    pub scheduled: u64,
    pub completed: u64,
    pub canceled: u64,
}

/// A snapshot of every pool and counter of a runtime.
#[derive(Debug, Clone, Copy, Default)]
pub struct Stats {
    pub tasks: PoolStats,
    pub cancel_sources: PoolStats,
    /// Storage of wait records in the 16 timing queues.
    pub wait_records: PoolStats,
    pub waits: [WaitStats; WAIT_KIND_COUNT],
    /// WhenAny coordinators: up to 16 inputs, up to 32, larger (unpooled).
    pub when_any: [PoolStats; 3],
    /// WhenAll coordinators, same buckets.
    pub when_all: [PoolStats; 3],
    /// Tasks created and not yet consumed.
    pub live_tasks: u64,
    /// Tasks completed but never consumed (leak diagnosis).
    pub completed_unconsumed: u64,
    /// Continuations waiting for the owner thread (completed off-thread).
    pub cross_thread_queued: u64,
    /// The current frame number (as given to frame begin).
    pub frame: u64,
}

impl Runtime {
    /// A snapshot of all pools and counters. Owner thread.
    pub fn stats(&self) -> Result<Stats> {
        self.check_owner()?;
        // SAFETY: owner thread, short borrow; no user code runs below.
        let inner = unsafe { self.inner() };
        let t = &mut inner.timings;
        t.sample_high_water(&inner.lanes.counts);
        let mut s = Stats {
            tasks: inner.tasks.stats(self.tasks.len()),
            cancel_sources: inner.cancels.stats(self.cancels.len()),
            wait_records: t.storage,
            ..Default::default()
        };
        for k in 0..WAIT_KIND_COUNT {
            let (q, l) = (t.counts[k], inner.lanes.counts[k]);
            let w = &mut s.waits[k];
            w.scheduled = q.scheduled + l.scheduled;
            w.completed = q.completed + l.completed;
            w.canceled = q.canceled + l.canceled;
            w.pending = w.scheduled - w.completed - w.canceled;
            w.high_water = t.high_water[k];
        }
        // Wait records: the waits kept in the timing queues (not in batch
        // fast lanes, which the per-kind counters above include).
        let r = &mut s.wait_records;
        r.rents = t.counts.iter().map(|c| c.scheduled).sum();
        r.returns = t.counts.iter().map(|c| c.completed + c.canceled).sum();
        r.live = r.rents - r.returns;
        r.capacity = t.record_capacity();
        r.idle = r.capacity.saturating_sub(r.live);
        (s.when_any, s.when_all) = inner.comb.stats();
        s.live_tasks = s.tasks.live;
        for idx in 0..inner.tasks.fresh() {
            let slot = self.slot(idx);
            let w = slot.state.load(Ordering::Acquire);
            if slot::is_final(w) && !matches!(slot.cont.get(), cont::ANY | cont::ALL) {
                s.completed_unconsumed += 1;
            }
            if w & QUEUED != 0 {
                s.cross_thread_queued += 1;
            }
        }
        s.frame = t.host_frame();
        Ok(s)
    }

    /// Writes up to `out.len()` live task handles; returns how many are live.
    pub fn live_tasks(&self, out: &mut [u64]) -> Result<usize> {
        self.check_owner()?;
        // SAFETY: owner thread, short borrow.
        let fresh = unsafe { self.inner() }.tasks.fresh();
        let mut n = 0;
        for idx in 0..fresh {
            let w = self.slot(idx).state.load(Ordering::Acquire);
            if w & STATE_MASK != slot::FREE {
                if let Some(o) = out.get_mut(n) {
                    *o = (w & GEN_MASK) | self.task_key | idx as u64;
                }
                n += 1;
            }
        }
        Ok(n)
    }

    /// The live counts and pending waits a Tracy frame plots (`tracy.rs`).
    #[cfg_attr(not(feature = "tracy"), allow(dead_code))]
    pub(super) fn frame_plot(&self) -> super::tracy::FramePlot {
        // SAFETY: owner thread (frame begin checked it), short borrow; no
        // host code runs.
        let inner = unsafe { self.inner() };
        let (any, all) = inner.comb.stats();
        let live = |p: &[PoolStats; 3]| p.iter().map(|s| s.live).sum::<u64>();
        let mut pending = [0; WAIT_KIND_COUNT];
        for ((n, q), l) in pending.iter_mut().zip(inner.timings.counts.iter()).zip(inner.lanes.counts.iter()) {
            *n = q.pending() + l.pending();
        }
        super::tracy::FramePlot { live: [inner.tasks.live(), inner.cancels.live(), live(&any), live(&all)], pending }
    }
}
