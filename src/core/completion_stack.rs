//! The lock-free stack through which other threads hand completed tasks to
//! the owner thread.
//!
//! It is intrusive: each slot has a link word, so pushing never allocates.
//! Producers push one index at a time (a CAS loop on the head); the owner
//! takes the whole list at once (`swap` to empty), so no ABA problem arises
//! (nothing is ever popped singly). The owner then walks the list through
//! the links, which no producer touches again until the slot is reused,
//! and it is not reused before the owner has taken it.
//!
//! Model-checked with loom: `RUSTFLAGS="--cfg loom" cargo test --release --test loom`.

#[cfg(loom)]
use loom::sync::atomic::{AtomicU32, Ordering};
#[cfg(not(loom))]
use std::sync::atomic::{AtomicU32, Ordering};

/// The link word each slot carries (loom's atomic under `--cfg loom`).
pub type Link = AtomicU32;

/// Indices are stored as index + 1; 0 ends the list.
#[derive(Default)]
pub struct CompletionStack {
    head: AtomicU32,
}

impl CompletionStack {
    pub fn new() -> Self {
        CompletionStack { head: AtomicU32::new(0) }
    }

    /// Pushes `index` whose link word is `link`. Any thread. Everything the
    /// caller wrote before is visible to the owner after `take_all`.
    pub fn push(&self, index: u32, link: &AtomicU32) {
        let mut head = self.head.load(Ordering::Relaxed);
        loop {
            link.store(head, Ordering::Relaxed);
            match self.head.compare_exchange_weak(head, index + 1, Ordering::Release, Ordering::Relaxed) {
                Ok(_) => return,
                Err(h) => head = h,
            }
        }
    }

    /// The head word's address: non-zero while something is pushed and not
    /// taken. For a host on the owner thread that skips its calls when
    /// nothing waits (`frame/idle.rs`); read it, never write it.
    #[cfg(not(loom))]
    pub fn head_ptr(&self) -> *const u32 {
        self.head.as_ptr()
    }

    /// Takes every pushed index; returns the newest (index + 1), or 0.
    /// Follow the links (`link(i).load(Relaxed)`) for older ones.
    pub fn take_all(&self) -> u32 {
        self.head.swap(0, Ordering::Acquire)
    }

    /// Reverses a list taken by `take_all` into push order (oldest first),
    /// rewriting the links. Owner only. Returns the new head.
    pub fn reverse<'a>(mut cur: u32, link: impl Fn(u32) -> &'a AtomicU32) -> u32 {
        let mut prev = 0u32;
        while cur != 0 {
            let l = link(cur - 1);
            let next = l.load(Ordering::Relaxed);
            l.store(prev, Ordering::Relaxed);
            prev = cur;
            cur = next;
        }
        prev
    }
}
