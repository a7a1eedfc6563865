using System;
using System.Collections.Generic;
using System.Threading;
using Onity.Linq;

namespace Onity.Tests
{
    /// <summary>UniTask's tuple WhenAll / WhenAny (generated, 2-15 types), WhenAny(OnityTask&lt;T&gt;,
    /// OnityTask) and WhenEach: outcomes, order, failures, frame by frame, allocations.</summary>
    public class TupleCombinatorTests
    {
        static long Bytes() { return GC.GetAllocatedBytesForCurrentThread(); }

        [Test]
        public void TupleWhenAllWaitsForEveryTaskAndKeepsEachType()
        {
            using (var h = new TestHost())
            {
                var a = AutoResetOnityCompletionSource<int>.Create();
                var b = AutoResetOnityCompletionSource<string>.Create();
                var all = OnityTask.WhenAll(a.Task, b.Task, OnityTask.FromResult(2.5));
                b.TrySetResult("b");
                Assert.Equal(OnityTaskStatus.Pending, all.Status, "one still pending");
                a.TrySetResult(1);
                var r = all.GetAwaiter().GetResult();
                Assert.True(r.Item1 == 1 && r.Item2 == "b" && r.Item3 == 2.5, "each result in argument order: " + r);
                Assert.Throws<InvalidOperationException>(() => all.GetAwaiter().GetResult(), "consumed: stale");

                // Frame by frame, and the first failure in completion order wins after all are done.
                var late = OnityTask.DelayFrame(3).ToOnityTask();
                var x = AutoResetOnityCompletionSource<int>.Create();
                var y = AutoResetOnityCompletionSource<int>.Create();
                var failing = OnityTask.WhenAll(x.Task, Then(late, 5), y.Task);
                y.TrySetException(new FormatException("first"));
                x.TrySetException(new InvalidCastException("second"));
                h.RunFrame();
                Assert.Equal(OnityTaskStatus.Pending, failing.Status, "waits for every input");
                h.RunFrame();
                h.RunFrame();
                Assert.Equal("first", Assert.Throws<FormatException>(() => failing.GetAwaiter().GetResult()).Message, "the first failure");

                var canceled = OnityTask.WhenAll(OnityTask.FromCanceled<int>(), OnityTask.FromResult(1));
                Assert.Equal(OnityTaskStatus.Canceled, canceled.Status, "a canceled input cancels it");
                Assert.Throws<OperationCanceledException>(() => canceled.GetAwaiter().GetResult());

                // 15 types: nested ValueTuple (C#'s (T1, ..., T15)).
                var all15 = OnityTask.WhenAll(OnityTask.FromResult(1), OnityTask.FromResult(2), OnityTask.FromResult(3), OnityTask.FromResult(4), OnityTask.FromResult(5),
                    OnityTask.FromResult(6), OnityTask.FromResult(7), OnityTask.FromResult(8), OnityTask.FromResult(9), OnityTask.FromResult(10),
                    OnityTask.FromResult(11), OnityTask.FromResult(12), OnityTask.FromResult(13), OnityTask.FromResult(14), Then(OnityTask.NextFrame().ToOnityTask(), "15"));
                h.RunFrame();
                var r15 = all15.GetAwaiter().GetResult();
                Assert.True(r15.Item1 == 1 && r15.Item7 == 7 && r15.Rest.Item1 == 8 && r15.Rest.Rest.Item1 == "15", "15 results: " + r15);
            }
        }

        static async OnityTask<T> Then<T>(OnityTask wait, T value)
        {
            await wait;
            return value;
        }

        [Test]
        public void TupleWhenAnyGivesTheFirstIndexAndResult()
        {
            using (var h = new TestHost())
            {
                var slow = Then(OnityTask.DelayFrame(3).ToOnityTask(), "slow");
                var fast = Then(OnityTask.DelayFrame(1).ToOnityTask(), 42);
                var any = OnityTask.WhenAny(slow, fast);
                Assert.Equal(OnityTaskStatus.Pending, any.Status, "none done");
                h.RunFrame();
                var r = any.GetAwaiter().GetResult();
                Assert.True(r.Item1 == 1 && r.Item2 == null && r.Item3 == 42, "the second came first: " + r);
                h.RunFrame();
                h.RunFrame(); // the loser finishes later: nothing happens

                var done = OnityTask.WhenAny(OnityTask.FromResult(1), OnityTask.FromResult("b"));
                Assert.Equal(0, done.GetAwaiter().GetResult().Item1, "already done: the first argument");
                var fault = OnityTask.WhenAny(AutoResetOnityCompletionSource<int>.Create().Task, OnityTask.FromException<int>(new FormatException("f")));
                Assert.Throws<FormatException>(() => fault.GetAwaiter().GetResult(), "the first to finish failed");

                var left = AutoResetOnityCompletionSource<int>.Create();
                var right = AutoResetOnityCompletionSource.Create();
                var lr = OnityTask.WhenAny(left.Task, right.Task);
                right.TrySetResult();
                var lrr = lr.GetAwaiter().GetResult();
                Assert.True(!lrr.Item1 && lrr.Item2 == 0, "the right one first: (false, default)");
                left.TrySetResult(3);
                var left2 = AutoResetOnityCompletionSource<int>.Create();
                var lr2 = OnityTask.WhenAny(left2.Task, OnityTask.NextFrame().ToOnityTask());
                left2.TrySetResult(8);
                var lrr2 = lr2.GetAwaiter().GetResult();
                Assert.True(lrr2.Item1 && lrr2.Item2 == 8, "the left one first: (true, result)");
                h.RunFrame();

                var any15 = OnityTask.WhenAny(Never<int>(), Never<int>(), Never<int>(), Never<int>(), Never<int>(), Never<int>(), Never<int>(), Never<int>(),
                    Never<int>(), Never<int>(), Never<int>(), Never<int>(), Never<int>(), Never<int>(), Then(OnityTask.NextFrame().ToOnityTask(), "last"));
                h.RunFrame();
                var r15 = any15.GetAwaiter().GetResult();
                Assert.True(r15.Item1 == 14 && r15.Rest.Rest.Item2 == "last", "the 15th: " + r15);
            }
        }

        static async OnityTask<string> AwaitTuples(OnityTask<int> a, OnityTask<string> b, OnityTask c, OnityTask d)
        {
            var r = await (a, b);
            await (c, d);
            return r.Item1 + r.Item2;
        }

        [Test]
        public void AwaitingATupleOfTasksAwaitsThemAll()
        {
            using (var h = new TestHost())
            {
                var a = AutoResetOnityCompletionSource<int>.Create();
                var t = AwaitTuples(a.Task, Then(OnityTask.NextFrame().ToOnityTask(), "x"), OnityTask.DelayFrame(2).ToOnityTask(), OnityTask.CompletedTask);
                h.RunFrame();
                Assert.Equal(OnityTaskStatus.Pending, t.Status, "a is pending");
                a.TrySetResult(4);
                Assert.Equal(OnityTaskStatus.Pending, t.Status, "then the untyped pair waits for DelayFrame(2)");
                h.RunFrame();
                Assert.Equal("4x", t.GetAwaiter().GetResult(), "typed results, then the untyped pair");
                // Eight tasks: a nested ValueTuple (mcs has no tuple literal beyond 7; C# writes (t1, ..., t8)).
                var eight = new ValueTuple<OnityTask<int>, OnityTask<int>, OnityTask<int>, OnityTask<int>, OnityTask<int>, OnityTask<int>, OnityTask<int>, ValueTuple<OnityTask<int>>>(
                    OnityTask.FromResult(1), OnityTask.FromResult(2), OnityTask.FromResult(3), OnityTask.FromResult(4), OnityTask.FromResult(5),
                    OnityTask.FromResult(6), OnityTask.FromResult(7), new ValueTuple<OnityTask<int>>(OnityTask.FromResult(8)));
                var r = eight.GetAwaiter().GetResult();
                Assert.True(r.Item1 == 1 && r.Item7 == 7 && r.Rest.Item1 == 8, "8 tasks: " + r);
            }
        }

        static OnityTask<T> Never<T>() { return AutoResetOnityCompletionSource<T>.Create().Task; }

        [Test]
        public void TupleCombinatorsAllocateNothingAfterWarmUp()
        {
            FreshThread.Run(() =>
            {
                using (var h = new TestHost())
                {
                    long b0 = 0, sum = 0;
                    for (int i = 0; i < 1100; i++)
                    {
                        if (i == 100) b0 = Bytes();
                        var a = AutoResetOnityCompletionSource<int>.Create();
                        var b = AutoResetOnityCompletionSource<long>.Create();
                        var c = AutoResetOnityCompletionSource.Create();
                        var all = OnityTask.WhenAll(a.Task, b.Task);
                        var any = OnityTask.WhenAny(OnityTask.FromResult(1), OnityTask.FromResult(2L), OnityTask.FromResult(3));
                        var lr = OnityTask.WhenAny(OnityTask.FromResult(4), c.Task);
                        b.TrySetResult(2);
                        a.TrySetResult(1);
                        c.TrySetResult();
                        var r = all.GetAwaiter().GetResult();
                        sum += r.Item1 + r.Item2 + any.GetAwaiter().GetResult().Item2 + lr.GetAwaiter().GetResult().Item2;
                    }
                    Assert.Equal(0L, Bytes() - b0, "bytes over 1000 tuple WhenAll / WhenAny / left-right WhenAny");
                    Assert.Equal(1100L * 8, sum, "every result");
                    b0 = Bytes();
                    OnityTask.WhenAll(new[] { OnityTask.FromResult(1), OnityTask.FromResult(2) }).GetAwaiter().GetResult();
                    Assert.True(Bytes() - b0 > 0, "the array WhenAll's result array is seen by the measurement (control)");
                }
            });
        }

        static async OnityTask<List<string>> Collect(IOnityAsyncEnumerable<WhenEachResult<int>> s, CancellationToken ct)
        {
            var got = new List<string>();
            var e = s.GetAsyncEnumerator(ct);
            try
            {
                while (await e.MoveNextAsync())
                    got.Add(e.Current.IsCompletedSuccessfully ? e.Current.Result.ToString() : e.Current.Exception.GetType().Name);
            }
            finally { await e.DisposeAsync(); }
            return got;
        }

        [Test]
        public void WhenEachYieldsEachOutcomeInCompletionOrder()
        {
            using (var h = new TestHost())
            {
                var f = AutoResetOnityCompletionSource<int>.Create();
                var stream = OnityTask.WhenEach(Then(OnityTask.DelayFrame(3).ToOnityTask(), 3), OnityTask.FromResult(0), Then(OnityTask.NextFrame().ToOnityTask(), 1), f.Task, OnityTask.FromCanceled<int>());
                var t = Collect(stream, default(CancellationToken));
                Assert.Throws<InvalidOperationException>(() => stream.GetAsyncEnumerator(), "enumerated once");
                h.RunFrame();
                f.TrySetException(new FormatException("x"));
                Assert.Equal(OnityTaskStatus.Pending, t.Status, "the slow one is pending");
                h.RunFrame();
                h.RunFrame();
                Assert.Equal("0,OperationCanceledException,1,FormatException,3", string.Join(",", t.GetAwaiter().GetResult()), "completion order, failures as elements");

                var r = new WhenEachResult<int>(new FormatException("y"));
                Assert.True(r.IsFaulted && !r.IsCompletedSuccessfully, "a failure");
                Assert.Throws<FormatException>(() => r.GetResult(), "GetResult throws it");
                Assert.Equal(5, new WhenEachResult<int>(5).GetResult(), "a result");
                Assert.Throws<ArgumentNullException>(() => new WhenEachResult<int>(null), "null exception");
                Assert.Throws<ArgumentNullException>(() => OnityTask.WhenEach((OnityTask<int>[])null), "null tasks");

                using (var cts = new CancellationTokenSource())
                {
                    var pending = Collect(OnityTask.WhenEach(new List<OnityTask<int>> { OnityTask.FromResult(1), Never<int>() }), cts.Token);
                    cts.Cancel();
                    Assert.Equal(OnityTaskStatus.Canceled, pending.Status, "the token cancels the waiting MoveNextAsync (review6: was checked at the next one only)");
                }
                Assert.Equal("", string.Join(",", Collect(OnityTask.WhenEach(new OnityTask<int>[0]), default(CancellationToken)).GetAwaiter().GetResult()), "no task: ends at once");
            }
        }

        [Test]
        public void WhenEachElementsAllocateNothingAfterWarmUp()
        {
            FreshThread.Run(() =>
            {
                using (var h = new TestHost())
                {
                    var srcs = new AutoResetOnityCompletionSource<int>[8];
                    var tasks = new OnityTask<int>[8];
                    long sum = 0;
                    for (int round = 0; round < 300; round++)
                    {
                        for (int i = 0; i < 8; i++) { srcs[i] = AutoResetOnityCompletionSource<int>.Create(); tasks[i] = srcs[i].Task; }
                        var e = OnityTask.WhenEach(tasks).GetAsyncEnumerator();
                        long b0 = Bytes();
                        for (int i = 7; i >= 0; i--)
                        {
                            var move = e.MoveNextAsync();
                            srcs[i].TrySetResult(i);
                            if (!move.GetAwaiter().GetResult()) throw new AssertionException("ended early");
                            sum += e.Current.Result;
                        }
                        if (e.MoveNextAsync().GetAwaiter().GetResult()) throw new AssertionException("one more");
                        e.DisposeAsync();
                        if (round >= 100 && Bytes() - b0 != 0) throw new AssertionException("round " + round + ": " + (Bytes() - b0) + " bytes for 8 elements");
                    }
                    Assert.Equal(300L * 28, sum, "every element");
                    long c0 = Bytes();
                    OnityTask.WhenEach(tasks);
                    Assert.True(Bytes() - c0 > 0, "the stream object per call is seen by the measurement (control)");
                }
            });
        }
    }
}
