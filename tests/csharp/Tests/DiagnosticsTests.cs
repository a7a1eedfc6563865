using System;
using System.Collections.Generic;
using System.Threading;
using Onity.Native;

namespace Onity.Tests
{
    public class DiagnosticsTests
    {
        static async OnityTask LeakyWaiter()
        {
            await OnityTask.DelayFrame(1000);
        }

        [Test]
        public void NativeStatsReportWaitsAndPools()
        {
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update);
                for (int i = 0; i < 10; i++) OnityTask.NextFrame().GetAwaiter().UnsafeOnCompleted(() => { });
                h.RunFrame(OnityTiming.Update);
                var s = h.Runtime.GetNativeStats();
                var nf = s.Get_waits((int)OnityWaitKind.NextFrame);
                Assert.Equal(10UL, nf.scheduled, "scheduled NextFrame");
                Assert.Equal(10UL, nf.completed, "completed NextFrame");
                Assert.Equal((uint)OnityNative.ONITY_POOL_COUNT, s.pool_count);
                Assert.True(s.Get_pools((int)OnityPool.Tasks).capacity > 0, "task pool capacity");
                Assert.Equal(2UL, s.frame, "frame");
            }
        }

        [Test]
        public void PendingWaitListShowsLeaksWithTheirAwaiter()
        {
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update);
                LeakyWaiter().Forget();
                // A frame wait never awaited costs nothing and cannot leak...
                OnityTask.NextFrame(OnityTiming.PreLateUpdate);
                // ...but one converted to a task holds a wait slot until awaited.
                OnityTask leaked = OnityTask.NextFrame(OnityTiming.PreLateUpdate);
                var list = new List<OnityPendingWait>();
                Assert.Equal(2, h.Runtime.GetPendingWaits(list));
                var text = string.Join(" | ", list);
                Assert.Contains("DelayFrame @Update created in frame 1 awaited by", text);
                Assert.Contains("LeakyWaiter", text);
                Assert.Contains("NextFrame @PreLateUpdate created in frame 1 (not awaited)", text);
                var native = new List<ulong>();
                var s = h.Runtime.CreateNativeCompletionSource();
                h.Runtime.GetNativeLiveTasks(native);
                Assert.True(native.Contains(s.Handle), "native live task listed");
                var m = h.Runtime.GetManagedStats();
                Assert.Equal(3, m.PendingWaits, "managed pending");
                Assert.Equal(m.PendingWaits, h.Runtime.PendingWaitCount, "O(1) count agrees with the scan");
                Assert.Equal("wait_records", OnityRuntime.PoolName(Onity.Native.OnityPool.WaitRecords));
                Assert.Equal("invalid", OnityRuntime.PoolName((Onity.Native.OnityPool)99));
                h.Runtime.NativeSetResult(s.Handle, 1);
            }
        }

        static async OnityTask Loop(int frames)
        {
            for (int i = 0; i < frames; i++) await OnityTask.NextFrame();
        }

        [Test]
        public void FrameWaitsCostOneCrossingPerFrameWhateverTheirNumber()
        {
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update);
                var tasks = new OnityTask[4096];
                for (int i = 0; i < tasks.Length; i++) tasks[i] = Loop(20);
                h.RunFrame(OnityTiming.Update);
                long before = OnityNativeCalls.Crossings;
                for (int f = 0; f < 10; f++) h.RunFrame(OnityTiming.Update);
                long perFrame = (OnityNativeCalls.Crossings - before) / 10;
                Assert.Equal(1L, perFrame, "Tick(Update); BeginFrame writes the frame, the tick applies it");
                for (int f = 0; f < 10; f++) h.RunFrame(OnityTiming.Update);
                foreach (var t in tasks) t.GetAwaiter().GetResult();
            }
        }

        [Test]
        public void PoolStatisticsAreExposed()
        {
            using (var h = new TestHost())
            {
                var s = AutoResetOnityCompletionSource.Create();
                var t = s.Task;
                s.TrySetResult();
                t.GetAwaiter().GetResult();
                Assert.True(AutoResetOnityCompletionSource.Pool.Idle >= 1, "idle source");
                Assert.True(AutoResetOnityCompletionSource.Pool.Rents >= 1, "rents counted");
            }
        }
    }
}
