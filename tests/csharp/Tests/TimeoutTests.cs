using System;
using System.Threading;

namespace Onity.Tests
{
    /// <summary>OnityTask(&lt;T&gt;).Timeout: UniTask's Timeout over WhenAny and a Delay.</summary>
    public class TimeoutTests
    {
        static async OnityTask<int> AfterFrames(int frames, int value)
        {
            for (int i = 0; i < frames; i++) await OnityTask.NextFrame();
            return value;
        }

        static async OnityTask FailAfterFrames(int frames, Exception ex)
        {
            for (int i = 0; i < frames; i++) await OnityTask.NextFrame();
            throw ex;
        }

        static void RunUntilDone(TestHost h, OnityTask t, int maxFrames = 100)
        {
            for (int i = 0; i < maxFrames && t.Status == OnityTaskStatus.Pending; i++) h.RunFrame();
        }

        static void AssertNothingPending(TestHost h)
        {
            for (int i = 0; i < 3; i++) h.RunFrame(); // canceled delays complete at their next run
            var m = h.Runtime.GetManagedStats();
            Assert.Equal(0, m.PendingWaits + m.FastLaneWaits, "waits left behind");
        }

        [Test]
        public void ATaskThatCompletesInTimeGivesItsResultAndStopsTheDelay()
        {
            using (var h = new TestHost())
            {
                h.RunFrame();
                var t = AfterFrames(3, 42).Timeout(TimeSpan.FromSeconds(1)); // 60 frames of 1/60 s
                RunUntilDone(h, t);
                Assert.Equal(42, t.GetAwaiter().GetResult(), "result");
                var u = ((OnityTask)AfterFrames(2, 0)).Timeout(TimeSpan.FromSeconds(1), DelayType.UnscaledDeltaTime, OnityTiming.PostLateUpdate);
                RunUntilDone(h, u);
                u.GetAwaiter().GetResult();
                AssertNothingPending(h);
                Assert.Equal(0, h.Unobserved.Count, "nothing unobserved");
            }
        }

        [Test]
        public void ATaskThatTakesTooLongThrowsTimeoutAndItsTokenSourceIsCanceled()
        {
            using (var h = new TestHost())
            using (var cts = new CancellationTokenSource())
            {
                h.RunFrame();
                var boom = new InvalidTimeZoneException("late failure");
                var slow = FailAfterFrames(30, boom);
                var t = slow.Timeout(TimeSpan.FromSeconds(10.0 / 60), DelayType.DeltaTime, OnityTiming.Update, cts);
                int frames = 0;
                while (t.Status == OnityTaskStatus.Pending && frames < 100) { h.RunFrame(); frames++; }
                Assert.True(frames >= 10 && frames <= 12, "timed out after about 10 frames: " + frames);
                Assert.Throws<TimeoutException>(() => t.GetAwaiter().GetResult());
                Assert.True(cts.IsCancellationRequested, "the task's token source is canceled");
                for (int i = 0; i < 30; i++) h.RunFrame(); // the task ends with its failure: observed, ignored
                Assert.Equal(0, h.Unobserved.Count, "the late failure is not reported");
                AssertNothingPending(h);

                var typed = AfterFrames(30, 1).Timeout(TimeSpan.Zero);
                RunUntilDone(h, typed);
                Assert.Throws<TimeoutException>(() => typed.GetAwaiter().GetResult());
            }
        }

        [Test]
        public void AFailureOrCancellationBeforeTheTimeoutPassesThrough()
        {
            using (var h = new TestHost())
            using (var cts = new CancellationTokenSource())
            {
                var boom = new InvalidTimeZoneException("boom");
                var t = FailAfterFrames(2, boom).Timeout(TimeSpan.FromSeconds(1));
                RunUntilDone(h, t);
                var e = Assert.Throws<InvalidTimeZoneException>(() => t.GetAwaiter().GetResult());
                Assert.True(ReferenceEquals(boom, e), "the task's own exception");

                var canceled = OnityTask.NextFrame(OnityTiming.Update, cts.Token).Timeout(TimeSpan.FromSeconds(1));
                cts.Cancel();
                RunUntilDone(h, canceled);
                Assert.Throws<OperationCanceledException>(() => canceled.GetAwaiter().GetResult());
                AssertNothingPending(h);
            }
        }

        [Test]
        public void BadArgumentsThrowAtTheCallAndLeaveTheTaskToItsOwner()
        {
            using (var h = new TestHost())
            {
                var t = AfterFrames(1, 5);
                Assert.Throws<ArgumentOutOfRangeException>(() => t.Timeout(TimeSpan.FromSeconds(-1)));
                Assert.Throws<ArgumentOutOfRangeException>(() => t.Timeout(TimeSpan.FromSeconds(1), DelayType.DeltaTime, (OnityTiming)16));
                Exception fromWorker = null;
                FreshThread.Run(() =>
                {
                    try { t.Timeout(TimeSpan.FromSeconds(1)); }
                    catch (Exception ex) { fromWorker = ex; }
                });
                Assert.True(fromWorker is InvalidOperationException, "wrong thread: " + fromWorker);
                h.RunFrame();
                h.RunFrame();
                Assert.Equal(5, t.GetAwaiter().GetResult(), "the task was not consumed by the refused calls");
            }
        }
    }
}
