using System;
using System.Collections.Generic;
using System.Threading;

namespace Onity.Tests
{
    /// <summary>OnityAsyncEventHandler (the reusable handler under the trigger and UnityEvent
    /// handlers) and the two-token stream of OnityAsyncEvent, frame by frame.</summary>
    public class AsyncEventHandlerTests
    {
        static string Outcome(OnityTask<int> t)
        {
            try { return "" + t.GetAwaiter().GetResult(); }
            catch (OperationCanceledException e) { return e.CancellationToken.CanBeCanceled ? "canceled by its token" : "canceled"; }
        }

        [Test]
        public void AHandlerIsAwaitedAgainAndAgain_DropsUnawaitedValues_EndsWithDisposeAndComplete()
        {
            using (var h = new TestHost())
            {
                var ev = new OnityAsyncEvent<int>();
                var handler = new OnityAsyncEventHandler<int>(ev, CancellationToken.None, false);
                Assert.Equal(1, ev.SubscriberCount, "subscribed from creation");
                for (int i = 0; i < 3; i++)
                {
                    var t = handler.NextAsync();
                    Assert.Equal(OnityTaskStatus.Pending, t.Status, "pending (" + i + ")");
                    ev.Raise(i);
                    Assert.Equal("" + i, Outcome(t), "the raised value (" + i + ")");
                }
                ev.Raise(100);
                var next = handler.NextAsync();
                Assert.Equal(OnityTaskStatus.Pending, next.Status, "a value raised while nobody awaits is not kept");
                Assert.Throws<InvalidOperationException>(() => handler.NextAsync(), "one wait at a time");
                handler.Dispose();
                Assert.Equal("canceled", Outcome(next), "Dispose cancels the pending wait");
                Assert.Equal(0, ev.SubscriberCount, "Dispose unsubscribes");
                Assert.Equal("canceled", Outcome(handler.NextAsync()), "a wait after Dispose: canceled at once");
                handler.Dispose(); // idempotent

                var once = new OnityAsyncEventHandler<int>(ev, CancellationToken.None, true);
                var first = once.NextAsync();
                ev.Raise(5);
                Assert.Equal("5", Outcome(first), "callOnce: its value");
                Assert.True(once.IsDisposed, "callOnce: disposed after it");
                Assert.Equal(0, ev.SubscriberCount, "callOnce: unsubscribed");

                var ending = new OnityAsyncEventHandler<int>(ev, CancellationToken.None, false);
                var pending = ending.NextAsync();
                ev.Complete();
                Assert.Equal("canceled", Outcome(pending), "the event's end cancels the pending wait");
                Assert.Equal("canceled", Outcome(ending.NextAsync()), "and later waits");
                Assert.Equal("canceled", Outcome(new OnityAsyncEventHandler<int>(ev, CancellationToken.None, false).NextAsync()), "a handler on a completed event has ended");
                Assert.Throws<ArgumentNullException>(() => new OnityAsyncEventHandler<int>(null, CancellationToken.None, false), "a null event");
            }
        }

        [Test]
        public void AHandlersTokenIsPolledAtTheNextUpdate_AtEveryPoint()
        {
            using (var h = new TestHost())
            {
                h.RunFrame();
                var ev = new OnityAsyncEvent<int>();
                for (int cancelAt = 0; cancelAt < 3; cancelAt++)
                {
                    using (var cts = new CancellationTokenSource())
                    {
                        var handler = new OnityAsyncEventHandler<int>(ev, cts.Token, false);
                        for (int f = 0; f < cancelAt; f++)
                        {
                            var t = handler.NextAsync();
                            h.RunFrame();
                            ev.Raise(f);
                            Assert.Equal("" + f, Outcome(t), "a value each frame (" + cancelAt + ")");
                        }
                        var w = handler.NextAsync();
                        cts.Cancel();
                        h.RunFrame(OnityTiming.PreUpdate);
                        Assert.Equal(OnityTaskStatus.Pending, w.Status, "canceled only at the next run of Update (" + cancelAt + ")");
                        h.Runtime.Tick(OnityTiming.Update);
                        Assert.Equal("canceled by its token", Outcome(w), "canceled at Update with its token (" + cancelAt + ")");
                        Assert.True(handler.IsDisposed, "the token ended the handler");
                        Assert.Equal(0, ev.SubscriberCount, "unsubscribed (" + cancelAt + ")");
                        Assert.Equal("canceled by its token", Outcome(handler.NextAsync()), "later waits: canceled at once");
                    }
                }
            }
        }

        [Test]
        public void AnIdleHandlersToken_EndsItAtTheNextUpdate_Unsubscribing()
        {
            // UniTask's handler registers its token and disposes itself at Cancel, awaited or not.
            using (var h = new TestHost())
            {
                h.RunFrame();
                var ev = new OnityAsyncEvent<int>();
                using (var cts = new CancellationTokenSource())
                {
                    var handler = new OnityAsyncEventHandler<int>(ev, cts.Token, false);
                    var t = handler.NextAsync();
                    ev.Raise(1);
                    Assert.Equal("1", Outcome(t), "a first value");
                    cts.Cancel();
                    h.RunFrame(OnityTiming.PreUpdate);
                    Assert.Equal(1, ev.SubscriberCount, "subscribed until the next run of Update");
                    h.Runtime.Tick(OnityTiming.Update);
                    Assert.True(handler.IsDisposed, "ended by its token though nobody waits");
                    Assert.Equal(0, ev.SubscriberCount, "unsubscribed");
                    Assert.Equal("canceled by its token", Outcome(handler.NextAsync()), "later waits: canceled with the token");
                }
                var never = new OnityAsyncEventHandler<int>(ev, CancellationToken.None, false);
                for (int i = 0; i < 3; i++) h.RunFrame();
                Assert.False(never.IsDisposed, "a handler without a token lives on");
                never.Dispose();
            }
        }

        static async OnityTask<string> Drain(IOnityAsyncEnumerator<int> e, CancellationToken expected)
        {
            var got = new List<int>();
            try
            {
                while (await e.MoveNextAsync()) got.Add(e.Current);
                return string.Join(",", got) + " end";
            }
            catch (OperationCanceledException ex)
            {
                return string.Join(",", got) + (ex.CancellationToken == expected ? " canceled by that token" : " canceled by another");
            }
            finally { await e.DisposeAsync(); }
        }

        [Test]
        public void ATwoTokenStreamEndsWithEither_CarryingTheCanceledOne()
        {
            using (var h = new TestHost())
            {
                h.RunFrame();
                for (int which = 0; which < 3; which++)
                {
                    var ev = new OnityAsyncEvent<int>();
                    var a = new CancellationTokenSource();
                    var b = new CancellationTokenSource();
                    var canceled = which == 0 ? a : b;
                    if (which == 2) b.Cancel(); // canceled before MoveNextAsync: at once
                    var r = Drain(ev.GetAsyncEnumerator(a.Token, b.Token), canceled.Token);
                    ev.Raise(1);
                    ev.Raise(2);
                    canceled.Cancel();
                    h.RunFrame();
                    Assert.Equal(which == 2 ? " canceled by that token" : "1,2 canceled by that token", r.GetAwaiter().GetResult(), "token " + which);
                    Assert.Equal(0, ev.SubscriberCount, "unsubscribed (" + which + ")");
                }
            }
        }
    }
}
