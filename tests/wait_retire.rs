//! Retirable callback waits (ABI 1.3): the `_then_id` forms and
//! `onity_wait_retire`: every misuse, a far wait leaving its store at once,
//! a near one leaving at its run, and retiring from inside a run (the near
//! waits and the held far waits of the run in progress) and during the
//! runtime's destruction.

mod support;

use std::cell::RefCell;
use std::ffi::c_void;
use std::ptr;

use onity::ffi::*;
use support::*;

const UPDATE: u32 = OnityTiming::Update as u32;
const WAIT_RECORDS: usize = OnityPool::WaitRecords as usize;

/// One wait's slot (first: the callback's `user` is the slot) and what its
/// callback saw.
#[repr(C)]
#[derive(Default)]
struct Slot {
    id: u64,
    calls: Vec<u32>,
    /// Slots to retire from inside this one's callback.
    retire: Vec<*mut Slot>,
}

thread_local!(static RT: RefCell<*mut OnityRuntime> = const { RefCell::new(ptr::null_mut()) });

unsafe extern "C" fn on_wait(user: *mut c_void, _task: u64, state: u32) {
    let s = &mut *(user as *mut Slot);
    s.calls.push(state);
    let rt = RT.with(|r| *r.borrow());
    for &other in &s.retire {
        assert_eq!(onity_wait_retire(rt, &mut (*other).id), S::Ok);
    }
}

fn live_records(rt: *mut OnityRuntime) -> u64 {
    stats(rt).pools[WAIT_RECORDS].live
}

fn next_frame(rt: *mut OnityRuntime, s: &mut Slot) {
    assert_eq!(onity_next_frame_then_id(rt, UPDATE, 0, Some(on_wait), &mut s.id), S::Ok);
}

fn delay_frame(rt: *mut OnityRuntime, n: u32, s: &mut Slot) {
    assert_eq!(onity_delay_frame_then_id(rt, n, UPDATE, 0, Some(on_wait), &mut s.id), S::Ok);
}

#[test]
fn misuse_is_refused_and_changes_nothing() {
    let rt = runtime();
    frame(rt, 1);
    let mut s = Slot::default();
    let cb = Some(on_wait as unsafe extern "C" fn(*mut c_void, u64, u32));
    assert_eq!(onity_yield_then_id(rt, UPDATE, 0, cb, ptr::null_mut()), S::NullPointer);
    assert_eq!(onity_yield_then_id(rt, UPDATE, 0, None, &mut s.id), S::NullPointer);
    assert_eq!(onity_yield_then_id(rt, 16, 0, cb, &mut s.id), S::InvalidArgument);
    assert_eq!(onity_delay_then_id(rt, -1.0, 0, UPDATE, 0, cb, &mut s.id), S::InvalidArgument);
    assert_eq!(onity_delay_then_id(rt, 1.0, 3, UPDATE, 0, cb, &mut s.id), S::InvalidArgument);
    assert_eq!(onity_next_frame_then_id(ptr::null_mut(), UPDATE, 0, cb, &mut s.id), S::NullPointer);
    // The documented order: runtime, timing, clock, callback, then the slot.
    assert_eq!(onity_yield_then_id(rt, 16, 0, cb, ptr::null_mut()), S::InvalidArgument, "timing before slot");
    assert_eq!(onity_delay_then_id(rt, 1.0, 3, UPDATE, 0, None, ptr::null_mut()), S::InvalidArgument, "clock first");
    let bad = 8 as *mut OnityRuntime;
    assert_eq!(onity_next_frame_then_id(bad, 16, 0, cb, ptr::null_mut()), S::InvalidRuntime, "runtime first");
    assert_eq!(onity_delay_frame_then_id(rt, 5, UPDATE, 12345, cb, &mut s.id), S::InvalidHandle);
    assert_eq!(s.id, 0, "nothing written on failure");
    assert_eq!(live_records(rt), 0);

    delay_frame(rt, 100, &mut s);
    assert_ne!(s.id, 0);
    let id = s.id;
    assert_eq!(onity_wait_retire(rt, ptr::null_mut()), S::NullPointer);
    assert_eq!(onity_wait_retire(ptr::null_mut(), &mut s.id), S::NullPointer);
    // Another slot holding the same id: not the wait's `user`.
    let mut copy = id;
    assert_eq!(onity_wait_retire(rt, &mut copy), S::StaleHandle);
    let mut zero = 0u64;
    assert_eq!(onity_wait_retire(rt, &mut zero), S::InvalidHandle);
    let mut far_future = (1u64 << 40) << 5;
    assert_eq!(onity_wait_retire(rt, &mut far_future), S::InvalidHandle);
    // A made-up far id (slot 999): no such wait, as for an old id whose
    // store was compacted since.
    let mut made_up_far = 1u64 << 37 | 999 << 5 | 1 << 4;
    assert_eq!(onity_wait_retire(rt, &mut made_up_far), S::StaleHandle);
    let other = std::thread::scope(|sc| {
        let (rtp, slot) = (rt as usize, &mut s.id as *mut u64 as usize);
        sc.spawn(move || onity_wait_retire(rtp as *mut OnityRuntime, slot as *mut u64)).join().unwrap()
    });
    assert_eq!(other, S::WrongThread);
    assert_eq!(live_records(rt), 1, "still pending");
    assert_eq!(onity_wait_retire(rt, &mut s.id), S::Ok);
    assert_eq!(onity_wait_retire(rt, &mut s.id), S::StaleHandle, "twice");
    assert_eq!(live_records(rt), 0);
    assert_eq!(onity_runtime_destroy(rt), S::Ok);
    assert!(s.calls.is_empty());
}

#[test]
fn far_waits_leave_at_once_near_ones_at_their_run() {
    let rt = runtime();
    frame(rt, 1);
    let (mut far, mut delay, mut near, mut kept) = (Slot::default(), Slot::default(), Slot::default(), Slot::default());
    delay_frame(rt, 1000, &mut far);
    let cb = Some(on_wait as unsafe extern "C" fn(*mut c_void, u64, u32));
    assert_eq!(onity_delay_then_id(rt, 60.0, 0, UPDATE, 0, cb, &mut delay.id), S::Ok);
    next_frame(rt, &mut near);
    next_frame(rt, &mut kept);
    assert_eq!(live_records(rt), 4);
    assert_eq!(onity_wait_retire(rt, &mut far.id), S::Ok);
    assert_eq!(live_records(rt), 3, "a far wait leaves its store at once");
    assert_eq!(onity_wait_retire(rt, &mut delay.id), S::Ok);
    assert_eq!(live_records(rt), 2, "so does a Delay not yet due");
    assert_eq!(onity_wait_retire(rt, &mut near.id), S::Ok);
    assert_eq!(live_records(rt), 2, "a near one is marked");
    frame(rt, 2);
    assert_eq!(onity_runtime_tick(rt, UPDATE), S::Ok);
    let after = stats(rt);
    assert_eq!(after.pools[WAIT_RECORDS].live, 0, "the marked one left at its run");
    assert!(far.calls.is_empty() && delay.calls.is_empty() && near.calls.is_empty());
    assert_eq!(kept.calls, [OnityTaskState::Succeeded as u32]);
    assert_eq!(after.waits[OnityWaitKind::DelayFrame as usize].canceled, 1);
    assert_eq!(after.waits[OnityWaitKind::Delay as usize].canceled, 1);
    assert_eq!(after.waits[OnityWaitKind::NextFrame as usize].canceled, 1);
    assert_eq!(after.waits[OnityWaitKind::NextFrame as usize].completed, 1);
    assert_eq!(onity_runtime_destroy(rt), S::Ok);
}

/// Retired from a callback of the run that holds them: near waits later
/// in the run (in its local records), and a far wait due in the same run
/// (held by it); none is called, each is counted canceled.
#[test]
fn retired_inside_the_run_that_holds_them() {
    let rt = runtime();
    RT.with(|r| *r.borrow_mut() = rt);
    frame(rt, 1);
    let (mut first, mut near, mut last) = (Slot::default(), Slot::default(), Slot::default());
    next_frame(rt, &mut first);
    next_frame(rt, &mut near);
    next_frame(rt, &mut last);
    first.retire = vec![&mut near, &mut last];
    let (mut far_a, mut far_b) = (Slot::default(), Slot::default());
    delay_frame(rt, 3, &mut far_a); // far: due at frame 4
    delay_frame(rt, 3, &mut far_b); // after far_a in the same run
    far_a.retire = vec![&mut far_b];
    assert_eq!(live_records(rt), 5);
    frame(rt, 2);
    assert_eq!(onity_runtime_tick(rt, UPDATE), S::Ok);
    assert_eq!(first.calls.len(), 1);
    assert!(near.calls.is_empty() && last.calls.is_empty());
    assert_eq!(live_records(rt), 2);
    for f in 3..=4 {
        frame(rt, f);
        assert_eq!(onity_runtime_tick(rt, UPDATE), S::Ok);
    }
    assert_eq!(far_a.calls.len(), 1);
    assert!(far_b.calls.is_empty());
    let st = stats(rt);
    assert_eq!(st.pools[WAIT_RECORDS].live, 0);
    assert_eq!(st.waits[OnityWaitKind::NextFrame as usize].canceled, 2);
    assert_eq!(st.waits[OnityWaitKind::DelayFrame as usize].canceled, 1);
    assert_eq!(onity_runtime_destroy(rt), S::Ok);
    RT.with(|r| *r.borrow_mut() = ptr::null_mut());
}

/// While the runtime is destroyed (every wait completes canceled), a
/// callback may retire waits not yet called back: they are not called.
#[test]
fn retired_during_the_runtimes_destruction() {
    let rt = runtime();
    RT.with(|r| *r.borrow_mut() = rt);
    frame(rt, 1);
    let (mut first, mut near, mut far) = (Slot::default(), Slot::default(), Slot::default());
    next_frame(rt, &mut first);
    next_frame(rt, &mut near);
    delay_frame(rt, 50, &mut far);
    first.retire = vec![&mut near, &mut far];
    assert_eq!(onity_runtime_destroy(rt), S::Ok);
    assert_eq!(first.calls, [OnityTaskState::Canceled as u32]);
    assert!(near.calls.is_empty() && far.calls.is_empty());
    RT.with(|r| *r.borrow_mut() = ptr::null_mut());
}

/// A wait and what its callback does: retire each of `retire` and record
/// the statuses (unlike `on_wait`, which asserts `OK`).
#[repr(C)]
#[derive(Default)]
struct Probe {
    id: u64,
    calls: Vec<u32>,
    retire: Vec<*mut Probe>,
    got: Vec<OnityStatus>,
    /// Order of the callbacks across probes.
    order: Option<*mut Vec<u32>>,
    tag: u32,
    /// A cancel source to cancel after the retires (0: none).
    cancel: u64,
}

unsafe extern "C" fn on_probe(user: *mut c_void, _task: u64, state: u32) {
    let p = &mut *(user as *mut Probe);
    p.calls.push(state);
    if let Some(o) = p.order {
        (*o).push(p.tag);
    }
    let rt = RT.with(|r| *r.borrow());
    let targets = p.retire.clone();
    for other in targets {
        let s = onity_wait_retire(rt, &mut (*other).id);
        (*(user as *mut Probe)).got.push(s);
    }
    let src = (*(user as *mut Probe)).cancel;
    if src != 0 {
        assert_eq!(onity_cancel_source_cancel(rt, src), S::Ok);
    }
}

const PROBE: OnityCallback = Some(on_probe as unsafe extern "C" fn(*mut c_void, u64, u32));

/// From a callback of a run: a wait of that run already called back
/// (earlier in the run, or the callback's own wait) is not pending:
/// `STALE_HANDLE`, as for one that ran in an earlier run. A caller that
/// frees what the callback owns on `OK` would free it twice otherwise.
#[test]
fn a_wait_that_ran_earlier_in_the_run_is_stale() {
    let rt = runtime();
    RT.with(|r| *r.borrow_mut() = rt);
    frame(rt, 1);
    let (mut a, mut b, mut c) = (Probe::default(), Probe::default(), Probe::default());
    for p in [&mut a, &mut b, &mut c] {
        assert_eq!(onity_next_frame_then_id(rt, UPDATE, 0, PROBE, &mut p.id), S::Ok);
    }
    // b retires a (it ran), itself (it is running), c (not reached yet).
    b.retire = vec![&mut a, &mut b, &mut c];
    frame(rt, 2);
    assert_eq!(onity_runtime_tick(rt, UPDATE), S::Ok);
    assert_eq!(b.got, [S::StaleHandle, S::StaleHandle, S::Ok]);
    assert_eq!((a.calls.len(), b.calls.len(), c.calls.len()), (1, 1, 0));
    let st = stats(rt);
    assert_eq!(st.waits[OnityWaitKind::NextFrame as usize].completed, 2);
    assert_eq!(st.waits[OnityWaitKind::NextFrame as usize].canceled, 1);
    assert_eq!(st.pools[WAIT_RECORDS].live, 0);
    assert_eq!(onity_runtime_destroy(rt), S::Ok);
    RT.with(|r| *r.borrow_mut() = ptr::null_mut());
}

/// Kept records of a run (not due: scheduled earlier in this frame) are
/// copied towards the front, over records that ran: a retire from a later
/// callback finds the pending copy (and not the one that ran), also when
/// that callback's cancel starts the run's cancel passes.
#[test]
fn stale_copies_of_a_run_are_never_taken_for_pending_waits() {
    let rt = runtime();
    RT.with(|r| *r.borrow_mut() = rt);
    frame(rt, 1);
    let mut src = 0u64;
    assert_eq!(onity_cancel_source_create(rt, &mut src), S::Ok);
    let mut a = Probe::default();
    assert_eq!(onity_next_frame_then_id(rt, UPDATE, 0, PROBE, &mut a.id), S::Ok);
    frame(rt, 2);
    // Scheduled in frame 2 before its run: d and b are kept by it (due at
    // 3), y runs in it.
    let (mut d, mut b, mut y) = (Probe::default(), Probe::default(), Probe::default());
    assert_eq!(onity_next_frame_then_id(rt, UPDATE, 0, PROBE, &mut d.id), S::Ok);
    assert_eq!(onity_next_frame_then_id(rt, UPDATE, src, PROBE, &mut b.id), S::Ok);
    assert_eq!(onity_yield_then_id(rt, UPDATE, 0, PROBE, &mut y.id), S::Ok);
    y.retire = vec![&mut a, &mut d];
    y.cancel = src;
    assert_eq!(onity_runtime_tick(rt, UPDATE), S::Ok);
    assert_eq!(y.got, [S::StaleHandle, S::Ok]);
    assert_eq!(a.calls, [OnityTaskState::Succeeded as u32]);
    assert_eq!(b.calls, [OnityTaskState::Canceled as u32], "canceled in the run's cancel pass");
    frame(rt, 3);
    assert_eq!(onity_runtime_tick(rt, UPDATE), S::Ok);
    assert!(d.calls.is_empty());
    let st = stats(rt);
    assert_eq!(st.pools[WAIT_RECORDS].live, 0);
    assert_eq!(st.waits[OnityWaitKind::NextFrame as usize].canceled, 2);
    assert_eq!(onity_runtime_destroy(rt), S::Ok);
    RT.with(|r| *r.borrow_mut() = ptr::null_mut());
}

/// A retired wait whose token is canceled later is not called and is
/// counted canceled once; the waits left run in the order they were
/// scheduled; a far slot freed by a retire and reused by another wait is
/// not reached through the old id; the pools stay consistent.
#[test]
fn cancel_after_retire_fifo_slot_reuse_and_pool_stats() {
    let rt = runtime();
    RT.with(|r| *r.borrow_mut() = rt);
    frame(rt, 1);
    let mut src = 0u64;
    assert_eq!(onity_cancel_source_create(rt, &mut src), S::Ok);
    let tok = src;
    let mut order: Vec<u32> = Vec::new();
    let mut ps: Vec<Probe> = (0..6).map(|i| Probe { tag: i, order: Some(&mut order), ..Default::default() }).collect();
    for p in ps.iter_mut() {
        assert_eq!(onity_next_frame_then_id(rt, UPDATE, tok, PROBE, &mut p.id), S::Ok);
    }
    let mut far_old = Probe::default();
    assert_eq!(onity_delay_frame_then_id(rt, 50, UPDATE, tok, PROBE, &mut far_old.id), S::Ok);
    let old_id = far_old.id;
    for i in [1, 3] {
        assert_eq!(onity_wait_retire(rt, &mut ps[i].id), S::Ok);
    }
    assert_eq!(onity_wait_retire(rt, &mut far_old.id), S::Ok);
    // A new far wait takes the freed slot; the old id in another slot does
    // not reach it, nor does the old slot once its id is rewritten.
    let mut far_new = Probe::default();
    assert_eq!(onity_delay_frame_then_id(rt, 50, UPDATE, 0, PROBE, &mut far_new.id), S::Ok);
    let slot_of = |id: u64| (id >> 5) as u32;
    assert_eq!(slot_of(far_new.id), slot_of(old_id), "the freed slot is reused");
    assert_ne!(far_new.id, old_id);
    let mut stale = old_id;
    assert_eq!(onity_wait_retire(rt, &mut stale), S::StaleHandle);
    assert_eq!(onity_wait_retire(rt, &mut far_old.id), S::StaleHandle);
    let st = stats(rt);
    let pool = st.pools[WAIT_RECORDS];
    assert!(pool.idle <= pool.capacity, "idle {} > capacity {}", pool.idle, pool.capacity);
    // Cancel: the waits not retired complete canceled; the retired ones
    // are not called and count once.
    assert_eq!(onity_cancel_source_cancel(rt, src), S::Ok);
    frame(rt, 2);
    assert_eq!(onity_runtime_tick(rt, UPDATE), S::Ok);
    assert_eq!(order, [0, 2, 4, 5]);
    assert!(ps[1].calls.is_empty() && ps[3].calls.is_empty() && far_old.calls.is_empty());
    let st = stats(rt);
    assert_eq!(st.waits[OnityWaitKind::NextFrame as usize].canceled, 6);
    assert_eq!(st.waits[OnityWaitKind::DelayFrame as usize].canceled, 1);
    assert_eq!(st.pools[WAIT_RECORDS].live, 1, "far_new only");
    let pool = st.pools[WAIT_RECORDS];
    assert!(pool.idle <= pool.capacity);
    assert_eq!(onity_wait_retire(rt, &mut far_new.id), S::Ok);
    assert_eq!(stats(rt).pools[WAIT_RECORDS].live, 0);
    assert_eq!(onity_runtime_destroy(rt), S::Ok);
    assert!(far_new.calls.is_empty());
    RT.with(|r| *r.borrow_mut() = ptr::null_mut());
}

/// An id from another runtime names no wait of this one: refused, and the
/// wait of this runtime with the same sequence number (another slot) stays.
#[test]
fn an_id_from_another_runtime_is_refused() {
    let (a, b) = (runtime(), runtime());
    frame(a, 1);
    frame(b, 1);
    let (mut sa, mut sb, mut sa_far, mut sb_far) = (Slot::default(), Slot::default(), Slot::default(), Slot::default());
    next_frame(a, &mut sa);
    next_frame(b, &mut sb);
    delay_frame(a, 100, &mut sa_far);
    delay_frame(b, 100, &mut sb_far);
    assert_eq!(sa.id, sb.id, "same sequence number in each runtime");
    assert_eq!(sa_far.id, sb_far.id, "same far slot and sequence");
    assert_eq!(onity_wait_retire(b, &mut sa.id), S::StaleHandle);
    assert_eq!(onity_wait_retire(b, &mut sa_far.id), S::StaleHandle);
    assert_eq!(live_records(b), 2);
    frame(b, 2);
    assert_eq!(onity_runtime_tick(b, UPDATE), S::Ok);
    assert_eq!(sb.calls, [OnityTaskState::Succeeded as u32]);
    assert_eq!(onity_wait_retire(a, &mut sa_far.id), S::Ok);
    assert_eq!(onity_wait_retire(a, &mut sa.id), S::Ok);
    assert_eq!(onity_runtime_destroy(a), S::Ok);
    assert_eq!(onity_runtime_destroy(b), S::Ok);
    assert!(sa.calls.is_empty() && sa_far.calls.is_empty());
    assert_eq!(sb_far.calls, [OnityTaskState::Canceled as u32]);
}
