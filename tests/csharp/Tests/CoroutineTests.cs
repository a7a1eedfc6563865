using System;
using System.Collections;
using System.Threading;

namespace Onity.Tests
{
    /// <summary>OnityTask(&lt;T&gt;).ToCoroutine: a task driven as a coroutine (StartCoroutine, [UnityTest]).</summary>
    public class CoroutineTests
    {
        static async OnityTask<int> AfterFrames(int frames, int value)
        {
            for (int i = 0; i < frames; i++) await OnityTask.NextFrame();
            return value;
        }

        static async OnityTask TwoFrames()
        {
            await OnityTask.NextFrame();
            await OnityTask.NextFrame();
        }

        static async OnityTask FailAfterAFrame(Exception ex)
        {
            await OnityTask.NextFrame();
            throw ex;
        }

        /// <summary>Drives the coroutine as Unity does: MoveNext once per frame. Returns the
        /// number of frames it yielded.</summary>
        static int Drive(TestHost h, IEnumerator e)
        {
            int frames = 0;
            while (e.MoveNext())
            {
                Assert.True(e.Current == null, "yields null");
                h.RunFrame();
                if (++frames > 100) throw new Exception("the coroutine did not end");
            }
            return frames;
        }

        [Test]
        public void ACoroutineEndsWhenItsTaskCompletesAndHandsOverTheResult()
        {
            using (var h = new TestHost())
            {
                int result = 0;
                Assert.Equal(3, Drive(h, AfterFrames(3, 42).ToCoroutine(r => result = r)), "frames yielded");
                Assert.Equal(42, result, "result");
                Assert.Equal(0, Drive(h, OnityTask.FromResult(7).ToCoroutine(r => result = r)), "a completed task ends at once");
                Assert.Equal(7, result, "result of a completed task");
                Assert.Equal(2, Drive(h, ((OnityTask)AfterFrames(2, 0)).ToCoroutine()), "untyped");
                Assert.Equal(2, Drive(h, OnityTask.DelayFrame(2).ToCoroutine()), "a frame wait");
                // (A method group: mcs cannot turn an async lambda into a Func<OnityTask>; Roslyn can.)
                Func<OnityTask> factory = TwoFrames;
                Assert.Equal(2, Drive(h, OnityTask.ToCoroutine(factory)), "from a factory");
                Assert.Throws<ArgumentNullException>(() => OnityTask.ToCoroutine((Func<OnityTask>)null));
                var e = OnityTask.CompletedTask.ToCoroutine();
                Assert.True(!e.MoveNext() && !e.MoveNext(), "ended stays ended");
            }
        }

        [Test]
        public void AFailureIsThrownFromMoveNextOrHandedToTheHandler()
        {
            using (var h = new TestHost())
            using (var cts = new CancellationTokenSource())
            {
                var boom = new InvalidTimeZoneException("boom");
                var thrown = Assert.Throws<InvalidTimeZoneException>(() => Drive(h, FailAfterAFrame(boom).ToCoroutine()));
                Assert.True(ReferenceEquals(boom, thrown), "the task's own exception");
                Assert.True(thrown.StackTrace.Contains("FailAfterAFrame"), "with its original stack trace: " + thrown.StackTrace);

                Exception handled = null;
                Assert.Equal(1, Drive(h, FailAfterAFrame(boom).ToCoroutine(ex => handled = ex)), "ends normally with a handler");
                Assert.True(ReferenceEquals(boom, handled), "handler got the exception");

                var canceled = OnityTask.NextFrame(cts.Token);
                cts.Cancel();
                Assert.Throws<OperationCanceledException>(() => Drive(h, canceled.ToCoroutine()));
            }
        }

        [Test]
        public void AStaleOrAwaitedTaskThrowsFromTheFirstMoveNext()
        {
            using (var h = new TestHost())
            {
                var pooled = AutoResetOnityCompletionSource<int>.Create();
                var t = pooled.Task;
                var first = t.ToCoroutine();
                Assert.True(first.MoveNext(), "waiting");
                var second = t.ToCoroutine();
                Assert.Throws<InvalidOperationException>(() => second.MoveNext(), "awaited twice");
                Assert.True(!second.MoveNext(), "and then ended");
                pooled.TrySetResult(5);
                Assert.True(!first.MoveNext(), "the first ends (and consumes the task)");
                Assert.Throws<InvalidOperationException>(() => t.ToCoroutine().MoveNext(), "stale: the source was recycled");

                // A plain source may be awaited by several: each coroutine ends with the result.
                var plain = new OnityCompletionSource<int>();
                int a = 0, b = 0;
                var ca = plain.Task.ToCoroutine(r => a = r);
                var cb = plain.Task.ToCoroutine(r => b = r);
                Assert.True(ca.MoveNext() && cb.MoveNext(), "both waiting");
                plain.TrySetResult(9);
                Assert.True(!ca.MoveNext() && !cb.MoveNext(), "both end");
                Assert.Equal(18, a + b, "both got the result");
            }
        }

        [Test]
        public void AStoppedCoroutineLeavesNothingBehind()
        {
            // StopCoroutine, or a destroyed GameObject: MoveNext is never called again.
            using (var h = new TestHost())
            {
                long runners = CompilerServices.OnityRunnerStats.Live;
                var stopped = new[]
                {
                    AfterFrames(2, 1).ToCoroutine(),
                    ((OnityTask)AfterFrames(1, 1)).ToCoroutine(),
                    OnityTask.DelayFrame(2, OnityTiming.Update, new CancellationTokenSource().Token).ToCoroutine(),
                    OnityTask.DelayFrame(2).ToCoroutine(),
                };
                foreach (var e in stopped) Assert.True(e.MoveNext(), "started and waiting");
                var neverStarted = OnityTask.NextFrame().ToCoroutine();
                for (int i = 0; i < 5; i++) h.RunFrame();
                var m = h.Runtime.GetManagedStats();
                Assert.Equal(0, m.PendingWaits + m.CompletedUnconsumedWaits + m.FastLaneWaits, "wait slots left behind");
                Assert.Equal(runners, CompilerServices.OnityRunnerStats.Live, "runners not returned");
                GC.KeepAlive(neverStarted);
            }
        }

        [Test]
        public void AfterAStaleTaskThrewTheCoroutineHasEnded()
        {
            using (var h = new TestHost())
            {
                var pooled = AutoResetOnityCompletionSource<int>.Create();
                var t = pooled.Task;
                pooled.TrySetResult(1);
                t.GetAwaiter().GetResult();
                var e = t.ToCoroutine();
                Assert.Throws<InvalidOperationException>(() => e.MoveNext(), "stale");
                Assert.True(!e.MoveNext(), "ended");
            }
        }
    }
}
