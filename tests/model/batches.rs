//! Batches (both lanes): creation, filing, the fast lane's records,
//! compaction and destroy, checked against the model.

use super::*;

impl Sim {
    // ---- batches ----------------------------------------------------------

    pub(crate) fn live_batches(&self) -> Vec<usize> {
        (0..self.batches.len()).filter(|&b| self.batches[b].alive).collect()
    }

    /// A batch pointer: live, null, or not a batch (a stack address).
    pub(crate) fn gen_batch(&mut self, fake: *mut OnityBatch) -> (*mut OnityBatch, Result<usize, S>) {
        let live = self.live_batches();
        if !live.is_empty() && self.rng.pct(90) {
            let b = self.rng.pick(&live);
            return (self.batches[b].p, Ok(b));
        }
        if self.rng.pct(50) {
            (ptr::null_mut(), Err(S::NullPointer))
        } else {
            (fake, Err(S::InvalidHandle))
        }
    }

    /// Files one batch's pending records (model).
    pub(crate) fn m_file(&mut self, b: usize) {
        for r in std::mem::take(&mut self.batches[b].fast_pend) {
            let delay = r >> 36;
            let bb = &mut self.batches[b];
            bb.seq += 1;
            let f =
                Fast { id: r as u32, timing: ((r >> 32) & 0xF) as usize, delay, due: self.fnum + delay, seq: bb.seq };
            bb.fast.push(f);
            self.ext_sched[fast_kind(delay)] += 1;
        }
        for r in std::mem::take(&mut self.batches[b].recs) {
            let res: Result<(), S> = if r.kind == ONITY_BATCH_TASK {
                match self.by_h.get(&r.arg).copied() {
                    None => Err(self.classify_unknown_task(r.arg)),
                    Some(i) if self.tasks[i].retired => Err(S::StaleHandle),
                    Some(i) if self.tasks[i].cont != Cont::None => Err(S::AlreadyAwaited),
                    Some(i) => {
                        self.tasks[i].cont = Cont::Emit { b, id: r.id };
                        if self.tasks[i].out.is_some() {
                            self.dispatch(i);
                        }
                        Ok(())
                    }
                }
            } else {
                let (kok, tok, cok) = (r.kind < 4, r.timing < 16, r.clock < 3);
                let secs = f64::from_bits(r.arg);
                if r.kind == 2 && tok && cok && r.arg > u32::MAX as u64 {
                    Err(S::CountOutOfRange)
                } else if !kok || !tok || !cok || (r.kind == 3 && !(secs.is_finite() && secs >= 0.0)) {
                    Err(S::InvalidArgument)
                } else {
                    match self.classify_token(r.token) {
                        Err(e) => Err(e),
                        Ok(tk) => {
                            let target = Target::Batch { b, id: r.id };
                            self.m_sched(
                                r.kind as usize,
                                r.timing as usize,
                                r.arg as u32,
                                secs,
                                r.clock as usize,
                                tk,
                                target,
                            );
                            Ok(())
                        }
                    }
                }
            };
            if let Err(s) = res {
                self.batches[b].resumed.push((r.id, FAULTED, s as u32));
            }
        }
    }

    pub(crate) fn m_file_all(&mut self) {
        for b in self.live_batches() {
            self.m_file(b);
        }
    }

    pub(crate) fn classify_unknown_task(&self, h: u64) -> S {
        if h == self.foreign_task {
            S::ForeignHandle
        } else {
            S::InvalidHandle
        }
    }

    pub(crate) fn classify_token(&self, h: u64) -> Result<Option<usize>, S> {
        if h == 0 {
            return Ok(None);
        }
        if h == self.foreign_src {
            return Err(S::ForeignHandle);
        }
        match self.sources.iter().position(|s| s.h == h) {
            Some(i) if self.sources[i].destroyed => Err(S::StaleHandle),
            Some(i) => Ok(Some(i)),
            None => Err(S::InvalidHandle),
        }
    }

    pub(crate) fn op_batch(&mut self) {
        let mut fake_space = [0u64; 16];
        let fake = fake_space.as_mut_ptr() as *mut OnityBatch;
        match self.rng.below(10) {
            0 => {
                let cap = match self.rng.below(10) {
                    0 => 0,
                    1 => (1 << 20) + 1,
                    _ => 1 + self.rng.below(6) as u32,
                };
                let mut p: *mut OnityBatch = ptr::null_mut();
                let null = self.rng.pct(4);
                let out: *mut *mut OnityBatch = if null { ptr::null_mut() } else { &mut p };
                let s = onity_batch_create(self.rt, cap, out);
                let mut errs = Vec::new();
                if null {
                    errs.push(S::NullPointer);
                }
                if cap == 0 || cap > 1 << 20 {
                    errs.push(S::CountOutOfRange);
                }
                self.check(s, &errs, "batch_create");
                if s == S::Ok {
                    // SAFETY: a fresh batch.
                    let bb = unsafe { &*p };
                    assert_eq!(bb.size as usize, std::mem::size_of::<OnityBatch>());
                    assert_eq!((bb.submit_capacity, bb.fast_capacity, bb.resumed_count), (cap, cap, 0));
                    self.batches.push(Batch {
                        p,
                        alive: true,
                        recs: Vec::new(),
                        fast_pend: Vec::new(),
                        resumed: Vec::new(),
                        mark: 0,
                        fast: Vec::new(),
                        seq: 0,
                        last_fast: Vec::new(),
                    });
                }
            }
            1..=3 => self.batch_write(),
            4 => {
                let (p, r) = self.gen_batch(fake);
                let s = onity_batch_flush(self.rt, p);
                self.check(s, r.err().as_slice(), "batch_flush");
                if let Ok(b) = r {
                    self.m_file(b);
                }
            }
            5..=7 => {
                let (p, r) = self.gen_batch(fake);
                let (t, tok) = self.gen_timing();
                let s = onity_batch_tick(self.rt, p, t);
                let mut errs: Vec<S> = r.err().into_iter().collect();
                if errs.is_empty() && !tok {
                    errs.push(S::InvalidArgument);
                }
                self.check(s, &errs, "batch_tick");
                if let Ok(b) = r {
                    self.m_compact(b);
                    if tok {
                        self.m_file_all();
                        let due = self.m_run_fast(b, t as usize);
                        // SAFETY: live batch, between calls.
                        let got: Vec<u32> = unsafe {
                            let bb = &*p;
                            (0..bb.fast_resumed_count as usize).map(|k| *bb.fast_resumed.add(k)).collect()
                        };
                        assert_eq!(got, due, "{}: fast_resumed", self.ctx());
                        *self.cover.entry("fast ids resumed").or_default() += due.len() as u64;
                        self.batches[b].last_fast = due;
                        self.m_tick(t as usize);
                    }
                }
            }
            8 => {
                let (p, r) = self.gen_batch(fake);
                let s = onity_batch_drain(self.rt, p);
                self.check(s, r.err().as_slice(), "batch_drain");
                if let Ok(b) = r {
                    self.m_compact(b);
                    self.m_file_all();
                    self.m_drain();
                }
            }
            _ => {
                if !self.rng.pct(30) {
                    return;
                }
                let (p, r) = self.gen_batch(fake);
                let s = onity_batch_destroy(self.rt, p);
                self.check(s, r.err().as_slice(), "batch_destroy");
                if let Ok(b) = r {
                    self.m_batch_destroy(b);
                }
            }
        }
    }

    pub(crate) fn batch_write(&mut self) {
        let live = self.live_batches();
        if live.is_empty() {
            return;
        }
        let b = self.rng.pick(&live);
        let p = self.batches[b].p;
        let n = 1 + self.rng.below(4);
        for _ in 0..n {
            // SAFETY: live batch, owner thread, between calls.
            let bb = unsafe { &mut *p };
            if self.rng.pct(40) {
                if bb.fast_count >= bb.fast_capacity {
                    break;
                }
                let id = self.id() as u32;
                let t = self.rng.pick(&[0u32, 8, 13, 4]);
                let d = self.rng.pick(&[0u32, 0, 1, 1, 2, 3]);
                let mut rec = 0;
                assert_eq!(onity_batch_fast_record(id, t, d, &mut rec), S::Ok);
                // SAFETY: index < capacity.
                unsafe { *bb.fast_submit.add(bb.fast_count as usize) = rec };
                bb.fast_count += 1;
                self.batches[b].fast_pend.push(rec);
                continue;
            }
            if bb.submit_count >= bb.submit_capacity {
                break;
            }
            let id = self.id();
            let kind = if self.rng.pct(4) {
                self.rng.pick(&[5u8, 200])
            } else {
                self.rng.pick(&[0u8, 1, 2, 3, ONITY_BATCH_TASK, ONITY_BATCH_TASK])
            };
            let (timing, _) = self.gen_timing();
            let timing = timing.min(255) as u8;
            let clock = if self.rng.pct(4) { 3 } else { self.rng.below(3) as u8 };
            let arg = match kind {
                2 => {
                    if self.rng.pct(5) {
                        1 << 32
                    } else {
                        self.rng.below(4)
                    }
                }
                3 => self.rng.pick(&[0.0f64, 0.25, 1.0, -1.0]).to_bits(),
                ONITY_BATCH_TASK => {
                    let done = self.live_tasks_where(|t| t.out.is_some() && t.cont == Cont::None);
                    if !done.is_empty() && self.rng.pct(30) {
                        self.tasks[self.rng.pick(&done)].h
                    } else {
                        self.gen_task().0
                    }
                }
                _ => 0,
            };
            let token = if kind == ONITY_BATCH_TASK { 0 } else { self.gen_token().0 };
            let rec = OnityBatchRecord { id, token, arg, kind, timing, clock, reserved: [0; 5] };
            // SAFETY: index < capacity.
            unsafe { *bb.submit.add(bb.submit_count as usize) = rec };
            bb.submit_count += 1;
            self.batches[b].recs.push(rec);
        }
    }

    pub(crate) fn m_compact(&mut self, b: usize) {
        let bb = &mut self.batches[b];
        let n = bb.mark.min(bb.resumed.len());
        bb.resumed.drain(..n);
        bb.mark = 0;
    }

    pub(crate) fn m_run_fast(&mut self, b: usize, t: usize) -> Vec<u32> {
        let fnum = self.fnum;
        let bb = &mut self.batches[b];
        let mut due: Vec<u32> = Vec::new();
        let mut counts = [0u64; 3];
        for (k, count) in counts.iter_mut().enumerate() {
            let mut picked: Vec<&Fast> = bb
                .fast
                .iter()
                .filter(|f| f.timing == t && fast_kind(f.delay) == k && (k == 0 || f.due <= fnum))
                .collect();
            if k == 2 {
                picked.sort_by_key(|f| (f.due, f.seq));
            }
            *count = picked.len() as u64;
            due.extend(picked.iter().map(|f| f.id));
        }
        bb.fast.retain(|f| !(f.timing == t && (f.delay == 0 || f.due <= fnum)));
        for (done, count) in self.ext_done.iter_mut().zip(counts) {
            *done += count;
        }
        due
    }

    pub(crate) fn m_batch_destroy(&mut self, b: usize) {
        for q in self.queues.iter_mut() {
            q.retain(|w| {
                let drop = matches!(w.target, Target::Batch { b: x, .. } if x == b);
                if drop {
                    self.canc[w.kind] += 1;
                }
                !drop
            });
        }
        for t in self.tasks.iter_mut() {
            if matches!(t.cont, Cont::Emit { b: x, .. } if x == b) {
                t.cont = Cont::None;
            }
        }
        let bb = &mut self.batches[b];
        for f in std::mem::take(&mut bb.fast) {
            self.ext_canc[fast_kind(f.delay)] += 1;
        }
        bb.alive = false;
        bb.recs.clear();
        bb.fast_pend.clear();
    }
}
