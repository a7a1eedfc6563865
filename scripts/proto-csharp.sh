#!/usr/bin/env bash
# Where the C# NextFrame cycle's time goes: tests/csharp/Proto/Proto.cs runs issue #3's prototype
# (P0), P0 plus one feature of the binding at a time (P1..P4), the binding's awaiter path rebuilt
# on P0's tick (Q) minus one feature at a time (Q*), and the binding itself (B), all in one
# process, 4096 tasks, 3 rounds; K processes (default 3) under MONO_THREADS_SUSPEND=preemptive.
# Prints each variant's median and range over all rounds, ns per task-frame (Stopwatch, best of 6
# batches per round). Usage: scripts/proto-csharp.sh [K] [flow]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
K="${1:-3}"
OUT="${ONITY_CS_OUT:-$ROOT/target/csharp}"
mkdir -p "$OUT"
# Mono looks for a P/Invoke library next to the assembly before LD_LIBRARY_PATH: a stray copy
# there would shadow the fresh build in target/release.
rm -f "$OUT/libonity.so"
. "$ROOT/scripts/native-lib.sh" # sets LIB; rebuilds it when older than src
mcs -langversion:7.2 -unsafe -optimize+ -nowarn:1591 -nologo -out:"$OUT/Proto.exe" \
    -recurse:'bindings/Runtime/*.cs' tests/csharp/Proto/*.cs
: > "$OUT/proto.txt"
for k in $(seq "$K"); do
    LD_LIBRARY_PATH="$ROOT/target/release" MONO_THREADS_SUSPEND=preemptive \
        mono --optimize=all "$OUT/Proto.exe" ${2:-} >> "$OUT/proto.txt"
done
python3 - "$OUT/proto.txt" <<'PY'
import sys, collections
rows = collections.OrderedDict()
for line in open(sys.argv[1]):
    if line.startswith("RESULT\t"):
        _, name, ns = line.rstrip("\n").split("\t")
        rows.setdefault(name, []).append(float(ns))
print("| variant | median ns/task-frame | range | samples |")
print("|---|---:|---|---:|")
for name, v in rows.items():
    v.sort()
    print("| %s | %.1f | %.1f–%.1f | %d |" % (name, v[len(v) // 2], v[0], v[-1], len(v)))
PY
