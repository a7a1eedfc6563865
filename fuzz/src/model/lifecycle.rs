//! Operations on runtimes: creation, destruction, frames, ticks, batches,
//! the worker thread, the frame allocator and bad runtime pointers.

use std::ptr;

use onity::ffi::*;

use super::sim::*;

/// Most runtimes one run creates (the churn operation aside) and keeps alive.
const MAX_RUNTIMES: usize = 24;
const MAX_ALIVE: usize = 4;

fn frame_info(frame: u64, dt: f64, udt: f64, realtime: f64) -> OnityFrameInfo {
    OnityFrameInfo {
        size: std::mem::size_of::<OnityFrameInfo>() as u32,
        reserved: 0,
        frame,
        delta_time: dt,
        unscaled_delta_time: udt,
        realtime,
    }
}

impl Sim<'_> {
    /// `onity_runtime_create` with a varied config (and, with `faults`, bad
    /// arguments); a new runtime gets a probe task (from_result, consumed),
    /// so each runtime has issued a handle.
    pub fn create_runtime(&mut self, faults: bool) {
        if self.made >= MAX_RUNTIMES || self.alive().len() >= MAX_ALIVE {
            return;
        }
        self.made += 1;
        let mut c = OnityRuntimeConfig::default();
        let size = std::mem::size_of::<OnityRuntimeConfig>() as u32;
        assert_eq!(onity_runtime_config_init(&mut c, size), S::Ok);
        c.task_capacity = self.inp.pick(&[1, 16, 4096]);
        c.cancel_capacity = self.inp.pick(&[1, 4, 256]);
        c.wait_capacity = self.inp.pick(&[1, 4, 8192]);
        c.combinator16_capacity = self.inp.pick(&[0, 1, 256]);
        c.combinator32_capacity = self.inp.pick(&[0, 1, 128]);
        c.frame_alloc_rewind_timing = self.inp.pick(&[0, 0, 8, ONITY_FRAME_ALLOC_REWIND_MANUAL]);
        c.frame_alloc_first_block_bytes = self.inp.pick(&[4096, 65536]);
        c.frame_alloc_chunk_bytes = self.inp.pick(&[64, 4096]);
        c.frame_alloc_max_bytes = self.inp.pick(&[0, 0, 1 << 20]);
        c.frame_alloc_poison = self.inp.below(2) as u32;
        let mut errs = Vec::new();
        let mut null_cfg = false;
        let mut null_out = false;
        if faults && self.inp.pct(25) {
            self.cov("bad runtime config");
            match self.inp.below(7) {
                0 => {
                    null_out = true;
                    errs.push(S::NullPointer);
                }
                1 => {
                    c.size = self.inp.pick(&[0, 8, size + 8]);
                    errs.push(S::SizeMismatch);
                }
                2 => {
                    c.frame_alloc_rewind_timing = self.inp.pick(&[17, 255, u32::MAX]);
                    errs.push(S::InvalidArgument);
                }
                3 => {
                    c.frame_alloc_prefault = 2;
                    errs.push(S::InvalidArgument);
                }
                4 => {
                    c.reserved = 1;
                    errs.push(S::InvalidArgument);
                }
                5 => {
                    c.frame_alloc_max_chunk_bytes = c.frame_alloc_chunk_bytes.max(64) - 1;
                    errs.push(S::InvalidArgument);
                }
                _ => null_cfg = true,
            }
        }
        let mut p: *mut OnityRuntime = ptr::null_mut();
        let out: *mut *mut OnityRuntime = if null_out { ptr::null_mut() } else { &mut p };
        let s = onity_runtime_create(if null_cfg { ptr::null() } else { &c }, out);
        self.check(s, &errs, "runtime_create");
        if s != S::Ok {
            return;
        }
        let d = OnityRuntimeConfig::default();
        let c = if null_cfg { d } else { c };
        let cfg = Cfg {
            task_cap: c.task_capacity,
            cancel_cap: c.cancel_capacity,
            wait_cap: c.wait_capacity,
            c16: c.combinator16_capacity,
            c32: c.combinator32_capacity,
            rewind: (c.frame_alloc_rewind_timing < 16).then_some(c.frame_alloc_rewind_timing as usize),
            max_bytes: c.frame_alloc_max_bytes,
        };
        self.add_runtime(p, cfg);
        self.cov("runtime created");
    }

    fn add_runtime(&mut self, p: *mut OnityRuntime, cfg: Cfg) -> usize {
        let r = self.rts.len();
        self.rts.push(Rt::new(p, cfg));
        set_rt_ptr(r, p);
        let mut h = 0;
        assert_eq!(onity_task_from_result(p, 1, &mut h), S::Ok, "{}", self.ctx());
        let i = self.add_task(r, h, Kind::FromResult, Some(Out::new(SUCCEEDED, 1, 0)));
        assert_eq!(onity_task_consume(p, h, ptr::null_mut()), S::Ok, "{}", self.ctx());
        self.retire(r, i);
        r
    }

    /// Destroys `r`: first from the worker (refused, nothing changes), or
    /// from the owner with everything in flight.
    pub fn op_destroy(&mut self, r: usize) {
        let p = self.rts[r].p as usize;
        if self.inp.pct(20) {
            let s = self.worker.call(move || onity_runtime_destroy(p as *mut OnityRuntime));
            self.check(s, &[S::WrongThread], "destroy on the worker");
            return;
        }
        self.destroy(r);
    }

    pub fn destroy(&mut self, r: usize) {
        self.check_frame_memory(r);
        self.m_close(r);
        set_closing(r, true);
        let s = onity_runtime_destroy(self.rts[r].p);
        set_closing(r, false);
        self.check(s, &[], "runtime_destroy");
        set_rt_ptr(r, ptr::null_mut());
        self.cov("runtime destroyed");
    }

    /// Creates and destroys `n` small runtimes in a row: the process has
    /// made 255 more runtimes by the next creation (issue 17 #1).
    pub fn op_churn(&mut self) {
        if !self.inp.pct(10) || self.churns >= 1 {
            return;
        }
        self.churns += 1;
        let n = self.inp.pick(&[1usize, 16, 254, 255]);
        self.cov("runtime churn");
        let mut c = OnityRuntimeConfig::default();
        assert_eq!(onity_runtime_config_init(&mut c, std::mem::size_of::<OnityRuntimeConfig>() as u32), S::Ok);
        c.task_capacity = 1;
        c.cancel_capacity = 1;
        c.wait_capacity = 1;
        c.combinator16_capacity = 0;
        c.combinator32_capacity = 0;
        let cfg = Cfg { task_cap: 1, cancel_cap: 1, wait_cap: 1, c16: 0, c32: 0, rewind: Some(0), max_bytes: 0 };
        for _ in 0..n {
            let mut p = ptr::null_mut();
            let s = onity_runtime_create(&c, &mut p);
            self.check(s, &[], "runtime_create (churn)");
            let r = self.add_runtime(p, cfg);
            let mut src = 0;
            assert_eq!(onity_cancel_source_create(p, &mut src), S::Ok);
            self.add_source(r, src);
            self.m_close(r);
            self.check(onity_runtime_destroy(p), &[], "runtime_destroy (churn)");
            set_rt_ptr(r, ptr::null_mut());
        }
    }

    pub fn op_frame_begin(&mut self, r: usize) {
        let rt = &self.rts[r];
        let next = if rt.fnum == 0 {
            self.inp.pick(&[0, 1, 5, 1000])
        } else {
            rt.host + if self.inp.pct(85) { 1 } else { 2 + self.inp.below(3) }
        };
        let mut fi = self.gen_frame_info(r, next);
        let mut errs = Vec::new();
        let mut null = false;
        if self.inp.pct(12) {
            self.cov("bad frame");
            match self.inp.below(6) {
                0 => {
                    null = true;
                    errs.push(S::NullPointer);
                }
                1 => {
                    fi.size -= 8;
                    errs.push(S::SizeMismatch);
                }
                2 => {
                    fi.delta_time = self.inp.pick(&[-0.25, f64::NAN, f64::INFINITY]);
                    errs.push(S::InvalidArgument);
                }
                3 => {
                    fi.unscaled_delta_time = self.inp.pick(&[-1.0, f64::NAN, f64::NEG_INFINITY]);
                    errs.push(S::InvalidArgument);
                }
                4 if self.rts[r].fnum != 0 => {
                    fi.frame = self.rts[r].host - self.inp.below(2).min(self.rts[r].host);
                    errs.push(S::FrameOrder);
                }
                _ => {
                    fi.frame = (1 << 59) + self.inp.below(3);
                    errs.push(S::InvalidArgument);
                }
            }
        }
        let s = onity_runtime_frame_begin(self.rts[r].p, if null { ptr::null() } else { &fi });
        self.check(s, &errs, "frame_begin");
        if s == S::Ok {
            self.m_frame(r, &fi);
        }
    }

    fn gen_frame_info(&mut self, r: usize, frame: u64) -> OnityFrameInfo {
        let dt = self.inp.pick(&[0.0, 0.25, 0.5]);
        let udt = self.inp.pick(&[0.0, 0.25, 0.5, 1.0]);
        let realtime = self.rts[r].clocks[2] + self.inp.pick(&[0.0, 0.25, 0.5, 1.0]);
        frame_info(frame, dt, udt, realtime)
    }

    fn m_frame(&mut self, r: usize, fi: &OnityFrameInfo) {
        let rt = &mut self.rts[r];
        if rt.fnum == 0 {
            // Waits made before the first frame count from the frame before it.
            for q in rt.queues.iter_mut() {
                for w in q.iter_mut() {
                    if w.kind != 0 {
                        w.due_frame += fi.frame;
                    }
                    if w.kind == 3 && w.clock == 2 {
                        w.due_time += fi.realtime;
                    }
                }
            }
        }
        rt.host = fi.frame;
        rt.fnum = fi.frame + 1;
        rt.clocks[0] += fi.delta_time;
        rt.clocks[1] += fi.unscaled_delta_time;
        rt.clocks[2] = fi.realtime;
    }

    pub fn op_tick(&mut self, r: usize) {
        if self.inp.pct(30) {
            // A whole frame: begin, then every timing (or some) in order.
            let next = if self.rts[r].fnum == 0 { 0 } else { self.rts[r].host + 1 };
            let fi = self.gen_frame_info(r, next);
            let s = onity_runtime_frame_begin(self.rts[r].p, &fi);
            self.check(s, &[], "frame_begin (frame)");
            self.m_frame(r, &fi);
            let all = self.inp.pct(50);
            for t in 0..16u32 {
                if all || self.inp.pct(50) {
                    let s = onity_runtime_tick(self.rts[r].p, t);
                    self.check(s, &[], "tick (frame)");
                    self.m_tick(r, t as usize);
                }
            }
            return;
        }
        let (t, ok) = self.gen_timing();
        let s = onity_runtime_tick(self.rts[r].p, t);
        self.check(s, if ok { &[] } else { &[S::InvalidArgument] }, "tick");
        if ok {
            self.m_tick(r, t as usize);
        }
    }

    pub fn op_drain(&mut self, r: usize) {
        let s = onity_runtime_drain(self.rts[r].p);
        self.check(s, &[], "drain");
        self.m_drain(r);
    }

    /// Batches without records: create, flush, tick (= a tick), drain
    /// (= a drain), destroy, with batches of other runtimes, destroyed,
    /// fake and null batch pointers.
    pub fn op_batch(&mut self, r: usize) {
        let p = self.rts[r].p;
        if self.inp.pct(25) {
            let cap = self.inp.pick(&[1u32, 4, 0, (1 << 20) + 1]);
            let null = self.inp.pct(4);
            let mut b: *mut OnityBatch = ptr::null_mut();
            let out: *mut *mut OnityBatch = if null { ptr::null_mut() } else { &mut b };
            let s = onity_batch_create(p, cap, out);
            let mut errs = Vec::new();
            if null {
                errs.push(S::NullPointer);
            }
            if cap == 0 || cap > 1 << 20 {
                errs.push(S::CountOutOfRange);
            }
            self.check(s, &errs, "batch_create");
            if s == S::Ok {
                self.rts[r].batches.push((b, true));
            }
            return;
        }
        let mut fake = [0u64; 16];
        let (b, live) = self.gen_batch(r, fake.as_mut_ptr() as *mut OnityBatch);
        let bad = if b.is_null() { S::NullPointer } else { S::InvalidHandle };
        let which = self.inp.below(4);
        let (s, what) = match which {
            0 => (onity_batch_flush(p, b), "batch_flush"),
            1 => (onity_batch_drain(p, b), "batch_drain"),
            2 => (onity_batch_destroy(p, b), "batch_destroy"),
            _ => {
                let (t, ok) = self.gen_timing();
                let s = onity_batch_tick(p, b, t);
                let want: &[S] = if !live {
                    &[bad]
                } else if !ok {
                    &[S::InvalidArgument]
                } else {
                    &[]
                };
                self.check(s, want, "batch_tick");
                if s == S::Ok {
                    self.m_tick(r, t as usize);
                    // SAFETY: a live batch of this runtime, between calls.
                    let (n, f) = unsafe { ((*b).resumed_count, (*b).fast_resumed_count) };
                    assert_eq!((n, f), (0, 0), "{}: an empty batch reported resumptions", self.ctx());
                }
                return;
            }
        };
        let want = if live { vec![] } else { vec![bad] };
        self.check(s, &want, what);
        if s == S::Ok {
            match which {
                1 => self.m_drain(r),
                2 => {
                    for e in self.rts[r].batches.iter_mut().filter(|e| e.0 == b) {
                        e.1 = false;
                    }
                }
                _ => {}
            }
        }
    }

    /// A batch pointer for `r`, and whether it is one of `r`'s live batches.
    fn gen_batch(&mut self, r: usize, fake: *mut OnityBatch) -> (*mut OnityBatch, bool) {
        let own: Vec<*mut OnityBatch> = self.rts[r].batches.iter().filter(|b| b.1).map(|b| b.0).collect();
        let b = match self.inp.below(10) {
            0..=6 if !own.is_empty() => self.inp.pick(&own),
            7 => {
                let others: Vec<*mut OnityBatch> = self
                    .alive()
                    .into_iter()
                    .flat_map(|x| self.rts[x].batches.iter().filter(|b| b.1).map(|b| b.0).collect::<Vec<_>>())
                    .collect();
                if others.is_empty() {
                    fake
                } else {
                    self.inp.pick(&others)
                }
            }
            // A destroyed batch: compared by address only, never read.
            8 => self.rts[r].batches.iter().find(|b| !b.1).map_or(ptr::null_mut(), |b| b.0),
            9 => ptr::null_mut(),
            _ => fake,
        };
        (b, own.contains(&b))
    }
}
