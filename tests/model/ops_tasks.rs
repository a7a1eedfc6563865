//! Handle generators (valid, stale and fake handles) and the task
//! operations: create, complete, state, consume, continuations, frame waits,
//! WhenAny / WhenAll and cancellation sources.

use super::*;

impl Sim {
    // ---- handle generators ----------------------------------------------

    pub(crate) fn live_tasks_where(&self, f: impl Fn(&Task) -> bool) -> Vec<usize> {
        (0..self.tasks.len()).filter(|&i| !self.tasks[i].retired && f(&self.tasks[i])).collect()
    }

    /// A task handle and what the runtime should make of it.
    pub(crate) fn gen_task(&mut self) -> (u64, Result<usize, S>) {
        let r = self.rng.below(100);
        if r < 85 && !self.tasks.is_empty() {
            let live = self.live_tasks_where(|_| true);
            let i = if r < 65 && !live.is_empty() {
                self.rng.pick(&live)
            } else {
                self.rng.below(self.tasks.len() as u64) as usize
            };
            let t = &self.tasks[i];
            return (t.h, if t.retired { Err(S::StaleHandle) } else { Ok(i) });
        }
        let Some(some) = self.tasks.first().map(|t| t.h) else { return (0, Err(S::InvalidHandle)) };
        match self.rng.below(6) {
            0 => (0, Err(S::InvalidHandle)),
            1 => (some ^ (1 << 32), Err(S::InvalidHandle)), // even generation
            2 => ((some & !(MAX_SLOTS - 1)) | (MAX_SLOTS - 1), Err(S::InvalidHandle)), // no such slot
            3 => (self.foreign_task, Err(S::ForeignHandle)),
            4 if !self.sources.is_empty() => (self.sources[0].h, Err(S::InvalidHandle)), // wrong kind
            _ => (self.foreign_src, Err(S::InvalidHandle)),
        }
    }

    pub(crate) fn gen_source(&mut self) -> (u64, Result<usize, S>) {
        let r = self.rng.below(100);
        if r < 85 && !self.sources.is_empty() {
            let live: Vec<usize> = (0..self.sources.len()).filter(|&i| !self.sources[i].destroyed).collect();
            let i = if r < 70 && !live.is_empty() {
                self.rng.pick(&live)
            } else {
                self.rng.below(self.sources.len() as u64) as usize
            };
            let s = &self.sources[i];
            return (s.h, if s.destroyed { Err(S::StaleHandle) } else { Ok(i) });
        }
        match self.rng.below(4) {
            0 => (0, Err(S::InvalidHandle)),
            1 if !self.tasks.is_empty() => (self.tasks[0].h, Err(S::InvalidHandle)),
            2 if !self.sources.is_empty() => (self.sources[0].h ^ (1 << 32), Err(S::InvalidHandle)),
            _ => (self.foreign_src, Err(S::ForeignHandle)),
        }
    }

    /// A token: 0 (none) half of the time.
    pub(crate) fn gen_token(&mut self) -> (u64, Result<Option<usize>, S>) {
        if self.rng.pct(50) {
            return (0, Ok(None));
        }
        let (h, r) = self.gen_source();
        if h == 0 {
            return (0, Ok(None));
        }
        (h, r.map(Some))
    }

    pub(crate) fn gen_timing(&mut self) -> (u32, bool) {
        if self.rng.pct(6) {
            self.cov("bad timing");
            (self.rng.pick(&[16, 17, 255, u32::MAX]), false)
        } else if self.rng.pct(60) {
            (self.rng.pick(&[0, 4, 8, 13]), true)
        } else {
            (self.rng.below(16) as u32, true)
        }
    }

    pub(crate) fn out_ptr<T>(&mut self, v: &mut T, null_pct: u64) -> *mut T {
        if self.rng.pct(null_pct) {
            self.cov("null out");
            ptr::null_mut()
        } else {
            v
        }
    }

    // ---- operations ------------------------------------------------------

    pub(crate) fn op_create(&mut self) {
        let mut h = 0u64;
        let from_result = self.rng.pct(30);
        let p = self.out_ptr(&mut h, 4);
        let v = self.rng.next();
        let s = if from_result { onity_task_from_result(self.rt, v, p) } else { onity_task_create(self.rt, p) };
        if p.is_null() {
            self.check(s, &[S::NullPointer], "create(null)");
            return;
        }
        self.check(s, &[], "create");
        if from_result {
            self.add_task(h, Kind::FromResult, Some(Out::new(SUCCEEDED, v, 0)));
        } else {
            self.add_task(h, Kind::Manual, None);
        }
    }

    /// set_result (0), set_error (1) or cancel (2), on the owner thread.
    pub(crate) fn expect_complete(&self, which: u32, r: Result<usize, S>, owner: bool) -> Vec<S> {
        match r {
            Err(s) => vec![s],
            Ok(i) => {
                let t = &self.tasks[i];
                let manual = t.kind == Kind::Manual;
                if !manual && which != 2 {
                    // Not a manual source: whatever its state.
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

    pub(crate) fn outcome_for(&mut self, which: u32) -> (u64, i32, Out) {
        let v = self.rng.next();
        let e = self.rng.next() as i32;
        match which {
            0 => (v, e, Out::new(SUCCEEDED, v, 0)),
            1 => (v, e, Out::new(FAULTED, 0, e)),
            _ => (v, e, Out::new(CANCELED, 0, 0)),
        }
    }

    pub(crate) fn op_complete(&mut self) {
        let which = self.rng.below(3) as u32;
        let (h, r) = self.gen_task();
        let (v, e, o) = self.outcome_for(which);
        let s = match which {
            0 => onity_task_set_result(self.rt, h, v),
            1 => onity_task_set_error(self.rt, h, e),
            _ => onity_task_cancel(self.rt, h),
        };
        let errs = self.expect_complete(which, r, true);
        self.check(s, &errs, "complete");
        if s == S::Ok {
            let done = self.complete(r.unwrap(), o);
            assert!(done);
        }
    }

    pub(crate) fn op_state(&mut self) {
        let (h, r) = self.gen_task();
        let mut st = 77u32;
        let p = self.out_ptr(&mut st, 4);
        let s = onity_task_state(self.rt, h, p);
        if p.is_null() {
            self.check(s, &[S::NullPointer], "state(null)");
            return;
        }
        match r {
            Err(e) => self.check(s, &[e], "state"),
            Ok(i) => {
                self.check(s, &[], "state");
                let want = self.tasks[i].out.map_or(0, |o| o.state);
                assert_eq!(st, want, "{}: state of task {i}", self.ctx());
            }
        }
    }

    pub(crate) fn expect_consume(&self, r: Result<usize, S>) -> Result<usize, S> {
        let i = r?;
        let t = &self.tasks[i];
        if matches!(t.cont, Cont::User(_) | Cont::Emit { .. } | Cont::Comb { .. }) {
            return Err(S::AlreadyAwaited);
        }
        if t.out.is_none() {
            return Err(S::TaskPending);
        }
        Ok(i)
    }

    pub(crate) fn op_consume(&mut self) {
        let (h, r) = if self.rng.pct(50) {
            // Prefer completed tasks: they are the ones that can be consumed.
            let done = self.live_tasks_where(|t| t.out.is_some());
            if done.is_empty() {
                self.gen_task()
            } else {
                let i = self.rng.pick(&done);
                (self.tasks[i].h, Ok(i))
            }
        } else {
            self.gen_task()
        };
        let mut o = OnityOutcome { value: 1, error: 2, state: 3, index: 4, reserved: 0 };
        let p = self.out_ptr(&mut o, 25);
        let s = onity_task_consume(self.rt, h, p);
        match self.expect_consume(r) {
            Err(e) => {
                self.check(s, &[e], "consume");
                if !p.is_null() {
                    assert_eq!((o.value, o.error, o.state, o.index), (1, 2, 3, 4), "{}: written on error", self.ctx());
                }
            }
            Ok(i) => {
                self.check(s, &[], "consume");
                self.cov(match self.tasks[i].kind {
                    Kind::Any(_) => "consume any ok",
                    Kind::All(_) => "consume all ok",
                    Kind::Wait => "consume wait ok",
                    _ => "consume manual ok",
                });
                let want = self.tasks[i].out.unwrap();
                if !p.is_null() {
                    let got = Out { state: o.state, value: o.value, error: o.error, index: o.index };
                    assert_eq!(got, want, "{}: outcome of task {i} ({:?})", self.ctx(), self.tasks[i].kind);
                }
                self.retire(i);
                // Consuming twice fails.
                if self.rng.pct(20) {
                    let s = onity_task_consume(self.rt, h, ptr::null_mut());
                    self.check(s, &[S::StaleHandle], "double consume");
                }
            }
        }
    }

    pub(crate) fn op_on_complete(&mut self) {
        let (h, r) = self.gen_task();
        let id = self.id();
        let a = self.gen_act(id, true);
        let null_cb = self.rng.pct(4);
        let cb: OnityCallback = if null_cb { None } else { Some(cont_cb) };
        let s = onity_task_on_complete(self.rt, h, cb, user_of(id, a.flags, a.timing));
        let mut errs = Vec::new();
        if null_cb {
            errs.push(S::NullPointer);
        }
        match r {
            Err(e) => errs.push(e),
            Ok(i) if self.tasks[i].cont != Cont::None => errs.push(S::AlreadyAwaited),
            Ok(_) => {}
        }
        self.check(s, &errs, "on_complete");
        if s == S::Ok {
            let i = r.unwrap();
            self.tasks[i].cont = Cont::User(a);
            self.registered.push(id);
            if self.tasks[i].out.is_some() {
                self.dispatch(i);
            }
        }
    }

    pub(crate) fn op_wait(&mut self) {
        let kind = self.rng.below(4) as usize;
        let callback = self.rng.pct(40);
        let (timing, timing_ok) = self.gen_timing();
        let (token, tr) = self.gen_token();
        let clock = if self.rng.pct(5) {
            self.cov("bad clock");
            self.rng.pick(&[3u32, 9, u32::MAX])
        } else {
            self.rng.below(3) as u32
        };
        let secs = if self.rng.pct(6) {
            self.cov("bad seconds");
            self.rng.pick(&[-0.25, f64::NAN, f64::INFINITY, f64::NEG_INFINITY])
        } else {
            self.rng.pick(&[0.0, -0.0, 0.25, 0.5, 1.0, 2.0])
        };
        let frames = self.rng.pick(&[0u32, 1, 1, 2, 3, 5, u32::MAX]);
        let id = self.id();
        let a = self.gen_act(id, false);
        let user = user_of(id, a.flags, a.timing);
        let null_cb = callback && self.rng.pct(4);
        let cb: OnityCallback = if null_cb { None } else { Some(wait_cb) };
        let mut h = 0u64;
        let null_out = !callback && self.rng.pct(4);
        let out: *mut u64 = if null_out { ptr::null_mut() } else { &mut h };
        let rt = self.rt;
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
        if let Err(e) = tr {
            errs.push(e);
        }
        self.check(s, &errs, "wait");
        if s != S::Ok {
            return;
        }
        let target = if callback {
            self.registered.push(id);
            Target::Cb(a)
        } else {
            Target::Task(self.add_task(h, Kind::Wait, None))
        };
        self.m_sched(kind, timing as usize, frames, secs, clock as usize, tr.unwrap(), target);
    }

    /// A fresh manual task (created through the API) for combinator inputs.
    pub(crate) fn fresh_manual(&mut self) -> usize {
        let mut h = 0;
        assert_eq!(onity_task_create(self.rt, &mut h), S::Ok, "{}", self.ctx());
        self.add_task(h, Kind::Manual, None)
    }

    pub(crate) fn op_when(&mut self) {
        let any = self.rng.pct(50);
        let n = match self.rng.below(100) {
            0..=74 => 1 + self.rng.below(5) as usize,
            75..=84 => 16 + self.rng.below(3) as usize,
            _ => 32 + self.rng.below(4) as usize,
        };
        let mut errs = Vec::new();
        let mut hs: Vec<u64> = Vec::new();
        let mut ins: Vec<usize> = Vec::new();
        let mut pool = self.live_tasks_where(|t| t.cont == Cont::None);
        for _ in 0..n {
            let i = if !pool.is_empty() && self.rng.pct(60) {
                let k = self.rng.below(pool.len() as u64) as usize;
                pool.swap_remove(k)
            } else if self.rng.pct(30) {
                // A wait, so the combinator resumes on a frame.
                let mut h = 0;
                let t = self.rng.pick(&[0u32, 8, 13]);
                let kind = self.rng.below(3) as usize;
                let s = match kind {
                    0 => onity_yield(self.rt, t, 0, &mut h),
                    1 => onity_next_frame(self.rt, t, 0, &mut h),
                    _ => onity_delay_frame(self.rt, 2, t, 0, &mut h),
                };
                assert_eq!(s, S::Ok, "{}", self.ctx());
                let k = self.add_task(h, Kind::Wait, None);
                self.m_sched(kind, t as usize, 2, 0.0, 0, None, Target::Task(k));
                k
            } else {
                self.fresh_manual()
            };
            hs.push(self.tasks[i].h);
            ins.push(i);
        }
        // Faults.
        if self.rng.pct(15) {
            let k = self.rng.below(n as u64) as usize;
            match self.rng.below(5) {
                0 if n > 1 => {
                    self.cov("dup input");
                    hs[k] = hs[(k + 1) % n];
                    errs.push(S::DuplicateInput);
                }
                1 => {
                    let (h, r) = self.gen_task();
                    hs[k] = h;
                    match r {
                        Err(e) => errs.push(e),
                        Ok(i) => {
                            if self.tasks[i].cont != Cont::None {
                                errs.push(S::AlreadyAwaited);
                            }
                            if hs.iter().filter(|&&x| x == h).count() > 1 {
                                errs.push(S::DuplicateInput);
                            }
                            ins[k] = i;
                        }
                    }
                }
                2 => {
                    let owned = self.live_tasks_where(|t| t.cont != Cont::None);
                    if owned.is_empty() {
                        hs[k] = 0;
                        errs.push(S::InvalidHandle);
                    } else {
                        let i = self.rng.pick(&owned);
                        hs[k] = self.tasks[i].h;
                        errs.push(S::AlreadyAwaited);
                    }
                }
                3 => {
                    let gone: Vec<usize> = (0..self.tasks.len()).filter(|&i| self.tasks[i].retired).collect();
                    if gone.is_empty() {
                        hs[k] = self.foreign_task;
                        errs.push(S::ForeignHandle);
                    } else {
                        hs[k] = self.tasks[self.rng.pick(&gone)].h;
                        errs.push(S::StaleHandle);
                    }
                }
                _ => {
                    hs[k] = 0;
                    errs.push(S::InvalidHandle);
                }
            }
        }
        let (token, tr) = self.gen_token();
        if let Err(e) = tr {
            errs.push(e);
        }
        let mut count = n as u32;
        let mut tasks_p = hs.as_ptr();
        match self.rng.below(100) {
            0..=2 => {
                self.cov("count 0");
                count = 0;
                errs.push(S::CountOutOfRange);
            }
            3..=5 => {
                self.cov("count 4097");
                count = ONITY_MAX_COMBINATOR_INPUTS + 1;
                errs.push(S::CountOutOfRange);
            }
            6..=8 => {
                tasks_p = ptr::null();
                errs.push(S::NullPointer);
            }
            _ => {}
        }
        let mut h = 0u64;
        let out = self.out_ptr(&mut h, 3);
        if out.is_null() {
            errs.push(S::NullPointer);
        }
        let s = if any {
            onity_when_any(self.rt, tasks_p, count, token, out)
        } else {
            onity_when_all(self.rt, tasks_p, count, token, out)
        };
        self.check(s, &errs, if any { "when_any" } else { "when_all" });
        if s != S::Ok {
            return;
        }
        let c = self.combs.len();
        let o = self.add_task(h, if any { Kind::Any(c) } else { Kind::All(c) }, None);
        self.combs.push(Comb {
            any,
            out: o,
            n,
            outcomes: vec![None; n],
            remaining: n,
            done: false,
            out_released: false,
            first_fail: None,
            token: tr.unwrap(),
            bucket: if n <= 16 {
                0
            } else if n <= 32 {
                1
            } else {
                2
            },
            alive: true,
        });
        for (k, &i) in ins.iter().enumerate() {
            self.tasks[i].cont = Cont::Comb { c, i: k };
        }
        if self.combs[c].token.is_some() {
            self.watches.push(c);
        }
        for &i in &ins {
            if self.tasks[i].out.is_some() {
                self.dispatch(i);
            }
        }
        if self.tok(self.combs[c].token) && self.watches.contains(&c) {
            self.unwatch(c);
            self.combs[c].done = true;
            self.complete(o, Out::new(CANCELED, 0, 0));
        }
    }

    pub(crate) fn op_when_all_results(&mut self) {
        let alls = self.live_tasks_where(|t| matches!(t.kind, Kind::All(_)));
        let (h, r) = if !alls.is_empty() && self.rng.pct(70) {
            let i = self.rng.pick(&alls);
            (self.tasks[i].h, Ok(i))
        } else {
            self.gen_task()
        };
        let n = match r {
            Ok(i) => match self.tasks[i].kind {
                Kind::All(c) => self.combs[c].n,
                _ => 1 + self.rng.below(3) as usize,
            },
            Err(_) => 1,
        };
        let mut count = n as u32;
        let mut errs = Vec::new();
        match self.rng.below(100) {
            0..=4 => {
                count = 0;
                errs.push(S::CountOutOfRange);
            }
            5..=9 => {
                count = n as u32 + 1;
            }
            10..=12 if n > 1 => count = n as u32 - 1,
            _ => {}
        }
        let mut buf = vec![OnityOutcome { value: 5, error: 5, state: 5, index: 5, reserved: 0 }; count as usize + 1];
        let null = self.rng.pct(4);
        if null {
            errs.push(S::NullPointer);
        }
        let p = if null { ptr::null_mut() } else { buf.as_mut_ptr() };
        let s = onity_when_all_results(self.rt, h, p, count);
        match r {
            Err(e) => errs.push(e),
            Ok(i) => match self.tasks[i].kind {
                Kind::All(c) => {
                    if self.tasks[i].out.is_none() {
                        errs.push(S::TaskPending);
                    }
                    if count as usize != self.combs[c].n {
                        errs.push(S::CountOutOfRange);
                    }
                }
                _ => errs.push(S::InvalidHandle),
            },
        }
        self.check(s, &errs, "when_all_results");
        if s == S::Ok {
            self.cov("when_all_results ok");
            let Kind::All(c) = self.tasks[r.unwrap()].kind else { unreachable!() };
            for (k, want) in self.combs[c].outcomes.iter().enumerate() {
                let want = want.unwrap_or(Out::new(0, 0, 0));
                let o = buf[k];
                let got = Out { state: o.state, value: o.value, error: o.error, index: o.index };
                assert_eq!(got, want, "{}: when_all_results[{k}]", self.ctx());
            }
            assert_eq!(buf[count as usize].state, 5, "{}: wrote past count", self.ctx());
        }
    }

    pub(crate) fn op_source(&mut self) {
        match self.rng.below(4) {
            0 => {
                let mut h = 0;
                let p = self.out_ptr(&mut h, 4);
                let s = onity_cancel_source_create(self.rt, p);
                if p.is_null() {
                    self.check(s, &[S::NullPointer], "source_create(null)");
                } else {
                    self.check(s, &[], "source_create");
                    self.sources.push(Source { h, canceled: false, destroyed: false });
                }
            }
            1 => {
                let (h, r) = self.gen_source();
                let s = onity_cancel_source_cancel(self.rt, h);
                self.check(s, r.err().as_slice(), "source_cancel");
                if let Ok(i) = r {
                    self.sources[i].canceled = true;
                }
            }
            2 => {
                let (h, r) = self.gen_source();
                let mut c = 9u32;
                let p = self.out_ptr(&mut c, 4);
                let s = onity_cancel_source_is_canceled(self.rt, h, p);
                if p.is_null() {
                    self.check(s, &[S::NullPointer], "is_canceled(null)");
                    return;
                }
                self.check(s, r.err().as_slice(), "is_canceled");
                if let Ok(i) = r {
                    assert_eq!(c, self.sources[i].canceled as u32, "{}", self.ctx());
                }
            }
            _ => {
                let (h, r) = self.gen_source();
                let s = onity_cancel_source_destroy(self.rt, h);
                self.check(s, r.err().as_slice(), "source_destroy");
                if let Ok(i) = r {
                    self.sources[i].destroyed = true;
                }
            }
        }
    }
}
