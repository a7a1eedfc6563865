//! A global allocator that fails on demand, per thread: allocation number k
//! of an armed call fails ([`armed`]), or every one from k on
//! ([`armed_from`]: a failure that persists). Included by the allocation
//! failure tests as `mod fail_alloc;` (it installs itself as the test
//! binary's `#[global_allocator]`). A failing allocation prints its site
//! (the innermost `onity` frames) to stderr as `ALLOC-FAIL-SITE: ...`.
#![allow(dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::ptr;

pub struct FailOnDemand;

thread_local! {
    /// Counting allocations of this thread (the call under test).
    static ARMED: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<u64> = const { Cell::new(0) };
    /// The allocation (1-based, counted while armed) that fails; 0: none.
    static FAIL_AT: Cell<u64> = const { Cell::new(0) };
    /// Every allocation from `FAIL_AT` on fails.
    static PERSIST: Cell<bool> = const { Cell::new(false) };
    static IN_HOOK: Cell<bool> = const { Cell::new(false) };
}

/// Counts an allocation of the armed thread; true when it must fail.
fn should_fail() -> bool {
    let armed = ARMED.try_with(|a| a.get()).unwrap_or(false);
    if !armed || IN_HOOK.with(|h| h.get()) {
        return false;
    }
    let n = COUNT.with(|c| {
        c.set(c.get() + 1);
        c.get()
    });
    let at = FAIL_AT.with(|f| f.get());
    if at == 0 || n < at || (n > at && !PERSIST.with(|p| p.get())) {
        return false;
    }
    if n == at {
        IN_HOOK.with(|h| h.set(true));
        print_site();
        IN_HOOK.with(|h| h.set(false));
    }
    true
}

/// Prints the innermost `onity` frames of the failing allocation.
fn print_site() {
    let bt = std::backtrace::Backtrace::force_capture().to_string();
    let lines: Vec<&str> = bt.lines().map(str::trim).collect();
    let mut frames = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let Some((_, f)) = l.split_once(": ") else { continue };
        if !f.starts_with("onity::") && !f.starts_with("<onity::") {
            continue;
        }
        let at = lines.get(i + 1).and_then(|n| n.strip_prefix("at ")).unwrap_or("?");
        let at = at.rsplit_once("/src/").map_or(at.to_string(), |(_, p)| format!("src/{p}"));
        frames.push(format!("{f} ({at})"));
        if frames.len() == 3 {
            break;
        }
    }
    eprintln!("ALLOC-FAIL-SITE: {}", frames.join(" <- "));
}

// SAFETY: forwards to the system allocator, or returns null (a failure).
unsafe impl GlobalAlloc for FailOnDemand {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if should_fail() {
            return ptr::null_mut();
        }
        System.alloc(l)
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        if should_fail() {
            return ptr::null_mut();
        }
        System.alloc_zeroed(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        if should_fail() {
            return ptr::null_mut();
        }
        System.realloc(p, l, n)
    }
}

#[global_allocator]
pub static GLOBAL: FailOnDemand = FailOnDemand;

/// Runs `f` with allocation `fail_at` failing (0: none); returns its result
/// and the number of allocations it made.
pub fn armed<R>(fail_at: u64, f: impl FnOnce() -> R) -> (R, u64) {
    COUNT.with(|c| c.set(0));
    FAIL_AT.with(|x| x.set(fail_at));
    ARMED.with(|a| a.set(true));
    let r = f();
    ARMED.with(|a| a.set(false));
    (r, COUNT.with(|c| c.get()))
}

/// [`armed`], with every allocation from `fail_from` on failing (0: none).
pub fn armed_from<R>(fail_from: u64, f: impl FnOnce() -> R) -> (R, u64) {
    PERSIST.with(|p| p.set(true));
    let r = armed(fail_from, f);
    PERSIST.with(|p| p.set(false));
    r
}
