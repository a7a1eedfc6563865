using System;
using System.Threading;
using Onity.Linq;

namespace Onity.Tests
{
    /// <summary>ReadAllAsync(ct1) enumerated with another token ct2 (ToArrayAsync(ct2)): either
    /// token cancels and the OperationCanceledException carries the one canceled (UniTask's rule),
    /// without a linked CancellationTokenSource per enumeration.</summary>
    public class ChannelTokenTests
    {
        static long Bytes() { return GC.GetAllocatedBytesForCurrentThread(); }

        static CancellationToken TokenOf(OnityTask<int[]> t)
        {
            try { t.GetAwaiter().GetResult(); }
            catch (OperationCanceledException ex) { return ex.CancellationToken; }
            throw new AssertionException("expected an OperationCanceledException");
        }

        [Test]
        public void EitherTokenCancelsAndTheExceptionCarriesTheCanceledOneAtEveryPoint()
        {
            using (var h = new TestHost())
            {
                var ch = OnityChannel.CreateSingleConsumerUnbounded<int>();
                for (int which = 0; which < 2; which++)
                {
                    for (int k = 0; k < 4; k++)
                    {
                        using (var cts1 = new CancellationTokenSource())
                        using (var cts2 = new CancellationTokenSource())
                        {
                            var canceled = which == 0 ? cts1 : cts2;
                            var arr = ch.Reader.ReadAllAsync(cts1.Token).ToArrayAsync(cts2.Token);
                            for (int i = 0; i < k; i++)
                            {
                                ch.Writer.TryWrite(i);
                                h.RunFrame();
                            }
                            Assert.Equal(OnityTaskStatus.Pending, arr.Status, "waits after " + k + " items");
                            canceled.Cancel();
                            Assert.Equal(OnityTaskStatus.Canceled, arr.Status, "canceled at once (token " + (which + 1) + ", k=" + k + ")");
                            Assert.True(TokenOf(arr) == canceled.Token, "the exception carries token " + (which + 1) + " (k=" + k + ")");
                            ch.Writer.TryWrite(7);
                            int v;
                            Assert.True(ch.Reader.TryRead(out v) && v == 7, "the enumeration ended: a later write is queued");
                        }
                    }
                    // Canceled before the enumeration starts.
                    using (var cts1 = new CancellationTokenSource())
                    using (var cts2 = new CancellationTokenSource())
                    {
                        var canceled = which == 0 ? cts1 : cts2;
                        canceled.Cancel();
                        var arr = ch.Reader.ReadAllAsync(cts1.Token).ToArrayAsync(cts2.Token);
                        Assert.Equal(OnityTaskStatus.Canceled, arr.Status, "already canceled (token " + (which + 1) + ")");
                        Assert.True(TokenOf(arr) == canceled.Token, "carries the canceled token (before the start)");
                    }
                    // Canceled from another thread: on the owner's next tick, with the canceled token.
                    using (var cts1 = new CancellationTokenSource())
                    using (var cts2 = new CancellationTokenSource())
                    {
                        var canceled = which == 0 ? cts1 : cts2;
                        var arr = ch.Reader.ReadAllAsync(cts1.Token).ToArrayAsync(cts2.Token);
                        var th = new Thread(() => canceled.Cancel());
                        th.Start();
                        th.Join();
                        for (int i = 0; i < 50 && arr.Status == OnityTaskStatus.Pending; i++) h.RunFrame();
                        Assert.True(TokenOf(arr) == canceled.Token, "carries the token canceled on another thread");
                    }
                }
                // Not canceled: the items, then the end.
                using (var cts1 = new CancellationTokenSource())
                using (var cts2 = new CancellationTokenSource())
                {
                    var arr = ch.Reader.ReadAllAsync(cts1.Token).ToArrayAsync(cts2.Token);
                    ch.Writer.TryWrite(1);
                    ch.Writer.TryWrite(2);
                    ch.Writer.TryComplete();
                    Assert.Equal("1,2", string.Join(",", arr.GetAwaiter().GetResult()), "every item");
                }
            }
        }

        [Test]
        public void TwoTokensAllocateNoLinkedSourcePerEnumeration()
        {
            FreshThread.Run(() =>
            {
                using (var h = new TestHost())
                using (var cts1 = new CancellationTokenSource())
                using (var cts2 = new CancellationTokenSource())
                {
                    var ch = OnityChannel.CreateSingleConsumerUnbounded<int>();
                    var stream = ch.Reader.ReadAllAsync(cts1.Token); // the call's small object, once
                    long b0 = 0, sum = 0;
                    for (int round = 0; round < 600; round++)
                    {
                        if (round == 100) b0 = Bytes();
                        for (int i = 0; i < 3; i++) ch.Writer.TryWrite(i);
                        var e = stream.GetAsyncEnumerator(cts2.Token);
                        for (int i = 0; i < 3; i++)
                        {
                            var aw = e.MoveNextAsync().GetAwaiter();
                            if (aw.GetResult()) sum += e.Current + 1;
                        }
                        e.DisposeAsync().GetAwaiter().GetResult();
                    }
                    Assert.Equal(0L, Bytes() - b0, "bytes over 500 enumerations with two tokens");
                    Assert.Equal(600L * 6, sum, "every item read");

                    // One long enumeration whose MoveNext waits for each write: the two tokens are
                    // registered once, nothing per item.
                    var w = stream.GetAsyncEnumerator(cts2.Token);
                    for (int i = 0; i < 1100; i++)
                    {
                        if (i == 100) b0 = Bytes();
                        var move = w.MoveNextAsync();
                        Assert.True(move.Status == OnityTaskStatus.Pending, "waits");
                        ch.Writer.TryWrite(i);
                        if (!move.GetAwaiter().GetResult() || w.Current != i) throw new AssertionException("item " + i);
                    }
                    Assert.Equal(0L, Bytes() - b0, "bytes over 1000 waiting MoveNexts with two tokens");
                    w.DisposeAsync().GetAwaiter().GetResult();

                    b0 = Bytes();
                    CancellationTokenSource.CreateLinkedTokenSource(cts1.Token, cts2.Token).Dispose();
                    Assert.True(Bytes() - b0 > 0, "the measurement sees a linked source's allocation (control)");
                }
            });
        }
    }
}
