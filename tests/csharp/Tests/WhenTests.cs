using System;
using System.Collections.Generic;

namespace Onity.Tests
{
    public class WhenTests
    {
        [Test]
        public void WhenAnyReportsTheWinnerIndexAndResult()
        {
            using (var h = new TestHost())
            {
                var srcs = new AutoResetOnityCompletionSource<int>[5];
                var tasks = new OnityTask<int>[5];
                for (int i = 0; i < 5; i++) { srcs[i] = AutoResetOnityCompletionSource<int>.Create(); tasks[i] = srcs[i].Task; }
                var any = OnityTask.WhenAny(tasks);
                Assert.Equal(OnityTaskStatus.Pending, any.Status);
                for (int i = 4; i >= 0; i--) srcs[i].TrySetResult(100 + i);
                var r = any.GetAwaiter().GetResult();
                Assert.Equal(4, r.winArgumentIndex, "winner");
                Assert.Equal(104, r.result, "result");
                int idx; int val;
                r.Deconstruct(out idx, out val); // `var (i, v) = r;` with Roslyn (mcs cannot)
                Assert.Equal(4, idx, "deconstructed index");
                Assert.Equal(104, val, "deconstructed result");
                Assert.Throws<InvalidOperationException>(() => any.GetAwaiter().GetResult(), "await twice");
            }
        }

        [Test]
        public void WhenAnyWithCompletedInputsPicksTheFirstInArrayOrder()
        {
            using (var h = new TestHost())
            {
                var pending = AutoResetOnityCompletionSource.Create();
                var any = OnityTask.WhenAny(pending.Task, OnityTask.CompletedTask, OnityTask.CompletedTask);
                Assert.Equal(1, any.GetAwaiter().GetResult());
                pending.TrySetResult();
            }
        }

        [Test]
        public void TypedCombinatorsReadCompletedAndUnawaitableInputs()
        {
            using (var h = new TestHost())
            {
                // A completed input (no source) is read from the task; the first in array order wins.
                var pending = AutoResetOnityCompletionSource<int>.Create();
                var any = OnityTask.WhenAny(new[] { pending.Task, OnityTask.FromResult(7), OnityTask.FromResult(8) });
                var r = any.GetAwaiter().GetResult();
                Assert.Equal(1, r.winArgumentIndex, "winner");
                Assert.Equal(7, r.result, "the completed input's result");
                pending.TrySetResult(1);
                // An input awaited elsewhere faults the typed combinators like the untyped ones.
                var s = AutoResetOnityCompletionSource<int>.Create();
                var t = s.Task;
                t.GetAwaiter().UnsafeOnCompleted(() => { });
                var anyT = OnityTask.WhenAny(new[] { OnityTask.FromResult(1), t });
                Assert.Equal(0, anyT.GetAwaiter().GetResult().winArgumentIndex, "a completed input before it wins");
                var allT = OnityTask.WhenAll(new[] { OnityTask.FromResult(1), t });
                Assert.Equal(OnityTaskStatus.Faulted, allT.Status);
                Assert.Throws<InvalidOperationException>(() => allT.GetAwaiter().GetResult());
                var anyF = OnityTask.WhenAny(new[] { t });
                Assert.Throws<InvalidOperationException>(() => anyF.GetAwaiter().GetResult());
                s.TrySetResult(2);
                Assert.Equal(2, t.GetAwaiter().GetResult());
            }
        }

        [Test]
        public void WhenAnyFaultsLikeAFaultedWinnerAndIgnoresFaultedLosers()
        {
            using (var h = new TestHost())
            {
                var a = AutoResetOnityCompletionSource.Create();
                var b = AutoResetOnityCompletionSource.Create();
                var any = OnityTask.WhenAny(a.Task, b.Task);
                b.TrySetException(new ApplicationException("b failed"));
                a.TrySetException(new ApplicationException("a failed (loser)"));
                var ex = Assert.Throws<ApplicationException>(() => any.GetAwaiter().GetResult());
                Assert.Equal("b failed", ex.Message);
                Assert.Equal(0, h.Unobserved.Count, "loser failures are observed silently");
            }
        }

        [Test]
        public void WhenAnyOverFrameWaits()
        {
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update);
                var any = OnityTask.WhenAny(OnityTask.DelayFrame(3), OnityTask.NextFrame(), OnityTask.DelayFrame(2));
                h.RunFrame(OnityTiming.Update);
                Assert.Equal(1, any.GetAwaiter().GetResult());
                h.RunFrame(OnityTiming.Update);
                h.RunFrame(OnityTiming.Update);
                Assert.Equal(0, h.Runtime.GetManagedStats().PendingWaits + h.Runtime.GetManagedStats().CompletedUnconsumedWaits, "losers consumed");
            }
        }

        [Test]
        public void WhenAnyAndWhenAllTakeCompletedFrameWaitsAtOnceAndFaultOnStaleOnes()
        {
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update);
                OnityTask done = OnityTask.NextFrame();
                OnityTask later = OnityTask.DelayFrame(5);
                h.RunFrame(OnityTiming.Update);
                Assert.Equal(OnityTaskStatus.Succeeded, done.Status);
                // A completed (not yet awaited) frame wait wins at once, in array order.
                var any = OnityTask.WhenAny(later, done);
                Assert.Equal(OnityTaskStatus.Succeeded, any.Status);
                Assert.Equal(1, any.GetAwaiter().GetResult());
                // The same task is now stale (consumed by the combinator): a new combinator faults.
                var stale = OnityTask.WhenAny(done);
                Assert.Equal(OnityTaskStatus.Faulted, stale.Status);
                Assert.Throws<InvalidOperationException>(() => stale.GetAwaiter().GetResult());
                var staleAll = OnityTask.WhenAll(done);
                Assert.Throws<InvalidOperationException>(() => staleAll.GetAwaiter().GetResult());
                OnityTask a = OnityTask.NextFrame();
                h.RunFrame(OnityTiming.Update);
                var all = OnityTask.WhenAll(a, OnityTask.CompletedTask);
                Assert.Equal(OnityTaskStatus.Succeeded, all.Status);
                all.GetAwaiter().GetResult();
                for (int i = 0; i < 6; i++) h.RunFrame(OnityTiming.Update);
                Assert.Equal(0, h.Runtime.GetManagedStats().PendingWaits + h.Runtime.GetManagedStats().CompletedUnconsumedWaits, "every wait consumed");
            }
        }

        [Test]
        public void WhenAny32IsReusedFromThePool()
        {
            using (var h = new TestHost())
            {
                var srcs = new AutoResetOnityCompletionSource[32];
                var tasks = new OnityTask[32];
                for (int round = 0; round < 200; round++)
                {
                    for (int i = 0; i < 32; i++) { srcs[i] = AutoResetOnityCompletionSource.Create(); tasks[i] = srcs[i].Task; }
                    var any = OnityTask.WhenAny(tasks);
                    for (int i = 31; i >= 0; i--) srcs[i].TrySetResult();
                    Assert.Equal(31, any.GetAwaiter().GetResult());
                }
            }
        }

        [Test]
        public void WhenAllCollectsResultsAndFirstErrorWins()
        {
            using (var h = new TestHost())
            {
                var a = AutoResetOnityCompletionSource<int>.Create();
                var b = AutoResetOnityCompletionSource<int>.Create();
                // An array: three tasks of one type as arguments bind the tuple WhenAll (UniTask's overloads).
                var all = OnityTask.WhenAll(new[] { a.Task, b.Task, OnityTask.FromResult(3) });
                b.TrySetResult(2);
                Assert.Equal(OnityTaskStatus.Pending, all.Status);
                a.TrySetResult(1);
                Assert.Equal("1,2,3", string.Join(",", all.GetAwaiter().GetResult()));

                var c = AutoResetOnityCompletionSource.Create();
                var d = AutoResetOnityCompletionSource.Create();
                var e = AutoResetOnityCompletionSource.Create();
                var all2 = OnityTask.WhenAll(c.Task, d.Task, e.Task);
                d.TrySetException(new ApplicationException("first"));
                c.TrySetException(new ApplicationException("second"));
                Assert.Equal(OnityTaskStatus.Pending, all2.Status, "waits for every input");
                e.TrySetResult();
                var ex = Assert.Throws<ApplicationException>(() => all2.GetAwaiter().GetResult());
                Assert.Equal("first", ex.Message);
                OnityTask.WhenAll(new OnityTask[0]).GetAwaiter().GetResult();
            }
        }

        [Test]
        public void WhenAllOverFrameWaits()
        {
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update);
                var all = OnityTask.WhenAll(OnityTask.DelayFrame(3), OnityTask.NextFrame(), OnityTask.Yield(OnityTiming.LastUpdate));
                for (int i = 0; i < 2; i++) h.RunFrame(OnityTiming.Update, OnityTiming.LastUpdate);
                Assert.Equal(OnityTaskStatus.Pending, all.Status);
                h.RunFrame(OnityTiming.Update);
                all.GetAwaiter().GetResult();
            }
        }
    
        [Test]
        public void AFaultedOrCanceledWhenAnyIsRecycledOnceObserved()
        {
            // GetResult rethrowing the winner's fault or cancellation used to skip the release: the
            // pooled coordinator (and its token registration) stayed alive, and a second GetResult
            // rethrew instead of reporting a consumed task.
            using (var h = new TestHost())
            {
                var cts = new System.Threading.CancellationTokenSource();
                var pool = WhenPromise<OnityTask, int, WhenAnyPromise.Ops>.Pool16;
                for (int round = 0; round < 3; round++)
                {
                    long returns = pool.Returns;
                    var inputs = round == 0 ? new[] { OnityTask.FromException(new FormatException("first")), OnityTask.FromException(new ArgumentException("second")) }
                        : round == 1 ? new[] { OnityTask.FromCanceled(), OnityTask.CompletedTask }
                        : new[] { OnityTask.CompletedTask, OnityTask.FromException(new FormatException("loser")) };
                    var any = OnityTask.WhenAny(inputs, cts.Token);
                    var awaiter = any.GetAwaiter();
                    Exception ex = null;
                    try { awaiter.GetResult(); } catch (Exception e) { ex = e; }
                    if (round == 0) Assert.True(ex is FormatException && ex.Message == "first", "the first input's fault: " + ex);
                    if (round == 1) Assert.True(ex is OperationCanceledException, "canceled: " + ex);
                    if (round == 2) Assert.True(ex == null, "the first input wins: " + ex);
                    Assert.Equal(returns + 1, pool.Returns, "coordinator returned to its pool, round " + round);
                    var again = Assert.Throws<InvalidOperationException>(() => any.GetAwaiter().GetResult());
                    Assert.Contains("consumed", again.Message + " (" + round + ")");
                }
            }
        }
}
}
