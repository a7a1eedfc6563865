//! Slots: the state word of a task, task and cancellation-source slots, and
//! the one free list both kinds of slot use.
//!
//! # The task state word
//!
//! `generation << 32 | flags`, in one `AtomicU64` per slot. The upper half
//! is the upper half of the slot's live handle, so a handle is checked
//! against its slot with one compare, and a stale handle can never win a
//! compare-and-swap on the word. Invariants:
//!
//! - The generation is odd exactly while the slot is live (rented, not yet
//!   retired) and only grows: renting adds 1 (odd), retiring adds 1 (even).
//!   A slot whose generation reaches `u32::MAX` is retired for good
//!   instead (it keeps that generation and the [`FREE`] state forever).
//! - The state bits ([`STATE_MASK`]) move `FREE -> PENDING -> (COMPLETING
//!   ->) final -> FREE`, and only forward within one generation. Only the
//!   owner thread moves a word out of `FREE` or back to it.
//! - A pending word is exactly `generation << 32 | PENDING` (`| MANUAL`):
//!   no other flag is set while a task is pending.

use std::cell::{Cell, UnsafeCell};
use std::ffi::c_void;
use std::ptr;
use std::sync::atomic::AtomicU64;

use super::arena::Arena;
use super::completion_stack::Link;
use super::error::Result;
use super::pool::PoolStats;
use super::types::{Outcome, TaskState};

/// Not live: free, or retired for good. Handles of any generation are stale.
pub const FREE: u64 = 0;
/// Live and not completed. Any thread may claim a [`MANUAL`] pending task
/// by a CAS to [`COMPLETING`]; other pending tasks are completed only by the
/// owner thread, with a plain store.
pub const PENDING: u64 = 1;
/// Claimed by the thread that won the CAS from `PENDING`; only that thread
/// writes the slot's payload, then publishes a final state (Release).
pub const COMPLETING: u64 = 2;
/// Final states: the payload (value, error) is written and never changes
/// again in this generation. Read it after an Acquire load of the word.
pub const SUCCEEDED: u64 = 3;
pub const FAULTED: u64 = 4;
pub const CANCELED: u64 = 5;
/// The state bits.
pub const STATE_MASK: u64 = 7;
/// Completed off the owner thread and pushed on the completion stack: set
/// with the final state, cleared by the owner when it takes the slot off
/// the stack. A slot retired while queued keeps it (`FREE | QUEUED`) and is
/// not reused before the owner has taken it off the stack.
pub const QUEUED: u64 = 8;
/// A manual completion source: `set_result` / `set_error` are allowed and
/// any thread may complete it. Set at rent, for the whole generation.
pub const MANUAL: u64 = 16;
/// The generation bits.
pub const GEN_MASK: u64 = !0 << 32;
/// One generation step.
pub const GEN_ONE: u64 = 1 << 32;

/// The state bits of a word.
#[inline(always)]
pub fn state_bits(word: u64) -> u64 {
    word & STATE_MASK
}

/// Whether a word holds a final state.
#[inline(always)]
pub fn is_final(word: u64) -> bool {
    state_bits(word) >= SUCCEEDED
}

/// The state bits of a final [`TaskState`] (`PENDING` for `Pending`).
#[inline(always)]
pub fn state_code(s: TaskState) -> u64 {
    // Pending 0 -> 1, Succeeded 1 -> 3, Faulted 2 -> 4, Canceled 3 -> 5.
    match s {
        TaskState::Pending => PENDING,
        s => s as u64 + 2,
    }
}

/// The observable [`TaskState`] of a word (`Pending` until final).
#[inline(always)]
pub fn task_state(word: u64) -> TaskState {
    const BY_BITS: [TaskState; 8] = [
        TaskState::Pending,
        TaskState::Pending,
        TaskState::Pending,
        TaskState::Succeeded,
        TaskState::Faulted,
        TaskState::Canceled,
        TaskState::Pending,
        TaskState::Pending,
    ];
    BY_BITS[state_bits(word) as usize]
}

// ---- continuations ---------------------------------------------------------

/// What runs when a task completes (`TaskSlot::cont`), with its two words
/// `cont_a` / `cont_b`. Owner thread only.
pub mod cont {
    /// No continuation.
    pub const NONE: u8 = 0;
    /// The continuation already ran: the task may be consumed.
    pub const FIRED: u8 = 1;
    /// `a` = the host's callback, `b` = its user pointer; it gets the task's
    /// handle.
    pub const USER: u8 = 2;
    /// A batch watching the task: `a` = its lane (whose callback runs with
    /// the lane's user pointer), `b` = the record id it gets instead of the
    /// handle.
    pub const LANE: u8 = 3;
    /// An input of a WhenAny: `a` = the coordinator, `b` = the input index.
    pub const ANY: u8 = 4;
    /// An input of a WhenAll: `a` = the coordinator, `b` = the input index.
    pub const ALL: u8 = 5;
}

/// What a completed task produced: laid out as the first 16 bytes of an
/// [`Outcome`], so reading an outcome is one 16-byte copy.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Payload {
    pub value: u64,
    pub error: i32,
    /// The final state (also in the state word's bits).
    pub state: TaskState,
}

/// A task slot: 64 bytes. The atomics are shared; `payload` is written
/// only by the thread that completes the task (the CAS winner for manual
/// ones) before it publishes a final state; everything else is owner-only.
#[repr(C)]
pub struct TaskSlot {
    pub state: AtomicU64,
    pub payload: UnsafeCell<Payload>,
    /// The outcome's index (combinator outputs), else `u32::MAX`.
    pub aux: Cell<u32>,
    pub next_queued: Link,
    /// Free-list link while the slot is free; while it is live, the
    /// duplicate-input stamp of combinator setup (high bit set, so a stale
    /// link, at most 2^22, never equals a stamp).
    pub next_free: Cell<u32>,
    /// A [`cont`] value.
    pub cont: Cell<u8>,
    pub cont_a: Cell<*mut c_void>,
    pub cont_b: Cell<u64>,
    /// The WhenAll coordinator whose output this task is (null otherwise).
    pub attached: Cell<*mut c_void>,
}

impl Default for TaskSlot {
    fn default() -> Self {
        TaskSlot {
            state: AtomicU64::new(0),
            payload: UnsafeCell::new(Payload { value: 0, error: 0, state: TaskState::Pending }),
            aux: Cell::new(u32::MAX),
            next_queued: Link::new(0),
            next_free: Cell::new(0),
            cont: Cell::new(cont::NONE),
            cont_a: Cell::new(ptr::null_mut()),
            cont_b: Cell::new(0),
            attached: Cell::new(ptr::null_mut()),
        }
    }
}

impl TaskSlot {
    /// Sets the continuation.
    #[inline(always)]
    pub fn set_cont(&self, kind: u8, a: *mut c_void, b: u64) {
        self.cont.set(kind);
        self.cont_a.set(a);
        self.cont_b.set(b);
    }

    /// The outcome of a final word (observed with Acquire).
    #[inline(always)]
    pub fn outcome(&self, word: u64) -> Outcome {
        // SAFETY: the word is final and was loaded with Acquire, so the
        // payload the completing thread wrote before publishing it is
        // visible and no longer changes in this generation.
        let p = unsafe { *self.payload.get() };
        debug_assert!(p.state == task_state(word));
        Outcome::new(p.state, p.value, p.error, self.aux.get())
    }

    /// Writes the payload.
    ///
    /// # Safety
    /// The caller is the task's only writer until it publishes a final state
    /// `state` (it won the claim, or the task is the owner's alone and it
    /// runs there, or it was just rented).
    #[inline(always)]
    pub unsafe fn write_payload(&self, value: u64, error: i32, state: TaskState) {
        *self.payload.get() = Payload { value, error, state };
    }
}

#[cfg(all(target_pointer_width = "64", not(loom)))] // loom's atomics are larger
const _: () = assert!(std::mem::size_of::<TaskSlot>() == 64);

/// A cancellation source slot. State word: `generation << 32`, `| 1` once
/// canceled, `| 2` once retired for good (generation exhausted). The
/// generation is odd while the source is live, as for tasks.
#[derive(Default)]
pub struct CancelSlot {
    pub state: AtomicU64,
    pub next_free: Cell<u32>,
}

/// Cancel slot state bit: canceled.
pub const CS_CANCELED: u64 = 1;
/// Cancel slot state bit: retired for good (generation exhausted).
pub const CS_DEAD: u64 = 2;

// SAFETY: the atomics are shared; the Cell / UnsafeCell fields are touched
// either by the owner thread only, or (value/error) by the single thread that
// won the completion CAS before it publishes the final state with Release.
unsafe impl Sync for TaskSlot {}
unsafe impl Send for TaskSlot {}
unsafe impl Sync for CancelSlot {}
unsafe impl Send for CancelSlot {}

// ---- the free list ---------------------------------------------------------

/// A slot a [`FreeList`] can link.
pub trait Linked: Default {
    fn link(&self) -> &Cell<u32>;
    /// The state word (generation in its upper half).
    fn word(&self) -> &AtomicU64;
}

/// Both slot kinds link through `next_free` and keep their word in `state`.
macro_rules! linked {
    ($($slot:ty),*) => {$(
        impl Linked for $slot {
            #[inline(always)]
            fn link(&self) -> &Cell<u32> {
                &self.next_free
            }
            #[inline(always)]
            fn word(&self) -> &AtomicU64 {
                &self.state
            }
        }
    )*};
}
linked!(TaskSlot, CancelSlot);

/// The owner's bookkeeping of one slot table: a LIFO list of free slots
/// (through their links, `index + 1`, 0 ends it), the slots never used yet
/// (`fresh..`), and the pool counters. Only `rents`, `returns` and the high
/// water mark change per operation; live, idle and cold allocations are
/// derived. Crate-private: it trusts the indices it is given (`pop` reads
/// the slot of a listed index unchecked), which only the runtime's own
/// bookkeeping guarantees.
pub(crate) struct FreeList {
    head: u32,
    /// Slots `0..fresh` have been handed out at least once.
    fresh: u32,
    rents: u64,
    returns: u64,
    high_water: u64,
    /// Returned while still on the completion stack: free once the owner
    /// has taken them off it.
    parked: u64,
    /// Retired for good (generation exhausted).
    retired: u64,
    /// The configured capacity: fresh slots past it are cold allocations.
    capacity: u64,
    /// The state word a slot starts with when first handed out: its
    /// runtime tag's generation floor (see `tags.rs`), free.
    floor: u64,
}

impl FreeList {
    /// A list for a table of `capacity` slots (configured), whose slots
    /// start at generation `floor` (even).
    pub fn new(capacity: u32, floor: u32) -> FreeList {
        debug_assert!(floor % 2 == 0);
        FreeList {
            head: 0,
            fresh: 0,
            rents: 0,
            returns: 0,
            high_water: 0,
            parked: 0,
            retired: 0,
            capacity: capacity as u64,
            floor: (floor as u64) << 32,
        }
    }

    /// Slots handed out at least once (`0..fresh`).
    #[inline]
    pub fn fresh(&self) -> u32 {
        self.fresh
    }

    /// Slots handed out and not returned.
    #[inline]
    pub fn live(&self) -> u64 {
        self.rents - self.returns
    }

    /// Takes a slot off the free list (most recently freed first), if any.
    #[inline(always)]
    pub fn pop<'a, T: Linked, H>(&mut self, arena: &'a Arena<T, H>) -> Option<(u32, &'a T)> {
        if self.head == 0 {
            return None;
        }
        let idx = self.head - 1;
        // SAFETY: listed slots exist.
        let slot = unsafe { arena.get_unchecked(idx) };
        self.head = slot.link().get();
        self.count_rent();
        Some((idx, slot))
    }

    #[inline(always)]
    fn count_rent(&mut self) {
        self.rents += 1;
        let live = self.rents - self.returns;
        if live > self.high_water {
            self.high_water = live;
        }
    }

    /// Takes a free slot (most recently freed first), else a fresh one,
    /// growing the table; `Exhausted` when it is full, `OutOfMemory` when
    /// it cannot grow (nothing changes then). Returns its index and the
    /// slot.
    #[inline(always)]
    pub fn rent<'a, T: Linked, H>(&mut self, arena: &'a Arena<T, H>) -> Result<(u32, &'a T)> {
        match self.pop(arena) {
            Some(r) => Ok(r),
            None => {
                let r = self.rent_fresh(arena)?;
                self.count_rent();
                Ok(r)
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn rent_fresh<'a, T: Linked, H>(&mut self, arena: &'a Arena<T, H>) -> Result<(u32, &'a T)> {
        if self.fresh >= arena.len() {
            arena.grow()?;
        }
        self.fresh += 1;
        let idx = self.fresh - 1;
        // SAFETY: `idx < arena.len()` (grown above if needed).
        let slot = unsafe { arena.get_unchecked(idx) };
        // Never handed out: it starts at the floor (no handle can name it
        // yet, so a plain store).
        slot.word().store(self.floor, std::sync::atomic::Ordering::Relaxed);
        Ok((idx, slot))
    }

    /// Returns slot `idx` to the list.
    #[inline(always)]
    pub fn give_back<T: Linked>(&mut self, slot: &T, idx: u32) {
        self.returns += 1;
        self.push(slot, idx);
    }

    #[inline(always)]
    fn push<T: Linked>(&mut self, slot: &T, idx: u32) {
        slot.link().set(self.head);
        self.head = idx + 1;
    }

    /// Returns a slot that is still on the completion stack: it joins the
    /// list in [`FreeList::unpark`], once the owner took it off the stack.
    #[inline]
    pub fn give_back_parked(&mut self) {
        self.returns += 1;
        self.parked += 1;
    }

    /// A parked slot (`slot`, index `idx`) is off the completion stack:
    /// free now.
    #[inline]
    pub fn unpark<T: Linked>(&mut self, slot: &T, idx: u32) {
        self.parked -= 1;
        self.push(slot, idx);
    }

    /// Returns a slot whose generation is exhausted: never handed out again.
    #[cold]
    pub fn give_back_retired(&mut self) {
        self.returns += 1;
        self.retired += 1;
    }

    /// The pool counters, for a table of `allocated` slots.
    pub fn stats(&self, allocated: u32) -> PoolStats {
        let live = self.live();
        let free = self.fresh as u64 - live - self.parked - self.retired;
        PoolStats {
            capacity: allocated as u64,
            idle: free + (allocated - self.fresh) as u64,
            live,
            high_water: self.high_water,
            rents: self.rents,
            returns: self.returns,
            cold_allocations: (self.fresh as u64).saturating_sub(self.capacity),
            discards: self.retired,
        }
    }
}
