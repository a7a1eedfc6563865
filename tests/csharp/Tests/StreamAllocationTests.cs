using System;
using System.Threading;

namespace Onity.Tests
{
    /// <summary>Zero GC bytes per element after warm-up for the async streams, the channel and the
    /// off-thread waits (GC.GetAllocatedBytesForCurrentThread, as AllocationTests; each test has a
    /// control that must see allocations). Each runs on a fresh thread: the test thread carries
    /// AsyncLocal values from earlier tests, which make every suspension capture a context.</summary>
    public class StreamAllocationTests
    {
        static long Bytes() { return GC.GetAllocatedBytesForCurrentThread(); }

        static long count;
        static readonly Action<AsyncUnit> onUnit = _ => count++;
        static readonly Action<int> onInt = x => count += x;
        static readonly Func<int, bool> even = x => (x & 1) == 0;
        static readonly Func<AsyncUnit, int> one = _ => 1;
        static readonly Func<int, int> twice = x => x * 2;

        static void Frames(TestHost h, int n)
        {
            for (int f = 0; f < n; f++)
            {
                h.Begin(); // not RunFrame(params ...): its array would be counted
                h.Runtime.Tick(OnityTiming.Update);
            }
        }

        [Test]
        public void EveryUpdateStreamsAndOperatorsAllocateNothingPerElement() { FreshThread.Run(EveryUpdateStreamsAndOperatorsAllocateNothingPerElementBody); }

        static void EveryUpdateStreamsAndOperatorsAllocateNothingPerElementBody()
        {
            using (var h = new TestHost())
            using (var cts = new CancellationTokenSource())
            {
                var plain = OnityAsyncEnumerable.EveryUpdate();
                var query = OnityAsyncEnumerable.EveryUpdate().Select(one).Where(even).Skip(0);
                var tasks = new OnityTask[64];
                for (int i = 0; i < 32; i++) tasks[i] = plain.ForEachAsync(onUnit, cts.Token);
                for (int i = 32; i < 64; i++) tasks[i] = query.ForEachAsync(onInt, cts.Token);
                Frames(h, 20);
                count = 0;
                long b0 = Bytes();
                Frames(h, 500);
                long d = Bytes() - b0;
                Assert.Equal(500L * 32, count, "elements (the Where drops every odd value: none here)");
                Assert.Equal(0L, d, "bytes over 16,000 elements of 64 streams");
                cts.Cancel();
                h.RunFrame();
                foreach (var t in tasks) Assert.Throws<OperationCanceledException>(() => t.GetAwaiter().GetResult());
                // Control: building the query in each frame allocates (its operator objects).
                b0 = Bytes();
                for (int i = 0; i < 100; i++) query = plain.Select(one).Where(even);
                Assert.True(Bytes() - b0 > 0, "the control sees the operators' allocations");
            }
        }

        [Test]
        public void EnumeratingAgainAndAgainAllocatesNothingAfterWarmUp() { FreshThread.Run(EnumeratingAgainAndAgainAllocatesNothingAfterWarmUpBody); }

        static void EnumeratingAgainAndAgainAllocatesNothingAfterWarmUpBody()
        {
            using (var h = new TestHost())
            {
                var query = OnityAsyncEnumerable.EveryUpdate().Select(one).Take(2);
                var ch = OnityChannel.CreateSingleConsumerUnbounded<int>();
                var interval = OnityAsyncEnumerable.Interval(TimeSpan.Zero).Take(1);
                var all = ch.Reader.ReadAllAsync().Take(3);
                Func<long> round = () =>
                {
                    var t = query.ForEachAsync(onInt);
                    var u = interval.ForEachAsync(onUnit);
                    var v = all.ForEachAsync(onInt);
                    for (int i = 0; i < 3; i++) ch.Writer.TryWrite(i);
                    Frames(h, 3);
                    t.GetAwaiter().GetResult();
                    u.GetAwaiter().GetResult();
                    v.GetAwaiter().GetResult();
                    return 0;
                };
                for (int i = 0; i < 20; i++) round();
                long b0 = Bytes();
                for (int i = 0; i < 200; i++) round();
                Assert.Equal(0L, Bytes() - b0, "bytes over 200 enumerations of each (pooled enumerators and runners)");
            }
        }

        static OnityChannel<int> channel;
        static long readSum;

        static async OnityTask ReadLoop(int n)
        {
            var r = channel.Reader;
            for (int i = 0; i < n; i++) readSum += await r.ReadAsync();
        }

        [Test]
        public void ChannelWriteToWaitingReadAllocatesNothing() { FreshThread.Run(ChannelWriteToWaitingReadAllocatesNothingBody); }

        static void ChannelWriteToWaitingReadAllocatesNothingBody()
        {
            using (var h = new TestHost())
            using (var cts = new CancellationTokenSource())
            {
                channel = OnityChannel.CreateSingleConsumerUnbounded<int>();
                var warm = ReadLoop(1000);
                for (int i = 0; i < 1000; i++) channel.Writer.TryWrite(1);
                warm.GetAwaiter().GetResult();
                readSum = 0;
                var t = ReadLoop(100000);
                long b0 = Bytes();
                for (int i = 0; i < 100000; i++) channel.Writer.TryWrite(1);
                long d = Bytes() - b0;
                t.GetAwaiter().GetResult();
                Assert.Equal(100000L, readSum, "read");
                Assert.Equal(0L, d, "bytes over 100,000 write -> waiting read");
                // Queued items, TryRead and a token registered once: still nothing.
                for (int i = 0; i < 100; i++) channel.Writer.TryWrite(i);
                int v;
                while (channel.Reader.TryRead(out v)) { }
                var first = channel.Reader.ReadAsync(cts.Token); // the token's one registration
                channel.Writer.TryWrite(0);
                first.GetAwaiter().GetResult();
                b0 = Bytes();
                for (int round = 0; round < 1000; round++)
                {
                    var w = channel.Reader.ReadAsync(cts.Token);
                    channel.Writer.TryWrite(round);
                    w.GetAwaiter().GetResult();
                    for (int i = 0; i < 20; i++) channel.Writer.TryWrite(i);
                    while (channel.Reader.TryRead(out v)) { }
                }
                Assert.Equal(0L, Bytes() - b0, "bytes with a token and queued items");
                // Control: a new channel per round allocates.
                b0 = Bytes();
                for (int i = 0; i < 10; i++) channel = OnityChannel.CreateSingleConsumerUnbounded<int>();
                Assert.True(Bytes() - b0 > 0, "the control sees allocations");
            }
        }

        static readonly Action nothing = () => { };

        [Test]
        public void OffThreadFrameWaitsAllocateNothingAfterWarmUp() { FreshThread.Run(OffThreadFrameWaitsAllocateNothingAfterWarmUpBody); }

        static void OffThreadFrameWaitsAllocateNothingAfterWarmUpBody()
        {
            using (var h = new TestHost())
            {
                h.RunFrame();
                long workerBytes = -1;
                const int rounds = 4, n = 100;
                var go = new SemaphoreSlim(0);
                var done = new SemaphoreSlim(0);
                // One worker for every round: its own first uses (thread statics) are warm-up too.
                var th = new Thread(() =>
                {
                    for (int r = 0; r < rounds; r++)
                    {
                        go.Wait();
                        long b = Bytes();
                        for (int i = 0; i < n; i++)
                        {
                            OnityTask.Yield().UnsafeOnCompleted(nothing);
                            OnityTask.NextFrame().UnsafeOnCompleted(nothing);
                        }
                        if (r == rounds - 1) workerBytes = Bytes() - b;
                        done.Release();
                    }
                });
                th.Start();
                long ownerBytes = 0;
                for (int r = 0; r < rounds; r++)
                {
                    go.Release();
                    done.Wait();
                    long b0 = Bytes();
                    Frames(h, 3);
                    if (r == rounds - 1) ownerBytes = Bytes() - b0;
                }
                th.Join();
                Assert.Equal(0L, workerBytes, "worker: bytes over 200 off-thread awaits");
                Assert.Equal(0L, ownerBytes, "owner: bytes filing and resuming them");
                Assert.Equal(0, h.Runtime.GetManagedStats().FastLaneWaits, "all resumed");
                // Control: the worker's own measurement sees allocations.
                long control = -1;
                var c = new Thread(() => { long b = Bytes(); for (int i = 0; i < 10; i++) sink = new object(); control = Bytes() - b; });
                c.Start();
                c.Join();
                Assert.True(control > 0, "the worker-side control sees allocations");
            }
        }

        static object sink;
    }
}
