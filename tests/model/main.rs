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

#[path = "../support/mod.rs"]
mod support;

// The reference model's methods, by topic (each an `impl Sim` block).
mod batches;
mod driver;
mod ops_frames;
mod ops_tasks;
mod primitives;

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
