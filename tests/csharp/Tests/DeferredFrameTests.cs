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
                // C code drives the same runtime to frame 10: C#'s frame 2 passes its own checks
                // but not the native side's.
                Assert.Equal(0u, helper_c_begin(h.Runtime.rt, 10), "C host's begin");
                var y = Log(OnityTask.Yield(), h.Runtime, log, "yield");
                h.Begin();
                var e = Assert.Throws<OnityException>(() => h.Runtime.Tick(OnityTiming.Update), "tick after a refused frame");
                Assert.Equal(OnityStatus.FrameOrder, e.Status, "status");
                Assert.Equal("yield@2", string.Join(",", log), "the tick ran its continuations");
                Assert.Equal(10UL, helper_c_frame(h.Runtime.rt), "native frame unchanged");
                h.Frame = 10;
                h.RunFrame(OnityTiming.Update);
                Assert.Equal(11UL, helper_c_frame(h.Runtime.rt), "next frame accepted");
                y.GetAwaiter().GetResult();
            }
        }

        [Test]
        public void AFrameThisSideRefusesThrowsAtBeginFrame()
        {
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update);
                var e = Assert.Throws<OnityException>(() => h.Runtime.BeginFrame(1, 0, 0, 0), "same frame again");
                Assert.Equal(OnityStatus.FrameOrder, e.Status, "frame order");
                e = Assert.Throws<OnityException>(() => h.Runtime.BeginFrame(2, double.NaN, 0, 0), "NaN delta");
                Assert.Equal(OnityStatus.InvalidArgument, e.Status, "NaN delta");
                e = Assert.Throws<OnityException>(() => h.Runtime.BeginFrame(1UL << 59, 0, 0, 0), "frame 2^59");
                Assert.Equal(OnityStatus.InvalidArgument, e.Status, "frame too large");
                h.Runtime.BeginFrame(2, 0, 0, 0);
                h.Runtime.Tick(OnityTiming.Update);
                Assert.Equal(2UL, helper_c_frame(h.Runtime.rt), "native frame");
            }
        }
    }
}
