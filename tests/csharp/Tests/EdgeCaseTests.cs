using System;
using System.Collections.Generic;
using System.Threading;
using Onity.CompilerServices;

namespace Onity.Tests
{
    public class EdgeCaseTests
    {
        static int WaitsLeft(TestHost h)
        {
            var m = h.Runtime.GetManagedStats();
            return m.PendingWaits + m.CompletedUnconsumedWaits;
        }

        static async OnityTask<int> YieldThen(int v) { await OnityTask.Yield(); return v; }

        [Test]
        public void CombinatorsWithAnAlreadyCanceledTokenStillConsumeTheirInputs()
        {
            // "Each input is awaited by the combinator: do not await it yourself." With a token
            // canceled before the call the combinators returned FromCanceled without touching their
            // inputs: wait slots, async runners and pooled sources were never consumed (leaked).
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update);
                long runners = OnityRunnerStats.Live;
                var cts = new CancellationTokenSource();
                cts.Cancel();
                var src = AutoResetOnityCompletionSource.Create();
                var any = OnityTask.WhenAny(new OnityTask[] { OnityTask.NextFrame(), src.Task }, cts.Token);
                var all = OnityTask.WhenAll(new OnityTask[] { OnityTask.DelayFrame(2), YieldThen(1) }, cts.Token);
                var anyT = OnityTask.WhenAny(new[] { YieldThen(2), OnityTask.FromResult(3) }, cts.Token);
                var allT = OnityTask.WhenAll(new[] { YieldThen(4) }, cts.Token);
                var ex = Assert.Throws<OperationCanceledException>(() => any.GetAwaiter().GetResult());
                Assert.True(ex.CancellationToken == cts.Token, "carries the token");
                Assert.Throws<OperationCanceledException>(() => all.GetAwaiter().GetResult());
                Assert.Throws<OperationCanceledException>(() => anyT.GetAwaiter().GetResult());
                Assert.Throws<OperationCanceledException>(() => allT.GetAwaiter().GetResult());
                src.TrySetResult();
                for (int i = 0; i < 4; i++) h.RunFrame(OnityTiming.Update);
                Assert.Equal(0, WaitsLeft(h), "wait slots left unconsumed");
                Assert.Equal(runners, OnityRunnerStats.Live, "async runners never returned");
                Assert.False(src.TrySetResult(), "the auto-reset source was consumed (back in its pool)");
            }
        }

        [Test]
        public void ACombinatorCanceledLaterCarriesItsToken()
        {
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update);
                var cts = new CancellationTokenSource();
                var any = OnityTask.WhenAny(new OnityTask[] { OnityTask.DelayFrame(5) }, cts.Token);
                var all = OnityTask.WhenAll(new OnityTask[] { OnityTask.DelayFrame(5) }, cts.Token);
                var anyT = OnityTask.WhenAny(new[] { YieldThen(1) }, cts.Token);
                var allT = OnityTask.WhenAll(new[] { YieldThen(2) }, cts.Token);
                cts.Cancel();
                Assert.True(Assert.Throws<OperationCanceledException>(() => any.GetAwaiter().GetResult()).CancellationToken == cts.Token, "WhenAny");
                Assert.True(Assert.Throws<OperationCanceledException>(() => all.GetAwaiter().GetResult()).CancellationToken == cts.Token, "WhenAll");
                Assert.True(Assert.Throws<OperationCanceledException>(() => anyT.GetAwaiter().GetResult()).CancellationToken == cts.Token, "WhenAny<T>");
                Assert.True(Assert.Throws<OperationCanceledException>(() => allT.GetAwaiter().GetResult()).CancellationToken == cts.Token, "WhenAll<T>");
                for (int i = 0; i < 7; i++) h.RunFrame(OnityTiming.Update);
                Assert.Equal(0, WaitsLeft(h), "every input consumed");
            }
        }

        static bool stop;
        static CancellationToken loopToken;

        static async OnityTask NextFrameWithTokenLoop()
        {
            while (!stop) await OnityTask.NextFrame(loopToken);
        }

        [Test]
        public void NextFrameWithATokenLoopAllocatesNothing()
        {
            // Each wait with a token looks its token up in a Dictionary<CancellationToken, ...>;
            // Mono's CancellationToken is not IEquatable, so the default comparer boxed it: 24 bytes
            // per wait, although the token mapping is kept warm for exactly this loop.
            FreshThread.Run(() =>
            {
                using (var cts = new CancellationTokenSource())
                using (var h = new TestHost())
                {
                    stop = false;
                    loopToken = cts.Token;
                    h.RunFrame(OnityTiming.Update);
                    var all = new OnityTask[256];
                    for (int i = 0; i < all.Length; i++) all[i] = NextFrameWithTokenLoop();
                    for (int f = 0; f < 20; f++) h.RunFrame(OnityTiming.Update);
                    long b0 = GC.GetAllocatedBytesForCurrentThread();
                    for (int f = 0; f < 100; f++)
                    {
                        h.Begin();
                        h.Runtime.Tick(OnityTiming.Update);
                    }
                    long d = GC.GetAllocatedBytesForCurrentThread() - b0;
                    stop = true;
                    for (int f = 0; f < 3; f++) h.RunFrame(OnityTiming.Update);
                    foreach (var t in all) t.GetAwaiter().GetResult();
                    Assert.Equal(0L, d, "bytes over 25,600 task-frames");
                }
            });
        }

#pragma warning disable 1998
        static async OnityTask<int> TypedCanceledSync() { throw new OperationCanceledException("typed sync cancel"); }
        static async OnityTask UntypedCanceledSync() { throw new OperationCanceledException("untyped sync cancel"); }
#pragma warning restore 1998
        static async OnityTask<int> TypedCanceledLater() { await OnityTask.Yield(); throw new OperationCanceledException("typed later"); }

        [Test]
        public void ATypedMethodThrowingCancellationIsCanceledWhetherOrNotItSuspended()
        {
            using (var h = new TestHost())
            {
                var later = TypedCanceledLater();
                h.RunFrame(OnityTiming.Update);
                Assert.Equal(OnityTaskStatus.Canceled, later.Status, "typed, after suspending");
                Assert.Equal(OnityTaskStatus.Canceled, UntypedCanceledSync().Status, "untyped, before suspending");
                Assert.Equal(OnityTaskStatus.Canceled, OnityTask.FromException(new OperationCanceledException()).Status, "FromException");
                Assert.Equal(OnityTaskStatus.Canceled, OnityTask.FromException<int>(new OperationCanceledException()).Status, "FromException<int>");
                Assert.Equal(OnityTaskStatus.Canceled, TypedCanceledSync().Status, "typed, before suspending");
                Assert.Throws<OperationCanceledException>(() => later.GetAwaiter().GetResult());
            }
        }

        [Test]
        public void AnExceptionThrownByAWhenAnyContinuationIsReported()
        {
            // WhenAny completed its task inside the try that observes the input: an exception
            // thrown by the consumer's continuation (run inline) was caught there and dropped.
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update);
                var any = OnityTask.WhenAny(OnityTask.NextFrame(OnityTiming.Update, CancellationToken.None), OnityTask.DelayFrame(3));
                var anyT = OnityTask.WhenAny(YieldThen(7));
                var aw = any.GetAwaiter();
                aw.UnsafeOnCompleted(() => { aw.GetResult(); throw new FormatException("continuation of WhenAny"); });
                var awT = anyT.GetAwaiter();
                awT.UnsafeOnCompleted(() => { awT.GetResult(); throw new FormatException("continuation of WhenAny<T>"); });
                for (int i = 0; i < 4; i++) h.RunFrame(OnityTiming.Update);
                Assert.Equal(2, h.Unobserved.Count, "continuation exceptions reported");
                Assert.Equal(0, WaitsLeft(h), "every input consumed");
            }
        }
    }
}
