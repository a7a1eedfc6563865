//! The frame allocator through the C ABI: rewound by the runtime's tick,
//! usable from any thread, every bad input a status, statistics in
//! `onity_runtime_stats`.

use std::ffi::c_void;
use std::ptr;

use onity::ffi::*;

mod support;
use support::Rt;

impl Rt {
    fn alloc(&self, size: u64, align: u32, lifetime: u32) -> Result<*mut u8, OnityStatus> {
        let mut p: *mut c_void = ptr::null_mut();
        match onity_frame_alloc(self.0, size, align, lifetime, &mut p) {
            OnityStatus::Ok => Ok(p as *mut u8),
            s => {
                assert!(p.is_null());
                Err(s)
            }
        }
    }
    fn stats(&self) -> OnityFrameAllocStats {
        // SAFETY: plain-old-data struct.
        let mut s: OnityStats = unsafe { std::mem::zeroed() };
        s.size = std::mem::size_of::<OnityStats>() as u32;
        assert_eq!(onity_runtime_stats(self.0, &mut s), OnityStatus::Ok);
        s.frame_alloc
    }
}

fn config() -> OnityRuntimeConfig {
    OnityRuntimeConfig { frame_alloc_poison: 1, ..OnityRuntimeConfig::default() }
}

const FRAME: u32 = OnityLifetime::Frame as u32;
const TWO: u32 = OnityLifetime::TwoFrames as u32;

#[test]
fn rewound_at_the_configured_timing_once_per_frame() {
    let rt = Rt::with(OnityRuntimeConfig { frame_alloc_rewind_timing: OnityTiming::Update as u32, ..config() });
    rt.frame(1);
    let p = rt.alloc(64, 16, FRAME).unwrap();
    let q = rt.alloc(64, 16, TWO).unwrap();
    // SAFETY: 64 valid bytes each until their rewinds.
    unsafe {
        p.write_bytes(1, 64);
        q.write_bytes(2, 64);
    }
    assert_eq!(onity_runtime_tick(rt.0, OnityTiming::EarlyUpdate as u32), OnityStatus::Ok);
    assert_eq!(rt.stats().rewinds, 0);
    assert_eq!(onity_runtime_tick(rt.0, OnityTiming::Update as u32), OnityStatus::Ok);
    assert_eq!(rt.stats().rewinds, 1);
    // SAFETY: poisoned on rewind (the debug aid); `q` still live.
    unsafe {
        assert_eq!(*p, 0xDD, "frame memory released and poisoned");
        assert_eq!(*q, 2, "two-frame memory survives one rewind");
    }
    // A timing run twice in a frame rewinds once.
    assert_eq!(onity_runtime_tick(rt.0, OnityTiming::Update as u32), OnityStatus::Ok);
    assert_eq!(rt.stats().rewinds, 1);
    rt.frame(2);
    assert_eq!(onity_runtime_tick(rt.0, OnityTiming::Update as u32), OnityStatus::Ok);
    assert_eq!(rt.stats().rewinds, 2);
    // SAFETY: as above.
    unsafe { assert_eq!(*q, 0xDD, "two-frame memory released by the second rewind") };
}

#[test]
fn manual_rewind_and_wrong_thread() {
    let rt = Rt::with(OnityRuntimeConfig { frame_alloc_rewind_timing: ONITY_FRAME_ALLOC_REWIND_MANUAL, ..config() });
    rt.frame(1);
    assert_eq!(onity_runtime_tick(rt.0, OnityTiming::Initialization as u32), OnityStatus::Ok);
    assert_eq!(rt.stats().rewinds, 0);
    assert_eq!(onity_frame_alloc_rewind(rt.0), OnityStatus::Ok);
    assert_eq!(rt.stats().rewinds, 1);
    let p = rt.0 as usize;
    std::thread::spawn(move || {
        assert_eq!(onity_frame_alloc_rewind(p as *mut OnityRuntime), OnityStatus::WrongThread);
    })
    .join()
    .unwrap();
    let bad = OnityRuntimeConfig { frame_alloc_rewind_timing: 17, ..config() };
    let mut out = ptr::null_mut();
    assert_eq!(onity_runtime_create(&bad, &mut out), OnityStatus::InvalidArgument);
}

#[test]
fn bad_inputs_get_statuses() {
    let rt = Rt::with(OnityRuntimeConfig { frame_alloc_max_bytes: 1 << 20, ..config() });
    assert_eq!(rt.alloc(0, 8, FRAME), Err(OnityStatus::InvalidArgument));
    assert_eq!(rt.alloc(8, 0, FRAME), Err(OnityStatus::InvalidAlignment));
    assert_eq!(rt.alloc(8, 3, FRAME), Err(OnityStatus::InvalidAlignment));
    assert_eq!(rt.alloc(8, 8192, FRAME), Err(OnityStatus::InvalidAlignment));
    assert_eq!(rt.alloc(8, 8, 2), Err(OnityStatus::InvalidArgument));
    assert_eq!(rt.alloc(u64::MAX, 8, FRAME), Err(OnityStatus::CountOutOfRange));
    assert_eq!(rt.alloc(4 << 20, 8, FRAME), Err(OnityStatus::Exhausted));
    assert_eq!(onity_frame_alloc(rt.0, 8, 8, FRAME, ptr::null_mut()), OnityStatus::NullPointer);
    assert_eq!(onity_frame_alloc(ptr::null_mut(), 8, 8, FRAME, &mut ptr::null_mut()), OnityStatus::NullPointer);
    let p = rt.alloc(100, 4096, FRAME).unwrap();
    assert_eq!(p as usize % 4096, 0);
    assert_eq!(rt.stats().failed_allocations, 6, "failures the allocator saw are counted");
}

#[test]
fn many_threads_allocate_without_overlap_and_steady_frames_reuse_blocks() {
    use std::sync::{Barrier, Mutex};
    // Smaller under Miri (scripts/sanitize.sh), which interprets every byte checked.
    const THREADS: usize = if cfg!(miri) { 2 } else { 4 };
    const FRAMES: u64 = if cfg!(miri) { 8 } else { 30 };
    const WARM_UP: u64 = if cfg!(miri) { 4 } else { 10 };
    const ALLOCS: usize = if cfg!(miri) { 24 } else { 200 };
    let rt = Rt::with(config());
    let addr = rt.0 as usize;
    // Persistent workers, as a game's job threads: each frame the owner
    // rewinds (Initialization tick), then releases the workers.
    let start = Barrier::new(THREADS + 1);
    let end = Barrier::new(THREADS + 1);
    let ranges: Mutex<Vec<(usize, usize)>> = Mutex::new(Vec::new());
    let mut os_after_warmup = 0;
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let (start, end, ranges) = (&start, &end, &ranges);
            s.spawn(move || {
                let rt = addr as *mut OnityRuntime;
                for _ in 0..FRAMES {
                    start.wait();
                    let mut v = Vec::new();
                    for i in 0..ALLOCS {
                        let size = 16 + (i * 37 + t * 11) % 3000;
                        let mut p: *mut c_void = ptr::null_mut();
                        assert_eq!(onity_frame_alloc(rt, size as u64, 16, FRAME, &mut p), OnityStatus::Ok);
                        assert_eq!(p as usize % 16, 0);
                        // SAFETY: `size` valid bytes for this frame.
                        unsafe { (p as *mut u8).write_bytes((t * 31 + i) as u8, size) };
                        v.push((p as usize, size));
                    }
                    // Every pattern survives the other threads' writes.
                    for (i, &(p, size)) in v.iter().enumerate() {
                        // SAFETY: as above.
                        let bytes = unsafe { std::slice::from_raw_parts(p as *const u8, size) };
                        assert!(bytes.iter().all(|&b| b == (t * 31 + i) as u8));
                    }
                    ranges.lock().unwrap().extend(v);
                    end.wait();
                }
            });
        }
        for frame in 1..=FRAMES {
            rt.frame(frame);
            assert_eq!(onity_runtime_tick(rt.0, OnityTiming::Initialization as u32), OnityStatus::Ok);
            start.wait();
            end.wait();
            let mut all = std::mem::take(&mut *ranges.lock().unwrap());
            all.sort_unstable();
            for w in all.windows(2) {
                assert!(w[0].0 + w[0].1 <= w[1].0, "allocations overlap");
            }
            if frame == WARM_UP {
                os_after_warmup = rt.stats().os_allocations;
            }
        }
    });
    let s = rt.stats();
    assert_eq!(s.os_allocations, os_after_warmup, "steady frames make no OS allocation");
    assert_eq!(s.rewinds, FRAMES);
    assert!(s.high_water_bytes_in_use > 0 && s.bytes_reserved >= s.bytes_claimed);
}

/// `frame_alloc_max_chunk_bytes` and `frame_alloc_prefault` reach the
/// allocator; out-of-range values and an unknown `size` are statuses; an
/// ABI 1.0 caller (whose struct ends before them) gets their defaults.
#[test]
fn max_chunk_bytes_and_prefault_are_configurable() {
    // A steady 512 KiB frame in 4 KiB allocations: with 64 KiB chunks the
    // home is 9 segments of 64 KiB (512 KiB + 1/8 = 576 KiB); with the
    // default it is one chunk of the 640 KiB size class.
    let claimed_after_steady_frames = |cfg: OnityRuntimeConfig| {
        let rt = Rt::with(cfg);
        for frame in 1..=4 {
            rt.frame(frame);
            assert_eq!(onity_runtime_tick(rt.0, OnityTiming::Initialization as u32), OnityStatus::Ok);
            for _ in 0..128 {
                rt.alloc(4096, 16, FRAME).unwrap();
            }
        }
        rt.stats().bytes_claimed
    };
    let small = OnityRuntimeConfig { frame_alloc_chunk_bytes: 4096, ..config() };
    assert_eq!(
        claimed_after_steady_frames(OnityRuntimeConfig { frame_alloc_max_chunk_bytes: 64 << 10, ..small }),
        576 << 10
    );
    assert_eq!(claimed_after_steady_frames(small), 640 << 10);
    // 0 (a zero-initialised field) is the default.
    assert_eq!(claimed_after_steady_frames(OnityRuntimeConfig { frame_alloc_max_chunk_bytes: 0, ..small }), 640 << 10);

    // Prefault: the first block (64 MiB, so the C allocator maps it fresh)
    // is resident as soon as it is reserved, not only where it was written.
    if !cfg!(miri) {
        let resident_far_from_first_allocation = |prefault: u32| {
            // Without poisoning, which fills (so touches) new blocks too.
            let rt = Rt::with(OnityRuntimeConfig {
                frame_alloc_first_block_bytes: 64 << 20,
                frame_alloc_prefault: prefault,
                frame_alloc_poison: 0,
                ..config()
            });
            let p = rt.alloc(64, 4096, FRAME).unwrap();
            // A page 32 MiB into the block (the first home chunk is carved at
            // its start and is only 16 KiB).
            let page = (p as usize + (32 << 20)) as *mut c_void;
            let mut vec = 0u8;
            // SAFETY: `page` is page-aligned and inside the 64 MiB block,
            // mapped while `rt` lives; `vec` holds one byte for one page.
            assert_eq!(unsafe { libc::mincore(page, 4096, &mut vec) }, 0);
            vec & 1 == 1
        };
        assert!(resident_far_from_first_allocation(1), "frame_alloc_prefault = 1 did not touch the block");
        assert!(!resident_far_from_first_allocation(0), "the block was resident without prefault");
    }

    // Out of range: a clear status, nothing created.
    let d = OnityRuntimeConfig::default();
    assert_eq!(d.frame_alloc_max_chunk_bytes, 64 << 20);
    assert_eq!(d.frame_alloc_prefault, 0);
    assert_eq!(d.reserved, 0);
    for bad in [
        OnityRuntimeConfig { frame_alloc_prefault: 2, ..d },
        OnityRuntimeConfig { reserved: 1, ..d },
        OnityRuntimeConfig { frame_alloc_max_chunk_bytes: 32, frame_alloc_chunk_bytes: 0, ..d },
        OnityRuntimeConfig { frame_alloc_max_chunk_bytes: (16 << 10) - 1, ..d },
        OnityRuntimeConfig { frame_alloc_max_chunk_bytes: (1 << 48) + 1, ..d },
        OnityRuntimeConfig { frame_alloc_max_chunk_bytes: u64::MAX, ..d },
    ] {
        let mut out = ptr::null_mut();
        assert_eq!(onity_runtime_create(&bad, &mut out), OnityStatus::InvalidArgument, "{bad:?}");
        assert!(out.is_null());
    }
    for size in [0, ONITY_RUNTIME_CONFIG_SIZE_1_0 - 8, ONITY_RUNTIME_CONFIG_SIZE_1_0 + 8, u32::MAX] {
        let mut out = ptr::null_mut();
        let c = OnityRuntimeConfig { size, ..d };
        assert_eq!(onity_runtime_create(&c, &mut out), OnityStatus::SizeMismatch, "size {size}");
    }
    // Boundaries are accepted.
    drop(Rt::with(OnityRuntimeConfig { frame_alloc_max_chunk_bytes: 1 << 48, ..d }));
    drop(Rt::with(OnityRuntimeConfig { frame_alloc_max_chunk_bytes: 64, frame_alloc_chunk_bytes: 0, ..d }));
    drop(Rt::with(OnityRuntimeConfig { frame_alloc_max_chunk_bytes: 16 << 10, frame_alloc_prefault: 1, ..d }));

    // An ABI 1.0 struct: exactly ONITY_RUNTIME_CONFIG_SIZE_1_0 bytes (a
    // multiple of 8), aligned as a 1.0 caller's struct is, in a buffer that
    // ends there (garbage would follow in the caller's memory; under Miri a
    // read past it is an error); the appended fields take their defaults.
    let old = OnityRuntimeConfig { size: ONITY_RUNTIME_CONFIG_SIZE_1_0, frame_alloc_chunk_bytes: 4096, ..config() };
    let words = ONITY_RUNTIME_CONFIG_SIZE_1_0 as usize / 8;
    assert_eq!(words * 8, ONITY_RUNTIME_CONFIG_SIZE_1_0 as usize);
    // SAFETY: plain-old-data; the first SIZE_1_0 bytes of the struct.
    let bytes: Box<[u64]> = unsafe { std::slice::from_raw_parts(&old as *const _ as *const u64, words) }.into();
    let mut out = ptr::null_mut();
    assert_eq!(onity_runtime_create(bytes.as_ptr() as *const OnityRuntimeConfig, &mut out), OnityStatus::Ok);
    let rt = Rt(out);
    for frame in 1..=4 {
        rt.frame(frame);
        assert_eq!(onity_runtime_tick(rt.0, OnityTiming::Initialization as u32), OnityStatus::Ok);
        for _ in 0..128 {
            rt.alloc(4096, 16, FRAME).unwrap();
        }
    }
    assert_eq!(rt.stats().bytes_claimed, 640 << 10, "the 1.0 config's own fields apply, the new ones default");
}

/// Size-prefixed structs (`OnityRuntimeConfig`, `OnityFrameInfo`,
/// `OnityStats`): `size` is read alone first, so a struct of another size is
/// refused without reading past its end, and a caller's copy at an address
/// not aligned for the whole struct is read without undefined behaviour
/// (both checked byte for byte under Miri: `scripts/sanitize.sh miri`).
#[test]
fn size_prefixed_structs_are_read_alone_first_and_unaligned() {
    /// `value`'s bytes at offset 1 of a fresh buffer (misaligned for any
    /// struct with a field wider than a byte).
    fn misaligned<T: Copy>(value: &T) -> Vec<u8> {
        let n = std::mem::size_of::<T>();
        let mut buf = vec![0u8; n + 1];
        // SAFETY: plain-old-data, `n` bytes each side.
        unsafe { ptr::copy_nonoverlapping(value as *const T as *const u8, buf.as_mut_ptr().add(1), n) };
        buf
    }
    // A config at an odd address is read, and its fields apply.
    let bad = OnityRuntimeConfig { frame_alloc_rewind_timing: 99, ..config() };
    let buf = misaligned(&bad);
    let mut out = ptr::null_mut();
    let cfg_at = |b: &Vec<u8>| b.as_ptr().wrapping_add(1) as *const OnityRuntimeConfig;
    assert_eq!(onity_runtime_create(cfg_at(&buf), &mut out), OnityStatus::InvalidArgument);
    assert!(out.is_null());
    let buf = misaligned(&config());
    assert_eq!(onity_runtime_create(cfg_at(&buf), &mut out), OnityStatus::Ok);
    let rt = Rt(out);

    // A frame info whose caller's struct is only its 4-byte `size`.
    let short: Box<u32> = Box::new(4);
    assert_eq!(
        onity_runtime_frame_begin(rt.0, &*short as *const u32 as *const OnityFrameInfo),
        OnityStatus::SizeMismatch
    );
    // The right size at an odd address.
    let fi = OnityFrameInfo {
        size: std::mem::size_of::<OnityFrameInfo>() as u32,
        reserved: 0,
        frame: 1,
        delta_time: 0.016,
        unscaled_delta_time: 0.016,
        realtime: 0.016,
    };
    let buf = misaligned(&fi);
    assert_eq!(onity_runtime_frame_begin(rt.0, buf.as_ptr().wrapping_add(1) as *const OnityFrameInfo), OnityStatus::Ok);
    // Statistics into a struct that is only its 4-byte `size`: refused, untouched.
    let mut short: Box<u32> = Box::new(4);
    assert_eq!(onity_runtime_stats(rt.0, &mut *short as *mut u32 as *mut OnityStats), OnityStatus::SizeMismatch);
    assert_eq!(*short, 4);
    assert_eq!(rt.stats().rewinds, 0);
}
