//! The subjects measured: onity's `FrameAllocator`, malloc, a thread-local
//! bump allocator (Temp) and a shared atomic bump pointer (Rewindable).

use super::*;

#[inline(always)]
pub(crate) fn touch(p: *mut u8, i: usize) {
    // SAFETY: `p` points at a fresh allocation of at least one byte.
    unsafe { ptr::write_volatile(p, i as u8) };
    black_box(p);
}

pub(crate) trait Subject: Sync {
    /// Worker `w`'s timed work: allocate every size, store the pointers.
    fn run(&self, w: usize, sizes: &[usize], out: &mut [*mut u8]);
    /// Worker `w`, after the set, untimed.
    fn worker_teardown(&self, _w: usize, _out: &mut [*mut u8]) {}
    /// Main thread, after every worker's teardown, untimed.
    fn teardown(&self) {}
    /// OS allocations so far, if the subject counts them.
    fn os_allocations(&self) -> u64 {
        0
    }
}

pub(crate) struct Ours(pub(crate) FrameAllocator, pub(crate) AtomicU64);

impl Ours {
    pub(crate) fn new() -> Self {
        Ours(FrameAllocator::new(ours_config()), AtomicU64::new(0))
    }
    /// Highest `bytes_reserved` seen at the end of a set (before its rewind).
    pub(crate) fn peak_reserved(&self) -> u64 {
        self.1.load(Ordering::Relaxed)
    }
}

impl Subject for Ours {
    fn run(&self, _w: usize, sizes: &[usize], out: &mut [*mut u8]) {
        for (i, (&s, o)) in sizes.iter().zip(out.iter_mut()).enumerate() {
            let p = match self.0.alloc(Lifetime::Frame, s, ALIGN) {
                Ok(p) => p.as_ptr(),
                Err(e) => panic!("frame allocator failed: {e}"),
            };
            touch(p, i);
            *o = p;
        }
    }
    fn teardown(&self) {
        self.1.fetch_max(self.0.stats().bytes_reserved, Ordering::Relaxed);
        self.0.rewind();
    }
    fn os_allocations(&self) -> u64 {
        self.0.stats().os_allocations
    }
}

pub(crate) struct Malloc;

impl Subject for Malloc {
    fn run(&self, _w: usize, sizes: &[usize], out: &mut [*mut u8]) {
        for (i, (&s, o)) in sizes.iter().zip(out.iter_mut()).enumerate() {
            // SAFETY: plain malloc; checked for null below.
            let p = unsafe { libc::malloc(s) } as *mut u8;
            assert!(!p.is_null(), "malloc failed");
            touch(p, i);
            *o = p;
        }
    }
    fn worker_teardown(&self, _w: usize, out: &mut [*mut u8]) {
        for p in out.iter_mut() {
            // SAFETY: allocated by `run` with malloc, freed once.
            unsafe { libc::free(*p as *mut libc::c_void) };
            *p = ptr::null_mut();
        }
    }
}

/// An owned, page-aligned buffer.
pub(crate) struct Buffer {
    pub(crate) base: *mut u8,
    pub(crate) layout: Layout,
}

impl Buffer {
    pub(crate) fn new(bytes: usize) -> Self {
        let layout = Layout::from_size_align(bytes.max(1), 4096).unwrap();
        // SAFETY: non-zero size.
        let base = unsafe { alloc::alloc(layout) };
        assert!(!base.is_null(), "buffer allocation failed");
        // Pre-fault, as the frame allocator does with `prefault: true`.
        for off in (0..layout.size()).step_by(4096) {
            // SAFETY: in bounds.
            unsafe { ptr::write_volatile(base.add(off), 0) };
        }
        Buffer { base, layout }
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout.
        unsafe { alloc::dealloc(self.base, self.layout) };
    }
}

// SAFETY: the buffer is only a region of memory; the subjects below make
// sure threads use disjoint parts of it.
unsafe impl Sync for Buffer {}
unsafe impl Send for Buffer {}

#[repr(align(64))]
pub(crate) struct Cursor(pub(crate) AtomicUsize);

/// A value on cache lines of its own (two: adjacent-line prefetch pairs lines), so that
/// the harness's synchronisation writes never invalidate a line a timed thread uses (its
/// stack, or another control variable).
#[repr(align(128))]
pub(crate) struct Padded<T>(pub(crate) T);

impl<T> std::ops::Deref for Padded<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// Temp analogue: one buffer and one cursor per worker, nothing shared.
pub(crate) struct ThreadLocalBump {
    pub(crate) bufs: Vec<Buffer>,
    pub(crate) cursors: Vec<Cursor>,
}

impl ThreadLocalBump {
    pub(crate) fn new(workers: usize, per_worker: usize) -> Self {
        ThreadLocalBump {
            bufs: (0..workers).map(|_| Buffer::new(per_worker)).collect(),
            cursors: (0..workers).map(|_| Cursor(AtomicUsize::new(0))).collect(),
        }
    }
}

impl Subject for ThreadLocalBump {
    fn run(&self, w: usize, sizes: &[usize], out: &mut [*mut u8]) {
        let buf = &self.bufs[w];
        // Only worker `w` touches its cursor: keep it in a register.
        let mut cur = self.cursors[w].0.load(Ordering::Relaxed);
        for (i, (&s, o)) in sizes.iter().zip(out.iter_mut()).enumerate() {
            let start = (cur + ALIGN - 1) & !(ALIGN - 1);
            assert!(start + s <= buf.layout.size(), "thread-local buffer too small");
            // SAFETY: in bounds (checked above).
            let p = unsafe { buf.base.add(start) };
            cur = start + s;
            touch(p, i);
            *o = p;
        }
        self.cursors[w].0.store(cur, Ordering::Relaxed);
    }
    fn worker_teardown(&self, w: usize, _out: &mut [*mut u8]) {
        self.cursors[w].0.store(0, Ordering::Relaxed);
    }
}

/// Rewindable analogue: one bump pointer shared by every worker, advanced
/// with a compare-and-swap loop per allocation.
pub(crate) struct SharedAtomicBump {
    pub(crate) buf: Buffer,
    pub(crate) top: Cursor,
}

impl Subject for SharedAtomicBump {
    fn run(&self, _w: usize, sizes: &[usize], out: &mut [*mut u8]) {
        let cap = self.buf.layout.size();
        for (i, (&s, o)) in sizes.iter().zip(out.iter_mut()).enumerate() {
            let mut cur = self.top.0.load(Ordering::Relaxed);
            let start = loop {
                let start = (cur + ALIGN - 1) & !(ALIGN - 1);
                assert!(start + s <= cap, "shared buffer too small");
                match self.top.0.compare_exchange_weak(cur, start + s, Ordering::AcqRel, Ordering::Relaxed) {
                    Ok(_) => break start,
                    Err(now) => cur = now,
                }
            };
            // SAFETY: in bounds (checked above).
            let p = unsafe { self.buf.base.add(start) };
            touch(p, i);
            *o = p;
        }
    }
    fn teardown(&self) {
        self.top.0.store(0, Ordering::Relaxed);
    }
}

/// Default configuration plus `prefault`, so that no column pays page
/// faults for memory it reuses (the bump buffers are pre-faulted too; malloc
/// is measured as it is).
pub(crate) fn ours_config() -> FrameAllocConfig {
    FrameAllocConfig { prefault: true, ..FrameAllocConfig::default() }
}
