using System;
using System.Collections.Generic;
using System.Threading;

namespace Onity.Tests
{
    /// <summary>OnityChannel: single consumer, producers on any thread, completion, cancellation at
    /// every point, ReadAllAsync as a stream.</summary>
    public class ChannelTests
    {
        static async OnityTask ReadN(OnityChannelReader<int> r, int n, List<int> into, CancellationToken ct)
        {
            for (int i = 0; i < n; i++) into.Add(await r.ReadAsync(ct));
        }

        [Test]
        public void WritesAreReadInOrderAtOnceOrWhenTheyArrive()
        {
            using (var h = new TestHost())
            {
                var ch = OnityChannel.CreateSingleConsumerUnbounded<int>();
                Assert.True(ch.Writer.TryWrite(1) && ch.Writer.TryWrite(2), "writes");
                Assert.Equal(2, ch.Count, "queued");
                int v;
                Assert.True(ch.Reader.TryRead(out v) && v == 1, "TryRead takes the first");
                var got = new List<int>();
                var t = ReadN(ch.Reader, 4, got, default(CancellationToken));
                Assert.Equal("2", string.Join(",", got), "the queued one synchronously");
                Assert.Equal(OnityTaskStatus.Pending, t.Status, "then waits");
                ch.Writer.TryWrite(3);
                Assert.Equal("2,3", string.Join(",", got), "a write on the owner thread resumes the read inline");
                for (int i = 4; i < 40; i++) ch.Writer.TryWrite(i); // grows the ring past 16
                Assert.Equal("2,3,4,5", string.Join(",", got), "four");
                t.GetAwaiter().GetResult();
                var rest = new List<int>();
                while (ch.Reader.TryRead(out v)) rest.Add(v);
                Assert.Equal(34, rest.Count, "the others stay queued, in order");
                Assert.Equal(6, rest[0]);
                Assert.Equal(39, rest[33]);
                Assert.False(ch.Reader.TryRead(out v), "empty");
            }
        }

        [Test]
        public void WaitToReadAsyncThenTryRead()
        {
            using (var h = new TestHost())
            {
                var ch = OnityChannel.CreateSingleConsumerUnbounded<string>();
                var w = ch.Reader.WaitToReadAsync();
                Assert.Equal(OnityTaskStatus.Pending, w.Status, "nothing yet");
                Assert.Throws<InvalidOperationException>(() => ch.Reader.ReadAsync(), "one consumer: a second waiting read throws");
                ch.Writer.TryWrite("a");
                Assert.True(w.GetAwaiter().GetResult(), "an item can be read");
                string s;
                Assert.True(ch.Reader.TryRead(out s) && s == "a", "and is there");
                Assert.True(ch.Reader.WaitToReadAsync().GetAwaiter().IsCompleted == false, "empty again");
            }
        }

        [Test]
        public void CompletionEndsReadsAfterTheQueueDrains()
        {
            using (var h = new TestHost())
            {
                var ch = OnityChannel.CreateSingleConsumerUnbounded<int>();
                var completion = ch.Reader.Completion;
                var waiting = ch.Reader.WaitToReadAsync();
                ch.Writer.TryWrite(7);
                Assert.True(waiting.GetAwaiter().GetResult(), "item");
                Assert.True(ch.Writer.TryComplete(), "completed");
                Assert.False(ch.Writer.TryComplete(), "once");
                Assert.False(ch.Writer.TryWrite(8), "no write after completion");
                Assert.Equal(OnityTaskStatus.Pending, completion.Status, "an item is still queued");
                Assert.Equal(7, ch.Reader.ReadAsync().GetAwaiter().GetResult(), "queued items are still read");
                Assert.Equal(OnityTaskStatus.Succeeded, completion.Status, "completion once drained");
                completion.GetAwaiter().GetResult();
                ch.Reader.Completion.GetAwaiter().GetResult(); // awaitable many times
                Assert.False(ch.Reader.WaitToReadAsync().GetAwaiter().GetResult(), "WaitToReadAsync: false");
                Assert.Throws<OnityChannelClosedException>(() => ch.Reader.ReadAsync().GetAwaiter().GetResult(), "ReadAsync: closed");

                // Completed with an error while a read waits: the read throws it; Completion faults.
                var ch2 = OnityChannel.CreateSingleConsumerUnbounded<int>();
                var r = ch2.Reader.ReadAsync();
                var w2 = OnityChannel.CreateSingleConsumerUnbounded<int>();
                var ww = w2.Reader.WaitToReadAsync();
                var boom = new FormatException("boom");
                ch2.Writer.TryComplete(boom);
                w2.Writer.TryComplete(boom);
                var closed = Assert.Throws<OnityChannelClosedException>(() => r.GetAwaiter().GetResult(), "ReadAsync wraps the error");
                Assert.True(ReferenceEquals(boom, closed.InnerException), "as its inner exception");
                Assert.True(ReferenceEquals(boom, Assert.Throws<FormatException>(() => ww.GetAwaiter().GetResult())), "WaitToReadAsync throws it");
                Assert.Throws<FormatException>(() => ch2.Reader.Completion.GetAwaiter().GetResult(), "Completion faults");
                // Completed with a cancellation: reads and Completion are canceled.
                var ch3 = OnityChannel.CreateSingleConsumerUnbounded<int>();
                var r3 = ch3.Reader.ReadAsync();
                ch3.Writer.TryComplete(new OperationCanceledException());
                Assert.Throws<OperationCanceledException>(() => r3.GetAwaiter().GetResult());
                Assert.Equal(OnityTaskStatus.Canceled, ch3.Reader.Completion.Status, "canceled");
            }
        }

        [Test]
        public void AWaitingReadIsCanceledByItsTokenAtEveryPoint()
        {
            using (var h = new TestHost())
            {
                var ch = OnityChannel.CreateSingleConsumerUnbounded<int>();
                for (int k = 0; k < 4; k++)
                {
                    using (var cts = new CancellationTokenSource())
                    {
                        var got = new List<int>();
                        var t = ReadN(ch.Reader, 10, got, cts.Token);
                        for (int i = 0; i < k; i++) ch.Writer.TryWrite(100 + i);
                        Assert.Equal(k, got.Count, "read before the cancellation (k=" + k + ")");
                        cts.Cancel();
                        Assert.Equal(OnityTaskStatus.Canceled, t.Status, "canceled at once by Cancel on the owner (k=" + k + ")");
                        Assert.Throws<OperationCanceledException>(() => t.GetAwaiter().GetResult());
                        ch.Writer.TryWrite(7);
                        int v;
                        Assert.True(ch.Reader.TryRead(out v) && v == 7, "a later write is queued, not lost in the canceled read");
                    }
                }
                // Canceled before the read: canceled at once; with items queued the read still succeeds.
                using (var cts = new CancellationTokenSource())
                {
                    cts.Cancel();
                    Assert.Equal(OnityTaskStatus.Canceled, ch.Reader.ReadAsync(cts.Token).Status, "already canceled");
                    Assert.Equal(OnityTaskStatus.Canceled, ch.Reader.WaitToReadAsync(cts.Token).Status, "already canceled");
                    ch.Writer.TryWrite(1);
                    Assert.Equal(1, ch.Reader.ReadAsync(cts.Token).GetAwaiter().GetResult(), "an item beats the token");
                }
                // Canceled from another thread: the read completes canceled on the owner's next tick.
                using (var cts = new CancellationTokenSource())
                {
                    int owner = Thread.CurrentThread.ManagedThreadId, ranOn = 0;
                    var aw = ch.Reader.ReadAsync(cts.Token).GetAwaiter();
                    aw.UnsafeOnCompleted(() => ranOn = Thread.CurrentThread.ManagedThreadId);
                    var th = new Thread(() => cts.Cancel());
                    th.Start();
                    th.Join();
                    Assert.Equal(0, ranOn, "not on the canceling thread");
                    h.RunFrame(OnityTiming.Update);
                    Assert.Equal(owner, ranOn, "on the owner");
                    Assert.Throws<OperationCanceledException>(() => aw.GetResult());
                }
            }
        }

        static async OnityTask<long> Consume(OnityChannelReader<long> r, int expected, int[] lastPerProducer, List<string> errors)
        {
            long sum = 0;
            for (int i = 0; i < expected; i++)
            {
                long v = await r.ReadAsync();
                int p = (int)(v >> 32), seq = (int)v;
                if (seq != lastPerProducer[p] + 1) errors.Add("producer " + p + ": " + seq + " after " + lastPerProducer[p]);
                lastPerProducer[p] = seq;
                sum += seq;
            }
            return sum;
        }

        [Test]
        public void ProducersOnRealThreadsAreReadOnceEachInTheirOrderOnTheOwner()
        {
            using (var h = new TestHost())
            {
                const int producers = 4, each = 5000;
                var ch = OnityChannel.CreateSingleConsumerUnbounded<long>();
                var last = new int[producers];
                var errors = new List<string>();
                var consumer = Consume(ch.Reader, producers * each, last, errors);
                var threads = new Thread[producers];
                var start = new ManualResetEventSlim();
                for (int p = 0; p < producers; p++)
                {
                    int id = p;
                    threads[p] = new Thread(() =>
                    {
                        start.Wait();
                        for (int i = 1; i <= each; i++)
                        {
                            if (!ch.Writer.TryWrite(((long)id << 32) | (uint)i)) throw new Exception("write refused");
                            if ((i & 63) == 0) Thread.Yield();
                        }
                    });
                    threads[p].Start();
                }
                start.Set();
                var deadline = DateTime.UtcNow.AddSeconds(30);
                while (consumer.Status == OnityTaskStatus.Pending && DateTime.UtcNow < deadline) h.RunFrame(OnityTiming.Update);
                foreach (var th in threads) th.Join();
                Assert.Equal((long)producers * each * (each + 1) / 2, consumer.GetAwaiter().GetResult(), "every item once");
                Assert.Equal(0, errors.Count, "per-producer order: " + string.Join("; ", errors));
                Assert.Equal(0, ch.Count, "nothing left");
            }
        }

        [Test]
        public void ReadAllAsyncIsAStreamEndedByCompletion()
        {
            using (var h = new TestHost())
            {
                var ch = OnityChannel.CreateSingleConsumerUnbounded<int>();
                ch.Writer.TryWrite(1);
                var got = new List<int>();
                var t = AsyncStreamTests.AwaitForeach(ch.Reader.ReadAllAsync(), got, default(CancellationToken));
                Assert.Equal("1", string.Join(",", got), "queued item at once");
                Assert.Throws<InvalidOperationException>(() => ch.Reader.ReadAllAsync().GetAsyncEnumerator(), "one enumeration at a time");
                Assert.Throws<InvalidOperationException>(() => ch.Reader.ReadAsync(), "and no other read meanwhile");
                ch.Writer.TryWrite(2);
                ch.Writer.TryWrite(3);
                Assert.Equal("1,2,3", string.Join(",", got), "handed over as written");
                ch.Writer.TryComplete();
                Assert.Equal(OnityTaskStatus.Succeeded, t.Status, "ended by completion");
                t.GetAwaiter().GetResult();

                // With operators, a token, and a thread producing.
                var ch2 = OnityChannel.CreateSingleConsumerUnbounded<int>();
                using (var cts = new CancellationTokenSource())
                {
                    var arr = ch2.Reader.ReadAllAsync(cts.Token).Where(x => x % 2 == 0).Select(x => x * 10).Skip(1).Take(3).ToArrayAsync();
                    var th = new Thread(() => { for (int i = 0; i < 20; i++) ch2.Writer.TryWrite(i); });
                    th.Start();
                    th.Join();
                    while (arr.Status == OnityTaskStatus.Pending) h.RunFrame();
                    Assert.Equal("20,40,60", string.Join(",", arr.GetAwaiter().GetResult()), "Where/Select/Skip/Take/ToArray");
                    // The enumeration ended (Take): the reader can be enumerated again, the rest is queued.
                    Assert.Equal(7, ch2.FirstAsync().GetAwaiter().GetResult(), "FirstAsync: the next item (0-6 went through Where)");
                    var canceled = ch2.Reader.ReadAllAsync(cts.Token).ForEachAsync(x => { });
                    Assert.Equal(OnityTaskStatus.Pending, canceled.Status, "drained the queue, waits");
                    cts.Cancel();
                    Assert.Equal(OnityTaskStatus.Canceled, canceled.Status, "canceled by ReadAllAsync's token");
                    Assert.Throws<OperationCanceledException>(() => canceled.GetAwaiter().GetResult());
                }
                ch2.Writer.TryWrite(99);
                ch2.Writer.TryComplete(new FormatException("end"));
                var all = new List<int>();
                var e = AsyncStreamTests.AwaitForeach(ch2.Reader.ReadAllAsync(), all, default(CancellationToken));
                Assert.Equal("99", string.Join(",", all), "the item before the error");
                Assert.Throws<FormatException>(() => e.GetAwaiter().GetResult(), "then the completion error");
            }
        }

        [Test]
        public void AnEnumeratorDisposedWhileWaitingGivesTheNextItemBack()
        {
            using (var h = new TestHost())
            {
                var ch = OnityChannel.CreateSingleConsumerUnbounded<int>();
                var e = ch.Reader.ReadAllAsync().GetAsyncEnumerator();
                var move = e.MoveNextAsync();
                Assert.Equal(OnityTaskStatus.Pending, move.Status, "waits");
                e.DisposeAsync().GetAwaiter().GetResult();
                Assert.False(move.GetAwaiter().GetResult(), "ended by the disposal");
                ch.Writer.TryWrite(5);
                int v;
                Assert.True(ch.Reader.TryRead(out v) && v == 5, "the item is queued for the next read");
                var again = ch.Reader.ReadAllAsync().GetAsyncEnumerator();
                again.DisposeAsync().GetAwaiter().GetResult();
            }
        }
    }

    static class ChannelTestExtensions
    {
        internal static OnityTask<int> FirstAsync(this OnityChannel<int> ch) { return ch.Reader.ReadAllAsync().FirstAsync(); }
    }
}
