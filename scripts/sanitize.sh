#!/usr/bin/env bash
# Runs the Rust test suites under the nightly toolchain's checkers: ThreadSanitizer (data races),
# AddressSanitizer with LeakSanitizer (out-of-bounds, use after free, leaks) and Miri (undefined
# behaviour in unsafe code: aliasing, alignment, uninitialised reads, data races between Miri's
# own threads). Not part of scripts/test-all.sh: it needs the nightly toolchain with the rust-src
# and miri components (`rustup toolchain install nightly && rustup +nightly component add miri
# rust-src`) and takes 20-40 minutes on 2 cores, most of it Miri. Results of the last run are in
# docs/sanitizers.md.
# Usage: scripts/sanitize.sh [tsan] [asan] [miri]   (default: all three)
# Exits non-zero when any checker reports an error or a test fails.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
checks=("$@")
[ ${#checks[@]} -eq 0 ] && checks=(tsan asan miri)
TARGET="$(rustc +nightly -vV | sed -n 's/^host: //p')"
# Suites with threads and unsafe code; c_programs (valgrind), header and loom run in test-all.sh.
SUITES=(--lib --test batch --test rules --test stress --test frame_alloc --test frame_alloc_ffi --test zero_alloc
    --test model --test frame_alloc_model)
status=0
sanitizer() { # name -> runs every suite instrumented with -Zsanitizer=name (std rebuilt with it)
    echo "== $1 sanitizer" >&2
    # bad_inputs tests ask for blocks the OS must refuse: let the sanitizer's allocator return null.
    TSAN_OPTIONS="allocator_may_return_null=1 halt_on_error=1" \
    ASAN_OPTIONS="allocator_may_return_null=1 detect_leaks=1" \
    RUSTFLAGS="-Zsanitizer=$1" RUSTDOCFLAGS="-Zsanitizer=$1" CARGO_TARGET_DIR="$ROOT/target/sanitize-$1" \
        cargo +nightly test -Zbuild-std --target "$TARGET" "${SUITES[@]}" || status=1
}
for c in "${checks[@]}"; do
    case "$c" in
        tsan) sanitizer thread ;;
        asan) sanitizer address ;;
        miri)
            echo "== miri" >&2
            # frame_alloc, frame_alloc_ffi and stress scale their workloads down under
            # cfg(miri); the C ABI model runs 4 seeds of 150 operations. zero_alloc (allocation
            # counts over ~10^4 operations per test) and frame_alloc_model (MiB-sized patterns)
            # are left to TSan and ASan.
            ONITY_MODEL_SEEDS=4 ONITY_MODEL_STEPS=150 MIRIFLAGS="${MIRIFLAGS:--Zmiri-disable-isolation}" \
                cargo +nightly miri test --lib --test batch --test rules --test stress --test frame_alloc \
                    --test frame_alloc_ffi --test model || status=1
            ;;
        *) echo "sanitize: unknown check '$c' (tsan, asan, miri)" >&2; exit 2 ;;
    esac
done
[ "$status" -eq 0 ] && echo "sanitize: ${checks[*]}: no error reported" >&2
exit "$status"
