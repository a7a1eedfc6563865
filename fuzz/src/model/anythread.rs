//! Calls from the worker thread, the frame allocator (any thread) and bad
//! runtime pointers.

use std::ffi::c_void;
use std::ptr;

use onity::ffi::*;

use super::sim::*;

/// Most frame-allocator bytes a runtime keeps live in the model.
const MAX_LIVE_FRAME_BYTES: usize = 1 << 20;

/// A sentinel written to `*out_ptr` before a call that must overwrite it.
const SENTINEL: usize = 0x10;

#[repr(C, align(64))]
struct Page([u8; 4096]);

impl Sim<'_> {
    pub fn op_worker(&mut self, r: usize) {
        let p = self.rts[r].p as usize;
        match self.inp.below(6) {
            0 | 1 => {
                let which = self.inp.below(3) as u32;
                let (h, c) = self.gen_task(r);
                let (v, e, o) = self.outcome_for(which);
                let s = self.worker.call(move || {
                    let rt = p as *mut OnityRuntime;
                    match which {
                        0 => onity_task_set_result(rt, h, v),
                        1 => onity_task_set_error(rt, h, e),
                        _ => onity_task_cancel(rt, h),
                    }
                });
                let errs = self.expect_complete(r, which, &c, false);
                self.check(s, &errs, "complete (worker)");
                if s == S::Ok {
                    let i = c.unwrap();
                    self.cov("completion on the worker");
                    let rt = &mut self.rts[r];
                    rt.tasks[i].out = Some(o);
                    rt.tasks[i].queued = true;
                    rt.queued.push(i);
                }
            }
            2 => {
                let (h, c) = self.gen_task(r);
                let (sh, sc) = self.gen_source(r);
                let cancel = self.inp.pct(50);
                let (s1, st, s2, s3, v) = self.worker.call(move || {
                    let rt = p as *mut OnityRuntime;
                    let mut st = 0;
                    let s1 = onity_task_state(rt, h, &mut st);
                    let s2 = if cancel { onity_cancel_source_cancel(rt, sh) } else { S::Ok };
                    let mut v = 0;
                    let s3 = onity_cancel_source_is_canceled(rt, sh, &mut v);
                    (s1, st, s2, s3, v)
                });
                self.check(s1, &c.clone().err().unwrap_or_default(), "task_state (worker)");
                if let Ok(i) = c {
                    assert_eq!(st, self.rts[r].tasks[i].out.map_or(0, |o| o.state), "{}: state", self.ctx());
                }
                let errs = sc.clone().err().unwrap_or_default();
                if cancel {
                    self.check(s2, &errs, "source_cancel (worker)");
                    if let Ok(i) = sc {
                        self.m_cancel_source(r, i);
                    }
                }
                self.check(s3, &errs, "is_canceled (worker)");
                if let Ok(i) = sc {
                    assert_eq!(v, self.rts[r].sources[i].canceled as u32, "{}: is_canceled", self.ctx());
                }
            }
            3 => self.op_frame_alloc(r, true),
            _ => {
                let f = self.inp.below(20);
                let h = self.gen_task(r).0;
                let src = self.gen_source(r).0;
                let bp = self.rts[r].batches.iter().find(|b| b.1).map_or(0, |b| b.0 as usize);
                let s = self.worker.call(move || owner_only_call(p as *mut OnityRuntime, f, h, src, bp));
                self.cov("owner-only call on the worker");
                assert_eq!(s, S::WrongThread, "{}: owner-only function {f} on the worker", self.ctx());
            }
        }
    }

    /// `onity_frame_alloc` on the owner or the worker, with at most one bad
    /// argument. The memory is filled with a pattern checked at each rewind.
    pub fn op_frame_alloc(&mut self, r: usize, on_worker: bool) {
        let mut size: u64 = self.inp.pick(&[1, 8, 24, 100, 1000, 4096, 4096, 65536]);
        let mut align: u32 = self.inp.pick(&[1, 8, 16, 64, 4096]);
        let mut lifetime = self.inp.below(2) as u32;
        let mut null = false;
        let mut errs = Vec::new();
        let mut refused_by_allocator = false;
        if self.inp.pct(15) {
            self.cov("bad frame_alloc argument");
            match self.inp.below(5) {
                0 => {
                    null = true;
                    errs.push(S::NullPointer);
                }
                1 => {
                    lifetime = self.inp.pick(&[2, 99, u32::MAX]);
                    errs.push(S::InvalidArgument);
                }
                2 => {
                    align = self.inp.pick(&[0, 3, 6, 8192]);
                    errs.push(S::InvalidAlignment);
                    refused_by_allocator = true;
                }
                3 => {
                    size = 0;
                    errs.push(S::InvalidArgument);
                    refused_by_allocator = true;
                }
                _ => {
                    size = self.inp.pick(&[u64::MAX, 1 << 63]);
                    errs.push(S::CountOutOfRange);
                    refused_by_allocator = true;
                }
            }
        } else {
            let live: usize = self.rts[r].fa.live.iter().map(|a| a.size).sum();
            if live + size as usize > MAX_LIVE_FRAME_BYTES {
                return;
            }
            if self.rts[r].cfg.max_bytes != 0 {
                errs = vec![S::Ok, S::Exhausted];
            }
        }
        let pattern = self.inp.byte() | 1;
        let p = self.rts[r].p as usize;
        let call = move || {
            let mut out = SENTINEL as *mut c_void;
            let o: *mut *mut c_void = if null { ptr::null_mut() } else { &mut out };
            let s = onity_frame_alloc(p as *mut OnityRuntime, size, align, lifetime, o);
            if s == S::Ok && !out.is_null() {
                // SAFETY: a fresh allocation of `size` bytes.
                unsafe { ptr::write_bytes(out as *mut u8, pattern, size as usize) };
            }
            (s, out as usize)
        };
        let (s, out) = if on_worker { self.worker.call(call) } else { call() };
        self.check(s, &errs, if on_worker { "frame_alloc (worker)" } else { "frame_alloc" });
        let fa = &mut self.rts[r].fa;
        if s != S::Ok {
            if !null {
                assert_eq!(out, 0, "{}: frame_alloc left *out_ptr set on error", self.ctx());
            }
            if refused_by_allocator || s == S::Exhausted {
                fa.failed += 1;
            }
            return;
        }
        assert!(out != 0 && out % align as usize == 0, "{}: frame_alloc returned {out:#x} (align {align})", self.ctx());
        let lifetime_frames = if lifetime == 0 { 1 } else { 2 };
        fa.allocations += 1;
        fa.live.push(Alloc { p: out, size: size as usize, pattern, expires: fa.rewinds + lifetime_frames });
        self.cov(if on_worker { "frame_alloc ok (worker)" } else { "frame_alloc ok" });
    }

    pub fn op_rewind(&mut self, r: usize) {
        let p = self.rts[r].p as usize;
        if self.inp.pct(20) {
            let s = self.worker.call(move || onity_frame_alloc_rewind(p as *mut OnityRuntime));
            self.check(s, &[S::WrongThread], "frame_alloc_rewind (worker)");
            return;
        }
        let s = onity_frame_alloc_rewind(self.rts[r].p);
        self.check(s, &[], "frame_alloc_rewind");
        self.fa_rewind(r);
    }

    /// A function taking a runtime, called with a pointer that is not a
    /// live runtime: null, a zeroed or misaligned buffer, and with issue 17
    /// #7 on, a destroyed runtime, a byte copy of a live one, an unmapped
    /// address.
    pub fn op_bad_runtime(&mut self) {
        let mut page = Box::new(Page([0; 4096]));
        let base = page.0.as_mut_ptr();
        let kind = self.inp.below(6);
        let alive: Vec<*mut OnityRuntime> = self.alive().iter().map(|&r| self.rts[r].p).collect();
        let p: *mut OnityRuntime = match kind {
            0 => ptr::null_mut(),
            1 => base as *mut OnityRuntime,
            2 => base.wrapping_add(1 + self.inp.below(7) as usize) as *mut OnityRuntime,
            3 => match self.rts.iter().rev().map(|r| r.p).find(|p| !alive.contains(p)) {
                Some(p) => p,
                None => return,
            },
            4 => {
                let src = self.inp.pick(&alive);
                // SAFETY: a runtime pointer designates 64 readable bytes (a table cell).
                unsafe { ptr::copy_nonoverlapping(src as *const u8, base, 64) };
                base as *mut OnityRuntime
            }
            _ => 0x8000 as *mut OnityRuntime,
        };
        if kind >= 3 && !self.strict.bad_runtime_pointers {
            // Today these read through the pointer (undefined behaviour).
            self.cov("bad runtime pointer not tried (issue 17 #7 off)");
            return;
        }
        self.cov(match kind {
            0 => "null runtime",
            1 | 2 => "zeroed or misaligned runtime",
            3 => "destroyed runtime (issue 17 #7)",
            4 => "copied runtime (issue 17 #7)",
            _ => "unmapped runtime (issue 17 #7)",
        });
        let want = if p.is_null() { S::NullPointer } else { S::InvalidRuntime };
        let f = self.inp.below(15);
        let mut out = SENTINEL as *mut c_void;
        let s = if f == 14 { onity_frame_alloc(p, 16, 8, 0, &mut out) } else { owner_only_call(p, f, 1, 1, 0) };
        assert_eq!(s, want, "{}: function {f} with runtime pointer kind {kind}", self.ctx());
        if f == 14 {
            if self.strict.frame_alloc_out_null {
                assert!(out.is_null(), "{}: issue 17 #3: frame_alloc left *out_ptr set", self.ctx());
            } else if !out.is_null() {
                self.cov("frame_alloc left *out_ptr unchanged (issue 17 #3)");
            }
        }
        drop(page);
    }
}

/// Owner-thread functions, with arguments valid apart from the runtime or
/// the thread (`f` picks one; `h`: a task, `src`: a source, `bp`: a batch).
fn owner_only_call(rt: *mut OnityRuntime, f: u64, h: u64, src: u64, bp: usize) -> S {
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
            // SAFETY: OnityStats is plain data; all-zero is a valid value.
            let mut st: OnityStats = unsafe { std::mem::zeroed() };
            st.size = std::mem::size_of::<OnityStats>() as u32;
            onity_runtime_stats(rt, &mut st)
        }
        9 => onity_runtime_live_tasks(rt, ptr::null_mut(), 0, &mut n),
        10 => onity_cancel_source_create(rt, &mut out),
        11 => onity_runtime_frame_begin(rt, &fi),
        12 => onity_runtime_destroy(rt),
        13 => onity_frame_alloc_rewind(rt),
        14 => onity_cancel_source_destroy(rt, src),
        15 => onity_when_all_results(rt, h, o.as_mut_ptr(), 1),
        16 => onity_task_from_result(rt, 3, &mut out),
        17 => onity_delay(rt, 1.0, 0, 8, 0, &mut out),
        18 if bp != 0 => onity_batch_tick(rt, bp as *mut OnityBatch, 8),
        _ => {
            let mut b = ptr::null_mut();
            onity_batch_create(rt, 4, &mut b)
        }
    }
}
