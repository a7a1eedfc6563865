#!/usr/bin/env bash
# libFuzzer run of the C-ABI operation fuzzer (fuzz/fuzz_targets/abi_ops.rs,
# model in fuzz/src/model), under AddressSanitizer, for SECONDS (default 60:
# the smoke run; hours for a long run). New inputs go to fuzz/corpus-work
# (git-ignored); the committed seeds in fuzz/corpus/abi_ops are read only.
# A divergence from the model or a sanitizer report stops the run and
# leaves the input in fuzz/artifacts/abi_ops/ (replay it:
# `cargo +nightly fuzz run abi_ops <file>`).
#
# Needs the nightly toolchain and cargo-fuzz (installed here when missing;
# several minutes on a fresh machine), hence not part of scripts/test-all.sh:
# tests/fuzz_replay.rs replays the corpus and a seeded stream on stable there.
#
# Usage: scripts/fuzz.sh [SECONDS] [libFuzzer options...]
#   ONITY_FUZZ_ISSUE17=all|none|1,3,4,7  which of issue 17's predictions to check (default: all, every defect is fixed)
#   ONITY_FUZZ_STATS=1              print inputs and operations run (at powers of two)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
secs="${1:-60}"
[ $# -gt 0 ] && shift
if ! rustup toolchain list | grep -q '^nightly'; then
    rustup toolchain install nightly --profile minimal
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz
fi
mkdir -p fuzz/corpus-work
cargo +nightly fuzz run -O abi_ops "$ROOT/fuzz/corpus-work" "$ROOT/fuzz/corpus/abi_ops" -- \
    -max_total_time="$secs" -max_len=8192 -len_control=0 -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 "$@"
