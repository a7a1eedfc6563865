//! Runtime tags: the 8-bit runtime id in every handle, and the generation
//! floors that make a handle unique over the whole process lifetime.
//!
//! Two live runtimes never share a tag, so a handle of one is
//! `ForeignHandle` to the other. There are 255 tags (0 is never used), so
//! tags are reused; what keeps a later runtime from issuing a handle an
//! earlier one issued is the tag's *floor*, one per slot kind:
//!
//! - A runtime's slots start at the floor of its tag (an even generation:
//!   free), and a slot's generation only grows (see `slot.rs`). When a
//!   runtime is dropped its tag's floor becomes an even generation above
//!   every generation its slots reached.
//! - So per (tag, kind, slot index) generations only grow over the process
//!   lifetime: a handle is issued at most once, and a handle of a runtime
//!   dropped since is below the floor of its tag, hence `StaleHandle` on a
//!   later runtime with that tag (checked first by `handle::why_invalid`,
//!   also for an index past the later runtime's table).
//! - A tag whose floor passes [`WORN_FLOOR`] is worn out and never handed
//!   out again: one of its slot indices was rented 2^30 times over its
//!   runtimes. Every runtime thus starts with at least 2^30 rents per slot
//!   before slots retire for good. With every tag worn out (or live),
//!   creation fails with `Exhausted`.
//!
//! Tags are handed out round robin, so a tag is reused as late as possible.
//! The table is a fixed array behind a lock (creation and drop only):
//! no allocation.

use std::sync::{Mutex, MutexGuard};

/// A floor above this wears the tag out (see the module documentation).
pub const WORN_FLOOR: u32 = 1 << 31;

/// A tag handed to a new runtime, with the generation its slots start at
/// (task slots, cancellation source slots; even).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Claim {
    pub tag: u8,
    pub floors: [u32; 2],
}

#[derive(Clone, Copy)]
struct Entry {
    live: bool,
    worn: bool,
    floors: [u32; 2],
}

struct Table {
    /// The next tag to try (round robin).
    next: u8,
    entries: [Entry; 256],
}

static TABLE: Mutex<Table> =
    Mutex::new(Table { next: 1, entries: [Entry { live: false, worn: false, floors: [0; 2] }; 256] });

fn table() -> MutexGuard<'static, Table> {
    TABLE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Claims a tag no live runtime has and that is not worn out (round robin,
/// never 0); `None` when there is none.
pub fn claim() -> Option<Claim> {
    let mut t = table();
    for _ in 0..256 {
        let tag = t.next;
        t.next = t.next.wrapping_add(1).max(1);
        let e = &mut t.entries[tag as usize];
        if tag != 0 && !e.live && !e.worn {
            e.live = true;
            return Some(Claim { tag, floors: e.floors });
        }
    }
    None
}

/// Releases `tag`, whose runtime's slots reached at most the generations
/// `max_gens` (task slots, source slots): the next runtime with this tag
/// starts above them.
pub fn release(tag: u8, max_gens: [u32; 2]) {
    let mut t = table();
    let e = &mut t.entries[tag as usize];
    debug_assert!(e.live, "tag {tag} released twice");
    e.live = false;
    for (floor, max) in e.floors.iter_mut().zip(max_gens) {
        // Nothing rented (every slot still at the floor): keep it; else the
        // smallest even generation above `max`.
        if max <= *floor {
            continue;
        }
        let next = (max as u64 | 1) + 1;
        if next > WORN_FLOOR as u64 {
            e.worn = true;
        } else {
            *floor = next as u32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tags are process-wide: this test only looks at the tags it claims.
    #[test]
    fn floors_rise_above_every_generation_a_tag_reached() {
        let c = claim().expect("a free tag");
        assert!(c.floors.iter().all(|f| f % 2 == 0));
        release(c.tag, [c.floors[0] + 7, c.floors[1]]);
        // Claim until the same tag comes back (other tests may hold some).
        let again = loop {
            let d = claim().expect("a free tag");
            if d.tag == c.tag {
                break d;
            }
            release(d.tag, d.floors);
        };
        assert_eq!(again.floors, [c.floors[0] + 8, c.floors[1]]);
        // A generation past the limit wears the tag out for good.
        release(again.tag, [u32::MAX, 0]);
        for _ in 0..600 {
            let d = claim().expect("a free tag");
            assert_ne!(d.tag, c.tag, "a worn-out tag was handed out");
            release(d.tag, d.floors);
        }
    }
}
