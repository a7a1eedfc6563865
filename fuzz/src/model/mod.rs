//! A model-checked interpreter of C-ABI operations, shared by the libFuzzer
//! target (`fuzz/fuzz_targets/abi_ops.rs`) and the stable-toolchain replay
//! test (`tests/fuzz_replay.rs`, which includes this directory by path).
//!
//! The input is a byte string read as a sequence of operations. Each one
//! calls an `onity_*` export through the rlib exactly as a C host would:
//! several runtimes at once (created and destroyed along the way, with
//! varied configs), tasks, completions on the owner and on a worker
//! thread, continuations that consume, tick or destroy from inside, frame
//! waits in both forms, WhenAny / WhenAll, cancellation sources, frames and
//! ticks, empty batches, the frame allocator on both threads, statistics,
//! and handles that are live, consumed, forged, of another runtime or of a
//! destroyed one. A reference model predicts every status, every
//! continuation and callback (which run, with which state, in which
//! order), the pool statistics and the frame allocator's counters; the
//! first divergence panics with the operation number and what differed.
//!
//! The model follows the documented rules (`include/onity.h`, README
//! "Semantics"). Where several errors apply to one call, or the order of
//! events is documented as unspecified, it accepts any of them.
//!
//! Issue 17's defects 1, 3, 4 and 7 broke documented rules. Their
//! predictions are behind [`Issue17`] (those of fixed defects on by
//! default, [`ISSUE17_FIXED`]; all with [`ISSUE17_PHASE_B`]): with a
//! prediction off the model accepts the old
//! behaviour or does not make the call (a freed or copied runtime pointer
//! would be undefined behaviour today).

#![allow(clippy::too_many_arguments)]

mod anythread;
mod callbacks;
mod input;
mod lifecycle;
mod ops;
mod primitives;
mod sim;
mod verify;
mod worker;

pub use input::Input;
use sim::Sim;

/// Issue 17, phase B: the core fixes of defects 1, 3, 4 and 7 have landed
/// (#7, the live-runtime table, last): every prediction is on.
pub const ISSUE17_PHASE_B: bool = true;

/// The predictions of the defects fixed so far: all of them, #1 (handles
/// never alias across runtimes), #3 (`*out_ptr` NULL for a bad runtime),
/// #4 (wait records: idle <= capacity) and #7 (live-runtime table).
pub const ISSUE17_FIXED: Issue17 = Issue17::ALL;

/// The predictions of issue 17's defects, each one switchable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Issue17 {
    /// #1: a handle is never issued twice over the process lifetime: a
    /// destroyed runtime's handles are STALE_HANDLE or FOREIGN_HANDLE on
    /// every later runtime (never INVALID_HANDLE, never another task's).
    pub no_alias: bool,
    /// #3: `onity_frame_alloc` with a NULL or invalid runtime sets
    /// `*out_ptr` to NULL.
    pub frame_alloc_out_null: bool,
    /// #4: the wait-record pool reports `idle <= capacity`.
    pub wait_idle_le_capacity: bool,
    /// #7: freed, copied and unmapped runtime pointers are
    /// INVALID_RUNTIME without a read through them.
    pub bad_runtime_pointers: bool,
}

impl Issue17 {
    /// Every prediction on.
    pub const ALL: Issue17 =
        Issue17 { no_alias: true, frame_alloc_out_null: true, wait_idle_le_capacity: true, bad_runtime_pointers: true };

    /// [`ISSUE17_PHASE_B`], overridden by `ONITY_FUZZ_ISSUE17`: `all`,
    /// `none`, or a comma-separated list of defect numbers (`1,3,4,7`).
    pub fn from_env() -> Issue17 {
        let default = if ISSUE17_PHASE_B { Issue17::ALL } else { ISSUE17_FIXED };
        match std::env::var("ONITY_FUZZ_ISSUE17") {
            Ok(v) => Issue17::parse(&v).unwrap_or_else(|| panic!("ONITY_FUZZ_ISSUE17={v:?}: all, none or 1,3,4,7")),
            Err(_) => default,
        }
    }

    fn parse(v: &str) -> Option<Issue17> {
        match v.trim() {
            "all" => return Some(Issue17::ALL),
            "none" | "" => return Some(Issue17::default()),
            _ => {}
        }
        let mut s = Issue17::default();
        for n in v.split(',') {
            match n.trim() {
                "1" => s.no_alias = true,
                "3" => s.frame_alloc_out_null = true,
                "4" => s.wait_idle_le_capacity = true,
                "7" => s.bad_runtime_pointers = true,
                _ => return None,
            }
        }
        Some(s)
    }
}

/// What one run did.
#[derive(Debug, Default, Clone)]
pub struct Report {
    /// Operations executed.
    pub ops: u64,
    /// How often each checked situation occurred (what the run covered).
    pub cover: std::collections::BTreeMap<&'static str, u64>,
}

impl Report {
    /// Adds another run's counts.
    pub fn add(&mut self, other: &Report) {
        self.ops += other.ops;
        for (k, v) in &other.cover {
            *self.cover.entry(k).or_default() += v;
        }
    }
}

/// Most operations one input runs.
pub const MAX_OPS: usize = 1500;

/// Interprets `data` as operations, checks each against the model, then
/// destroys every runtime still alive (checking that every continuation
/// and callback ran exactly once). Panics on the first divergence.
pub fn run(data: &[u8], strict: Issue17) -> Report {
    let mut sim = Sim::new(Input::new(data), strict);
    while !sim.input_done() && sim.ops < MAX_OPS as u64 {
        sim.step();
    }
    sim.finish()
}

/// `len` bytes of a splitmix64 stream: a seeded random input.
pub fn seeded_input(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ 0x6f6e_6974_7966_757a;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        out.extend_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    out.truncate(len);
    out
}
