//! The frame timeline through the C ABI: its JSON read back (nesting, order,
//! what each run recorded), ring wrap, misuse, zero allocations when on.

use super::*;
use serde_json::Value;

fn dump(rt: &Rt) -> Value {
    let mut len = 0usize;
    assert_eq!(onity_trace_dump(rt.0, ptr::null_mut(), 0, &mut len), OnityStatus::Ok);
    assert!(len > 0);
    let mut small = vec![0u8; len - 1];
    let mut len2 = 0usize;
    assert_eq!(onity_trace_dump(rt.0, small.as_mut_ptr().cast(), len - 1, &mut len2), OnityStatus::Ok);
    assert_eq!(len2, len, "too small a buffer: the length, nothing written");
    assert!(small.iter().all(|&b| b == 0));
    let mut buf = vec![0u8; len];
    assert_eq!(onity_trace_dump(rt.0, buf.as_mut_ptr().cast(), len, &mut len2), OnityStatus::Ok);
    assert_eq!(len2, len);
    serde_json::from_slice(&buf).expect("the trace is JSON")
}

/// A complete ("X") event: name, start and end in microseconds.
#[derive(Debug, Clone)]
struct Span {
    name: String,
    ts: f64,
    end: f64,
    args: Value,
}

/// The events in file order; checks their order (by start) and that any two
/// complete events are disjoint or one contains the other.
fn events(v: &Value) -> (Vec<Value>, Vec<Span>) {
    let all = v["traceEvents"].as_array().expect("traceEvents").clone();
    let timed: Vec<&Value> = all.iter().filter(|e| e["ph"] != "M").collect();
    let ts: Vec<f64> = timed.iter().map(|e| e["ts"].as_f64().unwrap()).collect();
    assert!(ts.windows(2).all(|w| w[0] <= w[1]), "events in start order");
    let spans: Vec<Span> = timed
        .iter()
        .filter(|e| e["ph"] == "X")
        .map(|e| {
            let ts = e["ts"].as_f64().unwrap();
            Span {
                name: e["name"].as_str().unwrap().into(),
                ts,
                end: ts + e["dur"].as_f64().unwrap(),
                args: e["args"].clone(),
            }
        })
        .collect();
    const EPS: f64 = 1e-6;
    for (i, p) in spans.iter().enumerate() {
        for c in &spans[i + 1..] {
            let disjoint = c.ts >= p.end - EPS;
            let inside = c.ts >= p.ts - EPS && c.end <= p.end + EPS;
            assert!(disjoint || inside, "{c:?} overlaps {p:?} without nesting in it");
        }
    }
    (all, spans)
}

/// The spans directly or indirectly inside `p`.
fn inside<'a>(spans: &'a [Span], p: &Span) -> Vec<&'a Span> {
    spans
        .iter()
        .filter(|c| c.ts >= p.ts && c.end <= p.end && !(c.ts == p.ts && c.end == p.end && c.name == p.name))
        .collect()
}

unsafe extern "C" fn noop_cb(_user: *mut c_void, _task: u64, _state: u32) {}

#[test]
fn the_timeline_nests_and_orders_its_events() {
    let rt = Rt::new();
    assert_eq!(onity_trace_start(rt.0, 4096, ONITY_TRACE_RUNS | ONITY_TRACE_CONTINUATIONS), OnityStatus::Ok);
    rt.frame(1);
    // Frame 1: three NextFrame waits (two inputs of a WhenAll), a callback Yield, a manual
    // task completed from another thread.
    let mut w = [0u64; 3];
    for h in w.iter_mut() {
        assert_eq!(onity_next_frame(rt.0, UPDATE, 0, h), OnityStatus::Ok);
    }
    let mut all = 0;
    assert_eq!(onity_when_all(rt.0, w[..2].as_ptr(), 2, 0, &mut all), OnityStatus::Ok);
    assert_eq!(onity_yield_then(rt.0, UPDATE, 0, Some(noop_cb), ptr::null_mut()), OnityStatus::Ok);
    let mut manual = 0;
    assert_eq!(onity_task_create(rt.0, &mut manual), OnityStatus::Ok);
    assert_eq!(onity_task_on_complete(rt.0, manual, Some(noop_cb), ptr::null_mut()), OnityStatus::Ok);
    let p = rt.0 as usize;
    std::thread::spawn(move || assert_eq!(onity_task_set_result(p as *mut OnityRuntime, manual, 1), OnityStatus::Ok))
        .join()
        .unwrap();
    rt.tick(UPDATE); // drain (1), the Yield callback
    rt.tick(LATE); // nothing due: an empty run
    assert_eq!(onity_frame_alloc_rewind(rt.0), OnityStatus::Ok);
    rt.frame(2);
    rt.tick(UPDATE); // the three NextFrame waits; the WhenAll settles inside the second
    assert_eq!(onity_trace_stop(rt.0), OnityStatus::Ok);
    rt.frame(3);
    rt.tick(UPDATE); // not recorded

    let v = dump(&rt);
    assert_eq!(v["otherData"]["dropped"], 0);
    let (all_events, spans) = events(&v);
    let frames: Vec<u64> =
        all_events.iter().filter(|e| e["name"] == "frame").map(|e| e["args"]["frame"].as_u64().unwrap()).collect();
    assert_eq!(frames, [1, 2]);
    let counters: Vec<&Value> = all_events.iter().filter(|e| e["ph"] == "C").collect();
    assert_eq!(counters.len(), 2);
    assert_eq!(counters[1]["args"]["pending waits"], 3, "frame 2 began with three NextFrame waits");
    let names: Vec<(&str, u64)> = spans
        .iter()
        .filter(|s| s.args.get("resumed").is_some())
        .map(|s| (s.name.as_str(), s.args["frame"].as_u64().unwrap()))
        .collect();
    assert_eq!(names, [("Update", 1), ("PostLateUpdate", 1), ("Update", 2)], "one run per tick, in order");
    let runs: Vec<&Span> = spans.iter().filter(|s| s.args.get("resumed").is_some()).collect();
    // Frame 1, Update: the drain and the Yield callback, inside the run.
    let in1 = inside(&spans, runs[0]);
    let n1: Vec<&str> = in1.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(n1, ["drain", "callback"]);
    assert_eq!(in1[0].args["completions"], 1);
    assert_eq!(runs[0].args["resumed"], 1);
    assert!(inside(&spans, runs[1]).is_empty());
    // The explicit rewind, between the runs of frames 1 and 2.
    let rw: Vec<&Span> = spans.iter().filter(|s| s.name == "frame allocator rewind").collect();
    assert_eq!(rw.len(), 1);
    assert_eq!(rw[0].args["rewind"], "explicit");
    assert!(rw[0].ts >= runs[1].end && rw[0].end <= runs[2].ts);
    // Frame 2, Update: three task continuations; the WhenAll settles inside the second.
    let in2 = inside(&spans, runs[2]);
    let n2: Vec<&str> = in2.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(n2, ["task", "task", "WhenAll", "task"]);
    assert!(in2[2].ts >= in2[1].ts && in2[2].end <= in2[1].end, "the settle runs inside its input's continuation");
    assert_eq!(in2[2].args["state"], "succeeded");
    assert_eq!(runs[2].args["resumed"], 3);
    // Stopped: nothing more; the dump is remade only after new events.
    let (held, dropped) = counts(&rt);
    assert_eq!((held as usize, dropped), (all_events.len() - 2 - frames.len(), 0), "a frame is two JSON events");
}

fn counts(rt: &Rt) -> (u64, u64) {
    let (mut h, mut d) = (0, 0);
    assert_eq!(onity_trace_counts(rt.0, &mut h, &mut d), OnityStatus::Ok);
    (h, d)
}

#[test]
fn runs_only_and_a_wrapped_ring() {
    let rt = Rt::new();
    assert_eq!(onity_trace_start(rt.0, 100, ONITY_TRACE_RUNS), OnityStatus::Ok);
    for f in 1..=60 {
        rt.frame(f);
        let mut h = 0;
        assert_eq!(onity_next_frame(rt.0, UPDATE, 0, &mut h), OnityStatus::Ok);
        assert_eq!(onity_task_on_complete(rt.0, h, Some(consume_cb), rt.0 as *mut c_void), OnityStatus::Ok);
        rt.tick(UPDATE);
    }
    // 100 rounds up to 128 events; 60 frames and 60 runs were recorded.
    assert_eq!(counts(&rt), (120, 0));
    let (_, spans) = events(&dump(&rt));
    assert!(spans.iter().all(|s| s.name == "Update"), "no continuation events without the flag");
    for f in 61..=100 {
        rt.frame(f);
        rt.tick(UPDATE);
    }
    assert_eq!(counts(&rt), (128, 72));
    let v = dump(&rt);
    assert_eq!(v["otherData"]["dropped"], 72);
    let (all_events, _) = events(&v);
    let first = all_events.iter().find(|e| e["ph"] != "M").unwrap();
    assert!(first["args"]["frame"].as_u64().unwrap() > 1, "the oldest events were overwritten");
    // Starting again empties the ring.
    assert_eq!(onity_trace_start(rt.0, 128, ONITY_TRACE_RUNS), OnityStatus::Ok);
    assert_eq!(counts(&rt), (0, 0));
    let (e, _) = events(&dump(&rt));
    assert_eq!(e.len(), 2, "metadata only");
}

unsafe extern "C" fn consume_cb(user: *mut c_void, task: u64, _state: u32) {
    assert_eq!(onity_task_consume(user as *mut OnityRuntime, task, ptr::null_mut()), OnityStatus::Ok);
}

#[test]
fn trace_misuse_is_refused() {
    let rt = Rt::new();
    assert_eq!(onity_trace_start(rt.0, 63, ONITY_TRACE_RUNS), OnityStatus::CountOutOfRange);
    assert_eq!(onity_trace_start(rt.0, (1 << 24) + 1, ONITY_TRACE_RUNS), OnityStatus::CountOutOfRange);
    assert_eq!(onity_trace_start(rt.0, 64, 0), OnityStatus::InvalidArgument);
    assert_eq!(onity_trace_start(rt.0, 64, 4), OnityStatus::InvalidArgument);
    // Continuation events without run events (issue 30 #3): refused.
    assert_eq!(onity_trace_start(rt.0, 64, ONITY_TRACE_CONTINUATIONS), OnityStatus::InvalidArgument);
    assert_eq!(onity_trace_start(ptr::null_mut(), 64, 1), OnityStatus::NullPointer);
    // Stopping a trace that is not recording does nothing (documented OK).
    assert_eq!(onity_trace_stop(rt.0), OnityStatus::Ok);
    assert_eq!(onity_trace_stop(rt.0), OnityStatus::Ok);
    let mut len = 0usize;
    assert_eq!(onity_trace_dump(rt.0, ptr::null_mut(), 1, &mut len), OnityStatus::NullPointer);
    assert_eq!(onity_trace_dump(rt.0, ptr::null_mut(), 0, ptr::null_mut()), OnityStatus::NullPointer);
    assert_eq!(onity_trace_counts(rt.0, ptr::null_mut(), ptr::null_mut()), OnityStatus::Ok);
    // Never started: an empty trace, still valid JSON.
    assert_eq!(counts(&rt), (0, 0));
    assert_eq!(events(&dump(&rt)).0.len(), 2);
    let p = rt.0 as usize;
    std::thread::spawn(move || {
        let rt = p as *mut OnityRuntime;
        assert_eq!(onity_trace_start(rt, 64, 1), OnityStatus::WrongThread);
        assert_eq!(onity_trace_stop(rt), OnityStatus::WrongThread);
        assert_eq!(onity_trace_dump(rt, ptr::null_mut(), 0, &mut 0), OnityStatus::WrongThread);
    })
    .join()
    .unwrap();
}

#[test]
fn tracing_allocates_nothing_after_warm_up() {
    let rt = Rt::new();
    assert_eq!(onity_trace_start(rt.0, 1024, ONITY_TRACE_RUNS | ONITY_TRACE_CONTINUATIONS), OnityStatus::Ok);
    let mut tasks = vec![0u64; 64];
    let mut cycle = |i: u64| {
        if i % 64 == 0 {
            rt.frame(i / 64 + 1);
            rt.tick(UPDATE);
            for h in tasks.iter_mut() {
                if *h != 0 {
                    assert_eq!(onity_task_consume(rt.0, *h, ptr::null_mut()), OnityStatus::Ok);
                }
            }
            let mut pair = [0u64; 2];
            for h in pair.iter_mut() {
                assert_eq!(onity_yield(rt.0, UPDATE, 0, h), OnityStatus::Ok);
            }
            let mut any = 0;
            assert_eq!(onity_when_any(rt.0, pair.as_ptr(), 2, 0, &mut any), OnityStatus::Ok);
            assert_eq!(onity_task_on_complete(rt.0, any, Some(consume_cb), rt.0 as *mut c_void), OnityStatus::Ok);
            assert_eq!(onity_frame_alloc_rewind(rt.0), OnityStatus::Ok);
        }
        let slot = &mut tasks[(i % 64) as usize];
        assert_eq!(onity_next_frame(rt.0, UPDATE, 0, slot), OnityStatus::Ok);
    };
    for i in 0..2_000 {
        cycle(i);
    }
    let before = allocs();
    for i in 2_000..12_000 {
        cycle(i);
    }
    assert_eq!(allocs() - before, 0, "recording allocated after warm-up");
    let (held, dropped) = counts(&rt);
    assert_eq!(held, 1024);
    assert!(dropped > 0, "the ring wrapped while recording");
}

/// The runtime and the source `cancel_cb` cancels.
struct Canceler {
    rt: *mut OnityRuntime,
    source: u64,
}

unsafe extern "C" fn cancel_cb(user: *mut c_void, _task: u64, _state: u32) {
    let c = &*(user as *const Canceler);
    assert_eq!(onity_cancel_source_cancel(c.rt, c.source), OnityStatus::Ok);
}

#[test]
fn waits_canceled_in_the_same_run_are_traced_as_continuations() {
    let rt = Rt::new();
    assert_eq!(onity_trace_start(rt.0, 4096, ONITY_TRACE_RUNS | ONITY_TRACE_CONTINUATIONS), OnityStatus::Ok);
    rt.frame(1);
    let mut source = 0;
    assert_eq!(onity_cancel_source_create(rt.0, &mut source), OnityStatus::Ok);
    let c = Canceler { rt: rt.0, source };
    // A Yield whose callback cancels the source, then two waits on the source: a near
    // DelayFrame(5) callback and a far (heap) DelayFrame(1000) task.
    let user = &c as *const Canceler as *mut c_void;
    assert_eq!(onity_yield_then(rt.0, UPDATE, 0, Some(cancel_cb), user), OnityStatus::Ok);
    assert_eq!(onity_delay_frame_then(rt.0, 5, UPDATE, source, Some(noop_cb), ptr::null_mut()), OnityStatus::Ok);
    let mut far = 0;
    assert_eq!(onity_delay_frame(rt.0, 1000, UPDATE, source, &mut far), OnityStatus::Ok);
    rt.tick(UPDATE); // the Yield, then (same run) both canceled waits
    assert_eq!(onity_trace_stop(rt.0), OnityStatus::Ok);
    let (_, spans) = events(&dump(&rt));
    let runs: Vec<&Span> = spans.iter().filter(|s| s.args.get("resumed").is_some()).collect();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].args["resumed"], 3);
    assert_eq!(runs[0].args["canceled"], 2);
    let inner: Vec<(&str, &str)> =
        inside(&spans, runs[0]).iter().map(|s| (s.name.as_str(), s.args["state"].as_str().unwrap_or(""))).collect();
    assert_eq!(
        inner,
        [("callback", "succeeded"), ("callback", "canceled"), ("task", "canceled")],
        "every wait the run resumed has its continuation event, the cancel passes' too"
    );
    assert_eq!(onity_task_consume(rt.0, far, ptr::null_mut()), OnityStatus::Ok);
    assert_eq!(onity_cancel_source_destroy(rt.0, source), OnityStatus::Ok);
}
