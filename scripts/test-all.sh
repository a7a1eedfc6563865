#!/usr/bin/env bash
# Runs the whole test suite: the docs' relative links, Rust (unit, rules, zero-allocation, stress,
# batches, header drift, frame allocator, loom model), C and C++ programs
# (built against include/onity.h and the cdylib, under valgrind when
# installed), C/C++ consumers of the installed SDK (CMake, pkg-config), the C# binding under Mono, and the Unity package and sample
# against a stand-in UnityEngine in a simulated PlayerLoop, then both again without a JIT
# (mono --full-aot). Installs what it needs when missing (Mono from Debian,
# valgrind) when run as root; otherwise it says what to install.
# Ends with one line: "total: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v gcc >/dev/null || need_apt+=(gcc)
command -v g++ >/dev/null || need_apt+=(g++)
command -v clang++ >/dev/null || need_apt+=(clang)
command -v python3 >/dev/null || need_apt+=(python3)
command -v valgrind >/dev/null || need_apt+=(valgrind)
command -v cmake >/dev/null || need_apt+=(cmake)
command -v pkg-config >/dev/null || need_apt+=(pkg-config)
command -v make >/dev/null || need_apt+=(make)
command -v mcs >/dev/null || need_apt+=(mono-devel)
# LLVM's tools read the plugins' ELF, PE and Mach-O files (scripts/check-plugins.py).
command -v llvm-readelf >/dev/null || ls /usr/lib/llvm-*/bin/llvm-readelf >/dev/null 2>&1 || need_apt+=(llvm)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "installing ${need_apt[*]} from Debian..."
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq "${need_apt[@]}" >/dev/null
  elif command -v sudo >/dev/null; then
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
  else
    echo "missing: ${need_apt[*]} (apt-get install ${need_apt[*]})" >&2
  fi
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0

echo "== Import circles between src/ modules (scripts/check-import-cycles.py)"
python3 scripts/check-import-cycles.py --self-test 2>&1 | tail -n 1 | tee -a "$log"
[ "${PIPESTATUS[0]}" = 0 ] || status=1
python3 scripts/check-import-cycles.py 2>&1 | tee -a "$log"
[ "${PIPESTATUS[0]}" = 0 ] || status=1

echo "== Relative links of README.md, BENCHMARKS.md, bindings/README.md and docs/ (scripts/check-doc-links.py)"
python3 scripts/check-doc-links.py --self-test 2>&1 | tee -a "$log"
[ "${PIPESTATUS[0]}" = 0 ] || status=1
python3 scripts/check-doc-links.py 2>&1 | tee -a "$log"
[ "${PIPESTATUS[0]}" = 0 ] || status=1

echo "== Rust, C and C++ tests (cargo test)"
# `cargo test` links the rlib; the C/C++ programs need the cdylib/staticlib.
cargo build --lib 2>&1 | tail -n 3
cargo test --no-fail-fast 2>&1 | tee -a "$log"
[ "${PIPESTATUS[0]}" = 0 ] || status=1

echo "== Issue 17 #1 in an optimised build: 100,000 runtime create/destroy cycles (10,000 in the debug run above)"
cargo test --release --test issue17 defect1 2>&1 | tee -a "$log"
[ "${PIPESTATUS[0]}" = 0 ] || status=1

echo "== Loom model check of the lock-free completion stack"
RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom cargo test --release --test loom 2>&1 | tee -a "$log"
[ "${PIPESTATUS[0]}" = 0 ] || status=1

echo "== Tracy feature (the Tracy client built in; zones and plots without a server)"
scripts/check-tracy.sh 2>&1 | tee -a "$log"
[ "${PIPESTATUS[0]}" = 0 ] || status=1

echo "== Charts (tools/charts on docs/bench-data; the demo's picture)"
# tools/charts is its own Cargo package (plotters, SVG only), outside the library's dependency
# tree: its tests draw every chart from the committed benchmark data, read each SVG back, and fail
# when docs/charts is not what the data draws (regenerate with scripts/charts.sh).
charts=(--locked --manifest-path tools/charts/Cargo.toml --target-dir target/charts)
mkdir -p target/charts
cargo fmt --manifest-path tools/charts/Cargo.toml --check || status=1
cargo test "${charts[@]}" 2>&1 | tee -a "$log"
[ "${PIPESTATUS[0]}" = 0 ] || status=1
# The demo (the debug build `cargo test` made) writes its picture where --svg says; it must parse
# and show both panels' series.
if cargo run --quiet --example demo -- 20 --svg target/charts/demo-test.svg > target/charts/demo-test.log 2>&1; then
  cargo run --quiet "${charts[@]}" -- check target/charts/demo-test.svg "frame time" "all pending waits" \
    yield next_frame delay_frame delay 2>&1 | tee -a "$log"
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
else
  tail -n 20 target/charts/demo-test.log
  echo "demo-svg: 0 passed, 1 failed" | tee -a "$log"
  status=1
fi

echo "== UniTask parity map (bindings/unitask-parity.tsv against UniTask 2.5.11's API and bindings/Runtime)"
python3 scripts/check-unitask-parity.py 2>&1 | tee -a "$log"
[ "${PIPESTATUS[0]}" = 0 ] || status=1

if [ -x scripts/test-csharp.sh ]; then
  echo "== C# binding tests (Mono)"
  scripts/test-csharp.sh 2>&1 | tee -a "$log"
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
fi

# Native plugins: only the Linux x86_64 one is built here (cargo-zigbuild, glibc 2.17 floor, a
# few minutes; its static library too, symbols localized); the full cross-build
# (scripts/build-plugins.sh) is not part of the suite. Every plugin present is checked, and a
# (partial) release tarball and the Linux SDK archive are made and read back.
plugin_dir=""
echo "== Native plugins (Linux x86_64 built with a glibc 2.17 floor; every present artifact checked; release tarball)"
if scripts/build-plugins.sh linux-x86_64 > target/build-plugins.log 2>&1; then
  plugin_dir="$PWD/bindings/Plugins/x86_64"
else
  tail -n 20 target/build-plugins.log
  echo "plugin build failed (log: target/build-plugins.log)"
  status=1
fi
python3 scripts/check-plugins.py 2>&1 | tee -a "$log"
[ "${PIPESTATUS[0]}" = 0 ] || status=1
python3 scripts/check-plugins.py --self-test 2>&1 | tee -a "$log"
[ "${PIPESTATUS[0]}" = 0 ] || status=1
python3 scripts/package-unity.py --allow-missing --out target/package-test 2>&1 | tee -a "$log"
[ "${PIPESTATUS[0]}" = 0 ] || status=1
# The Linux SDK archive from the same build (tree by install-sdk.sh), read back and checked.
if [ -n "$plugin_dir" ]; then
  python3 scripts/package-sdk.py --out target/package-test linux-x86_64 2>&1 | tee -a "$log"
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
fi

echo "== C/C++ consumers (SDK tree, CMake package, pkg-config, add_subdirectory, engine example)"
# scripts/install-sdk.sh into a temporary prefix from the release build the C# stage made (no
# second Rust build); CMake and Makefile projects outside the source tree build and run against it.
scripts/test-consumer.sh 2>&1 | tee -a "$log"
[ "${PIPESTATUS[0]}" = 0 ] || status=1

if [ -x scripts/test-unity.sh ]; then
  echo "== Unity package and sample (stand-in UnityEngine, simulated PlayerLoop)"
  ONITY_NATIVE_DIR="$plugin_dir" scripts/test-unity.sh 2>&1 | tee -a "$log"
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
fi

# The C# suites without a JIT, as IL2CPP players run: both builds of the C# suite and the Unity
# suite, every assembly compiled with `mono --aot=full` (the framework once, cached under
# target/aot-framework), run with `mono --full-aot` ("aot-csharp/aot-il2cpp/aot-unity: N passed,
# N failed"). On by default; ONITY_TEST_AOT=0 skips it. Its time and the programs' method counts:
# docs/full-aot.md.
if [ "${ONITY_TEST_AOT:-1}" != 0 ] && [ -x scripts/test-csharp-aot.sh ]; then
  echo "== C# and Unity suites under full AOT (mono --full-aot)"
  ONITY_NATIVE_DIR="$plugin_dir" scripts/test-csharp-aot.sh 2>&1 | tee -a "$log"
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
fi

# Sum cargo's "test result:" lines and the "[word: ]N passed, N failed" lines (C# runners, plugin
# checks, package check).
passed=0
failed=0
while read -r p f; do
  passed=$((passed + p))
  failed=$((failed + f))
done < <(
  sed -n -e 's/^test result: [A-Za-z]*\. \([0-9]*\) passed; \([0-9]*\) failed.*/\1 \2/p' \
         -e 's/^\([a-z-]*: \)\{0,1\}\([0-9]*\) passed, \([0-9]*\) failed.*/\2 \3/p' "$log"
)
if [ "$status" != 0 ] && [ "$failed" = 0 ]; then
  failed=1 # a build or runner failure that printed no count
fi
echo "total: $passed passed, $failed failed"
exit $status
