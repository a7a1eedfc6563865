using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text;
using System.Threading;
using Onity.Native;

namespace Onity.Tests
{
    // Issue 20 from C#: native creation sites made with [CallerFilePath]/[CallerLineNumber] (file and
    // line asserted), the grouped reports with ages frame by frame, the frame timeline as JSON.
    public unsafe class ObservabilityTests
    {
        // The file strings handed to the runtime must outlive it: one unmanaged copy per file.
        static readonly Dictionary<string, IntPtr> files = new Dictionary<string, IntPtr>();

        static ulong CreateHere(OnityRuntime r, out int line, [CallerFilePath] string file = "", [CallerLineNumber] int callerLine = 0)
        {
            IntPtr f;
            if (!files.TryGetValue(file, out f)) files[file] = f = Marshal.StringToHGlobalAnsi(file);
            ulong h;
            OnityRuntime.Check(OnityNativeCalls.onity_task_create_at(r.rt, &h, f, (uint)callerLine), "onity_task_create_at");
            line = callerLine;
            return h;
        }

        [Test]
        public void NativeSitesFromCSharpCallersCarryFileAndLine()
        {
            string thisFile = ThisFile();
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update);
                var r = h.Runtime;
                Assert.False(r.SiteCapture, "off by default");
                r.SiteCapture = true;
                int lineA, lineB;
                var a = new List<ulong>();
                for (int i = 0; i < 3; i++) a.Add(CreateHere(r, out lineA));
                CreateHere(r, out lineA);
                ulong b = CreateHere(r, out lineB);
                IntPtr f;
                uint l;
                ulong made;
                Check(OnityNativeCalls.onity_task_site(r.rt, b, &f, &l, &made));
                Assert.Equal(thisFile, Marshal.PtrToStringAnsi(f), "file");
                Assert.Equal((uint)lineB, l, "line");
                Assert.Equal(1UL, made, "frame");
                h.RunFrame(OnityTiming.Update);
                h.RunFrame(OnityTiming.Update);
                var report = new List<OnitySiteLine>();
                Assert.Equal(3, r.GetSiteReport(report));
                Assert.Equal(thisFile, report[0].File, "largest group first");
                Assert.Equal(3UL, report[0].Tasks);
                Assert.Equal(2UL, report[0].OldestAgeFrames, "two frames old");
                Assert.Contains("3 tasks created at " + thisFile + ":", report[0].ToString());
                Assert.Equal(lineA, report[1].Line);
                Assert.Equal(lineB, report[2].Line);
                report.Clear();
                Assert.Equal(0, r.GetSiteReport(report, 3), "none is 3 frames old");
            }
        }

        static string ThisFile([CallerFilePath] string file = "") { return file; }

        static void Check(OnityStatus s) { OnityRuntime.Check(s, "native call"); }

        static int Here([CallerLineNumber] int line = 0) { return line; }

#if ONITY_SITES // compiled-in sites (the main suite); the IL2CPP suite runs the default build
        [Test]
        public void PublicWaitsCarryTheirCallersFileAndLine()
        {
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update);
                var r = h.Runtime;
                OnityTask before = OnityTask.Delay(1000);
                r.SiteCapture = true;
                string file = ThisFile();
                for (int i = 0; i < 4; i++) Leaky.SiteWaiter().Forget(); // fast lane, awaited
                h.RunFrame(OnityTiming.Update);
                OnityTask delay = OnityTask.Delay(1000); int lineDelay = Here(); // a wait slot
                OnityTask converted = OnityTask.NextFrame(OnityTiming.PreLateUpdate); int lineConverted = Here(); // frame wait -> slot
                OnityTask token = OnityTask.DelayFrame(50, new CancellationTokenSource().Token); int lineToken = Here();
                h.RunFrame(OnityTiming.Update);
                var groups = new List<OnityWaitGroup>();
                Assert.Equal(5, h.Runtime.GetWaitReport(groups));
                Assert.Equal(4, groups[0].Count, "the awaits of one line are one group");
                Assert.Equal(file, groups[0].File);
                Assert.Equal(Leaky.WaitLine, groups[0].Line);
                Assert.Equal("DelayFrame", groups[0].Kind);
                Assert.Equal(2UL, groups[0].OldestAgeFrames);
                Assert.Contains("4 DelayFrame waits created at " + file + ":" + Leaky.WaitLine, groups[0].ToString());
                var byLine = new Dictionary<int, OnityWaitGroup>();
                foreach (var g in groups) byLine[g.File == null ? -1 : g.Line] = g;
                Assert.Equal(1UL, byLine[lineDelay].OldestAgeFrames, "made a frame ago");
                Assert.Equal("Delay", byLine[lineDelay].Kind);
                Assert.Equal("NextFrame", byLine[lineConverted].Kind);
                Assert.Equal("DelayFrame", byLine[lineToken].Kind);
                Assert.Equal(file, byLine[lineToken].File);
                Assert.Equal("Delay", byLine[-1].Kind, "made before capture was on: no site");
                var list = new List<OnityPendingWait>();
                r.GetPendingWaits(list);
                Assert.Contains("created at " + file + ":" + lineDelay + " in frame 2", string.Join(" | ", list));
                GC.KeepAlive(before);
                GC.KeepAlive(delay);
                GC.KeepAlive(converted);
                GC.KeepAlive(token);
            }
        }
#else
        [Test]
        public void WithoutOnitySitesManagedWaitsCarryNoSite()
        {
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update);
                h.Runtime.SiteCapture = true; // native capture only: the waits have no caller info
                OnityTask delay = OnityTask.Delay(1000);
                var src = AutoResetOnityCompletionSource.Create();
                var groups = new List<OnityWaitGroup>();
                Assert.Equal(1, h.Runtime.GetWaitReport(groups), "sources are not tracked");
                Assert.Equal(null, groups[0].File);
                Assert.Equal("Delay", groups[0].Kind);
                GC.KeepAlive(delay);
                src.TrySetResult();
            }
        }
#endif

        [Test]
        public void SiteCaptureAllocatesNothingAfterWarmUp()
        {
            // On a fresh thread: an execution context left by an earlier test makes every await
            // of the control (capture off) allocate.
            long off = -1, on = -1;
            FreshThread.Run(() => { off = LoopBytes(false); on = LoopBytes(true); });
            Assert.Equal(0L, off, "capture off");
            Assert.Equal(0L, on, "capture on");
        }

        /// <summary>GC bytes of 200 frames of 64 loops (NextFrame awaited, Yield converted to a
        /// task), after 50 frames of warm-up.</summary>
        static long LoopBytes(bool capture)
        {
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update);
                h.Runtime.SiteCapture = capture;
                Leaky.Stop = false;
                for (int i = 0; i < 64; i++) Leaky.Loop().Forget();
                for (int f = 0; f < 50; f++) Frame(h);
                long b0 = GC.GetAllocatedBytesForCurrentThread();
                for (int f = 0; f < 200; f++) Frame(h);
                long d = GC.GetAllocatedBytesForCurrentThread() - b0;
                Leaky.Stop = true;
                Frame(h);
                var groups = new List<OnityWaitGroup>();
                h.Runtime.GetWaitReport(groups);
#if ONITY_SITES
                Assert.Equal(capture, groups.Count > 0 && groups[0].File != null, "sites recorded");
#else
                Assert.False(groups.Count > 0 && groups[0].File != null, "no sites without ONITY_SITES");
#endif
                return d;
            }
        }

        static void Frame(TestHost h)
        {
            h.Begin(); // (RunFrame(params ...) allocates its array)
            h.Runtime.Tick(OnityTiming.Update);
        }

        [Test]
        public void WaitReportGroupsByAwaiterWithAges()
        {
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update);
                for (int i = 0; i < 4; i++) Leaky.Waiter().Forget();
                h.RunFrame(OnityTiming.Update);
                h.RunFrame(OnityTiming.Update);
                Leaky.Waiter().Forget();
                OnityTask notAwaited = OnityTask.NextFrame(OnityTiming.PreLateUpdate);
                var groups = new List<OnityWaitGroup>();
                Assert.Equal(2, h.Runtime.GetWaitReport(groups));
                Assert.Equal(5, groups[0].Count);
                Assert.Equal("DelayFrame", groups[0].Kind);
                Assert.Contains("Waiter", groups[0].Awaiter);
                Assert.Equal(2UL, groups[0].OldestAgeFrames);
                Assert.Equal(0UL, groups[0].NewestAgeFrames);
                Assert.Equal(1, groups[1].Count);
                Assert.Equal(null, groups[1].Awaiter, "not awaited");
                GC.KeepAlive(notAwaited);
            }
        }

        [Test]
        public void FrameTimelineIsChromeTraceJson()
        {
            using (var h = new TestHost())
            {
                var r = h.Runtime;
                r.StartTrace(4096, OnityTraceFlags.Runs | OnityTraceFlags.Continuations);
                h.RunFrame(OnityTiming.Update);
                int resumed = 0;
                for (int i = 0; i < 3; i++) OnityTask.NextFrame().GetAwaiter().UnsafeOnCompleted(() => resumed++);
                h.RunFrame(OnityTiming.Update);
                Assert.Equal(3, resumed);
                r.StopTrace();
                h.RunFrame(OnityTiming.Update);
                ulong events, dropped;
                r.GetTraceCounts(out events, out dropped);
                Assert.Equal(0UL, dropped);
                string json = Encoding.UTF8.GetString(r.GetTraceJson());
                Assert.True(json.StartsWith("{\"displayTimeUnit\":\"ns\""), "a Chrome trace object");
                Assert.Contains("\"traceEvents\":[", json);
                Assert.Contains("\"name\":\"Update\",\"cat\":\"run\",\"ph\":\"X\"", json);
                Assert.Contains("\"frame\":2,\"resumed\":", json);
                Assert.False(json.Contains("\"frame\":3"), "stopped before frame 3");
                Assert.True(json.TrimEnd().EndsWith("]}"), "closed");
                Assert.Throws<OnityException>(() => r.StartTrace(1, OnityTraceFlags.Runs), "too small a ring");
                Assert.Throws<OnityException>(() => r.StartTrace(64, 0), "no flags");
            }
        }
    }

    static class Leaky
    {
        // Not in the unsafe class: mcs refuses `await` in an unsafe context.
        public static async OnityTask Waiter()
        {
            await OnityTask.DelayFrame(1000);
        }

        public static readonly int WaitLine = Line();
        static int Line([CallerLineNumber] int line = 0) { return line + 4; } // SiteWaiter's await
        public static async OnityTask SiteWaiter()
        {
            await OnityTask.DelayFrame(1000);
        }

        public static bool Stop;

        public static async OnityTask Loop()
        {
            while (!Stop)
            {
                await OnityTask.NextFrame();
                await OnityTask.Yield(OnityTiming.Update).ToOnityTask();
            }
        }
    }
}
