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
//! garbage only matches a live slot by chance of 1 in 2^31. Each live
//! runtime has its own 8-bit tag, which catches handles passed to the wrong
//! runtime; tags are reused, and a runtime's slots start above every
//! generation earlier runtimes with its tag reached (`tags.rs`), so a handle
//! is issued once in the process lifetime and a dead runtime's handle is
//! `StaleHandle` on a later runtime with its tag (`ForeignHandle` on the
//! others).
//!
//! The upper half of a handle is the upper half of its live slot's state
//! word (see [`super::slot`]), so checking a handle is: one compare of bits
//! 22-31 against the runtime's [`key`], the slot lookup, one compare of the
//! upper halves and the slot's state. When that fails, [`why_invalid`]
//! finds which error it is, in the documented order (off the fast path).

use super::error::{Error, Result};

pub const INDEX_BITS: u32 = 22;
/// Maximum number of slots of one kind in one runtime.
pub const MAX_SLOTS: u32 = 1 << INDEX_BITS;

/// Stands in for the token of a canceled source that has been destroyed.
/// Never a valid handle (its kind bits are 3).
pub(crate) const CANCELED_TOKEN: u64 = u64::MAX;
const INDEX_MASK: u64 = (MAX_SLOTS as u64) - 1;
/// Bits 22-31: kind and runtime tag.
const KEY_MASK: u64 = 0x3ff << INDEX_BITS;

/// What a handle refers to. Kind 3 is never issued (nor an even
/// generation): the C++20 layer's `cancel_due_token` (kind 3, generation
/// 0xFFFF_FFFE) relies on both (`never_issued_value_of_the_cpp_layer`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    Task = 1,
    CancelSource = 2,
}

#[inline]
pub fn encode(gen: u32, tag: u8, kind: Kind, index: u32) -> u64 {
    debug_assert!(index < MAX_SLOTS && gen & 1 == 1);
    ((gen as u64) << 32) | key(tag, kind) | index as u64
}

/// Bits 22-31 of every handle of `kind` that runtime `tag` issues (the rest
/// of the handle is 0).
#[inline]
pub const fn key(tag: u8, kind: Kind) -> u64 {
    ((tag as u64) << 24) | ((kind as u64) << INDEX_BITS)
}

/// Whether `handle` carries `key` (its kind and runtime).
#[inline(always)]
pub fn has_key(handle: u64, key: u64) -> bool {
    handle & KEY_MASK == key
}

/// The slot index of a handle.
#[inline(always)]
pub fn index(handle: u64) -> u32 {
    (handle & INDEX_MASK) as u32
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

/// Why `handle` (of `kind`, for runtime `tag` whose slots of that kind
/// start at generation `floor`) does not name a live slot: `InvalidHandle`
/// (malformed, wrong kind, index past the table), `ForeignHandle`, or
/// `StaleHandle` (also: issued by an earlier runtime with this tag, its
/// generation below the floor). `slot_live(index, gen)` tells whether that
/// slot exists and is live with that generation. The slow half of every
/// handle check.
#[cold]
#[inline(never)]
pub fn why_invalid(
    handle: u64,
    tag: u8,
    kind: Kind,
    floor: u32,
    slot_live: impl FnOnce(u32, u32) -> Option<bool>,
) -> Error {
    match decode(handle, tag, kind) {
        Err(e) => e,
        Ok((gen, _)) if gen < floor => Error::StaleHandle,
        Ok((gen, idx)) => match slot_live(idx, gen) {
            None => Error::InvalidHandle,
            Some(false) => Error::StaleHandle,
            // Live after all (the caller's fast check saw an older state):
            // report what a retry would not fix either.
            Some(true) => Error::StaleHandle,
        },
    }
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

    #[test]
    fn below_the_floor_is_stale_whatever_the_index() {
        let h = encode(7, 3, Kind::Task, MAX_SLOTS - 1);
        assert_eq!(why_invalid(h, 3, Kind::Task, 8, |_, _| None), Error::StaleHandle);
        assert_eq!(why_invalid(h, 3, Kind::Task, 6, |_, _| None), Error::InvalidHandle);
        assert_eq!(why_invalid(h, 4, Kind::Task, 8, |_, _| None), Error::ForeignHandle);
    }

    /// `cancel_due_token` of include/onity/coro/core.hpp: the C++ layer's
    /// plain waits pass it while a cancellation is pending and rely on every
    /// runtime rejecting it at once, whatever its tag.
    #[test]
    fn never_issued_value_of_the_cpp_layer() {
        const CANCEL_DUE_TOKEN: u64 = 0xFFFF_FFFE_FFFF_FFFF;
        for tag in 0..=u8::MAX {
            for kind in [Kind::Task, Kind::CancelSource] {
                assert!(!has_key(CANCEL_DUE_TOKEN, key(tag, kind)));
                assert_eq!(decode(CANCEL_DUE_TOKEN, tag, kind), Err(Error::InvalidHandle));
                assert_eq!(why_invalid(CANCEL_DUE_TOKEN, tag, kind, 0, |_, _| Some(true)), Error::InvalidHandle);
            }
        }
    }

    #[test]
    fn key_and_index_split_what_decode_checks() {
        let h = encode(7, 3, Kind::Task, 12345);
        assert!(has_key(h, key(3, Kind::Task)));
        assert!(!has_key(h, key(4, Kind::Task)));
        assert!(!has_key(h, key(3, Kind::CancelSource)));
        assert_eq!(index(h), 12345);
    }
}
