#!/usr/bin/env bash
# Instructions per operation of the C# binding's hot paths, counted with callgrind: each workload
# runs twice (a short and a long run) and the difference in executed instructions is divided by
# the difference in operations, so start-up and JIT cost cancel out. Deterministic to ~1 %, so
# usable on a shared, noisy machine where timings are not (it does not see cache misses or the
# cost of atomic instructions). Needs valgrind and mono. Usage:
#   scripts/icount-csharp.sh [workload ...]   (default: all; nextframe yield nextframetask
#   nextframetoken manual completed whenany32; reactive: an AsyncReactiveProperty write resuming
#   an awaiting reader, the parity-rx benchmark row; idleframe, idleframenoskip: BeginFrame + 16
#   Ticks with nothing pending, SkipIdleTicks on / off, docs/frame-protocol-measured.md)
# Environment: ONITY_CS_DEFINES=ONITY_SITES compiles the binding with creation sites (caller-info
# parameters, docs/observability.md), ONITY_ICOUNT_SITES=1 also turns OnityRuntime.SiteCapture on;
# ONITY_CS_BINDING=DIR counts another copy of bindings/Runtime (e.g. an older revision's, from
# `git archive REV bindings/Runtime | tar -x -C DIR`: give DIR/bindings/Runtime).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
OUT="${ONITY_CS_OUT:-$ROOT/target/csharp}"
mkdir -p "$OUT"
# Mono looks for a P/Invoke library next to the assembly before LD_LIBRARY_PATH: a stray copy
# there would shadow the fresh build in target/release.
rm -f "$OUT/libonity.so"
command -v valgrind >/dev/null || { echo "valgrind is needed" >&2; exit 2; }
. "$ROOT/scripts/native-lib.sh" # sets LIB; rebuilds it when older than src
BINDING="${ONITY_CS_BINDING:-bindings/Runtime}"
defines=()
[ -n "${ONITY_CS_DEFINES:-}" ] && defines=(-define:"$ONITY_CS_DEFINES")
EXE="$OUT/Icount-$$.exe"
trap 'rm -f "$EXE"' EXIT
mcs -langversion:7.2 -unsafe -optimize+ -nowarn:1591 "${defines[@]}" -out:"$EXE" \
    -recurse:"$BINDING/*.cs" tests/csharp/Icount/*.cs
export LD_LIBRARY_PATH="$ROOT/target/release" MONO_THREADS_SUSPEND=preemptive
count() { # flow workload n -> instructions
    valgrind --tool=callgrind --smc-check=all-non-file --callgrind-out-file=/dev/null \
        mono --optimize=all "$EXE" "$1" "$2" "$3" 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
workloads=("$@")
[ ${#workloads[@]} -eq 0 ] && workloads=(nextframe yield nextframetask nextframetoken manual completed whenany32 reactive)
printf '%-12s %-5s %14s  %s\n' workload flow "instr/op" "op"
for w in "${workloads[@]}"; do
    case "$w" in
        nextframe|yield|nextframetask|nextframetoken) a=10; b=110; per=1024; unit="task-frame" ;;
        manual|completed) a=20000; b=220000; per=1; unit="await / call" ;;
        reactive) a=20000; b=220000; per=1; unit="write" ;;
        idleframe|idleframenoskip) a=200; b=2200; per=1; unit="idle frame" ;;
        whenany32) a=200; b=2200; per=1; unit="WhenAny(32) group" ;;
        *) echo "unknown workload $w" >&2; exit 2 ;;
    esac
    for flow in 1 0; do
        x=$(count $flow "$w" $a); y=$(count $flow "$w" $b)
        python3 -c "print('%-12s %-5s %14.1f  %s' % ('$w', '$flow', ($y - $x) / float(($b - $a) * $per), '$unit'))"
    done
done
