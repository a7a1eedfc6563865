//! Operations from other threads and on bad runtimes, the verification after
//! each step, the step driver and the final teardown checks.

use super::*;

impl Sim {
    // ---- other threads ------------------------------------------------------

    pub(crate) fn op_thread(&mut self) {
        let rt = self.rt as usize;
        match self.rng.below(4) {
            0 | 1 => {
                let which = self.rng.below(3) as u32;
                let (h, r) = self.gen_task();
                let (v, e, o) = self.outcome_for(which);
                let s = std::thread::scope(|sc| {
                    sc.spawn(move || {
                        let rt = rt as *mut OnityRuntime;
                        match which {
                            0 => onity_task_set_result(rt, h, v),
                            1 => onity_task_set_error(rt, h, e),
                            _ => onity_task_cancel(rt, h),
                        }
                    })
                    .join()
                    .unwrap()
                });
                let errs = self.expect_complete(which, r, false);
                self.check(s, &errs, "complete (other thread)");
                if s == S::Ok {
                    let i = r.unwrap();
                    self.cov("cross-thread completion");
                    self.tasks[i].out = Some(o);
                    self.tasks[i].queued = true;
                    self.queued.push(i);
                }
            }
            2 => {
                let (h, r) = self.gen_task();
                let (sh, sr) = self.gen_source();
                let cancel = self.rng.pct(50);
                let (s1, st, s2, s3, c) = std::thread::scope(|sc| {
                    sc.spawn(move || {
                        let rt = rt as *mut OnityRuntime;
                        let mut st = 0;
                        let s1 = onity_task_state(rt, h, &mut st);
                        let s2 = if cancel { onity_cancel_source_cancel(rt, sh) } else { S::Ok };
                        let mut c = 0;
                        let s3 = onity_cancel_source_is_canceled(rt, sh, &mut c);
                        (s1, st, s2, s3, c)
                    })
                    .join()
                    .unwrap()
                });
                self.check(s1, r.err().as_slice(), "state (other thread)");
                if let Ok(i) = r {
                    assert_eq!(st, self.tasks[i].out.map_or(0, |o| o.state), "{}", self.ctx());
                }
                if cancel {
                    self.check(s2, sr.err().as_slice(), "source cancel (other thread)");
                    if let Ok(i) = sr {
                        self.sources[i].canceled = true;
                    }
                }
                self.check(s3, sr.err().as_slice(), "is_canceled (other thread)");
                if let Ok(i) = sr {
                    assert_eq!(c, self.sources[i].canceled as u32, "{}", self.ctx());
                }
            }
            _ => {
                // Owner-only functions, with otherwise valid arguments.
                let f = self.rng.below(18);
                let h = self.gen_task().0;
                let src = self.gen_source().0;
                let bp = self.live_batches().first().map_or(ptr::null_mut(), |&b| self.batches[b].p) as usize;
                let s = std::thread::scope(|sc| {
                    sc.spawn(move || {
                        let rt = rt as *mut OnityRuntime;
                        let mut out = 0u64;
                        let mut n = 0u32;
                        let mut o = [OnityOutcome { value: 0, error: 0, state: 0, index: 0, reserved: 0 }; 2];
                        let fi = OnityFrameInfo {
                            size: std::mem::size_of::<OnityFrameInfo>() as u32,
                            reserved: 0,
                            frame: 1 << 40,
                            delta_time: 0.0,
                            unscaled_delta_time: 0.0,
                            realtime: 0.0,
                        };
                        match f {
                            0 => onity_task_create(rt, &mut out),
                            1 => onity_task_consume(rt, h, ptr::null_mut()),
                            2 => onity_task_on_complete(rt, h, Some(cont_cb), ptr::null_mut()),
                            3 => onity_yield(rt, 8, 0, &mut out),
                            4 => onity_next_frame_then(rt, 8, 0, Some(wait_cb), ptr::null_mut()),
                            5 => onity_when_any(rt, &h, 1, 0, &mut out),
                            6 => onity_runtime_tick(rt, 8),
                            7 => onity_runtime_drain(rt),
                            8 => {
                                let mut st: OnityStats = unsafe { std::mem::zeroed() };
                                st.size = std::mem::size_of::<OnityStats>() as u32;
                                onity_runtime_stats(rt, &mut st)
                            }
                            9 => onity_runtime_live_tasks(rt, ptr::null_mut(), 0, &mut n),
                            10 => onity_cancel_source_create(rt, &mut out),
                            11 => onity_cancel_source_destroy(rt, src),
                            12 => {
                                let mut b = ptr::null_mut();
                                onity_batch_create(rt, 4, &mut b)
                            }
                            13 => onity_runtime_frame_begin(rt, &fi),
                            14 => onity_runtime_destroy(rt),
                            15 => onity_when_all_results(rt, h, o.as_mut_ptr(), 1),
                            16 if bp != 0 => onity_batch_tick(rt, bp as *mut OnityBatch, 8),
                            _ => onity_when_all(rt, &h, 1, 0, &mut out),
                        }
                    })
                    .join()
                    .unwrap()
                });
                self.cov("wrong thread");
                assert_eq!(s, S::WrongThread, "{}: owner-only function {f} on another thread", self.ctx());
            }
        }
    }

    pub(crate) fn op_bad_runtime(&mut self) {
        let fake_space = [0u64; 8];
        let null = self.rng.pct(50);
        let rt: *mut OnityRuntime = if null { ptr::null_mut() } else { fake_space.as_ptr() as *mut OnityRuntime };
        let want = if null { S::NullPointer } else { S::InvalidRuntime };
        let mut out = 0u64;
        let s = match self.rng.below(6) {
            0 => onity_task_create(rt, &mut out),
            1 => onity_runtime_tick(rt, 0),
            2 => onity_runtime_destroy(rt),
            3 => onity_yield(rt, 0, 0, &mut out),
            4 => onity_task_set_result(rt, 1, 1),
            _ => onity_runtime_drain(rt),
        };
        assert_eq!(s, want, "{}: bad runtime pointer", self.ctx());
    }

    // ---- verification after each step -------------------------------------

    pub(crate) fn verify(&mut self) {
        let mut got = take_log();
        let mut want = std::mem::take(&mut self.expect);
        for e in &got {
            if let Ev::Cont { id, .. } | Ev::Cb { id, .. } = e {
                *self.fired.entry(*id).or_default() += 1;
            }
            let what = match e {
                Ev::Cont { state: CANCELED, .. } => "ev: continuation (canceled)",
                Ev::Cont { .. } => "ev: continuation",
                Ev::Consumed { .. } => "ev: consumed in continuation",
                Ev::Act { what: F_DESTROY, .. } => "ev: destroy in callback",
                Ev::Act { what: F_TICK, status: 0, .. } => "ev: nested tick ok",
                Ev::Act { what: F_TICK, .. } => "ev: nested tick refused",
                Ev::Act { what: F_DRAIN, .. } => "ev: drain in callback",
                Ev::Act { what: F_YIELD, status: 0, .. } => "ev: yield in callback ok",
                Ev::Act { what: F_YIELD, .. } => "ev: yield in callback refused",
                Ev::Act { what: F_CANCEL_SRC, .. } => "ev: source cancel in callback",
                Ev::Act { .. } => "ev: source destroy in callback",
                Ev::Cb { state: CANCELED, .. } => "ev: callback wait (canceled)",
                Ev::Cb { .. } => "ev: callback wait",
            };
            self.cov(what);
        }
        if self.relaxed {
            let key = |e: &Ev| format!("{e:?}");
            got.sort_by_key(key);
            want.sort_by_key(key);
        }
        assert_eq!(got, want, "{}: continuations / callbacks", self.ctx());
        for b in self.live_batches() {
            let p = self.batches[b].p;
            // SAFETY: live batch, between calls.
            let (res, fast) = unsafe {
                let bb = &*p;
                let res: Vec<(u64, u32, u32)> = (0..bb.resumed_count as usize)
                    .map(|k| {
                        let r = *bb.resumed.add(k);
                        (r.id, r.state, r.status)
                    })
                    .collect();
                let fast: Vec<u32> = (0..bb.fast_resumed_count as usize).map(|k| *bb.fast_resumed.add(k)).collect();
                (res, fast)
            };
            let mut want = self.batches[b].resumed.clone();
            if self.relaxed {
                let mut g = res.clone();
                g.sort_unstable();
                want.sort_unstable();
                assert_eq!(g, want, "{}: batch {b} resumptions", self.ctx());
                self.batches[b].resumed = res.clone();
            } else {
                assert_eq!(res, want, "{}: batch {b} resumptions", self.ctx());
            }
            assert_eq!(fast, self.batches[b].last_fast, "{}: batch {b} fast_resumed changed", self.ctx());
            let new = res.len().saturating_sub(self.batches[b].mark.min(res.len()));
            *self.cover.entry("batch resumptions seen").or_default() += new as u64;
            // The host marks some or all of them processed.
            let mark = if self.rng.pct(70) { res.len() } else { self.rng.below(res.len() as u64 + 1) as usize };
            // SAFETY: live batch, between calls.
            unsafe { (*p).resumed_consumed = mark as u32 };
            self.batches[b].mark = mark;
        }
        self.relaxed = false;
    }

    pub(crate) fn step_once(&mut self) {
        let r = self.rng.below(100);
        self.op = match r {
            0..=9 => "create",
            10..=19 => "complete",
            20..=23 => "state",
            24..=33 => "consume",
            34..=41 => "on_complete",
            42..=53 => "wait",
            54..=61 => "when",
            62..=64 => "when_all_results",
            65..=70 => "source",
            71..=73 => "frame_begin",
            74..=81 => "tick",
            82..=83 => "drain",
            84..=85 => "stats",
            86 => "live_tasks",
            87..=94 => "batch",
            95..=97 => "thread",
            _ => "bad runtime",
        };
        match self.op {
            "create" => self.op_create(),
            "complete" => self.op_complete(),
            "state" => self.op_state(),
            "consume" => self.op_consume(),
            "on_complete" => self.op_on_complete(),
            "wait" => self.op_wait(),
            "when" => self.op_when(),
            "when_all_results" => self.op_when_all_results(),
            "source" => self.op_source(),
            "frame_begin" => self.op_frame_begin(),
            "tick" => self.op_tick(),
            "drain" => self.op_drain(),
            "stats" => self.op_stats(),
            "live_tasks" => self.op_live_tasks(),
            "batch" => self.op_batch(),
            "thread" => self.op_thread(),
            _ => self.op_bad_runtime(),
        }
        self.verify();
    }

    /// `onity_runtime_destroy` with work in flight, and the model's `close`.
    pub(crate) fn finish(mut self) -> HashMap<&'static str, u64> {
        self.op = "destroy";
        self.closing = true;
        // Null and foreign-thread destroys change nothing.
        assert_eq!(onity_runtime_destroy(ptr::null_mut()), S::NullPointer);
        // The model: drain, cancel pending combinators, every wait (timing
        // order, FIFO), then every pending task in slot order.
        self.drain_queued();
        self.cancel_combinators();
        for t in 0..16 {
            self.run_queue(t, true);
        }
        let mut pending: Vec<usize> = self.live_tasks_where(|t| t.out.is_none());
        pending.sort_by_key(|&i| self.tasks[i].h & (MAX_SLOTS - 1));
        for i in pending {
            self.complete(i, Out::new(CANCELED, 0, 0));
        }
        self.drain_queued();
        let s = onity_runtime_destroy(self.rt);
        assert_eq!(s, S::Ok, "{}", self.ctx());
        self.rt = ptr::null_mut();
        RT.with(|r| r.set(ptr::null_mut()));
        self.batches.iter_mut().for_each(|b| b.alive = false);
        self.verify();
        // Every continuation and callback ran exactly once.
        for id in &self.registered {
            assert_eq!(self.fired.get(id).copied(), Some(1), "{}: continuation {id} ran", self.ctx());
        }
        for (i, t) in self.tasks.iter().enumerate() {
            assert!(
                !matches!(t.cont, Cont::User(_)),
                "{}: task {i} still has a continuation that never ran",
                self.ctx()
            );
        }
        assert_eq!(onity_runtime_destroy(self.other), S::Ok);
        self.cover
    }
}
