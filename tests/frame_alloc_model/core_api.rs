//! The model run directly on `FrameAllocator`: random configurations and
//! frames, checked after every frame.

use super::*;

fn random_core_config(rng: &mut Rng) -> FrameAllocConfig {
    let chunk = rng.pick(&[0, 1, 63, 64, 100, 1000, 4096, 16 << 10, 64 << 10, 1 << 20]);
    FrameAllocConfig {
        first_block_bytes: rng.pick(&[0, 1, 4095, 4096, 5000, 64 << 10, 256 << 10, 1 << 20, 4 << 20]),
        chunk_bytes: chunk,
        max_chunk_bytes: rng.pick(&[0, chunk, chunk * 2 + 3, 4096, 64 << 10, 1 << 20, 4 << 20, 64 << 20, usize::MAX]),
        max_bytes: if rng.pct(35) { rng.pick(&[1 << 20, 4 << 20, 16 << 20, 48 << 20]) } else { 0 },
        poison_on_rewind: rng.pct(50),
        prefault: rng.pct(25),
    }
}

/// The documented normalisation of a configuration.
fn normalized(c: FrameAllocConfig) -> FrameAllocConfig {
    let up = |x: usize, to: usize| x.div_ceil(to) * to;
    let first = up(c.first_block_bytes.clamp(4096, MAX_CONFIG_BYTES), 4096);
    let chunk = up(c.chunk_bytes.clamp(64, MAX_CONFIG_BYTES), 64);
    let max_chunk = up(c.max_chunk_bytes.min(MAX_CONFIG_BYTES), 64).max(chunk);
    FrameAllocConfig { first_block_bytes: first, chunk_bytes: chunk, max_chunk_bytes: max_chunk, ..c }
}

fn core_alloc(fa: &FrameAllocator, op: &Op) -> Result<usize, AllocError> {
    fa.alloc(op.lifetime, op.size, op.align).map(|p| p.as_ptr() as usize)
}

const CORE_SEEDS: u64 = 10;
const CORE_FRAMES: usize = 40;

fn run_core_seed(seed: u64) {
    let mut rng = rng(seed);
    let cfg = random_core_config(&mut rng);
    let fa = FrameAllocator::new(cfg);
    let ncfg = fa.config();
    assert_eq!(ncfg, normalized(cfg), "seed {seed}: normalisation of {cfg:?}");
    let shape = Shape { chunk: ncfg.chunk_bytes, max_chunk: ncfg.max_chunk_bytes, max_bytes: ncfg.max_bytes };
    let mut m = Model { poison: ncfg.poison_on_rewind, max_bytes: ncfg.max_bytes, ..Model::default() };
    let mut prev = fa.stats();
    assert_eq!(prev, FrameAllocStats::default(), "seed {seed}: a new allocator reserves nothing");
    let mut tag = seed << 40;
    Crew::with_workers(
        |op| core_alloc(&fa, op),
        |crew| {
            let frame = |m: &mut Model, prev: &mut FrameAllocStats, plans: Vec<Vec<Op>>, own: Vec<Op>, ctx: &str| {
                let all: Vec<Vec<Op>> = plans.clone();
                let results = crew.run(plans);
                for (w, (p, r)) in all.iter().zip(&results).enumerate() {
                    assert_eq!(p.len(), r.len());
                    for (op, r) in p.iter().zip(r) {
                        m.record(op, *r, &format!("{ctx} worker {w}"));
                    }
                }
                // The owner thread allocates too (between the workers' runs).
                for op in &own {
                    let r = core_alloc(&fa, op);
                    if let (Ok(a), Expect::Valid) = (r, op.expect) {
                        if a % op.align == 0 {
                            fill(a, op.size, op.tag);
                        }
                    }
                    m.record(op, r, &format!("{ctx} owner"));
                }
                let st = fa.stats();
                m.check_stats(&st, prev, ctx);
                *prev = st;
                let ended = m.rewinding(ctx);
                fa.rewind();
                assert_eq!(fa.epoch(), m.rewinds);
                m.rewound(&ended, &format!("{ctx} after rewind"));
                let st = fa.stats();
                m.check_stats(&st, prev, &format!("{ctx} after rewind"));
                *prev = st;
            };
            for f in 0..CORE_FRAMES {
                let (plans, own) = frame_plans(&mut rng, shape, &mut tag, 120);
                frame(&mut m, &mut prev, plans, own, &format!("seed {seed} cfg {ncfg:?} frame {f}"));
                // Sometimes several rewinds in a row (empty frames).
                if rng.pct(5) {
                    frame(&mut m, &mut prev, vec![Vec::new(); WORKERS], Vec::new(), &format!("seed {seed} empty {f}"));
                }
            }
            // A steady frame repeated: once warmed up, no OS allocation.
            let recipe = steady_plans(&mut rng, shape);
            let mut os_warm = 0;
            let mut hist = Vec::new();
            for f in 0..STEADY_WARMUP + STEADY_FRAMES {
                let plans = retag(&recipe, &mut tag, ncfg.max_bytes);
                frame(&mut m, &mut prev, plans, Vec::new(), &format!("seed {seed} cfg {ncfg:?} steady frame {f}"));
                hist.push((prev.os_allocations, prev.blocks));
                if f + 1 == STEADY_WARMUP {
                    os_warm = prev.os_allocations;
                }
            }
            if steady_is_strict(&recipe, ncfg) {
                assert_eq!(
                prev.os_allocations, os_warm,
                "seed {seed} cfg {ncfg:?}: a steady frame made OS allocations after warm-up: {prev:?} (os, blocks) per frame {hist:?}"
            );
            }
            println!("core seed {seed} (steady strict: {}): {prev:?}", steady_is_strict(&recipe, ncfg));
        },
    );
}

#[test]
fn core_model_random_frames() {
    let only: Option<u64> = std::env::var("SEED").ok().and_then(|v| v.parse().ok());
    for seed in 0..CORE_SEEDS {
        if only.is_some_and(|o| o != seed) {
            continue;
        }
        run_core_seed(seed);
    }
}
