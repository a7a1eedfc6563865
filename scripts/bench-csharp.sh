#!/usr/bin/env bash
# Runs the C# binding benchmark (tests/csharp/Bench) under `mono --optimize=all`, three
# processes with MONO_THREADS_SUSPEND=preemptive and three in Mono's default (hybrid) mode,
# alternating, with Onity, UniTask 2.2.5 (fetched from npm by scripts/fetch-unitask.sh) and
# System.Threading.Tasks side by side in each process, and writes the aggregated tables (best
# minimum and range of medians over the three processes, side-by-side ratios) to
# docs/csharp_bench.md. About 1.5 minutes.
# ONITY_BENCH_CLOCK=thread times sets with the thread CPU clock instead of the wall clock.
# ONITY_BENCH_UNITASK=0 leaves the UniTask column out.
# ONITY_BENCH_SYNCCTX=1 runs on a thread with a SynchronizationContext, as Unity's main thread has
# one (on Mono it gives the thread an ExecutionContext of its own, which context flow must look
# into); its table goes to a second section of docs/csharp_bench.md.
# Extra arguments go to the benchmark program (group filters, "notpl"): for manual runs only,
# since the table then covers only those groups; ONITY_BENCH_OUT=FILE writes such a table to
# FILE instead of docs/csharp_bench.md (e.g. ONITY_BENCH_OUT=docs/csharp_bench_asyncop.md
# scripts/bench-csharp.sh asyncop).
# ONITY_BENCH_AOT=1 compares Mono's JIT with its full AOT instead of the two suspend modes: the
# program (UniTask compiled in) and the framework assemblies compiled with `mono --aot=full`
# (scripts/aot-compile.sh), two processes per mode alternating, `mono --optimize=all` beside
# `mono --full-aot`, both MONO_THREADS_SUSPEND=preemptive; its table goes to its own section of
# docs/csharp_bench.md. E.g. ONITY_BENCH_AOT=1 scripts/bench-csharp.sh nextframe yield delayframe.
# Raw outputs: target/csharp/bench[-syncctx|-aot]-<mode>-<n>.txt.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
OUT="${ONITY_CS_OUT:-$ROOT/target/csharp}"
mkdir -p "$OUT" docs
scripts/build-csharp-bench.sh "$OUT"
TAG=bench
[ "${ONITY_BENCH_SYNCCTX:-0}" = 1 ] && TAG=bench-syncctx
MODES="preemptive default"
PROCESSES="1 2 3"
if [ "${ONITY_BENCH_AOT:-0}" = 1 ]; then
    [ "$TAG" = bench ] || { echo "ONITY_BENCH_AOT=1 and ONITY_BENCH_SYNCCTX=1 do not combine" >&2; exit 2; }
    TAG=bench-aot
    MODES="jit aot"
    PROCESSES="1 2"
    # A copy compiled ahead of time (an image beside $OUT/OnityBench.exe would be used by the JIT
    # runs too: Mono loads AOT code it finds).
    mkdir -p "$OUT/aot-bench"
    for f in OnityBench.exe UnityEngine.dll; do
        cmp -s "$OUT/$f" "$OUT/aot-bench/$f" || cp "$OUT/$f" "$OUT/aot-bench/"
    done
    AOT_PATH=$(scripts/aot-compile.sh "$OUT/aot-bench/OnityBench.exe")
fi
export TAG MODES

# Processes alternate between the two modes so that drift of the machine touches both.
for n in $PROCESSES; do
    for mode in $MODES; do
        echo "== $mode, process $n" >&2
        if [ "$mode" = jit ] || [ "$mode" = aot ]; then
            if [ "$mode" = jit ]; then
                LD_LIBRARY_PATH="$ROOT/target/release" MONO_THREADS_SUSPEND=preemptive \
                    mono --optimize=all "$OUT/OnityBench.exe" "$@" > "$OUT/$TAG-$mode-$n.txt"
            else
                LD_LIBRARY_PATH="$ROOT/target/release" MONO_THREADS_SUSPEND=preemptive MONO_PATH="$AOT_PATH" \
                    mono --full-aot "$OUT/aot-bench/OnityBench.exe" "$@" > "$OUT/$TAG-$mode-$n.txt"
            fi
        elif [ "$mode" = preemptive ]; then
            LD_LIBRARY_PATH="$ROOT/target/release" MONO_THREADS_SUSPEND=preemptive \
                mono --optimize=all "$OUT/OnityBench.exe" "$@" > "$OUT/$TAG-$mode-$n.txt"
        else
            env -u MONO_THREADS_SUSPEND LD_LIBRARY_PATH="$ROOT/target/release" \
                mono --optimize=all "$OUT/OnityBench.exe" "$@" > "$OUT/$TAG-$mode-$n.txt"
        fi
        grep -v -e '^RESULT' -e '^RATIO' -e '^CONTROL' -e '^OPS' "$OUT/$TAG-$mode-$n.txt" >&2
    done
done

python3 - "$OUT" "$@" <<'PY'
import sys, os, collections, datetime
out = sys.argv[1]
MODES = tuple(os.environ["MODES"].split())
aot = os.environ["TAG"] == "bench-aot"
LABEL = {"preemptive": "preemptive", "default": "hybrid", "jit": "JIT", "aot": "full AOT"}
NPROC = 2 if aot else 3
res = collections.OrderedDict()   # scenario -> impl -> mode -> [(min, median, mean, B/op, crossings/op)]
rat = collections.OrderedDict()   # scenario -> (a, b) -> mode -> [(median of round ratios, ratio of minima)]
header = ""
for n in range(1, NPROC + 1):
    for mode in MODES:
        path = os.path.join(out, "%s-%d.txt" % (os.environ["TAG"] + "-" + mode, n))
        for line in open(path):
            f = line.rstrip("\n").split("\t")
            if line.startswith("# Onity") and not header: header = line[2:].strip()
            if f[0] == "RESULT":
                scen, impl = f[1], f[2]
                mn, med, mean, mx, b, c = map(float, f[3:9])
                res.setdefault(scen, collections.OrderedDict()).setdefault(impl, {}).setdefault(mode, []).append((mn, med, mean, b, c))
            elif f[0] == "RATIO":
                rat.setdefault(f[1], collections.OrderedDict()).setdefault((f[2], f[3]), {}).setdefault(mode, []).append((float(f[4]), float(f[5])))
def fmt(x):
    return "%.0f" % x if x >= 100 else "%.1f" % x
def rng(v):
    lo, hi = min(v), max(v)
    return fmt(lo) if fmt(lo) == fmt(hi) else "%s–%s" % (fmt(lo), fmt(hi))
def rrng(v):
    lo, hi = min(v), max(v)
    return "%.2f" % lo if "%.2f" % lo == "%.2f" % hi else "%.2f–%.2f" % (lo, hi)
load = open("/proc/loadavg").read().split()[:3]
L = []
sync = os.environ["TAG"] == "bench-syncctx"
L.append("# C# binding benchmark (Mono 6.8, " + ("`mono --optimize=all` beside `mono --full-aot`, MONO_THREADS_SUSPEND=preemptive" if aot else "`mono --optimize=all`") + ")" + (", with a SynchronizationContext on the benchmark thread (as on Unity's main thread)" if sync else ""))
L.append("")
cmd = ("ONITY_BENCH_SYNCCTX=1 " if sync else "") + ("ONITY_BENCH_AOT=1 " if aot else "") + ("ONITY_BENCH_CLOCK=thread " if os.environ.get("ONITY_BENCH_CLOCK") == "thread" else "") + "scripts/bench-csharp.sh" + "".join(" " + a for a in sys.argv[2:])
L.append("Generated by `%s` on %s UTC; %d CPUs; load average at the end %s." % (cmd, datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M"), os.cpu_count(), " ".join(load)))
L.append("Clock: %s." % ("thread CPU time (ONITY_BENCH_CLOCK=thread: excludes time the benchmark thread was descheduled)" if os.environ.get("ONITY_BENCH_CLOCK") == "thread" else "wall clock (Stopwatch); ONITY_BENCH_CLOCK=thread gives thread CPU time"))
L.append("First process: `%s`." % header)
L.append("")
L.append(("Two processes per mode (JIT: `mono --optimize=all`; full AOT: the program and the framework compiled with `mono --aot=full` by scripts/aot-compile.sh, run with `mono --full-aot`), alternating. " if aot else "Three processes per suspend mode, alternating. ") + "In each process every scenario runs 5 warm-up sets of every implementation, then 50 rounds of one measured set per implementation (in a random order drawn each round), every set validated. "
         "**min** = the best of the processes' minima over 50 sets (the seed's statistic); **median** = the range of the processes' medians. "
         "`onity` = this binding, context flow on (the default); `onity-flowoff` = the same tasks with `OnityContextFlow.Enabled = false` during its sets; "
         "`unitask` = the same workload with UniTask 2.2.5 (npm, compiled into the program, driven through the UnityEngine stand-in's player loop; its task awaiters made mutable as Onity's are, see scripts/unitask_patch.py; UniTask flows no ExecutionContext); "
         "`tpl` = System.Threading.Tasks. B/op = GC.GetAllocatedBytesForCurrentThread over the measured sets per op (largest over the processes); crossings/op = P/Invoke calls per op (OnityNativeCalls).")
if not any("unitask" in d for d in res.values()):
    L.append("")
    L.append("**No UniTask column in this run** (ONITY_BENCH_UNITASK=0, or scripts/fetch-unitask.sh could not fetch or prepare UniTask): the UniTask figures quoted elsewhere in this file are from earlier runs.")
L.append("")
L.append("| Scenario | impl | min %s | median %s | min %s | median %s | B/op | crossings/op |" % (LABEL[MODES[0]], LABEL[MODES[0]], LABEL[MODES[1]], LABEL[MODES[1]]))
L.append("|---|---|---:|---:|---:|---:|---:|---:|")
for scen, d in res.items():
    for impl, m in d.items():
        cells = []
        for mode in MODES:
            v = m.get(mode, [])
            cells += [fmt(min(x[0] for x in v)) if v else "–", rng([x[1] for x in v]) if v else "–"]
        allv = [x for mode in MODES for x in m.get(mode, [])]
        L.append("| %s | %s | %s | %s | %.2f | %s |" % (scen, impl, " | ".join(cells[:2]), " | ".join(cells[2:]),
                 max(x[3] for x in allv), ("%.5f" % max(x[4] for x in allv)) if impl.startswith("onity") else "0"))
L.append("")
L.append("Side-by-side ratios (below 1: Onity faster). Per process: the median over the 50 rounds of (Onity set time / other set time in the same round); cells give the range over the processes, then the ratio of the best minima.")
L.append("")
L.append("| Scenario | ratio | %s: median of round ratios | %s: median of round ratios | ratio of best minima (%s / %s) |" % (LABEL[MODES[0]], LABEL[MODES[1]], LABEL[MODES[0]], LABEL[MODES[1]]))
L.append("|---|---|---:|---:|---:|")
for scen, d in rat.items():
    for (a, b), m in d.items():
        def best_ratio(mode):
            ra = res[scen][a].get(mode); rb = res[scen][b].get(mode)
            return "%.2f" % (min(x[0] for x in ra) / min(x[0] for x in rb)) if ra and rb else "–"
        L.append("| %s | %s / %s | %s | %s | %s / %s |" % (scen, a, b,
                 rrng([x[0] for x in m.get(MODES[0], [])]) if m.get(MODES[0]) else "–",
                 rrng([x[0] for x in m.get(MODES[1], [])]) if m.get(MODES[1]) else "–",
                 best_ratio(MODES[0]), best_ratio(MODES[1])))
if aot:
    # The same implementation under full AOT over under the JIT: best minima, medians' midpoints.
    L.append("")
    L.append("Full AOT / JIT, per implementation (above 1: slower without a JIT): ratio of the best minima, and of the middle of the medians' ranges.")
    L.append("")
    L.append("| Scenario | impl | min: AOT / JIT | median: AOT / JIT |")
    L.append("|---|---|---:|---:|")
    mid = lambda v: (min(v) + max(v)) / 2
    for scen, d in res.items():
        for impl, m in d.items():
            j, a = m.get("jit"), m.get("aot")
            if j and a:
                L.append("| %s | %s | %.2f | %.2f |" % (scen, impl, min(x[0] for x in a) / min(x[0] for x in j), mid([x[1] for x in a]) / mid([x[1] for x in j])))
table = "\n".join(L) + "\n"
path = os.environ.get("ONITY_BENCH_OUT") or "docs/csharp_bench.md"
if sync:
    begin, end = "<!-- bench-syncctx:begin (generated by ONITY_BENCH_SYNCCTX=1 scripts/bench-csharp.sh) -->", "<!-- bench-syncctx:end -->"
elif aot:
    begin, end = "<!-- bench-aot:begin (generated by ONITY_BENCH_AOT=1 scripts/bench-csharp.sh) -->", "<!-- bench-aot:end -->"
else:
    begin, end = "<!-- bench:begin (generated by scripts/bench-csharp.sh) -->", "<!-- bench:end -->"
text = open(path).read() if os.path.exists(path) else "%s\n%s\n" % (begin, end)
if begin not in text:
    # The second section goes right after the first one.
    first_end = "<!-- bench:end -->"
    if (sync or aot) and first_end in text:
        a, b = text.split(first_end, 1)
        text = a + first_end + "\n\n%s\n%s\n" % (begin, end) + b
    else:
        text = "%s\n%s\n\n" % (begin, end) + text
pre, rest = text.split(begin, 1)
_, post = rest.split(end, 1)
open(path, "w").write(pre + begin + "\n" + table + end + post)
PY
echo "results written to ${ONITY_BENCH_OUT:-docs/csharp_bench.md} (between the $TAG markers)" >&2
