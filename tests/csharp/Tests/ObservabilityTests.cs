using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text;
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
    }
}
