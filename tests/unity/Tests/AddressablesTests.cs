using System;
using System.Collections.Generic;
using System.Threading;
using Onity.Unity;
using UnityEngine;
using UnityEngine.ResourceManagement.AsyncOperations;

namespace Onity.UnityTests
{
    /// <summary>Addressables' AsyncOperationHandle / AsyncOperationHandle&lt;T&gt; awaited
    /// (Onity.Unity.Addressables): completion from the Completed event, failure, progress,
    /// cancellation at every point (polled and immediate) and auto-release, frame by frame against
    /// the ResourceManager stand-in.</summary>
    public class AddressablesTests
    {
        sealed class Progress : IProgress<float>
        {
            public readonly List<float> Values = new List<float>();
            public void Report(float value) { Values.Add(value); }
        }

        static async OnityTask<string> AwaitTyped(AsyncOperationHandle<string> h, List<Stamp> into)
        {
            var v = await h;
            into.Add(Stamp.Now());
            return v;
        }

        static async OnityTask AwaitUntyped(AsyncOperationHandle h, List<Stamp> into)
        {
            await h;
            into.Add(Stamp.Now());
        }

        static async OnityTask Outcome(OnityTask t, List<string> into)
        {
            try
            {
                await t;
                into.Add("ok");
            }
            catch (OperationCanceledException) { into.Add("canceled"); }
            catch (Exception e) { into.Add(e.Message); }
        }

        [Test]
        public void AwaitHandle_CompletesFromTheCompletedEvent_WithTheResult()
        {
            Probe.EnterPlayMode();
            var h = StandInOperation.Start(2, "asset");
            var got = new List<Stamp>();
            var typed = AwaitTyped(h, got);
            var untyped = new List<Stamp>();
            AwaitUntyped(h, untyped).Forget();
            Assert.Equal(2, h.m_InternalOp.TypelessCount, "each await subscribes Completed");
            int f = Time.frameCount;
            Sim.RunFrames(2);
            Assert.Equal(0, got.Count, "pending");
            Sim.RunFrame();
            Assert.Equal(1, got.Count, "completed");
            Assert.Equal(1, untyped.Count, "the untyped handle too");
            Assert.Equal(f + 3, got[0].Frame, "the frame ResourceManager completed it");
            Assert.Equal(typeof(UnityEngine.PlayerLoop.Update.ScriptRunBehaviourUpdate), got[0].System, "resumed from the event, where Addressables raised it");
            Assert.Equal("asset", typed.GetAwaiter().GetResult(), "the Result");
            Assert.Equal(OnityTaskStatus.Succeeded, h.ToOnityTask().Status, "a done handle: at once");
            Assert.Equal("asset", h.ToOnityTask().GetAwaiter().GetResult(), "with its Result");
        }

        [Test]
        public void FailedOperation_ThrowsItsOperationException()
        {
            Probe.EnterPlayMode();
            var h = StandInOperation.Start<string>();
            var got = new List<string>();
            Outcome(h.ToOnityTask(), got).Forget();
            Outcome(((AsyncOperationHandle)h).ToOnityTask(), got).Forget();
            Sim.RunFrame();
            h.m_InternalOp.StandInFail(new InvalidOperationException("missing key"));
            Assert.Equal("missing key,missing key", string.Join(",", got), "typed and untyped fault with OperationException");
            var e = Assert.Throws<InvalidOperationException>(() => h.ToOnityTask().GetAwaiter().GetResult(), "a failed handle: at once");
            Assert.Equal("missing key", e.Message, "its exception");
            var awaiter = new OnityAddressablesExtensions.AsyncOperationHandleAwaiter(h);
            Assert.True(awaiter.IsCompleted, "done");
            Assert.Throws<InvalidOperationException>(() => awaiter.GetResult(), "the struct awaiter throws it too");
        }

        [Test]
        public void InvalidHandles_UntypedCompleted_TypedThrows()
        {
            Probe.EnterPlayMode();
            Assert.Equal(OnityTaskStatus.Succeeded, default(AsyncOperationHandle).ToOnityTask().Status, "untyped invalid: completed (UniTask's)");
            Assert.Throws<InvalidOperationException>(() => default(AsyncOperationHandle<string>).ToOnityTask(), "typed invalid: no result to give");
            var h = StandInOperation.Start<string>();
            UnityEngine.AddressableAssets.Addressables.Release(h);
            Assert.Equal(OnityTaskStatus.Succeeded, ((AsyncOperationHandle)h).WithCancellation(CancellationToken.None).Status, "released: completed");
        }

        [Test]
        public void ToOnityTask_ReportsPercentCompleteEachRunOfItsTiming()
        {
            Probe.EnterPlayMode();
            var h = StandInOperation.Start(3, "x");
            var progress = new Progress();
            var got = new List<string>();
            Outcome(h.ToOnityTask(progress, OnityTiming.PreLateUpdate), got).Forget();
            Sim.RunFrames(3);
            Assert.Equal(3, progress.Values.Count, "one report per PreLateUpdate");
            Assert.True(progress.Values[0] > 0 && progress.Values[0] < progress.Values[2], "rising: " + string.Join(",", progress.Values));
            Sim.RunFrame();
            Assert.Equal("ok", string.Join(",", got), "completed");
            Assert.Equal(3, progress.Values.Count, "no report after the completion (same frame: Update comes first)");
        }

        [Test]
        public void Cancellation_AtEveryPoint_PolledOrImmediate_WithAndWithoutAutoRelease()
        {
            Probe.EnterPlayMode();
            for (int mode = 0; mode < 4; mode++)
            {
                bool immediately = (mode & 1) != 0, autoRelease = (mode & 2) != 0;
                for (int cancelAt = 0; cancelAt < 3; cancelAt++)
                {
                    var h = StandInOperation.Start(10, "x");
                    var cts = new CancellationTokenSource();
                    var got = new List<string>();
                    Outcome(h.WithCancellation(cts.Token, immediately, autoRelease), got).Forget();
                    Sim.RunFrames(cancelAt);
                    cts.Cancel();
                    string where = " (immediately " + immediately + ", autoRelease " + autoRelease + ", at " + cancelAt + ")";
                    if (immediately) Assert.Equal("canceled", string.Join(",", got), "at the Cancel call" + where);
                    else
                    {
                        Assert.Equal(0, got.Count, "seen at the next Update" + where);
                        Sim.RunFrame();
                        Assert.Equal("canceled", string.Join(",", got), "canceled" + where);
                    }
                    Assert.Equal(autoRelease ? 1 : 0, h.m_InternalOp.m_Releases, "released only with autoReleaseWhenCanceled" + where);
                    Assert.Equal(!autoRelease, h.IsValid(), "the handle's validity" + where);
                    if (!autoRelease)
                    {
                        h.m_InternalOp.StandInComplete("late");
                        Assert.Equal("canceled", string.Join(",", got), "a later completion changes nothing" + where);
                    }
                    Sim.RunFrames(2);
                }
            }
            var already = new CancellationTokenSource();
            already.Cancel();
            var p = StandInOperation.Start<string>();
            Assert.Equal(OnityTaskStatus.Canceled, p.ToOnityTask(null, OnityTiming.Update, already.Token, false, true).Status, "a canceled token: at once");
            Assert.Equal(0, p.m_InternalOp.m_Releases, "without releasing (UniTask's)");
        }

        [Test]
        public void AHandleReleasedWhileAwaited_FaultsTheWait_LeavingPlayModeCancels()
        {
            Probe.EnterPlayMode();
            var h = StandInOperation.Start<string>();
            var got = new List<string>();
            Outcome(h.ToOnityTask(), got).Forget();
            UnityEngine.AddressableAssets.Addressables.Release(h);
            Sim.RunFrame();
            Assert.Equal(1, got.Count, "ended at the next Update");
            Assert.Contains("released while awaited", got[0], "a clear error");
            var p = StandInOperation.Start<string>();
            var left = new List<string>();
            Outcome(p.ToOnityTask(), left).Forget();
            Sim.ExitPlayMode();
            Assert.Equal("canceled", string.Join(",", left), "the runtime's disposal cancels");
        }

        [Test]
        public void Misuse_OffTheMainThreadOrBadTiming_ThrowsAndSubscribesNothing()
        {
            Probe.EnterPlayMode();
            var h = StandInOperation.Start<string>();
            Assert.Throws<ArgumentOutOfRangeException>(() => h.ToOnityTask(null, (OnityTiming)99), "a timing out of range");
            Exception error = null;
            var worker = new Thread(() =>
            {
                try { h.ToOnityTask(); }
                catch (Exception e) { error = e; }
            });
            worker.Start();
            worker.Join();
            Assert.True(error is InvalidOperationException, "off the main thread: InvalidOperationException, got " + error);
            Assert.Equal(0, h.m_InternalOp.TypelessCount, "no Completed handler added by the misuses");
            var t = h.ToOnityTask();
            h.m_InternalOp.StandInComplete("fine");
            Assert.Equal("fine", t.GetAwaiter().GetResult(), "the pooled source was given back intact");
        }

        static async OnityTask StructAwait(AsyncOperationHandle h, List<string> into)
        {
            await new AwaitableHandle(h);
            into.Add("done");
        }

        struct AwaitableHandle
        {
            readonly AsyncOperationHandle h;
            public AwaitableHandle(AsyncOperationHandle h) { this.h = h; }
            public OnityAddressablesExtensions.AsyncOperationHandleAwaiter GetAwaiter() { return new OnityAddressablesExtensions.AsyncOperationHandleAwaiter(h); }
        }

        [Test]
        public void StructAwaiter_ResumesFromCompleted()
        {
            Probe.EnterPlayMode();
            var h = StandInOperation.Start<string>();
            var got = new List<string>();
            StructAwait(h, got).Forget();
            Sim.RunFrame();
            Assert.Equal(0, got.Count, "pending");
            h.m_InternalOp.StandInComplete("v");
            Assert.Equal("done", string.Join(",", got), "resumed by Completed");
            Assert.Equal(0, h.m_InternalOp.TypelessCount, "its handler removed");
        }

        static async OnityTask<int> Loop(AsyncOperationHandle<string>[] hs, CancellationToken ct)
        {
            int n = 0;
            for (int i = 0; i < hs.Length; i++) { await hs[i].WithCancellation(ct); n++; }
            return n;
        }

        static AsyncOperationHandle<string>[] Handles(int n)
        {
            var hs = new AsyncOperationHandle<string>[n];
            for (int i = 0; i < n; i++) hs[i] = StandInOperation.Start<string>();
            return hs;
        }

        [Test]
        public void AwaitingHandlesAllocatesNothingAfterWarmUp()
        {
            CleanContext.Run(() =>
            {
                Probe.EnterPlayMode();
                var rt = OnityPlayerLoop.Runtime;
                ulong frame = 100000;
                var cts = new CancellationTokenSource();
                var warm = Handles(300);
                var w = Loop(warm, cts.Token);
                foreach (var h in warm) { h.m_InternalOp.StandInComplete("v"); rt.BeginFrame(++frame, 0.016, 0.016, frame); rt.Tick(OnityTiming.Update); }
                Assert.Equal(300, w.GetAwaiter().GetResult(), "warm-up");
                var hs = Handles(3000);
                var t = Loop(hs, cts.Token);
                long b0 = GC.GetAllocatedBytesForCurrentThread();
                foreach (var h in hs) { h.m_InternalOp.StandInComplete("v"); rt.BeginFrame(++frame, 0.016, 0.016, frame); rt.Tick(OnityTiming.Update); }
                long d = GC.GetAllocatedBytesForCurrentThread() - b0;
                Assert.Equal(3000, t.GetAwaiter().GetResult(), "all awaited");
                Assert.Equal(0L, d, "bytes over 3,000 awaits of a pending handle with a token");
                b0 = GC.GetAllocatedBytesForCurrentThread();
                var control = Handles(10);
                Assert.True(GC.GetAllocatedBytesForCurrentThread() - b0 >= 10 * 16 && control.Length == 10, "allocations are seen");
                Sim.ExitPlayMode();
            });
        }
    }
}
