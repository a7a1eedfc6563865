#!/usr/bin/env bash
# The binding's ENABLE_IL2CPP path beside its JIT path: the C# benchmark (tests/csharp/Bench, Onity
# with context flow on only) compiled twice, as for Mono (the Reflection.Emit "nothing to flow"
# check) and with -define:ENABLE_IL2CPP (no Reflection.Emit: FastCapture at every suspension),
# both run by Mono's JIT in alternating processes (2 per build, per thread kind: without and with
# a SynchronizationContext, as Unity's main thread has), MONO_THREADS_SUSPEND=preemptive, thread
# CPU clock. This measures the binding's code path, not IL2CPP's generated C++ (no IL2CPP here).
# Prints a markdown table (min of the minima, range of the medians, GC bytes per operation).
# About 3 minutes. Raw outputs: target/csharp-il2cpp/*.txt.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
OUT="$ROOT/target/csharp-il2cpp"
mkdir -p "$OUT"
rm -f "$OUT/libonity.so"
. "$ROOT/scripts/native-lib.sh" # sets LIB; rebuilds it when older than src
for path in jit il2cpp; do
    def=""
    [ $path = il2cpp ] && def="-define:ENABLE_IL2CPP"
    mcs -langversion:7.2 -unsafe -optimize+ -nologo -nowarn:1591,0649 $def -out:"$OUT/OnityBench-$path.exe" \
        -recurse:'bindings/Runtime/*.cs' tests/csharp/Bench/*.cs
done
for ctx in 0 1; do
    for n in 1 2; do
        for path in jit il2cpp; do
            echo "== $path path, synchronization context $ctx, process $n" >&2
            ONITY_BENCH_SYNCCTX=$ctx ONITY_BENCH_CLOCK=thread MONO_THREADS_SUSPEND=preemptive \
                LD_LIBRARY_PATH="$ROOT/target/release" \
                mono --optimize=all "$OUT/OnityBench-$path.exe" notpl only=onity > "$OUT/$path-ctx$ctx-$n.txt"
        done
    done
done
python3 - "$OUT" <<'PY'
import sys, os, collections
out = sys.argv[1]
rows = collections.OrderedDict()
for ctx in (0, 1):
    for n in (1, 2):
        for path in ("jit", "il2cpp"):
            for line in open(os.path.join(out, "%s-ctx%d-%d.txt" % (path, ctx, n))):
                f = line.rstrip("\n").split("\t")
                if f[0] == "RESULT" and f[2] == "onity":
                    mn, med, mean, mx, b, c = map(float, f[3:9])
                    rows.setdefault((f[1], ctx), {}).setdefault(path, []).append((mn, med, b))
def num(x):
    return "%.3g" % x if x < 1000 else "%.0f" % x
print("| scenario | thread | JIT path min | ENABLE_IL2CPP path min | IL2CPP / JIT | medians (JIT; IL2CPP) | B/op (JIT / IL2CPP) |")
print("|---|---|---:|---:|---:|---|---:|")
for (scen, ctx), d in rows.items():
    if "jit" not in d or "il2cpp" not in d:
        continue
    j, i = d["jit"], d["il2cpp"]
    jm, im = min(x[0] for x in j), min(x[0] for x in i)
    print("| %s | %s | %s | %s | %.2f | %s–%s; %s–%s | %s / %s |" % (
        scen, "sync ctx" if ctx else "plain", num(jm), num(im), im / jm,
        num(min(x[1] for x in j)), num(max(x[1] for x in j)), num(min(x[1] for x in i)), num(max(x[1] for x in i)),
        num(max(x[2] for x in j)), num(max(x[2] for x in i))))
PY
