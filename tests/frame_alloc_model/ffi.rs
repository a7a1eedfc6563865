//! The model run through the C ABI: runtimes with random (and bad)
//! configurations, `onity_frame_alloc` and its statistics.

use super::*;

/// `onity_frame_alloc`, with its status mapped back to the core error it
/// documents (checked to be the documented one by the model).
fn ffi_alloc(rt: usize, op: &Op) -> Result<usize, AllocError> {
    let mut p: *mut c_void = 1 as *mut c_void;
    let lt = op.lifetime as u32;
    let st = onity_frame_alloc(rt as *mut OnityRuntime, op.size as u64, op.align as u32, lt, &mut p);
    if st == OnityStatus::Ok {
        assert!(!p.is_null());
        return Ok(p as usize);
    }
    assert!(p.is_null(), "*out_ptr is NULL on error ({st:?})");
    Err(match st {
        OnityStatus::InvalidArgument => AllocError::ZeroSize,
        OnityStatus::InvalidAlignment => AllocError::InvalidAlignment,
        OnityStatus::CountOutOfRange => AllocError::TooLarge,
        OnityStatus::Exhausted => AllocError::Exhausted,
        OnityStatus::OutOfMemory => AllocError::OutOfMemory,
        s => panic!("undocumented status {s:?} for {op:?}"),
    })
}

fn ffi_stats(rt: *mut OnityRuntime) -> FrameAllocStats {
    // SAFETY: plain-old-data struct.
    let mut s: OnityStats = unsafe { std::mem::zeroed() };
    s.size = std::mem::size_of::<OnityStats>() as u32;
    assert_eq!(onity_runtime_stats(rt, &mut s), OnityStatus::Ok);
    let f = s.frame_alloc;
    FrameAllocStats {
        bytes_in_use: f.bytes_in_use,
        bytes_claimed: f.bytes_claimed,
        bytes_reserved: f.bytes_reserved,
        blocks: f.blocks,
        high_water_bytes_in_use: f.high_water_bytes_in_use,
        rewinds: f.rewinds,
        os_allocations: f.os_allocations,
        allocations: f.allocations,
        failed_allocations: f.failed_allocations,
    }
}

fn create(cfg: &OnityRuntimeConfig) -> Result<*mut OnityRuntime, OnityStatus> {
    let mut out = ptr::null_mut();
    match onity_runtime_create(cfg, &mut out) {
        OnityStatus::Ok => Ok(out),
        s => {
            assert!(out.is_null(), "nothing created on error");
            Err(s)
        }
    }
}

/// A random configuration the header documents as invalid, and its status.
fn random_bad_ffi_config(rng: &mut Rng) -> (OnityRuntimeConfig, OnityStatus) {
    let d = OnityRuntimeConfig::default();
    let chunk = rng.pick(&[0u64, 64, 4096, 16 << 10, 1 << 20]);
    let bad = match rng.below(7) {
        0 => OnityRuntimeConfig { frame_alloc_prefault: rng.range(2, u32::MAX as u64) as u32, ..d },
        1 => OnityRuntimeConfig { reserved: rng.range(1, u32::MAX as u64) as u32, ..d },
        2 => OnityRuntimeConfig {
            frame_alloc_rewind_timing: rng.pick(&[ONITY_TIMING_COUNT + 1, 17, 100, u32::MAX]),
            ..d
        },
        3 => OnityRuntimeConfig {
            // Below max(chunk, 64), not 0.
            frame_alloc_max_chunk_bytes: rng.range(1, chunk.max(64) - 1),
            frame_alloc_chunk_bytes: chunk,
            ..d
        },
        4 => OnityRuntimeConfig { frame_alloc_max_chunk_bytes: rng.range((1 << 48) + 1, u64::MAX), ..d },
        5 => {
            let size =
                rng.pick(&[0, 4, ONITY_RUNTIME_CONFIG_SIZE_1_0 - 8, ONITY_RUNTIME_CONFIG_SIZE_1_0 + 8, u32::MAX]);
            return (OnityRuntimeConfig { size, ..d }, OnityStatus::SizeMismatch);
        }
        _ => OnityRuntimeConfig { size: std::mem::size_of::<OnityRuntimeConfig>() as u32 + 8, ..d },
    };
    let status = if bad.size == d.size { OnityStatus::InvalidArgument } else { OnityStatus::SizeMismatch };
    (bad, status)
}

fn random_ffi_config(rng: &mut Rng) -> OnityRuntimeConfig {
    let chunk = rng.pick(&[0u64, 64, 1000, 4096, 16 << 10, 256 << 10]);
    let lo = chunk.max(64);
    OnityRuntimeConfig {
        frame_alloc_rewind_timing: if rng.pct(15) {
            ONITY_FRAME_ALLOC_REWIND_MANUAL
        } else {
            rng.below(ONITY_TIMING_COUNT as u64) as u32
        },
        frame_alloc_poison: rng.pick(&[0, 0, 1, 7]),
        frame_alloc_first_block_bytes: rng.pick(&[0, 4096, 10_000, 256 << 10, 2 << 20]),
        frame_alloc_chunk_bytes: chunk,
        frame_alloc_max_bytes: if rng.pct(30) { rng.pick(&[2 << 20, 8 << 20, 32 << 20]) } else { 0 },
        frame_alloc_max_chunk_bytes: rng.pick(&[0, lo, lo + 1, lo * 4, 1 << 20, 64 << 20, 1 << 48]),
        frame_alloc_prefault: if rng.pct(20) { 1 } else { 0 },
        ..OnityRuntimeConfig::default()
    }
}

const FFI_SEEDS: u64 = 6;
const FFI_FRAMES: usize = 30;

fn run_ffi_seed(seed: u64) {
    let mut rng = rng(seed.wrapping_add(1000));
    for _ in 0..4 {
        let (bad, status) = random_bad_ffi_config(&mut rng);
        assert_eq!(create(&bad), Err(status), "seed {seed}: {bad:?}");
    }
    let cfg = random_ffi_config(&mut rng);
    let rt = create(&cfg).unwrap_or_else(|s| panic!("seed {seed}: {cfg:?} refused: {s:?}"));
    let addr = rt as usize;
    let max_bytes = cfg.frame_alloc_max_bytes as usize;
    let chunk = (cfg.frame_alloc_chunk_bytes as usize).max(64);
    let max_chunk = match cfg.frame_alloc_max_chunk_bytes {
        0 => chunk.max(64 << 20),
        n => n as usize,
    };
    let shape = Shape { chunk, max_chunk, max_bytes };
    let mut m = Model { poison: cfg.frame_alloc_poison != 0, max_bytes, ..Model::default() };
    let mut prev = ffi_stats(rt);
    let manual = cfg.frame_alloc_rewind_timing == ONITY_FRAME_ALLOC_REWIND_MANUAL;
    let mut tag = (seed + 1000) << 40;
    let ctx0 = format!("ffi seed {seed} cfg {cfg:?}");
    Crew::with_workers(
        |op| ffi_alloc(addr, op),
        |crew| {
            let mut frame_no = 0u64;
            let mut rewound_in_frame = false;
            let rewind_event = |m: &mut Model, prev: &mut FrameAllocStats, how: &dyn Fn(), ctx: &str| {
                let ended = m.rewinding(ctx);
                how();
                m.rewound(&ended, &format!("{ctx} after rewind"));
                let st = ffi_stats(rt);
                m.check_stats(&st, prev, &format!("{ctx} after rewind"));
                *prev = st;
            };
            for f in 0..FFI_FRAMES {
                let ctx = format!("{ctx0} frame {f}");
                frame_no += rng.range(1, 3);
                let fi = OnityFrameInfo {
                    size: std::mem::size_of::<OnityFrameInfo>() as u32,
                    reserved: 0,
                    frame: frame_no,
                    delta_time: 0.016,
                    unscaled_delta_time: 0.016,
                    realtime: frame_no as f64 * 0.016,
                };
                assert_eq!(onity_runtime_frame_begin(rt, &fi), OnityStatus::Ok);
                rewound_in_frame = false;
                // A manual rewind between frames (the only ones with
                // ONITY_FRAME_ALLOC_REWIND_MANUAL).
                if rng.pct(if manual { 70 } else { 10 }) {
                    rewind_event(
                        &mut m,
                        &mut prev,
                        &|| assert_eq!(onity_frame_alloc_rewind(rt), OnityStatus::Ok),
                        &format!("{ctx} manual"),
                    );
                }
                // Timings run this frame, in order (FixedUpdate 0 to 3 times,
                // others sometimes twice or skipped).
                let mut ticks = Vec::new();
                for t in 0..ONITY_TIMING_COUNT {
                    let n = if t == OnityTiming::FixedUpdate as u32 {
                        rng.below(4)
                    } else if rng.pct(75) {
                        1 + rng.pct(10) as u64
                    } else {
                        0
                    };
                    ticks.extend(std::iter::repeat(t).take(n as usize));
                }
                let work_at = rng.below(ticks.len() as u64 + 1) as usize;
                for i in 0..=ticks.len() {
                    if i == work_at {
                        let (plans, mut own) = frame_plans(&mut rng, shape, &mut tag, 80);
                        let all = plans.clone();
                        let results = crew.run(plans);
                        for (w, (p, r)) in all.iter().zip(&results).enumerate() {
                            for (op, r) in p.iter().zip(r) {
                                m.record(op, *r, &format!("{ctx} worker {w}"));
                            }
                        }
                        // The owner thread, with aligns that fit the ABI's
                        // uint32_t and some bad lifetimes.
                        for op in own.iter_mut() {
                            if op.align > u32::MAX as usize {
                                op.align = 1 << 31;
                                op.expect = expected(op.size, op.align, max_bytes);
                            }
                            let r = ffi_alloc(addr, op);
                            if let (Ok(a), Expect::Valid) = (r, op.expect) {
                                fill(a, op.size, op.tag);
                            }
                            m.record(op, r, &format!("{ctx} owner"));
                        }
                        if rng.pct(20) {
                            let mut p = 1 as *mut c_void;
                            let lt = rng.pick(&[2, 3, u32::MAX]);
                            assert_eq!(onity_frame_alloc(rt, 64, 8, lt, &mut p), OnityStatus::InvalidArgument);
                            assert!(p.is_null());
                            // Not seen by the allocator: not counted (see the
                            // report: undocumented).
                        }
                        let st = ffi_stats(rt);
                        m.check_stats(&st, &prev, &format!("{ctx} after work"));
                        prev = st;
                    }
                    if i < ticks.len() {
                        let t = ticks[i];
                        let rewinds = !manual && t == cfg.frame_alloc_rewind_timing && !rewound_in_frame;
                        if rewinds {
                            rewound_in_frame = true;
                            rewind_event(
                                &mut m,
                                &mut prev,
                                &|| assert_eq!(onity_runtime_tick(rt, t), OnityStatus::Ok),
                                &format!("{ctx} tick {t}"),
                            );
                        } else {
                            assert_eq!(onity_runtime_tick(rt, t), OnityStatus::Ok);
                            let st = ffi_stats(rt);
                            assert_eq!(st.rewinds, m.rewinds, "{ctx}: tick {t} must not rewind");
                        }
                    }
                }
            }
            let _ = rewound_in_frame;
            // Only the owner thread rewinds.
            let p = addr;
            std::thread::spawn(move || {
                assert_eq!(onity_frame_alloc_rewind(p as *mut OnityRuntime), OnityStatus::WrongThread);
            })
            .join()
            .unwrap();
            // A steady frame, rewound by hand: no OS allocation once warm.
            let recipe = steady_plans(&mut rng, shape);
            let mut os_warm = 0;
            for f in 0..STEADY_WARMUP + STEADY_FRAMES {
                let ctx = format!("{ctx0} steady frame {f}");
                let plans = retag(&recipe, &mut tag, max_bytes);
                let all = plans.clone();
                let results = crew.run(plans);
                for (w, (p, r)) in all.iter().zip(&results).enumerate() {
                    for (op, r) in p.iter().zip(r) {
                        m.record(op, *r, &format!("{ctx} worker {w}"));
                    }
                }
                let st = ffi_stats(rt);
                m.check_stats(&st, &prev, &ctx);
                prev = st;
                if f + 1 == STEADY_WARMUP {
                    os_warm = prev.os_allocations;
                }
                rewind_event(&mut m, &mut prev, &|| assert_eq!(onity_frame_alloc_rewind(rt), OnityStatus::Ok), &ctx);
            }
            let ncfg = FrameAllocConfig {
                first_block_bytes: 4096,
                chunk_bytes: chunk.div_ceil(64) * 64,
                max_chunk_bytes: max_chunk.min(MAX_CONFIG_BYTES).div_ceil(64) * 64,
                max_bytes,
                poison_on_rewind: false,
                prefault: false,
            };
            if steady_is_strict(&recipe, ncfg) {
                assert_eq!(prev.os_allocations, os_warm, "{ctx0}: steady frames made OS allocations: {prev:?}");
            }
        },
    );
    println!("ffi seed {seed}: {prev:?}");
    assert_eq!(onity_runtime_destroy(rt), OnityStatus::Ok);
}

#[test]
fn ffi_model_random_frames() {
    let only: Option<u64> = std::env::var("SEED").ok().and_then(|v| v.parse().ok());
    for seed in 0..FFI_SEEDS {
        if only.is_some_and(|o| o != seed) {
            continue;
        }
        run_ffi_seed(seed);
    }
}
