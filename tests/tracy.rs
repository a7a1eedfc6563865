//! The `tracy` feature (issue 20 #3): with `--features tracy` the runtime
//! opens Tracy zones for each tick and batch call and plots pool live counts
//! and pending waits at each frame begin. This drives those paths with the
//! Tracy client running and no server connected (the feature builds the
//! client `ondemand`: nothing is collected until a server connects).
//! Run by `scripts/check-tracy.sh` (part of scripts/test-all.sh); without
//! the feature it is empty.
#![cfg(feature = "tracy")]

use std::ptr;

use onity::ffi::*;

#[test]
fn zones_and_plots_run_without_a_server() {
    let mut rt = ptr::null_mut();
    assert_eq!(onity_runtime_create(ptr::null(), &mut rt), OnityStatus::Ok);
    let mut batch = ptr::null_mut();
    let mut resumed = 0u64;
    assert_eq!(onity_batch_create(rt, 64, &mut batch), OnityStatus::Ok);
    for f in 1..=100u64 {
        let fi = OnityFrameInfo {
            size: std::mem::size_of::<OnityFrameInfo>() as u32,
            reserved: 0,
            frame: f,
            delta_time: 0.016,
            unscaled_delta_time: 0.016,
            realtime: f as f64,
        };
        assert_eq!(onity_runtime_frame_begin(rt, &fi), OnityStatus::Ok);
        let update = OnityTiming::Update as u32;
        assert_eq!(
            onity_next_frame_then(rt, update, 0, Some(count), &mut resumed as *mut u64 as *mut _),
            OnityStatus::Ok
        );
        assert_eq!(onity_batch_tick(rt, batch, update), OnityStatus::Ok);
        assert_eq!(onity_runtime_tick(rt, OnityTiming::LastUpdate as u32), OnityStatus::Ok);
    }
    assert_eq!(resumed, 99);
    assert!(tracy_client::Client::is_running(), "the runtime started the Tracy client");
    assert_eq!(onity_batch_destroy(rt, batch), OnityStatus::Ok);
    assert_eq!(onity_runtime_destroy(rt), OnityStatus::Ok);
}

unsafe extern "C" fn count(user: *mut std::ffi::c_void, _task: u64, state: u32) {
    if state == OnityTaskState::Succeeded as u32 {
        *(user as *mut u64) += 1;
    }
}
