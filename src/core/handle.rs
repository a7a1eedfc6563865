//! Generational 64-bit handles.
//!
//! Layout (after slotmap and sokol):
//!
//! ```text
//!  63            32 31      24 23  22 21             0
//! +----------------+----------+------+----------------+
//! |   generation   | runtime  | kind |   slot index   |
//! +----------------+----------+------+----------------+
//! ```
//!
//! A slot's generation is odd while the slot is live and even while it is
//! free, so `0` (generation 0) is never a valid handle and a handle made of
//! garbage only matches a live slot by chance of 1 in 2^31. Each runtime has
//! its own 8-bit tag, which catches handles passed to the wrong runtime.

use super::error::{Error, Result};

pub const INDEX_BITS: u32 = 22;
/// Maximum number of slots of one kind in one runtime.
pub const MAX_SLOTS: u32 = 1 << INDEX_BITS;
const INDEX_MASK: u64 = (MAX_SLOTS as u64) - 1;

/// What a handle refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    Task = 1,
    CancelSource = 2,
}

#[inline]
pub fn encode(gen: u32, tag: u8, kind: Kind, index: u32) -> u64 {
    debug_assert!(index < MAX_SLOTS && gen & 1 == 1);
    ((gen as u64) << 32) | ((tag as u64) << 24) | ((kind as u64) << 22) | index as u64
}

/// Splits a handle into (generation, index) after checking kind and runtime tag.
#[inline]
pub fn decode(handle: u64, tag: u8, kind: Kind) -> Result<(u32, u32)> {
    let gen = (handle >> 32) as u32;
    if gen & 1 == 0 || ((handle >> 22) & 3) as u8 != kind as u8 {
        return Err(Error::InvalidHandle);
    }
    if ((handle >> 24) & 0xff) as u8 != tag {
        return Err(Error::ForeignHandle);
    }
    Ok((gen, (handle & INDEX_MASK) as u32))
}

/// A small, cheap, unique id for the calling thread (never 0).
#[inline]
pub fn current_thread_id() -> u64 {
    use std::cell::Cell;
    use std::sync::atomic::{AtomicU64, Ordering};
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_rejections() {
        let h = encode(7, 3, Kind::Task, 12345);
        assert_eq!(decode(h, 3, Kind::Task), Ok((7, 12345)));
        assert_eq!(decode(h, 4, Kind::Task), Err(Error::ForeignHandle));
        assert_eq!(decode(h, 3, Kind::CancelSource), Err(Error::InvalidHandle));
        assert_eq!(decode(0, 3, Kind::Task), Err(Error::InvalidHandle));
        // even generation: never live
        assert_eq!(decode(h & !(1 << 32), 3, Kind::Task), Err(Error::InvalidHandle));
    }
}
