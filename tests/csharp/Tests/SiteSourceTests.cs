#if ONITY_SITES
using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Threading;

namespace Onity.Tests
{
    // Issue 20 #1 for the C# sources (ONITY_SITES builds): completion sources, WaitUntil/WaitWhile/
    // WaitUntilValueChanged, Delay and WhenAny/WhenAll carry their caller's file and line (asserted),
    // grouped and aged by GetWaitReport, dropped once consumed; nothing allocated after warm-up.
    public class SiteSourceTests
    {
        static string ThisFile([CallerFilePath] string file = "") { return file; }
        static int Here([CallerLineNumber] int line = 0) { return line; }

        sealed class Target { public int Value; }

        static Dictionary<int, OnityWaitGroup> ByLine(OnityRuntime r)
        {
            var groups = new List<OnityWaitGroup>();
            r.GetWaitReport(groups);
            var byLine = new Dictionary<int, OnityWaitGroup>();
            foreach (var g in groups) if (g.File != null) byLine[g.Line] = g;
            return byLine;
        }

        [Test]
        public void SourcesConditionWaitsAndCombinatorsCarryTheirCallersSite()
        {
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update);
                var r = h.Runtime;
                r.SiteCapture = true;
                string file = ThisFile();
                var target = new Target();
                var a = AutoResetOnityCompletionSource.Create(); int lineA = Here();
                var b = AutoResetOnityCompletionSource<int>.Create(); int lineB = Here();
                b.TrySetResult(7); // completed, never consumed
                OnityTask until = OnityTask.WaitUntil(() => false); int lineUntil = Here();
                var cts = new CancellationTokenSource();
                OnityTask whileTask = OnityTask.WaitWhile(() => true, OnityTiming.Update, cts.Token); int lineWhile = Here();
                OnityTask<int> changed = OnityTask.WaitUntilValueChanged(target, t => t.Value); int lineChanged = Here();
                OnityTask delay = OnityTask.Delay(TimeSpan.FromSeconds(100), DelayType.DeltaTime, OnityTiming.Update, cts.Token); int lineDelay = Here();
                var c = AutoResetOnityCompletionSource.Create();
                var inputs = new[] { c.Task, OnityTask.DelayFrame(1000, cts.Token) };
                OnityTask<int> any = OnityTask.WhenAny(inputs, CancellationToken.None); int lineAny = Here();
                var d = AutoResetOnityCompletionSource<int>.Create();
                OnityTask<int[]> all = OnityTask.WhenAll(new[] { d.Task }, CancellationToken.None); int lineAll = Here();
                h.RunFrame(OnityTiming.Update);
                h.RunFrame(OnityTiming.Update);

                var byLine = ByLine(r);
                Assert.Equal("AutoResetOnityCompletionSource", byLine[lineA].Kind);
                Assert.Equal(file, byLine[lineA].File);
                Assert.Equal(2UL, byLine[lineA].OldestAgeFrames, "made two frames ago");
                Assert.Equal(0, byLine[lineA].Completed);
                Assert.Equal(1, byLine[lineB].Completed, "completed, never consumed");
                Assert.Equal("Yield", byLine[lineUntil].Kind, "the condition check's wait, at the WaitUntil call");
                Assert.Equal(1, byLine[lineUntil].Count);
                Assert.Equal("Yield", byLine[lineWhile].Kind, "with a token: a wait slot");
                Assert.Equal("WaitUntilValueChanged", byLine[lineChanged].Kind);
                Assert.Equal("Delay", byLine[lineDelay].Kind);
                Assert.Equal("WhenAny", byLine[lineAny].Kind);
                Assert.Equal("WhenAll", byLine[lineAll].Kind);
                Assert.Contains("1 WhenAll created at SiteSourceTests.cs:" + lineAll + ", pending for 2 frames, never consumed", byLine[lineAll].Describe());

                // Consumed (or recycled) uses leave the report.
                Assert.Equal(7, b.Task.GetAwaiter().GetResult());
                c.TrySetResult();
                Assert.Equal(0, any.GetAwaiter().GetResult());
                target.Value = 1;
                h.RunFrame(OnityTiming.Update);
                Assert.Equal(1, changed.GetAwaiter().GetResult());
                byLine = ByLine(r);
                Assert.False(byLine.ContainsKey(lineB), "consumed");
                Assert.False(byLine.ContainsKey(lineAny), "consumed");
                Assert.False(byLine.ContainsKey(lineChanged), "consumed");
                Assert.True(byLine.ContainsKey(lineA) && byLine.ContainsKey(lineAll), "still pending");

                cts.Cancel();
                a.TrySetResult();
                d.TrySetResult(1);
                h.RunFrame(OnityTiming.Update);
                a.Task.GetAwaiter().GetResult();
                Assert.Equal(1, all.GetAwaiter().GetResult()[0]);
                GC.KeepAlive(until);
                GC.KeepAlive(whileTask);
                GC.KeepAlive(delay);
            }
        }

        [Test]
        public void OverloadsWithoutArgumentsTakeTheCallersLine()
        {
            // NextFrame()/Yield()/DelayFrame(n)/Create() bind to the caller-info overloads (there
            // is no parameterless one in an ONITY_SITES build): the line is this file's.
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update);
                h.Runtime.SiteCapture = true;
                OnityTask y = OnityTask.Yield(); int lineY = Here();
                OnityTask n = OnityTask.NextFrame(); int lineN = Here();
                OnityTask f = OnityTask.DelayFrame(3); int lineF = Here();
                var byLine = ByLine(h.Runtime);
                Assert.Equal("Yield", byLine[lineY].Kind);
                Assert.Equal("NextFrame", byLine[lineN].Kind);
                Assert.Equal("DelayFrame", byLine[lineF].Kind);
                Assert.Equal(ThisFile(), byLine[lineF].File);
                GC.KeepAlive(y);
                GC.KeepAlive(n);
                GC.KeepAlive(f);
            }
        }

        [Test]
        public void ReportSurvivesSourcesConsumedOnAnotherThread()
        {
            // A tracked source may be consumed (and recycled: its version moves) on a worker
            // thread while the owner builds the report (the editor window, each repaint): the
            // report must skip it, not throw a stale-token error between its checks.
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update);
                var r = h.Runtime;
                r.SiteCapture = true;
                const int n = 2000;
                var sources = new AutoResetOnityCompletionSource[n];
                var list = new List<OnityPendingWait>(n + 64);
                Exception failure = null;
                for (int round = 0; round < 300 && failure == null; round++)
                {
                    for (int i = 0; i < n; i++)
                    {
                        sources[i] = AutoResetOnityCompletionSource.Create();
                        sources[i].TrySetResult();
                    }
                    int done = 0;
                    var worker = new Thread(() =>
                    {
                        for (int i = 0; i < n; i++) sources[i].Task.GetAwaiter().GetResult();
                        Volatile.Write(ref done, 1);
                    });
                    worker.Start();
                    try
                    {
                        while (Volatile.Read(ref done) == 0)
                        {
                            list.Clear();
                            r.GetPendingWaits(list);
                        }
                    }
                    catch (Exception e) { failure = e; }
                    worker.Join();
                }
                Assert.Equal(null, failure == null ? null : failure.GetType().Name + ": " + failure.Message);
                list.Clear();
                r.GetPendingWaits(list);
                Assert.Equal(0, list.Count, "all consumed");
            }
        }

        [Test]
        public void TurningCaptureOffReleasesConsumedSources()
        {
            // 2,200 sources made with capture on, then consumed: the pool (at most 1,024 in the
            // owner's lane + 1,024 shared) takes the first ones back and drops the last, which
            // only the tracked-source table still holds.
            // Turning capture off must let them go (nothing compacts the table after that).
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update);
                h.Runtime.SiteCapture = true;
                var dropped = MakeAndConsume(2200, 50);
                h.Runtime.SiteCapture = false;
                GC.Collect();
                GC.WaitForPendingFinalizers();
                GC.Collect();
                int alive = 0;
                foreach (var w in dropped) if (w.IsAlive) alive++;
                Assert.True(alive < 5, alive + " of the 50 last consumed sources still reachable");
            }
        }

        /// <summary>Weak references to the <paramref name="last"/> sources consumed.</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        static List<WeakReference> MakeAndConsume(int n, int last)
        {
            var sources = new AutoResetOnityCompletionSource[n];
            for (int i = 0; i < n; i++) sources[i] = AutoResetOnityCompletionSource.Create();
            var weak = new List<WeakReference>();
            for (int i = 0; i < n; i++)
            {
                sources[i].TrySetResult();
                sources[i].Task.GetAwaiter().GetResult();
                if (i >= n - last) weak.Add(new WeakReference(sources[i]));
                sources[i] = null;
            }
            return weak;
        }

        [Test]
        public void TrackedSourcesAllocateNothingAfterWarmUp()
        {
            long bytes = -1, control = -1;
            int groups = -1, pending = -1, controlGroups = -1, controlPending = -1;
            FreshThread.Run(() => { bytes = CycleBytes(false, out groups, out pending); control = CycleBytes(true, out controlGroups, out controlPending); });
            Assert.Equal(0L, bytes, "capture on, 300 cycles after warm-up");
            Assert.Equal(0, groups, "every use consumed: nothing left in the report");
            // Control: the same loop leaving one source pending per frame allocates (new sources,
            // the table's growth), which the measurement must see, and the report lists every
            // one of them at its site: the loop did track (else the zero above proves nothing).
            Assert.True(control > 0, "the control sees allocations");
            Assert.Equal(1, controlGroups, "the pending sources: one site");
            Assert.Equal(400, controlPending, "one per frame, all tracked");
        }

        static readonly Func<bool> always = () => true;

        /// <summary>GC bytes of 300 frames, each creating and consuming two sources, a WhenAny, a
        /// WhenAll and a WaitUntil with capture on (and, for the control, leaving a source pending), after 100 frames of warm-up (the site table and
        /// the tracked-source table grow then, and are compacted in place later).</summary>
        static long CycleBytes(bool leaveOnePending, out int groupsLeft, out int pendingLeft)
        {
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update);
                h.Runtime.SiteCapture = true;
                var tasks = new OnityTask[2];
                long b0 = 0;
                for (int f = 0; f < 400; f++)
                {
                    if (f == 100) b0 = GC.GetAllocatedBytesForCurrentThread();
                    var s0 = AutoResetOnityCompletionSource.Create();
                    var s1 = AutoResetOnityCompletionSource.Create();
                    tasks[0] = s0.Task;
                    tasks[1] = s1.Task;
                    var any = OnityTask.WhenAny(tasks, CancellationToken.None);
                    s1.TrySetResult();
                    any.GetAwaiter().GetResult();
                    s0.TrySetResult();
                    var s2 = AutoResetOnityCompletionSource.Create();
                    tasks[0] = s2.Task;
                    tasks[1] = OnityTask.CompletedTask;
                    var all = OnityTask.WhenAll(tasks, CancellationToken.None);
                    s2.TrySetResult();
                    all.GetAwaiter().GetResult();
                    var until = OnityTask.WaitUntil(always);
                    h.Begin();
                    h.Runtime.Tick(OnityTiming.Update);
                    until.GetAwaiter().GetResult();
                    if (leaveOnePending) AutoResetOnityCompletionSource.Create();
                }
                long d = GC.GetAllocatedBytesForCurrentThread() - b0;
                var groups = new List<OnityWaitGroup>();
                h.Runtime.GetWaitReport(groups);
                groupsLeft = groups.Count;
                pendingLeft = 0;
                foreach (var g in groups) pendingLeft += g.Count;
                return d;
            }
        }
    }
}
#endif
