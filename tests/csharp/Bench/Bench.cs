using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Threading.Tasks;
using Onity.Native;

namespace Onity.Bench
{
    /// <summary>Benchmarks of the C# binding side by side with the same workloads written with
    /// UniTask (when compiled in: see UniTaskSide.cs) and with System.Threading.Tasks, in one
    /// process. Method (the seed's): per scenario, 5 warm-up sets of every implementation, then
    /// 50 rounds in which every implementation runs one measured set, in a random order drawn
    /// afresh each round; every set is validated (counts, sums, winners). Reported per
    /// implementation: the minimum, median and mean ns/op over its 50 sets, GC bytes/op
    /// (GC.GetAllocatedBytesForCurrentThread over the measured sets) and native crossings/op
    /// (OnityNativeCalls.Crossings); per pair, the median over the 50 rounds of the ratio of the
    /// two sets of that round. Allocation controls first: a set that allocates nothing must
    /// measure 0 bytes, and one that allocates 1,000 arrays of 1 KiB at least 1,024 B per array,
    /// or the run fails. Machine-readable lines start with "RESULT\t", "RATIO\t", "CONTROL\t".</summary>
    public static partial class Program
    {
        const int Warm = 5;
        // ONITY_BENCH_SETS=N: measured sets per implementation (default 50, the seed's count;
        // scripts/profile-csharp.sh raises it so the profile is not start-up and JIT).
        static readonly int Sets = SetsFromEnvironment();

        static int SetsFromEnvironment()
        {
            var v = Environment.GetEnvironmentVariable("ONITY_BENCH_SETS");
            if (string.IsNullOrEmpty(v)) return 50;
            int n;
            if (!int.TryParse(v, out n) || n < 1) throw new ArgumentException("ONITY_BENCH_SETS must be a positive integer, not '" + v + "'");
            return n;
        }
        static OnityRuntime rt;
        static ulong frame;
        static bool stop;
        static long resumed;

        /// <summary>One implementation of a scenario: a set runs some operations, validates
        /// them and returns how many it ran.</summary>
        sealed class Impl
        {
            public readonly string Name;
            public readonly Func<long> Set;
            public readonly double[] Ns = new double[Sets];
            public double Bytes, Crossings;
            public long Ops;
            public Impl(string name, Func<long> set) { Name = name; Set = set; }
        }

        static bool variantRatios; // Compare: also ratios of onity-* to onity (FrameProtocolBench.cs)
        static bool noTpl; // argument "notpl": skip the TPL side (for profiles)
        static string only; // argument "only=NAME": run only that implementation (for profiles)

        // ONITY_BENCH_CLOCK=thread: time sets with the thread's CPU clock
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

        static void Check(bool ok, string what)
        {
            if (!ok) throw new Exception("validation failed: " + what);
        }

        /// <summary>Runs one measured set of <paramref name="im"/> and records it as round r.</summary>
        static void RunSet(Impl im, int r)
        {
            long b0 = GC.GetAllocatedBytesForCurrentThread();
            long c0 = OnityNativeCalls.Crossings;
            double t0 = NowNs();
            long n = im.Set();
            double t1 = NowNs();
            long c1 = OnityNativeCalls.Crossings;
            long b1 = GC.GetAllocatedBytesForCurrentThread();
            Check(n > 0, im.Name + ": a set ran no operation");
            im.Ns[r] = (t1 - t0) / n;
            im.Bytes += b1 - b0;
            im.Crossings += c1 - c0;
            im.Ops += n;
        }

        static double Median(double[] v)
        {
            var s = (double[])v.Clone();
            Array.Sort(s);
            return s.Length % 2 == 1 ? s[s.Length / 2] : (s[s.Length / 2 - 1] + s[s.Length / 2]) / 2;
        }

        static double Min(double[] v) { double m = double.MaxValue; foreach (var x in v) m = Math.Min(m, x); return m; }
        static double Max(double[] v) { double m = double.MinValue; foreach (var x in v) m = Math.Max(m, x); return m; }
        static double Mean(double[] v) { double s = 0; foreach (var x in v) s += x; return s / v.Length; }

        /// <summary>Measures the given implementations side by side (null entries are left out:
        /// a column not compiled in or switched off) and reports them.</summary>
        static void Compare(string scenario, params Impl[] impls)
        {
            var list = new List<Impl>();
            foreach (var im in impls)
                if (im != null && !(noTpl && im.Name == "tpl") && (only == null || im.Name == only)) list.Add(im);
            if (list.Count == 0) return;
            for (int w = 0; w < Warm; w++)
                foreach (var im in list) im.Set();
            // Each round runs the implementations in a fresh random order (fixed seed): every
            // implementation follows every other about equally often, so what one leaves behind
            // (TPL's garbage, evicted caches) does not fall on one of them more than another.
            var rng = new Random(20261130);
            var order = new int[list.Count];
            for (int r = 0; r < Sets; r++)
            {
                for (int k = 0; k < order.Length; k++) order[k] = k;
                for (int k = order.Length - 1; k > 0; k--)
                {
                    int j = rng.Next(k + 1);
                    int x = order[k]; order[k] = order[j]; order[j] = x;
                }
                for (int k = 0; k < order.Length; k++) RunSet(list[order[k]], r);
            }
            foreach (var im in list)
            {
                double bytes = im.Bytes / im.Ops, cross = im.Crossings / im.Ops;
                Console.WriteLine("{0,-52} {1,-13} min {2,9:F1}  median {3,9:F1}  mean {4,9:F1} ns/op  {5,8:F2} B/op  {6,8:F5} crossings/op",
                    scenario, im.Name, Min(im.Ns), Median(im.Ns), Mean(im.Ns), bytes, cross);
                Console.WriteLine("RESULT\t{0}\t{1}\t{2:F2}\t{3:F2}\t{4:F2}\t{5:F2}\t{6:F3}\t{7:F6}",
                    scenario, im.Name, Min(im.Ns), Median(im.Ns), Mean(im.Ns), Max(im.Ns), bytes, cross);
                Console.WriteLine("OPS\t{0}\t{1}\t{2}", scenario, im.Name, im.Ops / Sets); // per set: scripts/icount-bench-csharp.sh
            }
            foreach (var a in list)
            {
                if (!a.Name.StartsWith("onity")) continue;
                foreach (var b in list)
                {
                    // Onity against the other libraries; with variantRatios also each variant
                    // against plain onity (FrameProtocolBench.cs).
                    if (b.Name.StartsWith("onity") && !(variantRatios && b.Name == "onity" && a != b)) continue;
                    var q = new double[Sets];
                    for (int r = 0; r < Sets; r++) q[r] = a.Ns[r] / b.Ns[r];
                    Console.WriteLine("{0,-52} {1}/{2}: median of round ratios {3:F3}, ratio of minima {4:F3}",
                        scenario, a.Name, b.Name, Median(q), Min(a.Ns) / Min(b.Ns));
                    Console.WriteLine("RATIO\t{0}\t{1}\t{2}\t{3:F4}\t{4:F4}", scenario, a.Name, b.Name, Median(q), Min(a.Ns) / Min(b.Ns));
                }
            }
        }

        /// <summary>An implementation run with context flow switched off for its sets.</summary>
        static Impl FlowOff(Impl im)
        {
            var set = im.Set;
            return new Impl(im.Name + "-flowoff", () =>
            {
                OnityContextFlow.Enabled = false;
                try { return set(); }
                finally { OnityContextFlow.Enabled = true; }
            });
        }

        // ---- allocation controls ---------------------------------------------------------------

        static object sink;

        static void AllocationControls()
        {
            var empty = new Impl("empty", () => { sink = null; return 1000; });
            var positive = new Impl("positive", () =>
            {
                for (int i = 0; i < 1000; i++) sink = new byte[1024];
                return 1000;
            });
            foreach (var im in new[] { empty, positive })
            {
                for (int w = 0; w < Warm; w++) im.Set();
                for (int r = 0; r < Sets; r++) RunSet(im, r);
            }
            double e = empty.Bytes / empty.Ops, p = positive.Bytes / positive.Ops;
            Console.WriteLine("allocation controls: empty set {0:F2} B/op (must be 0), 1 KiB arrays {1:F2} B/op (must be >= 1024)", e, p);
            Console.WriteLine("CONTROL\tempty\t{0:F3}\nCONTROL\tpositive\t{1:F3}", e, p);
            Check(empty.Bytes == 0, "empty allocation control measured " + empty.Bytes + " bytes");
            Check(p >= 1024 && sink is byte[], "positive allocation control measured " + p + " B per 1 KiB array");
        }

        // ---- frame waits ---------------------------------------------------------------------

        static void Frame()
        {
            frame++;
            rt.BeginFrame(frame, 1.0 / 60, 1.0 / 60, frame / 60.0);
            rt.Tick(OnityTiming.Update);
        }

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
        static bool tplStop;
        static long tplResumed;

        static async Task TplFrameLoop()
        {
            while (!tplStop) { await frameTcs.Task; tplResumed++; }
        }

        static void TplFrame()
        {
            var t = frameTcs;
            frameTcs = new TaskCompletionSource<bool>();
            t.SetResult(true);
        }

        /// <summary>n tasks of each implementation awaiting the given frame wait in a loop; a set
        /// runs <paramref name="frames"/> frames of one implementation. TPL (one shared
        /// TaskCompletionSource per frame) only for NextFrame. <paramref name="whole"/>: whole
        /// frames (every timing ticked, FrameProtocolBench.cs), no TPL, the frame-protocol
        /// variants beside.</summary>
        static void FrameScenario(string kind, int n, int frames, bool flowOffToo, bool whole = false)
        {
            string name = (kind == "nextframe" ? "NextFrame" : kind == "yield" ? "Yield" : "DelayFrame(1)")
                + (whole ? " loop, whole frames" : " cycle") + " (ns per task-frame), " + n + (n == 1 ? " task" : " tasks");
            stop = false;
            resumed = 0;
            var tasks = new OnityTask[n];
            for (int i = 0; i < n; i++) tasks[i] = kind == "nextframe" ? NextFrameLoop() : kind == "yield" ? YieldLoop() : DelayFrameLoop();
            if (whole) WholeFrame(); else Frame(); // first resumption of every loop
            // Messages built once: a string built in a set would count as the set's allocation.
            string everyOnce = name + ": every task resumed once per frame", tplEveryOnce = name + " (TPL)";
            var onity = new Impl("onity", () =>
            {
                long r0 = resumed;
                if (whole) for (int f = 0; f < frames; f++) WholeFrame();
                else for (int f = 0; f < frames; f++) Frame();
                Check(resumed - r0 == (long)frames * n, everyOnce);
                return (long)frames * n;
            });

            Action utStop;
            var ut = UtFrameLoops(kind, n, frames, out utStop, whole);

            Impl tpl = null;
            Task[] tplTasks = null;
            if (kind == "nextframe" && !noTpl && !whole)
            {
                tplStop = false;
                tplResumed = 0;
                tplTasks = new Task[n];
                for (int i = 0; i < n; i++) tplTasks[i] = TplFrameLoop();
                TplFrame();
                tpl = new Impl("tpl", () =>
                {
                    long r0 = tplResumed;
                    for (int f = 0; f < frames; f++) TplFrame();
                    Check(tplResumed - r0 == (long)frames * n, tplEveryOnce);
                    return (long)frames * n;
                });
            }

            if (whole) CompareToMain(name, onity, ut);
            else Compare(name, onity, flowOffToo ? FlowOff(onity) : null, ut, tpl);

            stop = true;
            for (int f = 0; f < 2; f++) { if (whole) WholeFrame(); else Frame(); }
            foreach (var t in tasks) { Check(t.Status == OnityTaskStatus.Succeeded, name + " ended"); t.GetAwaiter().GetResult(); }
            utStop();
            if (tplTasks != null)
            {
                tplStop = true;
                TplFrame();
                foreach (var t in tplTasks) t.GetAwaiter().GetResult();
            }
        }

        // ---- completed async methods ------------------------------------------------------

        // The untyped methods count their runs, so that their sets can be validated (each
        // implementation's method does the same increment).
        internal static long untypedRuns;

#pragma warning disable 1998
        static async OnityTask<int> CompletedTyped(int x) { return x + 1; }
        static async OnityTask CompletedUntyped() { untypedRuns++; }
        static async Task<int> TplCompletedTyped(int x) { return x + 1; }
        static async Task TplCompletedUntyped() { untypedRuns++; }
#pragma warning restore 1998

        static void CompletedScenarios()
        {
            const int n = 100000;
            Compare("completed async method + GetResult, typed",
                new Impl("onity", () =>
                {
                    long acc = 0;
                    for (int i = 0; i < n; i++) acc += CompletedTyped(i).GetAwaiter().GetResult();
                    Check(acc == (long)n * (n + 1) / 2, "typed sum");
                    return n;
                }),
                UtCompleted(true, n),
                new Impl("tpl", () =>
                {
                    long acc = 0;
                    for (int i = 0; i < n; i++) acc += TplCompletedTyped(i).GetAwaiter().GetResult();
                    Check(acc == (long)n * (n + 1) / 2, "TPL typed sum");
                    return n;
                }));
            Compare("completed async method + GetResult, untyped",
                new Impl("onity", () =>
                {
                    long r0 = untypedRuns;
                    for (int i = 0; i < n; i++) CompletedUntyped().GetAwaiter().GetResult();
                    Check(untypedRuns - r0 == n, "untyped runs");
                    return n;
                }),
                UtCompleted(false, n),
                new Impl("tpl", () =>
                {
                    long r0 = untypedRuns;
                    for (int i = 0; i < n; i++) TplCompletedUntyped().GetAwaiter().GetResult();
                    Check(untypedRuns - r0 == n, "TPL untyped runs");
                    return n;
                }));
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

        static void ManualSourceScenario()
        {
            const int n = 30000;
            var onity = new Impl("onity", () =>
            {
                var t = AwaitSources(n);
                for (int i = 0; i < n; i++) pending.TrySetResult(1);
                Check(t.GetAwaiter().GetResult() == n, "sum");
                return n;
            });
            Compare("await of a manual source completed later", onity, FlowOff(onity), UtManual(n),
                new Impl("tpl", () =>
                {
                    var t = TplAwaitSources(n);
                    for (int i = 0; i < n; i++) tplPending.SetResult(1);
                    Check(t.GetAwaiter().GetResult() == n, "TPL sum");
                    return n;
                }));
        }

        // ---- builder cycle ---------------------------------------------------------------------

        static async OnityTask<int> Cycle(AutoResetOnityCompletionSource<int> s) { return await s.Task + 1; }
        static async Task<int> TplCycle(TaskCompletionSource<int> s) { return await s.Task + 1; }

        static void BuilderCycleScenario()
        {
            const int conc = 128, rounds = 100;
            var srcs = new AutoResetOnityCompletionSource<int>[conc];
            var tasks = new OnityTask<int>[conc];
            var onity = new Impl("onity", () =>
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
            var tsrcs = new TaskCompletionSource<int>[conc];
            var ttasks = new Task<int>[conc];
            Compare("builder cycle (1 suspension, 128 concurrent)", onity, FlowOff(onity), UtBuilderCycle(conc, rounds),
                new Impl("tpl", () =>
                {
                    long sum = 0;
                    for (int r = 0; r < rounds; r++)
                    {
                        for (int i = 0; i < conc; i++) { tsrcs[i] = new TaskCompletionSource<int>(); ttasks[i] = TplCycle(tsrcs[i]); }
                        for (int i = 0; i < conc; i++) tsrcs[i].SetResult(i);
                        for (int i = 0; i < conc; i++) sum += ttasks[i].GetAwaiter().GetResult();
                    }
                    Check(sum == (long)rounds * conc * (conc + 1) / 2, "TPL cycle sum");
                    return (long)rounds * conc;
                }));
        }

        // ---- WhenAny ---------------------------------------------------------------------------

        static void WhenAnyScenario(int n)
        {
            int groups = n <= 2 ? 10000 : n <= 16 ? 2000 : 1000;
            var srcs = new AutoResetOnityCompletionSource[n];
            var tasks = new OnityTask[n];
            var tsrcs = new TaskCompletionSource<bool>[n];
            var ttasks = new Task<bool>[n];
            Compare("WhenAny(" + n + "): build, complete all in reverse, consume (per group)",
                new Impl("onity", () =>
                {
                    for (int g = 0; g < groups; g++)
                    {
                        for (int i = 0; i < n; i++) { srcs[i] = AutoResetOnityCompletionSource.Create(); tasks[i] = srcs[i].Task; }
                        var any = OnityTask.WhenAny(tasks);
                        for (int i = n - 1; i >= 0; i--) srcs[i].TrySetResult();
                        if (any.GetAwaiter().GetResult() != n - 1) Check(false, "WhenAny winner");
                    }
                    return groups;
                }),
                UtWhenAny(n, groups),
                new Impl("tpl", () =>
                {
                    for (int g = 0; g < groups; g++)
                    {
                        for (int i = 0; i < n; i++) { tsrcs[i] = new TaskCompletionSource<bool>(); ttasks[i] = tsrcs[i].Task; }
                        var any = Task.WhenAny(ttasks);
                        for (int i = n - 1; i >= 0; i--) tsrcs[i].SetResult(true);
                        if (any.GetAwaiter().GetResult() != ttasks[n - 1]) Check(false, "Task.WhenAny winner");
                    }
                    return groups;
                }));
        }

        public static int Main(string[] args)
        {
            string mode = Environment.GetEnvironmentVariable("MONO_THREADS_SUSPEND") ?? "default (hybrid)";
            // ONITY_BENCH_SYNCCTX=1: run on a thread with a SynchronizationContext, as Unity's main
            // thread has one (on Mono that gives the thread an ExecutionContext of its own).
            bool syncCtx = Environment.GetEnvironmentVariable("ONITY_BENCH_SYNCCTX") == "1";
            if (syncCtx) System.Threading.SynchronizationContext.SetSynchronizationContext(new System.Threading.SynchronizationContext());
            string ut = UniTaskInit();
            Console.WriteLine("# Onity C# binding benchmark; MONO_THREADS_SUSPEND=" + mode + "; " + Environment.ProcessorCount + " CPUs; context flow " + (OnityContextFlow.Enabled ? "on" : "off") + " (fast capture bound: " + OnityContextFlow.UsesFastCapture + "); " + (syncCtx ? "a SynchronizationContext set (as on Unity's main thread)" : "no SynchronizationContext") + "; clock " + (threadClock ? "thread CPU time" : "wall") + "; " + Warm + " warm-up and " + Sets + " measured sets per implementation; side by side: " + (ut ?? "no UniTask (not compiled in)"));
            var total = Stopwatch.StartNew();
            rt = new OnityRuntime(65536);
            Frame();
            AllocationControls();

            // Optional arguments: substrings selecting groups (idleframe, nextframe, yield, delayframe,
            // completed, manual, cycle, whenany, stream, channel, parity); none = everything (what scripts/bench-csharp.sh
            // runs). "frameproto" adds the whole-frame loop rows (FrameProtocolBench.cs; alone:
            // only those and idleframe). "notpl" leaves the TPL column out; "only=NAME" runs one implementation
            // (onity, onity-flowoff, unitask, tpl), as scripts/profile-csharp.sh does.
            noTpl = Array.IndexOf(args, "notpl") >= 0;
            var onlyArg = Array.Find(args, a => a.StartsWith("only="));
            only = onlyArg == null ? null : onlyArg.Substring(5);
            bool frameproto = Array.IndexOf(args, "frameproto") >= 0; // opt-in rows (FrameProtocolBench.cs)
            var groups = Array.FindAll(args, a => a != "notpl" && a != "frameproto" && !a.StartsWith("only="));
            if (frameproto && groups.Length == 0) groups = new[] { "frameproto" };
            Func<string, bool> on = g => groups.Length == 0 || Array.Exists(groups, a => g.Contains(a));
            // First, on a fresh player loop: UniTask's runners scan their whole array every frame,
            // so its empty frame grows once a scenario has run thousands of loops.
            FrameProtocolScenarios(on, frameproto); // FrameProtocolBench.cs
            foreach (var kind in new[] { "nextframe", "yield", "delayframe" })
            {
                if (!on(kind)) continue;
                foreach (int n in new[] { 128, 4096, 50000 })
                {
                    int frames = n == 128 ? 200 : n == 4096 ? 10 : 1;
                    FrameScenario(kind, n, frames, n == 4096 && kind != "delayframe");
                }
            }
            if (on("asyncop")) AsyncOperationScenarios(); // AsyncOperationBench.cs
            if (on("completed")) CompletedScenarios();
            if (on("manual")) ManualSourceScenario();
            if (on("cycle")) BuilderCycleScenario();
            if (on("whenany")) foreach (int n in new[] { 2, 16, 32 }) WhenAnyScenario(n);
            StreamScenarios(on);
            ChannelScenarios(on);
            ParityScenarios(on); // ParityBench.cs

            var m = rt.GetManagedStats();
            Console.WriteLine("# end state: " + m);
            Check(m.PendingWaits == 0 && m.CompletedUnconsumedWaits == 0, "no waits left");
            rt.Dispose();
            Console.WriteLine("# total " + total.Elapsed.TotalSeconds.ToString("F1") + " s");
            return 0;
        }
    }
}
