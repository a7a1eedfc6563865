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
# Exits non-zero on any failure. The test programs are compiled at every run (about 2.5 CPU
# minutes, 4-6 minutes on 2 shared cores), the framework (mscorlib, System, System.Core,
# System.Xml, ...: about 1 CPU minute) at the first; the three runs take about 10 s.
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

echo "== mono --aot=full (framework assemblies cached in target/aot-framework)"
# The Unity program first: 200,573 methods to compile (the C# ones about 39,000 each).
AOT_PATH=$(scripts/aot-compile.sh "$OUT/unity/OnityUnityTests.exe" "$OUT/csharp/OnityTests.exe" "$OUT/csharp/OnityTestsIl2cpp.exe")
echo "compiled in $(( $(date +%s) - t0 )) s"

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
