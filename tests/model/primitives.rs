//! Model primitives: how the reference model completes, dispatches and
//! retires tasks, feeds combinators, runs queues and ticks, and applies the
//! callbacks' actions.

use super::*;

impl Sim {
    // ---- model primitives ---------------------------------------------

    pub(crate) fn add_task(&mut self, h: u64, kind: Kind, out: Option<Out>) -> usize {
        assert_ne!(h, 0, "{}", self.ctx());
        assert!(!self.by_h.contains_key(&h), "{}: handle {h:#x} issued twice", self.ctx());
        self.tasks.push(Task { h, kind, out, cont: Cont::None, retired: false, queued: false });
        self.by_h.insert(h, self.tasks.len() - 1);
        self.tasks.len() - 1
    }

    pub(crate) fn tok(&self, t: Option<usize>) -> bool {
        t.is_some_and(|s| self.sources[s].canceled)
    }

    pub(crate) fn complete(&mut self, i: usize, o: Out) -> bool {
        let t = &mut self.tasks[i];
        if t.retired || t.out.is_some() {
            return false;
        }
        t.out = Some(o);
        self.dispatch(i);
        true
    }

    pub(crate) fn dispatch(&mut self, i: usize) {
        let t = &self.tasks[i];
        let o = t.out.expect("dispatch of a pending task");
        let h = t.h;
        match t.cont {
            Cont::None | Cont::Fired => {}
            Cont::User(a) => {
                self.tasks[i].cont = Cont::Fired;
                self.expect.push(Ev::Cont { id: a.id, task: h, state: o.state });
                self.m_act(a, Some(i));
            }
            Cont::Emit { b, id } => {
                self.tasks[i].cont = Cont::Fired;
                self.batches[b].resumed.push((id, o.state, 0));
            }
            Cont::Comb { c, i: k } => {
                self.tasks[i].cont = Cont::Fired;
                self.retire(i);
                self.on_input(c, k, o);
            }
        }
    }

    pub(crate) fn retire(&mut self, i: usize) {
        let t = &mut self.tasks[i];
        assert!(!t.retired);
        t.retired = true;
        if let Kind::All(c) = t.kind {
            self.combs[c].out_released = true;
            if self.combs[c].remaining == 0 {
                self.free_comb(c);
            }
        }
    }

    pub(crate) fn free_comb(&mut self, c: usize) {
        assert!(self.combs[c].alive, "{}: combinator freed twice", self.ctx());
        self.combs[c].alive = false;
    }

    pub(crate) fn on_input(&mut self, c: usize, k: usize, o: Out) {
        self.cov(if self.combs[c].any { "any input" } else { "all input" });
        let cb = &mut self.combs[c];
        cb.remaining -= 1;
        if cb.any {
            let win = !cb.done;
            cb.done = true;
            let out = cb.out;
            let last = cb.remaining == 0;
            if win {
                self.unwatch(c);
            }
            if last {
                self.free_comb(c);
            }
            if win {
                self.complete(out, Out { index: k as u32, ..o });
            }
        } else {
            cb.outcomes[k] = Some(Out { index: NOIDX, ..o });
            if o.state != SUCCEEDED && cb.first_fail.is_none() {
                cb.first_fail = Some(k);
            }
            let finish = cb.remaining == 0 && !cb.done;
            if finish {
                cb.done = true;
            }
            let out = cb.out;
            let r = match cb.first_fail {
                None => Out::new(SUCCEEDED, cb.n as u64, 0),
                Some(f) => {
                    let fo = cb.outcomes[f].unwrap();
                    Out { state: fo.state, value: fo.value, error: fo.error, index: f as u32 }
                }
            };
            if finish {
                self.unwatch(c);
            }
            let cb = &self.combs[c];
            if cb.remaining == 0 && cb.out_released {
                self.free_comb(c);
            }
            if finish {
                self.complete(out, r);
            }
        }
    }

    /// Cancels the combinators whose token is canceled (tick / drain), in
    /// creation order (the runtime's rule: an input combinator canceled by
    /// the same poll goes first, so the outer one reports its index).
    pub(crate) fn poll(&mut self) {
        loop {
            let first = self.watches.iter().copied().filter(|&c| self.tok(self.combs[c].token)).min();
            let Some(c) = first else { return };
            self.cov("combinator canceled by token");
            self.combs[c].done = true;
            self.unwatch(c);
            let out = self.combs[c].out;
            self.complete(out, Out::new(CANCELED, 0, 0));
        }
    }

    /// Destroy's first step after the drain: every combinator a pending
    /// input still points at is marked done (none completes from an input
    /// canceled later), then, walking the inputs in slot order, its output
    /// is canceled if still pending (`index` UINT32_MAX).
    pub(crate) fn cancel_combinators(&mut self) {
        let by_slot = |m: &Self| {
            let mut v: Vec<usize> = (0..m.tasks.len()).filter(|&i| !m.tasks[i].retired).collect();
            v.sort_by_key(|&i| m.tasks[i].h & (MAX_SLOTS - 1));
            v
        };
        for i in by_slot(self) {
            if let (Cont::Comb { c, .. }, None) = (self.tasks[i].cont, self.tasks[i].out) {
                if !self.combs[c].done {
                    self.combs[c].done = true;
                    self.unwatch(c);
                }
            }
        }
        for i in by_slot(self) {
            if self.tasks[i].retired {
                continue;
            }
            if let (Cont::Comb { c, .. }, None) = (self.tasks[i].cont, self.tasks[i].out) {
                let out = self.combs[c].out;
                if !self.tasks[out].retired && self.tasks[out].out.is_none() {
                    self.complete(out, Out::new(CANCELED, 0, 0));
                }
            }
        }
    }

    pub(crate) fn unwatch(&mut self, c: usize) {
        if let Some(pos) = self.watches.iter().position(|&x| x == c) {
            self.watches.swap_remove(pos);
        }
    }

    pub(crate) fn drain_queued(&mut self) {
        for i in std::mem::take(&mut self.queued) {
            self.tasks[i].queued = false;
            if !self.tasks[i].retired {
                self.dispatch(i);
            }
        }
    }

    pub(crate) fn run_queue(&mut self, t: usize, cancel_all: bool) {
        let items = std::mem::take(&mut self.queues[t]);
        let mut kept = Vec::new();
        for w in items {
            let canceled = cancel_all || self.tok(w.token);
            let due = canceled
                || match w.kind {
                    0 => true,
                    1 | 2 => self.fnum >= w.due_frame,
                    _ => self.fnum >= w.due_frame && self.clocks[w.clock] >= w.due_time,
                };
            if !due {
                kept.push(w);
                continue;
            }
            if canceled {
                self.canc[w.kind] += 1;
            } else {
                self.done[w.kind] += 1;
            }
            let state = if canceled { CANCELED } else { SUCCEEDED };
            match w.target {
                Target::Task(i) => {
                    self.complete(i, Out::new(state, 0, 0));
                }
                Target::Cb(a) => {
                    self.expect.push(Ev::Cb { id: a.id, task: 0, state });
                    self.m_act(Act { flags: a.flags & !F_CONSUME, ..a }, None);
                }
                Target::Batch { b, id } => self.batches[b].resumed.push((id, state, 0)),
            }
        }
        kept.append(&mut self.queues[t]);
        self.queues[t] = kept;
    }

    pub(crate) fn m_tick(&mut self, t: usize) {
        assert!(!self.ticking);
        self.ticking = true;
        self.drain_queued();
        self.poll();
        self.run_queue(t, false);
        self.ticking = false;
    }

    /// The model of `act`.
    pub(crate) fn m_act(&mut self, a: Act, task: Option<usize>) {
        let id = a.id;
        if a.flags & F_CONSUME != 0 {
            let i = task.unwrap();
            let o = self.tasks[i].out.unwrap();
            self.retire(i);
            self.expect.push(Ev::Consumed {
                id,
                status: 0,
                value: o.value,
                error: o.error,
                state: o.state,
                index: o.index,
            });
        }
        let ev = |what: u64, s: S| Ev::Act { id, what, status: s as u32 };
        if a.flags & F_DESTROY != 0 {
            self.expect.push(ev(F_DESTROY, S::Reentrant));
        }
        if a.flags & F_TICK != 0 {
            if self.ticking || self.closing {
                self.expect.push(ev(F_TICK, S::Reentrant));
            } else {
                self.m_file_all();
                self.m_tick(a.timing as usize);
                self.expect.push(ev(F_TICK, S::Ok));
            }
        }
        if a.flags & F_DRAIN != 0 {
            self.m_file_all();
            self.m_drain();
            self.expect.push(ev(F_DRAIN, S::Ok));
        }
        if a.flags & F_YIELD != 0 {
            if self.closing {
                self.expect.push(ev(F_YIELD, S::Reentrant));
            } else {
                let y = Act { id: id | YIELD_BIT, flags: 0, timing: 0, src: 0 };
                self.registered.push(y.id);
                self.m_sched(0, a.timing as usize, 0, 0.0, 0, None, Target::Cb(y));
                self.expect.push(ev(F_YIELD, S::Ok));
            }
        }
        if a.flags & F_CANCEL_SRC != 0 {
            let r = self.classify_source(a.src);
            if let Ok(i) = r {
                self.sources[i].canceled = true;
            }
            self.expect.push(ev(F_CANCEL_SRC, r.err().unwrap_or(S::Ok)));
        }
        if a.flags & F_DESTROY_SRC != 0 {
            let r = self.classify_source(a.src);
            if let Ok(i) = r {
                self.sources[i].destroyed = true;
            }
            self.expect.push(ev(F_DESTROY_SRC, r.err().unwrap_or(S::Ok)));
        }
    }

    pub(crate) fn classify_source(&self, h: u64) -> Result<usize, S> {
        match self.classify_token(h) {
            Ok(None) => Err(S::InvalidHandle),
            Ok(Some(i)) => Ok(i),
            Err(e) => Err(e),
        }
    }

    /// Random actions for a new continuation or callback.
    pub(crate) fn gen_act(&mut self, id: u64, consume: bool) -> Act {
        let mut flags = 0;
        if consume && self.rng.pct(50) {
            flags |= F_CONSUME;
        }
        for (f, p) in [(F_DESTROY, 4), (F_TICK, 8), (F_YIELD, 8), (F_CANCEL_SRC, 5), (F_DESTROY_SRC, 3), (F_DRAIN, 4)] {
            if self.rng.pct(p) {
                flags |= f;
            }
        }
        let timing = if self.rng.pct(50) { 8 } else { self.rng.below(16) as u32 };
        let src = if flags & (F_CANCEL_SRC | F_DESTROY_SRC) != 0 { self.gen_source().0 } else { 0 };
        SRC_OF.with(|m| m.borrow_mut().insert(id, src));
        Act { id, flags, timing, src }
    }

    pub(crate) fn m_drain(&mut self) {
        self.drain_queued();
        self.poll();
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn m_sched(
        &mut self,
        kind: usize,
        timing: usize,
        frames: u32,
        secs: f64,
        clock: usize,
        token: Option<usize>,
        target: Target,
    ) {
        let (due_frame, due_time) = match kind {
            0 => (0, 0.0),
            1 => (self.fnum + 1, 0.0),
            2 => (self.fnum + frames as u64, 0.0),
            _ => (self.fnum + 1, self.clocks[clock] + secs),
        };
        self.queues[timing].push(Wait { target, kind, due_frame, due_time, clock, token });
        self.sched[kind] += 1;
    }
}
