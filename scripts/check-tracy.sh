#!/usr/bin/env bash
# Issue 20 #3: builds the library with `--features tracy` (the Tracy client
# compiled from tracy-client-sys) and runs tests/tracy.rs with it: zones and
# plots with the client running and no Tracy server. Its own target dir, so
# the main build is not rebuilt with another feature set.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=target/tracy
cargo build --features tracy --lib 2>&1 | tail -n 2
cargo clippy --features tracy --lib --tests -- -D warnings 2>&1 | tail -n 2
cargo test --features tracy --test tracy 2>&1
