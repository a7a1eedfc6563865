using System;
using System.Collections.Generic;
using System.Threading;

namespace Onity.Tests
{
    public class CancellationTests
    {
        static async OnityTask Observe(OnityTask t, List<string> log, OnityRuntime rt, string name)
        {
            try
            {
                await t;
                log.Add(name + ":ok@" + rt.Frame);
            }
            catch (OperationCanceledException)
            {
                log.Add(name + ":canceled@" + rt.Frame);
            }
        }

        [Test]
        public void AlreadyCanceledTokenCompletesCanceledAtOnce()
        {
            using (var h = new TestHost())
            {
                var cts = new CancellationTokenSource();
                cts.Cancel();
                var log = new List<string>();
                h.RunFrame(OnityTiming.Update);
                Observe(OnityTask.NextFrame(cts.Token), log, h.Runtime, "nf").Forget();
                Observe(OnityTask.Yield(cts.Token), log, h.Runtime, "y").Forget();
                Observe(OnityTask.DelayFrame(5, OnityTiming.Update, cts.Token), log, h.Runtime, "df").Forget();
                Observe(OnityTask.Delay(TimeSpan.FromSeconds(1), DelayType.Realtime, OnityTiming.Update, cts.Token), log, h.Runtime, "d").Forget();
                Assert.Equal("nf:canceled@1,y:canceled@1,df:canceled@1,d:canceled@1", string.Join(",", log));
            }
        }

        [Test]
        public void CancelingCompletesTheWaitAtTheNextRunOfItsTiming()
        {
            using (var h = new TestHost())
            {
                var cts = new CancellationTokenSource();
                var log = new List<string>();
                h.RunFrame(OnityTiming.Update);
                var t = Observe(OnityTask.DelayFrame(100, OnityTiming.Update, cts.Token), log, h.Runtime, "df");
                var other = Observe(OnityTask.DelayFrame(3, OnityTiming.Update), log, h.Runtime, "free");
                h.RunFrame(OnityTiming.Update);
                cts.Cancel();
                h.Runtime.Tick(OnityTiming.LastUpdate);
                Assert.Equal(0, log.Count, "not before its timing runs");
                h.RunFrame(OnityTiming.Update);
                Assert.Equal("df:canceled@3", string.Join(",", log));
                h.RunFrame(OnityTiming.Update);
                Assert.Equal("df:canceled@3,free:ok@4", string.Join(",", log));
                t.GetAwaiter().GetResult();
                other.GetAwaiter().GetResult();
            }
        }

        static async OnityTask CancelAfter(int frames, CancellationTokenSource cts)
        {
            await OnityTask.DelayFrame(frames);
            cts.Cancel();
        }

        /// <summary>UniTask's ExceptionlessCancellation: a DelayFrame(10) continuation cancels the
        /// token of a pending DelayFrame(100) on the same timing, which completes canceled in that
        /// same run (10 frames later), not one frame late; checked frame by frame, for the far
        /// (DelayFrame, Delay) and near (NextFrame) native waits.</summary>
        [Test]
        public void ContinuationCancelingATokenCancelsAPendingWaitInTheSameRun()
        {
            using (var h = new TestHost())
            {
                var cts = new CancellationTokenSource();
                h.RunFrame(OnityTiming.Update);
                ulong first = h.Runtime.Frame;
                CancelAfter(10, cts).Forget();
                var df = OnityTask.DelayFrame(100, OnityTiming.Update, cts.Token).SuppressCancellationThrow();
                var d = OnityTask.Delay(TimeSpan.FromSeconds(100), DelayType.DeltaTime, OnityTiming.Update, cts.Token).SuppressCancellationThrow();
                for (int i = 1; i <= 12; i++)
                {
                    if (i == 10)
                    {
                        // The frame's earlier runs schedule a NextFrame with the token: pending (not due)
                        // when the canceler runs.
                        h.Begin();
                        var nf = OnityTask.NextFrame(OnityTiming.Update, cts.Token).SuppressCancellationThrow();
                        h.Runtime.Tick(OnityTiming.Update);
                        Assert.Equal(OnityTaskStatus.Succeeded, nf.Status, "NextFrame canceled in the run (frame +10)");
                        Assert.True(nf.GetAwaiter().GetResult(), "NextFrame canceled");
                    }
                    else
                    {
                        h.RunFrame(OnityTiming.Update);
                    }
                    var want = i < 10 ? OnityTaskStatus.Pending : OnityTaskStatus.Succeeded;
                    Assert.Equal(want, df.Status, "DelayFrame(100) after frame +" + i);
                    Assert.Equal(want, d.Status, "Delay(100 s) after frame +" + i);
                }
                Assert.Equal(first + 12, h.Runtime.Frame);
                Assert.True(df.GetAwaiter().GetResult(), "DelayFrame(100) canceled");
                Assert.True(d.GetAwaiter().GetResult(), "Delay(100 s) canceled");
            }
        }

        [Test]
        public void CancelFromWorkerThread()
        {
            using (var h = new TestHost())
            {
                var cts = new CancellationTokenSource();
                var log = new List<string>();
                h.RunFrame(OnityTiming.Update);
                var t = Observe(OnityTask.NextFrame(OnityTiming.LastUpdate, cts.Token), log, h.Runtime, "nf");
                var th = new Thread(() => cts.Cancel());
                th.Start();
                th.Join();
                h.Runtime.Tick(OnityTiming.LastUpdate);
                Assert.Equal("nf:canceled@1", string.Join(",", log));
                t.GetAwaiter().GetResult();
            }
        }

        [Test]
        public void CancelAfterCompletionHasNoEffect()
        {
            using (var h = new TestHost())
            {
                var cts = new CancellationTokenSource();
                var log = new List<string>();
                h.RunFrame(OnityTiming.Update);
                var t = Observe(OnityTask.NextFrame(cts.Token), log, h.Runtime, "nf");
                h.RunFrame(OnityTiming.Update);
                cts.Cancel();
                h.RunFrame(OnityTiming.Update);
                Assert.Equal("nf:ok@2", string.Join(",", log));
                t.GetAwaiter().GetResult();

                // Completion sources: cancel after completion is refused.
                var s = AutoResetOnityCompletionSource.Create();
                var task = s.Task;
                Assert.True(s.TrySetResult());
                Assert.False(s.TrySetCanceled(), "TrySetCanceled after TrySetResult");
                task.GetAwaiter().GetResult();
            }
        }

        static async OnityTask LoopWithToken(CancellationToken ct, int[] count)
        {
            while (true)
            {
                await OnityTask.NextFrame(ct);
                count[0]++;
            }
        }

        [Test]
        public void TokenMappingIsReleasedAfterUse()
        {
            using (var h = new TestHost())
            {
                var cts = new CancellationTokenSource();
                var count = new int[1];
                h.RunFrame(OnityTiming.Update);
                var t = LoopWithToken(cts.Token, count);
                for (int i = 0; i < 10; i++) h.RunFrame(OnityTiming.Update);
                Assert.Equal(10, count[0]);
                Assert.Equal(1, h.Runtime.GetManagedStats().CancellationTokensMapped, "one native source per token");
                cts.Cancel();
                for (int i = 0; i < 4; i++) h.RunFrame(OnityTiming.Update);
                Assert.Equal(OnityTaskStatus.Canceled, t.Status);
                Assert.Throws<OperationCanceledException>(() => t.GetAwaiter().GetResult());
                Assert.Equal(0, h.Runtime.GetManagedStats().CancellationTokensMapped, "released");
                Assert.Equal(0UL, h.Runtime.GetNativeStats().Get_pools((int)Onity.Native.OnityPool.CancelSources).live, "native sources live");
            }
        }

        [Test]
        public void ATokenUsedForOneWaitEachFrameIsListedOnce()
        {
            // A wait started and finished within each frame with the same token (host code starting
            // `Yield(PostLateUpdate, ct)` in Update): its entry goes idle every frame and is reused the
            // next. The idle list, walked by every BeginFrame, used to gain a copy of it per frame.
            using (var h = new TestHost())
            {
                var cts = new CancellationTokenSource();
                for (int i = 0; i < 200; i++)
                {
                    h.RunFrame(OnityTiming.Update);
                    var t = OnityTask.Yield(OnityTiming.PostLateUpdate, cts.Token);
                    h.Runtime.Tick(OnityTiming.PostLateUpdate);
                    Assert.Equal(OnityTaskStatus.Succeeded, t.Status);
                    t.GetAwaiter().GetResult();
                    Assert.True(h.Runtime.IdleTokenListCount <= 1, "idle list holds " + h.Runtime.IdleTokenListCount + " entries at frame " + i);
                }
                Assert.Equal(1, h.Runtime.GetManagedStats().CancellationTokensMapped, "kept warm, one native source");
                h.RunFrame(OnityTiming.Update);
                h.RunFrame(OnityTiming.Update);
                h.RunFrame(OnityTiming.Update);
                Assert.Equal(0, h.Runtime.IdleTokenListCount, "swept");
                Assert.Equal(0, h.Runtime.GetManagedStats().CancellationTokensMapped, "released");
            }
        }

        [Test]
        public void WhenAnyAndWhenAllHonourTokens()
        {
            using (var h = new TestHost())
            {
                var cts = new CancellationTokenSource();
                var a = AutoResetOnityCompletionSource.Create();
                var b = AutoResetOnityCompletionSource.Create();
                var any = OnityTask.WhenAny(new[] { a.Task, b.Task }, cts.Token);
                var c = AutoResetOnityCompletionSource.Create();
                var all = OnityTask.WhenAll(new[] { c.Task }, cts.Token);
                cts.Cancel();
                Assert.Equal(OnityTaskStatus.Canceled, any.Status);
                Assert.Equal(OnityTaskStatus.Canceled, all.Status);
                Assert.Throws<OperationCanceledException>(() => any.GetAwaiter().GetResult());
                Assert.Throws<OperationCanceledException>(() => all.GetAwaiter().GetResult());
                a.TrySetResult(); b.TrySetResult(); c.TrySetResult();
                // The coordinators went back to their pools once their last input finished: the
                // next ones (likely the same objects) work normally.
                for (int round = 0; round < 3; round++)
                {
                    var d = AutoResetOnityCompletionSource.Create();
                    var e = AutoResetOnityCompletionSource.Create();
                    var all2 = OnityTask.WhenAll(d.Task, e.Task);
                    var any2 = OnityTask.WhenAny(new[] { AutoResetOnityCompletionSource.Create().Task, all2 });
                    Assert.Equal(OnityTaskStatus.Pending, all2.Status);
                    d.TrySetResult();
                    Assert.Equal(OnityTaskStatus.Pending, any2.Status);
                    e.TrySetResult();
                    Assert.Equal(1, any2.GetAwaiter().GetResult(), "WhenAll won");
                }
            }
        }
    }
}
