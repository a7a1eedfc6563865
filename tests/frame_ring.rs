//! The frame ring (ABI 1.6, `onity_batch_frame_ring`): frames a host writes
//! without a call are applied in order by the next call, exactly as frames
//! begun one by one (clocks, splits of the bound batch's records, refusals).

use std::cell::RefCell;
use std::ffi::c_void;
use std::ptr;

use onity::ffi::*;

const UPDATE: u32 = OnityTiming::Update as u32;
const LATE: u32 = OnityTiming::PreLateUpdate as u32;

struct Rt {
    rt: *mut OnityRuntime,
    b: *mut OnityBatch,
    ring: *mut OnityDeferredFrame,
    cap: u32,
    /// Write frames into the ring (else: `onity_runtime_frame_begin`).
    ring_host: bool,
}

impl Rt {
    fn new(ring_host: bool) -> Rt {
        let mut rt = ptr::null_mut();
        assert_eq!(onity_runtime_create(ptr::null(), &mut rt), OnityStatus::Ok);
        let mut b = ptr::null_mut();
        assert_eq!(onity_batch_create(rt, 64, &mut b), OnityStatus::Ok);
        let (mut ring, mut cap) = (ptr::null_mut(), 0);
        assert_eq!(onity_batch_frame_ring(rt, b, &mut ring, &mut cap), OnityStatus::Ok);
        assert_eq!(cap, ONITY_FRAME_RING_CAPACITY);
        Rt { rt, b, ring, cap, ring_host }
    }

    fn count(&self) -> u32 {
        // SAFETY: the ring's entry 0; owner thread, between calls.
        unsafe { (*self.ring).pending }
    }

    /// Begins a frame: into the ring while it has room, else by a call.
    fn begin(&self, i: OnityFrameInfo) {
        let n = self.count();
        if !self.ring_host || n == self.cap {
            assert_eq!(onity_runtime_frame_begin(self.rt, &i), OnityStatus::Ok);
            return;
        }
        // SAFETY: entry n < cap of the ring; the batch; owner thread, between calls.
        unsafe {
            let e = &mut *self.ring.add(n as usize);
            e.info = i;
            e.submit_split = (*self.b).submit_count;
            e.fast_split = (*self.b).fast_count;
            (*self.ring).pending = n + 1;
        }
    }

    fn take_status(&self) -> u32 {
        // SAFETY: as in `count`.
        unsafe { std::mem::replace(&mut (*self.ring).status, 0) }
    }

    fn fast(&self, id: u32, delay: u32) {
        let mut rec = 0;
        assert_eq!(onity_batch_fast_record(id, UPDATE, delay, &mut rec), OnityStatus::Ok);
        // SAFETY: live batch; the host's plain writes.
        unsafe {
            let bb = &mut *self.b;
            *bb.fast_submit.add(bb.fast_count as usize) = rec;
            bb.fast_count += 1;
        }
    }

    /// A DelayFrame(`frames`) request record on UPDATE.
    fn request(&self, id: u64, frames: u64) {
        // SAFETY: live batch; the host's plain writes.
        unsafe {
            let bb = &mut *self.b;
            let kind = OnityWaitKind::DelayFrame as u8;
            let rec =
                OnityBatchRecord { id, token: 0, arg: frames, kind, timing: UPDATE as u8, clock: 0, reserved: [0; 5] };
            *bb.submit.add(bb.submit_count as usize) = rec;
            bb.submit_count += 1;
        }
    }

    /// The request ids resumed since the last call (consumed).
    fn resumed(&self) -> Vec<u64> {
        // SAFETY: live batch, between calls.
        unsafe {
            let bb = &mut *self.b;
            bb.resumed_consumed = bb.resumed_count;
            (0..bb.resumed_count as usize).map(|i| (*bb.resumed.add(i)).id).collect()
        }
    }

    fn tick(&self, t: u32) -> Vec<u32> {
        assert_eq!(onity_batch_tick(self.rt, self.b, t), OnityStatus::Ok);
        // SAFETY: live batch; the report is valid until the next tick.
        unsafe { std::slice::from_raw_parts((*self.b).fast_resumed, (*self.b).fast_resumed_count as usize).to_vec() }
    }

    fn frame(&self) -> u64 {
        // SAFETY: OnityStats is plain data; zero is a valid value.
        let mut s: OnityStats = unsafe { std::mem::zeroed() };
        s.size = std::mem::size_of::<OnityStats>() as u32;
        assert_eq!(onity_runtime_stats(self.rt, &mut s), OnityStatus::Ok);
        s.frame
    }
}

impl Drop for Rt {
    fn drop(&mut self) {
        assert_eq!(onity_runtime_destroy(self.rt), OnityStatus::Ok);
    }
}

/// Frame `f` with deltas that are not exact in binary (a sum of them
/// rounds differently from adding them in turn).
fn info(f: u64) -> OnityFrameInfo {
    OnityFrameInfo {
        size: std::mem::size_of::<OnityFrameInfo>() as u32,
        reserved: 0,
        frame: f,
        delta_time: 0.1 + f as f64 * 1e-3,
        unscaled_delta_time: 1.0 / 60.0 + f as f64 * 1e-7,
        realtime: f as f64 / 30.0,
    }
}

thread_local!(static DONE: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) });

unsafe extern "C" fn done(user: *mut c_void, _task: u64, _state: u32) {
    DONE.with(|d| d.borrow_mut().push(user as usize));
}

/// Delays of many lengths on LATE made in frame 1, then `frames` frames
/// with no LATE tick (the ring host makes no call at all until the ring is
/// full), then one LATE tick: the Delays it completes.
fn delays_done(ring_host: bool, frames: u64) -> Vec<usize> {
    DONE.with(|d| d.borrow_mut().clear());
    let rt = Rt::new(ring_host);
    rt.begin(info(1));
    rt.tick(UPDATE);
    for i in 1..=400usize {
        let clock = [OnityClock::Scaled, OnityClock::Unscaled, OnityClock::Realtime][i % 3] as u32;
        let s = i as f64 * 0.004 + [0.0, 1e-16, -1e-16, 2e-16][i % 4];
        let st = onity_delay_then(rt.rt, s, clock, LATE, 0, Some(done), i as *mut c_void);
        assert_eq!(st, OnityStatus::Ok);
    }
    for f in 2..2 + frames {
        rt.begin(info(f));
    }
    if ring_host && frames <= u64::from(ONITY_FRAME_RING_CAPACITY) {
        assert_eq!(rt.count(), frames as u32, "no call applied the ring");
    }
    rt.tick(LATE);
    assert_eq!((rt.count(), rt.take_status()), (0, 0));
    assert_eq!(rt.frame(), 1 + frames);
    DONE.with(|d| d.take())
}

#[test]
fn ring_frames_move_the_clocks_as_frames_begun_one_by_one() {
    for frames in [3, 8, 9, 20] {
        let by_call = delays_done(false, frames);
        assert!(!by_call.is_empty() && by_call.len() < 400, "{frames} frames: {}", by_call.len());
        assert_eq!(delays_done(true, frames), by_call, "{frames} frames");
    }
}

/// Fast records written between frames: each is filed with the frame it
/// was written in. Returns (tick of frame 4, tick of frame 5, tick of 6).
fn split_schedule(ring_host: bool) -> Vec<Vec<u32>> {
    let rt = Rt::new(ring_host);
    rt.begin(info(1));
    rt.tick(UPDATE);
    rt.fast(10, 2); // frame 1: DelayFrame(2), due in frame 3
    rt.begin(info(2));
    rt.fast(11, 1); // frame 2: NextFrame, due in frame 3
    rt.fast(12, 2); // frame 2: due in frame 4
    rt.begin(info(3));
    rt.fast(13, 1); // frame 3: due in frame 4
    rt.begin(info(4));
    rt.fast(14, 0); // frame 4: Yield, this frame's tick
    let mut ticks = vec![rt.tick(UPDATE)];
    for f in 5..=6 {
        rt.begin(info(f));
        ticks.push(rt.tick(UPDATE));
    }
    ticks
}

#[test]
fn records_between_ring_frames_file_with_the_frame_they_were_written_in() {
    let by_call = split_schedule(false);
    // The Yield, the NextFrames, the DelayFrames by due frame.
    assert_eq!(by_call, vec![vec![14, 11, 13, 10, 12], vec![], vec![]]);
    assert_eq!(split_schedule(true), by_call);
}

#[test]
fn a_refused_ring_frame_is_dropped_and_the_later_ones_apply() {
    let rt = Rt::new(true);
    rt.begin(info(1));
    rt.begin(info(1)); // FRAME_ORDER
    rt.begin(info(3));
    let mut odd = info(4);
    odd.size = 8; // SIZE_MISMATCH: not read
    rt.begin(odd);
    let mut bad = info(5);
    bad.delta_time = -1.0; // INVALID_ARGUMENT
    rt.begin(bad);
    rt.begin(info(6));
    assert_eq!(rt.frame(), 6);
    assert_eq!(rt.take_status(), OnityStatus::FrameOrder as u32, "the first refusal, not the size mismatch after it");
    // A size mismatch first: it is the first refusal.
    let mut odd = info(7);
    odd.size = 8;
    rt.begin(odd);
    rt.begin(info(6)); // FRAME_ORDER
    rt.begin(info(7));
    assert_eq!(rt.frame(), 7);
    assert_eq!(rt.take_status(), OnityStatus::SizeMismatch as u32, "the first refusal");
    rt.begin(info(8));
    rt.begin(info(8));
    assert_eq!(rt.frame(), 8);
    assert_eq!(rt.take_status(), OnityStatus::FrameOrder as u32, "the first refusal");
    // A begin by call when the ring is full applies the ring first.
    for f in 9..9 + u64::from(ONITY_FRAME_RING_CAPACITY) {
        rt.begin(info(f));
    }
    assert_eq!(rt.count(), ONITY_FRAME_RING_CAPACITY);
    rt.begin(info(100));
    assert_eq!((rt.count(), rt.take_status(), rt.frame()), (0, 0, 100));
}

#[test]
fn the_export_checks_its_arguments() {
    let rt = Rt::new(true);
    let (mut ring, mut cap) = (ptr::null_mut(), 0u32);
    assert_eq!(onity_batch_frame_ring(ptr::null_mut(), rt.b, &mut ring, &mut cap), OnityStatus::NullPointer);
    assert_eq!(onity_batch_frame_ring(rt.rt, ptr::null_mut(), &mut ring, &mut cap), OnityStatus::NullPointer);
    assert_eq!(onity_batch_frame_ring(rt.rt, rt.b, ptr::null_mut(), &mut cap), OnityStatus::NullPointer);
    assert_eq!(onity_batch_frame_ring(rt.rt, rt.b, &mut ring, ptr::null_mut()), OnityStatus::NullPointer);
    assert_eq!(onity_batch_frame_ring(rt.rt, 8 as *mut OnityBatch, &mut ring, &mut cap), OnityStatus::InvalidHandle);
    let mut dead = ptr::null_mut();
    assert_eq!(onity_runtime_create(ptr::null(), &mut dead), OnityStatus::Ok);
    assert_eq!(onity_runtime_destroy(dead), OnityStatus::Ok);
    assert_eq!(onity_batch_frame_ring(dead, rt.b, &mut ring, &mut cap), OnityStatus::InvalidRuntime);
    let (p, b) = (rt.rt as usize, rt.b as usize);
    std::thread::spawn(move || {
        let (mut ring, mut cap) = (ptr::null_mut(), 0u32);
        let st = onity_batch_frame_ring(p as *mut OnityRuntime, b as *mut OnityBatch, &mut ring, &mut cap);
        assert_eq!(st, OnityStatus::WrongThread);
    })
    .join()
    .unwrap();
    assert!(ring.is_null() && cap == 0, "nothing written on error");
    // The ring's entry 0 is the deferred frame (a ring of one).
    let mut d = ptr::null_mut();
    assert_eq!(onity_batch_deferred_frame(rt.rt, rt.b, &mut d), OnityStatus::Ok);
    assert_eq!(onity_batch_frame_ring(rt.rt, rt.b, &mut ring, &mut cap), OnityStatus::Ok);
    assert_eq!((ring, cap), (d, ONITY_FRAME_RING_CAPACITY));
}

#[test]
fn a_count_above_the_capacity_applies_the_ring_and_is_refused() {
    let rt = Rt::new(true);
    for f in 1..=u64::from(ONITY_FRAME_RING_CAPACITY) {
        rt.begin(info(f));
    }
    // A host that counts one frame more than the ring holds (its entry
    // would be past the ring's end: not read).
    // SAFETY: the ring's entry 0; owner thread, between calls.
    unsafe { (*rt.ring).pending = ONITY_FRAME_RING_CAPACITY + 1 };
    assert_eq!(rt.frame(), u64::from(ONITY_FRAME_RING_CAPACITY));
    assert_eq!((rt.count(), rt.take_status()), (0, OnityStatus::CountOutOfRange as u32));
    // An earlier refusal comes first.
    rt.begin(info(1)); // FRAME_ORDER
                       // SAFETY: as above.
    unsafe { (*rt.ring).pending = u32::MAX };
    assert_eq!(rt.frame(), u64::from(ONITY_FRAME_RING_CAPACITY));
    assert_eq!((rt.count(), rt.take_status()), (0, OnityStatus::FrameOrder as u32));
}

thread_local!(static IN_TICK: RefCell<Option<(*mut OnityRuntime, *mut OnityDeferredFrame, u32)>> = const { RefCell::new(None) });

/// A continuation that writes three frames into the ring (frames 2 to 4),
/// then tries to destroy the runtime (refused: it is ticking).
unsafe extern "C" fn write_then_destroy(_user: *mut c_void, _task: u64, _state: u32) {
    let (rt, ring, _) = IN_TICK.with(|c| c.borrow().unwrap());
    for (k, f) in (2..=4).enumerate() {
        let e = &mut *ring.add(k);
        e.info = info(f);
        e.submit_split = 0;
        e.fast_split = 0;
        (*ring).pending = k as u32 + 1;
    }
    let st = onity_runtime_destroy(rt);
    IN_TICK.with(|c| c.borrow_mut().as_mut().unwrap().2 = st as u32);
}

#[test]
fn a_refused_destroy_keeps_every_written_frame() {
    let rt = Rt::new(true);
    rt.begin(info(1));
    IN_TICK.with(|c| *c.borrow_mut() = Some((rt.rt, rt.ring, 0)));
    assert_eq!(onity_yield_then(rt.rt, UPDATE, 0, Some(write_then_destroy), ptr::null_mut()), OnityStatus::Ok);
    assert_eq!(onity_runtime_tick(rt.rt, UPDATE), OnityStatus::Ok);
    let (_, _, st) = IN_TICK.with(|c| c.borrow_mut().take().unwrap());
    assert_eq!(st, OnityStatus::Reentrant as u32);
    assert_eq!(rt.count(), 3, "nothing changes on a refused destroy");
    assert_eq!((rt.frame(), rt.take_status()), (4, 0));
}

thread_local!(static SEEN: RefCell<Vec<(u32, u32)>> = const { RefCell::new(Vec::new()) });

/// 200 Delays on LATE of many lengths and clocks (ids from `first`),
/// scheduled through the C ABI.
fn delays(rt: *mut OnityRuntime, first: usize) {
    for i in first..first + 200 {
        let clock = [OnityClock::Scaled, OnityClock::Unscaled, OnityClock::Realtime][i % 3] as u32;
        let s = (i - first) as f64 * 0.004 + [0.0, 1e-16, -1e-16, 2e-16][i % 4];
        assert_eq!(onity_delay_then(rt, s, clock, LATE, 0, Some(done), i as *mut c_void), OnityStatus::Ok);
    }
}

/// A continuation run by frame 1's Update tick: C code that schedules
/// waits (and drains) inside the tick. A ring host has written frames 2 to
/// 4 there, with fast records between them; a host that begins by call
/// begins them after the tick (`after_the_tick`). Records the ring's
/// (count, status) after each call.
unsafe extern "C" fn waits_inside_a_tick(user: *mut c_void, _task: u64, _state: u32) {
    let rt = &*(user as *const Rt);
    let seen = || SEEN.with(|s| s.borrow_mut().push((rt.count(), (*rt.ring).status)));
    rt.fast(10, 4); // frame 1: due in frame 5
    rt.request(20, 4);
    delays(rt.rt, 0);
    seen();
    if rt.ring_host {
        write_frames(rt);
    }
    delays(rt.rt, 1000);
    seen();
    // A drain files the bound batch's records: only those written before the
    // first waiting frame (10); the later ones wait for their frames.
    assert_eq!(onity_runtime_drain(rt.rt), OnityStatus::Ok);
    let mut t = 0;
    assert_eq!(onity_next_frame(rt.rt, UPDATE, 0, &mut t), OnityStatus::Ok);
    seen();
    assert_eq!(onity_task_cancel(rt.rt, t), OnityStatus::Ok);
}

/// Frames 2 to 4 with a fast record and a request after each (due in
/// frames 5, 6, 6; one filed with frame 1 would be due in 4, 4, 3).
fn write_frames(rt: &Rt) {
    rt.begin(info(2));
    rt.fast(11, 3);
    rt.request(21, 3);
    rt.begin(info(3));
    rt.fast(12, 3);
    rt.request(22, 3);
    rt.begin(info(4));
    rt.fast(13, 2);
    rt.request(23, 2);
}

/// The fast ids each Update tick of frames 1 (the continuation's), 4, 5 and
/// 6 reports (and the request ids resumed since the previous), the Delays
/// frame 4's LATE tick completes, the last frame and the ring's final status.
type Schedule = (Vec<(Vec<u32>, Vec<u64>)>, Vec<usize>, u64, u32);

fn waits_in_a_tick_schedule(ring_host: bool) -> Schedule {
    DONE.with(|d| d.borrow_mut().clear());
    SEEN.with(|s| s.borrow_mut().clear());
    let rt = Rt::new(ring_host);
    rt.begin(info(1));
    let user = &rt as *const Rt as *mut c_void;
    assert_eq!(onity_yield_then(rt.rt, UPDATE, 0, Some(waits_inside_a_tick), user), OnityStatus::Ok);
    let mut ticks = vec![(rt.tick(UPDATE), rt.resumed())];
    if !ring_host {
        write_frames(&rt);
    }
    ticks.push((rt.tick(UPDATE), rt.resumed()));
    rt.tick(LATE);
    for f in 5..=6 {
        rt.begin(info(f));
        ticks.push((rt.tick(UPDATE), rt.resumed()));
    }
    let seen = SEEN.with(|s| s.take());
    let waiting = if ring_host { 3 } else { 0 };
    assert_eq!(seen, vec![(0, 0), (waiting, 0), (waiting, 0)], "the ring is left as written inside the tick");
    assert_eq!(rt.count(), 0);
    (ticks, DONE.with(|d| d.take()), rt.frame(), rt.take_status())
}

/// Frames written before C code inside a tick schedules a wait (which
/// applies the ring outside a tick) wait, untouched, for the first call
/// after the tick, then apply in order as frames begun one by one: same
/// clocks, records filed with their frames, nothing dropped, no status.
#[test]
fn frames_written_when_a_tick_schedules_waits_apply_after_it() {
    let by_call = waits_in_a_tick_schedule(false);
    let (ticks, delays_done, frame, status) = &by_call;
    let (none, no) = (Vec::<u32>::new(), Vec::<u64>::new());
    let expected =
        vec![(none.clone(), no.clone()), (none, no), (vec![10, 11], vec![20, 21]), (vec![12, 13], vec![22, 23])];
    assert_eq!(ticks, &expected);
    assert!(!delays_done.is_empty() && delays_done.len() < 400, "{} Delays done", delays_done.len());
    assert_eq!((*frame, *status), (6, 0));
    assert_eq!(waits_in_a_tick_schedule(true), by_call);
}

impl Rt {
    /// The published frame state (`onity_runtime_frame_clock`), read
    /// without a call after the first.
    fn clock(&self) -> *const OnityFrameClock {
        let mut c = ptr::null();
        assert_eq!(onity_runtime_frame_clock(self.rt, &mut c), OnityStatus::Ok);
        assert!(!c.is_null());
        c
    }

    fn task_done(&self, t: u64) -> bool {
        let mut s = 0;
        assert_eq!(onity_task_state(self.rt, t, &mut s), OnityStatus::Ok);
        s == OnityTaskState::Succeeded as u32
    }
}

/// The clock the frames `frames` leave, added in turn.
fn expected_clock(frames: &[u64]) -> (u64, u64, [f64; 3]) {
    let mut c = [0.0; 3];
    for &f in frames {
        let i = info(f);
        c[0] += i.delta_time;
        c[1] += i.unscaled_delta_time;
        c[2] = i.realtime;
    }
    (*frames.last().unwrap_or(&0), frames.len() as u64, c)
}

fn read_clock(c: *const OnityFrameClock) -> (u64, u64, [f64; 3]) {
    // SAFETY: the runtime's published state; owner thread, between calls.
    let c = unsafe { *c };
    (c.frame, c.frames_begun, [c.scaled_time, c.unscaled_time, c.realtime])
}

#[test]
fn the_frame_clock_publishes_every_begin_by_call_or_ring() {
    for ring_host in [false, true] {
        let rt = Rt::new(ring_host);
        let c = rt.clock();
        // SAFETY (every read below): as in `read_clock`.
        assert_eq!(unsafe { *c }.origin, 0);
        assert_eq!(read_clock(c), expected_clock(&[]), "before the first frame");
        // Waits made before the first frame count from the frame before it.
        let (mut early, mut late) = (0u64, 0u64);
        assert_eq!(onity_delay_frame(rt.rt, 3, UPDATE, 0, &mut early), OnityStatus::Ok);
        rt.begin(info(41));
        rt.tick(UPDATE);
        let origin = unsafe { *c }.origin;
        assert_eq!(origin, 40, "ring {ring_host}: the first frame's number minus 1");
        assert_eq!(read_clock(c), expected_clock(&[41]));
        let mut frames = vec![41];
        for f in [42, 45, 46, 50] {
            rt.begin(info(f));
            frames.push(f);
            if ring_host {
                assert_eq!(read_clock(c), expected_clock(&frames[..frames.len() - 1]), "ring: not applied yet");
            }
            if f == 45 {
                // Made at count 45 - origin: a DelayFrame(2) is due at count + 2 (frame 47: none; 50).
                assert_eq!(onity_delay_frame(rt.rt, 2, UPDATE, 0, &mut late), OnityStatus::Ok);
            }
            rt.tick(UPDATE);
            assert_eq!(read_clock(c), expected_clock(&frames), "ring {ring_host}: frame {f}");
            assert_eq!(unsafe { *c }.origin, origin, "the origin stays");
            // DelayFrame(3) made before the first frame: due at count 3 (frame 43: done by 45).
            assert_eq!(rt.task_done(early), f - origin >= 3, "ring {ring_host}: early wait at frame {f}");
            if late != 0 {
                assert_eq!(rt.task_done(late), f - origin >= 45 - origin + 2, "late wait at frame {f}");
            }
        }
        // A refused frame leaves it unchanged.
        if ring_host {
            rt.begin(info(50)); // FRAME_ORDER, reported by the call that applies it
            rt.tick(UPDATE);
            assert_eq!(rt.take_status(), OnityStatus::FrameOrder as u32);
        } else {
            assert_eq!(onity_runtime_frame_begin(rt.rt, &info(50)), OnityStatus::FrameOrder);
        }
        let mut nan = info(51);
        nan.delta_time = f64::NAN;
        if ring_host {
            rt.begin(nan);
            rt.begin(info(52));
            rt.tick(UPDATE);
            assert_eq!(rt.take_status(), OnityStatus::InvalidArgument as u32);
            frames.push(52);
        }
        assert_eq!(read_clock(c), expected_clock(&frames), "ring {ring_host}: after refusals");
        assert_eq!(rt.clock(), c, "one address for the runtime's life");
    }
}

/// `Rt::begin` asserts the call's status: a refused frame by call here.
#[test]
fn the_frame_clock_skips_a_refused_first_frame_and_frame_0_wraps_the_origin() {
    let rt = Rt::new(false);
    let c = rt.clock();
    let mut bad = info(7);
    bad.realtime = f64::INFINITY;
    assert_eq!(onity_runtime_frame_begin(rt.rt, &bad), OnityStatus::InvalidArgument);
    assert_eq!((unsafe { *c }.origin, read_clock(c)), (0, expected_clock(&[])));
    rt.begin(info(0));
    // SAFETY: as in `read_clock`.
    let origin = unsafe { *c }.origin;
    assert_eq!((origin, 0u64.wrapping_sub(origin)), (u64::MAX, 1), "frame 0 counts 1");
    rt.begin(info(1));
    assert_eq!((read_clock(c), 1u64.wrapping_sub(origin)), (expected_clock(&[0, 1]), 2));
}

#[test]
fn the_frame_clock_export_checks_its_arguments() {
    let rt = Rt::new(true);
    let mut c: *const OnityFrameClock = ptr::null();
    assert_eq!(onity_runtime_frame_clock(ptr::null_mut(), &mut c), OnityStatus::NullPointer);
    assert_eq!(onity_runtime_frame_clock(rt.rt, ptr::null_mut()), OnityStatus::NullPointer);
    let mut dead = ptr::null_mut();
    assert_eq!(onity_runtime_create(ptr::null(), &mut dead), OnityStatus::Ok);
    assert_eq!(onity_runtime_destroy(dead), OnityStatus::Ok);
    assert_eq!(onity_runtime_frame_clock(dead, &mut c), OnityStatus::InvalidRuntime);
    assert_eq!(onity_runtime_frame_clock(dead, ptr::null_mut()), OnityStatus::InvalidRuntime, "the runtime first");
    let p = rt.rt as usize;
    std::thread::spawn(move || {
        let mut c: *const OnityFrameClock = ptr::null();
        assert_eq!(onity_runtime_frame_clock(p as *mut OnityRuntime, &mut c), OnityStatus::WrongThread);
        assert!(c.is_null(), "nothing written on error");
    })
    .join()
    .unwrap();
    assert!(c.is_null(), "nothing written on error");
    // It applies the ring first.
    rt.begin(info(3));
    assert_eq!(rt.count(), 1);
    let c = rt.clock();
    assert_eq!((rt.count(), read_clock(c)), (0, expected_clock(&[3])));
}

/// What the continuation saw: the two rebinding statuses, whether they
/// wrote nothing, the status of binding the bound batch again and the
/// ring's count then (no assertion there: a panic cannot unwind out of it).
type Rebind = (u32, u32, bool, u32, bool, u32);

thread_local!(static REBIND: RefCell<Option<(*const Rt, *mut OnityBatch, Rebind)>> = const { RefCell::new(None) });

/// A continuation (inside a tick) that writes frames 2 to 4 with the bound
/// batch's records between them, then tries to bind the ring to another
/// batch through both exports: the waiting frames' splits count the bound
/// batch's records, so the binding cannot change until they apply.
unsafe extern "C" fn rebind_inside_a_tick(_user: *mut c_void, _task: u64, _state: u32) {
    let (rt, other, _) = REBIND.with(|c| c.borrow().unwrap());
    let rt = &*rt;
    write_frames(rt);
    // Binding the bound batch again is no change: allowed.
    let (mut again, mut cap) = (ptr::null_mut(), 0);
    let same = onity_batch_frame_ring(rt.rt, rt.b, &mut again, &mut cap) as u32;
    let (mut ring, mut one) = (ptr::null_mut(), ptr::null_mut());
    let st = onity_batch_frame_ring(rt.rt, other, &mut ring, &mut cap) as u32;
    let st1 = onity_batch_deferred_frame(rt.rt, other, &mut one) as u32;
    let untouched = ring.is_null() && one.is_null();
    let seen = (st, st1, untouched, same, again == rt.ring, rt.count());
    REBIND.with(|c| c.borrow_mut().as_mut().unwrap().2 = seen);
}

/// Binding the ring to another batch inside a tick, while frames written
/// there wait, is refused (`REENTRANT`): the bound batch's records between
/// the frames still file with their frames (a rebind filed them all with
/// the frame before the ring, up to three frames early).
#[test]
fn rebinding_the_ring_while_frames_wait_in_a_tick_is_refused() {
    let rt = Rt::new(true);
    let mut other = ptr::null_mut();
    assert_eq!(onity_batch_create(rt.rt, 8, &mut other), OnityStatus::Ok);
    rt.begin(info(1));
    REBIND.with(|c| *c.borrow_mut() = Some((&rt as *const Rt, other, (0, 0, false, 0, false, 0))));
    assert_eq!(onity_yield_then(rt.rt, UPDATE, 0, Some(rebind_inside_a_tick), ptr::null_mut()), OnityStatus::Ok);
    let mut ticks = vec![(rt.tick(UPDATE), rt.resumed())];
    let (_, _, seen) = REBIND.with(|c| c.borrow_mut().take().unwrap());
    let (re, ok) = (OnityStatus::Reentrant as u32, OnityStatus::Ok as u32);
    assert_eq!(seen, (re, re, true, ok, true, 3), "refused, nothing written; the bound batch again: allowed");
    ticks.push((rt.tick(UPDATE), rt.resumed()));
    for f in 5..=6 {
        rt.begin(info(f));
        ticks.push((rt.tick(UPDATE), rt.resumed()));
    }
    let (none, no) = (Vec::<u32>::new(), Vec::<u64>::new());
    let expected = vec![(none.clone(), no.clone()), (none, no), (vec![11], vec![21]), (vec![12, 13], vec![22, 23])];
    assert_eq!(ticks, expected, "the records file with the frames they were written after");
    assert_eq!((rt.frame(), rt.take_status()), (6, 0));
    // Outside a tick the ring is applied first: binding another batch is allowed.
    let (mut ring, mut cap) = (ptr::null_mut(), 0);
    assert_eq!(onity_batch_frame_ring(rt.rt, other, &mut ring, &mut cap), OnityStatus::Ok);
    assert_eq!(onity_batch_destroy(rt.rt, other), OnityStatus::Ok);
}
