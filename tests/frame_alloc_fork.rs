//! `fork` while another thread allocates (issue 30 #1): the child allocates
//! from the same allocator and exits. Before the allocator's fork handler, a
//! fork that landed while the worker held an allocator lock left the child
//! waiting forever for that lock (the `alarm` below then kills it).
#![cfg(all(unix, not(miri)))]

use onity::core::frame_alloc::{AllocError, FrameAllocConfig, FrameAllocator, Lifetime};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Larger than `max_chunk_bytes`: carved from a block, under the grow lock.
const BIG: usize = 64 << 10;
const FORKS: usize = 1000;
/// A child still running after this many seconds is killed (`SIGALRM`).
const CHILD_SECONDS: u32 = 5;

/// What the child does: allocates (a large request takes the grow lock, the
/// child's first allocation registers its thread under the slot lock), reads
/// the statistics (rewind-state and slot locks), exits with 0 when every
/// answer was the expected one.
fn child(fa: &FrameAllocator) -> i32 {
    let big = fa.alloc(Lifetime::Frame, BIG, 64);
    let small = fa.alloc(Lifetime::Frame, 64, 8);
    let stats = fa.stats();
    let ok = big == Err(AllocError::Exhausted) && small.is_ok() && stats.failed_allocations > 0;
    i32::from(!ok)
}

#[test]
fn a_child_forked_while_a_worker_allocates_allocates_and_exits() {
    let cfg = FrameAllocConfig {
        first_block_bytes: 4096,
        chunk_bytes: 1024,
        max_chunk_bytes: 4096,
        max_bytes: 64 << 10,
        ..FrameAllocConfig::default()
    };
    let fa = FrameAllocator::new(cfg);
    let stop = AtomicBool::new(false);
    let attempts = AtomicU64::new(0);
    std::thread::scope(|s| {
        s.spawn(|| {
            // Once the cap is reached every large request fails after
            // taking the grow lock: the worker holds it most of the time.
            while !stop.load(Ordering::Relaxed) {
                let _ = fa.alloc(Lifetime::Frame, BIG, 64);
                attempts.fetch_add(1, Ordering::Relaxed);
            }
        });
        while attempts.load(Ordering::Relaxed) < 1000 {
            std::thread::yield_now();
        }
        let mut failure = None;
        for i in 0..FORKS {
            // SAFETY: the child only allocates from `fa` (which its copy of
            // memory holds) and leaves with `_exit`.
            let pid = unsafe { libc::fork() };
            assert!(pid >= 0, "fork failed");
            if pid == 0 {
                // SAFETY: plain libc calls in the child.
                unsafe {
                    libc::alarm(CHILD_SECONDS);
                    libc::_exit(child(&fa));
                }
            }
            let mut status = 0;
            // SAFETY: waits for the child just forked.
            assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
            if !(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0) {
                failure = Some((i, status));
                break;
            }
        }
        stop.store(true, Ordering::Relaxed);
        assert_eq!(failure, None, "a child failed (fork index, wait status; 14 = SIGALRM: it hung)");
    });
}
