#!/usr/bin/env bash
# Builds the C# benchmark program (tests/csharp/Bench) into OUT/OnityBench.exe (default
# target/csharp): the binding, the benchmark and, unless ONITY_BENCH_UNITASK=0 or the fetch fails,
# UniTask 2.2.5 from the npm registry (scripts/fetch-unitask.sh) with the test stand-in of
# UnityEngine (OUT/UnityEngine.dll). Used by scripts/bench-csharp.sh and scripts/profile-csharp.sh.
# ONITY_CS_DEFINES=A;B compiles the binding and the benchmark with those defines (as in
# scripts/icount-csharp.sh), e.g. ONITY_FRAME_VARIANTS for docs/frame-protocol-measured.md.
# Usage: scripts/build-csharp-bench.sh [OUT]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
OUT="${1:-${ONITY_CS_OUT:-$ROOT/target/csharp}}"
mkdir -p "$OUT"
# Mono looks for a P/Invoke library next to the assembly before LD_LIBRARY_PATH: a stray copy
# there would shadow the fresh build in target/release.
rm -f "$OUT/libonity.so"
if ! command -v mcs >/dev/null 2>&1; then
    if [ "$(id -u)" = "0" ]; then apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y mono-devel
    else echo "install mono-devel (sudo apt-get install -y mono-devel)" >&2; exit 2; fi
fi
. "$ROOT/scripts/native-lib.sh" # sets LIB; rebuilds it when older than src
python3 scripts/gen_csharp_native.py --check

# The UniTask column: UniTask 2.2.5 from the npm registry, compiled into the benchmark program
# (mcs cannot compile `async UniTask` methods against a UniTask assembly it references) with the
# test stand-in of UnityEngine. ONITY_BENCH_UNITASK=0 leaves it out; so does a failed fetch.
UT_SRC=""
DEFS="${ONITY_CS_DEFINES:-}"
if [ "${ONITY_BENCH_UNITASK:-1}" != 0 ]; then
    if ! UT_SRC="$(scripts/fetch-unitask.sh)"; then
        echo "bench-csharp: UniTask not available, benchmarking without its column" >&2
        UT_SRC=""
    fi
fi
# Nothing to rebuild when the program is newer than all it is built from, with the same UniTask
# choice (ONITY_BENCH_AOT=1 scripts/bench-csharp.sh then reuses its ahead-of-time images).
STAMP="$OUT/OnityBench.exe.built-from"
if [ -f "$OUT/OnityBench.exe" ] && [ -f "$OUT/UnityEngine.dll" ] && [ "$(cat "$STAMP" 2>/dev/null)" = "unitask=$UT_SRC defines=$DEFS" ] \
    && [ -z "$(find bindings/Runtime tests/csharp/Bench tests/unity/StandIn/UnityEngine scripts/build-csharp-bench.sh $UT_SRC \
        -newer "$OUT/OnityBench.exe" -print -quit)" ]; then
    echo "build-csharp-bench: $OUT/OnityBench.exe is up to date" >&2
    exit 0
fi
rm -f "$STAMP"
# The test stand-in of UnityEngine: the AsyncOperation scenarios (both columns) await its operations
# and the UniTask column runs on its player loop. Onity's Unity integration is compiled in with it
# (ONITY_UNITY_STANDIN).
mcs -langversion:7.2 -unsafe -nologo -nowarn:1591,0649,0414,0169 -target:library \
    -out:"$OUT/UnityEngine.dll" -recurse:'tests/unity/StandIn/UnityEngine/*.cs'
if [ -n "$UT_SRC" ]; then
    UT_FILES=(UnityStubs.cs AsyncLazy.cs AsyncUnit.cs CancellationTokenEqualityComparer.cs
        CancellationTokenExtensions.cs ExceptionExtensions.cs IUniTaskSource.cs MoveNextSource.cs
        PlayerLoopHelper.cs TaskPool.cs UniTask.cs UniTask.Delay.cs UniTask.Factory.cs
        UniTask.WhenAll.cs UniTask.WhenAny.cs UniTaskCompletionSource.cs UniTaskScheduler.cs UnityAsyncExtensions.cs
        UniTaskVoid.cs UniTaskSynchronizationContext.cs CompilerServices/AsyncUniTaskMethodBuilder.cs
        CompilerServices/AsyncUniTaskVoidMethodBuilder.cs CompilerServices/StateMachineRunner.cs
        Internal/ArrayPool.cs Internal/ArrayPoolUtil.cs Internal/ArrayUtil.cs
        Internal/ContinuationQueue.cs Internal/DiagnosticsExtensions.cs Internal/Error.cs
        Internal/MinimumQueue.cs Internal/PlayerLoopRunner.cs Internal/PooledDelegate.cs
        Internal/RuntimeHelpersAbstraction.cs Internal/StatePool.cs Internal/TaskTracker.cs
        Internal/ValueStopwatch.cs Internal/WeakDictionary.cs
        IUniTaskAsyncEnumerable.cs Channel.cs Linq/ForEach.cs Linq/UnityExtensions/EveryUpdate.cs
        Linq/AsyncEnumeratorBase.cs Linq/Where.cs Linq/Select.cs Linq/TakeWhile.cs
        AsyncReactiveProperty.cs TriggerEvent.cs PlayerLoopTimer.cs Linq/Take.cs Linq/ToArray.cs Linq/Range.cs Linq/Empty.cs ForgetShim.cs)
    # UniTask needs C# 7.3 features mcs only accepts under -langversion:experimental; the binding
    # itself is compiled at 7.2 by the test command.
    mcs -langversion:experimental -unsafe -optimize+ -nologo -nowarn:1591,0436,1998 \
        -r:"$OUT/UnityEngine.dll" \
        -define:"${DEFS:+$DEFS;}ONITY_BENCH_UNITASK;ONITY_UNITY_STANDIN;UNITY_2017_2_OR_NEWER;UNITY_2018_3_OR_NEWER;UNITY_2018_4_OR_NEWER;UNITY_2019_3_OR_NEWER;UNITY_2020_1_OR_NEWER" \
        -out:"$OUT/OnityBench.exe" -recurse:'bindings/Runtime/*.cs' tests/csharp/Bench/*.cs \
        "${UT_FILES[@]/#/$UT_SRC/}" 2>&1 | { grep -v 'warning CS' || true; }
else
    mcs -langversion:7.2 -unsafe -optimize+ -nowarn:1591 -define:"${DEFS:+$DEFS;}ONITY_UNITY_STANDIN" -r:"$OUT/UnityEngine.dll" \
        -out:"$OUT/OnityBench.exe" -recurse:'bindings/Runtime/*.cs' tests/csharp/Bench/*.cs
fi
echo "unitask=$UT_SRC defines=$DEFS" > "$STAMP"
