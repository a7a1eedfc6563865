using System;
using System.Collections.Generic;

namespace Onity.Tests
{
    /// <summary>Zero GC bytes per operation after warm-up, measured with
    /// GC.GetAllocatedBytesForCurrentThread (precise per thread on Mono 6.8; the control test
    /// proves the measurement sees allocations). Context flow is on (the default).</summary>
    public class AllocationTests
    {
        static long Bytes() { return GC.GetAllocatedBytesForCurrentThread(); }

        static object sink;

        [Test]
        public void ControlTheMeasurementSeesAllocations()
        {
            long b0 = Bytes();
            for (int i = 0; i < 1000; i++) sink = new object[10];
            long d = Bytes() - b0;
            Assert.True(d >= 1000 * 80, "allocations seen: " + d + " bytes");
            // And an allocating await path is caught too: a fresh plain completion source per op.
            using (var h = new TestHost())
            {
                b0 = Bytes();
                for (int i = 0; i < 100; i++)
                {
                    var s = new OnityCompletionSource<int>();
                    s.TrySetResult(i);
                    sink = s;
                }
                Assert.True(Bytes() - b0 > 0, "plain sources allocate");
            }
        }

        static bool stop;

        static async OnityTask NextFrameLoop()
        {
            while (!stop) await OnityTask.NextFrame();
        }

        static async OnityTask YieldLoop()
        {
            while (!stop) await OnityTask.Yield();
        }

        static async OnityTask DelayFrameLoop()
        {
            while (!stop) await OnityTask.DelayFrame(1);
        }

        static long FrameLoopBytes(Func<OnityTask> start, int tasks, int warm, int measured)
        {
            using (var h = new TestHost())
            {
                stop = false;
                h.RunFrame(OnityTiming.Update);
                var all = new OnityTask[tasks];
                for (int i = 0; i < tasks; i++) all[i] = start();
                for (int f = 0; f < warm; f++) h.RunFrame(OnityTiming.Update);
                long b0 = Bytes();
                for (int f = 0; f < measured; f++)
                {
                    h.Begin(); // not RunFrame(params ...): its array would be counted
                    h.Runtime.Tick(OnityTiming.Update);
                }
                long d = Bytes() - b0;
                stop = true;
                for (int f = 0; f < 3; f++) h.RunFrame(OnityTiming.Update);
                foreach (var t in all)
                {
                    Assert.Equal(OnityTaskStatus.Succeeded, t.Status, "loop ended");
                    t.GetAwaiter().GetResult();
                }
                return d;
            }
        }

        [Test]
        public void NextFrameLoopAllocatesNothing()
        {
            Assert.Equal(0L, FrameLoopBytes(NextFrameLoop, 512, 20, 200), "bytes over 102,400 task-frames");
        }

        [Test]
        public void YieldLoopAllocatesNothing()
        {
            Assert.Equal(0L, FrameLoopBytes(YieldLoop, 512, 20, 200), "bytes over 102,400 task-frames");
        }

        [Test]
        public void DelayFrameLoopAllocatesNothing()
        {
            Assert.Equal(0L, FrameLoopBytes(DelayFrameLoop, 512, 20, 200), "bytes");
        }

        [Test]
        public void NextFrameLoopWithFlowOffAllocatesNothing()
        {
            OnityContextFlow.Enabled = false;
            try { Assert.Equal(0L, FrameLoopBytes(NextFrameLoop, 512, 20, 100), "bytes"); }
            finally { OnityContextFlow.Enabled = true; }
        }

#pragma warning disable 1998
        static async OnityTask<int> CompletedTyped(int x) { return x + 1; }
        static async OnityTask CompletedUntyped() { }
#pragma warning restore 1998

        [Test]
        public void CompletedAsyncMethodAllocatesNothing()
        {
            int acc = 0;
            for (int i = 0; i < 1000; i++) { acc += CompletedTyped(i).GetAwaiter().GetResult(); CompletedUntyped().GetAwaiter().GetResult(); }
            long b0 = Bytes();
            for (int i = 0; i < 100000; i++) { acc += CompletedTyped(i).GetAwaiter().GetResult(); CompletedUntyped().GetAwaiter().GetResult(); }
            Assert.Equal(0L, Bytes() - b0, "bytes over 200,000 calls");
            Assert.True(acc != 0, "used");
        }

        static AutoResetOnityCompletionSource<int> pendingSource;

        static async OnityTask<long> AwaitManualSources(int n)
        {
            long sum = 0;
            for (int i = 0; i < n; i++)
            {
                var s = AutoResetOnityCompletionSource<int>.Create();
                pendingSource = s;
                sum += await s.Task;
            }
            pendingSource = null;
            return sum;
        }

        [Test]
        public void AwaitOfAManualSourceCompletedLaterAllocatesNothing()
        {
            using (var h = new TestHost())
            {
                var warm = AwaitManualSources(1000);
                for (int i = 0; i < 1000; i++) pendingSource.TrySetResult(1);
                Assert.Equal(1000L, warm.GetAwaiter().GetResult());
                var t = AwaitManualSources(50000);
                long b0 = Bytes();
                for (int i = 0; i < 50000; i++) pendingSource.TrySetResult(2);
                long d = Bytes() - b0;
                Assert.Equal(100000L, t.GetAwaiter().GetResult());
                Assert.Equal(0L, d, "bytes over 50,000 awaits");
            }
        }

        [Test]
        public void WhenAny32AllocatesNothing()
        {
            using (var h = new TestHost())
            {
                var srcs = new AutoResetOnityCompletionSource[32];
                var tasks = new OnityTask[32];
                long b0 = 0;
                for (int round = 0; round < 2200; round++)
                {
                    if (round == 200) b0 = Bytes();
                    for (int i = 0; i < 32; i++) { srcs[i] = AutoResetOnityCompletionSource.Create(); tasks[i] = srcs[i].Task; }
                    var any = OnityTask.WhenAny(tasks);
                    for (int i = 31; i >= 0; i--) srcs[i].TrySetResult();
                    if (any.GetAwaiter().GetResult() != 31) throw new AssertionException("winner");
                }
                Assert.Equal(0L, Bytes() - b0, "bytes over 2,000 groups");
            }
        }
    }
}
