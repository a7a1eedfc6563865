using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using Onity.Native;

namespace Onity.Tests
{
    public class FrameTests
    {
        static async OnityTask<ulong> AwaitAndReport(OnityTask wait, OnityRuntime rt, List<string> log, string name)
        {
            await wait;
            log.Add(name + "@" + rt.Frame);
            return rt.Frame;
        }

        [Test]
        public void NextFrameAwaitedAtUpdateResumesAtUpdateOfNextFrame()
        {
            using (var h = new TestHost())
            {
                var log = new List<string>();
                h.RunFrame(OnityTiming.EarlyUpdate, OnityTiming.Update);
                var t = AwaitAndReport(OnityTask.NextFrame(), h.Runtime, log, "nf");
                h.Runtime.Tick(OnityTiming.LastUpdate);
                h.Runtime.Tick(OnityTiming.PostLateUpdate);
                Assert.Equal(0, log.Count, "not in frame F");
                h.RunFrame(OnityTiming.EarlyUpdate);
                Assert.Equal(0, log.Count, "not at EarlyUpdate of F+1");
                h.Runtime.Tick(OnityTiming.Update);
                Assert.Equal("nf@2", string.Join(",", log));
                Assert.Equal(2UL, t.GetAwaiter().GetResult());
            }
        }

        [Test]
        public void NextFrameWithOtherTimingResumesAtThatTiming()
        {
            using (var h = new TestHost())
            {
                var log = new List<string>();
                h.RunFrame(OnityTiming.Update);
                var t = AwaitAndReport(OnityTask.NextFrame(OnityTiming.PostLateUpdate), h.Runtime, log, "nf");
                h.Runtime.Tick(OnityTiming.PostLateUpdate);
                Assert.Equal(0, log.Count, "same frame PostLateUpdate");
                h.RunFrame(OnityTiming.Update);
                Assert.Equal(0, log.Count, "F+1 Update");
                h.Runtime.Tick(OnityTiming.PostLateUpdate);
                Assert.Equal("nf@2", string.Join(",", log));
                t.GetAwaiter().GetResult();
            }
        }

        [Test]
        public void YieldResumesAtNextRunOfItsTiming()
        {
            using (var h = new TestHost())
            {
                var log = new List<string>();
                h.RunFrame(OnityTiming.Update);
                // Created after Update ran in frame 1: the next Update run is in frame 2.
                var a = AwaitAndReport(OnityTask.Yield(OnityTiming.Update), h.Runtime, log, "y-update");
                // A later timing of the same frame: resumes in frame 1.
                var b = AwaitAndReport(OnityTask.Yield(OnityTiming.LastUpdate), h.Runtime, log, "y-last");
                h.Runtime.Tick(OnityTiming.LastUpdate);
                Assert.Equal("y-last@1", string.Join(",", log));
                h.RunFrame(OnityTiming.Update);
                Assert.Equal("y-last@1,y-update@2", string.Join(",", log));
                a.GetAwaiter().GetResult();
                b.GetAwaiter().GetResult();
            }
        }

        static async OnityTask YieldTwiceInFixedUpdate(List<string> log, OnityRuntime rt)
        {
            for (int i = 0; i < 2; i++)
            {
                await OnityTask.Yield(OnityTiming.FixedUpdate);
                log.Add("fixed@" + rt.Frame);
            }
        }

        [Test]
        public void YieldOnATimingRunTwicePerFrameResumesAtEachRun()
        {
            using (var h = new TestHost())
            {
                var log = new List<string>();
                h.Begin();
                var t = YieldTwiceInFixedUpdate(log, h.Runtime);
                h.Runtime.Tick(OnityTiming.FixedUpdate);
                h.Runtime.Tick(OnityTiming.FixedUpdate);
                Assert.Equal("fixed@1,fixed@1", string.Join(",", log));
                Assert.Equal(OnityTaskStatus.Succeeded, t.Status);
                t.GetAwaiter().GetResult();
            }
        }

        [Test]
        public void DelayFrameCountsFrames()
        {
            using (var h = new TestHost())
            {
                var log = new List<string>();
                h.RunFrame(OnityTiming.Update); // frame 1
                var t3 = AwaitAndReport(OnityTask.DelayFrame(3), h.Runtime, log, "d3");
                var t1 = AwaitAndReport(OnityTask.DelayFrame(1), h.Runtime, log, "d1");
                var t0 = AwaitAndReport(OnityTask.DelayFrame(0, OnityTiming.LastUpdate), h.Runtime, log, "d0");
                h.Runtime.Tick(OnityTiming.LastUpdate);
                for (int i = 0; i < 5; i++) h.RunFrame(OnityTiming.Update, OnityTiming.LastUpdate);
                Assert.Equal("d0@1,d1@2,d3@4", string.Join(",", log));
                t3.GetAwaiter().GetResult();
                t1.GetAwaiter().GetResult();
                t0.GetAwaiter().GetResult();
                Assert.Throws<ArgumentOutOfRangeException>(() => OnityTask.DelayFrame(-1));
            }
        }

        [Test]
        public void DelayUsesEachClockFromBeginFrameTimes()
        {
            using (var h = new TestHost())
            {
                var log = new List<string>();
                h.Dt = 0.1; h.UnscaledDt = 0.25;
                h.RunFrame(OnityTiming.Update); // frame 1
                var scaled = AwaitAndReport(OnityTask.Delay(TimeSpan.FromSeconds(0.35), DelayType.DeltaTime), h.Runtime, log, "scaled");
                var unscaled = AwaitAndReport(OnityTask.Delay(TimeSpan.FromSeconds(0.35), DelayType.UnscaledDeltaTime), h.Runtime, log, "unscaled");
                var real = AwaitAndReport(OnityTask.Delay(TimeSpan.FromSeconds(0.35), DelayType.Realtime), h.Runtime, log, "real");
                var zero = AwaitAndReport(OnityTask.Delay(TimeSpan.Zero), h.Runtime, log, "zero");
                for (int i = 0; i < 6; i++)
                {
                    h.Begin();
                    if (h.Frame == 3) { /* realtime jumps ahead */ }
                    h.Runtime.Tick(OnityTiming.Update);
                }
                // scaled: 0.1/frame -> 0.4 at frame 5; unscaled: 0.25/frame -> 0.5 at frame 3;
                // realtime follows the unscaled clock here (TestHost adds UnscaledDt) -> frame 3;
                // zero: never in the creation frame -> frame 2.
                Assert.Equal("zero@2,unscaled@3,real@3,scaled@5", string.Join(",", log));
                scaled.GetAwaiter().GetResult(); unscaled.GetAwaiter().GetResult(); real.GetAwaiter().GetResult(); zero.GetAwaiter().GetResult();
            }
        }

        [Test]
        public void DelayScaledDoesNotAdvanceWhileTimeScaleIsZero()
        {
            using (var h = new TestHost())
            {
                var log = new List<string>();
                h.Dt = 0; h.UnscaledDt = 0.5;
                h.RunFrame(OnityTiming.Update);
                var scaled = AwaitAndReport(OnityTask.Delay(TimeSpan.FromSeconds(1), DelayType.DeltaTime), h.Runtime, log, "scaled");
                var unscaled = AwaitAndReport(OnityTask.Delay(1000, DelayType.UnscaledDeltaTime), h.Runtime, log, "unscaled");
                for (int i = 0; i < 4; i++) h.RunFrame(OnityTiming.Update);
                Assert.Equal("unscaled@3", string.Join(",", log));
                h.Dt = 1;
                h.RunFrame(OnityTiming.Update);
                Assert.Equal("unscaled@3,scaled@6", string.Join(",", log));
                scaled.GetAwaiter().GetResult(); unscaled.GetAwaiter().GetResult();
                Assert.Throws<ArgumentOutOfRangeException>(() => OnityTask.Delay(TimeSpan.FromSeconds(-1)));
            }
        }

        [Test]
        public void WaitsOfATimingResumeInSchedulingOrder()
        {
            using (var h = new TestHost())
            {
                var log = new List<string>();
                h.RunFrame(OnityTiming.Update);
                var tasks = new OnityTask<ulong>[50];
                for (int i = 0; i < tasks.Length; i++)
                    tasks[i] = AwaitAndReport(i % 2 == 0 ? OnityTask.NextFrame() : OnityTask.Yield(), h.Runtime, log, i.ToString());
                h.RunFrame(OnityTiming.Update);
                var expect = new List<string>();
                for (int i = 0; i < tasks.Length; i++) expect.Add(i + "@2");
                Assert.Equal(string.Join(",", expect), string.Join(",", log));
                foreach (var t in tasks) t.GetAwaiter().GetResult();
            }
        }

        [Test]
        public void TimingEnumMatchesNativeNamesAndOrder()
        {
            Assert.Equal(16, Enum.GetValues(typeof(OnityTiming)).Length, "timing count");
            for (int i = 0; i < 16; i++)
            {
                string native = Marshal.PtrToStringAnsi(OnityNative.onity_timing_name((uint)i));
                Assert.Equal(((OnityTiming)i).ToString(), native, "timing " + i);
            }
        }

        [Test]
        public void ManyTasksLoopingOnNextFrameAllAdvanceEachFrame()
        {
            using (var h = new TestHost(1024)) // small buffer: forces flushes
            {
                int n = 5000;
                var counts = new int[n];
                var tasks = new OnityTask[n];
                h.RunFrame(OnityTiming.Update);
                for (int i = 0; i < n; i++) tasks[i] = Loop(counts, i, 10);
                for (int f = 0; f < 10; f++)
                {
                    h.RunFrame(OnityTiming.Update);
                    for (int i = 0; i < n; i++) Assert.Equal(f + 1, counts[i], "count of " + i + " after frame " + f);
                }
                foreach (var t in tasks) t.GetAwaiter().GetResult();
                Assert.Equal(0, h.Runtime.GetManagedStats().PendingWaits, "pending waits");
            }
        }

        static async OnityTask Loop(int[] counts, int i, int n)
        {
            for (int k = 0; k < n; k++)
            {
                await OnityTask.NextFrame();
                counts[i]++;
            }
        }

        [Test]
        public void BeginFrameRejectsNonIncreasingFrames()
        {
            using (var h = new TestHost())
            {
                h.Runtime.BeginFrame(5, 0, 0, 0);
                // Written unchecked; refused when a call applies it (DeferredFrameTests).
                h.Runtime.BeginFrame(5, 0, 0, 0);
                var ex = Assert.Throws<OnityException>(() => h.Runtime.Tick(OnityTiming.Update));
                Assert.Equal(OnityStatus.FrameOrder, ex.Status);
                h.Runtime.BeginFrame(6, -1, 0, 0);
                ex = Assert.Throws<OnityException>(() => h.Runtime.Drain());
                Assert.Equal(OnityStatus.InvalidArgument, ex.Status);
                Assert.Equal(5UL, h.Runtime.Frame, "the native side's frame");
            }
        }

        [Test]
        public void DisposeCancelsPendingWaits()
        {
            var h = new TestHost();
            h.RunFrame(OnityTiming.Update);
            var log = new List<string>();
            var t = Catch(OnityTask.DelayFrame(100), log);
            h.Dispose();
            Assert.Equal("canceled", string.Join(",", log));
            Assert.Equal(OnityTaskStatus.Succeeded, t.Status);
            Assert.Throws<OperationCanceledException>(() => OnityTask.NextFrame(), "runtime disposed");
        }

        [Test]
        public void ContinuationsThatDisposeRunCannotStartNewWaits()
        {
            // A continuation run by Dispose (a canceled wait's, or one posted from a worker thread and
            // not yet drained) that awaits a new frame wait gets OperationCanceledException, like the
            // waits Dispose cancels, not "no OnityRuntime" (a second reader's finding).
            var h = new TestHost();
            h.RunFrame(OnityTiming.Update);
            var log = new List<string>();
            var a = ThenLoop(OnityTask.DelayFrame(100), log, "wait");
            var src = AutoResetOnityCompletionSource.Create();
            var b = ThenLoop(src.Task, log, "posted");
            var w = new System.Threading.Thread(() => src.TrySetResult());
            w.Start();
            w.Join(); // its continuation is posted to the owner, not yet drained
            h.Dispose();
            Assert.Equal("wait:canceled,posted:ok,posted:canceled", string.Join(",", log));
            Assert.Equal(OnityTaskStatus.Succeeded, a.Status);
            Assert.Equal(OnityTaskStatus.Succeeded, b.Status);
            Assert.Throws<OperationCanceledException>(() => OnityTask.NextFrame(), "after Dispose: runtime disposed");
        }

        static async OnityTask ThenLoop(OnityTask first, List<string> log, string name)
        {
            try
            {
                await first;
                log.Add(name + ":ok");
                while (true) await OnityTask.NextFrame();
            }
            catch (OperationCanceledException) { log.Add(name + ":canceled"); }
        }

        static async OnityTask Catch(OnityTask t, List<string> log)
        {
            try { await t; log.Add("ok"); }
            catch (OperationCanceledException) { log.Add("canceled"); }
        }
    }
}
