//! A global allocator that counts allocations (and reallocations) per
//! thread, so parallel tests and the harness do not disturb each other's
//! counts. Included by the zero-allocation tests as `mod counting_alloc;`
//! (it installs itself as the test binary's `#[global_allocator]`).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
    static BYTES: Cell<u64> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
        let _ = BYTES.try_with(|c| c.set(c.get() + l.size() as u64));
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
        let _ = BYTES.try_with(|c| c.set(c.get() + n as u64));
        System.realloc(p, l, n)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations made by the calling thread so far.
pub fn allocs() -> u64 {
    ALLOCS.with(|c| c.get())
}

/// Bytes the calling thread allocated so far (each allocation's size, and
/// each reallocation's new size; frees not subtracted).
#[allow(dead_code)]
pub fn alloc_bytes() -> u64 {
    BYTES.with(|c| c.get())
}
