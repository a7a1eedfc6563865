#!/usr/bin/env bash
# The C# suites without a JIT, as IL2CPP players run (no Reflection.Emit, no generic code made at
# run time): compiles them as scripts/test-csharp.sh and scripts/test-unity.sh do (their
# *_BUILD_ONLY mode, into target/aot/), compiles every assembly they load ahead of time with
# `mono --aot=full` (scripts/aot-compile.sh: the framework assemblies once, in
# target/aot-framework/), and runs each with `mono --full-aot`, where anything needing the JIT
# fails (child processes the tests start too: ONITY_TEST_MONO_OPTIONS). Prints one
# "N passed, N failed" line per suite:
#   aot-csharp: the C# suite as compiled for Mono (ONITY_SITES);
#   aot-il2cpp: the same suite compiled with ENABLE_IL2CPP;
#   aot-unity:  the Unity package and sample against the stand-in (scripts/test-unity.sh's program).
# Exits non-zero on any failure. Before compiling, the generic-expansion guard (a reflection test,
# under the JIT); after, a cap on each program's method count (ONITY_AOT_MAX_METHODS). The test
# programs are compiled at every run, one at a time (ONITY_AOT_JOBS), the framework (mscorlib,
# System, System.Core, System.Xml, ...: about 1 CPU minute) at the first; times in
# docs/full-aot.md.
# ONITY_NATIVE_DIR: where the Unity suite loads libonity.so from (as for scripts/test-unity.sh).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
OUT="$ROOT/target/aot"
mkdir -p "$OUT"
t0=$(date +%s)

echo "== compiling the test programs (scripts/test-csharp.sh, scripts/test-unity.sh: build only)"
ONITY_CS_BUILD_ONLY=1 ONITY_CS_OUT="$OUT/csharp" scripts/test-csharp.sh > "$OUT/build-csharp.log" 2>&1 \
    || { tail -n 30 "$OUT/build-csharp.log"; echo "aot-csharp: 0 passed, 1 failed (build)"; exit 1; }
ONITY_UNITY_BUILD_ONLY=1 ONITY_UNITY_OUT="$OUT/unity" scripts/test-unity.sh > "$OUT/build-unity.log" 2>&1 \
    || { tail -n 30 "$OUT/build-unity.log"; echo "aot-unity: 0 passed, 1 failed (build)"; exit 1; }

# Before the compiles: a member of a generic type naming an instantiation of that type over a
# type built from its parameter (OnityTask<T> -> OnityTask<(bool, T)>) makes mono --aot=full
# compile nested instantiations up to its depth limit (hundreds of thousands of methods, more
# memory than CI has). The reflection guard (tests/shared/GenericExpansion.cs) says which member
# in a second, under the JIT.
echo "== generic expansion guard (GenericExpansionTests, JIT)"
for exe in "$OUT/csharp/OnityTests.exe" "$OUT/unity/OnityUnityTests.exe"; do
    if ! MONO_PATH="$(dirname "$exe")" mono "$exe" GenericExpansion > "$OUT/guard.txt" 2>&1; then
        cat "$OUT/guard.txt"
        echo "aot-csharp: 0 passed, 1 failed (generic expansion guard)"
        exit 1
    fi
done

echo "== mono --aot=full (framework assemblies cached in target/aot-framework)"
# The Unity program first (the most methods), one compile at a time: two at once took more memory
# than the 2-core machines have to spare.
# ONITY_AOT_TIMEOUT (seconds, default 1200; today about 2 minutes) stops a compile that has
# exploded before it takes the CI run with it.
AOT_TIMEOUT="${ONITY_AOT_TIMEOUT:-1200}"
if ! AOT_PATH=$(ONITY_AOT_JOBS="${ONITY_AOT_JOBS:-1}" timeout "$AOT_TIMEOUT" \
        scripts/aot-compile.sh "$OUT/unity/OnityUnityTests.exe" "$OUT/csharp/OnityTests.exe" "$OUT/csharp/OnityTestsIl2cpp.exe"); then
    echo "aot-csharp: 0 passed, 1 failed (mono --aot=full failed or took over ${AOT_TIMEOUT} s: see the *.aot.log files in $OUT)"
    exit 1
fi
echo "compiled in $(( $(date +%s) - t0 )) s"

# The cap: each program's method count (mono --aot's "Compiled: N/M", in FILE.aot.log) stays under
# ONITY_AOT_MAX_METHODS, so that a generic shape the guard does not model fails here, not as an
# out-of-memory kill. Figures in docs/full-aot.md.
# And every method compiles ("Compiled: N/N"): one the compiler skips (listed by print-skipped, e.g.
# a constrained call that code shared over value types cannot make) would need a JIT when it runs.
MAX_METHODS="${ONITY_AOT_MAX_METHODS:-100000}"
for exe in "$OUT/unity/OnityUnityTests.exe" "$OUT/csharp/OnityTests.exe" "$OUT/csharp/OnityTestsIl2cpp.exe"; do
    n=$(sed -n 's/^Compiled: \([0-9]*\)\/.*/\1/p' "$exe.aot.log" | tail -n 1)
    m=$(sed -n 's/^Compiled: [0-9]*\/\([0-9]*\).*/\1/p' "$exe.aot.log" | tail -n 1)
    if [ -z "$n" ] || [ "$n" != "$m" ]; then
        grep '^Skip (' "$exe.aot.log" || true
        echo "aot-csharp: 0 passed, 1 failed ($(basename "$exe"): ${n:-?} of ${m:-?} methods compiled ahead of time; the others, above, would need a JIT: see docs/full-aot.md)"
        exit 1
    fi
    echo "aot-methods: $(basename "$exe") ${n:-?} methods (cap $MAX_METHODS), image $(( $(stat -c %s "$exe.so") / 1048576 )) MiB"
    if [ -z "$n" ] || [ "$n" -gt "$MAX_METHODS" ]; then
        echo "aot-csharp: 0 passed, 1 failed ($(basename "$exe"): ${n:-no count of} methods compiled ahead of time, over the cap of $MAX_METHODS: a generic type instantiated over types built from its own parameter? see docs/full-aot.md)"
        exit 1
    fi
done

# Runs one program under --full-aot; its "N passed, N failed" line gets the suite's word.
status=0
run() {
    local word="$1" path="$2" libs="$3" exe="$4"
    shift 4
    echo "== $word: mono --full-aot $(basename "$exe")"
    set +e
    MONO_PATH="$path" LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ONITY_REPO_ROOT="$ROOT" ONITY_TEST_MONO_OPTIONS=--full-aot \
        mono --full-aot "$exe" "$@" > "$OUT/$word.txt" 2>&1
    local rc=$?
    set -e
    sed -e "s/^\([0-9]* passed, [0-9]* failed\)/$word: \1/" "$OUT/$word.txt"
    # A crash prints no count.
    grep -q '^[0-9]* passed, [0-9]* failed' "$OUT/$word.txt" || echo "$word: 0 passed, 1 failed (exit $rc, no count)"
    [ "$rc" = 0 ] || status=1
}
run aot-csharp "$AOT_PATH" "$ROOT/target/release:$OUT/csharp" "$OUT/csharp/OnityTests.exe" "$@"
run aot-il2cpp "$AOT_PATH" "$ROOT/target/release:$OUT/csharp" "$OUT/csharp/OnityTestsIl2cpp.exe" "$@"
run aot-unity "$AOT_PATH" "${ONITY_NATIVE_DIR:-$ROOT/target/release}" "$OUT/unity/OnityUnityTests.exe" "$@"
echo "full-AOT suites: $(( $(date +%s) - t0 )) s in all"
exit "$status"
