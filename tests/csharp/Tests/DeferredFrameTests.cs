using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using Onity.Native;

namespace Onity.Tests
{
    /// <summary>BeginFrame makes no call (ABI 1.3, OnityDeferredFrame): the frame is applied by the
    /// next native call on the owner thread that depends on the frame: the first Tick, or C code
    /// sharing the runtime that schedules a wait or reads the frame.</summary>
    public class DeferredFrameTests
    {
        const string Helper = "onity_test_helper";

        [DllImport(Helper, CallingConvention = CallingConvention.Cdecl)]
        static extern ulong helper_c_frame(IntPtr rt);

        [DllImport(Helper, CallingConvention = CallingConvention.Cdecl)]
        static extern uint helper_c_begin(IntPtr rt, ulong frame);

        [DllImport(Helper, CallingConvention = CallingConvention.Cdecl)]
        static extern unsafe uint helper_c_next_frame(IntPtr rt, ulong* task);

        [DllImport(Helper, CallingConvention = CallingConvention.Cdecl)]
        static extern uint helper_c_task_state(IntPtr rt, ulong task);

        [DllImport(Helper, CallingConvention = CallingConvention.Cdecl)]
        static extern uint helper_c_consume(IntPtr rt, ulong task);

        static async OnityTask Log(OnityTask wait, OnityRuntime rt, List<string> log, string name)
        {
            await wait;
            log.Add(name + "@" + rt.Frame);
        }

        [Test]
        public void BeginFrameMakesNoCallAndTheFirstTickAppliesIt()
        {
            using (var h = new TestHost())
            {
                h.Runtime.SkipIdleTicks = false; // an idle Update makes no call at all: IdleTickTests
                h.RunFrame(OnityTiming.Update);
                long c0 = OnityNativeCalls.Crossings;
                h.Begin();
                Assert.Equal(0L, OnityNativeCalls.Crossings - c0, "BeginFrame's crossings");
                h.Runtime.Tick(OnityTiming.Update);
                Assert.Equal(1L, OnityNativeCalls.Crossings - c0, "BeginFrame + Tick");
                Assert.Equal(2UL, helper_c_frame(h.Runtime.rt), "native frame after the tick");
            }
        }

        [Test]
        public unsafe void CCodeBetweenBeginFrameAndTheFirstTickSeesTheNewFrame()
        {
            using (var h = new TestHost())
            {
                var log = new List<string>();
                h.RunFrame(OnityTiming.Update);
                // Awaited in frame 1 after its tick: filed with frame 1, due in frame 2.
                var before = Log(OnityTask.Delay(TimeSpan.Zero), h.Runtime, log, "delay0-before");
                var nfBefore = Log(OnityTask.NextFrame(), h.Runtime, log, "nf-before");
                h.Begin(); // frame 2, not applied yet
                // C code on the owner thread, before C#'s first tick: it sees frame 2.
                Assert.Equal(2UL, helper_c_frame(h.Runtime.rt), "frame C code reads");
                ulong task;
                Assert.Equal(0u, helper_c_next_frame(h.Runtime.rt, &task), "onity_next_frame from C");
                // Awaited in frame 2 before its tick: due in frame 3.
                var delay0After = Log(OnityTask.Delay(TimeSpan.Zero), h.Runtime, log, "delay0-after");
                h.Runtime.Tick(OnityTiming.Update);
                Assert.Equal("delay0-before@2,nf-before@2", string.Join(",", log), "frame 2");
                Assert.Equal((uint)OnityTaskState.Pending, helper_c_task_state(h.Runtime.rt, task), "C NextFrame in frame 2");
                h.RunFrame(OnityTiming.Update);
                Assert.Equal("delay0-before@2,nf-before@2,delay0-after@3", string.Join(",", log), "frame 3");
                Assert.Equal((uint)OnityTaskState.Succeeded, helper_c_task_state(h.Runtime.rt, task), "C NextFrame in frame 3");
                Assert.Equal(0u, helper_c_consume(h.Runtime.rt, task), "consume");
                before.GetAwaiter().GetResult();
                nfBefore.GetAwaiter().GetResult();
                delay0After.GetAwaiter().GetResult();
            }
        }

        [Test]
        public void FrameCountsAndDelaysSeeEveryFrameWhenBeginsComeWithoutATick()
        {
            using (var h = new TestHost())
            {
                h.Dt = 0.5;
                var log = new List<string>();
                h.RunFrame(OnityTiming.Update);
                var delay = Log(OnityTask.Delay(TimeSpan.FromSeconds(1)), h.Runtime, log, "delay1s");
                var df2 = Log(OnityTask.DelayFrame(2), h.Runtime, log, "df2");
                long c0 = OnityNativeCalls.Crossings;
                h.Begin(); // frame 2: written into the ring
                h.Begin(); // frame 3: written after it (frame 2's 0.5 s still counts)
                Assert.Equal(0L, OnityNativeCalls.Crossings - c0, "a second begin before any call is written too");
                Assert.Equal(3UL, helper_c_frame(h.Runtime.rt), "native frame");
                h.Runtime.Tick(OnityTiming.Update);
                Assert.Equal("delay1s@3,df2@3", string.Join(",", log), "1 s and 2 frames after frame 1");
                delay.GetAwaiter().GetResult();
                df2.GetAwaiter().GetResult();
            }
        }

        [Test]
        public void AFrameTheNativeSideRefusesIsThrownByTheNextTickAfterItsContinuations()
        {
            using (var h = new TestHost())
            {
                var log = new List<string>();
                h.RunFrame(OnityTiming.Update);
                // C code drives the same runtime to frame 10: C#'s frame 2, written unchecked, is
                // refused when the tick applies it.
                Assert.Equal(0u, helper_c_begin(h.Runtime.rt, 10), "C host's begin");
                var y = Log(OnityTask.Yield(), h.Runtime, log, "yield");
                h.Begin();
                var e = Assert.Throws<OnityException>(() => h.Runtime.Tick(OnityTiming.Update), "tick after a refused frame");
                Assert.Equal(OnityStatus.FrameOrder, e.Status, "status");
                Assert.Equal("yield@2", string.Join(",", log), "the tick ran its continuations");
                Assert.Equal(10UL, helper_c_frame(h.Runtime.rt), "native frame unchanged");
                AssertFrameStateIsTheCores(h.Runtime, "after the refusal");
                h.Frame = 10;
                h.RunFrame(OnityTiming.Update);
                Assert.Equal(11UL, helper_c_frame(h.Runtime.rt), "next frame accepted");
                y.GetAwaiter().GetResult();
            }
        }

        /// <summary>C#'s frame, frame counter and clocks equal the native side's published state.</summary>
        static unsafe void AssertFrameStateIsTheCores(OnityRuntime rt, string what)
        {
            OnityFrameClock* c;
            Assert.Equal(OnityStatus.Ok, OnityNativeCalls.onity_runtime_frame_clock(rt.rt, &c), what + ": frame clock");
            Assert.Equal(c->frame, rt.Frame, what + ": frame");
            Assert.Equal(helper_c_frame(rt.rt), rt.Frame, what + ": native frame");
            Assert.Equal(c->frame - c->origin, rt.MarkNow(1u << 4), what + ": frame counter");
            Assert.Equal(c->scaled_time, rt.ClockSeconds(DelayType.DeltaTime), what + ": scaled clock");
            Assert.Equal(c->unscaled_time, rt.ClockSeconds(DelayType.UnscaledDeltaTime), what + ": unscaled clock");
            Assert.Equal(c->realtime, rt.ClockSeconds(DelayType.Realtime), what + ": realtime");
        }

        /// <summary>The first frame takes the call (onity_runtime_frame_begin), so a bad one is thrown
        /// by BeginFrame and counts nothing; the frames after it are written into the ring.</summary>
        [Test]
        public void ABadFirstFrameThrowsAtBeginFrame()
        {
            using (var h = new TestHost())
            {
                var e = Assert.Throws<OnityException>(() => h.Runtime.BeginFrame(1, double.NaN, 0, 0), "NaN delta");
                Assert.Equal(OnityStatus.InvalidArgument, e.Status, "NaN delta");
                e = Assert.Throws<OnityException>(() => h.Runtime.BeginFrame(1UL << 59, 0, 0, 0), "frame 2^59");
                Assert.Equal(OnityStatus.InvalidArgument, e.Status, "frame too large");
                e = Assert.Throws<OnityException>(() => h.Runtime.BeginFrame(1, 0, 0, double.PositiveInfinity), "infinite realtime");
                Assert.Equal(OnityStatus.InvalidArgument, e.Status, "infinite realtime");
                Assert.Equal(0UL, h.Runtime.MarkNow(1u << 4), "nothing counted");
                AssertFrameStateIsTheCores(h.Runtime, "after the refused first frames");
                long c0 = OnityNativeCalls.Crossings;
                h.Runtime.BeginFrame(40, 0.5, 0.25, 9);
                Assert.Equal(1L, OnityNativeCalls.Crossings - c0, "the first frame is a call");
                Assert.Equal(1UL, h.Runtime.MarkNow(1u << 4), "the first frame counts 1");
                AssertFrameStateIsTheCores(h.Runtime, "first frame"); // (a call)
                c0 = OnityNativeCalls.Crossings;
                h.Runtime.BeginFrame(43, 0.5, 0.25, 10);
                Assert.Equal(0L, OnityNativeCalls.Crossings - c0, "a later frame is written");
                Assert.Equal(4UL, h.Runtime.MarkNow(1u << 4), "counted from the first frame");
                h.Runtime.Tick(OnityTiming.Update);
                AssertFrameStateIsTheCores(h.Runtime, "after a tick");
            }
        }

        /// <summary>A bad later frame is written unchecked and thrown by the next call that applies
        /// the ring (a Tick that calls, Drain, the BeginFrame that finds the ring full). Then C#'s
        /// frame, counter and clocks are the native side's, and frame waits polled without a call
        /// (on a timing whose ticks are skipped) complete when token waits (the core's rule) do.</summary>
        [Test]
        public void ABadLaterFrameIsThrownByTheNextCallThatAppliesTheRing()
        {
            string[] paths = { "tick", "drain", "ring full" };
            string[] kinds = { "frame order", "NaN delta", "frame 2^59", "infinite realtime" };
            for (int path = 0; path < paths.Length; path++)
                for (int kind = 0; kind < kinds.Length; kind++)
                    BadLaterFrame(path, kind, paths[path] + ", " + kinds[kind]);
        }

        /// <summary>C code applied the ring (with a refused frame) and C# wrote another frame before a
        /// Tick that skips its call reports the refusal: the report applies that frame first, so the
        /// state taken is the native side's after every frame written.</summary>
        [Test]
        public void AReportAppliesTheFramesWrittenAfterTheRefusal()
        {
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update); // 1
                h.Runtime.BeginFrame(2, double.NaN, 0, 0);
                Assert.Equal(1UL, helper_c_frame(h.Runtime.rt), "C code applied the ring: frame 2 refused");
                h.Begin(); // frame 2 again, written
                Assert.Equal(1u, h.Runtime.FramesInRing, "written");
                long skipped = h.Runtime.SkippedTicks;
                var e = Assert.Throws<OnityException>(() => h.Runtime.Tick(OnityTiming.Update), "an idle tick reports it");
                Assert.Equal(OnityStatus.InvalidArgument, e.Status, "status");
                Assert.Equal(skipped + 1, h.Runtime.SkippedTicks, "the tick skipped its call");
                Assert.Equal(0u, h.Runtime.FramesInRing, "the report applied the ring");
                Assert.Equal(2UL, h.Runtime.Frame, "frame 2 (the second one) begun");
                AssertFrameStateIsTheCores(h.Runtime, "after the report");
            }
        }

        /// <summary>A refused later frame whose number the counter cannot take (below the first
        /// frame: frame - origin wraps; from 2^59) is written and thrown later, but moves neither
        /// the frame nor the frame counter in the window: a frame wait polled or made there does
        /// not read as done (the counter read 2^64 - 95 or 2^59 - 99 frames on: a DelayFrame(3)
        /// made before completed at once, and a DelayFrame(100) made there completed at once).</summary>
        [Test]
        public void ARefusedFrameTheCounterCannotTakeLeavesItWhereItWas()
        {
            ulong[] bad = { 5, 1UL << 59, ulong.MaxValue };
            foreach (ulong f in bad)
            {
                using (var h = new TestHost())
                {
                    h.Frame = 99;
                    h.RunFrame(OnityTiming.EarlyUpdate, OnityTiming.Update); // frame 100, by call
                    var before = OnityTask.DelayFrame(3, OnityTiming.EarlyUpdate);
                    h.RunFrame(OnityTiming.EarlyUpdate, OnityTiming.Update); // 101
                    long skipped = h.Runtime.SkippedTicks;
                    uint inRing = h.Runtime.FramesInRing;
                    h.Runtime.BeginFrame(f, h.Dt, h.UnscaledDt, h.Realtime);
                    Assert.Equal(inRing + 1, h.Runtime.FramesInRing, f + ": written");
                    Assert.Equal(101UL, h.Runtime.Frame, f + ": frame");
                    Assert.Equal(2UL, h.Runtime.MarkNow(1u << 4), f + ": frame counter");
                    h.Runtime.Tick(OnityTiming.EarlyUpdate); // idle: no call
                    Assert.Equal(skipped + 1, h.Runtime.SkippedTicks, f + ": the tick skipped its call");
                    Assert.False(before.IsCompleted, f + ": DelayFrame(3) made at frame 100, polled in the window");
                    var made = OnityTask.DelayFrame(100, OnityTiming.EarlyUpdate);
                    Assert.False(made.IsCompleted, f + ": DelayFrame(100) made in the window");
                    var e = Assert.Throws<OnityException>(() => h.Runtime.Drain(), f + ": reported");
                    Assert.Equal(f == 5 ? OnityStatus.FrameOrder : OnityStatus.InvalidArgument, e.Status, f + ": status");
                    AssertFrameStateIsTheCores(h.Runtime, f + ": after the report");
                    h.Frame = h.Runtime.Frame;
                    h.RunFrame(OnityTiming.EarlyUpdate, OnityTiming.Update); // 102
                    Assert.False(before.IsCompleted, f + ": frame 102");
                    h.RunFrame(OnityTiming.EarlyUpdate, OnityTiming.Update); // 103
                    Assert.True(before.IsCompleted, f + ": frame 103");
                    Assert.False(made.IsCompleted, f + ": DelayFrame(100) at frame 103");
                }
            }
        }

        static void BadLaterFrame(int path, int kind, string what)
        {
            using (var h = new TestHost())
            using (var cts = new System.Threading.CancellationTokenSource())
            {
                h.Frame = 99;
                h.Dt = 0.1;
                h.RunFrame(OnityTiming.EarlyUpdate, OnityTiming.Update); // frame 100, by call
                var direct = new List<OnityFrameWait>();
                var core = new List<OnityTask>();
                foreach (int n in new[] { 0, 1, 2, 3, 5, 9 })
                {
                    direct.Add(OnityTask.DelayFrame(n, OnityTiming.EarlyUpdate));
                    core.Add(OnityTask.DelayFrame(n, OnityTiming.Update, cts.Token));
                }
                h.RunFrame(OnityTiming.EarlyUpdate, OnityTiming.Update); // 101
                long c0 = OnityNativeCalls.Crossings;
                ulong f = h.Frame;
                if (kind == 0) h.Runtime.BeginFrame(f, h.Dt, h.UnscaledDt, h.Realtime);
                else if (kind == 1) h.Runtime.BeginFrame(f + 1, double.NaN, h.UnscaledDt, h.Realtime);
                else if (kind == 2) h.Runtime.BeginFrame(1UL << 59, h.Dt, h.UnscaledDt, h.Realtime);
                else h.Runtime.BeginFrame(f + 1, h.Dt, h.UnscaledDt, double.PositiveInfinity);
                Assert.Equal(0L, OnityNativeCalls.Crossings - c0, what + ": written, no call");
                var want = kind == 0 ? OnityStatus.FrameOrder : OnityStatus.InvalidArgument;
                OnityException e;
                if (path == 0)
                {
                    h.Runtime.Tick(OnityTiming.EarlyUpdate); // idle: no call, its run counted in the bad frame
                    e = Assert.Throws<OnityException>(() => h.Runtime.Tick(OnityTiming.Update), what);
                }
                else if (path == 1)
                    e = Assert.Throws<OnityException>(() => h.Runtime.Drain(), what);
                else
                {
                    h.Runtime.Tick(OnityTiming.EarlyUpdate);
                    while (h.Runtime.FramesInRing < OnityNative.ONITY_FRAME_RING_CAPACITY)
                    {
                        h.Begin();
                        h.Runtime.Tick(OnityTiming.EarlyUpdate);
                    }
                    Assert.Equal(0L, OnityNativeCalls.Crossings - c0, what + ": ring filled without a call");
                    e = Assert.Throws<OnityException>(() => h.Begin(), what);
                }
                Assert.Equal(want, e.Status, what + ": status");
                Assert.Equal(0u, h.Runtime.FramesInRing, what + ": ring applied");
                AssertFrameStateIsTheCores(h.Runtime, what + ": after the report");
                h.Frame = h.Runtime.Frame;
                if (path != 0)
                {
                    h.Runtime.Tick(OnityTiming.EarlyUpdate);
                    h.Runtime.Tick(OnityTiming.Update);
                }
                int done = 0;
                for (int k = 0; ; k++)
                {
                    done = 0;
                    for (int i = 0; i < direct.Count; i++)
                    {
                        bool c = core[i].Status == OnityTaskStatus.Succeeded;
                        Assert.Equal(c, direct[i].IsCompleted, what + ": DelayFrame #" + i + " at frame " + h.Frame);
                        if (c) done++;
                    }
                    if (done == direct.Count || k == 12) break;
                    h.RunFrame(OnityTiming.EarlyUpdate, OnityTiming.Update);
                    AssertFrameStateIsTheCores(h.Runtime, what + ": frame " + h.Frame);
                }
                Assert.Equal(direct.Count, done, what + ": every wait completed");
                Assert.True(h.Runtime.SkippedTicks > 0, what + ": the direct waits' timing was skipped (idle)");
            }
        }
    }
}
