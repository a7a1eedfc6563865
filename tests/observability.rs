//! Issue 20 through the C ABI: creation sites (the `_at` calls, the
//! live-task report grouped by site with ages in frames, frame by frame),
//! the frame timeline (its Chrome trace JSON read back: nesting and order),
//! misuse of both, and zero allocations after warm-up with both on
//! (counted per thread by tests/counting_alloc, as in tests/zero_alloc.rs).

use std::ffi::{c_char, c_void, CStr};
use std::ptr;

use onity::ffi::*;

mod counting_alloc;
use counting_alloc::allocs;

const UPDATE: u32 = OnityTiming::Update as u32;
const LATE: u32 = OnityTiming::PostLateUpdate as u32;
const FILE_A: &CStr = c"src/enemy.c";
const FILE_B: &CStr = c"src/spawner.c";

mod support;

use support::Rt;

impl Rt {
    fn report(&self, min_age: u64) -> Vec<OnitySiteReport> {
        let mut n = 0u32;
        assert_eq!(onity_runtime_site_report(self.0, min_age, ptr::null_mut(), 0, &mut n), OnityStatus::Ok);
        let mut lines = vec![empty_line(); n as usize];
        let mut m = 0u32;
        assert_eq!(onity_runtime_site_report(self.0, min_age, lines.as_mut_ptr(), n, &mut m), OnityStatus::Ok);
        assert_eq!(m, n);
        lines
    }
    fn site(&self, task: u64) -> (Option<String>, u32, u64) {
        let (mut f, mut l, mut fr) = (ptr::null(), 0u32, 0u64);
        assert_eq!(onity_task_site(self.0, task, &mut f, &mut l, &mut fr), OnityStatus::Ok);
        (text(f), l, fr)
    }
}

fn empty_line() -> OnitySiteReport {
    OnitySiteReport::default()
}

fn text(p: *const c_char) -> Option<String> {
    // SAFETY: the runtime's copy, valid while it lives.
    (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_owned())
}

/// (file, line, tasks, pending, completed, awaited, oldest, newest)
type Row = (Option<String>, u32, u64, u64, u64, u64, u64, u64);
fn rows(lines: &[OnitySiteReport]) -> Vec<Row> {
    lines
        .iter()
        .map(|l| {
            (text(l.file), l.line, l.tasks, l.pending, l.completed, l.awaited, l.oldest_age_frames, l.newest_age_frames)
        })
        .collect()
}
#[allow(clippy::too_many_arguments)]
fn row(file: &CStr, line: u32, t: u64, p: u64, c: u64, a: u64, old: u64, new: u64) -> Row {
    (Some(file.to_str().unwrap().to_owned()), line, t, p, c, a, old, new)
}

unsafe extern "C" fn count_cb(user: *mut c_void, task: u64, state: u32) {
    assert_eq!(task, 0, "a callback wait gets no task, with or without a site");
    assert_eq!(state, OnityTaskState::Succeeded as u32);
    *(user as *mut u32) += 1;
}

#[test]
fn sites_are_recorded_only_when_capture_is_on() {
    let rt = Rt::new();
    rt.frame(1);
    let mut h = 0;
    assert_eq!(onity_task_create_at(rt.0, &mut h, FILE_A.as_ptr(), 10), OnityStatus::Ok);
    assert_eq!(rt.site(h), (None, 0, 0), "capture is off by default");
    assert_eq!(onity_runtime_set_site_capture(rt.0, 1), OnityStatus::Ok);
    let mut h2 = 0;
    assert_eq!(onity_task_create_at(rt.0, &mut h2, FILE_A.as_ptr(), 11), OnityStatus::Ok);
    assert_eq!(rt.site(h2), (Some("src/enemy.c".into()), 11, 1));
    // A plain call records nothing, even while capture is on; a null file is no site.
    let (mut h3, mut h4) = (0, 0);
    assert_eq!(onity_task_create(rt.0, &mut h3), OnityStatus::Ok);
    assert_eq!(onity_task_create_at(rt.0, &mut h4, ptr::null(), 12), OnityStatus::Ok);
    assert_eq!(rt.site(h3).0, None);
    assert_eq!(rt.site(h4).0, None);
    // A slot reused by a plain call forgets its old site (the side record is stale).
    for t in [h, h2, h3, h4] {
        assert_eq!(onity_task_cancel(rt.0, t), OnityStatus::Ok);
        assert_eq!(onity_task_consume(rt.0, t, ptr::null_mut()), OnityStatus::Ok);
    }
    let mut again = [0u64; 4];
    for a in again.iter_mut() {
        assert_eq!(onity_task_create(rt.0, a), OnityStatus::Ok);
        assert_eq!(rt.site(*a).0, None);
    }
    assert_eq!(rt.report(0).len(), 1, "every live task is in the no-site line");
    assert_eq!(rt.report(0)[0].site, ONITY_SITE_NONE);
    assert_eq!(rt.report(0)[0].oldest_age_frames, u64::MAX);
    // Capture off again: `_at` records nothing.
    assert_eq!(onity_runtime_set_site_capture(rt.0, 0), OnityStatus::Ok);
    let mut h5 = 0;
    assert_eq!(onity_next_frame_at(rt.0, UPDATE, 0, &mut h5, FILE_B.as_ptr(), 5), OnityStatus::Ok);
    assert_eq!(rt.site(h5).0, None);
}

#[test]
fn every_at_call_records_its_site() {
    let rt = Rt::new();
    assert_eq!(onity_runtime_set_site_capture(rt.0, 1), OnityStatus::Ok);
    rt.frame(7);
    let f = FILE_A.as_ptr();
    let mut t = [0u64; 8];
    assert_eq!(onity_task_create_at(rt.0, &mut t[0], f, 1), OnityStatus::Ok);
    assert_eq!(onity_task_from_result_at(rt.0, 5, &mut t[1], f, 2), OnityStatus::Ok);
    assert_eq!(onity_yield_at(rt.0, UPDATE, 0, &mut t[2], f, 3), OnityStatus::Ok);
    assert_eq!(onity_next_frame_at(rt.0, UPDATE, 0, &mut t[3], f, 4), OnityStatus::Ok);
    assert_eq!(onity_delay_frame_at(rt.0, 3, UPDATE, 0, &mut t[4], f, 5), OnityStatus::Ok);
    assert_eq!(onity_delay_at(rt.0, 1.0, 0, UPDATE, 0, &mut t[5], f, 6), OnityStatus::Ok);
    assert_eq!(onity_when_any_at(rt.0, t[2..4].as_ptr(), 2, 0, &mut t[6], f, 7), OnityStatus::Ok);
    assert_eq!(onity_when_all_at(rt.0, t[4..6].as_ptr(), 2, 0, &mut t[7], f, 8), OnityStatus::Ok);
    for (i, h) in t.iter().enumerate() {
        assert_eq!(rt.site(*h), (Some("src/enemy.c".into()), i as u32 + 1, 7), "task {i}");
    }
    // The report: one line per site, lines of equal size by site id (order of first sight).
    let lines = rt.report(0);
    assert_eq!(lines.len(), 8);
    let got: Vec<u32> = lines.iter().map(|l| l.line).collect();
    assert_eq!(got, [1, 2, 3, 4, 5, 6, 7, 8]);
    assert!(lines.iter().all(|l| l.tasks == 1 && l.oldest_age_frames == 0));
    assert_eq!(lines[1].completed, 1, "from_result is completed");
    assert_eq!(lines.iter().filter(|l| l.awaited == 1).count(), 4, "the combinators' inputs are awaited");
}

#[test]
fn report_groups_by_site_and_ages_frame_by_frame() {
    let rt = Rt::new();
    assert_eq!(onity_runtime_set_site_capture(rt.0, 1), OnityStatus::Ok);
    // Another pointer to the same text is the same site (two translation units' __FILE__).
    let copy = FILE_A.to_owned();
    let mut a = Vec::new();
    let mut b = Vec::new();
    rt.frame(100);
    for i in 0..3 {
        let mut h = 0;
        let f = if i == 0 { FILE_A.as_ptr() } else { copy.as_ptr() };
        assert_eq!(onity_task_create_at(rt.0, &mut h, f, 88), OnityStatus::Ok);
        a.push(h);
    }
    let mut d = 0;
    assert_eq!(onity_delay_frame_at(rt.0, 2, UPDATE, 0, &mut d, FILE_B.as_ptr(), 20), OnityStatus::Ok);
    assert_eq!(rows(&rt.report(0)), [row(FILE_A, 88, 3, 3, 0, 0, 0, 0), row(FILE_B, 20, 1, 1, 0, 0, 0, 0)]);
    rt.frame(101);
    for _ in 0..5 {
        let mut h = 0;
        assert_eq!(onity_next_frame_at(rt.0, UPDATE, 0, &mut h, FILE_B.as_ptr(), 21), OnityStatus::Ok);
        b.push(h);
    }
    rt.tick(UPDATE);
    let r = rt.report(0);
    assert_eq!(
        rows(&r),
        [row(FILE_B, 21, 5, 5, 0, 0, 0, 0), row(FILE_A, 88, 3, 3, 0, 0, 1, 1), row(FILE_B, 20, 1, 1, 0, 0, 1, 1)]
    );
    rt.frame(102);
    rt.tick(UPDATE); // the NextFrame waits complete; nobody consumes them
    assert_eq!(onity_task_set_result(rt.0, a[0], 1), OnityStatus::Ok);
    assert_eq!(
        rows(&rt.report(0)),
        [row(FILE_B, 21, 5, 0, 5, 0, 1, 1), row(FILE_A, 88, 3, 2, 1, 0, 2, 2), row(FILE_B, 20, 1, 0, 1, 0, 2, 2)]
    );
    // Ages are differences of frame numbers (the host may skip some); min_age filters.
    rt.frame(105);
    let mut late = 0;
    assert_eq!(onity_task_create_at(rt.0, &mut late, FILE_A.as_ptr(), 88), OnityStatus::Ok);
    assert_eq!(
        rows(&rt.report(0)),
        [row(FILE_B, 21, 5, 0, 5, 0, 4, 4), row(FILE_A, 88, 4, 3, 1, 0, 5, 0), row(FILE_B, 20, 1, 0, 1, 0, 5, 5)]
    );
    assert_eq!(
        rows(&rt.report(5)),
        [row(FILE_A, 88, 3, 2, 1, 0, 5, 5), row(FILE_B, 20, 1, 0, 1, 0, 5, 5)],
        "the NextFrame tasks (4 frames old) and the task made this frame are younger than 5"
    );
    assert!(rt.report(6).is_empty());
    // A capacity smaller than the lines gets the first ones, and the count of all.
    let mut one = [empty_line()];
    let mut n = 0;
    assert_eq!(onity_runtime_site_report(rt.0, 0, one.as_mut_ptr(), 1, &mut n), OnityStatus::Ok);
    assert_eq!((n, one[0].line, one[0].tasks), (3, 21, 5));
    // Consumed tasks leave the report.
    for &h in b.iter().chain(a.iter()).chain([&d, &late]) {
        if h == a[1] || h == a[2] || h == late {
            assert_eq!(onity_task_cancel(rt.0, h), OnityStatus::Ok);
        }
        assert_eq!(onity_task_consume(rt.0, h, ptr::null_mut()), OnityStatus::Ok);
    }
    assert!(rt.report(0).is_empty());
}

#[test]
fn callback_waits_with_a_site_run_as_plain_ones() {
    let rt = Rt::new();
    assert_eq!(onity_runtime_set_site_capture(rt.0, 1), OnityStatus::Ok);
    rt.frame(1);
    let mut ran = 0u32;
    let user = &mut ran as *mut u32 as *mut c_void;
    let f = FILE_A.as_ptr();
    assert_eq!(onity_next_frame_then_at(rt.0, UPDATE, 0, Some(count_cb), user, f, 30), OnityStatus::Ok);
    assert_eq!(onity_yield_then_at(rt.0, UPDATE, 0, Some(count_cb), user, f, 31), OnityStatus::Ok);
    assert_eq!(onity_delay_frame_then_at(rt.0, 1, UPDATE, 0, Some(count_cb), user, f, 32), OnityStatus::Ok);
    assert_eq!(onity_delay_then_at(rt.0, 0.0, 0, UPDATE, 0, Some(count_cb), user, f, 33), OnityStatus::Ok);
    let lines = rt.report(0);
    assert_eq!(lines.len(), 4, "pending callback waits appear in the report");
    assert!(lines.iter().all(|l| l.awaited == 1 && l.pending == 1));
    rt.tick(UPDATE);
    assert_eq!(ran, 1, "the Yield ran in this frame's run");
    rt.frame(2);
    rt.tick(UPDATE);
    assert_eq!(ran, 4);
    assert!(rt.report(0).is_empty(), "a callback wait that ran is gone (its task consumed)");
    // Destroying the runtime cancels a pending one, as for plain callback waits.
    assert_eq!(onity_delay_frame_then_at(rt.0, 9, UPDATE, 0, Some(cancel_cb), user, f, 34), OnityStatus::Ok);
    drop(rt);
    assert_eq!(ran, 104);
}

unsafe extern "C" fn cancel_cb(user: *mut c_void, task: u64, state: u32) {
    assert_eq!(task, 0);
    assert_eq!(state, OnityTaskState::Canceled as u32);
    *(user as *mut u32) += 100;
}

/// A runtime whose owner thread exited is destroyed from another thread
/// (which then runs the continuations): a pending callback wait with a site
/// is called once with Canceled, as a plain one is (its continuation
/// consumes its task from that thread).
#[test]
fn a_callback_wait_with_a_site_is_canceled_by_a_destroy_after_the_owner_exited() {
    static RAN: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    unsafe extern "C" fn cb(_user: *mut c_void, task: u64, state: u32) {
        assert_eq!((task, state), (0, OnityTaskState::Canceled as u32));
        RAN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
    let p = std::thread::spawn(|| {
        let rt = support::runtime();
        assert_eq!(onity_runtime_set_site_capture(rt, 1), OnityStatus::Ok);
        support::frame(rt, 1);
        let f = FILE_A.as_ptr();
        assert_eq!(onity_delay_frame_then_at(rt, 9, UPDATE, 0, Some(cb), ptr::null_mut(), f, 40), OnityStatus::Ok);
        assert_eq!(onity_delay_frame_then_at(rt, 900, UPDATE, 0, Some(cb), ptr::null_mut(), f, 41), OnityStatus::Ok);
        rt as usize
    })
    .join()
    .unwrap() as *mut OnityRuntime;
    assert_eq!(onity_runtime_destroy(p), OnityStatus::Ok);
    assert_eq!(RAN.load(std::sync::atomic::Ordering::Relaxed), 2);
}

#[test]
fn site_misuse_is_refused() {
    let rt = Rt::new();
    assert_eq!(onity_runtime_set_site_capture(rt.0, 2), OnityStatus::InvalidArgument);
    assert_eq!(onity_runtime_set_site_capture(ptr::null_mut(), 1), OnityStatus::NullPointer);
    let mut n = 0u32;
    assert_eq!(onity_runtime_site_report(rt.0, 0, ptr::null_mut(), 1, &mut n), OnityStatus::NullPointer);
    assert_eq!(onity_runtime_site_report(rt.0, 0, ptr::null_mut(), 0, ptr::null_mut()), OnityStatus::NullPointer);
    assert_eq!(onity_task_site(rt.0, 0, ptr::null_mut(), ptr::null_mut(), ptr::null_mut()), OnityStatus::InvalidHandle);
    let mut h = 0;
    assert_eq!(onity_task_create_at(rt.0, ptr::null_mut(), FILE_A.as_ptr(), 1), OnityStatus::NullPointer);
    assert_eq!(onity_next_frame_at(rt.0, 99, 0, &mut h, FILE_A.as_ptr(), 1), OnityStatus::InvalidArgument);
    assert_eq!(h, 0, "nothing written on error");
    // Another thread: refused, nothing recorded.
    let p = rt.0 as usize;
    std::thread::spawn(move || {
        let rt = p as *mut OnityRuntime;
        let mut h = 0u64;
        assert_eq!(onity_runtime_set_site_capture(rt, 1), OnityStatus::WrongThread);
        assert_eq!(onity_task_create_at(rt, &mut h, FILE_A.as_ptr(), 1), OnityStatus::WrongThread);
        assert_eq!(onity_runtime_site_report(rt, 0, ptr::null_mut(), 0, &mut 0), OnityStatus::WrongThread);
    })
    .join()
    .unwrap();
    // More distinct sites than the table holds: the rest are counted under OVERFLOW.
    assert_eq!(onity_runtime_set_site_capture(rt.0, 1), OnityStatus::Ok);
    let names: Vec<std::ffi::CString> = (0..4100).map(|i| std::ffi::CString::new(format!("f{i}.c")).unwrap()).collect();
    let mut tasks = Vec::new();
    for n in &names {
        let mut h = 0;
        assert_eq!(onity_task_create_at(rt.0, &mut h, n.as_ptr(), 1), OnityStatus::Ok);
        tasks.push(h);
    }
    let lines = rt.report(0);
    assert_eq!(lines.len(), 4097);
    assert_eq!((lines[0].site, lines[0].tasks, lines[0].file), (ONITY_SITE_OVERFLOW, 4, ptr::null()));
    for h in tasks {
        assert_eq!(onity_task_cancel(rt.0, h), OnityStatus::Ok);
        assert_eq!(onity_task_consume(rt.0, h, ptr::null_mut()), OnityStatus::Ok);
    }
    drop(rt); // `names` outlives the runtime, as the contract asks
}

/// The bytes allocated while `sites` tasks are made at lines 1.. of
/// `names` (taken in turn), in a runtime of their own (each task canceled
/// and consumed after the report); the report's number of lines and the
/// distinct files of its sites (read while the runtime lives).
fn site_bytes(names: &[&CStr], sites: u32) -> (u64, usize, Vec<String>) {
    let rt = Rt::new();
    assert_eq!(onity_runtime_set_site_capture(rt.0, 1), OnityStatus::Ok);
    let before = counting_alloc::alloc_bytes();
    let tasks: Vec<u64> = (0..sites)
        .map(|i| {
            let mut h = 0;
            let name = names[i as usize % names.len()];
            assert_eq!(onity_task_create_at(rt.0, &mut h, name.as_ptr(), 1 + i), OnityStatus::Ok);
            h
        })
        .collect();
    let bytes = counting_alloc::alloc_bytes() - before;
    let lines = rt.report(0);
    let files: std::collections::HashSet<_> =
        lines.iter().filter(|l| l.site != ONITY_SITE_OVERFLOW).map(|l| l.file).collect();
    let files = files.into_iter().map(|f| text(f).unwrap()).collect();
    for h in tasks {
        assert_eq!(onity_task_cancel(rt.0, h), OnityStatus::Ok);
        assert_eq!(onity_task_consume(rt.0, h, ptr::null_mut()), OnityStatus::Ok);
    }
    (bytes, lines.len(), files)
}

/// Issue 30 #3: sites of one file name share one copy of it (two
/// addresses with the same name, as two translation units' `__FILE__`):
/// 4,300 sites with a 4 KiB name cost one name more than with a 1-byte
/// name, not one per site (16 MB before).
#[test]
fn equal_file_names_are_copied_once() {
    let long = std::ffi::CString::new(vec![b'x'; 4095]).unwrap();
    let twin = long.clone();
    let short = std::ffi::CString::new("y").unwrap();
    let (long_bytes, lines, files) = site_bytes(&[&long, &twin], 4300);
    let (short_bytes, ..) = site_bytes(&[&short], 4300);
    let name = long.as_bytes_with_nul().len() as u64;
    assert!(long_bytes >= short_bytes + name - 2, "one copy of the long name: {long_bytes} vs {short_bytes}");
    assert!(long_bytes < short_bytes + 2 * name, "one copy of the long name: {long_bytes} vs {short_bytes}");
    // 4,096 sites and the overflow line; every site's file is the one copy.
    assert_eq!(lines, 4097);
    assert_eq!(files, [long.to_str().unwrap()]);
}

/// Issue 30 #3: a file name with no NUL in its first 4,096 bytes is read
/// up to them and no further (it ends at an unmapped page here: reading
/// on crashed), and kept cut there.
#[test]
fn a_file_name_is_read_up_to_4096_bytes_only() {
    const PAGE: usize = 4096;
    // SAFETY: a private anonymous mapping of two pages; the second is made
    // inaccessible; both are unmapped at the end.
    let map = unsafe {
        let p = libc::mmap(
            ptr::null_mut(),
            2 * PAGE,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        assert_ne!(p, libc::MAP_FAILED);
        assert_eq!(libc::mprotect(p.cast::<u8>().add(PAGE).cast(), PAGE, libc::PROT_NONE), 0);
        ptr::write_bytes(p.cast::<u8>(), b'z', PAGE);
        p
    };
    let rt = Rt::new();
    assert_eq!(onity_runtime_set_site_capture(rt.0, 1), OnityStatus::Ok);
    let mut h = 0;
    assert_eq!(onity_task_create_at(rt.0, &mut h, map.cast::<c_char>(), 3), OnityStatus::Ok);
    let (file, line, _) = rt.site(h);
    assert_eq!((file.unwrap(), line), ("z".repeat(PAGE), 3));
    assert_eq!(onity_task_cancel(rt.0, h), OnityStatus::Ok);
    assert_eq!(onity_task_consume(rt.0, h, ptr::null_mut()), OnityStatus::Ok);
    drop(rt);
    // SAFETY: the mapping made above, no longer used (the runtime is gone).
    assert_eq!(unsafe { libc::munmap(map, 2 * PAGE) }, 0);
}

/// Issue 30 #3: a task made at a site past the 4,096-site table has no
/// known site: NULL, 0 and 0 (documented on `onity_task_site`).
#[test]
fn a_task_past_the_site_table_has_no_known_site() {
    let rt = Rt::new();
    assert_eq!(onity_runtime_set_site_capture(rt.0, 1), OnityStatus::Ok);
    rt.frame(5);
    let mut tasks = Vec::new();
    for line in 1..=4097 {
        let mut h = 0;
        assert_eq!(onity_task_create_at(rt.0, &mut h, FILE_A.as_ptr(), line), OnityStatus::Ok);
        tasks.push(h);
    }
    assert_eq!(rt.site(tasks[4095]), (Some("src/enemy.c".into()), 4096, 5));
    let (mut f, mut l, mut fr) = (FILE_B.as_ptr(), 1u32, 1u64);
    assert_eq!(onity_task_site(rt.0, tasks[4096], &mut f, &mut l, &mut fr), OnityStatus::Ok);
    assert_eq!((f, l, fr), (ptr::null(), 0, 0));
    for h in tasks {
        assert_eq!(onity_task_cancel(rt.0, h), OnityStatus::Ok);
        assert_eq!(onity_task_consume(rt.0, h, ptr::null_mut()), OnityStatus::Ok);
    }
}

#[test]
fn sites_on_allocate_nothing_after_warm_up() {
    let rt = Rt::new();
    assert_eq!(onity_runtime_set_site_capture(rt.0, 1), OnityStatus::Ok);
    let mut tasks = vec![0u64; 256];
    let mut lines = vec![empty_line(); 8];
    let mut cycle = |i: u64| {
        if i % 256 == 0 {
            rt.frame(i / 256);
            rt.tick(UPDATE);
            let mut n = 0;
            assert_eq!(onity_runtime_site_report(rt.0, 0, lines.as_mut_ptr(), 8, &mut n), OnityStatus::Ok);
            for h in tasks.iter_mut() {
                if *h != 0 {
                    assert_eq!(onity_task_consume(rt.0, *h, ptr::null_mut()), OnityStatus::Ok);
                }
            }
        }
        let slot = &mut tasks[(i % 256) as usize];
        let line = 40 + (i % 3) as u32;
        assert_eq!(onity_next_frame_at(rt.0, UPDATE, 0, slot, FILE_A.as_ptr(), line), OnityStatus::Ok);
        let mut done = 0;
        assert_eq!(onity_task_from_result_at(rt.0, i, &mut done, FILE_B.as_ptr(), 9), OnityStatus::Ok);
        assert_eq!(onity_task_consume(rt.0, done, ptr::null_mut()), OnityStatus::Ok);
    };
    for i in 0..2_000 {
        cycle(i);
    }
    let before = allocs();
    for i in 2_000..12_000 {
        cycle(i);
    }
    assert_eq!(allocs() - before, 0, "site capture and reports allocated after warm-up");
}

#[path = "observability/trace.rs"]
mod trace;
