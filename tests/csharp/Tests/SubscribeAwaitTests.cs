using System;
using System.Collections.Generic;
using System.Threading;

namespace Onity.Tests
{
    /// <summary>SubscribeAwait (UniTask's async-action Subscribe), ForEachAwaitWithCancellationAsync,
    /// AsOnityAsyncEnumerable.</summary>
    public class SubscribeAwaitTests
    {
        static async OnityTask LogAfterAFrame(List<string> log, int x)
        {
            log.Add("start " + x);
            await OnityTask.NextFrame();
            log.Add("end " + x);
        }

        [Test]
        public void EachElementIsAwaitedBeforeTheNextIsAskedFor()
        {
            using (var h = new TestHost())
            {
                h.RunFrame();
                var log = new List<string>();
                OnityAsyncEnumerable.Range(1, 3).SubscribeAwait(x => LogAfterAFrame(log, x), () => log.Add("completed"));
                Assert.Equal("start 1", string.Join(",", log), "the first onNext runs at once, the second waits for it");
                for (int i = 0; i < 4; i++) h.RunFrame();
                Assert.Equal("start 1,end 1,start 2,end 2,start 3,end 3,completed", string.Join(",", log), "sequential, then onCompleted");
            }
        }

        [Test]
        public void AnExceptionGoesToOnErrorOrUnobservedAndDisposeCancelsQuietly()
        {
            using (var h = new TestHost())
            {
                h.RunFrame();
                Exception got = null;
                OnityAsyncEnumerable.Range(1, 3).SubscribeAwait(x => x == 2 ? OnityTask.FromException(new FormatException("two")) : OnityTask.CompletedTask, ex => got = ex);
                Assert.True(got is FormatException, "onError got onNext's exception");
                Assert.Equal(0, h.Unobserved.Count, "handled by onError");
                OnityAsyncEnumerable.Throw<int>(new FormatException("stream")).SubscribeAwait(x => OnityTask.CompletedTask);
                Assert.Equal(1, h.Unobserved.Count, "without onError: unobserved");

                // Disposing the subscription cancels: no more onNext, no onError, no onCompleted.
                int seen = 0;
                bool ended = false;
                var sub = OnityAsyncEnumerable.EveryUpdate().SubscribeAwait((_, ct) => { seen++; return OnityTask.CompletedTask; }, () => ended = true);
                h.RunFrame();
                h.RunFrame();
                int before = seen;
                Assert.True(before >= 1, "elements arrive");
                sub.Dispose();
                h.RunFrame();
                h.RunFrame();
                Assert.Equal(before, seen, "nothing after Dispose");
                Assert.False(ended, "a cancellation is not a completion");
                Assert.Equal(1, h.Unobserved.Count, "nor an error");

                // The token overload: canceled by the caller's token, which onNext receives.
                var cts = new CancellationTokenSource();
                CancellationToken passed = default(CancellationToken);
                OnityAsyncEnumerable.EveryUpdate().SubscribeAwait((_, ct) => { passed = ct; return OnityTask.CompletedTask; }, cts.Token);
                h.RunFrame();
                Assert.Equal(cts.Token, passed, "onNext gets the subscription's token");
                cts.Cancel();
                h.RunFrame();
                Assert.Equal(1, h.Unobserved.Count, "canceled quietly");
                Assert.Throws<ArgumentNullException>(() => OnityAsyncEnumerable.Range(0, 1).SubscribeAwait((Func<int, OnityTask>)null), "null onNext");
                Assert.Throws<ArgumentNullException>(() => OnityAsyncEnumerable.Range(0, 1).SubscribeAwait(x => OnityTask.CompletedTask, (Action<Exception>)null), "null onError");
            }
        }

        [Test]
        public void ForEachAwaitWithCancellationAsyncGivesIndexAndToken()
        {
            using (var h = new TestHost())
            {
                var cts = new CancellationTokenSource();
                var got = new List<string>();
                var t = OnityAsyncEnumerable.Range(10, 3).ForEachAwaitWithCancellationAsync((x, i, ct) =>
                {
                    got.Add(x + "@" + i + (ct == cts.Token ? "" : "!"));
                    return OnityTask.CompletedTask;
                }, cts.Token);
                t.GetAwaiter().GetResult();
                Assert.Equal("10@0,11@1,12@2", string.Join(",", got), "elements, indexes, the token");
                var s = OnityAsyncEnumerable.Range(0, 2);
                Assert.True(ReferenceEquals(s, s.AsOnityAsyncEnumerable()), "AsOnityAsyncEnumerable: the stream itself");
                Assert.Throws<ArgumentNullException>(() => OnityAsyncEnumerable.AsOnityAsyncEnumerable<int>(null), "null source");
            }
        }
    
        static int counted;
        static readonly Func<int, OnityTask> countIt = x => { counted++; return OnityTask.CompletedTask; };
        static readonly OnityTiming[] UpdateOnly = { OnityTiming.Update };

        [Test]
        public void SubscribeAwaitAllocatesNothingPerElement() { FreshThread.Run(PerElementBody); }

        static void PerElementBody()
        {
            using (var h = new TestHost())
            {
                h.RunFrame(UpdateOnly);
                counted = 0;
                var sub = OnityAsyncEnumerable.EveryUpdate().Select(_ => 1).SubscribeAwait(countIt);
                for (int i = 0; i < 50; i++) h.RunFrame(UpdateOnly); // warm-up
                int c0 = counted;
                long b0 = GC.GetAllocatedBytesForCurrentThread();
                for (int i = 0; i < 500; i++) h.RunFrame(UpdateOnly);
                long d = GC.GetAllocatedBytesForCurrentThread() - b0;
                Assert.Equal(500, counted - c0, "one awaited onNext per frame");
                Assert.Equal(0L, d, "bytes over 500 elements");
                sub.Dispose();
                // Control: a subscription allocates (the measurement sees it).
                b0 = GC.GetAllocatedBytesForCurrentThread();
                var other = OnityAsyncEnumerable.EveryUpdate().Select(_ => 1).SubscribeAwait(countIt);
                Assert.True(GC.GetAllocatedBytesForCurrentThread() - b0 > 0, "a subscription is allocated");
                other.Dispose();
                h.RunFrame(UpdateOnly);
            }
        }
}
}
