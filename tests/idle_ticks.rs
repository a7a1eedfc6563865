//! Idle timings (ABI 1.4, `OnityTickIdle`): a run of a timing publishes
//! whether the next run would do nothing; every way of adding work clears
//! it; a host that skips the ticks of idle timings (and writes the frames it
//! begins meanwhile into the frame ring) sees every wait complete in the
//! same frame as a host that ticks every time.

use std::cell::RefCell;
use std::ffi::c_void;
use std::ptr;

use onity::ffi::*;

const INIT: u32 = OnityTiming::Initialization as u32;
const UPDATE: u32 = OnityTiming::Update as u32;
const LATE: u32 = OnityTiming::PreLateUpdate as u32;

struct Rt {
    rt: *mut OnityRuntime,
    b: *mut OnityBatch,
    d: *mut OnityDeferredFrame,
    idle: OnityTickIdle,
    /// Skip the ticks of idle timings, as the C# driver.
    skip: bool,
    skipped: u64,
    frame: u64,
}

/// An `OnityTickIdle` for `onity_batch_idle` to fill.
fn no_idle() -> OnityTickIdle {
    OnityTickIdle {
        timings: ptr::null(),
        cross_thread: ptr::null(),
        frame_memory: ptr::null(),
        timing_stride: 0,
        rewind_timing: 0,
    }
}

impl Rt {
    fn with(config: Option<OnityRuntimeConfig>, skip: bool) -> Rt {
        let mut rt = ptr::null_mut();
        let c = config.as_ref().map_or(ptr::null(), |c| c as *const OnityRuntimeConfig);
        assert_eq!(onity_runtime_create(c, &mut rt), OnityStatus::Ok);
        let mut b = ptr::null_mut();
        assert_eq!(onity_batch_create(rt, 64, &mut b), OnityStatus::Ok);
        let (mut d, mut cap) = (ptr::null_mut(), 0);
        assert_eq!(onity_batch_frame_ring(rt, b, &mut d, &mut cap), OnityStatus::Ok);
        let mut idle = no_idle();
        assert_eq!(onity_batch_idle(rt, b, &mut idle), OnityStatus::Ok);
        Rt { rt, b, d, idle, skip, skipped: 0, frame: 0 }
    }

    fn new() -> Rt {
        Rt::with(None, true)
    }

    /// Whether a host may skip `t`'s tick (but for the batch and the
    /// cross-thread head): its byte, and for the rewind timing the frame
    /// allocator's byte.
    fn idle(&self, t: u32) -> bool {
        // SAFETY: the runtime's idle bytes; owner thread, between calls.
        let byte = unsafe { *self.idle.timings.add(t as usize * self.idle.timing_stride as usize) };
        byte != 0 && (t != self.idle.rewind_timing || self.frame_memory() == 0)
    }

    fn frame_memory(&self) -> u8 {
        // SAFETY: the allocator's byte; other threads set it (one byte load).
        unsafe { ptr::read_volatile(self.idle.frame_memory) }
    }

    fn cross_thread(&self) -> u32 {
        // SAFETY: as above (an aligned 32-bit word).
        unsafe { ptr::read_volatile(self.idle.cross_thread) }
    }

    /// What the C# BeginFrame does: writes the frame into the ring, or
    /// (full) calls.
    fn begin(&mut self, dt: f64) {
        self.frame += 1;
        let info = OnityFrameInfo {
            size: std::mem::size_of::<OnityFrameInfo>() as u32,
            reserved: 0,
            frame: self.frame,
            delta_time: dt,
            unscaled_delta_time: 2.0 * dt,
            realtime: self.frame as f64 * 0.25,
        };
        // SAFETY: the ring and batch; owner thread, between calls.
        unsafe {
            let n = (*self.d).pending;
            if n == ONITY_FRAME_RING_CAPACITY {
                assert_eq!(onity_runtime_frame_begin(self.rt, &info), OnityStatus::Ok);
                return;
            }
            let (e, b) = (&mut *self.d.add(n as usize), &*self.b);
            e.info = info;
            e.submit_split = b.submit_count;
            e.fast_split = b.fast_count;
            (*self.d).pending = n + 1;
        }
    }

    /// What the C# Tick does: skips the call when the timing is idle.
    fn tick(&mut self, t: u32) {
        // SAFETY: live batch, owner thread, between calls.
        let quiet = unsafe { (*self.b).submit_count == 0 && (*self.b).fast_count == 0 };
        if self.skip && self.idle(t) && quiet && self.cross_thread() == 0 {
            self.skipped += 1;
            return;
        }
        assert_eq!(onity_batch_tick(self.rt, self.b, t), OnityStatus::Ok);
    }
}

impl Drop for Rt {
    fn drop(&mut self) {
        assert_eq!(onity_runtime_destroy(self.rt), OnityStatus::Ok);
    }
}

thread_local!(static LOG: RefCell<Vec<(usize, u64, u32)>> = const { RefCell::new(Vec::new()) });
thread_local!(static FRAME: RefCell<u64> = const { RefCell::new(0) });

/// Logs (wait number, host frame, state).
unsafe extern "C" fn log(user: *mut c_void, _task: u64, state: u32) {
    let f = FRAME.with(|f| *f.borrow());
    LOG.with(|l| l.borrow_mut().push((user as usize, f, state)));
}

fn noop_then(rt: &Rt, t: u32) {
    assert_eq!(onity_next_frame_then(rt.rt, t, 0, Some(log), ptr::null_mut()), OnityStatus::Ok);
}

#[test]
fn a_run_publishes_idle_and_every_wait_clears_it() {
    let mut rt = Rt::new();
    assert!(!rt.idle(UPDATE), "nothing published before a run");
    rt.begin(0.5);
    rt.tick(UPDATE);
    assert!(rt.idle(UPDATE), "an empty Update after its run");
    assert!(!rt.idle(LATE), "a timing that has not run");
    // Each export that files a wait clears its timing's byte (and only its).
    let mut task = 0;
    let waits: [&dyn Fn(&Rt); 5] = [
        &|r| noop_then(r, UPDATE),
        &|r| assert_eq!(onity_yield_then(r.rt, UPDATE, 0, Some(log), ptr::null_mut()), OnityStatus::Ok),
        &|r| assert_eq!(onity_delay_frame_then(r.rt, 10, UPDATE, 0, Some(log), ptr::null_mut()), OnityStatus::Ok),
        &|r| {
            let s = onity_delay_then(r.rt, 100.0, OnityClock::Realtime as u32, UPDATE, 0, Some(log), ptr::null_mut());
            assert_eq!(s, OnityStatus::Ok)
        },
        &|r| {
            let mut src = 0;
            assert_eq!(onity_cancel_source_create(r.rt, &mut src), OnityStatus::Ok);
            assert_eq!(onity_next_frame_then(r.rt, UPDATE, src, Some(log), ptr::null_mut()), OnityStatus::Ok);
        },
    ];
    for (i, w) in waits.iter().enumerate() {
        rt.tick(LATE);
        assert!(rt.idle(LATE), "wait {i}: LATE idle");
        let mut r2 = Rt::new();
        r2.begin(0.5);
        r2.tick(UPDATE);
        assert!(r2.idle(UPDATE));
        w(&r2);
        assert!(!r2.idle(UPDATE), "wait {i} cleared Update's byte");
        r2.tick(LATE);
        assert!(r2.idle(LATE), "wait {i}: another timing stays idle");
        // A far wait keeps its timing busy across runs.
        r2.begin(0.5);
        r2.tick(UPDATE);
        assert_eq!(r2.idle(UPDATE), !(2..4).contains(&i), "wait {i}: filed far, or done");
    }
    // A task wait too.
    assert_eq!(onity_next_frame(rt.rt, UPDATE, 0, &mut task), OnityStatus::Ok);
    assert!(!rt.idle(UPDATE));
    rt.begin(0.5);
    rt.tick(UPDATE);
    assert_eq!(onity_task_consume(rt.rt, task, ptr::null_mut()), OnityStatus::Ok);
    rt.begin(0.5);
    rt.tick(UPDATE);
    assert!(rt.idle(UPDATE), "idle again once it ran");
    LOG.with(|l| l.borrow_mut().clear());
}

#[test]
fn batch_records_clear_the_timing_they_are_filed_on() {
    let mut rt = Rt::new();
    rt.begin(0.5);
    rt.tick(UPDATE);
    rt.tick(LATE);
    // A fast DelayFrame(3) on LATE, filed by Update's tick.
    let mut rec = 0;
    assert_eq!(onity_batch_fast_record(1, LATE, 3, &mut rec), OnityStatus::Ok);
    // SAFETY: live batch, owner thread, between calls.
    unsafe {
        *(*rt.b).fast_submit = rec;
        (*rt.b).fast_count = 1;
    }
    rt.tick(UPDATE);
    assert!(!rt.idle(LATE), "filed on LATE by another timing's tick");
    let mut due = Vec::new();
    for _ in 0..4 {
        rt.begin(0.5);
        rt.tick(LATE);
        // SAFETY: the report of the last tick.
        unsafe {
            if !rt.idle(LATE) || (*rt.b).fast_resumed_count != 0 {
                due.push((rt.frame, (*rt.b).fast_resumed_count));
            }
        }
    }
    assert!(due.iter().any(|&(f, n)| f == 4 && n == 1), "the fast wait reported at frame 4: {due:?}");
    // A submit record (a token wait) on LATE.
    let mut src = 0;
    assert_eq!(onity_cancel_source_create(rt.rt, &mut src), OnityStatus::Ok);
    // SAFETY: as above.
    unsafe {
        let r = &mut *(*rt.b).submit;
        *r = OnityBatchRecord {
            id: 9,
            token: src,
            arg: 0,
            kind: OnityWaitKind::NextFrame as u8,
            timing: LATE as u8,
            clock: 0,
            reserved: [0; 5],
        };
        (*rt.b).submit_count = 1;
    }
    assert_eq!(onity_batch_flush(rt.rt, rt.b), OnityStatus::Ok);
    assert!(!rt.idle(LATE), "a flushed record cleared LATE");
}

#[test]
fn what_every_run_does_keeps_every_timing_busy() {
    // A WhenAny watching a token.
    let mut rt = Rt::new();
    rt.begin(0.5);
    rt.tick(UPDATE);
    let (mut src, mut a, mut any) = (0, 0, 0);
    assert_eq!(onity_cancel_source_create(rt.rt, &mut src), OnityStatus::Ok);
    assert_eq!(onity_task_create(rt.rt, &mut a), OnityStatus::Ok);
    assert_eq!(onity_when_any(rt.rt, &a, 1, src, &mut any), OnityStatus::Ok);
    assert!(!rt.idle(UPDATE), "a watch clears every timing");
    rt.begin(0.5);
    rt.tick(UPDATE);
    assert!(!rt.idle(UPDATE), "not idle while watched");
    // Canceled from another thread: the next tick (not skipped) completes it.
    let (p, s) = (rt.rt as usize, src);
    std::thread::spawn(move || assert_eq!(onity_cancel_source_cancel(p as *mut OnityRuntime, s), OnityStatus::Ok))
        .join()
        .unwrap();
    rt.begin(0.5);
    rt.tick(UPDATE);
    let mut st = 0;
    assert_eq!(onity_task_state(rt.rt, any, &mut st), OnityStatus::Ok);
    assert_eq!(st, OnityTaskState::Canceled as u32, "canceled at the next tick");
    assert_eq!(onity_task_consume(rt.rt, any, ptr::null_mut()), OnityStatus::Ok);
    rt.begin(0.5);
    rt.tick(UPDATE);
    assert!(rt.idle(UPDATE), "idle once nothing is watched");
    // Tracing.
    assert_eq!(onity_trace_start(rt.rt, 1024, ONITY_TRACE_RUNS), OnityStatus::Ok);
    assert!(!rt.idle(UPDATE), "tracing clears every timing");
    rt.begin(0.5);
    rt.tick(UPDATE);
    assert!(!rt.idle(UPDATE), "not idle while tracing");
    assert_eq!(onity_trace_stop(rt.rt), OnityStatus::Ok);
    rt.tick(UPDATE);
    assert!(rt.idle(UPDATE), "idle after tracing stopped");
    // A second batch.
    let mut b2 = ptr::null_mut();
    assert_eq!(onity_batch_create(rt.rt, 4, &mut b2), OnityStatus::Ok);
    assert!(!rt.idle(UPDATE), "a second batch clears every timing");
    rt.begin(0.5);
    rt.tick(UPDATE);
    assert!(!rt.idle(UPDATE), "not idle with two batches");
    assert_eq!(onity_batch_destroy(rt.rt, b2), OnityStatus::Ok);
    rt.tick(UPDATE);
    assert!(rt.idle(UPDATE), "idle with one batch again");
    // The frame allocator's automatic rewind timing (Initialization by
    // default) is idle while nothing is allocated (`the_rewind_timing_*`);
    // with manual rewind it is too.
    assert_eq!(rt.idle.rewind_timing, INIT, "the default rewind timing");
    rt.begin(0.5);
    rt.tick(INIT);
    assert!(rt.idle(INIT), "the rewind timing, nothing allocated");
    let c = OnityRuntimeConfig { frame_alloc_rewind_timing: ONITY_FRAME_ALLOC_REWIND_MANUAL, ..Default::default() };
    let mut manual = Rt::with(Some(c), true);
    assert_eq!(manual.idle.rewind_timing, ONITY_FRAME_ALLOC_REWIND_MANUAL);
    manual.begin(0.5);
    manual.tick(INIT);
    assert!(manual.idle(INIT), "Initialization with manual rewind");
    // Manual rewind: frame memory does not keep Initialization busy (its
    // run would not rewind); the byte still shows it until the host rewinds.
    alloc(manual.rt, FRAME_LT);
    assert_ne!(manual.frame_memory(), 0);
    assert!(manual.idle(INIT), "an allocation, manual rewind: Initialization stays idle");
    assert!(manual.init_frame(), "and its tick is skipped");
    assert_eq!(manual.rewinds(), 0);
    assert_eq!(onity_frame_alloc_rewind(manual.rt), OnityStatus::Ok);
    assert_eq!(manual.frame_memory(), 0, "a manual rewind resets it");
}

#[test]
fn a_cross_thread_completion_shows_until_the_next_tick() {
    let mut rt = Rt::new();
    rt.begin(0.5);
    rt.tick(UPDATE);
    let mut t = 0;
    assert_eq!(onity_task_create(rt.rt, &mut t), OnityStatus::Ok);
    assert_eq!(onity_task_on_complete(rt.rt, t, Some(log), 7 as *mut c_void), OnityStatus::Ok);
    assert_eq!(rt.cross_thread(), 0);
    let p = rt.rt as usize;
    std::thread::spawn(move || assert_eq!(onity_task_set_result(p as *mut OnityRuntime, t, 1), OnityStatus::Ok))
        .join()
        .unwrap();
    assert_ne!(rt.cross_thread(), 0, "queued for the owner");
    assert!(rt.idle(UPDATE), "the idle byte does not see it; the head does");
    LOG.with(|l| l.borrow_mut().clear());
    let skipped = rt.skipped;
    rt.begin(0.5);
    rt.tick(UPDATE);
    assert_eq!(rt.skipped, skipped, "the tick was not skipped");
    assert_eq!(LOG.with(|l| l.take()).len(), 1, "delivered at the next tick");
    assert_eq!(rt.cross_thread(), 0);
}

/// The same schedule of C waits, ticked every time and with idle ticks
/// skipped (frames left in the ring): every wait completes in the same frame.
fn schedule(skip: bool) -> (Vec<(usize, u64, u32)>, u64) {
    LOG.with(|l| l.borrow_mut().clear());
    let mut rt = Rt::with(None, skip);
    let mut src = 0;
    assert_eq!(onity_cancel_source_create(rt.rt, &mut src), OnityStatus::Ok);
    for f in 1..=80u64 {
        // Deltas that are exact in binary: sums do not depend on grouping.
        rt.begin(0.125);
        FRAME.with(|x| *x.borrow_mut() = f);
        let user = |n: usize| n as *mut c_void;
        let ok = OnityStatus::Ok;
        match f {
            3 => {
                assert_eq!(onity_delay_frame_then(rt.rt, 7, UPDATE, 0, Some(log), user(1)), ok);
                assert_eq!(onity_delay_frame_then(rt.rt, 20, LATE, 0, Some(log), user(2)), ok);
                for (i, clock) in [OnityClock::Scaled, OnityClock::Unscaled, OnityClock::Realtime].iter().enumerate() {
                    let s = onity_delay_then(rt.rt, 1.0, *clock as u32, UPDATE, 0, Some(log), user(3 + i));
                    assert_eq!(s, ok);
                    let s = onity_delay_then(rt.rt, 2.0, *clock as u32, LATE, 0, Some(log), user(6 + i));
                    assert_eq!(s, ok);
                }
                assert_eq!(onity_delay_frame_then(rt.rt, 50, UPDATE, src, Some(log), user(9)), ok);
            }
            25 => assert_eq!(onity_cancel_source_cancel(rt.rt, src), ok),
            40 => noop_then(&rt, LATE),
            60 => assert_eq!(onity_yield_then(rt.rt, UPDATE, 0, Some(log), user(10)), ok),
            _ => {}
        }
        rt.tick(UPDATE);
        // LATE is ticked every fourth frame only: frames wait in the ring between.
        if f % 4 == 0 {
            rt.tick(LATE);
        }
    }
    let skipped = rt.skipped;
    drop(rt);
    (LOG.with(|l| l.take()), skipped)
}

#[test]
fn skipping_idle_ticks_changes_no_completion_frame() {
    let (always, none) = schedule(false);
    let (skipping, skipped) = schedule(true);
    assert_eq!(none, 0);
    assert!(skipped > 40, "ticks skipped: {skipped}");
    assert_eq!(always.len(), 11, "{always:?}");
    assert_eq!(skipping, always);
}

/// A DelayFrame(2) made before the first frame, in a timing first ticked in
/// the second frame, with Update idle from a tick before the first frame.
fn first_frame_schedule(skip: bool) -> Vec<(usize, u64, u32)> {
    LOG.with(|l| l.borrow_mut().clear());
    let mut rt = Rt::with(None, skip);
    assert_eq!(onity_delay_frame_then(rt.rt, 2, LATE, 0, Some(log), 1 as *mut c_void), OnityStatus::Ok);
    rt.tick(UPDATE);
    for f in 1..=5u64 {
        rt.begin(0.125);
        FRAME.with(|x| *x.borrow_mut() = f);
        rt.tick(UPDATE);
        if f >= 2 {
            rt.tick(LATE);
        }
    }
    drop(rt);
    LOG.with(|l| l.take())
}

#[test]
fn the_first_frame_in_a_ring_rebases_as_by_call() {
    // Waits made before the first frame are rebased by its number: merged
    // with the second, it would make them a frame late.
    assert_eq!(first_frame_schedule(false), vec![(1, 2, OnityTaskState::Succeeded as u32)]);
    assert_eq!(first_frame_schedule(true), first_frame_schedule(false));
}

/// Peak pending DelayFrame waits after a far one is made, an Update tick
/// (idle) and its retire.
fn high_water_after_retire(skip: bool) -> (u64, u64) {
    let mut rt = Rt::with(None, skip);
    rt.begin(0.125);
    rt.tick(UPDATE);
    let mut w = 0u64;
    assert_eq!(onity_delay_frame_then_id(rt.rt, 10, LATE, 0, Some(log), &mut w), OnityStatus::Ok);
    rt.tick(UPDATE);
    assert_eq!(onity_wait_retire(rt.rt, &mut w), OnityStatus::Ok);
    // SAFETY: plain counters; `size` set below.
    let mut s: OnityStats = unsafe { std::mem::zeroed() };
    s.size = std::mem::size_of::<OnityStats>() as u32;
    assert_eq!(onity_runtime_stats(rt.rt, &mut s), OnityStatus::Ok);
    (s.waits[OnityWaitKind::DelayFrame as usize].high_water, rt.skipped)
}

#[test]
fn a_far_wait_retired_after_a_skipped_tick_counts_in_the_high_water() {
    // Runs sample the peak; a skipped run does not, so the retire does.
    assert_eq!(high_water_after_retire(false), (1, 0));
    assert_eq!(high_water_after_retire(true), (1, 1));
}

#[test]
fn the_export_checks_its_arguments() {
    let rt = Rt::new();
    let mut idle = no_idle();
    assert_eq!(onity_batch_idle(ptr::null_mut(), rt.b, &mut idle), OnityStatus::NullPointer);
    assert_eq!(onity_batch_idle(rt.rt, ptr::null_mut(), &mut idle), OnityStatus::NullPointer);
    assert_eq!(onity_batch_idle(rt.rt, rt.b, ptr::null_mut()), OnityStatus::NullPointer);
    assert_eq!(onity_batch_idle(rt.rt, 8 as *mut OnityBatch, &mut idle), OnityStatus::InvalidHandle);
    let (p, b) = (rt.rt as usize, rt.b as usize);
    std::thread::spawn(move || {
        let mut idle = no_idle();
        assert_eq!(onity_batch_idle(p as *mut OnityRuntime, b as *mut OnityBatch, &mut idle), OnityStatus::WrongThread);
    })
    .join()
    .unwrap();
    assert!(idle.timings.is_null(), "nothing written on error");
    assert_eq!(onity_batch_idle(rt.rt, rt.b, &mut idle), OnityStatus::Ok);
    assert_eq!(
        (idle.timings, idle.cross_thread, idle.timing_stride),
        (rt.idle.timings, rt.idle.cross_thread, rt.idle.timing_stride)
    );
    assert!(idle.timing_stride >= 1 && idle.rewind_timing == INIT && !idle.frame_memory.is_null());
}

// ---------------------------------------------------------------------------
// The frame allocator's rewind timing
// ---------------------------------------------------------------------------

const FRAME_LT: u32 = OnityLifetime::Frame as u32;
const TWO: u32 = OnityLifetime::TwoFrames as u32;

/// A runtime rewinding at Initialization (the default), poisoning on rewind.
fn poisoning() -> Rt {
    Rt::with(Some(OnityRuntimeConfig { frame_alloc_poison: 1, ..Default::default() }), true)
}

fn alloc(rt: *mut OnityRuntime, lifetime: u32) -> *mut u8 {
    let mut p = ptr::null_mut();
    assert_eq!(onity_frame_alloc(rt, 64, 16, lifetime, &mut p), OnityStatus::Ok);
    let p = p.cast::<u8>();
    // SAFETY: 64 bytes valid until their rewind.
    unsafe { p.write_bytes(lifetime as u8 + 1, 64) };
    p
}

impl Rt {
    fn rewinds(&self) -> u64 {
        // SAFETY: all-zero is a valid `OnityStats`.
        let mut s: OnityStats = unsafe { std::mem::zeroed() };
        s.size = std::mem::size_of::<OnityStats>() as u32;
        assert_eq!(onity_runtime_stats(self.rt, &mut s), OnityStatus::Ok);
        s.frame_alloc.rewinds
    }

    /// One frame of Initialization alone; whether its tick was skipped.
    fn init_frame(&mut self) -> bool {
        let skipped = self.skipped;
        self.begin(0.5);
        self.tick(INIT);
        self.skipped != skipped
    }
}

#[test]
fn the_rewind_timing_is_idle_until_something_is_allocated() {
    let mut rt = poisoning();
    assert!(!rt.init_frame(), "the first run");
    assert!(rt.idle(INIT), "nothing allocated: a rewind would release nothing");
    assert_eq!(rt.rewinds(), 1);
    for _ in 0..3 {
        assert!(rt.init_frame(), "skipped while nothing is allocated");
    }
    assert_eq!(rt.rewinds(), 1, "no rewind while skipped");
    // An allocation on the owner thread.
    let p = alloc(rt.rt, FRAME_LT);
    assert!(!rt.idle(INIT), "the epoch's first allocation sets the frame-memory byte");
    assert_ne!(rt.frame_memory(), 0);
    // SAFETY: the runtime's idle bytes; owner thread, between calls.
    let byte = unsafe { *rt.idle.timings.add(INIT as usize * rt.idle.timing_stride as usize) };
    assert_eq!(byte, 1, "the timing's own byte is the owner's alone: an allocation does not write it");
    let q = alloc(rt.rt, FRAME_LT);
    assert!(!rt.idle(INIT));
    assert!(!rt.init_frame(), "the next tick runs");
    assert_eq!(rt.rewinds(), 2, "and rewinds");
    // SAFETY: released and poisoned by that rewind (the debug aid).
    unsafe { assert_eq!((*p, *q), (0xDD, 0xDD), "released at the next tick") };
    assert!(rt.idle(INIT), "idle again once rewound");
    assert!(rt.init_frame());
    // Explicit rewinds still work in automatic mode.
    assert_eq!(onity_frame_alloc_rewind(rt.rt), OnityStatus::Ok);
    assert_eq!(rt.rewinds(), 3);
}

#[test]
fn an_allocation_on_another_thread_sets_the_frame_memory_byte() {
    let mut rt = poisoning();
    rt.init_frame();
    assert!(rt.idle(INIT));
    let r = rt.rt as usize;
    for round in 0..3u64 {
        // A worker's first allocation of the epoch (a fresh thread, then
        // one thread across epochs below).
        let p = std::thread::spawn(move || alloc(r as *mut OnityRuntime, FRAME_LT) as usize).join().unwrap() as *mut u8;
        assert!(!rt.idle(INIT), "round {round}: set from another thread");
        assert!(!rt.init_frame(), "round {round}: the next tick runs");
        assert_eq!(rt.rewinds(), 2 + round);
        // SAFETY: as above.
        unsafe { assert_eq!(*p, 0xDD, "round {round}: the worker's memory released") };
        assert!(rt.idle(INIT));
        assert!(rt.init_frame(), "round {round}: idle frames skip");
    }
    // One worker allocating in two epochs (its thread cache renewed).
    let (to_worker, from_owner) = std::sync::mpsc::channel::<()>();
    let (to_owner, from_worker) = std::sync::mpsc::channel::<usize>();
    let w = std::thread::spawn(move || {
        while from_owner.recv().is_ok() {
            to_owner.send(alloc(r as *mut OnityRuntime, FRAME_LT) as usize).unwrap();
        }
    });
    for round in 0..3 {
        to_worker.send(()).unwrap();
        let p = from_worker.recv().unwrap() as *mut u8;
        assert!(!rt.idle(INIT), "round {round}: the worker's epoch's first allocation");
        assert!(!rt.init_frame());
        // SAFETY: as above.
        unsafe { assert_eq!(*p, 0xDD) };
        assert!(rt.init_frame(), "round {round}: idle after");
    }
    drop(to_worker);
    w.join().unwrap();
}

#[test]
fn a_two_frames_allocation_keeps_the_rewind_timing_busy_until_released() {
    let mut rt = poisoning();
    rt.init_frame();
    let q = alloc(rt.rt, TWO);
    assert!(!rt.idle(INIT));
    assert!(!rt.init_frame(), "first rewind after it");
    // SAFETY: TwoFrames memory survives one rewind.
    unsafe { assert_eq!(*q, TWO as u8 + 1, "alive after one rewind") };
    assert!(!rt.idle(INIT), "busy: the next rewind releases it");
    assert!(!rt.init_frame(), "second rewind");
    // SAFETY: released and poisoned by the second rewind.
    unsafe { assert_eq!(*q, 0xDD, "released by the second rewind") };
    assert!(rt.idle(INIT), "idle once released");
    assert!(rt.init_frame());
    // Frame memory in the epoch between keeps it busy one rewind only.
    let q = alloc(rt.rt, TWO);
    rt.init_frame();
    let p = alloc(rt.rt, FRAME_LT);
    assert!(!rt.init_frame());
    // SAFETY: both released by this rewind.
    unsafe { assert_eq!((*p, *q), (0xDD, 0xDD)) };
    assert!(rt.idle(INIT));
}

#[test]
fn the_rewind_timing_always_ticked_rewinds_every_frame() {
    // A host that ticks every time (C, C++) keeps one rewind per frame.
    let mut rt = Rt::with(None, false);
    for f in 1..=4 {
        rt.init_frame();
        assert_eq!(rt.rewinds(), f);
    }
    assert!(rt.idle(INIT), "published all the same");
}

/// Frame by frame, which frame each of batch 2's records resumes in: C
/// creates a second batch in frame 2 after Update's tick (skipped by the
/// skipping host: its deferred frame 2 is still pending) and writes a
/// DelayFrame(2) and a NextFrame into it; frame 3 is begun while frame 2
/// may still be pending.
fn second_batch_schedule(skip: bool) -> Vec<(u64, u64)> {
    let mut rt = Rt::with(None, skip);
    let mut b2: *mut OnityBatch = ptr::null_mut();
    let mut seen = Vec::new();
    for f in 1..=6u64 {
        rt.begin(0.125);
        rt.tick(UPDATE);
        if !b2.is_null() {
            // SAFETY: live batch, owner thread, between calls.
            unsafe {
                let bb = &mut *b2;
                seen.extend(
                    (bb.resumed_consumed as usize..bb.resumed_count as usize).map(|i| ((*bb.resumed.add(i)).id, f)),
                );
                bb.resumed_consumed = bb.resumed_count;
            }
        }
        if f == 2 {
            assert_eq!(onity_batch_create(rt.rt, 4, &mut b2), OnityStatus::Ok);
            // SAFETY: the new batch; plain writes, as a C host makes.
            unsafe {
                let bb = &mut *b2;
                for (i, (kind, arg)) in
                    [(OnityWaitKind::DelayFrame, 2u64), (OnityWaitKind::NextFrame, 0)].iter().enumerate()
                {
                    *bb.submit.add(i) = OnityBatchRecord {
                        id: 100 + i as u64,
                        token: 0,
                        arg: *arg,
                        kind: *kind as u8,
                        timing: UPDATE as u8,
                        clock: 0,
                        reserved: [0; 5],
                    };
                }
                bb.submit_count = 2;
            }
        }
    }
    seen
}

#[test]
fn a_batch_made_while_ticks_are_skipped_files_with_its_own_frame() {
    // Written in frame 2: the NextFrame resumes in frame 3, the
    // DelayFrame(2) in frame 4, whether frame 2's tick was skipped or not.
    let always = second_batch_schedule(false);
    assert_eq!(always, vec![(101, 3), (100, 4)]);
    assert_eq!(second_batch_schedule(true), always);
}
