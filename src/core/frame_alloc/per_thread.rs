//! The per-thread side: each (thread, allocator) pair's slot of counters and
//! homes, and each thread's cache of the chunks the fast path bumps in.

use std::cell::{RefCell, UnsafeCell};
use std::ptr::{self, NonNull};
use std::sync::atomic::{fence, AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use super::fork::Locked;

use super::config::{lock, CACHE_ENTRIES, LINE, MAX_CHUNK_BYTES, OVERFLOW_ARENAS, RECENT_BYTES, RECENT_ONE};
use super::home::HomeCell;

/// Unique thread tokens (per thread, assigned on first slow path); 0 = none.
static NEXT_THREAD_TOKEN: AtomicU64 = AtomicU64::new(1);

/// Per-(thread, allocator) state owned by the allocator. The counters are
/// written by one thread only (plain load + store, no read-modify-write)
/// and read by `stats` and `rewind`. When its thread exits the slot is
/// released (`token` 0) and the next thread that registers takes it over,
/// with its counters, consumption history and home chunks.
// repr(C): the field order below is the cache-line layout.
#[repr(C, align(64))]
pub(super) struct ThreadSlot {
    /// Allocations made since the last [`fold`](Self::fold) of each
    /// lifetime, packed as `count << 32 | requested bytes`: the fast path's
    /// only statistics write (one add). It only counts bumps in the chunk
    /// the thread is in, and the slow path folds it into `allocations` and
    /// `bytes` before entering another chunk; a chunk holds at most
    /// [`MAX_CHUNK_BYTES`] (2^31) bytes and an allocation at least one, so
    /// neither half overflows.
    pub(super) recent: [AtomicU64; 2],
    /// Folded allocation count (add `recent`'s high halves for the total).
    pub(super) allocations: AtomicU64,
    /// Folded requested bytes per lifetime, monotonic (add `recent`'s low
    /// halves for the total).
    pub(super) bytes: [AtomicU64; 2],
    /// Token of the thread using the slot; 0: free (its thread exited).
    pub(super) token: AtomicU64,
    /// Written by the thread once per frame, on a cache line of its own.
    pub(super) per_frame: PerFrame,
    /// Homes of the Frame, TwoFrames A and TwoFrames B arenas.
    pub(super) homes: [HomeCell; OVERFLOW_ARENAS],
}

/// The part of a [`ThreadSlot`] its thread writes once per frame (first
/// allocation of each lifetime), on its own cache line: `stats` (which reads
/// the home cells) and most rewinds (which read only the counters on the
/// slot's first line) never read it, so the thread's first writes of a frame
/// do not have to take the line back from the rewinding thread.
#[repr(align(64))]
pub(super) struct PerFrame {
    /// Bytes this thread consumed per lifetime in the last two frames it used
    /// it (`[lifetime][0]` the last one): the smaller sizes its home chunks,
    /// so a one-off heavy frame does not grow them.
    pub(super) consumed: [[AtomicUsize; 2]; 2],
    /// Per home cell: last epoch the thread installed it (`u64::MAX`:
    /// never). Written only by the thread using the slot; read by rewinds
    /// that reclaim idle homes (every [`HOME_RECLAIM_FRAMES`]).
    pub(super) last_epoch: [AtomicU64; OVERFLOW_ARENAS],
}

impl ThreadSlot {
    /// Fast path: counts an allocation of `size` bytes (at most
    /// [`MAX_CHUNK_BYTES`]: it was bumped from a chunk) in `recent`.
    #[inline(always)]
    pub(super) fn record_fast(&self, lt: usize, size: usize) {
        debug_assert!(size <= MAX_CHUNK_BYTES);
        let inc = RECENT_ONE | size as u64;
        let r = &self.recent[lt];
        r.store(r.load(Ordering::Relaxed).wrapping_add(inc), Ordering::Relaxed);
    }

    /// Slow path: counts an allocation of any size in the folded counters.
    #[inline]
    pub(super) fn record_slow(&self, lt: usize, size: usize) {
        let a = &self.allocations;
        a.store(a.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
        let b = &self.bytes[lt];
        b.store(b.load(Ordering::Relaxed) + size as u64, Ordering::Relaxed);
    }

    /// Moves `recent[lt]` into the folded counters (slow path, by the thread
    /// using the slot, before it enters another chunk of `lt`).
    #[inline]
    pub(super) fn fold(&self, lt: usize) {
        let r = self.recent[lt].load(Ordering::Relaxed);
        if r != 0 {
            let a = &self.allocations;
            a.store(a.load(Ordering::Relaxed) + (r >> 32), Ordering::Relaxed);
            let b = &self.bytes[lt];
            b.store(b.load(Ordering::Relaxed) + (r & RECENT_BYTES), Ordering::Relaxed);
            self.recent[lt].store(0, Ordering::Relaxed);
        }
    }

    pub(super) fn new(token: u64) -> Self {
        ThreadSlot {
            recent: [AtomicU64::new(0), AtomicU64::new(0)],
            allocations: AtomicU64::new(0),
            bytes: [AtomicU64::new(0), AtomicU64::new(0)],
            token: AtomicU64::new(token),
            per_frame: PerFrame {
                consumed: [[AtomicUsize::new(0), AtomicUsize::new(0)], [AtomicUsize::new(0), AtomicUsize::new(0)]],
                last_epoch: [(); OVERFLOW_ARENAS].map(|_| AtomicU64::new(u64::MAX)),
            },
            homes: [(); OVERFLOW_ARENAS].map(|_| HomeCell::new()),
        }
    }
}

// The counters (written per allocation, read by every rewind) fill the
// slot's first cache line; the per-frame fields start the second.
const _: () = assert!(std::mem::offset_of!(ThreadSlot, per_frame) == 64);
/// The part of a chunk the fast path touches.
#[derive(Clone, Copy)]
pub(super) struct Bump {
    /// Next free byte (null when empty).
    pub(super) cursor: *mut u8,
    /// Address one past the chunk (0 when empty). Always a multiple of 64
    /// (chunks are whole cache lines), so aligning the cursor to at most 64
    /// never passes it.
    pub(super) end: usize,
}

impl Bump {
    pub(super) const EMPTY: Bump = Bump { cursor: ptr::null_mut(), end: 0 };

    /// A chunk of `len` bytes at `base`.
    pub(super) fn new(base: *mut u8, len: usize) -> Bump {
        debug_assert!((base as usize + len) % LINE == 0);
        Bump { cursor: base, end: base as usize + len }
    }

    fn remaining(&self) -> usize {
        self.end - self.cursor as usize
    }
}

/// The rest of a thread's per-lifetime state (slow path only).
#[derive(Clone, Copy)]
pub(super) struct ChunkState {
    /// Size of the next overflow chunk to claim.
    pub(super) next_claim: usize,
    /// Bytes handed to this thread for this lifetime in this epoch (home
    /// segments entered plus overflow chunks).
    pub(super) claimed: usize,
    /// Index of the next home segment to enter.
    pub(super) seg: usize,
    /// Home segments usable in this epoch.
    pub(super) segs: usize,
    /// The home is not installed yet in this epoch.
    pub(super) fresh: bool,
}

impl ChunkState {
    pub(super) const FRESH: ChunkState = ChunkState { next_claim: 0, claimed: 0, seg: 0, segs: 0, fresh: true };
}

/// One allocator's state in a thread's cache. The fields the fast path
/// reads come first (one cache line).
#[repr(C)]
#[derive(Clone, Copy)]
pub(super) struct Entry {
    /// The allocator's stamp when the entry was last renewed: unique per
    /// (allocator, epoch), 0 for an empty entry. One compare checks both.
    pub(super) stamp: u64,
    /// This thread's slot, owned by the allocator `id`.
    pub(super) slot: *const ThreadSlot,
    pub(super) bumps: [Bump; 2],
    /// Allocator id (0 = empty entry).
    pub(super) id: u64,
    /// Allocator epoch the chunks belong to.
    pub(super) epoch: u64,
    pub(super) states: [ChunkState; 2],
}

impl Entry {
    pub(super) const EMPTY: Entry =
        Entry { stamp: 0, slot: ptr::null(), bumps: [Bump::EMPTY; 2], id: 0, epoch: 0, states: [ChunkState::FRESH; 2] };
}

#[repr(C, align(64))]
pub(super) struct Cache {
    /// Most recently used first.
    pub(super) entries: [Entry; CACHE_ENTRIES],
    /// This thread's token (0 until first needed).
    pub(super) token: u64,
}

thread_local! {
    // No destructor and a const initialiser: access is a plain TLS offset,
    // never fails (not even during thread teardown).
    pub(super) static CACHE: UnsafeCell<Cache> = const {
        UnsafeCell::new(Cache { entries: [Entry::EMPTY; CACHE_ENTRIES], token: 0 })
    };
    // Registered on a thread's first slot registration (slow path): releases
    // its slots when it exits.
    static EXIT_GUARD: ExitGuard = const { ExitGuard(RefCell::new(Vec::new())) };
}

/// Releases this thread's slots (in every allocator still alive) when the
/// thread exits, so that new threads reuse them instead of adding slots.
struct ExitGuard(RefCell<Vec<SlotWatch>>);

impl Drop for ExitGuard {
    fn drop(&mut self) {
        // Forget the cached entries first: an allocation made on this thread
        // after this point (from a later thread-local destructor) registers
        // again, and then keeps its slot for good, instead of using a slot
        // another thread may take over.
        CACHE.with(|c| {
            // SAFETY: the cache is this thread's own and no allocation is in
            // progress on this thread (we are in its exit path).
            let c = unsafe { &mut *c.get() };
            c.entries = [Entry::EMPTY; CACHE_ENTRIES];
        });
        for w in self.0.get_mut().drain(..) {
            if w.owned() {
                // Release: the next owner (Acquire in `register`) sees every
                // write this thread made to the slot. (Its allocator may be
                // dropping meanwhile: `w` keeps the memory alive.)
                w.slot().token.store(0, Ordering::Release);
            }
        }
    }
}

/// Bumps `size` bytes aligned to `align` (a power of two up to `MAX_ALIGN`)
/// out of `b`. Fails for `size == 0` (so the fast path needs no separate
/// check).
///
/// # Safety
/// `b` must be empty or describe the bytes `cursor..end` of a live block,
/// with `end` a multiple of 64 below `usize::MAX - MAX_ALIGN`.
#[inline(always)]
pub(super) unsafe fn bump(b: &mut Bump, size: usize, align: usize) -> Option<NonNull<u8>> {
    let cur = b.cursor as usize;
    let start = (cur + (align - 1)) & !(align - 1);
    // `end` is a multiple of 64 >= `cur`, so for `align <= 64` (usually a
    // constant) `start <= end` holds without a test. `size - 1 < end -
    // start` is `0 < size <= end - start`.
    if (align <= LINE || start <= b.end) && size.wrapping_sub(1) < b.end.wrapping_sub(start) {
        // SAFETY: `start + size <= end`, so both offsets stay within the
        // chunk (caller contract); a pointer into a live block is non-null.
        // (An empty chunk never gets here: its `end - start` is 0.)
        unsafe {
            let p = b.cursor.add(start - cur);
            b.cursor = p.add(size);
            Some(NonNull::new_unchecked(p))
        }
    } else {
        None
    }
}
/// The slots of one allocator, one per thread that allocated while alive.
#[derive(Default)]
pub(super) struct Slots {
    list: Mutex<Vec<SlotRc>>,
}

impl Slots {
    /// The slots, locked.
    pub(super) fn lock(&self) -> Locked<'_, Vec<SlotRc>> {
        lock(&self.list)
    }

    /// Makes entry 0 of this thread's cache the entry of allocator `id` (whose
    /// slots these are) for `epoch`:
    /// finds (or registers) it, moves it to the front, drops chunks of an
    /// older epoch.
    ///
    /// Only called when entry 0 is not ours.
    /// False (nothing changed) when out of memory for this thread's first
    /// slot.
    #[cold]
    #[inline(never)]
    pub(super) fn rebind(&self, cache: *mut Cache, id: u64, stamp: u64, epoch: u64) -> bool {
        // SAFETY (every `&mut *cache`): as in `alloc_slow`.
        let (found, token) = unsafe {
            let c = &mut *cache;
            match c.entries.iter().position(|e| e.id == id) {
                Some(i) => {
                    c.entries[..=i].rotate_right(1);
                    (true, c.token)
                }
                None => (false, c.token),
            }
        };
        if !found {
            let token = if token == 0 {
                let t = NEXT_THREAD_TOKEN.fetch_add(1, Ordering::Relaxed);
                // SAFETY: as above.
                unsafe { (*cache).token = t };
                t
            } else {
                token
            };
            let Some(slot) = self.register(token) else {
                return false;
            };
            // SAFETY: as above. The evicted last entry holds no resource.
            unsafe {
                let c = &mut *cache;
                c.entries.rotate_right(1);
                c.entries[0] = Entry {
                    id,
                    epoch: epoch.wrapping_sub(1), // forces the reset below
                    slot,
                    ..Entry::EMPTY
                };
            }
        }
        // SAFETY: as above.
        unsafe { renew(&mut (*cache).entries[0], stamp, epoch) };
        true
    }

    /// Finds this thread's slot, or takes over the slot of an exited thread,
    /// or creates one; `None` (nothing changed) when out of memory.
    fn register(&self, token: u64) -> Option<*const ThreadSlot> {
        // Room for the exit guard's entry first. If the thread is already
        // being torn down the guard is gone: the slot then stays this
        // thread's.
        let guard_room = EXIT_GUARD.try_with(|g| {
            let mut v = g.0.borrow_mut();
            v.retain(SlotWatch::owned);
            v.try_reserve(1).is_ok()
        });
        if guard_room == Ok(false) {
            return None;
        }
        let watch = {
            let mut slots = lock(&self.list);
            // This thread's own (its cache entry was evicted).
            if let Some(s) = slots.iter().find(|s| s.token.load(Ordering::Relaxed) == token) {
                return Some(s.as_ptr());
            }
            // Acquire: pairs with the Release of the exited thread's guard.
            match slots
                .iter()
                .find(|s| s.token.compare_exchange(0, token, Ordering::Acquire, Ordering::Relaxed).is_ok())
            {
                Some(s) => s.watch(),
                None => {
                    slots.try_reserve(1).ok()?;
                    let s = SlotRc::try_new(token)?;
                    let w = s.watch();
                    slots.push(s);
                    w
                }
            }
        };
        let slot = watch.slot() as *const ThreadSlot;
        // Release it when this thread exits (room reserved above).
        let _ = EXIT_GUARD.try_with(|g| g.0.borrow_mut().push(watch));
        Some(slot)
    }
}

/// What a [`SlotRc`] and its [`SlotWatch`]es share.
struct Shared {
    /// References: the allocator's and the exit guards'.
    refs: AtomicUsize,
    /// The allocator still holds it (its [`SlotRc`] lives).
    owned: AtomicBool,
    slot: ThreadSlot,
}

/// Drops one reference to `p`, freeing it with the last one.
///
/// # Safety
/// The caller owns a reference to `p` and does not use it afterwards.
unsafe fn release(p: NonNull<Shared>) {
    // SAFETY: alive while the caller's reference is (the caller's contract).
    if unsafe { p.as_ref() }.refs.fetch_sub(1, Ordering::Release) == 1 {
        fence(Ordering::Acquire);
        // SAFETY: the last reference: nothing else uses it.
        drop(unsafe { Box::from_raw(p.as_ptr()) });
    }
}

/// The allocator's reference to a thread's slot (an `Arc<ThreadSlot>` made
/// fallibly: stable Rust has no `Arc::try_new`).
pub(super) struct SlotRc(NonNull<Shared>);

// SAFETY: a shared reference to a `ThreadSlot` (atomics and home cells,
// which are `Sync`), counted atomically.
unsafe impl Send for SlotRc {}
// SAFETY: as above.
unsafe impl Sync for SlotRc {}

impl SlotRc {
    /// A new slot for thread `token`, or `None` when out of memory.
    fn try_new(token: u64) -> Option<SlotRc> {
        let b = crate::core::fallible::try_box(|| Shared {
            refs: AtomicUsize::new(1),
            owned: AtomicBool::new(true),
            slot: ThreadSlot::new(token),
        })
        .ok()?;
        // SAFETY: `Box::into_raw` is never null.
        Some(SlotRc(unsafe { NonNull::new_unchecked(Box::into_raw(b)) }))
    }

    /// A reference for the exit guard of the thread using the slot.
    fn watch(&self) -> SlotWatch {
        self.shared().refs.fetch_add(1, Ordering::Relaxed);
        SlotWatch(self.0)
    }

    pub(super) fn as_ptr(&self) -> *const ThreadSlot {
        &self.shared().slot
    }

    fn shared(&self) -> &Shared {
        // SAFETY: alive while this reference is.
        unsafe { self.0.as_ref() }
    }
}

impl std::ops::Deref for SlotRc {
    type Target = ThreadSlot;
    fn deref(&self) -> &ThreadSlot {
        &self.shared().slot
    }
}

impl Drop for SlotRc {
    fn drop(&mut self) {
        self.shared().owned.store(false, Ordering::Release);
        // SAFETY: this reference is ours and dropped here.
        unsafe { release(self.0) };
    }
}

/// An exit guard's reference to a slot (a `Weak<ThreadSlot>`): keeps the
/// memory, and tells whether the allocator still holds the slot.
struct SlotWatch(NonNull<Shared>);

impl SlotWatch {
    fn owned(&self) -> bool {
        // SAFETY: alive while this reference is.
        unsafe { self.0.as_ref() }.owned.load(Ordering::Acquire)
    }

    fn slot(&self) -> &ThreadSlot {
        // SAFETY: alive while this reference is.
        &unsafe { self.0.as_ref() }.slot
    }
}

impl Drop for SlotWatch {
    fn drop(&mut self) {
        // SAFETY: this reference is ours and dropped here.
        unsafe { release(self.0) };
    }
}

/// Drops the chunks of `e` if they belong to an older epoch, recording
/// what the thread consumed in it (sizes the next home chunks), and
/// stamps it with `stamp`.
///
/// # Safety
/// `e`'s `slot` must be alive (owned by the allocator whose entry it is).
#[inline]
pub(super) unsafe fn renew(e: &mut Entry, stamp: u64, epoch: u64) {
    if e.stamp == stamp {
        return;
    }
    if e.epoch != epoch {
        // SAFETY: caller contract.
        let slot = unsafe { &*e.slot };
        for lt in 0..2 {
            if !e.states[lt].fresh {
                let [last, prev] = &slot.per_frame.consumed[lt];
                prev.store(last.load(Ordering::Relaxed), Ordering::Relaxed);
                last.store(e.states[lt].claimed.saturating_sub(e.bumps[lt].remaining()), Ordering::Relaxed);
            }
            e.bumps[lt] = Bump::EMPTY;
            e.states[lt] = ChunkState::FRESH;
        }
        e.epoch = epoch;
    }
    e.stamp = stamp;
}
