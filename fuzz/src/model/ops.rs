//! Operations on tasks, waits, combinators and cancellation sources.

use std::ptr;

use onity::ffi::*;

use super::sim::*;

impl Sim<'_> {
    /// One operation, chosen by the next input byte, then the check of
    /// every continuation and callback it ran.
    pub fn step(&mut self) {
        self.ops += 1;
        if self.alive().is_empty() {
            self.op = "create runtime (first)";
            self.create_runtime(false);
            self.verify();
            return;
        }
        let x = self.inp.below(100);
        self.op = match x {
            0..=1 => "create runtime",
            2 => "destroy runtime",
            3 => "churn runtimes",
            4..=12 => "create task",
            13..=21 => "complete",
            22..=24 => "state",
            25..=33 => "consume",
            34..=40 => "on_complete",
            41..=51 => "wait",
            52..=58 => "when",
            59..=60 => "when_all_results",
            61..=66 => "source",
            67..=69 => "frame_begin",
            70..=77 => "tick",
            78..=79 => "drain",
            80..=81 => "stats",
            82 => "live_tasks",
            83..=85 => "batch",
            86..=90 => "worker",
            91..=94 => "frame_alloc",
            95 => "frame_alloc_rewind",
            _ => "bad runtime pointer",
        };
        let r = self.pick_rt();
        if matches!(x, 2 | 67..=81 | 83..=85 | 95) {
            // Before anything that may rewind: with poisoning on, a rewind
            // overwrites what it releases.
            self.check_frame_memory(r);
        }
        match x {
            0..=1 => self.create_runtime(true),
            2 => self.op_destroy(r),
            3 => self.op_churn(),
            4..=12 => self.op_create(r),
            13..=21 => self.op_complete(r),
            22..=24 => self.op_state(r),
            25..=33 => self.op_consume(r),
            34..=40 => self.op_on_complete(r),
            41..=51 => self.op_wait(r),
            52..=58 => self.op_when(r),
            59..=60 => self.op_when_all_results(r),
            61..=66 => self.op_source(r),
            67..=69 => self.op_frame_begin(r),
            70..=77 => self.op_tick(r),
            78..=79 => self.op_drain(r),
            80..=81 => self.op_stats(r),
            82 => self.op_live_tasks(r),
            83..=85 => self.op_batch(r),
            86..=90 => self.op_worker(r),
            91..=94 => self.op_frame_alloc(r, false),
            95 => self.op_rewind(r),
            _ => self.op_bad_runtime(),
        }
        self.verify();
    }

    fn pick_rt(&mut self) -> usize {
        let alive = self.alive();
        self.inp.pick(&alive)
    }

    pub fn op_create(&mut self, r: usize) {
        let mut h = 0u64;
        let from_result = self.inp.pct(30);
        let null = self.inp.pct(4);
        let p: *mut u64 = if null { ptr::null_mut() } else { &mut h };
        let v = self.inp.u64();
        let rt = self.rts[r].p;
        let s = if from_result { onity_task_from_result(rt, v, p) } else { onity_task_create(rt, p) };
        if null {
            self.check(s, &[S::NullPointer], "task create (null out)");
            return;
        }
        self.check(s, &[], "task create");
        if from_result {
            self.add_task(r, h, Kind::FromResult, Some(Out::new(SUCCEEDED, v, 0)));
        } else {
            self.add_task(r, h, Kind::Manual, None);
        }
    }

    /// Statuses of set_result (0), set_error (1) or cancel (2).
    pub fn expect_complete(&self, r: usize, which: u32, c: &Class, owner: bool) -> Vec<S> {
        match c {
            Err(e) => e.clone(),
            Ok(i) => {
                let t = &self.rts[r].tasks[*i];
                let manual = t.kind == Kind::Manual;
                if !manual && which != 2 {
                    vec![S::InvalidHandle]
                } else if t.out.is_some() {
                    vec![S::AlreadyCompleted]
                } else if !manual && !owner {
                    vec![S::WrongThread]
                } else {
                    vec![]
                }
            }
        }
    }

    pub fn outcome_for(&mut self, which: u32) -> (u64, i32, Out) {
        let v = self.inp.u64();
        let e = self.inp.u32() as i32;
        match which {
            0 => (v, e, Out::new(SUCCEEDED, v, 0)),
            1 => (v, e, Out::new(FAULTED, 0, e)),
            _ => (v, e, Out::new(CANCELED, 0, 0)),
        }
    }

    fn op_complete(&mut self, r: usize) {
        let which = self.inp.below(3) as u32;
        let (h, c) = self.gen_task(r);
        let (v, e, o) = self.outcome_for(which);
        let rt = self.rts[r].p;
        let s = match which {
            0 => onity_task_set_result(rt, h, v),
            1 => onity_task_set_error(rt, h, e),
            _ => onity_task_cancel(rt, h),
        };
        let errs = self.expect_complete(r, which, &c, true);
        self.check(s, &errs, "complete");
        if s == S::Ok {
            assert!(self.complete(r, c.unwrap(), o));
        }
    }

    fn op_state(&mut self, r: usize) {
        let (h, c) = self.gen_task(r);
        let mut st = 77u32;
        let null = self.inp.pct(4);
        let p: *mut u32 = if null { ptr::null_mut() } else { &mut st };
        let s = onity_task_state(self.rts[r].p, h, p);
        let mut errs = c.clone().err().unwrap_or_default();
        if null {
            errs.push(S::NullPointer);
        }
        self.check(s, &errs, "task_state");
        if s == S::Ok {
            let want = self.rts[r].tasks[c.unwrap()].out.map_or(0, |o| o.state);
            assert_eq!(st, want, "{}: task_state value", self.ctx());
        } else {
            assert_eq!(st, 77, "{}: task_state wrote its output on error", self.ctx());
        }
    }

    fn op_consume(&mut self, r: usize) {
        let (h, c) = if self.inp.pct(50) {
            let done = self.rts[r].live_tasks_where(|t| t.out.is_some());
            if done.is_empty() {
                self.gen_task(r)
            } else {
                let i = self.inp.pick(&done);
                (self.rts[r].tasks[i].h, Ok(i))
            }
        } else {
            self.gen_task(r)
        };
        let mut o = OnityOutcome { value: 1, error: 2, state: 3, index: 4, reserved: 0 };
        let null = self.inp.pct(25);
        let p: *mut OnityOutcome = if null { ptr::null_mut() } else { &mut o };
        let s = onity_task_consume(self.rts[r].p, h, p);
        let expect: Class = c.and_then(|i| {
            let t = &self.rts[r].tasks[i];
            if matches!(t.cont, Cont::User(_) | Cont::Comb { .. }) {
                Err(vec![S::AlreadyAwaited])
            } else if t.out.is_none() {
                Err(vec![S::TaskPending])
            } else {
                Ok(i)
            }
        });
        match expect {
            Err(e) => {
                self.check(s, &e, "consume");
                assert_eq!((o.value, o.error, o.state, o.index), (1, 2, 3, 4), "{}: written on error", self.ctx());
            }
            Ok(i) => {
                self.check(s, &[], "consume");
                let want = self.rts[r].tasks[i].out.unwrap();
                if !null {
                    let got = Out { state: o.state, value: o.value, error: o.error, index: o.index };
                    assert_eq!(got, want, "{}: outcome of {:?}", self.ctx(), self.rts[r].tasks[i].kind);
                }
                self.cov("consume ok");
                self.retire(r, i);
                if self.inp.pct(20) {
                    let s = onity_task_consume(self.rts[r].p, h, ptr::null_mut());
                    self.check(s, &[S::StaleHandle], "consume twice");
                }
            }
        }
    }

    fn op_on_complete(&mut self, r: usize) {
        let (h, c) = self.gen_task(r);
        let id = self.id();
        let a = self.gen_act(r, id, true);
        let null_cb = self.inp.pct(4);
        let cb: OnityCallback = if null_cb { None } else { Some(cont_cb) };
        let s = onity_task_on_complete(self.rts[r].p, h, cb, user_of(id, r, a.timing, a.flags));
        let mut errs = Vec::new();
        if null_cb {
            errs.push(S::NullPointer);
        }
        match &c {
            Err(e) => errs.extend(e),
            Ok(i) if self.rts[r].tasks[*i].cont != Cont::None => errs.push(S::AlreadyAwaited),
            Ok(_) => {}
        }
        self.check(s, &errs, "on_complete");
        if s == S::Ok {
            let i = c.unwrap();
            self.rts[r].tasks[i].cont = Cont::User(a);
            self.rts[r].registered.push(id);
            // Completed already (also on the worker, not yet drained): now.
            if self.rts[r].tasks[i].out.is_some() {
                self.dispatch(r, i);
            }
        }
    }

    pub fn gen_timing(&mut self) -> (u32, bool) {
        if self.inp.pct(6) {
            self.cov("bad timing");
            (self.inp.pick(&[16, 17, 255, u32::MAX]), false)
        } else if self.inp.pct(60) {
            (self.inp.pick(&[0, 4, 8, 13]), true)
        } else {
            (self.inp.below(16) as u32, true)
        }
    }

    fn op_wait(&mut self, r: usize) {
        let kind = self.inp.below(4) as usize;
        let callback = self.inp.pct(40);
        let (timing, timing_ok) = self.gen_timing();
        let (token, tc) = self.gen_token(r);
        let clock = if self.inp.pct(5) { self.inp.pick(&[3u32, 9, u32::MAX]) } else { self.inp.below(3) as u32 };
        let secs = if self.inp.pct(6) {
            self.inp.pick(&[-0.25, f64::NAN, f64::INFINITY, f64::NEG_INFINITY])
        } else {
            self.inp.pick(&[0.0, -0.0, 0.25, 0.5, 1.0, 2.0, 1e9])
        };
        let frames = self.inp.pick(&[0u32, 1, 1, 2, 3, 5, 1000, u32::MAX]);
        let id = self.id();
        let a = self.gen_act(r, id, false);
        let user = user_of(id, r, a.timing, a.flags);
        let null_cb = callback && self.inp.pct(4);
        let cb: OnityCallback = if null_cb { None } else { Some(wait_cb) };
        let mut h = 0u64;
        let null_out = !callback && self.inp.pct(4);
        let out: *mut u64 = if null_out { ptr::null_mut() } else { &mut h };
        let rt = self.rts[r].p;
        let s = match (kind, callback) {
            (0, false) => onity_yield(rt, timing, token, out),
            (1, false) => onity_next_frame(rt, timing, token, out),
            (2, false) => onity_delay_frame(rt, frames, timing, token, out),
            (3, false) => onity_delay(rt, secs, clock, timing, token, out),
            (0, true) => onity_yield_then(rt, timing, token, cb, user),
            (1, true) => onity_next_frame_then(rt, timing, token, cb, user),
            (2, true) => onity_delay_frame_then(rt, frames, timing, token, cb, user),
            _ => onity_delay_then(rt, secs, clock, timing, token, cb, user),
        };
        let mut errs = Vec::new();
        if null_out || null_cb {
            errs.push(S::NullPointer);
        }
        if !timing_ok {
            errs.push(S::InvalidArgument);
        }
        if kind == 3 && (clock > 2 || !(secs.is_finite() && secs >= 0.0)) {
            errs.push(S::InvalidArgument);
        }
        if let Err(e) = &tc {
            errs.extend(e);
        }
        self.check(s, &errs, "wait");
        if s != S::Ok {
            return;
        }
        let target = if callback {
            self.rts[r].registered.push(id);
            Target::Cb(a)
        } else {
            Target::Task(self.add_task(r, h, Kind::Wait, None))
        };
        self.m_sched(r, kind, timing as usize, frames, secs, clock as usize, tc.unwrap(), target);
    }

    /// A fresh manual task (made through the API) for combinator inputs.
    fn fresh_manual(&mut self, r: usize) -> usize {
        let mut h = 0;
        assert_eq!(onity_task_create(self.rts[r].p, &mut h), S::Ok, "{}", self.ctx());
        self.add_task(r, h, Kind::Manual, None)
    }

    fn fresh_wait(&mut self, r: usize) -> usize {
        let mut h = 0;
        let t = self.inp.pick(&[0u32, 8, 13]);
        let kind = self.inp.below(3) as usize;
        let s = match kind {
            0 => onity_yield(self.rts[r].p, t, 0, &mut h),
            1 => onity_next_frame(self.rts[r].p, t, 0, &mut h),
            _ => onity_delay_frame(self.rts[r].p, 2, t, 0, &mut h),
        };
        assert_eq!(s, S::Ok, "{}", self.ctx());
        let k = self.add_task(r, h, Kind::Wait, None);
        self.m_sched(r, kind, t as usize, 2, 0.0, 0, None, Target::Task(k));
        k
    }

    fn op_when(&mut self, r: usize) {
        let any = self.inp.pct(50);
        let n = match self.inp.below(100) {
            0..=74 => 1 + self.inp.below(5) as usize,
            75..=89 => 16 + self.inp.below(3) as usize,
            _ => 32 + self.inp.below(4) as usize,
        };
        let mut errs = Vec::new();
        let mut hs: Vec<u64> = Vec::new();
        let mut ins: Vec<usize> = Vec::new();
        let mut pool = self.rts[r].live_tasks_where(|t| t.cont == Cont::None);
        for _ in 0..n {
            let i = if !pool.is_empty() && self.inp.pct(60) {
                let k = self.inp.below(pool.len() as u64) as usize;
                pool.swap_remove(k)
            } else if self.inp.pct(30) {
                self.fresh_wait(r)
            } else {
                self.fresh_manual(r)
            };
            hs.push(self.rts[r].tasks[i].h);
            ins.push(i);
        }
        if self.inp.pct(15) {
            let k = self.inp.below(n as u64) as usize;
            if n > 1 && self.inp.pct(30) {
                self.cov("duplicate input");
                hs[k] = hs[(k + 1) % n];
                errs.push(S::DuplicateInput);
            } else {
                let (h, c) = self.gen_task(r);
                hs[k] = h;
                match c {
                    Err(e) => errs.extend(e),
                    Ok(i) => {
                        if self.rts[r].tasks[i].cont != Cont::None {
                            errs.push(S::AlreadyAwaited);
                        }
                        if hs.iter().filter(|&&x| x == h).count() > 1 {
                            errs.push(S::DuplicateInput);
                        }
                        ins[k] = i;
                    }
                }
            }
        }
        let (token, tc) = self.gen_token(r);
        if let Err(e) = &tc {
            errs.extend(e);
        }
        let mut count = n as u32;
        let mut tasks_p = hs.as_ptr();
        match self.inp.below(100) {
            0..=2 => {
                count = 0;
                errs.push(S::CountOutOfRange);
            }
            3..=4 => {
                count = ONITY_MAX_COMBINATOR_INPUTS + 1;
                errs.push(S::CountOutOfRange);
            }
            5..=7 => {
                tasks_p = ptr::null();
                errs.push(S::NullPointer);
            }
            _ => {}
        }
        let mut h = 0u64;
        let null = self.inp.pct(3);
        let out: *mut u64 = if null { ptr::null_mut() } else { &mut h };
        if null {
            errs.push(S::NullPointer);
        }
        let rt = self.rts[r].p;
        let s = if any {
            onity_when_any(rt, tasks_p, count, token, out)
        } else {
            onity_when_all(rt, tasks_p, count, token, out)
        };
        self.check(s, &errs, if any { "when_any" } else { "when_all" });
        if s != S::Ok {
            return;
        }
        self.cov(if any { "when_any ok" } else { "when_all ok" });
        let c = self.rts[r].combs.len();
        let o = self.add_task(r, h, if any { Kind::Any(c) } else { Kind::All(c) }, None);
        let token = tc.unwrap();
        let bucket = if n <= 16 {
            0
        } else if n <= 32 {
            1
        } else {
            2
        };
        let rtm = &mut self.rts[r];
        rtm.combs.push(Comb {
            any,
            out: o,
            n,
            outcomes: vec![None; n],
            remaining: n,
            done: false,
            out_released: false,
            first_fail: None,
            token,
            bucket,
            alive: true,
        });
        for (k, &i) in ins.iter().enumerate() {
            rtm.tasks[i].cont = Cont::Comb { c, i: k };
        }
        if token.is_some() {
            rtm.watches.push(c);
        }
        // Inputs already complete (also on the worker, not yet drained) count
        // in array order; then an already-canceled token.
        for &i in &ins {
            if self.rts[r].tasks[i].out.is_some() {
                self.dispatch(r, i);
            }
        }
        let rtm = &mut self.rts[r];
        if rtm.tok(token) && rtm.watches.contains(&c) {
            rtm.combs[c].done = true;
            self.unwatch(r, c);
            self.cov("combinator made with a canceled token");
            self.complete(r, o, Out::new(CANCELED, 0, 0));
        }
    }

    fn op_when_all_results(&mut self, r: usize) {
        let alls = self.rts[r].live_tasks_where(|t| matches!(t.kind, Kind::All(_)));
        let (h, c) = if !alls.is_empty() && self.inp.pct(70) {
            let i = self.inp.pick(&alls);
            (self.rts[r].tasks[i].h, Ok(i))
        } else {
            self.gen_task(r)
        };
        let n = match &c {
            Ok(i) => match self.rts[r].tasks[*i].kind {
                Kind::All(k) => self.rts[r].combs[k].n,
                _ => 1 + self.inp.below(3) as usize,
            },
            Err(_) => 1,
        };
        let mut count = n as u32;
        let mut errs = Vec::new();
        match self.inp.below(100) {
            0..=4 => {
                count = 0;
                errs.push(S::CountOutOfRange);
            }
            5..=9 => count = n as u32 + 1,
            10..=12 if n > 1 => count = n as u32 - 1,
            _ => {}
        }
        let mut buf = vec![OnityOutcome { value: 5, error: 5, state: 5, index: 5, reserved: 0 }; count as usize + 1];
        let null = self.inp.pct(4);
        if null {
            errs.push(S::NullPointer);
        }
        let p = if null { ptr::null_mut() } else { buf.as_mut_ptr() };
        let s = onity_when_all_results(self.rts[r].p, h, p, count);
        match &c {
            Err(e) => errs.extend(e),
            Ok(i) => match self.rts[r].tasks[*i].kind {
                Kind::All(k) => {
                    if self.rts[r].tasks[*i].out.is_none() {
                        errs.push(S::TaskPending);
                    }
                    if count as usize != self.rts[r].combs[k].n {
                        errs.push(S::CountOutOfRange);
                    }
                }
                _ => errs.push(S::InvalidHandle),
            },
        }
        self.check(s, &errs, "when_all_results");
        if s != S::Ok {
            return;
        }
        self.cov("when_all_results ok");
        let Kind::All(k) = self.rts[r].tasks[c.unwrap()].kind else { unreachable!() };
        for (j, want) in self.rts[r].combs[k].outcomes.iter().enumerate() {
            let want = want.unwrap_or(Out::new(0, 0, 0));
            let o = buf[j];
            let got = Out { state: o.state, value: o.value, error: o.error, index: o.index };
            assert_eq!(got, want, "{}: when_all_results[{j}]", self.ctx());
        }
        assert_eq!(buf[count as usize].state, 5, "{}: wrote past count", self.ctx());
    }

    /// The model of a successful `onity_cancel_source_cancel`.
    pub fn m_cancel_source(&mut self, r: usize, i: usize) {
        let rt = &mut self.rts[r];
        if !rt.sources[i].canceled {
            rt.sources[i].canceled = true;
            rt.cancel_epoch += 1;
        }
    }

    fn op_source(&mut self, r: usize) {
        let rt = self.rts[r].p;
        match self.inp.below(4) {
            0 => {
                let mut h = 0;
                let null = self.inp.pct(4);
                let p: *mut u64 = if null { ptr::null_mut() } else { &mut h };
                let s = onity_cancel_source_create(rt, p);
                if null {
                    self.check(s, &[S::NullPointer], "source_create (null out)");
                } else {
                    self.check(s, &[], "source_create");
                    self.add_source(r, h);
                }
            }
            1 => {
                let (h, c) = self.gen_source(r);
                let s = onity_cancel_source_cancel(rt, h);
                self.check(s, &c.clone().err().unwrap_or_default(), "source_cancel");
                if let Ok(i) = c {
                    self.m_cancel_source(r, i);
                }
            }
            2 => {
                let (h, c) = self.gen_source(r);
                let mut v = 9u32;
                let null = self.inp.pct(4);
                let p: *mut u32 = if null { ptr::null_mut() } else { &mut v };
                let s = onity_cancel_source_is_canceled(rt, h, p);
                let mut errs = c.clone().err().unwrap_or_default();
                if null {
                    errs.push(S::NullPointer);
                }
                self.check(s, &errs, "is_canceled");
                if let (Ok(i), S::Ok) = (c, s) {
                    assert_eq!(v, self.rts[r].sources[i].canceled as u32, "{}: is_canceled", self.ctx());
                }
            }
            _ => {
                let (h, c) = self.gen_source(r);
                let s = onity_cancel_source_destroy(rt, h);
                self.check(s, &c.clone().err().unwrap_or_default(), "source_destroy");
                if let Ok(i) = c {
                    let rtm = &mut self.rts[r];
                    rtm.sources[i].destroyed = true;
                    if rtm.sources[i].canceled {
                        rtm.cancel_epoch += 1;
                    }
                }
            }
        }
    }
}
