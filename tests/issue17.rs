//! Issue 17's defects 1-7, one test each (or a few), written to the
//! documented or intended behaviour (each failed on the code the issue was
//! filed against). #7's Rust-side tests: tests/runtime_pointer.rs.
//!
//! Full size: `cargo build --release --lib && cargo test --release --test issue17`
//! (release: #2 measures tick times and #1 makes 200,000 runtimes; the C
//! programs of #5 and #7 link the `libonity.so` of the test's profile,
//! hence the `cargo build --release --lib`; they need gcc and valgrind).

mod support;

use std::ffi::c_void;
use std::ptr;
use std::time::{Duration, Instant};

use onity::ffi::*;
use support::*;

const UPDATE: u32 = OnityTiming::Update as u32;

// ---- #1: handles never alias across runtimes ---------------------------------

/// Runtimes made by each #1 test: 100,000 in an optimised build (the
/// issue's figure: `cargo test --release --test issue17`, a stage of
/// `scripts/test-all.sh`); 10,000 in a debug one (the suite's `cargo test`), where creating a runtime costs about
/// 2 ms. Either way each of the 255 tags is reused many times (about 390
/// and 39), which is what the floors are for.
const CYCLES: u32 = if cfg!(debug_assertions) { 10_000 } else { 100_000 };

fn stale_or_foreign(s: S) -> bool {
    matches!(s, S::StaleHandle | S::ForeignHandle)
}

/// A destroyed runtime's task handle, used on each of the later
/// runtimes ([`CYCLES`]; each holding a task of its own in the same slot), is
/// STALE_HANDLE or FOREIGN_HANDLE, and no later runtime issues it again.
#[test]
fn defect1_task_handles_never_alias_across_runtimes() {
    let a = small_runtime();
    let mut h = 0;
    assert_eq!(onity_task_create(a, &mut h), S::Ok);
    assert_eq!(onity_runtime_destroy(a), S::Ok);
    for cycle in 0..CYCLES {
        let b = small_runtime();
        let mut own = 0;
        assert_eq!(onity_task_create(b, &mut own), S::Ok);
        assert_ne!(own, h, "cycle {cycle}: a new runtime issued the destroyed runtime's handle");
        let mut st = 99;
        let s = onity_task_state(b, h, &mut st);
        assert!(stale_or_foreign(s), "cycle {cycle}: task_state = {s:?}");
        let s = onity_task_set_result(b, h, 7);
        assert!(stale_or_foreign(s), "cycle {cycle}: set_result = {s:?}");
        let s = onity_task_consume(b, h, ptr::null_mut());
        assert!(stale_or_foreign(s), "cycle {cycle}: consume = {s:?}");
        assert_eq!(onity_task_state(b, own, &mut st), S::Ok);
        assert_eq!(st, OnityTaskState::Pending as u32, "cycle {cycle}: the runtime's own task was completed");
        assert_eq!(onity_runtime_destroy(b), S::Ok);
    }
}

/// The same for cancellation sources.
#[test]
fn defect1_cancel_source_handles_never_alias_across_runtimes() {
    let a = small_runtime();
    let mut s0 = 0;
    assert_eq!(onity_cancel_source_create(a, &mut s0), S::Ok);
    assert_eq!(onity_runtime_destroy(a), S::Ok);
    for cycle in 0..CYCLES {
        let b = small_runtime();
        let mut own = 0;
        assert_eq!(onity_cancel_source_create(b, &mut own), S::Ok);
        assert_ne!(own, s0, "cycle {cycle}: a new runtime issued the destroyed runtime's source");
        let mut c = 9;
        let s = onity_cancel_source_is_canceled(b, s0, &mut c);
        assert!(stale_or_foreign(s), "cycle {cycle}: is_canceled = {s:?}");
        let s = onity_cancel_source_cancel(b, s0);
        assert!(stale_or_foreign(s), "cycle {cycle}: cancel = {s:?}");
        let s = onity_cancel_source_destroy(b, s0);
        assert!(stale_or_foreign(s), "cycle {cycle}: destroy = {s:?}");
        assert_eq!(onity_cancel_source_is_canceled(b, own, &mut c), S::Ok);
        assert_eq!(c, 0, "cycle {cycle}: the runtime's own source was canceled");
        assert_eq!(onity_runtime_destroy(b), S::Ok);
    }
}

// ---- #2: a tick's cost does not grow with waits not yet due ---------------------

unsafe extern "C" fn count_cb(user: *mut c_void, _task: u64, state: u32) {
    let c = &*(user as *const std::cell::Cell<[u64; 4]>);
    let mut v = c.get();
    v[state as usize] += 1;
    c.set(v);
}

/// Fastest of 50 Update ticks with 1,000,000 waits of `kind` pending and
/// not due, after checking that a due wait among them still resumes.
fn far_future_tick(kind: &str) -> Duration {
    let rt = runtime();
    let counts = std::cell::Cell::new([0u64; 4]);
    let user = &counts as *const _ as *mut c_void;
    frame(rt, 1);
    for _ in 0..1_000_000 {
        let s = match kind {
            "DelayFrame" => onity_delay_frame_then(rt, 1_000_000, UPDATE, 0, Some(count_cb), user),
            _ => onity_delay_then(rt, 1e9, OnityClock::Scaled as u32, UPDATE, 0, Some(count_cb), user),
        };
        assert_eq!(s, S::Ok);
    }
    assert_eq!(onity_delay_frame_then(rt, 3, UPDATE, 0, Some(count_cb), user), S::Ok);
    let mut best = Duration::MAX;
    for f in 2..52 {
        frame(rt, f);
        let t = Instant::now();
        assert_eq!(onity_runtime_tick(rt, UPDATE), S::Ok);
        best = best.min(t.elapsed());
        let due = if f >= 4 { 1 } else { 0 };
        assert_eq!(counts.get()[1], due, "frame {f}: the DelayFrame(3) among them");
    }
    assert_eq!(onity_runtime_destroy(rt), S::Ok);
    assert_eq!(counts.get()[3], 1_000_000, "destroy cancels every pending wait");
    best
}

/// Issue 17 #2: a tick's cost does not grow with 1,000,000 DelayFrame waits
/// not yet due (before the fix: 2.5-11 ms). The bound is 10x the goal
/// (10 us) so that a debug build on a loaded machine passes (fastest of 50
/// ticks); the figures against the goal: `cargo bench --bench far_future`
/// and `scripts/opcount.sh far_future_delay_frame` (instructions).
#[test]
fn defect2_tick_cost_with_a_million_far_future_delay_frame_waits() {
    let t = far_future_tick("DelayFrame");
    assert!(t <= Duration::from_micros(100), "fastest Update tick with 1M far-future DelayFrame waits: {t:?}");
}

/// The same with 1,000,000 Delay waits (1e9 s).
#[test]
fn defect2_tick_cost_with_a_million_far_future_delay_waits() {
    let t = far_future_tick("Delay");
    assert!(t <= Duration::from_micros(100), "fastest Update tick with 1M far-future Delay waits: {t:?}");
}

// ---- #3: frame_alloc sets *out_ptr to NULL on every error ----------------------

#[repr(C, align(64))]
struct Zeroed([u8; 256]);

#[test]
fn defect3_frame_alloc_sets_out_ptr_null_with_a_bad_runtime() {
    let fake = Zeroed([0; 256]);
    for (rt, want) in
        [(ptr::null_mut(), S::NullPointer), (&fake as *const Zeroed as *mut OnityRuntime, S::InvalidRuntime)]
    {
        let mut out = 0x10 as *mut c_void;
        assert_eq!(onity_frame_alloc(rt, 16, 8, 0, &mut out), want);
        assert!(out.is_null(), "{want:?}: *out_ptr left at {out:p}");
    }
}

// ---- #4: the wait-record pool's idle <= capacity -------------------------------

/// `OnityPoolStats` documents idle <= capacity; the issue saw capacity 16,
/// idle 22 with `wait_capacity = 1` and 10 waits.
#[test]
fn defect4_wait_record_idle_never_exceeds_capacity() {
    for wait_capacity in [1u32, 4] {
        for n in [1u32, 10, 40] {
            let rt = runtime_with(|c| c.wait_capacity = wait_capacity);
            for round in 0..3 {
                let mut hs = Vec::new();
                for _ in 0..n {
                    let mut h = 0;
                    assert_eq!(onity_yield(rt, UPDATE, 0, &mut h), S::Ok);
                    hs.push(h);
                }
                let scheduled = stats(rt);
                assert_eq!(onity_runtime_tick(rt, UPDATE), S::Ok);
                let ticked = stats(rt);
                for (when, st) in [("scheduled", scheduled), ("ticked", ticked)] {
                    let p = st.pools[OnityPool::WaitRecords as usize];
                    assert!(
                        p.idle <= p.capacity,
                        "wait_capacity {wait_capacity}, {n} waits, round {round}, {when}: idle {} > capacity {}",
                        p.idle,
                        p.capacity
                    );
                }
                for h in hs {
                    assert_eq!(onity_task_consume(rt, h, ptr::null_mut()), S::Ok);
                }
            }
            assert_eq!(onity_runtime_destroy(rt), S::Ok);
        }
    }
}

// ---- #5: nothing left behind for valgrind after a rewind on a thread ------------

/// `tests/issue17/rewind_on_thread.c` under valgrind with its default leak
/// kinds (definite and possible) and `--error-exitcode`: a runtime used
/// and destroyed on a pthread, on the main thread, and allocated from by a
/// pthread that exits.
#[test]
fn defect5_a_rewind_on_a_thread_leaves_nothing_for_valgrind() {
    assert!(valgrind_available(), "valgrind is needed (apt-get install valgrind)");
    let exe = build_c("issue17/rewind_on_thread.c", "rewind_on_thread");
    let mut failed = Vec::new();
    for mode in ["thread", "main", "worker"] {
        let out = run_valgrind(&exe, &[mode]);
        if !out.status.success() {
            failed.push(format!("{mode}: {}", describe(&out)));
        }
    }
    assert!(failed.is_empty(), "valgrind reported errors:\n{}", failed.join("\n"));
}

// ---- #6: a runtime whose owner thread exited can be reclaimed --------------------

/// 300 runtimes created on threads that exit without destroying them (more
/// than the 255 that may live at once): each is destroyed from this
/// thread once its owner has exited, which frees its slot. (Issue 17 lets
/// phase B choose "destroy from any thread once the owner exited" or a
/// documented forced destroy; this test calls the former.)
#[test]
fn defect6_a_runtime_whose_owner_exited_can_be_destroyed() {
    for i in 0..300 {
        let p = std::thread::spawn(|| {
            let rt = small_runtime();
            let mut t = 0;
            assert_eq!(onity_task_create(rt, &mut t), S::Ok);
            rt as usize
        })
        .join()
        .unwrap() as *mut OnityRuntime;
        let s = onity_runtime_destroy(p);
        assert_eq!(s, S::Ok, "runtime {i}: destroy after its owner thread exited");
    }
    let rt = small_runtime();
    assert_eq!(onity_runtime_destroy(rt), S::Ok);
}

/// Only destruction is allowed from another thread, and only once the owner
/// exited: while it lives, destroy from elsewhere is WRONG_THREAD (nothing
/// destroyed); after it exited, other owner-only calls stay WRONG_THREAD.
#[test]
fn defect6_only_destroy_and_only_after_the_owner_exited() {
    let (tx, rx) = std::sync::mpsc::channel::<usize>();
    let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
    let owner = std::thread::spawn(move || {
        let rt = small_runtime();
        tx.send(rt as usize).unwrap();
        go_rx.recv().unwrap();
    });
    let rt = rx.recv().unwrap() as *mut OnityRuntime;
    assert_eq!(onity_runtime_destroy(rt), S::WrongThread, "the owner is alive");
    go_tx.send(()).unwrap();
    owner.join().unwrap();
    let mut h = 0;
    assert_eq!(onity_task_create(rt, &mut h), S::WrongThread);
    assert_eq!(onity_runtime_tick(rt, UPDATE), S::WrongThread);
    assert_eq!(onity_runtime_destroy(rt), S::Ok);
}

// ---- #7: bad runtime pointers are refused without a read --------------------------

/// A destroyed runtime: INVALID_RUNTIME, and valgrind sees no read of the
/// freed memory.
#[test]
fn defect7_a_freed_runtime_is_not_read() {
    assert!(valgrind_available(), "valgrind is needed (apt-get install valgrind)");
    let exe = build_c("issue17/bad_runtime_pointer.c", "bad_runtime_pointer");
    let out = run_valgrind(&exe, &["freed"]);
    assert!(out.status.success(), "freed runtime pointer: {}", describe(&out));
}

fn bad_pointer_native(mode: &str) {
    let exe = build_c("issue17/bad_runtime_pointer.c", "bad_runtime_pointer");
    let mut cmd = std::process::Command::new(&exe);
    cmd.arg(mode);
    match run_with_timeout(cmd, Duration::from_secs(20)) {
        None => panic!("{mode}: the program hung (killed after 20 s)"),
        Some(out) => assert!(out.status.success(), "{mode}: {}", describe(&out)),
    }
}

/// An unmapped address: INVALID_RUNTIME (it used to be SIGSEGV).
#[test]
fn defect7_an_unmapped_runtime_pointer_is_invalid_runtime() {
    bad_pointer_native("unmapped");
}

/// A byte copy of a live runtime's first 64 bytes, two runtimes alive:
/// INVALID_RUNTIME (the magic check used to pass it and read the copy).
#[test]
fn defect7_a_copied_runtime_is_invalid_runtime() {
    bad_pointer_native("copy");
}
