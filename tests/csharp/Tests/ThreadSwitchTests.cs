using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;

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

        [Test]
        public void SwitchToMainThreadAfterDisposeCompletesCanceled()
        {
            var h = new TestHost();
            var started = new ManualResetEvent(false);
            var release = new ManualResetEvent(false);
            Exception seen = null;
            var t = Task.Run(async () =>
            {
                started.Set();
                release.WaitOne();
                try { await OnityTask.SwitchToMainThread(); }
                catch (Exception e) { seen = e; }
            });
            started.WaitOne();
            h.Dispose();
            release.Set();
            Assert.True(t.Wait(10000), "worker finished");
            Assert.True(seen is OperationCanceledException, "canceled after dispose: " + seen);
            // Posted before the dispose: the continuation runs at dispose, canceled.
            var h2 = new TestHost();
            var posted = new ManualResetEvent(false);
            Exception seen2 = null;
            bool sawPending = false;
            var done = new ManualResetEvent(false);
            ThreadPool.QueueUserWorkItem(_ =>
            {
                var aw = OnityTask.SwitchToMainThread().GetAwaiter();
                sawPending = !aw.IsCompleted;
                aw.UnsafeOnCompleted(() =>
                {
                    try { aw.GetResult(); } catch (Exception e) { seen2 = e; }
                    done.Set();
                });
                posted.Set();
            });
            Assert.True(posted.WaitOne(10000), "posted");
            h2.Dispose();
            Assert.True(done.WaitOne(10000), "continuation ran");
            Assert.True(sawPending, "was pending on the worker");
            Assert.True(seen2 is OperationCanceledException, "canceled: " + seen2);
        }
    }
}
