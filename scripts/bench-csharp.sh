#!/usr/bin/env bash
# Runs the C# binding benchmark (tests/csharp/Bench) under `mono --optimize=all`, three
# processes with MONO_THREADS_SUSPEND=preemptive and three in Mono's default (hybrid) mode,
# alternating, with Onity, UniTask 2.2.5 (fetched from npm by scripts/fetch-unitask.sh) and
# System.Threading.Tasks side by side in each process, and writes the aggregated tables (best
# minimum and range of medians over the three processes, side-by-side ratios) to
# docs/csharp_bench.md. About 5 minutes.
# ONITY_BENCH_CLOCK=thread times sets with the thread CPU clock instead of the wall clock.
# ONITY_BENCH_UNITASK=0 leaves the UniTask column out.
# Extra arguments go to the benchmark program (group filters, "notpl"): for manual runs only,
# since the table then covers only those groups.
# Raw outputs: target/csharp/bench-<mode>-<n>.txt.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
OUT="${ONITY_CS_OUT:-$ROOT/target/csharp}"
mkdir -p "$OUT" docs
if ! command -v mcs >/dev/null 2>&1; then
    if [ "$(id -u)" = "0" ]; then apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y mono-devel
    else echo "install mono-devel (sudo apt-get install -y mono-devel)" >&2; exit 2; fi
fi
LIB="$ROOT/target/release/libonity.so"
if [ ! -f "$LIB" ] || [ -n "$(find src Cargo.toml build.rs -newer "$LIB" -print -quit 2>/dev/null)" ]; then
    cargo build --release
fi
python3 scripts/gen_csharp_native.py --check

# The UniTask column: UniTask 2.2.5 from the npm registry, compiled into the benchmark program
# (mcs cannot compile `async UniTask` methods against a UniTask assembly it references) with the
# test stand-in of UnityEngine. ONITY_BENCH_UNITASK=0 leaves it out; so does a failed fetch.
UT_SRC=""
if [ "${ONITY_BENCH_UNITASK:-1}" != 0 ]; then
    if ! UT_SRC="$(scripts/fetch-unitask.sh)"; then
        echo "bench-csharp: UniTask not available, benchmarking without its column" >&2
        UT_SRC=""
    fi
fi
if [ -n "$UT_SRC" ]; then
    mcs -langversion:7.2 -unsafe -nologo -nowarn:1591,0649,0414,0169 -target:library \
        -out:"$OUT/UnityEngine.dll" -recurse:'tests/unity/StandIn/UnityEngine/*.cs'
    UT_FILES=(UnityStubs.cs AsyncLazy.cs AsyncUnit.cs CancellationTokenEqualityComparer.cs
        CancellationTokenExtensions.cs ExceptionExtensions.cs IUniTaskSource.cs MoveNextSource.cs
        PlayerLoopHelper.cs TaskPool.cs UniTask.cs UniTask.Delay.cs UniTask.Factory.cs
        UniTask.WhenAll.cs UniTask.WhenAny.cs UniTaskCompletionSource.cs UniTaskScheduler.cs
        UniTaskVoid.cs UniTaskSynchronizationContext.cs CompilerServices/AsyncUniTaskMethodBuilder.cs
        CompilerServices/AsyncUniTaskVoidMethodBuilder.cs CompilerServices/StateMachineRunner.cs
        Internal/ArrayPool.cs Internal/ArrayPoolUtil.cs Internal/ArrayUtil.cs
        Internal/ContinuationQueue.cs Internal/DiagnosticsExtensions.cs Internal/Error.cs
        Internal/MinimumQueue.cs Internal/PlayerLoopRunner.cs Internal/PooledDelegate.cs
        Internal/RuntimeHelpersAbstraction.cs Internal/StatePool.cs Internal/TaskTracker.cs
        Internal/ValueStopwatch.cs Internal/WeakDictionary.cs)
    # UniTask needs C# 7.3 features mcs only accepts under -langversion:experimental; the binding
    # itself is compiled at 7.2 by the test command.
    mcs -langversion:experimental -unsafe -optimize+ -nologo -nowarn:1591,0436,1998 \
        -r:"$OUT/UnityEngine.dll" \
        -define:"ONITY_BENCH_UNITASK;UNITY_2017_2_OR_NEWER;UNITY_2018_3_OR_NEWER;UNITY_2018_4_OR_NEWER;UNITY_2019_3_OR_NEWER;UNITY_2020_1_OR_NEWER" \
        -out:"$OUT/OnityBench.exe" -recurse:'bindings/Runtime/*.cs' tests/csharp/Bench/*.cs \
        "${UT_FILES[@]/#/$UT_SRC/}" 2>&1 | { grep -v 'warning CS' || true; }
else
    mcs -langversion:7.2 -unsafe -optimize+ -nowarn:1591 -out:"$OUT/OnityBench.exe" \
        -recurse:'bindings/Runtime/*.cs' tests/csharp/Bench/*.cs
fi

# Processes alternate between the two suspend modes so that drift of the machine touches both.
for n in 1 2 3; do
    for mode in preemptive default; do
        echo "== $mode, process $n" >&2
        if [ "$mode" = preemptive ]; then
            LD_LIBRARY_PATH="$ROOT/target/release" MONO_THREADS_SUSPEND=preemptive \
                mono --optimize=all "$OUT/OnityBench.exe" "$@" > "$OUT/bench-$mode-$n.txt"
        else
            env -u MONO_THREADS_SUSPEND LD_LIBRARY_PATH="$ROOT/target/release" \
                mono --optimize=all "$OUT/OnityBench.exe" "$@" > "$OUT/bench-$mode-$n.txt"
        fi
        grep -v -e '^RESULT' -e '^RATIO' -e '^CONTROL' "$OUT/bench-$mode-$n.txt" >&2
    done
done

python3 - "$OUT" <<'PY'
import sys, os, collections, datetime
out = sys.argv[1]
MODES = ("preemptive", "default")
res = collections.OrderedDict()   # scenario -> impl -> mode -> [(min, median, mean, B/op, crossings/op)]
rat = collections.OrderedDict()   # scenario -> (a, b) -> mode -> [(median of round ratios, ratio of minima)]
header = ""
for n in (1, 2, 3):
    for mode in MODES:
        path = os.path.join(out, "bench-%s-%d.txt" % (mode, n))
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
L.append("# C# binding benchmark (Mono 6.8, `mono --optimize=all`)")
L.append("")
L.append("Generated by `scripts/bench-csharp.sh` on %s UTC; %d CPUs; load average at the end %s." % (datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M"), os.cpu_count(), " ".join(load)))
L.append("Clock: %s." % ("thread CPU time (ONITY_BENCH_CLOCK=thread: excludes time the benchmark thread was descheduled)" if os.environ.get("ONITY_BENCH_CLOCK") == "thread" else "wall clock (Stopwatch); ONITY_BENCH_CLOCK=thread gives thread CPU time"))
L.append("First process: `%s`." % header)
L.append("")
L.append("Three processes per suspend mode, alternating. In each process every scenario runs 5 warm-up sets of every implementation, then 50 rounds of one measured set per implementation (order rotating), every set validated. "
         "**min** = the best of the three processes' minima over 50 sets (the seed's statistic); **median** = the range of the three processes' medians. "
         "`onity` = this binding, context flow on (the default); `onity-flowoff` = the same tasks with `OnityContextFlow.Enabled = false` during its sets; "
         "`unitask` = the same workload with UniTask 2.2.5 (npm, compiled into the program, driven through the UnityEngine stand-in's player loop; UniTask flows no ExecutionContext); "
         "`tpl` = System.Threading.Tasks. B/op = GC.GetAllocatedBytesForCurrentThread over the measured sets per op (largest of the six processes); crossings/op = P/Invoke calls per op (OnityNativeCalls).")
L.append("")
L.append("| Scenario | impl | min preemptive | median preemptive | min hybrid | median hybrid | B/op | crossings/op |")
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
L.append("Side-by-side ratios (below 1: Onity faster). Per process: the median over the 50 rounds of (Onity set time / other set time in the same round); cells give the range over the three processes, then the ratio of the best minima.")
L.append("")
L.append("| Scenario | ratio | preemptive: median of round ratios | hybrid: median of round ratios | ratio of best minima (preemptive / hybrid) |")
L.append("|---|---|---:|---:|---:|")
for scen, d in rat.items():
    for (a, b), m in d.items():
        def best_ratio(mode):
            ra = res[scen][a].get(mode); rb = res[scen][b].get(mode)
            return "%.2f" % (min(x[0] for x in ra) / min(x[0] for x in rb)) if ra and rb else "–"
        L.append("| %s | %s / %s | %s | %s | %s / %s |" % (scen, a, b,
                 rrng([x[0] for x in m.get("preemptive", [])]) if m.get("preemptive") else "–",
                 rrng([x[0] for x in m.get("default", [])]) if m.get("default") else "–",
                 best_ratio("preemptive"), best_ratio("default")))
table = "\n".join(L) + "\n"
path = "docs/csharp_bench.md"
begin, end = "<!-- bench:begin (generated by scripts/bench-csharp.sh) -->", "<!-- bench:end -->"
text = open(path).read() if os.path.exists(path) else "%s\n%s\n" % (begin, end)
if begin not in text: text = "%s\n%s\n\n" % (begin, end) + text
pre, rest = text.split(begin, 1)
_, post = rest.split(end, 1)
open(path, "w").write(pre + begin + "\n" + table + end + post)
PY
echo "results written to docs/csharp_bench.md (between the bench markers)" >&2
