//! The reference model: what each runtime holds, what every call should
//! return, and which continuations and callbacks should run, in order.

use std::collections::{BTreeMap, HashMap};

use onity::ffi::*;

pub use super::callbacks::*;
use super::worker::Worker;
use super::{Input, Issue17};

pub type S = OnityStatus;

pub const NOIDX: u32 = u32::MAX;
pub const SUCCEEDED: u32 = 1;
pub const FAULTED: u32 = 2;
pub const CANCELED: u32 = 3;

// ---- model types ----------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Out {
    pub state: u32,
    pub value: u64,
    pub error: i32,
    pub index: u32,
}

impl Out {
    pub fn new(state: u32, value: u64, error: i32) -> Out {
        Out { state, value, error, index: NOIDX }
    }
}

/// A continuation's or callback's id and what it does (see `act`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Act {
    pub id: u64,
    pub flags: u64,
    pub timing: u32,
    /// `F_OTHER_*`: the other runtime and a task handle.
    pub other: Option<(usize, u64)>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Cont {
    None,
    User(Act),
    Fired,
    Comb { c: usize, i: usize },
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Manual,
    FromResult,
    Wait,
    Any(usize),
    All(usize),
}

pub struct Task {
    pub h: u64,
    pub kind: Kind,
    pub out: Option<Out>,
    pub cont: Cont,
    pub retired: bool,
    /// Completed on the worker; the owner has not drained it yet.
    pub queued: bool,
}

pub struct Source {
    pub h: u64,
    pub canceled: bool,
    pub destroyed: bool,
}

#[derive(Clone, Copy, Debug)]
pub enum Target {
    Task(usize),
    Cb(Act),
}

#[derive(Clone, Copy, Debug)]
pub struct Wait {
    pub target: Target,
    pub kind: usize,
    pub due_frame: u64,
    pub due_time: f64,
    pub clock: usize,
    pub token: Option<usize>,
}

pub struct Comb {
    pub any: bool,
    pub out: usize,
    pub n: usize,
    pub outcomes: Vec<Option<Out>>,
    pub remaining: usize,
    pub done: bool,
    pub out_released: bool,
    pub first_fail: Option<usize>,
    pub token: Option<usize>,
    pub bucket: usize,
    pub alive: bool,
}

/// A live frame allocation, filled with `pattern`.
pub struct Alloc {
    pub p: usize,
    pub size: usize,
    pub pattern: u8,
    /// The allocator epoch (rewind count) at which it dies.
    pub expires: u64,
}

#[derive(Default)]
pub struct FrameAllocModel {
    pub rewinds: u64,
    pub allocations: u64,
    pub failed: u64,
    pub last_rewind_fnum: u64,
    pub live: Vec<Alloc>,
}

#[derive(Clone, Copy, Debug)]
pub struct Cfg {
    pub task_cap: u32,
    pub cancel_cap: u32,
    pub wait_cap: u32,
    pub c16: u32,
    pub c32: u32,
    pub rewind: Option<usize>,
    pub max_bytes: u64,
}

/// One runtime of the run (live or destroyed: its handles stay known).
pub struct Rt {
    pub p: *mut OnityRuntime,
    pub alive: bool,
    pub cfg: Cfg,
    pub tasks: Vec<Task>,
    pub by_h: HashMap<u64, usize>,
    pub sources: Vec<Source>,
    pub src_by_h: HashMap<u64, usize>,
    pub queues: Vec<Vec<Wait>>,
    pub combs: Vec<Comb>,
    pub watches: Vec<usize>,
    pub queued: Vec<usize>,
    pub fnum: u64,
    pub host: u64,
    pub clocks: [f64; 3],
    pub sched: [u64; 4],
    pub done: [u64; 4],
    pub canc: [u64; 4],
    pub ticking: bool,
    pub closing: bool,
    /// Continuations and callbacks of this runtime on the stack.
    pub busy: u32,
    /// Source cancellations (first cancel, destroy of a canceled source);
    /// a tick or drain polls the combinators' tokens when it changed.
    pub cancel_epoch: u64,
    pub seen_epoch: u64,
    pub batches: Vec<(*mut OnityBatch, bool)>,
    pub fa: FrameAllocModel,
    /// Continuation and callback ids registered on this runtime.
    pub registered: Vec<u64>,
}

impl Rt {
    pub fn new(p: *mut OnityRuntime, cfg: Cfg) -> Rt {
        Rt {
            p,
            alive: true,
            cfg,
            tasks: Vec::new(),
            by_h: HashMap::new(),
            sources: Vec::new(),
            src_by_h: HashMap::new(),
            queues: (0..16).map(|_| Vec::new()).collect(),
            combs: Vec::new(),
            watches: Vec::new(),
            queued: Vec::new(),
            fnum: 0,
            host: 0,
            clocks: [0.0; 3],
            sched: [0; 4],
            done: [0; 4],
            canc: [0; 4],
            ticking: false,
            closing: false,
            busy: 0,
            cancel_epoch: 0,
            seen_epoch: 0,
            batches: Vec::new(),
            fa: FrameAllocModel::default(),
            registered: Vec::new(),
        }
    }

    pub fn tok(&self, t: Option<usize>) -> bool {
        t.is_some_and(|s| self.sources[s].canceled)
    }

    pub fn live_tasks_where(&self, f: impl Fn(&Task) -> bool) -> Vec<usize> {
        (0..self.tasks.len()).filter(|&i| !self.tasks[i].retired && f(&self.tasks[i])).collect()
    }
}

/// What the runtime should make of a handle.
pub type Class = Result<usize, Vec<S>>;

/// The simulation: the model of every runtime plus the bookkeeping of the run.
pub struct Sim<'a> {
    pub inp: Input<'a>,
    pub strict: Issue17,
    pub rts: Vec<Rt>,
    /// Every handle issued in this run: (runtime, is a task).
    pub issued: HashMap<u64, (usize, bool)>,
    /// The same, in issue order (to pick from).
    pub known: Vec<u64>,
    pub worker: Worker,
    pub expect: Vec<Ev>,
    /// Compare this step's events as multisets (their order is unspecified).
    pub relaxed: bool,
    /// ... and ignore the outcomes (state, value, error, index) these
    /// continuations see: combinator outputs at a destroy, which cancels
    /// pending tasks in an unspecified order (a WhenAll canceled itself, or
    /// completed by an input canceled first, with an earlier input's fault).
    pub loose_ids: std::collections::HashSet<u64>,
    pub next_id: u64,
    pub fired: HashMap<u64, u32>,
    pub cover: BTreeMap<&'static str, u64>,
    pub ops: u64,
    pub op: &'static str,
    /// Runtimes made by `create_runtime`, and churn operations run.
    pub made: usize,
    pub churns: usize,
}

impl<'a> Sim<'a> {
    pub fn new(inp: Input<'a>, strict: Issue17) -> Sim<'a> {
        take_log();
        clear_rt_ptrs();
        Sim {
            inp,
            strict,
            rts: Vec::new(),
            issued: HashMap::new(),
            known: Vec::new(),
            worker: Worker::new(),
            expect: Vec::new(),
            relaxed: false,
            loose_ids: Default::default(),
            next_id: 1,
            fired: HashMap::new(),
            cover: BTreeMap::new(),
            ops: 0,
            op: "",
            made: 0,
            churns: 0,
        }
    }

    pub fn input_done(&self) -> bool {
        self.inp.done()
    }

    pub fn ctx(&self) -> String {
        format!("op #{} ({})", self.ops, self.op)
    }

    pub fn cov(&mut self, what: &'static str) {
        *self.cover.entry(what).or_default() += 1;
    }

    /// Panics unless `got` is one of `errs` (or OK when `errs` is empty).
    pub fn check(&self, got: S, errs: &[S], what: &str) {
        let ok = if errs.is_empty() { got == S::Ok } else { errs.contains(&got) };
        assert!(ok, "{}: {what}: got {got:?}, expected {errs:?} (empty = Ok)", self.ctx());
    }

    pub fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    pub fn alive(&self) -> Vec<usize> {
        (0..self.rts.len()).filter(|&r| self.rts[r].alive).collect()
    }

    // ---- handles ----------------------------------------------------------

    /// Records a handle `r` just issued. Two live runtimes never issue the
    /// same handle; with `no_alias`, no two runtimes of the run do.
    pub fn issue(&mut self, r: usize, h: u64, task: bool) {
        assert_ne!(h, 0, "{}: handle 0 issued", self.ctx());
        if let Some(&(r0, _)) = self.issued.get(&h) {
            assert_ne!(r0, r, "{}: runtime {r} issued {h:#x} twice", self.ctx());
            assert!(!self.rts[r0].alive, "{}: runtimes {r0} and {r} are both alive and issued {h:#x}", self.ctx());
            self.cov("alias: a destroyed runtime's handle issued again (issue 17 #1)");
            assert!(
                !self.strict.no_alias,
                "{}: issue 17 #1: runtime {r} issued {h:#x}, a handle of destroyed runtime {r0}",
                self.ctx()
            );
        } else {
            self.known.push(h);
        }
        self.issued.insert(h, (r, task));
    }

    /// What runtime `r` should answer to `h` used as a task (`task`) or a
    /// cancellation source handle.
    pub fn classify(&self, r: usize, h: u64, task: bool) -> Class {
        let rt = &self.rts[r];
        let (own, other) = if task { (&rt.by_h, &rt.src_by_h) } else { (&rt.src_by_h, &rt.by_h) };
        if let Some(&i) = own.get(&h) {
            let gone = if task { rt.tasks[i].retired } else { rt.sources[i].destroyed };
            return if gone { Err(vec![S::StaleHandle]) } else { Ok(i) };
        }
        if h == 0 || other.contains_key(&h) {
            return Err(vec![S::InvalidHandle]);
        }
        match self.issued.get(&h) {
            Some(&(r2, is_task)) => {
                let mut errs = if self.rts[r2].alive {
                    vec![S::ForeignHandle]
                } else if self.strict.no_alias {
                    vec![S::StaleHandle, S::ForeignHandle]
                } else {
                    // Today a destroyed runtime's handle may decode as this
                    // runtime's, to a slot it does not have yet (issue 17 #1).
                    vec![S::StaleHandle, S::ForeignHandle, S::InvalidHandle]
                };
                if is_task != task {
                    errs.push(S::InvalidHandle);
                }
                Err(errs)
            }
            None => Err(vec![S::InvalidHandle, S::StaleHandle, S::ForeignHandle]),
        }
    }

    pub fn classify_token(&self, r: usize, h: u64) -> Result<Option<usize>, Vec<S>> {
        if h == 0 {
            return Ok(None);
        }
        self.classify(r, h, false).map(Some)
    }

    /// A handle to use as a task on `r`: mostly `r`'s own (live or
    /// consumed), else another runtime's (live or destroyed), else forged.
    pub fn gen_task(&mut self, r: usize) -> (u64, Class) {
        let h = self.gen_handle(r, true);
        (h, self.classify(r, h, true))
    }

    pub fn gen_source(&mut self, r: usize) -> (u64, Class) {
        let h = self.gen_handle(r, false);
        (h, self.classify(r, h, false))
    }

    /// A token: 0 (none) half of the time.
    pub fn gen_token(&mut self, r: usize) -> (u64, Result<Option<usize>, Vec<S>>) {
        if self.inp.pct(50) {
            return (0, Ok(None));
        }
        let h = self.gen_handle(r, false);
        (h, self.classify_token(r, h))
    }

    fn gen_handle(&mut self, r: usize, task: bool) -> u64 {
        let x = self.inp.below(100);
        let rt = &self.rts[r];
        let own: Vec<u64> =
            if task { rt.tasks.iter().map(|t| t.h).collect() } else { rt.sources.iter().map(|s| s.h).collect() };
        if x < 75 && !own.is_empty() {
            if x < 55 {
                let live: Vec<u64> = if task {
                    rt.tasks.iter().filter(|t| !t.retired).map(|t| t.h).collect()
                } else {
                    rt.sources.iter().filter(|s| !s.destroyed).map(|s| s.h).collect()
                };
                if !live.is_empty() {
                    return self.inp.pick(&live);
                }
            }
            return self.inp.pick(&own);
        }
        if x < 88 && !self.known.is_empty() {
            self.cov("handle of another runtime (or kind)");
            let k = self.inp.below(self.known.len() as u64) as usize;
            return self.known[k];
        }
        self.cov("forged handle");
        let base = if own.is_empty() { self.known.first().copied().unwrap_or(0) } else { self.inp.pick(&own) };
        match self.inp.below(5) {
            0 => 0,
            1 => base ^ 1 << 32,
            2 => base.wrapping_add(2 << 32),
            3 => base ^ 3 << 22,
            _ => self.inp.u64(),
        }
    }
}
