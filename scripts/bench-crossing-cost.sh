#!/usr/bin/env bash
# The cost of one boundary crossing each way on Mono, in both thread-suspend modes: a P/Invoke
# (managed -> native: what Onity's frame driver pays per onity_batch_tick) and a reverse P/Invoke
# (native -> managed through a delegate's function pointer: the stand-in for what Unity's player
# loop pays to enter every managed PlayerLoopSystem.updateDelegate — UniTask's two systems per
# timing and Onity's one — which the C# benchmark does not charge either library). Minimum over
# 2000 sets of 5000 calls (short sets, so that some run undisturbed on a loaded machine), two
# processes per mode, alternating. Prints one line per process. About 10 seconds.
set -euo pipefail
OUT="${ONITY_CS_OUT:-$(cd "$(dirname "$0")/.." && pwd)/target/csharp}/crossing"
mkdir -p "$OUT"
cat > "$OUT/entry.c" <<'C'
#include <stdint.h>
typedef void (*cb_t)(void);
void entry_empty(void) {}
/* n native -> managed calls, as a player loop enters its managed systems */
void entry_call_n(cb_t cb, int32_t n) { for (int32_t i = 0; i < n; i++) cb(); }
C
cat > "$OUT/Entry.cs" <<'CS'
using System;
using System.Diagnostics;
using System.Runtime.InteropServices;
static class Entry
{
    [UnmanagedFunctionPointer(CallingConvention.Cdecl)] delegate void Cb();
    [DllImport("entry", CallingConvention = CallingConvention.Cdecl)] static extern void entry_empty();
    [DllImport("entry", CallingConvention = CallingConvention.Cdecl)] static extern void entry_call_n(IntPtr cb, int n);
    static long hits;
    static void OnCall() { hits++; }
    static readonly Cb keep = OnCall;
    static void Main()
    {
        IntPtr fp = Marshal.GetFunctionPointerForDelegate(keep);
        const int N = 5000, Sets = 2000;
        double bestP = double.MaxValue, bestR = double.MaxValue;
        for (int set = 0; set < Sets; set++)
        {
            var sw = Stopwatch.StartNew();
            for (int i = 0; i < N; i++) entry_empty();
            bestP = Math.Min(bestP, sw.Elapsed.TotalMilliseconds * 1e6 / N);
            long h0 = hits;
            sw = Stopwatch.StartNew();
            entry_call_n(fp, N);
            bestR = Math.Min(bestR, sw.Elapsed.TotalMilliseconds * 1e6 / N);
            if (hits - h0 != N) throw new Exception("callback count");
        }
        Console.WriteLine("{0,-11} P/Invoke {1,6:F1} ns   reverse P/Invoke {2,6:F1} ns   (min of {3} sets of {4})",
            Environment.GetEnvironmentVariable("MONO_THREADS_SUSPEND") ?? "hybrid", bestP, bestR, Sets, N);
    }
}
CS
gcc -O2 -shared -fPIC -o "$OUT/libentry.so" "$OUT/entry.c"
mcs -nologo -out:"$OUT/Entry.exe" "$OUT/Entry.cs"
for n in 1 2; do
    LD_LIBRARY_PATH="$OUT" MONO_THREADS_SUSPEND=preemptive mono --optimize=all "$OUT/Entry.exe"
    env -u MONO_THREADS_SUSPEND LD_LIBRARY_PATH="$OUT" mono --optimize=all "$OUT/Entry.exe"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
