using System;
using System.Threading;

namespace Onity.Tests
{
    /// <summary>Several runtimes: which one is Current, where completions go, and the one-owner-thread rule.</summary>
    public class RuntimeLifetimeTests
    {
        [Test]
        public void DisposingANewerRuntimeMakesTheOlderOneCurrentAgain()
        {
            using (var h = new TestHost())
            {
                int owner = Thread.CurrentThread.ManagedThreadId;
                var temp = new OnityRuntime(); // e.g. a temporary runtime for a tool or a scene
                Assert.True(OnityRuntime.Current == temp, "the newest is current");
                temp.Dispose();
                Assert.True(OnityRuntime.Current == h.Runtime, "the live one is current again");
                Assert.False(OnityRuntime.LastDisposed, "a runtime is still alive");

                // Static helpers work again, and an off-thread completion resumes on the owner.
                int resumed = 0;
                var w = OnityTask.NextFrame().GetAwaiter();
                w.UnsafeOnCompleted(() => resumed++);
                var src = new OnityCompletionSource();
                int ranOn = 0;
                src.Task.GetAwaiter().OnCompleted(() => ranOn = Thread.CurrentThread.ManagedThreadId);
                var th = new Thread(() => src.TrySetResult());
                th.Start();
                th.Join();
                Assert.Equal(0, ranOn, "posted to the owner, not run on the worker");
                h.RunFrame(OnityTiming.Update);
                Assert.Equal(owner, ranOn, "continuation thread (owner " + owner + ")");
                Assert.Equal(1, resumed, "the frame wait resumed");
            }
            Assert.True(OnityRuntime.Current == null && OnityRuntime.LastDisposed, "none left");
        }

        [Test]
        public void ARuntimeOnASecondThreadIsRefusedWhileAnotherIsAlive()
        {
            using (var h = new TestHost())
            {
                Exception refused = null;
                OnityRuntime created = null;
                var th = new Thread(() =>
                {
                    try { created = new OnityRuntime(); }
                    catch (Exception e) { refused = e; }
                });
                th.Start();
                th.Join();
                Assert.True(created == null, "not created");
                Assert.True(refused is InvalidOperationException, "refused: " + refused);
                Assert.Contains("same owner thread", refused.Message);
                Assert.True(OnityRuntime.Current == h.Runtime, "the live runtime is still current");
                h.RunFrame(OnityTiming.Update);
                OnityTask.NextFrame().ToOnityTask().Forget();
                h.RunFrame(OnityTiming.Update);
            }
            // Once none is alive, another thread may own one.
            Exception late = null;
            var th2 = new Thread(() =>
            {
                try
                {
                    var r = new OnityRuntime();
                    if (OnityRuntime.Current != r) throw new Exception("not current");
                    r.Dispose();
                }
                catch (Exception e) { late = e; }
            });
            th2.Start();
            th2.Join();
            Assert.True(late == null, "a runtime on another thread after the first was disposed: " + late);
        }

        [Test]
        public void AWaitStartedAfterTheRuntimeWasDisposedIsCanceled()
        {
            var h = new TestHost();
            h.Dispose();
            // Unity calls OnDisable/OnDestroy after Play Mode's exit disposed the runtime: a wait
            // started there is canceled (as the waits Dispose canceled), not a "no runtime" error.
            var ex = Assert.Throws<OperationCanceledException>(() => OnityTask.NextFrame());
            Assert.Contains("disposed", ex.Message);
            Assert.Throws<OperationCanceledException>(() => OnityTask.DelayFrame(3, OnityTiming.Update, CancellationToken.None));
            Assert.Throws<OperationCanceledException>(() => OnityTask.Delay(TimeSpan.FromSeconds(1)));
            var t = CancelThenFinish();
            Assert.Equal(OnityTaskStatus.Succeeded, t.Status, "an async method that catches it finishes");
            t.GetAwaiter().GetResult();
        }

        static async OnityTask CancelThenFinish()
        {
            try { await OnityTask.Yield(); }
            catch (OperationCanceledException) { }
        }
    }
}
