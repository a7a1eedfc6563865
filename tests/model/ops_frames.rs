//! Frame operations: frame begin, ticks, drain, statistics and the live-task
//! list, each checked against the model.

use super::*;

impl Sim {
    pub(crate) fn frame_info(&mut self, frame: u64) -> OnityFrameInfo {
        let dt = self.rng.pick(&[0.0, 0.25, 0.5]);
        let udt = self.rng.pick(&[0.0, 0.25, 0.5, 1.0]);
        let rtm = self.clocks[2] + self.rng.pick(&[0.0, 0.25, 0.5, 1.0]);
        OnityFrameInfo {
            size: std::mem::size_of::<OnityFrameInfo>() as u32,
            reserved: 0,
            frame,
            delta_time: dt,
            unscaled_delta_time: udt,
            realtime: rtm,
        }
    }

    pub(crate) fn op_frame_begin(&mut self) {
        let next = if self.fnum == 0 {
            self.rng.pick(&[0, 1, 5])
        } else {
            self.host + if self.rng.pct(85) { 1 } else { 2 + self.rng.below(3) }
        };
        let mut fi = self.frame_info(next);
        let mut errs = Vec::new();
        let mut null = false;
        let mut filed = true;
        if self.rng.pct(12) {
            self.cov("bad frame");
            match self.rng.below(7) {
                0 => {
                    null = true;
                    filed = false;
                    errs.push(S::NullPointer);
                }
                1 => {
                    fi.size -= 8;
                    filed = false;
                    errs.push(S::SizeMismatch);
                }
                2 => {
                    fi.delta_time = self.rng.pick(&[-0.25, f64::NAN, f64::INFINITY]);
                    errs.push(S::InvalidArgument);
                }
                3 => {
                    fi.unscaled_delta_time = self.rng.pick(&[-1.0, f64::NAN, f64::NEG_INFINITY]);
                    errs.push(S::InvalidArgument);
                }
                4 => {
                    fi.realtime = self.rng.pick(&[f64::NAN, f64::INFINITY]);
                    errs.push(S::InvalidArgument);
                }
                5 if self.fnum != 0 => {
                    fi.frame = self.host - self.rng.below(2).min(self.host);
                    errs.push(S::FrameOrder);
                }
                _ => {
                    fi.frame = (1 << 59) + self.rng.below(3);
                    errs.push(S::InvalidArgument);
                }
            }
        }
        if filed {
            self.m_file_all();
        }
        let p: *const OnityFrameInfo = if null { ptr::null() } else { &fi };
        let s = onity_runtime_frame_begin(self.rt, p);
        self.check(s, &errs, "frame_begin");
        if s == S::Ok {
            self.m_frame(&fi);
        }
    }

    pub(crate) fn m_frame(&mut self, fi: &OnityFrameInfo) {
        if self.fnum == 0 {
            // Waits made before the first frame count from the frame before it.
            for q in self.queues.iter_mut() {
                for w in q.iter_mut() {
                    if w.kind != 0 {
                        w.due_frame += fi.frame;
                    }
                    if w.kind == 3 && w.clock == 2 {
                        w.due_time += fi.realtime;
                    }
                }
            }
            for bb in self.batches.iter_mut() {
                for f in bb.fast.iter_mut().filter(|f| f.delay != 0) {
                    f.due += fi.frame;
                }
            }
        }
        self.host = fi.frame;
        self.fnum = fi.frame + 1;
        self.clocks[0] += fi.delta_time;
        self.clocks[1] += fi.unscaled_delta_time;
        self.clocks[2] = fi.realtime;
    }

    pub(crate) fn op_tick(&mut self) {
        if self.rng.pct(30) {
            // A whole frame: begin, then every timing (or a random subset) in order.
            let next = if self.fnum == 0 { 0 } else { self.host + 1 };
            let fi = self.frame_info(next);
            self.m_file_all();
            let s = onity_runtime_frame_begin(self.rt, &fi);
            self.check(s, &[], "frame_begin (frame)");
            self.m_frame(&fi);
            let all = self.rng.pct(50);
            for t in 0..16u32 {
                if all || self.rng.pct(50) {
                    self.m_file_all();
                    let s = onity_runtime_tick(self.rt, t);
                    self.check(s, &[], "tick (frame)");
                    self.m_tick(t as usize);
                }
            }
            return;
        }
        let (t, ok) = self.gen_timing();
        if ok {
            self.m_file_all();
        }
        let s = onity_runtime_tick(self.rt, t);
        self.check(s, if ok { &[] } else { &[S::InvalidArgument] }, "tick");
        if ok {
            self.m_tick(t as usize);
        }
    }

    pub(crate) fn op_drain(&mut self) {
        self.m_file_all();
        let s = onity_runtime_drain(self.rt);
        self.check(s, &[], "drain");
        self.m_drain();
    }

    pub(crate) fn op_stats(&mut self) {
        let mut st: OnityStats = unsafe { std::mem::zeroed() };
        st.size = std::mem::size_of::<OnityStats>() as u32;
        match self.rng.below(20) {
            0 => {
                let s = onity_runtime_stats(self.rt, ptr::null_mut());
                self.check(s, &[S::NullPointer], "stats(null)");
                return;
            }
            1 => {
                st.size -= 8;
                let s = onity_runtime_stats(self.rt, &mut st);
                self.check(s, &[S::SizeMismatch], "stats(size)");
                return;
            }
            _ => {}
        }
        let s = onity_runtime_stats(self.rt, &mut st);
        self.check(s, &[], "stats");
        self.cov("stats checked");
        let ctx = self.ctx();
        let live: Vec<usize> = self.live_tasks_where(|_| true);
        let retired_queued = self.tasks.iter().filter(|t| t.retired && t.queued).count() as u64;
        let tp = st.pools[0];
        assert_eq!(tp.live, live.len() as u64, "{ctx}: task pool live");
        assert_eq!(st.live_tasks, live.len() as u64, "{ctx}: live_tasks");
        assert_eq!(tp.rents - tp.returns, tp.live, "{ctx}: task rents - returns");
        assert!(tp.high_water >= tp.live, "{ctx}: task high water");
        assert_eq!(tp.idle + tp.live + retired_queued, tp.capacity, "{ctx}: task idle + live + queued-retired");
        assert!(tp.capacity >= self.cfg.task_capacity as u64, "{ctx}: task capacity");
        let cp = st.pools[1];
        let live_src = self.sources.iter().filter(|s| !s.destroyed).count() as u64;
        assert_eq!(cp.live, live_src, "{ctx}: source pool live");
        assert_eq!(cp.rents - cp.returns, cp.live, "{ctx}: source rents - returns");
        assert_eq!(cp.idle + cp.live, cp.capacity, "{ctx}: source idle + live");
        assert!(cp.high_water >= cp.live, "{ctx}");
        let wp = st.pools[2];
        let queued_waits: u64 = self.queues.iter().map(|q| q.len() as u64).sum();
        assert_eq!(wp.live, queued_waits, "{ctx}: wait records live");
        assert_eq!(wp.rents - wp.returns, wp.live, "{ctx}: wait records rents - returns");
        assert_eq!(wp.rents, self.sched.iter().sum::<u64>(), "{ctx}: wait records rents");
        assert!(wp.high_water >= wp.live, "{ctx}: wait records high water");
        for (k, w) in st.waits.iter().enumerate() {
            let qn = self.queues.iter().flatten().filter(|w| w.kind == k).count() as u64;
            let fast = self
                .batches
                .iter()
                .filter(|b| b.alive)
                .flat_map(|b| b.fast.iter())
                .filter(|f| fast_kind(f.delay) == k)
                .count() as u64;
            assert_eq!(w.pending, qn + fast, "{ctx}: waits[{k}].pending");
            assert_eq!(w.scheduled, self.sched[k] + self.ext_sched[k], "{ctx}: waits[{k}].scheduled");
            assert_eq!(w.completed, self.done[k] + self.ext_done[k], "{ctx}: waits[{k}].completed");
            assert_eq!(w.canceled, self.canc[k] + self.ext_canc[k], "{ctx}: waits[{k}].canceled");
            assert!(w.high_water >= w.pending, "{ctx}: waits[{k}].high_water");
        }
        for (pi, p) in st.pools.iter().enumerate().skip(3) {
            let any = pi < 6;
            let bucket = (pi - 3) % 3;
            let n = self.combs.iter().filter(|c| c.alive && c.any == any && c.bucket == bucket).count() as u64;
            assert_eq!(p.live, n, "{ctx}: pool {pi} live");
            assert_eq!(p.rents - p.returns, p.live, "{ctx}: pool {pi} rents - returns");
            assert!(p.high_water >= p.live, "{ctx}: pool {pi} high water");
            assert!(p.idle <= p.capacity, "{ctx}: pool {pi} idle <= capacity");
        }
        let unconsumed = live
            .iter()
            .filter(|&&i| self.tasks[i].out.is_some() && !matches!(self.tasks[i].cont, Cont::Comb { .. }))
            .count() as u64;
        assert_eq!(st.completed_unconsumed, unconsumed, "{ctx}: completed_unconsumed");
        assert_eq!(st.cross_thread_queued, self.queued.len() as u64, "{ctx}: cross_thread_queued");
        assert_eq!(st.frame, self.host, "{ctx}: frame");
        assert_eq!(st.pool_count, ONITY_POOL_COUNT as u32, "{ctx}");
    }

    pub(crate) fn op_live_tasks(&mut self) {
        let live: Vec<u64> = self.live_tasks_where(|_| true).iter().map(|&i| self.tasks[i].h).collect();
        let cap = match self.rng.below(4) {
            0 => 0,
            1 => live.len() as u32 / 2,
            _ => live.len() as u32 + self.rng.below(3) as u32,
        };
        let mut buf = vec![0u64; cap as usize];
        let mut n = 0u32;
        let null_tasks = cap > 0 && self.rng.pct(5);
        let null_count = self.rng.pct(5);
        let tp = if null_tasks || cap == 0 && self.rng.pct(50) { ptr::null_mut() } else { buf.as_mut_ptr() };
        let np: *mut u32 = if null_count { ptr::null_mut() } else { &mut n };
        let s = onity_runtime_live_tasks(self.rt, tp, cap, np);
        let mut errs = Vec::new();
        if null_tasks || null_count {
            errs.push(S::NullPointer);
        }
        self.check(s, &errs, "live_tasks");
        if s != S::Ok {
            return;
        }
        assert_eq!(n as usize, live.len(), "{}: live task count", self.ctx());
        let mut got: Vec<u64> = buf.iter().copied().take((cap as usize).min(live.len())).collect();
        got.sort_unstable();
        let mut want = live.clone();
        want.sort_unstable();
        if cap as usize >= live.len() {
            assert_eq!(got, want, "{}: live task handles", self.ctx());
        } else {
            assert!(got.iter().all(|h| want.binary_search(h).is_ok()), "{}: live task handles (partial)", self.ctx());
        }
    }
}
