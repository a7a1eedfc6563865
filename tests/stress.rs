//! Worker threads complete tens of thousands of tasks while the owner ticks;
//! every continuation runs exactly once, on the owner thread.

use std::ffi::c_void;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};

use onity::core::*;

struct Shared {
    owner: std::thread::ThreadId,
    runs: Vec<AtomicU32>,
    wrong_thread: AtomicUsize,
}

struct Ctx<'a> {
    rt: &'a Runtime,
    shared: &'a Shared,
}

unsafe extern "C" fn on_done(user: *mut c_void, task: u64, state: u32) {
    let ctx = &*(user as *const Ctx);
    if std::thread::current().id() != ctx.shared.owner {
        ctx.shared.wrong_thread.fetch_add(1, Ordering::Relaxed);
    }
    let o = ctx.rt.consume(task).expect("consume in continuation");
    assert_eq!(state, TaskState::Succeeded as u32);
    ctx.shared.runs[o.value as usize].fetch_add(1, Ordering::Relaxed);
}

#[test]
fn workers_complete_while_owner_ticks() {
    // Smaller under Miri (scripts/sanitize.sh), which interprets every step.
    const TASKS: usize = if cfg!(miri) { 400 } else { 60_000 };
    const WORKERS: usize = if cfg!(miri) { 2 } else { 4 };
    let rt = Runtime::new(Config::default());
    let shared = Shared {
        owner: std::thread::current().id(),
        runs: (0..TASKS).map(|_| AtomicU32::new(0)).collect(),
        wrong_thread: AtomicUsize::new(0),
    };
    let ctx = Ctx { rt: &rt, shared: &shared };
    let handles: Vec<AtomicU64> = (0..TASKS).map(|_| AtomicU64::new(0)).collect();
    let published = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for w in 0..WORKERS {
            let (handles, published, rt) = (&handles, &published, &rt);
            s.spawn(move || {
                let mut next = w;
                while next < TASKS {
                    if next < published.load(Ordering::Acquire) {
                        let h = handles[next].load(Ordering::Relaxed);
                        // Value = index: lets the continuation check identity.
                        rt.complete(h, TaskState::Succeeded, next as u64, 0, true).unwrap();
                        next += WORKERS;
                    } else {
                        std::hint::spin_loop();
                    }
                }
            });
        }
        // The owner creates tasks in batches while ticking frames.
        let mut frame_no = 0;
        let mut created = 0;
        while created < TASKS || shared.runs.iter().any(|r| r.load(Ordering::Relaxed) == 0) {
            let end = (created + 2_000).min(TASKS);
            for slot in handles.iter().take(end).skip(created) {
                let h = rt.create_task().unwrap();
                rt.on_complete(h, on_done, &ctx as *const Ctx as *mut c_void).unwrap();
                slot.store(h, Ordering::Relaxed);
            }
            created = end;
            published.store(created, Ordering::Release);
            frame_no += 1;
            rt.begin_frame(&FrameInfo { frame: frame_no, delta_time: 0.0, unscaled_delta_time: 0.0, realtime: 0.0 })
                .unwrap();
            for t in Timing::ALL {
                rt.tick(t).unwrap();
            }
            assert!(frame_no < 10_000_000, "stuck");
        }
    });
    rt.drain().unwrap();
    assert_eq!(shared.wrong_thread.load(Ordering::Relaxed), 0);
    for (i, r) in shared.runs.iter().enumerate() {
        assert_eq!(r.load(Ordering::Relaxed), 1, "continuation of task {i}");
    }
    let s = rt.stats().unwrap();
    assert_eq!((s.live_tasks, s.cross_thread_queued, s.completed_unconsumed), (0, 0, 0));
}

#[test]
fn racing_completions_have_exactly_one_winner() {
    const TASKS: usize = if cfg!(miri) { 300 } else { 20_000 };
    let rt = Runtime::new(Config::default());
    let hs: Vec<u64> = (0..TASKS).map(|_| rt.create_task().unwrap()).collect();
    let wins = [AtomicUsize::new(0), AtomicUsize::new(0), AtomicUsize::new(0)];
    std::thread::scope(|s| {
        for (k, state) in [TaskState::Succeeded, TaskState::Canceled, TaskState::Faulted].into_iter().enumerate() {
            let (hs, rt, wins) = (&hs, &rt, &wins);
            s.spawn(move || {
                for &h in hs.iter() {
                    match rt.complete(h, state, k as u64, k as i32, false) {
                        Ok(()) => {
                            wins[k].fetch_add(1, Ordering::Relaxed);
                        }
                        Err(Error::AlreadyCompleted) => {}
                        Err(e) => panic!("unexpected {e:?}"),
                    }
                }
            });
        }
    });
    let total: usize = wins.iter().map(|w| w.load(Ordering::Relaxed)).sum();
    assert_eq!(total, TASKS);
    rt.drain().unwrap();
    for h in hs {
        let o = rt.consume(h).unwrap();
        // The stored payload is the winner's.
        let k = match o.state {
            TaskState::Succeeded => 0,
            TaskState::Canceled => 1,
            TaskState::Faulted => 2,
            TaskState::Pending => unreachable!(),
        };
        if k == 0 {
            assert_eq!(o.value, 0);
        }
        if k == 2 {
            assert_eq!(o.error, 2);
        }
    }
}

fn frame(rt: &Runtime, n: u64) {
    rt.begin_frame(&FrameInfo { frame: n, delta_time: 0.016, unscaled_delta_time: 0.02, realtime: n as f64 * 0.02 })
        .unwrap();
}

/// `cancel` (any thread) racing `destroy_cancel_source` (owner): when
/// `cancel` returns OK before the destroy completes, the header says waits
/// holding a canceled source's token still observe the cancellation. The
/// destroy reads the state, then overwrites it with a plain store, erasing
/// a cancel that landed in between: `cancel` said OK, nothing is canceled.
#[test]
fn cancel_racing_destroy_is_never_lost() {
    use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
    const ROUNDS: u32 = if cfg!(miri) {
        50
    } else if cfg!(debug_assertions) {
        60_000
    } else {
        200_000
    };
    let rt = Runtime::new(Config::default());
    frame(&rt, 1);
    let slot = AtomicU64::new(0); // handle for the worker to cancel
    let result = AtomicU8::new(0); // 0 none yet, 1 Ok, 2 error
    let stop = AtomicU64::new(0);
    let mut lost = 0u32;
    let mut oks = 0u32;
    let mut fnum = 2;
    std::thread::scope(|s| {
        let (rt2, slot2, result2, stop2) = (&rt, &slot, &result, &stop);
        s.spawn(move || {
            while stop2.load(Ordering::Relaxed) == 0 {
                let h = slot2.swap(0, Ordering::AcqRel);
                if h != 0 {
                    let r = rt2.cancel(h);
                    result2.store(if r.is_ok() { 1 } else { 2 }, Ordering::Release);
                }
            }
        });
        for i in 0..ROUNDS {
            let src = rt.create_cancel_source().unwrap();
            let w = rt
                .wait(WaitKind::DelayFrame, Timing::Update, 1_000, 0.0, Clock::Scaled, src, WaitTarget::Task)
                .unwrap();
            result.store(0, Ordering::Relaxed);
            slot.store(src, Ordering::Release);
            for _ in 0..(i % 64) {
                std::hint::spin_loop();
            }
            rt.destroy_cancel_source(src).unwrap();
            while result.load(Ordering::Acquire) == 0 {
                std::hint::spin_loop();
            }
            let canceled_ok = result.load(Ordering::Acquire) == 1;
            frame(&rt, fnum);
            fnum += 1;
            rt.tick(Timing::Update).unwrap();
            let st = rt.task_state(w).unwrap();
            if canceled_ok {
                oks += 1;
                if st != TaskState::Canceled {
                    lost += 1;
                }
            }
            if st != TaskState::Pending {
                rt.consume(w).unwrap();
            } else {
                rt.complete(w, TaskState::Canceled, 0, 0, false).unwrap();
                rt.consume(w).unwrap();
            }
        }
        stop.store(1, Ordering::Relaxed);
    });
    assert_eq!(lost, 0, "cancel returned OK but was lost ({oks} OKs)");
}
