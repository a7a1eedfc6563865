//! The owner-thread check.
//!
//! A runtime belongs to the thread that created it. Every owner-only call
//! checks that it runs there, so the check is on every hot path. Reading a
//! Rust `thread_local!` costs a call to `__tls_get_addr` in a shared library
//! (the general-dynamic TLS model that `libonity.so` is built with), which
//! was most of what a call through the C ABI cost; so where the CPU has a
//! thread pointer register the check compares that register instead.
//!
//! # The rule
//!
//! A thread is identified by its *key*; the runtime keeps its owner's key in
//! an [`OwnerCell`], and the check is `current key == cell` (one load, one
//! compare).
//!
//! - x86_64 and aarch64 Linux (not under Miri): the key is the thread
//!   pointer (`fs:0` / `tpidr_el0`: the address of the thread's control
//!   block), read from a register. Live threads have distinct thread
//!   pointers, so while the owner lives the check holds on the owner thread
//!   and nowhere else.
//! - A thread pointer is reused once its thread has exited (glibc caches
//!   thread stacks and control blocks). So the owner thread gets a
//!   thread-local guard when it creates its first runtime; when the thread
//!   exits, the guard clears (to 0) the cell of every runtime that thread
//!   still owns, under the registry lock, which a runtime's drop also takes.
//!   A later thread that reuses the address is never taken for the owner: a
//!   runtime whose owner exited refuses every owner-only call with
//!   `WrongThread`, except destruction (below). If the guard cannot be
//!   registered (a runtime created from a thread-local destructor), the
//!   cell stays 0 and the owner is recognised by its id instead (below),
//!   off the fast path.
//! - `fork` keeps only the forking thread, and the child's next threads
//!   may get the others' thread control blocks (glibc caches their stacks),
//!   so their thread pointers: a fork handler (`pthread_atfork`, installed
//!   with the first guard) clears, in the child, the cell of every runtime
//!   owned by a thread other than the forking one, as if those threads had
//!   exited (they have, in the child). The forking thread stays the owner
//!   of its runtimes.
//! - Elsewhere (other OSes and CPUs, Miri) the key is a per-thread id from a
//!   `thread_local!` counter, never reused. The same guard clears the cell
//!   when the owner exits, so that [`Owner::has_exited`] is known there
//!   too.
//!
//! # An owner that exited
//!
//! [`Owner::has_exited`] is true once the guard of the owner thread ran
//! (the thread is gone, so nothing of the runtime can run there). The
//! runtime then allows destruction from any thread (issue 17 #6): no other
//! owner-only call. The check takes the registry lock that the guard
//! released, so everything the owner wrote happens before the destroying
//! thread reads it. A runtime whose exit could not be watched (no guard)
//! is never taken for orphaned.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

/// A small, cheap, unique id for the calling thread (never 0, never reused).
#[inline]
pub fn current_thread_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    thread_local!(static ID: Cell<u64> = const { Cell::new(0) });
    ID.with(|id| {
        let v = id.get();
        if v != 0 {
            v
        } else {
            let v = NEXT.fetch_add(1, Ordering::Relaxed);
            id.set(v);
            v
        }
    })
}

/// Whether this build compares thread pointers (see the module docs).
pub const HAS_THREAD_POINTER: bool =
    cfg!(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)));

/// The calling thread's thread pointer (0 where [`HAS_THREAD_POINTER`] is
/// false).
#[inline(always)]
pub fn thread_pointer() -> usize {
    #[cfg(all(target_os = "linux", target_arch = "x86_64", not(miri)))]
    {
        let tp: usize;
        // SAFETY: on x86_64 Linux (glibc and musl) `fs:0` holds the thread
        // control block's own address, readable by the thread at any time.
        unsafe {
            std::arch::asm!("mov {}, qword ptr fs:[0]", out(reg) tp, options(nostack, readonly, preserves_flags, pure))
        };
        tp
    }
    #[cfg(all(target_os = "linux", target_arch = "aarch64", not(miri)))]
    {
        let tp: usize;
        // SAFETY: reading tpidr_el0 (the thread pointer) has no side effect.
        unsafe { std::arch::asm!("mrs {}, tpidr_el0", out(reg) tp, options(nomem, nostack, preserves_flags, pure)) };
        tp
    }
    #[cfg(not(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64"), not(miri))))]
    {
        0
    }
}

/// The calling thread's key: its thread pointer, or its id where there is
/// none. Never 0.
#[inline(always)]
pub fn current_key() -> usize {
    if HAS_THREAD_POINTER {
        thread_pointer()
    } else {
        current_thread_id() as usize
    }
}

/// Where a runtime keeps its owner's key: 0 when the owner has exited (or
/// its exit could not be watched). It must not move while its [`Owner`]
/// lives (the registry points at it); the runtime keeps it in the header of
/// its task table, which every hot path reads anyway.
#[derive(Default)]
pub struct OwnerCell(AtomicUsize);

impl OwnerCell {
    /// The fast half of [`Owner::is_current`]: `true` means the calling
    /// thread is the owner; `false` means "ask [`Owner::is_current`]". Hot
    /// paths take their slow path on `false`, so no value has to survive a
    /// call.
    #[inline(always)]
    pub fn is_current_fast(&self) -> bool {
        // A key is never 0, so a cleared cell matches nobody.
        current_key() == self.0.load(Ordering::Relaxed)
    }

    /// Whether the cell holds a live owner's key: then a thread whose
    /// [`OwnerCell::is_current_fast`] is `false` is not the owner.
    #[inline(always)]
    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed) != 0
    }
}

/// A runtime's owner thread: its registration (for the exit guard) and id.
pub struct Owner {
    cell: *const OwnerCell,
    /// The owner's [`current_thread_id`].
    id: u64,
    /// Whether the exit guard watches the owner thread (see the module
    /// documentation).
    watched: bool,
}

// SAFETY: `cell` is only read (atomically), and the registry's clearing of
// it is synchronised by the registry lock (see `Registered`).
unsafe impl Send for Owner {}
unsafe impl Sync for Owner {}

/// Cells of live owners, with the key of their thread.
struct Registered(*const OwnerCell, usize);
// SAFETY: the pointer is only dereferenced under `REGISTRY`'s lock, while
// the runtime that owns the cell is alive (its drop unregisters first).
unsafe impl Send for Registered {}

static REGISTRY: Mutex<Vec<Registered>> = Mutex::new(Vec::new());

fn registry() -> std::sync::MutexGuard<'static, Vec<Registered>> {
    REGISTRY.lock().unwrap_or_else(|e| e.into_inner())
}

/// Clears the owner cells of the exiting thread's runtimes.
struct ExitGuard;

impl Drop for ExitGuard {
    fn drop(&mut self) {
        // Both keys are still this thread's while its thread-local
        // destructors run (the id's thread-local has no destructor).
        let key = current_key();
        registry().retain(|r| {
            if r.1 != key {
                return true;
            }
            // SAFETY: registered cells are alive (see `Registered`).
            unsafe { (*r.0).0.store(0, Ordering::Relaxed) };
            false
        });
    }
}

thread_local!(static EXIT_GUARD: ExitGuard = const { ExitGuard });

/// Clears, in a forked child, the cells of the threads that did not survive
/// the fork (see the module docs). The registry lock is taken before the
/// fork and released after it on both sides, so the child never inherits it
/// locked by a thread it does not have, nor the list half-changed.
#[cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
mod fork {
    use std::cell::UnsafeCell;
    use std::sync::{MutexGuard, Once};

    use super::{registry, thread_pointer, Registered};

    /// The registry lock, held from `prepare` to `parent` / `child`.
    struct Held(UnsafeCell<Option<MutexGuard<'static, Vec<Registered>>>>);
    // SAFETY: only the thread holding the registry lock touches it (`prepare`
    // after taking the lock, `parent` / `child` on that same thread, in the
    // same fork, before releasing it): the lock serialises every access.
    unsafe impl Sync for Held {}
    static HELD: Held = Held(UnsafeCell::new(None));

    extern "C" fn prepare() {
        let guard = registry();
        // SAFETY: we hold the lock (see `Held`).
        unsafe { *HELD.0.get() = Some(guard) };
    }

    extern "C" fn parent() {
        // SAFETY: this thread holds the lock, taken in `prepare`.
        drop(unsafe { (*HELD.0.get()).take() });
    }

    extern "C" fn child() {
        // SAFETY: as in `parent` (the child's only thread is the one that
        // forked).
        if let Some(mut list) = unsafe { (*HELD.0.get()).take() } {
            let tp = thread_pointer();
            list.retain(|r| {
                if r.1 == tp {
                    return true;
                }
                // SAFETY: registered cells are alive (see `Registered`).
                unsafe { (*r.0).0.store(0, std::sync::atomic::Ordering::Relaxed) };
                false
            });
        }
    }

    /// Installs the handlers, once per process.
    pub fn install() {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            // SAFETY: plain functions that live as long as the library. The
            // result is ignored: registration fails only when out of memory,
            // and then forked children keep the old behaviour.
            let _ = unsafe { libc::pthread_atfork(Some(prepare), Some(parent), Some(child)) };
        });
    }
}

impl Owner {
    /// Makes the calling thread the owner of `cell`; `OutOfMemory` when the
    /// registry of watched owners cannot grow (then nothing changed).
    ///
    /// # Safety
    /// `cell` does not move and outlives the returned `Owner`.
    pub unsafe fn register(cell: &OwnerCell) -> crate::core::Result<Owner> {
        let id = current_thread_id();
        let watched = EXIT_GUARD.try_with(|_| ()).is_ok();
        let key = current_key();
        let mut reg = if watched {
            #[cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
            fork::install();
            let mut reg = registry();
            crate::core::fallible::reserve(&mut reg, 1)?;
            Some(reg)
        } else {
            None
        };
        if watched || !HAS_THREAD_POINTER {
            cell.0.store(key, Ordering::Relaxed);
        }
        if let Some(reg) = reg.as_mut() {
            reg.push(Registered(cell, key));
        }
        Ok(Owner { cell, id, watched })
    }

    /// Whether the calling thread is the owner.
    #[inline(always)]
    pub fn is_current(&self) -> bool {
        // SAFETY: the cell outlives `self` (`register`'s contract).
        let cell = unsafe { &*self.cell };
        cell.is_current_fast() || (!cell.is_set() && self.is_current_by_id())
    }

    #[cold]
    #[inline(never)]
    fn is_current_by_id(&self) -> bool {
        current_thread_id() == self.id
    }

    /// Whether the owner thread has exited: its exit guard ran (see the
    /// module documentation). `false` while it lives, and for an owner
    /// whose exit could not be watched. Takes the registry lock (cold).
    #[cold]
    #[inline(never)]
    pub fn has_exited(&self) -> bool {
        let _sync = registry();
        // SAFETY: as in `is_current`.
        self.watched && unsafe { !(*self.cell).is_set() }
    }
}

impl Drop for Owner {
    fn drop(&mut self) {
        if self.watched {
            let cell = self.cell;
            registry().retain(|r| r.0 != cell);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_creating_thread_is_the_owner_even_after_it_exits() {
        let (here_cell, there_cell) = (Box::new(OwnerCell::default()), Box::new(OwnerCell::default()));
        // SAFETY: the boxed cells outlive the owners (dropped first below).
        let here = unsafe { Owner::register(&here_cell) }.unwrap();
        assert!(here.is_current());
        assert!(here_cell.is_current_fast());
        let there_ptr = &*there_cell as *const OwnerCell as usize;
        // SAFETY: as above.
        let there = std::thread::spawn(move || unsafe { Owner::register(&*(there_ptr as *const OwnerCell)) }.unwrap())
            .join()
            .unwrap();
        assert!(!there.is_current());
        assert!(there.has_exited());
        assert!(!here.has_exited());
        let here_ref = &here;
        assert!(std::thread::scope(|s| s.spawn(|| !here_ref.is_current()).join().unwrap()));
        // The creating thread is gone: threads spawned now (which may reuse
        // its thread control block) are not the owner either.
        for _ in 0..8 {
            let t = &there;
            let c = &*there_cell;
            assert!(std::thread::scope(|s| s.spawn(|| !t.is_current() && !c.is_current_fast()).join().unwrap()));
        }
        drop((here, there));
    }
}

#[cfg(all(test, target_os = "linux", not(miri)))]
mod fork_tests {
    use crate::core::{Config, Error, Runtime};

    /// After `fork` only the forking thread exists in the child, and glibc
    /// hands the other threads' stacks (with their thread control blocks,
    /// so their thread pointers) to the next threads the child creates. A
    /// runtime owned by a thread other than the forking one must refuse
    /// those threads (`WrongThread`), as it refuses every thread once its
    /// owner is gone.
    #[test]
    fn a_thread_created_after_fork_is_not_the_owner_of_a_runtime_of_another_thread() {
        // ThreadSanitizer kills a forked child of a threaded process that
        // starts threads, and exports no symbol to tell it is there:
        // skipped where its options are set (`scripts/sanitize.sh` sets
        // them for both sanitizers).
        if std::env::var_os("TSAN_OPTIONS").is_some() {
            return;
        }
        let (rt_tx, rt_rx) = std::sync::mpsc::channel();
        let (stop_tx, stop_rx) = std::sync::mpsc::channel::<()>();
        // The owner: creates the runtime, then stays alive across the fork.
        let owner_thread = std::thread::spawn(move || {
            let rt = Box::new(Runtime::new(Config::default()));
            rt_tx.send(&*rt as *const Runtime as usize).unwrap();
            stop_rx.recv().unwrap();
            drop(rt);
        });
        let rt_addr = rt_rx.recv().unwrap();
        // This thread forks: it stays the owner of its runtime in the child.
        let here = Runtime::new(Config::default());
        // SAFETY: the child only spawns threads that call the runtime (its
        // copy), and leaves with `_exit`.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            // Threads alive at once take every cached stack, the owner's too.
            let threads: Vec<_> = (0..32)
                .map(|_| {
                    std::thread::spawn(move || {
                        // SAFETY: the runtime is alive in the child (a copy
                        // of the parent's, whose owner thread lives there).
                        let rt = unsafe { &*(rt_addr as *const Runtime) };
                        let refused = rt.create_task() == Err(Error::WrongThread) && !rt.is_owner_thread();
                        std::thread::sleep(std::time::Duration::from_millis(50));
                        refused
                    })
                })
                .collect();
            let all_refused = threads.into_iter().all(|t| t.join().unwrap_or(false));
            let still_owner = here.create_task().is_ok();
            // SAFETY: leaves the child without running the parent's exit code.
            unsafe {
                libc::_exit(if !all_refused {
                    1
                } else if !still_owner {
                    2
                } else {
                    0
                })
            };
        }
        let mut status = 0;
        // SAFETY: waits for our own child.
        assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
        stop_tx.send(()).unwrap();
        owner_thread.join().unwrap();
        assert!(libc::WIFEXITED(status), "the child did not exit normally: {status:#x}");
        match libc::WEXITSTATUS(status) {
            0 => {}
            1 => panic!("a thread the forked child created passed the owner check"),
            _ => panic!("the forking thread is no longer the owner of its runtime in the child"),
        }
        assert!(here.create_task().is_ok());
    }
}
