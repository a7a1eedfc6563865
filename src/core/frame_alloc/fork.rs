//! Fork safety of the allocator's locks.
//!
//! `fork` copies only the calling thread: a lock another thread held at that
//! moment stays locked in the child, whose first allocation needing it would
//! wait forever. So every lock of every allocator is taken through
//! [`lock`], which counts the locks held in the process, and a fork handler
//! (`pthread_atfork`, installed with the first allocator) closes the gate
//! before the fork and waits until no lock is held; it reopens it after the
//! fork, in the parent and in the child. The child thus starts with every
//! allocator lock free.
//!
//! A thread that already holds an allocator lock passes a closed gate (it
//! counts, so the fork waits for it to release everything; it never waits
//! for the fork, which could wait for it). A thread that holds none waits
//! at a closed gate (yielding: forks are rare and short). The gate costs
//! one atomic add per lock, on paths that take a lock anyway (never the
//! fast path).

use std::cell::Cell;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

/// Set while a fork is under way.
const CLOSED: usize = 1 << (usize::BITS - 1);
/// Locks held in the process (all threads, all allocators), plus `CLOSED`.
static GATE: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    // No destructor: always accessible, even from thread-local destructors.
    static HELD: Cell<usize> = const { Cell::new(0) };
}

/// One allocator lock held: counted in the gate until dropped.
struct Pass;

impl Pass {
    fn take() -> Pass {
        let mine = HELD.with(|h| {
            let n = h.get();
            h.set(n + 1);
            n
        });
        if mine > 0 {
            // The fork waits for this thread, so it must not wait for it.
            GATE.fetch_add(1, Ordering::Acquire);
            return Pass;
        }
        let mut g = GATE.load(Ordering::Relaxed);
        loop {
            if g & CLOSED != 0 {
                std::thread::yield_now();
                g = GATE.load(Ordering::Relaxed);
                continue;
            }
            match GATE.compare_exchange_weak(g, g + 1, Ordering::Acquire, Ordering::Relaxed) {
                Ok(_) => return Pass,
                Err(now) => g = now,
            }
        }
    }
}

impl Drop for Pass {
    fn drop(&mut self) {
        // Release: the lock was released before (field order of `Locked`),
        // so a fork that sees the count drop sees the lock free.
        GATE.fetch_sub(1, Ordering::Release);
        HELD.with(|h| h.set(h.get() - 1));
    }
}

/// A lock of an allocator, held (see [`lock`]).
pub(super) struct Locked<'a, T> {
    // Dropped first: the lock is free before the gate stops counting it.
    guard: MutexGuard<'a, T>,
    _pass: Pass,
}

impl<T> Deref for Locked<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.guard
    }
}

impl<T> DerefMut for Locked<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.guard
    }
}

/// Takes `m`, an allocator lock, through the gate.
pub(super) fn lock<T>(m: &Mutex<T>) -> Locked<'_, T> {
    let pass = Pass::take();
    // A panic while holding one of these locks cannot leave the protected
    // data inconsistent (plain counters / a Vec push), so ignore poisoning.
    let guard = m.lock().unwrap_or_else(|e| e.into_inner());
    Locked { guard, _pass: pass }
}

/// Installs the fork handlers, once per process (no-op where there is no
/// `fork`).
pub(super) fn install() {
    #[cfg(all(unix, not(miri)))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            // SAFETY: plain functions that live as long as the library. The
            // result is ignored: registration fails only when out of memory,
            // and then forked children keep the old behaviour.
            let _ = unsafe { libc::pthread_atfork(Some(prepare), Some(reopen), Some(reopen)) };
        });
    }
}

/// Closes the gate and waits until no allocator lock is held.
#[cfg(all(unix, not(miri)))]
extern "C" fn prepare() {
    close();
}

/// Reopens the gate (parent and child: the child's only thread, the forking
/// one, held no allocator lock, so its count is 0 there too).
#[cfg(all(unix, not(miri)))]
extern "C" fn reopen() {
    open();
}

/// Closes the gate: returns once no allocator lock is held and none can be
/// taken until [`open`]. Nested forks cannot happen (the calling thread is
/// in `fork`), so one flag suffices.
fn close() {
    // Forks from two threads at once: the second waits for the first.
    while GATE.fetch_or(CLOSED, Ordering::Acquire) & CLOSED != 0 {
        std::thread::yield_now();
    }
    while GATE.load(Ordering::Acquire) != CLOSED {
        std::thread::yield_now();
    }
}

fn open() {
    GATE.fetch_and(!CLOSED, Ordering::Release);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_closed_gate_waits_for_held_locks_and_lets_their_holders_nest() {
        let a = Mutex::new(1);
        let b = Mutex::new(2);
        let outer = lock(&a);
        std::thread::scope(|s| {
            let closer = s.spawn(|| {
                close();
                // No lock is held now.
                assert_eq!(GATE.load(Ordering::Relaxed), CLOSED);
                open();
            });
            // Wait until the gate is closed, then nest a lock: passes.
            while GATE.load(Ordering::Relaxed) & CLOSED == 0 {
                std::thread::yield_now();
            }
            let inner = lock(&b);
            assert_eq!(*outer + *inner, 3);
            drop(inner);
            drop(outer);
            closer.join().unwrap();
        });
    }
}
