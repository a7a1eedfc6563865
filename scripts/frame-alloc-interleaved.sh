#!/usr/bin/env bash
# Issue #4's 2-vs-1 scaling target measured side by side: K processes (default 3) of the frame
# allocator benchmark's interleaved mode (ONITY_BENCH_INTERLEAVED=ROUNDS, default 2000). In each
# process, every 2-worker row's sets alternate between the main thread alone, the spawned thread
# alone and both together (started at a common deadline; a "both" set counts only if the two runs
# overlap), spread over the whole run in blocks, so the 1-worker and 2-worker values share the
# machine's state. Prints every process's table, per column and ratio how many rows are within
# 1.3x in each process, and the table of the best values over the processes. A burst of other
# load slows the sets with both threads most (they need both cores); the thread-local column,
# which shares nothing, shows when that happened. Needs about 9.5 GB of memory while it runs.
# Usage: scripts/frame-alloc-interleaved.sh [K] [ROUNDS]   (tables kept in target/frame-alloc-interleaved/)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
K="${1:-3}"
ROUNDS="${2:-2000}"
[[ "$K" =~ ^[1-9][0-9]*$ && "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [K>0] [ROUNDS>0]" >&2; exit 2; }
cargo bench --bench frame_alloc --no-run >/dev/null 2>&1 || cargo bench --bench frame_alloc --no-run
BIN="$(cargo bench --bench frame_alloc --no-run 2>&1 | sed -n 's/.*Executable .*(\(.*\))/\1/p' | tail -1)"
[ -x "$BIN" ] || { echo "frame_alloc benchmark executable not found" >&2; exit 1; }
OUT="$ROOT/target/frame-alloc-interleaved"
rm -rf "$OUT" && mkdir -p "$OUT"
for k in $(seq "$K"); do
    echo "# Process $k ($(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1-3 /proc/loadavg))"
    ONITY_BENCH_INTERLEAVED="$ROUNDS" "$BIN" > "$OUT/run-$k.md" || { cat "$OUT/run-$k.md"; exit 1; }
    cat "$OUT/run-$k.md"
    echo
done
python3 - "$OUT" "$K" <<'PY'
import sys
out, k = sys.argv[1], int(sys.argv[2])
# Table rows: row | column | main alone | spawned alone | main, both | spawned, both (ns) | ...
runs = []
for i in range(k):
    rows = {}
    with open("%s/run-%d.md" % (out, i + 1), encoding="utf-8") as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) >= 10 and cells[2].isdigit():
                rows[(cells[0], cells[1])] = [int(c) for c in cells[2:6]]
    runs.append(rows)
keys = []
for run in runs:
    keys += [key for key in run if key not in keys]
def ratios(b):
    per_thread = max(b[2] / b[0], b[3] / b[1])
    return per_thread, max(b[2], b[3]) / b[0]
print("## Rows within 1.3x, per process\n")
print("| column | ratio | " + " | ".join("process %d" % (i + 1) for i in range(k)) + " | worst ratio |")
print("|---|---|" + "---:|" * (k + 1))
for col in ("onity", "thread-local"):
    for idx, label in ((0, "per thread (max)"), (1, "vs main alone")):
        counts, worst = [], 0.0
        for run in runs:
            rs = [ratios(b)[idx] for key, b in run.items() if key[1] == col]
            worst = max([worst] + rs)
            counts.append("%d / %d" % (sum(x <= 1.3 for x in rs), len(rs)))
        print("| %s | %s | %s | %.2fx |" % (col, label, " | ".join(counts), worst))
print("\n## Best of the %d processes (each value: its minimum over the processes, ns)\n" % k)
print("| row | column | main alone | spawned alone | main, both | spawned, both | per thread (max) | vs main alone |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
mark = lambda x: "✓" if x <= 1.3 else "✗"
for key in keys:
    b = [min(run[key][j] for run in runs if key in run) for j in range(4)]
    per_thread, vs_main = ratios(b)
    print("| %s | %s | %d | %d | %d | %d | %.2fx %s | %.2fx %s |" % (
        key[0], key[1], b[0], b[1], b[2], b[3], per_thread, mark(per_thread), vs_main, mark(vs_main)))
PY
