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
