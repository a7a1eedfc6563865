//! Loom model checks of the lock-free completion stack (every interleaving
//! of two producers and the owner draining concurrently).
//!
//!     RUSTFLAGS="--cfg loom" cargo test --release --test loom
#![cfg(loom)]

use loom::sync::atomic::AtomicU32;
use loom::sync::Arc;
use onity::core::completion_stack::CompletionStack;

struct Shared {
    stack: CompletionStack,
    links: Vec<AtomicU32>,
    payload: Vec<AtomicU32>,
}

/// Drains once: returns indices in push order, checking each payload.
fn drain(s: &Shared, seen: &mut Vec<u32>) {
    let head = s.stack.take_all();
    let mut cur = CompletionStack::reverse(head, |i| &s.links[i as usize]);
    while cur != 0 {
        let i = cur - 1;
        // The producer's write before push is visible after take_all.
        assert_eq!(s.payload[i as usize].load(loom::sync::atomic::Ordering::Relaxed), 100 + i);
        seen.push(i);
        cur = s.links[i as usize].load(loom::sync::atomic::Ordering::Relaxed);
    }
}

#[test]
fn two_producers_one_draining_owner() {
    loom::model(|| {
        let s = Arc::new(Shared {
            stack: CompletionStack::new(),
            links: (0..4).map(|_| AtomicU32::new(0)).collect(),
            payload: (0..4).map(|_| AtomicU32::new(0)).collect(),
        });
        let producers: Vec<_> = [(0u32, 1u32), (2, 3)]
            .into_iter()
            .map(|(a, b)| {
                let s = s.clone();
                loom::thread::spawn(move || {
                    for i in [a, b] {
                        s.payload[i as usize].store(100 + i, loom::sync::atomic::Ordering::Relaxed);
                        s.stack.push(i, &s.links[i as usize]);
                    }
                })
            })
            .collect();
        let mut seen = Vec::new();
        drain(&s, &mut seen); // concurrently with the producers
        for p in producers {
            p.join().unwrap();
        }
        drain(&s, &mut seen);
        // Every index exactly once, each producer's in its push order.
        let mut sorted = seen.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, vec![0, 1, 2, 3]);
        let pos = |x: u32| seen.iter().position(|&v| v == x).unwrap();
        assert!(pos(0) < pos(1));
        assert!(pos(2) < pos(3));
    });
}
