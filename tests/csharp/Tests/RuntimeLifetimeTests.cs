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

        sealed class QueueContext : SynchronizationContext
        {
            public readonly System.Collections.Generic.Queue<Action> Queue = new System.Collections.Generic.Queue<Action>();
            public override void Post(SendOrPostCallback d, object state) { lock (Queue) Queue.Enqueue(() => d(state)); }
            public void Pump() { while (true) { Action a; lock (Queue) { if (Queue.Count == 0) return; a = Queue.Dequeue(); } a(); } }
        }

        [Test]
        public void WithoutARuntimeOffThreadCompletionsGoToNoRuntimeContext()
        {
            var ctx = new QueueContext();
            int main = Thread.CurrentThread.ManagedThreadId;
            try
            {
                var h = new TestHost();
                var src = new OnityCompletionSource();
                int ranOn = 0;
                src.Task.GetAwaiter().OnCompleted(() => ranOn = Thread.CurrentThread.ManagedThreadId);
                h.Dispose();
                // Default (no context): the continuation runs on the completing thread, as before.
                OnityRuntime.NoRuntimeContext = null;
                var s2 = new OnityCompletionSource();
                int ranOn2 = 0;
                s2.Task.GetAwaiter().OnCompleted(() => ranOn2 = Thread.CurrentThread.ManagedThreadId);
                var t0 = new Thread(() => s2.TrySetResult());
                t0.Start();
                t0.Join();
                Assert.Equal(t0.ManagedThreadId, ranOn2, "no context: on the completing thread");

                OnityRuntime.NoRuntimeContext = ctx;
                var th = new Thread(() => src.TrySetResult());
                th.Start();
                th.Join();
                Assert.Equal(0, ranOn, "posted to the context, not run on the worker");
                Assert.Equal(1, ctx.Queue.Count, "one post");
                ctx.Pump();
                Assert.Equal(main, ranOn, "run where the context runs its posts");

                // SwitchToMainThread from a worker after the dispose: through the context too.
                Exception seen = null;
                int switchedOn = 0;
                var w = new Thread(() =>
                {
                    var aw = OnityTask.SwitchToMainThread().GetAwaiter();
                    aw.UnsafeOnCompleted(() =>
                    {
                        switchedOn = Thread.CurrentThread.ManagedThreadId;
                        try { aw.GetResult(); } catch (Exception e) { seen = e; }
                    });
                });
                w.Start();
                w.Join();
                Assert.Equal(0, switchedOn, "not run on the worker");
                ctx.Pump();
                Assert.Equal(main, switchedOn, "switched through the context");
                Assert.True(seen is OperationCanceledException, "and canceled: " + seen);
            }
            finally { OnityRuntime.NoRuntimeContext = null; }
        }

        static async OnityTask CancelThenFinish()
        {
            try { await OnityTask.Yield(); }
            catch (OperationCanceledException) { }
        }
    }
}
