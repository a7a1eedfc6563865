#!/usr/bin/env bash
# Issue #4's 2-vs-1 scaling target measured side by side: K processes (default 3) of the frame
# allocator benchmark's interleaved mode (ONITY_BENCH_INTERLEAVED=ROUNDS, default 2000). In each
# process, every 2-worker row's sets alternate between the main thread alone, the spawned thread
# alone and both together, spread over the whole run in blocks, so the 1-worker and 2-worker
# values share the machine's state. Prints every process's table and, per column and ratio, how
# many rows are within 1.3x in each process, and the table of the best values over the processes.
# A burst of other load slows the sets with both threads most (they need both cores); the
# thread-local column, which shares nothing, shows when that happened. Needs about 9.5 GB of
# memory while it runs.
# Usage: scripts/frame-alloc-interleaved.sh [K] [ROUNDS]   (tables kept in target/frame-alloc-interleaved/)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
K="${1:-3}"
ROUNDS="${2:-2000}"
OUT="$ROOT/target/frame-alloc-interleaved"
rm -rf "$OUT" && mkdir -p "$OUT"
cargo bench --bench frame_alloc --no-run >/dev/null 2>&1 || cargo bench --bench frame_alloc --no-run
BIN="$(cargo bench --bench frame_alloc --no-run 2>&1 | sed -n 's/.*Executable .*(\(.*\))/\1/p' | tail -1)"
for k in $(seq "$K"); do
    echo "# Process $k ($(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1-3 /proc/loadavg))"
    ONITY_BENCH_INTERLEAVED="$ROUNDS" "$BIN" > "$OUT/run-$k.md"
    cat "$OUT/run-$k.md"
    echo
done
python3 - "$OUT" "$K" <<'PY'
import re, sys
out, k = sys.argv[1], int(sys.argv[2])
def us(c):
    m = re.match(r"([\d.]+)(µs|ms)", c)
    return float(m.group(1)) * (1000 if m.group(2) == "ms" else 1)
runs = []
for i in range(k):
    rows = [[c.strip() for c in l.strip().strip("|").split("|")] for l in open("%s/run-%d.md" % (out, i + 1))
            if l.startswith("| ") and "µs" in l]
    runs.append({(r[0], r[1]): r for r in rows})
print("## Rows within 1.3x, per process\n")
print("| column | ratio | " + " | ".join("process %d" % (i + 1) for i in range(k)) + " | worst ratio |")
print("|---|---|" + "---:|" * (k + 1))
for col in ("onity", "thread-local"):
    for idx, label in ((6, "per thread (max)"), (7, "vs main alone")):
        counts, worst = [], 0.0
        for run in runs:
            ratios = [float(r[idx].split("x")[0]) for key, r in run.items() if key[1] == col]
            worst = max([worst] + ratios)
            counts.append("%d / %d" % (sum(x <= 1.3 for x in ratios), len(ratios)))
        print("| %s | %s | %s | %.2fx |" % (col, label, " | ".join(counts), worst))
print("\n## Best of the %d processes (each value: its minimum over the processes)\n" % k)
print("| row | column | main alone | spawned alone | main, both | spawned, both | per thread (max) | vs main alone |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
for key in runs[0]:
    b = [min(us(run[key][j]) for run in runs if key in run) for j in range(2, 6)]
    per_thread = max(b[2] / b[0], b[3] / b[1])
    vs_main = max(b[2], b[3]) / b[0]
    mark = lambda x: "✓" if x <= 1.3 else "✗"
    print("| %s | %s | %.2f µs | %.2f µs | %.2f µs | %.2f µs | %.2fx %s | %.2fx %s |" % (
        key[0], key[1], b[0], b[1], b[2], b[3], per_thread, mark(per_thread), vs_main, mark(vs_main)))
PY
