//! libFuzzer target: the input is a sequence of C-ABI operations over
//! several runtimes, each checked against the model in `src/model`.
//! `ONITY_FUZZ_ISSUE17` turns on the predictions of issue 17's defects
//! (see `model::Issue17`); `ONITY_FUZZ_STATS=1` prints operation counts (at powers of two and
//! every 10,000 inputs).
#![no_main]

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use onity_fuzz::model::{run, Issue17};

static STRICT: OnceLock<(Issue17, bool)> = OnceLock::new();
static INPUTS: AtomicU64 = AtomicU64::new(0);
static OPS: AtomicU64 = AtomicU64::new(0);

fuzz_target!(|data: &[u8]| {
    let (strict, stats) =
        *STRICT.get_or_init(|| (Issue17::from_env(), std::env::var("ONITY_FUZZ_STATS").is_ok_and(|v| v == "1")));
    let report = run(data, strict);
    let ops = OPS.fetch_add(report.ops, Ordering::Relaxed) + report.ops;
    let n = INPUTS.fetch_add(1, Ordering::Relaxed) + 1;
    if stats && (n.is_power_of_two() || n.is_multiple_of(10_000)) {
        eprintln!("onity-fuzz: {n} inputs, {ops} operations");
    }
});
