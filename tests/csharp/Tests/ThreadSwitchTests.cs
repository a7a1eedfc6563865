using System;
using System.Collections.Generic;
using System.Threading;

namespace Onity.Tests
{
    public class ThreadSwitchTests
    {
        static async OnityTask<string> HopAndBack(int owner)
        {
            await OnityTask.SwitchToThreadPool();
            bool onPool = Thread.CurrentThread.ManagedThreadId != owner;
            await OnityTask.SwitchToMainThread();
            bool back = Thread.CurrentThread.ManagedThreadId == owner;
            return onPool + "/" + back;
        }

        [Test]
        public void SwitchToMainThreadResumesOnTheOwnerAtTheNextTick()
        {
            using (var h = new TestHost())
            {
                int owner = Thread.CurrentThread.ManagedThreadId;
                var t = HopAndBack(owner);
                var deadline = DateTime.UtcNow.AddSeconds(10);
                while (t.Status == OnityTaskStatus.Pending && DateTime.UtcNow < deadline)
                {
                    Thread.Sleep(1);
                    h.RunFrame(OnityTiming.Update);
                }
                Assert.Equal("True/True", t.GetAwaiter().GetResult());
            }
        }

        [Test]
        public void SwitchToMainThreadOnTheOwnerCompletesAtOnce()
        {
            using (var h = new TestHost())
            {
                Assert.True(OnityTask.SwitchToMainThread().GetAwaiter().IsCompleted, "already on the main thread");
            }
        }
    }
}
