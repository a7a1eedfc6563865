using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Threading.Tasks;
using Onity.Native;

namespace Onity.Bench
{
    /// <summary>Benchmarks of the C# binding against the same workloads written with
    /// System.Threading.Tasks, in one process. Each scenario: warm-up batches, then measured
    /// batches; every batch is validated (counts / results); reported: mean ns/op over the
    /// measured batches with min-max of the batch means, GC bytes/op
    /// (GC.GetAllocatedBytesForCurrentThread) and native crossings/op (OnityNativeCalls.Crossings).
    /// Machine-readable lines start with "RESULT\t".</summary>
    public static class Program
    {
        const int Warm = 2, Batches = 6;
        static OnityRuntime rt;
        static ulong frame;
        static bool stop;
        static long resumed;

        sealed class Stat
        {
            public double MeanNs, MinNs, MaxNs, Bytes, Crossings;
        }

        static bool noTpl; // argument "notpl": skip the TPL side (for profiles)

        // ONITY_BENCH_CLOCK=thread: time batches with the thread's CPU clock
        // (clock_gettime(CLOCK_THREAD_CPUTIME_ID)) instead of the wall clock: on a shared machine
        // it excludes the time the benchmark thread was descheduled.
        static readonly bool threadClock = Environment.GetEnvironmentVariable("ONITY_BENCH_CLOCK") == "thread";

        struct Timespec { public long sec, nsec; }
        [System.Runtime.InteropServices.DllImport("libc", EntryPoint = "clock_gettime")]
        static extern int clock_gettime(int clock, out Timespec ts);

        static double NowNs()
        {
            if (!threadClock) return Stopwatch.GetTimestamp() * (1e9 / Stopwatch.Frequency);
            Timespec ts;
            clock_gettime(3 /* CLOCK_THREAD_CPUTIME_ID */, out ts);
            return ts.sec * 1e9 + ts.nsec;
        }

        static void Report(string scenario, string impl, Stat s)
        {
            Console.WriteLine("{0,-44} {1,-6} {2,10:F1} ns/op  [{3:F1}-{4:F1}]  {5,8:F2} B/op  {6,8:F5} crossings/op",
                scenario, impl, s.MeanNs, s.MinNs, s.MaxNs, s.Bytes, s.Crossings);
            Console.WriteLine("RESULT\t{0}\t{1}\t{2:F2}\t{3:F2}\t{4:F2}\t{5:F3}\t{6:F6}", scenario, impl, s.MeanNs, s.MinNs, s.MaxNs, s.Bytes, s.Crossings);
        }

        /// <summary>Runs batch(opsPerBatch) Warm + Batches times; batch returns the number of
        /// operations it performed (validated by the caller's lambda).</summary>
        static Stat Measure(Func<long> batch)
        {
            for (int i = 0; i < Warm; i++) batch();
            var s = new Stat { MinNs = double.MaxValue };
            double total = 0, bytes = 0, cross = 0;
            long ops = 0;
            for (int i = 0; i < Batches; i++)
            {
                long b0 = GC.GetAllocatedBytesForCurrentThread();
                long c0 = OnityNativeCalls.Crossings;
                double t0 = NowNs();
                long n = batch();
                double t1 = NowNs();
                long c1 = OnityNativeCalls.Crossings;
                long b1 = GC.GetAllocatedBytesForCurrentThread();
                double ns = (t1 - t0) / n;
                s.MinNs = Math.Min(s.MinNs, ns);
                s.MaxNs = Math.Max(s.MaxNs, ns);
                total += ns;
                bytes += b1 - b0;
                cross += c1 - c0;
                ops += n;
            }
            s.MeanNs = total / Batches;
            s.Bytes = bytes / ops;
            s.Crossings = cross / ops;
            return s;
        }

        static void Check(bool ok, string what)
        {
            if (!ok) throw new Exception("validation failed: " + what);
        }

        static void Frame()
        {
            frame++;
            rt.BeginFrame(frame, 1.0 / 60, 1.0 / 60, frame / 60.0);
            rt.Tick(OnityTiming.Update);
        }

        // ---- frame waits ---------------------------------------------------------------------

        static async OnityTask NextFrameLoop()
        {
            while (!stop) { await OnityTask.NextFrame(); resumed++; }
        }

        static async OnityTask YieldLoop()
        {
            while (!stop) { await OnityTask.Yield(); resumed++; }
        }

        static async OnityTask DelayFrameLoop()
        {
            while (!stop) { await OnityTask.DelayFrame(1); resumed++; }
        }

        static TaskCompletionSource<bool> frameTcs = new TaskCompletionSource<bool>();

        static async Task TplFrameLoop()
        {
            while (!stop) { await frameTcs.Task; resumed++; }
        }

        static void TplFrame()
        {
            var t = frameTcs;
            frameTcs = new TaskCompletionSource<bool>();
            t.SetResult(true);
        }

        static void FrameScenario(string name, Func<OnityTask> start, int n, int frames)
        {
            stop = false;
            resumed = 0;
            var tasks = new OnityTask[n];
            for (int i = 0; i < n; i++) tasks[i] = start();
            Frame(); // first resumption of every loop
            var s = Measure(() =>
            {
                long r0 = resumed;
                for (int f = 0; f < frames; f++) Frame();
                Check(resumed - r0 == (long)frames * n, name + ": every task resumed once per frame");
                return (long)frames * n;
            });
            stop = true;
            Frame();
            Frame();
            foreach (var t in tasks) { Check(t.Status == OnityTaskStatus.Succeeded, name + " ended"); t.GetAwaiter().GetResult(); }
            Report(name + ", " + n + " tasks", "onity", s);
        }

        static void TplFrameScenario(string name, int n, int frames)
        {
            if (noTpl) return;
            stop = false;
            resumed = 0;
            var tasks = new Task[n];
            for (int i = 0; i < n; i++) tasks[i] = TplFrameLoop();
            TplFrame();
            var s = Measure(() =>
            {
                long r0 = resumed;
                for (int f = 0; f < frames; f++) TplFrame();
                Check(resumed - r0 == (long)frames * n, name + " (TPL)");
                return (long)frames * n;
            });
            stop = true;
            TplFrame();
            foreach (var t in tasks) t.GetAwaiter().GetResult();
            Report(name + ", " + n + " tasks", "tpl", s);
        }

        // ---- completed async methods ------------------------------------------------------

#pragma warning disable 1998
        static async OnityTask<int> CompletedTyped(int x) { return x + 1; }
        static async OnityTask CompletedUntyped() { }
        static async Task<int> TplCompletedTyped(int x) { return x + 1; }
        static async Task TplCompletedUntyped() { }
#pragma warning restore 1998

        static void CompletedScenarios()
        {
            const int n = 1000000;
            var s = Measure(() =>
            {
                long acc = 0;
                for (int i = 0; i < n; i++) acc += CompletedTyped(i).GetAwaiter().GetResult();
                Check(acc == (long)n * (n + 1) / 2, "typed sum");
                return n;
            });
            Report("completed async method + GetResult, typed", "onity", s);
            s = Measure(() =>
            {
                for (int i = 0; i < n; i++) CompletedUntyped().GetAwaiter().GetResult();
                return n;
            });
            Report("completed async method + GetResult, untyped", "onity", s);
            if (noTpl) return;
            s = Measure(() =>
            {
                long acc = 0;
                for (int i = 0; i < n; i++) acc += TplCompletedTyped(i).GetAwaiter().GetResult();
                Check(acc == (long)n * (n + 1) / 2, "typed sum");
                return n;
            });
            Report("completed async method + GetResult, typed", "tpl", s);
            s = Measure(() =>
            {
                for (int i = 0; i < n; i++) TplCompletedUntyped().GetAwaiter().GetResult();
                return n;
            });
            Report("completed async method + GetResult, untyped", "tpl", s);
        }

        // ---- manual source completed later --------------------------------------------------

        static AutoResetOnityCompletionSource<int> pending;
        static TaskCompletionSource<int> tplPending;

        static async OnityTask<long> AwaitSources(int n)
        {
            long sum = 0;
            for (int i = 0; i < n; i++)
            {
                var s = AutoResetOnityCompletionSource<int>.Create();
                pending = s;
                sum += await s.Task;
            }
            return sum;
        }

        static async Task<long> TplAwaitSources(int n)
        {
            long sum = 0;
            for (int i = 0; i < n; i++)
            {
                var s = new TaskCompletionSource<int>();
                tplPending = s;
                sum += await s.Task;
            }
            return sum;
        }

        static void ManualSourceScenario(string suffix)
        {
            const int n = 300000;
            var s = Measure(() =>
            {
                var t = AwaitSources(n);
                for (int i = 0; i < n; i++) pending.TrySetResult(1);
                Check(t.GetAwaiter().GetResult() == n, "sum");
                return n;
            });
            Report("await of a manual source completed later" + suffix, "onity", s);
            if (noTpl) return;
            s = Measure(() =>
            {
                var t = TplAwaitSources(n);
                for (int i = 0; i < n; i++) tplPending.SetResult(1);
                Check(t.GetAwaiter().GetResult() == n, "sum");
                return n;
            });
            Report("await of a manual source completed later" + suffix, "tpl", s);
        }

        // ---- builder cycle ---------------------------------------------------------------------

        static async OnityTask<int> Cycle(AutoResetOnityCompletionSource<int> s) { return await s.Task + 1; }
        static async Task<int> TplCycle(TaskCompletionSource<int> s) { return await s.Task + 1; }

        static void BuilderCycleScenario(string suffix)
        {
            const int conc = 128, rounds = 2000;
            var srcs = new AutoResetOnityCompletionSource<int>[conc];
            var tasks = new OnityTask<int>[conc];
            var s = Measure(() =>
            {
                long sum = 0;
                for (int r = 0; r < rounds; r++)
                {
                    for (int i = 0; i < conc; i++) { srcs[i] = AutoResetOnityCompletionSource<int>.Create(); tasks[i] = Cycle(srcs[i]); }
                    for (int i = 0; i < conc; i++) srcs[i].TrySetResult(i);
                    for (int i = 0; i < conc; i++) sum += tasks[i].GetAwaiter().GetResult();
                }
                Check(sum == (long)rounds * conc * (conc + 1) / 2, "cycle sum");
                return (long)rounds * conc;
            });
            Report("builder cycle (1 suspension, 128 concurrent)" + suffix, "onity", s);
            if (noTpl) return;
            var tsrcs = new TaskCompletionSource<int>[conc];
            var ttasks = new Task<int>[conc];
            s = Measure(() =>
            {
                long sum = 0;
                for (int r = 0; r < rounds; r++)
                {
                    for (int i = 0; i < conc; i++) { tsrcs[i] = new TaskCompletionSource<int>(); ttasks[i] = TplCycle(tsrcs[i]); }
                    for (int i = 0; i < conc; i++) tsrcs[i].SetResult(i);
                    for (int i = 0; i < conc; i++) sum += ttasks[i].GetAwaiter().GetResult();
                }
                Check(sum == (long)rounds * conc * (conc + 1) / 2, "cycle sum");
                return (long)rounds * conc;
            });
            Report("builder cycle (1 suspension, 128 concurrent)" + suffix, "tpl", s);
        }

        // ---- WhenAny ---------------------------------------------------------------------------

        static void WhenAnyScenario(int n)
        {
            int groups = n <= 2 ? 100000 : n <= 16 ? 20000 : 10000;
            var srcs = new AutoResetOnityCompletionSource[n];
            var tasks = new OnityTask[n];
            var s = Measure(() =>
            {
                for (int g = 0; g < groups; g++)
                {
                    for (int i = 0; i < n; i++) { srcs[i] = AutoResetOnityCompletionSource.Create(); tasks[i] = srcs[i].Task; }
                    var any = OnityTask.WhenAny(tasks);
                    for (int i = n - 1; i >= 0; i--) srcs[i].TrySetResult();
                    if (any.GetAwaiter().GetResult() != n - 1) Check(false, "WhenAny winner");
                }
                return groups;
            });
            Report("WhenAny(" + n + "): build, complete all in reverse, consume (per group)", "onity", s);
            if (noTpl) return;
            var tsrcs = new TaskCompletionSource<bool>[n];
            var ttasks = new Task<bool>[n];
            s = Measure(() =>
            {
                for (int g = 0; g < groups; g++)
                {
                    for (int i = 0; i < n; i++) { tsrcs[i] = new TaskCompletionSource<bool>(); ttasks[i] = tsrcs[i].Task; }
                    var any = Task.WhenAny(ttasks);
                    for (int i = n - 1; i >= 0; i--) tsrcs[i].SetResult(true);
                    if (any.GetAwaiter().GetResult() != ttasks[n - 1]) Check(false, "Task.WhenAny winner");
                }
                return groups;
            });
            Report("WhenAny(" + n + "): build, complete all in reverse, consume (per group)", "tpl", s);
        }

        public static int Main(string[] args)
        {
            string mode = Environment.GetEnvironmentVariable("MONO_THREADS_SUSPEND") ?? "default (hybrid)";
            Console.WriteLine("# Onity C# binding benchmark; MONO_THREADS_SUSPEND=" + mode + "; " + Environment.ProcessorCount + " CPUs; context flow " + (OnityContextFlow.Enabled ? "on" : "off") + " (fast capture bound: " + OnityContextFlow.UsesFastCapture + "); clock " + (threadClock ? "thread CPU time" : "wall"));
            var total = Stopwatch.StartNew();
            rt = new OnityRuntime(65536);
            Frame();

            // Optional arguments: substrings selecting groups (nextframe, yield, completed, manual,
            // cycle, whenany, flowoff); none = everything (what scripts/bench-csharp.sh runs).
            noTpl = Array.IndexOf(args, "notpl") >= 0;
            int groupArgs = args.Length - (noTpl ? 1 : 0);
            Func<string, bool> on = g => groupArgs == 0 || Array.Exists(args, a => a != "notpl" && g.Contains(a));
            if (on("nextframe"))
                foreach (int n in new[] { 128, 4096, 50000 })
                {
                    int frames = n == 128 ? 2000 : n == 4096 ? 100 : 10;
                    FrameScenario("NextFrame cycle (ns per task-frame)", NextFrameLoop, n, frames);
                    TplFrameScenario("NextFrame cycle (ns per task-frame)", n, frames);
                }
            if (on("yield delayframe"))
                foreach (int n in new[] { 128, 4096, 50000 })
                {
                    int frames = n == 128 ? 2000 : n == 4096 ? 100 : 10;
                    FrameScenario("Yield cycle (ns per task-frame)", YieldLoop, n, frames);
                    FrameScenario("DelayFrame(1) cycle (ns per task-frame)", DelayFrameLoop, n, frames);
                }
            if (on("completed")) CompletedScenarios();
            if (on("manual")) ManualSourceScenario("");
            if (on("cycle")) BuilderCycleScenario("");
            if (on("whenany")) foreach (int n in new[] { 2, 16, 32 }) WhenAnyScenario(n);

            if (on("flowoff"))
            {
                OnityContextFlow.Enabled = false;
                FrameScenario("NextFrame cycle, flow off (ns per task-frame)", NextFrameLoop, 4096, 100);
                FrameScenario("Yield cycle, flow off (ns per task-frame)", YieldLoop, 4096, 100);
                ManualSourceScenario(", flow off");
                BuilderCycleScenario(", flow off");
                OnityContextFlow.Enabled = true;
            }

            var m = rt.GetManagedStats();
            Console.WriteLine("# end state: " + m);
            Check(m.PendingWaits == 0 && m.CompletedUnconsumedWaits == 0, "no waits left");
            rt.Dispose();
            Console.WriteLine("# total " + total.Elapsed.TotalSeconds.ToString("F1") + " s");
            return 0;
        }
    }
}
