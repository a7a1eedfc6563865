//! Checks: the continuations and callbacks of each step, the statistics,
//! the live-task list, and the end of a run.

use std::ptr;

use onity::ffi::*;

use super::sim::*;
use super::Report;

impl Sim<'_> {
    /// The continuations and callbacks the step ran are the ones the model
    /// expected, in order (as multisets where the order is unspecified).
    pub fn verify(&mut self) {
        let mut got = take_log();
        let mut want = std::mem::take(&mut self.expect);
        for e in &got {
            if let Ev::Cont { id, .. } | Ev::Cb { id, .. } = e {
                *self.fired.entry(*id).or_default() += 1;
            }
            self.cov(match e {
                Ev::Cont { state: CANCELED, .. } => "continuation (canceled)",
                Ev::Cont { .. } => "continuation",
                Ev::Consumed { .. } => "consumed in a continuation",
                Ev::Act { what: F_DESTROY, .. } => "destroy in a continuation",
                Ev::Act { what: F_TICK, status: 0, .. } => "tick in a continuation",
                Ev::Act { what: F_TICK, .. } => "tick in a continuation refused",
                Ev::Act { what: F_YIELD, .. } => "yield in a continuation",
                Ev::Act { status: SKIPPED, .. } => "other runtime destroyed, or in its own destroy",
                Ev::Act { what: F_OTHER_SET, .. } => "set_result on another runtime in a continuation",
                Ev::Act { .. } => "destroy of another runtime in a continuation",
                Ev::Cb { state: CANCELED, .. } => "callback wait (canceled)",
                Ev::Cb { .. } => "callback wait",
            });
        }
        for e in got.iter_mut().chain(want.iter_mut()) {
            match e {
                Ev::Consumed { id, value, error, state, index, .. } if self.loose_ids.contains(id) => {
                    (*value, *error, *state, *index) = (0, 0, 0, 0);
                }
                Ev::Cont { id, state, .. } if self.loose_ids.contains(id) => *state = 0,
                _ => {}
            }
        }
        if self.relaxed {
            got.sort();
            want.sort();
        }
        assert_eq!(got, want, "{}: continuations and callbacks (got, expected)", self.ctx());
        self.relaxed = false;
        self.loose_ids.clear();
        for r in 0..self.rts.len() {
            if self.rts[r].alive || self.rts[r].registered.is_empty() {
                continue;
            }
            // Destroyed: every continuation and callback ran exactly once.
            for id in std::mem::take(&mut self.rts[r].registered) {
                let n = self.fired.get(&id).copied().unwrap_or(0);
                assert_eq!(n, 1, "{}: runtime {r}: continuation {id} ran {n} times", self.ctx());
            }
        }
    }

    pub fn op_stats(&mut self, r: usize) {
        // SAFETY: OnityStats is plain data; all-zero is a valid value.
        let mut st: OnityStats = unsafe { std::mem::zeroed() };
        st.size = std::mem::size_of::<OnityStats>() as u32;
        let p = self.rts[r].p;
        match self.inp.below(20) {
            0 => {
                let s = onity_runtime_stats(p, ptr::null_mut());
                self.check(s, &[S::NullPointer], "stats (null)");
                return;
            }
            1 => {
                st.size -= 8;
                let s = onity_runtime_stats(p, &mut st);
                self.check(s, &[S::SizeMismatch], "stats (size)");
                return;
            }
            _ => {}
        }
        let s = onity_runtime_stats(p, &mut st);
        self.check(s, &[], "stats");
        self.cov("stats checked");
        let ctx = self.ctx();
        let rt = &self.rts[r];
        let live = rt.live_tasks_where(|_| true);
        let retired_queued = rt.tasks.iter().filter(|t| t.retired && t.queued).count() as u64;
        let tp = st.pools[0];
        assert_eq!(tp.live, live.len() as u64, "{ctx}: task pool live");
        assert_eq!(st.live_tasks, live.len() as u64, "{ctx}: live_tasks");
        assert_eq!(tp.rents - tp.returns, tp.live, "{ctx}: task rents - returns");
        assert!(tp.high_water >= tp.live, "{ctx}: task high water");
        assert_eq!(tp.idle + tp.live + retired_queued, tp.capacity, "{ctx}: task idle + live + queued-consumed");
        assert!(tp.capacity >= rt.cfg.task_cap as u64, "{ctx}: task capacity");
        let cp = st.pools[1];
        let live_src = rt.sources.iter().filter(|s| !s.destroyed).count() as u64;
        assert_eq!(cp.live, live_src, "{ctx}: source pool live");
        assert_eq!(cp.rents - cp.returns, cp.live, "{ctx}: source rents - returns");
        assert_eq!(cp.idle + cp.live, cp.capacity, "{ctx}: source idle + live");
        assert!(cp.capacity >= rt.cfg.cancel_cap as u64, "{ctx}: source capacity");
        let wp = st.pools[2];
        let queued_waits: u64 = rt.queues.iter().map(|q| q.len() as u64).sum();
        assert_eq!(wp.live, queued_waits, "{ctx}: wait records live");
        assert_eq!(wp.rents - wp.returns, wp.live, "{ctx}: wait records rents - returns");
        assert_eq!(wp.rents, rt.sched.iter().sum::<u64>(), "{ctx}: wait records rents");
        assert!(wp.high_water >= wp.live, "{ctx}: wait records high water");
        if self.strict.wait_idle_le_capacity {
            // Issue 17 #4: capacity is the record storage allocated (the
            // near queues and the far heaps, whose growth the model does
            // not follow), idle what of it no wait holds.
            assert!(wp.capacity >= wp.live, "{ctx}: wait records capacity {} < live {}", wp.capacity, wp.live);
            assert_eq!(wp.idle + wp.live, wp.capacity, "{ctx}: issue 17 #4: wait records idle + live");
        } else {
            assert_eq!(wp.capacity, rt.cfg.wait_cap as u64 * 16, "{ctx}: wait records capacity");
        }
        for (k, w) in st.waits.iter().enumerate() {
            let pending = rt.queues.iter().flatten().filter(|w| w.kind == k).count() as u64;
            assert_eq!(w.pending, pending, "{ctx}: waits[{k}].pending");
            assert_eq!(w.scheduled, rt.sched[k], "{ctx}: waits[{k}].scheduled");
            assert_eq!(w.completed, rt.done[k], "{ctx}: waits[{k}].completed");
            assert_eq!(w.canceled, rt.canc[k], "{ctx}: waits[{k}].canceled");
            assert!(w.high_water >= w.pending, "{ctx}: waits[{k}].high_water");
        }
        let caps = [rt.cfg.c16, rt.cfg.c32, 0];
        for (pi, p) in st.pools.iter().enumerate().skip(3) {
            let any = pi < 6;
            let bucket = (pi - 3) % 3;
            let n = rt.combs.iter().filter(|c| c.alive && c.any == any && c.bucket == bucket).count() as u64;
            assert_eq!(p.live, n, "{ctx}: pool {pi} live");
            assert_eq!(p.rents - p.returns, p.live, "{ctx}: pool {pi} rents - returns");
            assert!(p.high_water >= p.live, "{ctx}: pool {pi} high water");
            assert_eq!(p.capacity, caps[bucket] as u64, "{ctx}: pool {pi} capacity");
            assert!(p.idle <= p.capacity, "{ctx}: pool {pi} idle <= capacity");
        }
        let unconsumed = live
            .iter()
            .filter(|&&i| rt.tasks[i].out.is_some() && !matches!(rt.tasks[i].cont, Cont::Comb { .. }))
            .count() as u64;
        assert_eq!(st.completed_unconsumed, unconsumed, "{ctx}: completed_unconsumed");
        assert_eq!(st.cross_thread_queued, rt.queued.len() as u64, "{ctx}: cross_thread_queued");
        assert_eq!(st.frame, rt.host, "{ctx}: frame");
        assert_eq!(st.pool_count, ONITY_POOL_COUNT as u32, "{ctx}");
        let f = st.frame_alloc;
        let fa = &rt.fa;
        let in_use: u64 = fa.live.iter().map(|a| a.size as u64).sum();
        assert_eq!(f.rewinds, fa.rewinds, "{ctx}: frame_alloc.rewinds");
        assert_eq!(f.allocations, fa.allocations, "{ctx}: frame_alloc.allocations");
        assert_eq!(f.failed_allocations, fa.failed, "{ctx}: frame_alloc.failed_allocations");
        assert_eq!(f.bytes_in_use, in_use, "{ctx}: frame_alloc.bytes_in_use");
        assert!(f.high_water_bytes_in_use >= in_use, "{ctx}: frame_alloc.high_water_bytes_in_use");
        assert!(f.bytes_claimed >= in_use, "{ctx}: frame_alloc.bytes_claimed");
        assert!(f.os_allocations >= f.blocks, "{ctx}: frame_alloc.os_allocations >= blocks");
    }

    pub fn op_live_tasks(&mut self, r: usize) {
        let live: Vec<u64> = self.rts[r].live_tasks_where(|_| true).iter().map(|&i| self.rts[r].tasks[i].h).collect();
        let cap = match self.inp.below(4) {
            0 => 0,
            1 => live.len() as u32 / 2,
            _ => live.len() as u32 + self.inp.below(3) as u32,
        };
        let mut buf = vec![0u64; cap as usize];
        let mut n = 0u32;
        let null_tasks = cap > 0 && self.inp.pct(5);
        let null_count = self.inp.pct(5);
        let tp = if null_tasks || cap == 0 && self.inp.pct(50) { ptr::null_mut() } else { buf.as_mut_ptr() };
        let np: *mut u32 = if null_count { ptr::null_mut() } else { &mut n };
        let s = onity_runtime_live_tasks(self.rts[r].p, tp, cap, np);
        let errs = if null_tasks || null_count { vec![S::NullPointer] } else { vec![] };
        self.check(s, &errs, "live_tasks");
        if s != S::Ok {
            return;
        }
        assert_eq!(n as usize, live.len(), "{}: live task count", self.ctx());
        let mut got: Vec<u64> = buf.iter().copied().take((cap as usize).min(live.len())).collect();
        got.sort_unstable();
        let mut want = live;
        want.sort_unstable();
        if cap as usize >= want.len() {
            assert_eq!(got, want, "{}: live task handles", self.ctx());
        } else {
            assert!(got.iter().all(|h| want.binary_search(h).is_ok()), "{}: live task handles", self.ctx());
        }
    }

    /// Destroys every runtime still alive; every continuation and callback
    /// of the run ran exactly once.
    pub fn finish(mut self) -> Report {
        self.op = "finish";
        for r in self.alive() {
            // (a continuation of an earlier one may have destroyed it)
            if self.rts[r].alive {
                self.destroy(r);
                self.verify();
            }
        }
        for rt in &self.rts {
            assert!(rt.registered.is_empty(), "{}: continuations left unchecked", self.ctx());
        }
        clear_rt_ptrs();
        Report { ops: self.ops, cover: std::mem::take(&mut self.cover) }
    }
}
