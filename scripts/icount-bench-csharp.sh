#!/usr/bin/env bash
# Instructions per operation of C# benchmark scenarios, Onity and UniTask side by side, counted
# with callgrind (deterministic to ~1 %: the evidence on a shared, noisy machine where the timed
# benchmark is not). The benchmark program (scripts/build-csharp-bench.sh, UniTask compiled in)
# runs one group for one implementation (`only=NAME`) twice, with ONITY_BENCH_SETS=3 and 13
# measured sets; the difference in executed instructions, minus the same difference of a run that
# selects no scenario (the allocation controls also scale with the set count), is divided by the
# difference in operations (the OPS lines: operations per set). Start-up, JIT and warm-up cancel
# out. Needs valgrind and mono; MONO_THREADS_SUSPEND=preemptive as scripts/icount-csharp.sh.
# Usage: scripts/icount-bench-csharp.sh GROUP [GROUP ...] (groups of tests/csharp/Bench, e.g.
#   stream-foreach-4096x stream-pattern-1x channel-waiting channel-burst nextframe)
# Env: ONITY_ICOUNT_IMPLS (default "onity unitask").
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
OUT="${ONITY_CS_OUT:-$ROOT/target/csharp}"
command -v valgrind >/dev/null || { echo "valgrind is needed" >&2; exit 2; }
[ $# -gt 0 ] || { echo "usage: $0 GROUP [GROUP ...]" >&2; exit 2; }
scripts/build-csharp-bench.sh "$OUT" >&2
export LD_LIBRARY_PATH="$ROOT/target/release" MONO_THREADS_SUSPEND=preemptive
A=3
B=13
run() { # sets args... -> "instructions ops-per-set" (ops 0 when no scenario ran)
    local sets=$1; shift
    local log
    log=$(mktemp)
    ONITY_BENCH_SETS=$sets valgrind --tool=callgrind --smc-check=all-non-file --callgrind-out-file=/dev/null \
        mono --optimize=all "$OUT/OnityBench.exe" notpl "$@" > "$log" 2>&1
    local ins ops
    ins=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$log")
    ops=$(awk -F'\t' '$1 == "OPS" { s += $4 } END { print s + 0 }' "$log")
    rm -f "$log"
    echo "$ins $ops"
}
read -r base_a _ <<< "$(run $A only=none no-such-group)"
read -r base_b _ <<< "$(run $B only=none no-such-group)"
printf '%-24s %-8s %14s\n' group impl "instr/op"
for g in "$@"; do
    for impl in ${ONITY_ICOUNT_IMPLS:-onity unitask}; do
        read -r ia ops <<< "$(run $A "only=$impl" "$g")"
        read -r ib _ <<< "$(run $B "only=$impl" "$g")"
        if [ "$ops" = 0 ]; then printf '%-24s %-8s %14s\n' "$g" "$impl" "(not run)"; continue; fi
        python3 -c "print('%-24s %-8s %14.1f' % ('$g', '$impl', (($ib - $ia) - ($base_b - $base_a)) / float(($B - $A) * $ops)))"
    done
done
