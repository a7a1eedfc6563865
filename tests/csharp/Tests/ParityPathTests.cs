using System;
using System.Threading;
using Onity.Native;

namespace Onity.Tests
{
    /// <summary>The paths issue 27's benchmark rows measure (tests/csharp/Bench/ParityBench.cs):
    /// a reactive property's single-reader delivery, synchronous elements as completed tasks, and
    /// loop items (PlayerLoopTimer) waiting as run waiters without a native tick.</summary>
    public class ParityPathTests
    {
        static long Bytes() { return GC.GetAllocatedBytesForCurrentThread(); }

        static long sum;

        static async OnityTask Reader(IOnityAsyncEnumerable<int> s)
        {
            var e = s.GetAsyncEnumerator();
            try
            {
                while (await e.MoveNextAsync()) sum += e.Current;
            }
            finally
            {
                await e.DisposeAsync();
            }
        }

        [Test]
        public void OneReaderSeesEveryWriteInlineAndAllocatesNothing() { FreshThread.Run(OneReaderBody); }

        static void OneReaderBody()
        {
            using (var h = new TestHost())
            {
                var p = new OnityAsyncReactiveProperty<int>(0);
                sum = 0;
                var t = Reader(p.WithoutCurrent());
                for (int i = 1; i <= 100; i++) p.Value = i; // warm-up
                Assert.Equal(5050L, sum, "every write reached the reader, inline");
                long b0 = Bytes();
                for (int i = 0; i < 1000; i++) p.Value = 2;
                long d = Bytes() - b0;
                Assert.Equal(5050L + 2000L, sum, "1,000 more writes");
                Assert.Equal(0L, d, "bytes over 1,000 writes to one reader");
                // A second reader subscribing during a delivery to the first gets the next write only.
                var q = Reader(p.WithoutCurrent());
                p.Value = 10;
                Assert.Equal(5050L + 2000L + 20L, sum, "two readers, each once");
                p.Dispose();
                Assert.Equal(OnityTaskStatus.Succeeded, t.Status, "ended by Dispose");
                Assert.Equal(OnityTaskStatus.Succeeded, q.Status, "second ended by Dispose");
                // Control: the measurement sees an enumerator's allocation.
                var p2 = new OnityAsyncReactiveProperty<int>(0);
                b0 = Bytes();
                var e = p2.GetAsyncEnumerator();
                Assert.True(Bytes() - b0 > 0, "an enumerator is allocated (the measurement sees it)");
                e.DisposeAsync();
            }
        }

        [Test]
        public void SynchronousElementsAreCompletedTasksAndToArrayAllocatesOnlyItsResult() { FreshThread.Run(SynchronousBody); }

        static void SynchronousBody()
        {
            using (var h = new TestHost())
            {
                var range = OnityAsyncEnumerable.Range(5, 3);
                var e = range.GetAsyncEnumerator();
                var m = e.MoveNextAsync();
                Assert.Equal(OnityTaskStatus.Succeeded, m.Status, "a synchronous element: completed at once");
                Assert.True(m.GetAwaiter().GetResult(), "element");
                Assert.Equal(5, e.Current, "first");
                m = e.MoveNextAsync();
                Assert.Equal(6, e.Current, "second, without awaiting the first's task again");
                m.GetAwaiter().GetResult();
                e.MoveNextAsync().GetAwaiter().GetResult();
                Assert.False(e.MoveNextAsync().GetAwaiter().GetResult(), "the end, synchronously");
                Assert.False(e.MoveNextAsync().GetAwaiter().GetResult(), "still ended");
                e.DisposeAsync();
                // Operators over it: also synchronous.
                var a = range.Select(x => x * 2).Where(x => x > 10).ToArrayAsync();
                Assert.Equal(OnityTaskStatus.Succeeded, a.Status, "ToArrayAsync over synchronous operators: completed at once");
                var arr = a.GetAwaiter().GetResult();
                Assert.Equal(2, arr.Length, "length");
                Assert.Equal(12, arr[0], "first");
                Assert.Equal(14, arr[1], "second");
                // A canceled token still cancels.
                var cts = new CancellationTokenSource();
                cts.Cancel();
                Assert.Equal(OnityTaskStatus.Canceled, range.ToArrayAsync(cts.Token).Status, "canceled");
                // Allocation: 1,000 elements cost the 4,000-byte result (plus its header) only.
                var big = OnityAsyncEnumerable.Range(0, 1000);
                big.ToArrayAsync().GetAwaiter().GetResult(); // warm-up
                long b0 = Bytes();
                var r = big.ToArrayAsync().GetAwaiter().GetResult();
                long d = Bytes() - b0;
                Assert.Equal(999, r[999], "last");
                Assert.True(d >= 4000 && d < 4100, "bytes of ToArrayAsync(Range(0, 1000)): the result only, got " + d);
            }
        }

        [Test]
        public void ToArrayAsyncGoesOnAsynchronouslyAfterASynchronousPrefix()
        {
            using (var h = new TestHost())
            {
                h.RunFrame();
                var s = OnityAsyncEnumerable.Range(0, 3).Concat(OnityAsyncEnumerable.EveryUpdate().Select(_ => 7).Take(2));
                var t = s.ToArrayAsync();
                Assert.Equal(OnityTaskStatus.Pending, t.Status, "waits for the frames");
                for (int i = 0; i < 3 && t.Status == OnityTaskStatus.Pending; i++) h.RunFrame();
                var a = t.GetAwaiter().GetResult();
                Assert.Equal(5, a.Length, "length");
                Assert.Equal(2, a[2], "the synchronous prefix");
                Assert.Equal(7, a[4], "the frame elements");
                // A source throwing at MoveNextAsync faults the task.
                var f = OnityAsyncEnumerable.Range(0, 2).Concat(OnityAsyncEnumerable.Throw<int>(new FormatException("x"))).ToArrayAsync();
                Assert.Throws<FormatException>(() => f.GetAwaiter().GetResult(), "faulted");
                // The same from a synchronous source's first MoveNextAsync, and from an IEnumerable.
                var g = OnityAsyncEnumerable.Throw<int>(new FormatException("y")).ToArrayAsync();
                Assert.Equal(OnityTaskStatus.Faulted, g.Status, "faulted at once");
                Assert.Throws<FormatException>(() => g.GetAwaiter().GetResult(), "its exception");
                var l = new System.Collections.Generic.List<int> { 1, 2, 3 }.ToOnityAsyncEnumerable().ToArrayAsync().GetAwaiter().GetResult();
                Assert.Equal(3, l.Length, "IEnumerable source");
                Assert.Equal(3, l[2], "IEnumerable last");
                Assert.Equal(0, OnityAsyncEnumerable.Empty<int>().ToArrayAsync().GetAwaiter().GetResult().Length, "empty");
            }
        }

        static readonly OnityTiming[] UpdateOnly = { OnityTiming.Update }; // (a params array would allocate)
        static int fired;
        static readonly Action<object> tick = _ => fired++;

        [Test]
        public void ARunningTimerMakesNoNativeTickAndAllocatesNothing() { FreshThread.Run(TimerBody); }

        static void TimerBody()
        {
            using (var h = new TestHost())
            {
                h.RunFrame(UpdateOnly);
                fired = 0;
                var timer = OnityPlayerLoopTimer.Create(TimeSpan.Zero, false, DelayType.DeltaTime, OnityTiming.Update, CancellationToken.None, tick, null);
                for (int i = 0; i < 10; i++) { timer.Restart(); h.RunFrame(UpdateOnly); }
                Assert.Equal(10, fired, "fires once per restart");
                uint ring = OnityNative.ONITY_FRAME_RING_CAPACITY, p0 = h.Runtime.FramesInRing;
                long c0 = OnityNativeCalls.Crossings, b0 = Bytes();
                for (int i = 0; i < 100; i++) { timer.Restart(); h.RunFrame(UpdateOnly); }
                long d = Bytes() - b0, c = OnityNativeCalls.Crossings - c0;
                Assert.Equal(110, fired, "100 more");
                // No native tick: the only calls are the begins that find the frame ring full.
                Assert.Equal((long)((p0 + 100) / (ring + 1)), c, "crossings of 100 frames with a timer (a run waiter)");
                Assert.Equal(0L, d, "bytes of 100 restarts");
                // Periodic: once per frame, at the run of its timing.
                var periodic = OnityPlayerLoopTimer.StartNew(TimeSpan.Zero, true, DelayType.DeltaTime, OnityTiming.Update, CancellationToken.None, tick, null);
                h.RunFrame(UpdateOnly);
                h.RunFrame(UpdateOnly);
                Assert.Equal(112, fired, "a periodic timer each frame");
                periodic.Dispose();
                h.RunFrame(UpdateOnly);
                Assert.Equal(112, fired, "stopped");
                // Disposing the runtime ends a pending loop (OnLoopCanceled), no call.
                periodic = OnityPlayerLoopTimer.StartNew(TimeSpan.FromSeconds(100), true, DelayType.DeltaTime, OnityTiming.Update, CancellationToken.None, tick, null);
                h.RunFrame(UpdateOnly);
                // Control: a timer's creation allocates (the measurement sees it).
                b0 = Bytes();
                OnityPlayerLoopTimer.Create(TimeSpan.Zero, false, DelayType.DeltaTime, OnityTiming.Update, CancellationToken.None, tick, null);
                Assert.True(Bytes() - b0 > 0, "a timer is allocated (the measurement sees it)");
            }
            Assert.Equal(112, fired, "no call at the runtime's disposal");
        }
    }
}
