using System;
using System.Collections.Generic;
using System.Threading;

namespace Onity.Tests
{
    /// <summary>WaitUntil / WaitWhile: evaluated at each run of the timing from the next one on.</summary>
    public class WaitUntilTests
    {
        [Test]
        public void WaitUntilCompletesAtTheFirstRunOfItsTimingWhereThePredicateHolds()
        {
            using (var h = new TestHost())
            {
                h.RunFrame();
                int calls = 0;
                bool ready = true; // already true: still checked at the next run, not at once
                var t = OnityTask.WaitUntil(() => { calls++; return ready; }, OnityTiming.PreLateUpdate);
                Assert.Equal(0, calls, "not evaluated synchronously");
                Assert.Equal(OnityTaskStatus.Pending, t.Status, "pending until the next run");
                h.Runtime.Tick(OnityTiming.Update);
                Assert.Equal(0, calls, "other timings do not evaluate it");
                h.Runtime.Tick(OnityTiming.PreLateUpdate);
                Assert.Equal(1, calls, "evaluated once at the next run");
                Assert.Equal(OnityTaskStatus.Succeeded, t.Status, "completed at that run");
                t.GetAwaiter().GetResult();

                ready = false;
                calls = 0;
                var u = OnityTask.WaitUntil(() => { calls++; return ready; });
                for (int i = 0; i < 3; i++) h.RunFrame();
                Assert.Equal(3, calls, "evaluated once per Update run");
                Assert.Equal(OnityTaskStatus.Pending, u.Status, "still false");
                ready = true;
                h.RunFrame();
                Assert.Equal(OnityTaskStatus.Succeeded, u.Status, "true at the fourth run");
                Assert.Equal(4, calls, "and not after");
                u.GetAwaiter().GetResult();
            }
        }

        [Test]
        public void WaitWhileCompletesWhenThePredicateTurnsFalse()
        {
            using (var h = new TestHost())
            {
                int frames = 0;
                var t = OnityTask.WaitWhile(() => ++frames < 5, OnityTiming.FixedUpdate);
                for (int i = 0; i < 4; i++) h.RunFrame(OnityTiming.Update);
                Assert.Equal(0, frames, "FixedUpdate did not run");
                for (int i = 0; i < 4; i++) h.RunFrame(OnityTiming.FixedUpdate);
                Assert.Equal(OnityTaskStatus.Pending, t.Status, "true 4 times");
                h.Runtime.Tick(OnityTiming.FixedUpdate); // a second FixedUpdate run in the frame
                Assert.Equal(OnityTaskStatus.Succeeded, t.Status, "false at the fifth run");
                t.GetAwaiter().GetResult();
            }
        }

        [Test]
        public void AThrowingPredicateFaultsTheTaskAndACanceledTokenCancelsIt()
        {
            using (var h = new TestHost())
            using (var cts = new CancellationTokenSource())
            {
                var boom = new InvalidTimeZoneException("boom");
                var faulted = OnityTask.WaitUntil(() => { throw boom; });
                var canceled = OnityTask.WaitUntil(() => false, OnityTiming.Update, cts.Token);
                var whileCanceled = OnityTask.WaitWhile(() => true, OnityTiming.Update, cts.Token);
                h.RunFrame();
                Assert.Equal(OnityTaskStatus.Faulted, faulted.Status, "predicate threw");
                var e = Assert.Throws<InvalidTimeZoneException>(() => faulted.GetAwaiter().GetResult());
                Assert.True(ReferenceEquals(boom, e), "the predicate's own exception");
                Assert.Equal(OnityTaskStatus.Pending, canceled.Status, "not canceled yet");
                cts.Cancel();
                h.RunFrame();
                Assert.Equal(OnityTaskStatus.Canceled, canceled.Status, "canceled at the next run");
                Assert.Throws<OperationCanceledException>(() => canceled.GetAwaiter().GetResult());
                Assert.Throws<OperationCanceledException>(() => whileCanceled.GetAwaiter().GetResult());
                var already = OnityTask.WaitUntil(() => true, OnityTiming.Update, cts.Token);
                h.RunFrame();
                Assert.Throws<OperationCanceledException>(() => already.GetAwaiter().GetResult());
            }
        }

        [Test]
        public void BadArgumentsAndTheWrongThreadThrowAtTheCall()
        {
            using (var h = new TestHost())
            {
                Assert.Throws<ArgumentNullException>(() => OnityTask.WaitUntil(null));
                Assert.Throws<ArgumentNullException>(() => OnityTask.WaitWhile(null));
                Assert.Throws<ArgumentOutOfRangeException>(() => OnityTask.WaitUntil(() => true, (OnityTiming)16));
                Exception fromWorker = null;
                FreshThread.Run(() =>
                {
                    try { OnityTask.WaitUntil(() => true); }
                    catch (Exception ex) { fromWorker = ex; }
                });
                Assert.True(fromWorker is InvalidOperationException, "wrong thread: " + fromWorker);
                Assert.Equal(0, h.Runtime.GetManagedStats().PendingWaits + h.Runtime.GetManagedStats().FastLaneWaits, "nothing scheduled by the refused calls");
            }
        }

        [Test]
        public void ASteadyWaitUntilLoopAllocatesNothing()
        {
            // On a fresh thread: the test thread carries AsyncLocal values from other tests.
            FreshThread.Run(SteadyWaitUntilLoop);
        }

        static void SteadyWaitUntilLoop()
        {
            using (var h = new TestHost())
            {
                var ready = new bool[64];
                var tasks = new OnityTask[64];
                var predicates = new Func<bool>[64];
                for (int i = 0; i < 64; i++)
                {
                    int k = i;
                    predicates[i] = () => ready[k];
                }
                Func<int, long> round = n =>
                {
                    long before = GC.GetAllocatedBytesForCurrentThread();
                    for (int r = 0; r < n; r++)
                    {
                        for (int i = 0; i < 64; i++) { ready[i] = false; tasks[i] = OnityTask.WaitUntil(predicates[i]); }
                        h.Begin(); h.Runtime.Tick(OnityTiming.Update); // (RunFrame(params) allocates its array)
                        for (int i = 0; i < 64; i++) ready[i] = true;
                        h.Begin(); h.Runtime.Tick(OnityTiming.Update);
                        for (int i = 0; i < 64; i++) tasks[i].GetAwaiter().GetResult();
                    }
                    return GC.GetAllocatedBytesForCurrentThread() - before;
                };
                round(20); // warm-up: pools, runners
                long bytes = round(200);
                Assert.Equal(0L, bytes, "bytes allocated by 200 rounds of 64 WaitUntil");
            }
        }

        [Test]
        public void AWaitUntilStaysWithTheRuntimeItStartedOn()
        {
            using (var h = new TestHost())
            {
                int calls = 0;
                var t = OnityTask.WaitUntil(() => { calls++; return false; });
                using (var newer = new OnityRuntime())
                {
                    for (int i = 0; i < 3; i++) h.RunFrame();
                    Assert.Equal(3, calls, "checked at each of the first runtime's Update runs");
                }
                h.Runtime.Dispose();
                Assert.Equal(OnityTaskStatus.Canceled, t.Status, "canceled by its runtime's disposal");
            }
        }
    }
}
