//! A growable table of slots whose addresses never change.
//!
//! Slots live in fixed-size chunks that are allocated by the owner thread and
//! freed only when the arena is dropped, so any thread may read a slot by
//! index without a lock: it loads the chunk pointer, which is published
//! (Release) only once the chunk is initialised. This is what lets worker
//! threads complete tasks with a single CAS on the slot's state word while
//! the owner keeps growing the table.
//!
//! The chunk table has a fixed size (one entry per possible chunk), so a
//! lookup by a handle's index (below [`MAX_SLOTS`] by construction) needs no
//! bounds check: one load and a null test. The table's allocation starts
//! with a header `H` of the owner's choosing: the runtime keeps its owner
//! cell there, which every hot path reads along with the table.

use std::alloc::{self, Layout};
use std::ptr::{self, NonNull};
use std::sync::atomic::{AtomicPtr, AtomicU32, Ordering};

use super::error::{Error, Result};
use super::fallible;
use super::handle::MAX_SLOTS;

pub const CHUNK_BITS: u32 = 10;
pub const CHUNK: usize = 1 << CHUNK_BITS;
const CHUNKS: usize = (MAX_SLOTS as usize) >> CHUNK_BITS;

pub struct Arena<T, H = ()> {
    /// The table, allocated in `try_new` (freed in `Drop`). Not a `Box`: a
    /// moved `Box` asserts uniqueness, which would invalidate the pointers
    /// the runtime keeps into the header (the owner registry's), and the
    /// table's address must stay valid for them.
    table: NonNull<Table<T, H>>,
    /// Number of slots published to all threads.
    len: AtomicU32,
}

#[repr(C)]
struct Table<T, H> {
    header: H,
    chunks: [AtomicPtr<T>; CHUNKS],
}

impl<T: Default, H: Default> Arena<T, H> {
    /// An empty arena: `OutOfMemory` when its table cannot be allocated.
    pub fn try_new() -> Result<Self> {
        let layout = Layout::new::<Table<T, H>>();
        // SAFETY: the table is not zero-sized (it holds CHUNKS pointers).
        let table = unsafe { alloc::alloc_zeroed(layout) } as *mut Table<T, H>;
        let table = NonNull::new(table).ok_or(Error::OutOfMemory)?;
        // SAFETY: a fresh allocation of `Table`'s layout: the chunk pointers
        // are null (all-zero `AtomicPtr`s); the header is written here. Freed
        // in `Drop` (SAFETY of every later dereference).
        unsafe { ptr::addr_of_mut!((*table.as_ptr()).header).write(H::default()) };
        Ok(Arena { table, len: AtomicU32::new(0) })
    }

    /// [`Arena::try_new`], panicking when out of memory.
    pub fn new() -> Self {
        Self::try_new().expect("out of memory")
    }
}

impl<T, H> Arena<T, H> {
    /// The header, in the table's allocation (its address never changes).
    #[inline(always)]
    pub fn header(&self) -> &H {
        &self.table().header
    }

    #[inline(always)]
    fn table(&self) -> &Table<T, H> {
        // SAFETY: see `new`.
        unsafe { self.table.as_ref() }
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

    /// The chunk holding slot `index` (null if not allocated yet).
    #[inline(always)]
    fn chunk(&self, index: u32, order: Ordering) -> *mut T {
        // The mask keeps the index in the table whatever `index` is (a
        // handle's index is below MAX_SLOTS anyway): no bounds check.
        self.table().chunks[(index >> CHUNK_BITS) as usize & (CHUNKS - 1)].load(order)
    }

    /// Slot `index`, if it exists. Any thread.
    #[inline(always)]
    pub fn get(&self, index: u32) -> Option<&T> {
        if index >= MAX_SLOTS {
            return None;
        }
        let chunk = self.chunk(index, Ordering::Acquire);
        if chunk.is_null() {
            return None;
        }
        // SAFETY: a non-null chunk pointer was published (Release) after the
        // chunk was initialised; chunks are never freed before drop.
        Some(unsafe { &*chunk.add(index as usize & (CHUNK - 1)) })
    }

    /// Slot `index`, known to exist (owner-side fast path).
    ///
    /// # Safety
    /// `index < self.len()`.
    #[inline(always)]
    pub unsafe fn get_unchecked(&self, index: u32) -> &T {
        &*self.chunk(index, Ordering::Relaxed).add(index as usize & (CHUNK - 1))
    }
}

impl<T: Default, H> Arena<T, H> {
    /// Adds one chunk of default slots. Owner thread only (single writer).
    /// `Exhausted` when the table is full, `OutOfMemory` when the chunk
    /// cannot be allocated (nothing changes then).
    pub fn grow(&self) -> Result<()> {
        let len = self.len.load(Ordering::Relaxed);
        let chunk_index = (len as usize) >> CHUNK_BITS;
        if chunk_index >= CHUNKS {
            return Err(Error::Exhausted);
        }
        let chunk = fallible::try_slice(CHUNK, T::default)?;
        self.table().chunks[chunk_index].store(chunk.as_ptr(), Ordering::Release);
        self.len.store(len + CHUNK as u32, Ordering::Release);
        Ok(())
    }
}

impl<T: Default, H: Default> Default for Arena<T, H> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T, H> Drop for Arena<T, H> {
    fn drop(&mut self) {
        // Chunks are added in order: those past `len` were never allocated.
        let used = (*self.len.get_mut() as usize).div_ceil(CHUNK);
        for c in self.table().chunks[..used].iter() {
            let p = c.load(Ordering::Relaxed);
            if !p.is_null() {
                // SAFETY: allocated in `grow` as a Box<[T]> of CHUNK elements
                // would be (`fallible::try_slice`).
                unsafe { drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(p, CHUNK))) };
            }
        }
        // SAFETY: allocated with this layout in `try_new`, its header
        // initialised; dropped and freed once.
        unsafe {
            ptr::drop_in_place(ptr::addr_of_mut!((*self.table.as_ptr()).header));
            alloc::dealloc(self.table.as_ptr() as *mut u8, Layout::new::<Table<T, H>>());
        }
    }
}
