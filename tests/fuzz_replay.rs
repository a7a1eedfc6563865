//! The fuzz target's logic on the stable toolchain: replays the committed
//! corpus (`fuzz/corpus/abi_ops`) and a seeded random stream through the
//! model-checked C-ABI interpreter of `fuzz/src/model` (included by path,
//! the same files `cargo fuzz` builds). Continuous coverage without nightly;
//! the libFuzzer run (`scripts/fuzz.sh`) is the longer exploration.
//!
//! `ONITY_FUZZ_SEEDS` (default 120) and `ONITY_FUZZ_BYTES` (default 6000)
//! size the random part; `ONITY_FUZZ_ISSUE17` picks issue 17's
//! predictions (`all`, the default since all four defects are fixed;
//! `none`; or `1,3,4,7`).

#[allow(dead_code)]
#[path = "../fuzz/src/model/mod.rs"]
mod model;

use std::path::PathBuf;

use model::{run, seeded_input, Issue17, Report};

fn env_num(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn corpus() -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/abi_ops");
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            let p = e.expect("corpus entry").path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).expect("read corpus file"))
        })
        .collect();
    files.sort();
    files
}

fn replay_corpus(strict: Issue17) -> Report {
    let files = corpus();
    assert!(files.len() >= 8, "the committed corpus has {} files", files.len());
    let mut total = Report::default();
    for (name, data) in &files {
        let r = std::panic::catch_unwind(|| run(data, strict))
            .unwrap_or_else(|_| panic!("corpus file {name} diverged from the model (message above)"));
        total.add(&r);
    }
    total
}

fn replay_seeds(strict: Issue17) -> Report {
    let seeds = env_num("ONITY_FUZZ_SEEDS", 120);
    let bytes = env_num("ONITY_FUZZ_BYTES", 6000) as usize;
    let mut total = Report::default();
    for seed in 0..seeds {
        let data = seeded_input(seed, bytes);
        let r = std::panic::catch_unwind(|| run(&data, strict)).unwrap_or_else(|_| {
            panic!("seed {seed} ({bytes} bytes) diverged from the model (message above); rerun: model::seeded_input({seed}, {bytes})")
        });
        total.add(&r);
    }
    total
}

fn summary(what: &str, r: &Report) {
    eprintln!("{what}: {} operations; covered: {:?}", r.ops, r.cover);
}

#[test]
fn committed_corpus_replays_against_the_model() {
    let r = replay_corpus(Issue17::from_env());
    summary("corpus", &r);
    assert!(r.ops > 0);
}

#[test]
fn seeded_random_operations_against_the_model() {
    let r = replay_seeds(Issue17::from_env());
    summary("seeds", &r);
    // The run reached what it is for (a model that checks nothing would pass).
    for what in [
        "runtime created",
        "runtime destroyed",
        "completion on the worker",
        "owner-only call on the worker",
        "handle of another runtime (or kind)",
        "forged handle",
        "when_any ok",
        "when_all ok",
        "combinator canceled by its token",
        "consumed in a continuation",
        "callback wait (canceled)",
        "stats checked",
        "frame_alloc ok",
        "frame_alloc ok (worker)",
        "frame allocator rewind",
        "zeroed or misaligned runtime",
        "destroyed runtime (issue 17 #7)",
        "copied runtime (issue 17 #7)",
        "unmapped runtime (issue 17 #7)",
    ] {
        assert!(r.cover.get(what).copied().unwrap_or(0) > 0, "the seeded run never reached {what:?}");
    }
}
