#!/usr/bin/env bash
# Where the time of one C# benchmark scenario goes, by function and, for one method, by
# instruction. Runs the benchmark program (scripts/build-csharp-bench.sh) under `perf record`
# with software cpu-clock sampling (this VM has no hardware counters) and Mono's perf map
# (--jitmap), then prints the hottest functions. With METHOD it also prints that method's JIT
# code (MONO_VERBOSE_METHOD) with each instruction's share of the method's samples. A sample
# lands on the instruction after the one that waited (skid): a hot `mov` right after a load
# usually means the load was slow.
# Usage: scripts/profile-csharp.sh GROUP IMPL [METHOD]
#   GROUP   a group filter of the benchmark: nextframe, yield, delayframe, completed, manual,
#           cycle, whenany (every size of the group runs)
#   IMPL    onity, onity-flowoff, unitask or tpl
#   METHOD  a method for MONO_VERBOSE_METHOD, e.g. 'Onity.OnityTask:NextFrame' or
#           '<NextFrameLoop>c__async0:MoveNext' (the benchmark's NextFrame loop)
# Environment: MONO_THREADS_SUSPEND as for a run (default preemptive); ONITY_BENCH_SETS measured
# sets per implementation (default here 1000, so that start-up and JIT are a small share).
# Needs perf and python3.
# Output files: target/csharp/profile.{data,txt}.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
[ $# -ge 2 ] || { sed -n '2,19p' "$0" >&2; exit 2; }
GROUP="$1"; IMPL="$2"; METHOD="${3:-}"
command -v perf >/dev/null || { echo "profile-csharp: perf is needed (apt-get install linux-perf)" >&2; exit 2; }
OUT="${ONITY_CS_OUT:-$ROOT/target/csharp}"
scripts/build-csharp-bench.sh "$OUT" >&2
export LD_LIBRARY_PATH="$ROOT/target/release" MONO_THREADS_SUSPEND="${MONO_THREADS_SUSPEND:-preemptive}"
if [ -n "$METHOD" ]; then export MONO_VERBOSE_METHOD="$METHOD"; fi
export ONITY_BENCH_SETS="${ONITY_BENCH_SETS:-1000}"
perf record -q -e cpu-clock -F 5000 -o "$OUT/profile.data" \
    mono --jitmap --optimize=all "$OUT/OnityBench.exe" "$GROUP" "only=$IMPL" > "$OUT/profile.txt" 2>&1 \
    || { tail -20 "$OUT/profile.txt" >&2; exit 1; }
if ! grep -q "^RESULT.*	$IMPL	" "$OUT/profile.txt"; then
    echo "profile-csharp: no '$IMPL' set ran in group '$GROUP' (see $OUT/profile.txt)" >&2
    exit 2
fi
grep -v -e '^RESULT' -e '^RATIO' -e '^CONTROL' "$OUT/profile.txt" | grep -e '^allocation' -e ' ns/op' >&2 || true
echo "== hottest functions (share of all samples)"
perf report -i "$OUT/profile.data" --no-children --sort symbol --stdio 2>/dev/null \
    | grep -v -e '^#' -e '^$' | head -25 | cut -c1-130 || true # head closes the pipe early
[ -n "$METHOD" ] || exit 0
perf script -i "$OUT/profile.data" -F ip 2>/dev/null | python3 -c '
import collections, re, sys
samples = collections.Counter(int(l, 16) for l in sys.stdin if l.strip())
text = open(sys.argv[1], errors="replace").read().split("\n")
methods = []  # (name, start, end, first line of its ASM block)
for i, l in enumerate(text):
    m = re.match(r"Method (.*) emitted at (0x[0-9a-f]+) to (0x[0-9a-f]+)", l)
    if m: methods.append([m.group(1), int(m.group(2), 16), int(m.group(3), 16), None])
    m = re.match(r"\*\*\* ASM for (.*) \*\*\*", l)
    if m:
        for me in methods:
            if me[3] is None and m.group(1) in me[0]: me[3] = i; break
if not methods: sys.exit("no method matched MONO_VERBOSE_METHOD")
def count(me): return sum(c for ip, c in samples.items() if me[1] <= ip < me[2])
best = max(methods, key=count)
total = count(best)
print("== %s: %d samples (%.1f%% of all), %d bytes of code" % (best[0], total, 100.0 * total / max(1, sum(samples.values())), best[2] - best[1]))
if best[3] is None: sys.exit("no disassembly (is objdump installed?)")
for l in text[best[3] + 1:]:
    if l.startswith("Method ") or l.startswith("*** ASM"): break
    m = re.match(r"\s*([0-9a-f]+):\s+(?:[0-9a-f]{2} )+\s*(.*)", l)
    if m:
        off = int(m.group(1), 16)
        print("%5.1f%% %5x: %s" % (100.0 * samples.get(best[1] + off, 0) / max(1, total), off, m.group(2).strip()))
' "$OUT/profile.txt"
