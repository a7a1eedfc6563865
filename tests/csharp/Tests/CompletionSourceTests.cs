using System;
using System.Collections.Generic;
using System.Threading;

namespace Onity.Tests
{
    public class CompletionSourceTests
    {
        static async OnityTask<int> AwaitTyped(OnityTask<int> t, List<string> log)
        {
            int v = await t;
            log.Add("got " + v + " on " + Thread.CurrentThread.ManagedThreadId);
            return v;
        }

        [Test]
        public void AutoResetSourceCompletedLaterResumesInline()
        {
            using (var h = new TestHost())
            {
                var log = new List<string>();
                var s = AutoResetOnityCompletionSource<int>.Create();
                var t = AwaitTyped(s.Task, log);
                Assert.Equal(0, log.Count);
                Assert.True(s.TrySetResult(7));
                Assert.Equal("got 7 on " + Thread.CurrentThread.ManagedThreadId, string.Join(",", log));
                Assert.False(s.TrySetResult(8), "second completion");
                Assert.Equal(7, t.GetAwaiter().GetResult());
                Assert.False(s.TrySetResult(9), "late TrySet after the source went back to the pool");
            }
        }

        [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
        static void ThrowingMethodForStackTrace() { throw new FormatException("boom"); }

        [Test]
        public void ExceptionKeepsOriginalStackTrace()
        {
            using (var h = new TestHost())
            {
                var s = AutoResetOnityCompletionSource.Create();
                var t = s.Task;
                try { ThrowingMethodForStackTrace(); }
                catch (Exception ex) { s.TrySetException(ex); }
                var e = Assert.Throws<FormatException>(() => t.GetAwaiter().GetResult());
                Assert.Contains("ThrowingMethodForStackTrace", e.StackTrace, "stack trace");

                var s2 = AutoResetOnityCompletionSource.Create();
                var t2 = s2.Task;
                s2.TrySetCanceled();
                Assert.Throws<OperationCanceledException>(() => t2.GetAwaiter().GetResult());
            }
        }

        [Test]
        public void PlainSourceSupportsManyAwaitersAndRepeatedReads()
        {
            using (var h = new TestHost())
            {
                var log = new List<string>();
                var s = new OnityCompletionSource<int>();
                var a = AwaitTyped(s.Task, log);
                var b = AwaitTyped(s.Task, log);
                s.TrySetResult(3);
                Assert.Equal(2, log.Count);
                Assert.Equal(3, s.Task.GetAwaiter().GetResult());
                Assert.Equal(3, s.Task.GetAwaiter().GetResult());
                Assert.Equal(3, a.GetAwaiter().GetResult() + b.GetAwaiter().GetResult() - 3);
                var u = new OnityCompletionSource();
                var ut = u.Task;
                Assert.Equal(OnityTaskStatus.Pending, ut.Status);
                u.TrySetResult();
                ut.GetAwaiter().GetResult();
            }
        }

        [Test]
        public void CompletionFromWorkerThreadResumesOnOwnerAtNextTick()
        {
            using (var h = new TestHost())
            {
                var log = new List<string>();
                h.RunFrame(OnityTiming.Update);
                var s = AutoResetOnityCompletionSource<int>.Create();
                var t = AwaitTyped(s.Task, log);
                bool ok = false;
                var th = new Thread(() => { ok = s.TrySetResult(11); });
                th.Start();
                th.Join();
                Assert.True(ok, "worker TrySetResult");
                Assert.Equal(0, log.Count, "not run on the worker");
                h.Runtime.Tick(OnityTiming.LastUpdate);
                Assert.Equal("got 11 on " + Thread.CurrentThread.ManagedThreadId, string.Join(",", log));
                Assert.Equal(11, t.GetAwaiter().GetResult());
            }
        }

        [Test]
        public void ManyWorkersRacingOneSourceExactlyOneWins()
        {
            using (var h = new TestHost())
            {
                for (int round = 0; round < 50; round++)
                {
                    var s = AutoResetOnityCompletionSource<int>.Create();
                    var log = new List<string>();
                    var t = AwaitTyped(s.Task, log);
                    int wins = 0;
                    var threads = new Thread[4];
                    for (int i = 0; i < threads.Length; i++)
                    {
                        int k = i;
                        threads[i] = new Thread(() =>
                        {
                            bool w = k == 0 ? s.TrySetCanceled() : k == 1 ? s.TrySetException(new Exception("x")) : s.TrySetResult(k);
                            if (w) Interlocked.Increment(ref wins);
                        });
                    }
                    foreach (var th in threads) th.Start();
                    foreach (var th in threads) th.Join();
                    Assert.Equal(1, wins, "winners");
                    h.Runtime.Drain();
                    Assert.True(t.Status != OnityTaskStatus.Pending, "completed after drain");
                    try { t.GetAwaiter().GetResult(); } catch (Exception) { }
                }
                // Only this test's own failures ("x") count: a task an earlier test dropped can be
                // finalized, and reported, while this one runs (seen under load).
                int own = 0;
                lock (h.Unobserved) foreach (var e in h.Unobserved) if (e.Message == "x") own++;
                Assert.Equal(0, own, "nothing of this test unobserved");
            }
        }

#if ONITY_TEST_HOOKS
        static async OnityTask<int> AwaitAndAdd(OnityTask<int> t, int add) { return await t + add; }

        [Test]
        public void CompletionIsSeenOnlyAfterTheWorkerSignalled()
        {
            // A worker completes a pooled source and is stopped between publishing the result and
            // signalling. The owner, polling, must not see the task completed yet: if it did, it
            // would consume it, the source would go back to the pool and its next use would get
            // the worker's late signal (an early continuation, then "GetResult before completion").
            using (var h = new TestHost())
            {
                var published = new ManualResetEventSlim();
                var release = new ManualResetEventSlim();
                try
                {
                    OnityTestHooks.AfterStatePublished = () =>
                    {
                        if (Thread.CurrentThread.IsBackground) { published.Set(); release.Wait(5000); }
                    };
                    var s = AutoResetOnityCompletionSource<int>.Create();
                    var t = s.Task;
                    var worker = new Thread(() => s.TrySetResult(5)) { IsBackground = true };
                    worker.Start();
                    Assert.True(published.Wait(5000), "the worker reached the hook");
                    var deadline = DateTime.UtcNow.AddMilliseconds(50);
                    while (DateTime.UtcNow < deadline)
                        Assert.Equal(OnityTaskStatus.Pending, t.Status, "status while the worker has not signalled");
                    try { t.GetAwaiter().GetResult(); Assert.True(false, "GetResult before the signal must throw"); }
                    catch (InvalidOperationException e) { Assert.Equal(OnityErrors.NotCompleted, e.Message); }

                    // The source stays out of the pool: a new source is another object.
                    var next = AutoResetOnityCompletionSource<int>.Create();
                    Assert.False(ReferenceEquals(next, s), "the source was not recycled early");
                    var m = AwaitAndAdd(next.Task, 1);

                    release.Set();
                    worker.Join();
                    h.Runtime.Drain();
                    Assert.Equal(OnityTaskStatus.Succeeded, t.Status, "completed once signalled");
                    Assert.Equal(5, t.GetAwaiter().GetResult());
                    Assert.Equal(OnityTaskStatus.Pending, m.Status, "the next use is untouched");
                    Assert.True(next.TrySetResult(9));
                    Assert.Equal(10, m.GetAwaiter().GetResult());
                }
                finally
                {
                    OnityTestHooks.Reset();
                    release.Set();
                }
                Assert.Equal(0, h.Unobserved.Count, "nothing unobserved");
            }
        }
#endif
    }
}
