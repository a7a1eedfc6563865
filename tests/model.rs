//! Model-based randomized test of the C ABI.
//!
//! A deterministic PRNG (splitmix64, fixed seeds) drives random operations
//! through the exported `extern "C"` functions: tasks, completions (on the
//! owner and on other threads), continuations, frame waits in both forms,
//! WhenAny / WhenAll, cancellation sources, frames and ticks, batches (both
//! lanes), statistics, invalid arguments and null out-parameters, and ends
//! with `onity_runtime_destroy` while work is in flight. A small reference
//! model predicts every status, every continuation and callback (which run,
//! with which state, in which order), every batch resumption and the pool
//! statistics; any divergence fails with the seed and step.
//!
//! The model follows the documented rules (README "Semantics" and the
//! comments of `include/onity.h`). Where the documentation leaves the choice
//! between several errors open (several faults in one call), the model
//! accepts any of the applicable statuses.
//!
//! Defaults: seeds 0..200, 600 operations each (about 2.5 s in debug).
//! `ONITY_MODEL_SEEDS`, `ONITY_MODEL_STEPS` and `ONITY_MODEL_FIRST_SEED`
//! change that for longer exploratory runs. A failure names its seed and
//! step; rerun with `ONITY_MODEL_FIRST_SEED=<seed> ONITY_MODEL_SEEDS=1`.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::ffi::c_void;
use std::ptr;

use onity::ffi::*;

mod support;

type S = OnityStatus;

// ---- PRNG ----------------------------------------------------------------

use support::Rng;

// ---- what the callbacks record ------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
enum Ev {
    /// A continuation (`onity_task_on_complete`) ran.
    Cont { id: u64, task: u64, state: u32 },
    /// ... and consumed its task from inside.
    Consumed { id: u64, status: u32, value: u64, error: i32, state: u32, index: u32 },
    /// ... or called another function from inside (`what`: its flag).
    Act { id: u64, what: u64, status: u32 },
    /// A callback wait (`onity_*_then`) ran.
    Cb { id: u64, task: u64, state: u32 },
}

thread_local! {
    static LOG: RefCell<Vec<Ev>> = const { RefCell::new(Vec::new()) };
    static RT: Cell<*mut OnityRuntime> = const { Cell::new(ptr::null_mut()) };
}

const F_CONSUME: u64 = 1;
const F_DESTROY: u64 = 2;
const F_TICK: u64 = 4;
const F_YIELD: u64 = 8;
const F_CANCEL_SRC: u64 = 16;
const F_DESTROY_SRC: u64 = 32;
const F_DRAIN: u64 = 64;
/// Id of the Yield a callback schedules (its own id with this bit).
const YIELD_BIT: u64 = 1 << 40;

thread_local! {
    /// The cancellation source a callback cancels / destroys, by callback id.
    static SRC_OF: RefCell<HashMap<u64, u64>> = RefCell::new(HashMap::new());
}

fn user_of(id: u64, flags: u64, timing: u32) -> *mut c_void {
    (id << 16 | (timing as u64) << 8 | flags) as *mut c_void
}

fn log(e: Ev) {
    LOG.with(|l| l.borrow_mut().push(e));
}

/// What a continuation or callback does besides logging, by its flags.
unsafe fn act(u: u64, task: u64) {
    let id = u >> 16;
    let timing = ((u >> 8) & 0xff) as u32;
    let rt = RT.with(|r| r.get());
    if u & F_CONSUME != 0 {
        let mut o = OnityOutcome { value: 0xdead, error: -99, state: 99, index: 7, reserved: 0 };
        let s = onity_task_consume(rt, task, &mut o);
        log(Ev::Consumed { id, status: s as u32, value: o.value, error: o.error, state: o.state, index: o.index });
    }
    if u & F_DESTROY != 0 {
        let s = onity_runtime_destroy(rt);
        log(Ev::Act { id, what: F_DESTROY, status: s as u32 });
    }
    if u & F_TICK != 0 {
        let s = onity_runtime_tick(rt, timing);
        log(Ev::Act { id, what: F_TICK, status: s as u32 });
    }
    if u & F_DRAIN != 0 {
        let s = onity_runtime_drain(rt);
        log(Ev::Act { id, what: F_DRAIN, status: s as u32 });
    }
    if u & F_YIELD != 0 {
        let s = onity_yield_then(rt, timing, 0, Some(wait_cb), user_of(id | YIELD_BIT, 0, 0));
        log(Ev::Act { id, what: F_YIELD, status: s as u32 });
    }
    let src = SRC_OF.with(|m| m.borrow().get(&id).copied().unwrap_or(0));
    if u & F_CANCEL_SRC != 0 {
        let s = onity_cancel_source_cancel(rt, src);
        log(Ev::Act { id, what: F_CANCEL_SRC, status: s as u32 });
    }
    if u & F_DESTROY_SRC != 0 {
        let s = onity_cancel_source_destroy(rt, src);
        log(Ev::Act { id, what: F_DESTROY_SRC, status: s as u32 });
    }
}

unsafe extern "C" fn cont_cb(user: *mut c_void, task: u64, state: u32) {
    let u = user as u64;
    log(Ev::Cont { id: u >> 16, task, state });
    act(u, task);
}

unsafe extern "C" fn wait_cb(user: *mut c_void, task: u64, state: u32) {
    let u = user as u64;
    log(Ev::Cb { id: u >> 16, task, state });
    act(u & !F_CONSUME, task);
}

fn take_log() -> Vec<Ev> {
    LOG.with(|l| std::mem::take(&mut *l.borrow_mut()))
}

// ---- the model -----------------------------------------------------------

const NOIDX: u32 = u32::MAX;
const SUCCEEDED: u32 = 1;
const FAULTED: u32 = 2;
const CANCELED: u32 = 3;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Out {
    state: u32,
    value: u64,
    error: i32,
    index: u32,
}

impl Out {
    fn new(state: u32, value: u64, error: i32) -> Out {
        Out { state, value, error, index: NOIDX }
    }
}

/// A continuation's or callback's id and what it does (see `act`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Act {
    id: u64,
    flags: u64,
    timing: u32,
    src: u64,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Cont {
    None,
    User(Act),
    Emit { b: usize, id: u64 },
    Fired,
    Comb { c: usize, i: usize },
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Manual,
    FromResult,
    Wait,
    Any(usize),
    All(usize),
}

struct Task {
    h: u64,
    kind: Kind,
    out: Option<Out>,
    cont: Cont,
    retired: bool,
    /// Completed on another thread; the owner has not drained it yet.
    queued: bool,
}

struct Source {
    h: u64,
    canceled: bool,
    destroyed: bool,
}

#[derive(Clone, Copy, Debug)]
enum Target {
    Task(usize),
    Cb(Act),
    Batch { b: usize, id: u64 },
}

#[derive(Clone, Copy, Debug)]
struct Wait {
    target: Target,
    kind: usize,
    due_frame: u64,
    due_time: f64,
    clock: usize,
    token: Option<usize>,
}

struct Comb {
    any: bool,
    out: usize,
    n: usize,
    outcomes: Vec<Option<Out>>,
    remaining: usize,
    done: bool,
    out_released: bool,
    first_fail: Option<usize>,
    token: Option<usize>,
    bucket: usize,
    alive: bool,
}

struct Fast {
    id: u32,
    timing: usize,
    delay: u64,
    due: u64,
    seq: u64,
}

struct Batch {
    p: *mut OnityBatch,
    alive: bool,
    recs: Vec<OnityBatchRecord>,
    fast_pend: Vec<u64>,
    resumed: Vec<(u64, u32, u32)>,
    mark: usize,
    fast: Vec<Fast>,
    seq: u64,
    last_fast: Vec<u32>,
}

fn fast_kind(delay: u64) -> usize {
    match delay {
        0 => 0,
        1 => 1,
        _ => 2,
    }
}

const MAX_SLOTS: u64 = 1 << 22;

struct Sim {
    rng: Rng,
    seed: u64,
    step: usize,
    op: &'static str,
    rt: *mut OnityRuntime,
    other: *mut OnityRuntime,
    foreign_task: u64,
    foreign_src: u64,
    cfg: OnityRuntimeConfig,

    tasks: Vec<Task>,
    by_h: HashMap<u64, usize>,
    sources: Vec<Source>,
    queues: Vec<Vec<Wait>>,
    combs: Vec<Comb>,
    batches: Vec<Batch>,
    queued: Vec<usize>,
    fnum: u64,
    host: u64,
    clocks: [f64; 3],
    sched: [u64; 4],
    done: [u64; 4],
    canc: [u64; 4],
    ext_sched: [u64; 4],
    ext_done: [u64; 4],
    ext_canc: [u64; 4],
    expect: Vec<Ev>,
    relaxed: bool,
    ticking: bool,
    closing: bool,
    /// The runtime's list of combinators watching a token, in its order.
    watches: Vec<usize>,
    next_id: u64,
    fired: HashMap<u64, u32>,
    registered: Vec<u64>,
    /// Fault counts, to show what the run covered.
    cover: HashMap<&'static str, u64>,
}

fn status_in(got: S, errs: &[S]) -> bool {
    if errs.is_empty() {
        got == S::Ok
    } else {
        errs.contains(&got)
    }
}

impl Sim {
    fn new(seed: u64) -> Sim {
        let mut rng = Rng(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ 0x1234_5678);
        let mut cfg = OnityRuntimeConfig::default();
        assert_eq!(onity_runtime_config_init(&mut cfg, std::mem::size_of::<OnityRuntimeConfig>() as u32), S::Ok);
        cfg.task_capacity = rng.pick(&[1, 16, 4096]);
        cfg.cancel_capacity = rng.pick(&[1, 4, 256]);
        cfg.wait_capacity = rng.pick(&[1, 4, 8192]);
        cfg.combinator16_capacity = rng.pick(&[0, 1, 256]);
        cfg.combinator32_capacity = rng.pick(&[0, 1, 128]);
        let mut rt = ptr::null_mut();
        assert_eq!(onity_runtime_create(&cfg, &mut rt), S::Ok);
        let mut other = ptr::null_mut();
        assert_eq!(onity_runtime_create(ptr::null(), &mut other), S::Ok);
        let (mut ft, mut fs) = (0, 0);
        assert_eq!(onity_task_create(other, &mut ft), S::Ok);
        assert_eq!(onity_cancel_source_create(other, &mut fs), S::Ok);
        RT.with(|r| r.set(rt));
        take_log();
        Sim {
            rng,
            seed,
            step: 0,
            op: "",
            rt,
            other,
            foreign_task: ft,
            foreign_src: fs,
            cfg,
            tasks: Vec::new(),
            by_h: HashMap::new(),
            sources: Vec::new(),
            queues: (0..16).map(|_| Vec::new()).collect(),
            combs: Vec::new(),
            batches: Vec::new(),
            queued: Vec::new(),
            fnum: 0,
            host: 0,
            clocks: [0.0; 3],
            sched: [0; 4],
            done: [0; 4],
            canc: [0; 4],
            ext_sched: [0; 4],
            ext_done: [0; 4],
            ext_canc: [0; 4],
            expect: Vec::new(),
            relaxed: false,
            ticking: false,
            closing: false,
            watches: Vec::new(),
            next_id: 1,
            fired: HashMap::new(),
            registered: Vec::new(),
            cover: HashMap::new(),
        }
    }

    fn ctx(&self) -> String {
        format!("seed {} step {} op {}", self.seed, self.step, self.op)
    }

    fn cov(&mut self, what: &'static str) {
        *self.cover.entry(what).or_default() += 1;
    }

    fn check(&self, got: S, errs: &[S], what: &str) {
        assert!(status_in(got, errs), "{}: {what}: got {got:?}, expected one of {errs:?} (empty = Ok)", self.ctx());
    }

    fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    // ---- model primitives ---------------------------------------------

    fn add_task(&mut self, h: u64, kind: Kind, out: Option<Out>) -> usize {
        assert_ne!(h, 0, "{}", self.ctx());
        assert!(!self.by_h.contains_key(&h), "{}: handle {h:#x} issued twice", self.ctx());
        self.tasks.push(Task { h, kind, out, cont: Cont::None, retired: false, queued: false });
        self.by_h.insert(h, self.tasks.len() - 1);
        self.tasks.len() - 1
    }

    fn tok(&self, t: Option<usize>) -> bool {
        t.is_some_and(|s| self.sources[s].canceled)
    }

    fn complete(&mut self, i: usize, o: Out) -> bool {
        let t = &mut self.tasks[i];
        if t.retired || t.out.is_some() {
            return false;
        }
        t.out = Some(o);
        self.dispatch(i);
        true
    }

    fn dispatch(&mut self, i: usize) {
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

    fn retire(&mut self, i: usize) {
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

    fn free_comb(&mut self, c: usize) {
        assert!(self.combs[c].alive, "{}: combinator freed twice", self.ctx());
        self.combs[c].alive = false;
    }

    fn on_input(&mut self, c: usize, k: usize, o: Out) {
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
    fn poll(&mut self) {
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
    fn cancel_combinators(&mut self) {
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

    fn unwatch(&mut self, c: usize) {
        if let Some(pos) = self.watches.iter().position(|&x| x == c) {
            self.watches.swap_remove(pos);
        }
    }

    fn drain_queued(&mut self) {
        for i in std::mem::take(&mut self.queued) {
            self.tasks[i].queued = false;
            if !self.tasks[i].retired {
                self.dispatch(i);
            }
        }
    }

    fn run_queue(&mut self, t: usize, cancel_all: bool) {
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

    fn m_tick(&mut self, t: usize) {
        assert!(!self.ticking);
        self.ticking = true;
        self.drain_queued();
        self.poll();
        self.run_queue(t, false);
        self.ticking = false;
    }

    /// The model of `act`.
    fn m_act(&mut self, a: Act, task: Option<usize>) {
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

    fn classify_source(&self, h: u64) -> Result<usize, S> {
        match self.classify_token(h) {
            Ok(None) => Err(S::InvalidHandle),
            Ok(Some(i)) => Ok(i),
            Err(e) => Err(e),
        }
    }

    /// Random actions for a new continuation or callback.
    fn gen_act(&mut self, id: u64, consume: bool) -> Act {
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

    fn m_drain(&mut self) {
        self.drain_queued();
        self.poll();
    }

    #[allow(clippy::too_many_arguments)]
    fn m_sched(
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

    // ---- handle generators ----------------------------------------------

    fn live_tasks_where(&self, f: impl Fn(&Task) -> bool) -> Vec<usize> {
        (0..self.tasks.len()).filter(|&i| !self.tasks[i].retired && f(&self.tasks[i])).collect()
    }

    /// A task handle and what the runtime should make of it.
    fn gen_task(&mut self) -> (u64, Result<usize, S>) {
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

    fn gen_source(&mut self) -> (u64, Result<usize, S>) {
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
    fn gen_token(&mut self) -> (u64, Result<Option<usize>, S>) {
        if self.rng.pct(50) {
            return (0, Ok(None));
        }
        let (h, r) = self.gen_source();
        if h == 0 {
            return (0, Ok(None));
        }
        (h, r.map(Some))
    }

    fn gen_timing(&mut self) -> (u32, bool) {
        if self.rng.pct(6) {
            self.cov("bad timing");
            (self.rng.pick(&[16, 17, 255, u32::MAX]), false)
        } else if self.rng.pct(60) {
            (self.rng.pick(&[0, 4, 8, 13]), true)
        } else {
            (self.rng.below(16) as u32, true)
        }
    }

    fn out_ptr<T>(&mut self, v: &mut T, null_pct: u64) -> *mut T {
        if self.rng.pct(null_pct) {
            self.cov("null out");
            ptr::null_mut()
        } else {
            v
        }
    }

    // ---- operations ------------------------------------------------------

    fn op_create(&mut self) {
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
    fn expect_complete(&self, which: u32, r: Result<usize, S>, owner: bool) -> Vec<S> {
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

    fn outcome_for(&mut self, which: u32) -> (u64, i32, Out) {
        let v = self.rng.next();
        let e = self.rng.next() as i32;
        match which {
            0 => (v, e, Out::new(SUCCEEDED, v, 0)),
            1 => (v, e, Out::new(FAULTED, 0, e)),
            _ => (v, e, Out::new(CANCELED, 0, 0)),
        }
    }

    fn op_complete(&mut self) {
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

    fn op_state(&mut self) {
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

    fn expect_consume(&self, r: Result<usize, S>) -> Result<usize, S> {
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

    fn op_consume(&mut self) {
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

    fn op_on_complete(&mut self) {
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

    fn op_wait(&mut self) {
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
    fn fresh_manual(&mut self) -> usize {
        let mut h = 0;
        assert_eq!(onity_task_create(self.rt, &mut h), S::Ok, "{}", self.ctx());
        self.add_task(h, Kind::Manual, None)
    }

    fn op_when(&mut self) {
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

    fn op_when_all_results(&mut self) {
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

    fn op_source(&mut self) {
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

    fn frame_info(&mut self, frame: u64) -> OnityFrameInfo {
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

    fn op_frame_begin(&mut self) {
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

    fn m_frame(&mut self, fi: &OnityFrameInfo) {
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

    fn op_tick(&mut self) {
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

    fn op_drain(&mut self) {
        self.m_file_all();
        let s = onity_runtime_drain(self.rt);
        self.check(s, &[], "drain");
        self.m_drain();
    }

    fn op_stats(&mut self) {
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

    fn op_live_tasks(&mut self) {
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

    // ---- batches ----------------------------------------------------------

    fn live_batches(&self) -> Vec<usize> {
        (0..self.batches.len()).filter(|&b| self.batches[b].alive).collect()
    }

    /// A batch pointer: live, null, or not a batch (a stack address).
    fn gen_batch(&mut self, fake: *mut OnityBatch) -> (*mut OnityBatch, Result<usize, S>) {
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
    fn m_file(&mut self, b: usize) {
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

    fn m_file_all(&mut self) {
        for b in self.live_batches() {
            self.m_file(b);
        }
    }

    fn classify_unknown_task(&self, h: u64) -> S {
        if h == self.foreign_task {
            S::ForeignHandle
        } else {
            S::InvalidHandle
        }
    }

    fn classify_token(&self, h: u64) -> Result<Option<usize>, S> {
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

    fn op_batch(&mut self) {
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

    fn batch_write(&mut self) {
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

    fn m_compact(&mut self, b: usize) {
        let bb = &mut self.batches[b];
        let n = bb.mark.min(bb.resumed.len());
        bb.resumed.drain(..n);
        bb.mark = 0;
    }

    fn m_run_fast(&mut self, b: usize, t: usize) -> Vec<u32> {
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

    fn m_batch_destroy(&mut self, b: usize) {
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

    // ---- other threads ------------------------------------------------------

    fn op_thread(&mut self) {
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

    fn op_bad_runtime(&mut self) {
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

    fn verify(&mut self) {
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

    fn step_once(&mut self) {
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
    fn finish(mut self) -> HashMap<&'static str, u64> {
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

fn run_seed(seed: u64, steps: usize) -> HashMap<&'static str, u64> {
    let mut sim = Sim::new(seed);
    for step in 0..steps {
        sim.step = step;
        sim.step_once();
    }
    sim.finish()
}

#[test]
fn model_random_operations() {
    let seeds: u64 = std::env::var("ONITY_MODEL_SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(200);
    let steps: usize = std::env::var("ONITY_MODEL_STEPS").ok().and_then(|s| s.parse().ok()).unwrap_or(600);
    let first: u64 = std::env::var("ONITY_MODEL_FIRST_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    let mut cover: HashMap<&'static str, u64> = HashMap::new();
    for seed in first..first + seeds {
        for (k, v) in run_seed(seed, steps) {
            *cover.entry(k).or_default() += v;
        }
    }
    let mut c: Vec<_> = cover.into_iter().collect();
    c.sort();
    eprintln!("model: {seeds} seeds x {steps} steps; faults covered: {c:?}");
}

// ---- focused reproductions --------------------------------------------------

fn probe_rt() -> *mut OnityRuntime {
    let mut rt = ptr::null_mut();
    assert_eq!(onity_runtime_create(ptr::null(), &mut rt), S::Ok);
    rt
}

fn probe_frame(frame: u64) -> OnityFrameInfo {
    OnityFrameInfo {
        size: std::mem::size_of::<OnityFrameInfo>() as u32,
        reserved: 0,
        frame,
        delta_time: 0.0,
        unscaled_delta_time: 0.0,
        realtime: 0.0,
    }
}

/// `onity_runtime_frame_begin` documents "`frame` < 2^59, else
/// `INVALID_ARGUMENT`", and `FRAME_ORDER` for frames that do not increase.
/// `UINT64_MAX` used to get `FRAME_ORDER`, even as the very first frame.
#[test]
fn frame_begin_u64_max_is_invalid_argument() {
    let rt = probe_rt();
    assert_eq!(onity_runtime_frame_begin(rt, &probe_frame(1 << 59)), S::InvalidArgument);
    assert_eq!(onity_runtime_frame_begin(rt, &probe_frame(u64::MAX - 1)), S::InvalidArgument);
    assert_eq!(onity_runtime_frame_begin(rt, &probe_frame(u64::MAX)), S::InvalidArgument);
    assert_eq!(onity_runtime_frame_begin(rt, &probe_frame(3)), S::Ok);
    assert_eq!(onity_runtime_frame_begin(rt, &probe_frame(u64::MAX)), S::InvalidArgument);
    assert_eq!(onity_runtime_destroy(rt), S::Ok);
}

/// `onity_task_set_result` / `_set_error` on a task that is not a manual
/// source: `INVALID_HANDLE` whatever its state (it used to be
/// `ALREADY_COMPLETED` once the task had completed, and always for a
/// `from_result` task).
#[test]
fn set_result_on_a_task_that_is_not_a_manual_source_is_invalid_handle() {
    let rt = probe_rt();
    let (mut a, mut b) = (0, 0);
    assert_eq!(onity_task_from_result(rt, 1, &mut a), S::Ok);
    assert_eq!(onity_yield(rt, 8, 0, &mut b), S::Ok);
    assert_eq!(onity_task_set_result(rt, a, 2), S::InvalidHandle);
    assert_eq!(onity_task_set_result(rt, b, 2), S::InvalidHandle);
    assert_eq!(onity_runtime_tick(rt, 8), S::Ok);
    assert_eq!(onity_task_set_error(rt, b, 2), S::InvalidHandle);
    assert_eq!(onity_task_cancel(rt, b), S::AlreadyCompleted);
    assert_eq!(onity_runtime_destroy(rt), S::Ok);
}

/// `OnityBatch::resumed_consumed`: the processed resumptions are dropped by
/// `onity_batch_tick` / `_drain` (also one that then fails on its timing),
/// not by `onity_batch_flush`.
#[test]
fn resumed_consumed_is_dropped_by_tick_and_drain_only() {
    let rt = probe_rt();
    let mut b: *mut OnityBatch = ptr::null_mut();
    assert_eq!(onity_batch_create(rt, 4, &mut b), S::Ok);
    // SAFETY: a live batch, between calls.
    unsafe {
        *(*b).submit = OnityBatchRecord { id: 7, token: 0, arg: 0, kind: 9, timing: 0, clock: 0, reserved: [0; 5] };
        (*b).submit_count = 1;
    }
    assert_eq!(onity_batch_flush(rt, b), S::Ok);
    // SAFETY: as above.
    unsafe {
        assert_eq!((*b).resumed_count, 1, "the bad record is rejected when filed");
        assert_eq!((*(*b).resumed).status, S::InvalidArgument as u32);
        (*b).resumed_consumed = 1;
    }
    assert_eq!(onity_batch_flush(rt, b), S::Ok);
    // SAFETY: as above.
    assert_eq!(unsafe { (*b).resumed_count }, 1, "flush does not drop processed resumptions");
    assert_eq!(onity_batch_tick(rt, b, 99), S::InvalidArgument);
    // SAFETY: as above.
    assert_eq!(unsafe { (*b).resumed_count }, 0, "a failed batch_tick drops them");
    assert_eq!(onity_runtime_destroy(rt), S::Ok);
}

/// `onity_batch_destroy` cancels the waits the batch filed, but an
/// `ONITY_BATCH_TASK` record only watched its task: the task stays, keeps
/// its outcome and is consumed by the host.
#[test]
fn batch_destroy_leaves_a_watched_task_to_the_host() {
    let rt = probe_rt();
    let mut b: *mut OnityBatch = ptr::null_mut();
    assert_eq!(onity_batch_create(rt, 4, &mut b), S::Ok);
    let mut t = 0;
    assert_eq!(onity_task_create(rt, &mut t), S::Ok);
    // SAFETY: a live batch, between calls.
    unsafe {
        *(*b).submit =
            OnityBatchRecord { id: 1, token: 0, arg: t, kind: ONITY_BATCH_TASK, timing: 0, clock: 0, reserved: [0; 5] };
        (*b).submit_count = 1;
    }
    assert_eq!(onity_batch_flush(rt, b), S::Ok);
    assert_eq!(onity_batch_destroy(rt, b), S::Ok);
    let mut state = 0;
    assert_eq!(onity_task_state(rt, t, &mut state), S::Ok);
    assert_eq!(state, OnityTaskState::Pending as u32, "not canceled by the batch's destruction");
    assert_eq!(onity_task_set_result(rt, t, 5), S::Ok);
    let mut out = OnityOutcome { value: 0, error: 0, state: 0, index: 0, reserved: 0 };
    assert_eq!(onity_task_consume(rt, t, &mut out), S::Ok);
    assert_eq!(out.state, OnityTaskState::Succeeded as u32);
    assert_eq!(out.value, 5);
    assert_eq!(onity_runtime_destroy(rt), S::Ok);
}

/// Frame waits made before the first `onity_runtime_frame_begin` count from
/// the frame before the first one, whatever its number: NextFrame resumes in
/// the first frame, DelayFrame(n) in the n-th. Both forms: tasks and batch
/// fast-lane records (filed by the first frame_begin).
#[test]
fn frame_waits_made_before_the_first_frame_count_from_it() {
    let rt = probe_rt();
    let (mut next, mut two, mut three) = (0, 0, 0);
    assert_eq!(onity_next_frame(rt, 8, 0, &mut next), S::Ok);
    assert_eq!(onity_delay_frame(rt, 2, 8, 0, &mut two), S::Ok);
    assert_eq!(onity_delay_frame(rt, 3, 8, 0, &mut three), S::Ok);
    let mut b: *mut OnityBatch = ptr::null_mut();
    assert_eq!(onity_batch_create(rt, 8, &mut b), S::Ok);
    for (id, delay) in [(1u32, 1u32), (2, 2), (3, 3)] {
        let mut r = 0;
        assert_eq!(onity_batch_fast_record(id, 8, delay, &mut r), S::Ok);
        // SAFETY: a live batch, between calls.
        unsafe {
            *(*b).fast_submit.add((*b).fast_count as usize) = r;
            (*b).fast_count += 1;
        }
    }
    let state = |h: u64| {
        let mut s = 99;
        assert_eq!(onity_task_state(rt, h, &mut s), S::Ok);
        s
    };
    let (p, d) = (OnityTaskState::Pending as u32, OnityTaskState::Succeeded as u32);
    let mut fast = Vec::new();
    for (k, frame) in [1000u64, 1001, 1002].into_iter().enumerate() {
        assert_eq!(onity_runtime_frame_begin(rt, &probe_frame(frame)), S::Ok);
        assert_eq!(onity_batch_tick(rt, b, 8), S::Ok);
        // SAFETY: as above.
        unsafe {
            for i in 0..(*b).fast_resumed_count as usize {
                fast.push((k + 1, *(*b).fast_resumed.add(i)));
            }
        }
        let expect = |n: usize| if k + 1 >= n { d } else { p };
        assert_eq!(state(next), expect(1), "NextFrame, frame {}", k + 1);
        assert_eq!(state(two), expect(2), "DelayFrame(2), frame {}", k + 1);
        assert_eq!(state(three), expect(3), "DelayFrame(3), frame {}", k + 1);
    }
    assert_eq!(fast, vec![(1, 1), (2, 2), (3, 3)], "fast lane: (frame, id)");
    assert_eq!(onity_runtime_destroy(rt), S::Ok);
}
