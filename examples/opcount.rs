//! Runs one benchmark scenario through the C ABI a given number of times, so
//! `scripts/opcount.sh` can count instructions per operation with callgrind
//! (repeatable whatever else the machine is doing, unlike wall time).
//!
//!     cargo run --release --example opcount -- SCENARIO ITERATIONS

use std::ffi::c_void;
use std::hint::black_box;
use std::ptr;

use onity::ffi::*;

const UPDATE: u32 = OnityTiming::Update as u32;

fn frame_info(n: u64) -> OnityFrameInfo {
    OnityFrameInfo {
        size: std::mem::size_of::<OnityFrameInfo>() as u32,
        reserved: 0,
        frame: n,
        delta_time: 0.016,
        unscaled_delta_time: 0.016,
        realtime: n as f64,
    }
}

unsafe extern "C" fn next_frame_then_cb(user: *mut c_void, _task: u64, _state: u32) {
    onity_next_frame_then(user as *mut OnityRuntime, UPDATE, 0, Some(next_frame_then_cb), user);
}

unsafe extern "C" fn next_frame_task_cb(user: *mut c_void, task: u64, _state: u32) {
    let rt = user as *mut OnityRuntime;
    onity_task_consume(rt, task, ptr::null_mut());
    let mut h = 0;
    onity_next_frame(rt, UPDATE, 0, &mut h);
    onity_task_on_complete(rt, h, Some(next_frame_task_cb), user);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let scenario = args.get(1).map(String::as_str).unwrap_or("completed");
    let n: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let mut rt = ptr::null_mut();
    let cfg = OnityRuntimeConfig { task_capacity: 65_536, ..OnityRuntimeConfig::default() };
    assert_eq!(onity_runtime_create(&cfg, &mut rt), OnityStatus::Ok);
    const TASKS: u64 = 4096;
    match scenario {
        // One op = create, set result, consume.
        "completed" => {
            for i in 0..n {
                let mut h = 0;
                onity_task_create(rt, &mut h);
                onity_task_set_result(rt, h, i);
                let mut o = OnityOutcome { value: 0, error: 0, state: 0, index: 0, reserved: 0 };
                onity_task_consume(rt, h, &mut o);
                black_box(o.value);
            }
        }
        // One op = a frame of 4096 NextFrame resumptions (divide by 4096).
        "next_frame_callback" | "next_frame_task" => {
            let task = scenario == "next_frame_task";
            for _ in 0..TASKS {
                if task {
                    let mut h = 0;
                    onity_next_frame(rt, UPDATE, 0, &mut h);
                    onity_task_on_complete(rt, h, Some(next_frame_task_cb), rt as *mut c_void);
                } else {
                    onity_next_frame_then(rt, UPDATE, 0, Some(next_frame_then_cb), rt as *mut c_void);
                }
            }
            for f in 1..=n {
                onity_runtime_frame_begin(rt, &frame_info(f));
                onity_runtime_tick(rt, UPDATE);
            }
        }
        // One op = a WhenAny over 32 inputs completed in reverse.
        "when_any_32" => {
            let mut ins = [0u64; 32];
            for _ in 0..n {
                for h in ins.iter_mut() {
                    onity_task_create(rt, h);
                }
                let mut any = 0;
                onity_when_any(rt, ins.as_ptr(), 32, 0, &mut any);
                for (i, h) in ins.iter().enumerate().rev() {
                    onity_task_set_result(rt, *h, i as u64);
                }
                onity_task_consume(rt, any, ptr::null_mut());
            }
        }
        other => panic!("unknown scenario {other}"),
    }
    assert_eq!(onity_runtime_destroy(rt), OnityStatus::Ok);
}
