//! Issue 17 #7: a runtime pointer is checked against the table of live
//! runtimes before anything is read through it. Garbage, misaligned,
//! unmapped, freed and copied pointers are INVALID_RUNTIME (NULL is
//! NULL_POINTER) from every export that takes a runtime, and nothing
//! blocks. (The C side, under valgrind for the freed pointer:
//! tests/issue17.rs, `defect7_*`.)
//!
//! Its own test binary: the reuse test counts runtime creations, which
//! other tests of the same process would interleave with.

mod support;

use std::ffi::c_void;
use std::ptr;
use std::sync::Mutex;

use onity::ffi::*;
use support::*;

/// The tests of this file one at a time (the reuse test counts creations).
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

unsafe extern "C" fn nop_cb(_user: *mut c_void, _task: u64, _state: u32) {}

/// Every export that takes a runtime, with arguments valid apart from it.
fn every_call(rt: *mut OnityRuntime) -> Vec<(&'static str, S)> {
    let mut out = 0u64;
    let mut n = 0u32;
    let mut st = 0u32;
    let mut p = 0x10 as *mut c_void;
    let mut o = [outcome(); 2];
    let fi = frame_info(1, 0.0, 0.0);
    let mut stats: OnityStats = unsafe { std::mem::zeroed() };
    stats.size = std::mem::size_of::<OnityStats>() as u32;
    let mut b = ptr::null_mut();
    let mut len = 0usize;
    let mut d = ptr::null_mut();
    let v = vec![
        ("task_create", onity_task_create(rt, &mut out)),
        ("task_from_result", onity_task_from_result(rt, 1, &mut out)),
        ("task_set_result", onity_task_set_result(rt, 1, 1)),
        ("task_set_error", onity_task_set_error(rt, 1, 1)),
        ("task_cancel", onity_task_cancel(rt, 1)),
        ("task_state", onity_task_state(rt, 1, &mut st)),
        ("task_consume", onity_task_consume(rt, 1, ptr::null_mut())),
        ("task_on_complete", onity_task_on_complete(rt, 1, Some(nop_cb), ptr::null_mut())),
        ("yield", onity_yield(rt, 8, 0, &mut out)),
        ("next_frame_then", onity_next_frame_then(rt, 8, 0, Some(nop_cb), ptr::null_mut())),
        ("delay", onity_delay(rt, 1.0, 0, 8, 0, &mut out)),
        ("when_any", onity_when_any(rt, &out, 1, 0, &mut out)),
        ("when_all_results", onity_when_all_results(rt, 1, o.as_mut_ptr(), 1)),
        ("cancel_source_create", onity_cancel_source_create(rt, &mut out)),
        ("cancel_source_cancel", onity_cancel_source_cancel(rt, 1)),
        ("frame_begin", onity_runtime_frame_begin(rt, &fi)),
        ("tick", onity_runtime_tick(rt, 8)),
        ("drain", onity_runtime_drain(rt)),
        ("stats", onity_runtime_stats(rt, &mut stats)),
        ("live_tasks", onity_runtime_live_tasks(rt, ptr::null_mut(), 0, &mut n)),
        ("frame_alloc", onity_frame_alloc(rt, 16, 8, 0, &mut p)),
        ("frame_alloc_rewind", onity_frame_alloc_rewind(rt)),
        ("batch_create", onity_batch_create(rt, 4, &mut b)),
        ("batch_deferred_frame", onity_batch_deferred_frame(rt, 0x40 as *mut OnityBatch, &mut d)),
        ("delay_frame_then_id", onity_delay_frame_then_id(rt, 3, 8, 0, Some(nop_cb), &mut out)),
        ("wait_retire", onity_wait_retire(rt, &mut out)),
        ("trace_counts", onity_trace_counts(rt, &mut out, ptr::null_mut())),
        ("trace_dump", onity_trace_dump(rt, ptr::null_mut(), 0, &mut len)),
        ("set_site_capture", onity_runtime_set_site_capture(rt, 1)),
        ("live_word", onity_runtime_live_word(rt, &mut ptr::null(), &mut out)),
        ("destroy", onity_runtime_destroy(rt)),
    ];
    assert!(p.is_null(), "frame_alloc left *out_ptr set");
    v
}

fn assert_invalid(rt: *mut OnityRuntime, what: &str) {
    let want = if rt.is_null() { S::NullPointer } else { S::InvalidRuntime };
    for (call, s) in every_call(rt) {
        assert_eq!(s, want, "{what} ({rt:p}): onity_{call}");
    }
}

/// A runtime that is alive, its task handle works: the check passes it.
fn assert_live(rt: *mut OnityRuntime) {
    let mut h = 0;
    assert_eq!(onity_task_from_result(rt, 5, &mut h), S::Ok);
    assert_eq!(onity_task_consume(rt, h, ptr::null_mut()), S::Ok);
}

#[test]
fn garbage_and_misaligned_pointers_are_invalid_runtime() {
    let _s = serial();
    let a = small_runtime();
    let b = small_runtime();
    for p in [0usize, 0x10, 0x8000, 0x7fff_ffff_fff0, usize::MAX - 63, usize::MAX] {
        assert_invalid(p as *mut OnityRuntime, "garbage");
    }
    // Into the table: inside a live cell, between cells, before and after.
    for off in [1isize, 8, 32, 63, -8, -64] {
        assert_invalid((a as *mut u8).wrapping_offset(off) as *mut OnityRuntime, "misaligned or beside a cell");
    }
    // A zeroed, aligned buffer on the stack.
    #[repr(C, align(64))]
    struct Zeroed([u8; 256]);
    let fake = Zeroed([0; 256]);
    assert_invalid(&fake as *const Zeroed as *mut OnityRuntime, "zeroed buffer");
    assert_live(a);
    assert_live(b);
    assert_eq!(onity_runtime_destroy(b), S::Ok);
    assert_eq!(onity_runtime_destroy(a), S::Ok);
}

/// A byte copy of a live runtime's first 64 bytes, two runtimes alive: not
/// a runtime, and nothing blocks (frame_alloc on it used to wait forever).
#[test]
fn a_copy_of_a_live_runtime_is_invalid_runtime() {
    let _s = serial();
    let a = small_runtime();
    let b = small_runtime();
    #[repr(C, align(64))]
    struct Copy([u8; 128]);
    let mut copy = Copy([0; 128]);
    for src in [a, b] {
        // SAFETY: a runtime pointer designates at least 64 readable bytes.
        unsafe { ptr::copy_nonoverlapping(src as *const u8, copy.0.as_mut_ptr(), 64) };
        assert_invalid(copy.0.as_mut_ptr() as *mut OnityRuntime, "copy of a live runtime");
    }
    assert_live(a);
    assert_live(b);
    assert_eq!(onity_runtime_destroy(b), S::Ok);
    assert_eq!(onity_runtime_destroy(a), S::Ok);
}

extern "C" {
    fn mmap(addr: *mut c_void, len: usize, prot: i32, flags: i32, fd: i32, off: i64) -> *mut c_void;
    fn munmap(addr: *mut c_void, len: usize) -> i32;
}

/// A pointer to a page that was unmapped: INVALID_RUNTIME, no crash.
#[test]
fn a_pointer_to_an_unmapped_page_is_invalid_runtime() {
    let _s = serial();
    const PROT_READ_WRITE: i32 = 3;
    const MAP_PRIVATE_ANONYMOUS: i32 = 0x02 | 0x20;
    // SAFETY: a fresh anonymous mapping, unmapped at once; only its address is used.
    let page = unsafe { mmap(ptr::null_mut(), 4096, PROT_READ_WRITE, MAP_PRIVATE_ANONYMOUS, -1, 0) };
    assert_ne!(page as isize, -1, "mmap");
    assert_eq!(unsafe { munmap(page, 4096) }, 0);
    let a = small_runtime();
    assert_invalid(page as *mut OnityRuntime, "unmapped page");
    assert_live(a);
    assert_eq!(onity_runtime_destroy(a), S::Ok);
}

/// A destroyed runtime's pointer is INVALID_RUNTIME, and stays so while
/// every other free table entry is used (round robin): 200 runtimes
/// created and destroyed after it never get its pointer. When its entry is
/// reused, the pointer designates the new runtime, whose handles the old
/// runtime's never alias.
#[test]
fn a_destroyed_runtime_is_invalid_until_its_entry_is_reused() {
    let _s = serial();
    let a = small_runtime();
    let mut old = 0;
    assert_eq!(onity_task_create(a, &mut old), S::Ok);
    assert_eq!(onity_runtime_destroy(a), S::Ok);
    assert_invalid(a, "destroyed runtime");
    let mut reused_after = None;
    for i in 1..=300 {
        let b = small_runtime();
        if b == a {
            reused_after = Some(i);
            let mut st = 0;
            assert_eq!(onity_task_state(b, old, &mut st), S::StaleHandle, "the old runtime's task on the new one");
            assert_live(b);
        } else {
            assert_invalid(a, "destroyed runtime, entry not reused");
        }
        assert_eq!(onity_runtime_destroy(b), S::Ok);
        if reused_after.is_some() {
            break;
        }
    }
    // Other test binaries do not share the table; tests of this one run
    // one at a time: exactly the 254 other entries come first.
    assert_eq!(reused_after, Some(255), "the destroyed runtime's entry was reused after this many creations");
}

/// Issue 30 #4: the live word outlives its runtime (static) and tells a
/// host that reads shared memory without a call whether the runtime is
/// still there: its id while it lives, 0 once destroyed, and never the old
/// id again, also when the pointer designates a new runtime.
#[test]
fn the_live_word_tells_a_destroyed_runtime_from_a_live_one() {
    let _s = serial();
    let live_word = |rt| {
        let (mut word, mut id) = (ptr::null(), 0u64);
        assert_eq!(onity_runtime_live_word(rt, &mut word, &mut id), S::Ok);
        (word, id)
    };
    // SAFETY (every read): the word is static (the export's contract).
    let read = |word: *const u64| unsafe { std::ptr::read_volatile(word) };
    let a = small_runtime();
    let (word, id) = live_word(a);
    assert_ne!(id, 0);
    assert_eq!(read(word), id);
    assert_eq!(onity_runtime_live_word(a, ptr::null_mut(), &mut 0), S::NullPointer);
    assert_eq!(onity_runtime_live_word(a, &mut ptr::null(), ptr::null_mut()), S::NullPointer);
    assert_eq!(onity_runtime_live_word(ptr::null_mut(), &mut ptr::null(), &mut 0), S::NullPointer);
    assert_eq!(onity_runtime_destroy(a), S::Ok);
    assert_eq!(read(word), 0, "destroyed: the word no longer holds the id");
    assert_eq!(onity_runtime_live_word(a, &mut ptr::null(), &mut 0), S::InvalidRuntime);
    // Until the pointer designates a new runtime: another id in the same word.
    let mut ids = vec![id];
    for _ in 0..300 {
        let b = small_runtime();
        let (w, i) = live_word(b);
        assert!(!ids.contains(&i), "an id is never reused");
        ids.push(i);
        let reused = b == a;
        assert_eq!(onity_runtime_destroy(b), S::Ok);
        if reused {
            assert_eq!(w, word, "one word per runtime pointer");
            assert_ne!(i, id);
            return;
        }
    }
    panic!("the runtime pointer was not reused");
}
