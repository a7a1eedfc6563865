//! A growable table of slots whose addresses never change.
//!
//! Slots live in fixed-size chunks that are allocated by the owner thread and
//! freed only when the arena is dropped, so any thread may read a slot by
//! index without a lock: it loads the published length, then the chunk
//! pointer. This is what lets worker threads complete tasks with a single CAS
//! on the slot's state word while the owner keeps growing the table.

use std::sync::atomic::{AtomicPtr, AtomicU32, Ordering};

use super::handle::MAX_SLOTS;

pub const CHUNK_BITS: u32 = 10;
pub const CHUNK: usize = 1 << CHUNK_BITS;
const CHUNKS: usize = (MAX_SLOTS as usize) >> CHUNK_BITS;

pub struct Arena<T> {
    chunks: Box<[AtomicPtr<T>]>,
    /// Number of slots published to all threads.
    len: AtomicU32,
}

impl<T: Default> Arena<T> {
    pub fn new() -> Self {
        let chunks = (0..CHUNKS).map(|_| AtomicPtr::new(std::ptr::null_mut())).collect();
        Arena { chunks, len: AtomicU32::new(0) }
    }

    /// Number of slots (all threads see at least this many).
    #[inline]
    pub fn len(&self) -> u32 {
        self.len.load(Ordering::Acquire)
    }

    /// Whether no slot was allocated yet.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Slot `index`, if it exists. Any thread.
    #[inline]
    pub fn get(&self, index: u32) -> Option<&T> {
        if index >= self.len.load(Ordering::Acquire) {
            return None;
        }
        // SAFETY: `len` is published (Release) after the chunk pointer is
        // stored, so the chunk exists; chunks are never freed before drop.
        unsafe {
            let chunk = self.chunks[(index >> CHUNK_BITS) as usize].load(Ordering::Acquire);
            Some(&*chunk.add(index as usize & (CHUNK - 1)))
        }
    }

    /// Slot `index`, known to exist (owner-side fast path).
    ///
    /// # Safety
    /// `index < self.len()`.
    #[inline]
    pub unsafe fn get_unchecked(&self, index: u32) -> &T {
        let chunk = self.chunks[(index >> CHUNK_BITS) as usize].load(Ordering::Relaxed);
        &*chunk.add(index as usize & (CHUNK - 1))
    }

    /// Adds one chunk of default slots. Owner thread only (single writer).
    /// Returns false when the table is full.
    pub fn grow(&self) -> bool {
        let len = self.len.load(Ordering::Relaxed);
        let chunk_index = (len as usize) >> CHUNK_BITS;
        if chunk_index >= CHUNKS {
            return false;
        }
        let chunk: Box<[T]> = (0..CHUNK).map(|_| T::default()).collect();
        let ptr = Box::into_raw(chunk) as *mut T;
        self.chunks[chunk_index].store(ptr, Ordering::Release);
        self.len.store(len + CHUNK as u32, Ordering::Release);
        true
    }
}

impl<T: Default> Default for Arena<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Drop for Arena<T> {
    fn drop(&mut self) {
        for c in self.chunks.iter() {
            let p = c.load(Ordering::Relaxed);
            if !p.is_null() {
                // SAFETY: allocated in `grow` as a Box<[T]> of CHUNK elements.
                unsafe { drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(p, CHUNK))) };
            }
        }
    }
}
