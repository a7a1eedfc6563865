using System;
using System.Collections.Generic;
using System.Threading;

namespace Onity.Tests
{
    /// <summary>OnityAsyncEvent (the core of the awaitable events) and OnityLoopItem (the polling
    /// of every player-loop awaitable), frame by frame.</summary>
    public class AsyncEventTests
    {
        static long Bytes() { return GC.GetAllocatedBytesForCurrentThread(); }

        static async OnityTask Collect(OnityAsyncEvent<int> ev, List<int> into, CancellationToken ct = default(CancellationToken))
        {
            var e = ev.GetAsyncEnumerator(ct);
            try
            {
                while (await e.MoveNextAsync()) into.Add(e.Current);
                into.Add(-1); // ended
            }
            finally { await e.DisposeAsync(); }
        }

        [Test]
        public void NextAsyncCompletesWithTheNextValueInSubscriptionOrder()
        {
            using (var h = new TestHost())
            {
                var ev = new OnityAsyncEvent<int>();
                var order = new List<string>();
                var a = ev.NextAsync();
                var b = ev.NextAsync();
                a.GetAwaiter().UnsafeOnCompleted(() => order.Add("a"));
                b.GetAwaiter().UnsafeOnCompleted(() => order.Add("b"));
                Assert.Equal(2, ev.SubscriberCount, "two waiters");
                Assert.Equal(OnityTaskStatus.Pending, a.Status, "pending before Raise");
                ev.Raise(7);
                Assert.Equal("a,b", string.Join(",", order), "subscription order");
                Assert.Equal(7, a.GetAwaiter().GetResult(), "a's value");
                Assert.Equal(7, b.GetAwaiter().GetResult(), "b's value");
                Assert.Equal(0, ev.SubscriberCount, "one-shot waiters unsubscribe");
                Assert.Throws<InvalidOperationException>(() => a.GetAwaiter().GetResult(), "consumed task is stale");
                ev.Raise(8); // nobody waits: nothing happens
            }
        }

        static async OnityTask ReSubscribe(OnityAsyncEvent<int> ev, List<int> got)
        {
            for (int i = 0; i < 3; i++) got.Add(await ev.NextAsync());
        }

        [Test]
        public void AWaiterSubscribedDuringADeliveryGetsTheNextValueNotThisOne()
        {
            using (var h = new TestHost())
            {
                var ev = new OnityAsyncEvent<int>();
                var got = new List<int>();
                var t = ReSubscribe(ev, got);
                ev.Raise(1);
                Assert.Equal("1", string.Join(",", got), "the continuation re-subscribed but did not get 1 again");
                ev.Raise(2);
                ev.Raise(3);
                Assert.Equal("1,2,3", string.Join(",", got), "one value per wait");
                t.GetAwaiter().GetResult();
            }
        }

        [Test]
        public void StreamsArePulledEndOnCompleteAndRefuseMisuse()
        {
            using (var h = new TestHost())
            {
                var ev = new OnityAsyncEvent<int>();
                var got = new List<int>();
                var t = Collect(ev, got);
                ev.Raise(1);
                ev.Raise(2);
                Assert.Equal("1,2", string.Join(",", got), "each value to the awaiting consumer");
                var e = ev.GetAsyncEnumerator();
                ev.Raise(3); // e's consumer is not awaiting: not kept for it
                var m = e.MoveNextAsync();
                Assert.Throws<InvalidOperationException>(() => e.MoveNextAsync(), "second MoveNextAsync while pending");
                ev.Raise(4);
                Assert.True(m.GetAwaiter().GetResult(), "moved");
                Assert.Equal(4, e.Current, "3 was raised while nobody pulled");
                ev.Complete();
                Assert.Equal("1,2,3,4,-1", string.Join(",", got), "the collecting stream ended");
                t.GetAwaiter().GetResult();
                Assert.False(e.MoveNextAsync().GetAwaiter().GetResult(), "an ended stream returns false");
                e.DisposeAsync().GetAwaiter().GetResult();
                Assert.Throws<ObjectDisposedException>(() => e.MoveNextAsync(), "after DisposeAsync");
                Assert.Equal(OnityTaskStatus.Canceled, ev.NextAsync().Status, "a completed event cancels new waits");
                Assert.False(ev.GetAsyncEnumerator().MoveNextAsync().GetAwaiter().GetResult(), "and ends new streams");
                Assert.Equal(0, ev.SubscriberCount, "nothing subscribed");
            }
        }

        [Test]
        public void TokensArePolledAtTheNextRunOfUpdate_AtEveryPoint()
        {
            using (var h = new TestHost())
            {
                h.RunFrame();
                var ev = new OnityAsyncEvent<int>();
                for (int cancelAt = 0; cancelAt < 3; cancelAt++)
                {
                    using (var cts = new CancellationTokenSource())
                    {
                        var w = ev.NextAsync(cts.Token);
                        var got = new List<int>();
                        var s = Collect(ev, got, cts.Token);
                        for (int f = 0; f < cancelAt; f++) h.RunFrame();
                        Assert.Equal(OnityTaskStatus.Pending, w.Status, "pending before cancel (" + cancelAt + ")");
                        cts.Cancel();
                        h.RunFrame(OnityTiming.PreUpdate);
                        Assert.Equal(OnityTaskStatus.Pending, w.Status, "canceled only at the next run of Update");
                        Assert.Equal(OnityTaskStatus.Pending, s.Status, "the stream too");
                        h.Runtime.Tick(OnityTiming.Update);
                        Assert.Equal(OnityTaskStatus.Canceled, w.Status, "the wait is canceled at Update");
                        Assert.Equal(OnityTaskStatus.Canceled, s.Status, "the stream is canceled at Update");
                        Assert.Throws<OperationCanceledException>(() => w.GetAwaiter().GetResult(), "wait canceled");
                        Assert.Throws<OperationCanceledException>(() => s.GetAwaiter().GetResult(), "stream canceled");
                        Assert.Equal(OnityTaskStatus.Canceled, ev.NextAsync(cts.Token).Status, "already canceled: at once");
                        // A value raised after the cancel but before the next Update still wins.
                        using (var cts2 = new CancellationTokenSource())
                        {
                            var v = ev.NextAsync(cts2.Token);
                            cts2.Cancel();
                            ev.Raise(5);
                            Assert.Equal(5, v.GetAwaiter().GetResult(), "the value won");
                        }
                        var w3 = ev.NextAsync(new CancellationToken(false));
                        ev.Raise(6);
                        Assert.Equal(6, w3.GetAwaiter().GetResult(), "a wait with a token that cannot be canceled");
                        Assert.Equal(0, ev.SubscriberCount, "all unsubscribed");
                    }
                }
            }
        }

        [Test]
        public void DisposingTheRuntimeCancelsWaitsWithATokenAndTheirPolling()
        {
            var ev = new OnityAsyncEvent<int>();
            OnityTask<int> w;
            using (var cts = new CancellationTokenSource())
            {
                using (var h = new TestHost())
                {
                    w = ev.NextAsync(cts.Token);
                    h.RunFrame();
                }
                Assert.Equal(OnityTaskStatus.Canceled, w.Status, "canceled by the dispose");
                Assert.Throws<OperationCanceledException>(() => w.GetAwaiter().GetResult(), "canceled");
                Assert.Equal(0, ev.SubscriberCount, "unsubscribed");
            }
        }

        [Test]
        public void CompleteCancelsWaitersAndFirstLastCallbacksFollowTheSubscribers()
        {
            using (var h = new TestHost())
            {
                int first = 0, last = 0;
                var ev = new OnityAsyncEvent<string>(() => first++, () => last++);
                var a = ev.NextAsync();
                Assert.Equal(1, first, "first subscriber");
                ev.Raise("x");
                Assert.Equal(1, last, "last unsubscribed");
                a.GetAwaiter().GetResult();
                var b = ev.NextAsync();
                var c = ev.NextAsync();
                Assert.Equal(2, first, "first again, once");
                ev.Complete();
                Assert.Equal(2, last, "complete unsubscribes everyone");
                Assert.Throws<OperationCanceledException>(() => b.GetAwaiter().GetResult(), "b canceled");
                Assert.Throws<OperationCanceledException>(() => c.GetAwaiter().GetResult(), "c canceled");
            }
        }

        [Test]
        public void RaiseOnAnotherThreadThrows()
        {
            using (var h = new TestHost())
            {
                var ev = new OnityAsyncEvent<int>();
                Exception e = null;
                var t = new Thread(() => { try { ev.Raise(1); } catch (Exception ex) { e = ex; } });
                t.Start();
                t.Join();
                Assert.True(e is InvalidOperationException, "owner thread only: " + e);
            }
        }

        static async OnityTask<int> Waits(OnityAsyncEvent<int> ev, int n, CancellationToken ct)
        {
            int sum = 0;
            for (int i = 0; i < n; i++) sum += await ev.NextAsync(ct);
            return sum;
        }

        static async OnityTask<int> Pulls(OnityAsyncEvent<int> ev, int n)
        {
            var e = ev.GetAsyncEnumerator();
            int sum = 0;
            for (int i = 0; i < n; i++)
            {
                await e.MoveNextAsync();
                sum += e.Current;
            }
            await e.DisposeAsync();
            return sum;
        }

        [Test]
        public void WaitsAndStreamDeliveriesAllocateNothingAfterWarmUp()
        {
            // A fresh thread: an AsyncLocal value left on the test thread by another test would make
            // every suspension capture the context (context flow's cost, not the measured path's).
            FreshThread.Run(() =>
            {
                using (var h = new TestHost())
                using (var cts = new CancellationTokenSource())
                {
                    var ev = new OnityAsyncEvent<int>();
                    // Warm-up: pools, runners, the poll's fast lane.
                    var warm = Waits(ev, 100, cts.Token);
                    for (int i = 0; i < 100; i++) { ev.Raise(1); h.Begin(); h.Runtime.Tick(OnityTiming.Update); }
                    warm.GetAwaiter().GetResult();
                    var w = Waits(ev, 2000, cts.Token);
                    var p = Pulls(ev, 2000);
                    long b0 = Bytes();
                    for (int i = 0; i < 2000; i++)
                    {
                        ev.Raise(1);
                        h.Begin();
                        h.Runtime.Tick(OnityTiming.Update); // the token polls run and end
                    }
                    long d = Bytes() - b0;
                    Assert.Equal(2000, w.GetAwaiter().GetResult(), "waits");
                    Assert.Equal(2000, p.GetAwaiter().GetResult(), "stream");
                    Assert.Equal(0L, d, "bytes over 2,000 waits with a token and 2,000 stream values");
                    // Control: the same loop measures a stream's enumerator allocation.
                    b0 = Bytes();
                    var q = Pulls(ev, 1);
                    ev.Raise(1);
                    q.GetAwaiter().GetResult();
                    Assert.True(Bytes() - b0 > 0, "an enumerator is allocated (the measurement sees it)");
                }
            });
        }
    }
}
