//! Model primitives: how the model issues, completes, dispatches and
//! retires tasks, feeds combinators, runs queues, ticks and frame-allocator
//! rewinds, and applies the continuations' actions.

use super::sim::*;

impl Sim<'_> {
    pub fn add_task(&mut self, r: usize, h: u64, kind: Kind, out: Option<Out>) -> usize {
        self.issue(r, h, true);
        let rt = &mut self.rts[r];
        rt.tasks.push(Task { h, kind, out, cont: Cont::None, retired: false, queued: false });
        rt.by_h.insert(h, rt.tasks.len() - 1);
        rt.tasks.len() - 1
    }

    pub fn add_source(&mut self, r: usize, h: u64) -> usize {
        self.issue(r, h, false);
        let rt = &mut self.rts[r];
        rt.sources.push(Source { h, canceled: false, destroyed: false });
        rt.src_by_h.insert(h, rt.sources.len() - 1);
        rt.sources.len() - 1
    }

    pub fn complete(&mut self, r: usize, i: usize, o: Out) -> bool {
        let t = &mut self.rts[r].tasks[i];
        if t.retired || t.out.is_some() {
            return false;
        }
        t.out = Some(o);
        self.dispatch(r, i);
        true
    }

    pub fn dispatch(&mut self, r: usize, i: usize) {
        let t = &self.rts[r].tasks[i];
        let o = t.out.expect("dispatch of a pending task");
        let h = t.h;
        match t.cont {
            Cont::None | Cont::Fired => {}
            Cont::User(a) => {
                self.rts[r].tasks[i].cont = Cont::Fired;
                self.expect.push(Ev::Cont { rt: r, id: a.id, task: h, state: o.state });
                self.rts[r].busy += 1;
                self.m_act(r, a, Some(i));
                self.rts[r].busy -= 1;
            }
            Cont::Comb { c, i: k } => {
                self.rts[r].tasks[i].cont = Cont::Fired;
                self.retire(r, i);
                self.on_input(r, c, k, o);
            }
        }
    }

    pub fn retire(&mut self, r: usize, i: usize) {
        let rt = &mut self.rts[r];
        let t = &mut rt.tasks[i];
        assert!(!t.retired);
        t.retired = true;
        if let Kind::All(c) = t.kind {
            rt.combs[c].out_released = true;
            if rt.combs[c].remaining == 0 {
                rt.combs[c].alive = false;
            }
        }
    }

    fn on_input(&mut self, r: usize, c: usize, k: usize, o: Out) {
        let any = self.rts[r].combs[c].any;
        self.cov(if any { "combinator input (any)" } else { "combinator input (all)" });
        let rt = &mut self.rts[r];
        let cb = &mut rt.combs[c];
        cb.remaining -= 1;
        let out = cb.out;
        if any {
            let win = !cb.done;
            cb.done = true;
            if cb.remaining == 0 {
                cb.alive = false;
            }
            if win {
                self.unwatch(r, c);
                self.complete(r, out, Out { index: k as u32, ..o });
            }
            return;
        }
        cb.outcomes[k] = Some(Out { index: NOIDX, ..o });
        if o.state != SUCCEEDED && cb.first_fail.is_none() {
            cb.first_fail = Some(k);
        }
        let finish = cb.remaining == 0 && !cb.done;
        let res = match cb.first_fail {
            None => Out::new(SUCCEEDED, cb.n as u64, 0),
            Some(f) => Out { index: f as u32, ..cb.outcomes[f].unwrap() },
        };
        if finish {
            cb.done = true;
        }
        if cb.remaining == 0 && cb.out_released {
            cb.alive = false;
        }
        if finish {
            self.unwatch(r, c);
            self.complete(r, out, res);
        }
    }

    /// Cancels the combinators whose token is canceled (tick / drain), when a
    /// source was canceled since the last poll, in creation order (the
    /// runtime's rule, as in `tests/model.rs`: inputs exist before the
    /// combinators that take them, so a combinator whose input is another
    /// one canceled by the same poll completes with that input's index).
    pub fn poll(&mut self, r: usize) {
        let rt = &mut self.rts[r];
        if rt.cancel_epoch == rt.seen_epoch {
            return;
        }
        rt.seen_epoch = rt.cancel_epoch;
        loop {
            let rt = &self.rts[r];
            let Some(c) = rt.watches.iter().copied().filter(|&c| rt.tok(rt.combs[c].token)).min() else { return };
            self.rts[r].combs[c].done = true;
            self.unwatch(r, c);
            let out = self.rts[r].combs[c].out;
            self.cov("combinator canceled by its token");
            self.complete(r, out, Out::new(CANCELED, 0, 0));
        }
    }

    /// Stops watching `c`'s token (the runtime swap-removes it from its list).
    pub fn unwatch(&mut self, r: usize, c: usize) {
        let w = &mut self.rts[r].watches;
        if let Some(k) = w.iter().position(|&x| x == c) {
            w.swap_remove(k);
        }
    }

    pub fn drain_queued(&mut self, r: usize) {
        for i in std::mem::take(&mut self.rts[r].queued) {
            self.rts[r].tasks[i].queued = false;
            if !self.rts[r].tasks[i].retired {
                self.dispatch(r, i);
            }
        }
    }

    pub fn m_drain(&mut self, r: usize) {
        self.drain_queued(r);
        self.poll(r);
    }

    pub fn run_queue(&mut self, r: usize, t: usize, cancel_all: bool) {
        let items = std::mem::take(&mut self.rts[r].queues[t]);
        let mut kept = Vec::new();
        for w in items {
            let rt = &mut self.rts[r];
            let canceled = cancel_all || rt.tok(w.token);
            let due = canceled
                || match w.kind {
                    0 => true,
                    1 | 2 => rt.fnum >= w.due_frame,
                    _ => rt.fnum >= w.due_frame && rt.clocks[w.clock] >= w.due_time,
                };
            if !due {
                kept.push(w);
                continue;
            }
            if canceled {
                rt.canc[w.kind] += 1;
            } else {
                rt.done[w.kind] += 1;
            }
            let state = if canceled { CANCELED } else { SUCCEEDED };
            match w.target {
                Target::Task(i) => {
                    self.complete(r, i, Out::new(state, 0, 0));
                }
                Target::Cb(a) => {
                    self.expect.push(Ev::Cb { rt: r, id: a.id, task: 0, state });
                    self.rts[r].busy += 1;
                    self.m_act(r, Act { flags: a.flags & !F_CONSUME, ..a }, None);
                    self.rts[r].busy -= 1;
                }
            }
        }
        kept.append(&mut self.rts[r].queues[t]);
        self.rts[r].queues[t] = kept;
    }

    pub fn m_tick(&mut self, r: usize, t: usize) {
        assert!(!self.rts[r].ticking);
        self.rts[r].ticking = true;
        let rt = &mut self.rts[r];
        if rt.cfg.rewind == Some(t) && rt.fa.last_rewind_fnum != rt.fnum {
            rt.fa.last_rewind_fnum = rt.fnum;
            self.fa_rewind(r);
        }
        self.drain_queued(r);
        self.poll(r);
        self.run_queue(r, t, false);
        self.rts[r].ticking = false;
    }

    /// The frame allocator rewinds: the allocations ending now die. (Those
    /// alive were checked at the start of the step: with poisoning on, the
    /// rewind has already overwritten the dead ones.)
    pub fn fa_rewind(&mut self, r: usize) {
        let fa = &mut self.rts[r].fa;
        fa.rewinds += 1;
        let epoch = fa.rewinds;
        fa.live.retain(|a| a.expires > epoch);
        self.cov("frame allocator rewind");
    }

    /// Every live frame allocation still holds its pattern: nothing
    /// overlapped it, no rewind released it early.
    pub fn check_frame_memory(&self, r: usize) {
        for a in &self.rts[r].fa.live {
            // SAFETY: a live allocation of `size` bytes (its lifetime has not ended).
            let bytes = unsafe { std::slice::from_raw_parts(a.p as *const u8, a.size) };
            // SAFETY: any bytes are valid u64s.
            let (head, words, tail) = unsafe { bytes.align_to::<u64>() };
            let word = u64::from_ne_bytes([a.pattern; 8]);
            if head.iter().chain(tail).all(|&b| b == a.pattern) && words.iter().all(|&w| w == word) {
                continue;
            }
            let k = bytes.iter().position(|&b| b != a.pattern).unwrap();
            panic!(
                "{}: frame allocation {:#x} (+{k} of {}) was overwritten: {:#x} != {:#x}",
                self.ctx(),
                a.p,
                a.size,
                bytes[k],
                a.pattern
            );
        }
    }

    pub fn m_sched(
        &mut self,
        r: usize,
        kind: usize,
        t: usize,
        frames: u32,
        secs: f64,
        clock: usize,
        token: Option<usize>,
        target: Target,
    ) {
        let rt = &mut self.rts[r];
        let (due_frame, due_time) = match kind {
            0 => (0, 0.0),
            1 => (rt.fnum + 1, 0.0),
            2 => (rt.fnum + frames as u64, 0.0),
            _ => (rt.fnum + 1, rt.clocks[clock] + secs),
        };
        rt.queues[t].push(Wait { target, kind, due_frame, due_time, clock, token });
        rt.sched[kind] += 1;
    }

    /// The model of `act`.
    pub fn m_act(&mut self, r: usize, a: Act, task: Option<usize>) {
        let id = a.id;
        if a.flags & F_CONSUME != 0 {
            let i = task.expect("consume from a continuation");
            let o = self.rts[r].tasks[i].out.unwrap();
            self.retire(r, i);
            self.expect.push(Ev::Consumed {
                rt: r,
                id,
                status: 0,
                value: o.value,
                error: o.error,
                state: o.state,
                index: o.index,
            });
        }
        let ev = |what: u64, s: S| Ev::Act { rt: r, id, what, status: s as u32 };
        if a.flags & F_DESTROY != 0 {
            self.expect.push(ev(F_DESTROY, S::Reentrant));
        }
        if a.flags & F_TICK != 0 {
            if self.rts[r].ticking || self.rts[r].closing {
                self.expect.push(ev(F_TICK, S::Reentrant));
            } else {
                self.cov("tick from an inline continuation");
                self.m_tick(r, a.timing as usize);
                self.expect.push(ev(F_TICK, S::Ok));
            }
        }
        if a.flags & F_YIELD != 0 {
            if self.rts[r].closing {
                self.expect.push(ev(F_YIELD, S::Reentrant));
            } else {
                let y = Act { id: id | YIELD_BIT, flags: 0, timing: 0, other: None };
                self.rts[r].registered.push(y.id);
                self.m_sched(r, 0, a.timing as usize, 0, 0.0, 0, None, Target::Cb(y));
                self.expect.push(ev(F_YIELD, S::Ok));
            }
        }
        if let Some((r2, h2)) = a.other {
            if a.flags & F_OTHER_SET != 0 {
                self.m_other_set(r, id, r2, h2);
            }
            if a.flags & F_OTHER_DESTROY != 0 {
                self.m_other_destroy(r, id, r2);
            }
        }
    }

    /// A continuation of `r` completes task `h2` of runtime `r2`.
    fn m_other_set(&mut self, r: usize, id: u64, r2: usize, h2: u64) {
        let ev = |status: u32| Ev::Act { rt: r, id, what: F_OTHER_SET, status };
        if !self.rts[r2].alive || self.rts[r].closing {
            self.expect.push(ev(SKIPPED));
            return;
        }
        let c = self.classify(r2, h2, true);
        let errs = self.expect_complete(r2, 0, &c, true);
        // One of `r2`'s own tasks: at most one error applies.
        if let [e] = errs[..] {
            self.expect.push(ev(e as u32));
            return;
        }
        assert!(errs.is_empty(), "{}: ambiguous {errs:?}", self.ctx());
        self.cov("continuation completes another runtime's task");
        self.complete(r2, c.unwrap(), Out::new(SUCCEEDED, id, 0));
        self.expect.push(ev(0));
    }

    /// A continuation of `r` destroys runtime `r2`.
    fn m_other_destroy(&mut self, r: usize, id: u64, r2: usize) {
        let ev = |s: S| Ev::Act { rt: r, id, what: F_OTHER_DESTROY, status: s as u32 };
        let rt2 = &self.rts[r2];
        if !rt2.alive || self.rts[r].closing {
            self.expect.push(Ev::Act { rt: r, id, what: F_OTHER_DESTROY, status: SKIPPED });
        } else if rt2.busy > 0 || rt2.ticking || rt2.closing {
            self.cov("destroy of a busy runtime from another's continuation");
            self.expect.push(ev(S::Reentrant));
        } else {
            self.cov("runtime destroyed from another's continuation");
            self.m_close(r2);
            self.expect.push(ev(S::Ok));
        }
    }

    /// Random actions for a new continuation or callback.
    pub fn gen_act(&mut self, r: usize, id: u64, consume: bool) -> Act {
        let mut flags = 0;
        if consume && self.inp.pct(50) {
            flags |= F_CONSUME;
        }
        for (f, p) in [(F_DESTROY, 4), (F_TICK, 8), (F_YIELD, 8)] {
            if self.inp.pct(p) {
                flags |= f;
            }
        }
        let timing = if self.inp.pct(50) { 8 } else { self.inp.below(16) as u32 };
        let others: Vec<usize> = self.alive().into_iter().filter(|&x| x != r).collect();
        let mut other = None;
        if !others.is_empty() && self.inp.pct(12) {
            let r2 = self.inp.pick(&others);
            flags |= if self.inp.pct(25) { F_OTHER_DESTROY } else { F_OTHER_SET };
            // One of r2's own tasks (live or consumed): its status is exact.
            let k = self.inp.below(self.rts[r2].tasks.len() as u64) as usize;
            let h2 = self.rts[r2].tasks[k].h;
            set_other(id, r2, h2);
            other = Some((r2, h2));
        }
        Act { id, flags, timing, other }
    }

    /// The model of `onity_runtime_destroy`: drain, cancel every wait, then
    /// every pending task (in an unspecified order).
    pub fn m_close(&mut self, r: usize) {
        self.rts[r].closing = true;
        self.relaxed = true;
        for t in &self.rts[r].tasks {
            if let (Kind::Any(_) | Kind::All(_), Cont::User(a), false) = (t.kind, t.cont, t.retired) {
                self.loose_ids.insert(a.id);
            }
        }
        self.drain_queued(r);
        for t in 0..16 {
            self.run_queue(r, t, true);
        }
        for i in self.rts[r].live_tasks_where(|t| t.out.is_none()) {
            self.complete(r, i, Out::new(CANCELED, 0, 0));
        }
        self.drain_queued(r);
        let rt = &mut self.rts[r];
        rt.alive = false;
        rt.fa.live.clear();
    }
}
