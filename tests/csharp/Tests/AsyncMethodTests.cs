using System;
using System.Collections.Generic;
using Onity.CompilerServices;

namespace Onity.Tests
{
    public class AsyncMethodTests
    {
#pragma warning disable 1998
        static async OnityTask<int> CompletedTyped(int x) { return x * 2; }
        static async OnityTask CompletedUntyped() { }
        static async OnityTask<int> CompletedThrows() { throw new NotSupportedException("sync"); }
        static async OnityTask UntypedThrows() { throw new FormatException("untyped sync"); }
        static async OnityTask CanceledSync() { throw new OperationCanceledException("sync cancel"); }
#pragma warning restore 1998

        static async OnityTask<int> Inner(int depth)
        {
            await OnityTask.Yield();
            return depth == 0 ? 1 : 1 + await Inner(depth - 1);
        }

        [Test]
        public void SynchronousMethodsCompleteWithoutARunner()
        {
            using (var h = new TestHost())
            {
                long created = OnityRunnerStats.Created, rented = OnityRunnerStats.Rented;
                var t = CompletedTyped(21);
                Assert.Equal(OnityTaskStatus.Succeeded, t.Status);
                Assert.Equal(42, t.GetAwaiter().GetResult());
                Assert.Equal(OnityTaskStatus.Succeeded, CompletedUntyped().Status);
                Assert.Equal(rented, OnityRunnerStats.Rented, "no runner rented");
                Assert.Equal(created, OnityRunnerStats.Created, "no runner created");
                var f = CompletedThrows();
                Assert.Equal(OnityTaskStatus.Faulted, f.Status);
                Assert.Throws<NotSupportedException>(() => f.GetAwaiter().GetResult());
                var u = UntypedThrows();
                Assert.Equal(OnityTaskStatus.Faulted, u.Status);
                var ex = Assert.Throws<FormatException>(() => u.GetAwaiter().GetResult());
                Assert.Contains("UntypedThrows", ex.StackTrace, "original stack kept");
                var c = CanceledSync();
                Assert.Equal(OnityTaskStatus.Canceled, c.Status);
                Assert.Throws<OperationCanceledException>(() => c.GetAwaiter().GetResult());
            }
        }

        [Test]
        public void NestedAsyncMethodsResumeInOrderAndReturnRunners()
        {
            using (var h = new TestHost())
            {
                long live = OnityRunnerStats.Live;
                h.RunFrame(OnityTiming.Update);
                var t = Inner(4);
                int frames = 0;
                while (t.Status == OnityTaskStatus.Pending && frames < 20)
                {
                    h.RunFrame(OnityTiming.Update);
                    frames++;
                }
                Assert.Equal(5, t.GetAwaiter().GetResult());
                Assert.Equal(5, frames, "one Yield per level, one Update per frame");
                Assert.Equal(live, OnityRunnerStats.Live, "every runner back in its pool");
            }
        }

        static async OnityTask AwaitTwiceInside(OnityTask t)
        {
            await t;
            await t;
        }

        [Test]
        public void AwaitingTheSameTaskTwiceInsideAnAsyncMethodFaults()
        {
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update);
                var outer = AwaitTwiceInside(OnityTask.NextFrame());
                h.RunFrame(OnityTiming.Update);
                var ex = Assert.Throws<InvalidOperationException>(() => outer.GetAwaiter().GetResult());
                Assert.Contains("can not await twice", ex.Message);
            }
        }

        static async OnityTask<string> MixedAwaits(AutoResetOnityCompletionSource<string> s)
        {
            await OnityTask.NextFrame();
            var v = await s.Task;
            await OnityTask.DelayFrame(2);
            return v + "!";
        }

        [Test]
        public void MixedAwaitsInOneMethod()
        {
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update);
                var s = AutoResetOnityCompletionSource<string>.Create();
                var t = MixedAwaits(s);
                h.RunFrame(OnityTiming.Update);
                Assert.Equal(OnityTaskStatus.Pending, t.Status);
                s.TrySetResult("hi");
                h.RunFrame(OnityTiming.Update);
                Assert.Equal(OnityTaskStatus.Pending, t.Status, "DelayFrame(2) from frame 2");
                h.RunFrame(OnityTiming.Update);
                Assert.Equal("hi!", t.GetAwaiter().GetResult());
            }
        }
    }
}
