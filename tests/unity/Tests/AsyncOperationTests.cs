using System;
using System.Collections.Generic;
using System.Threading;
using Onity.Unity;
using UnityEngine;
using UnityEngine.Networking;
using UnityEngine.Rendering;
using PL = UnityEngine.PlayerLoop;

namespace Onity.UnityTests
{
    /// <summary>Unity async operations awaited directly (completed event, native timing) and
    /// polled (ToOnityTask: progress, timing, token), frame by frame against the simulated
    /// engine's native systems.</summary>
    public class AsyncOperationTests
    {
        sealed class Progress : IProgress<float>
        {
            public readonly List<float> Values = new List<float>();
            public readonly List<int> Frames = new List<int>();
            public void Report(float value) { Values.Add(value); Frames.Add(Time.frameCount); }
        }

        static async OnityTask AwaitDirect(AsyncOperation op, List<Stamp> into)
        {
            await op;
            into.Add(Stamp.Now());
        }

        [Test]
        public void AwaitOp_ResumesFromTheCompletedEvent_InTheSystemThatFinishedIt()
        {
            Probe.EnterPlayMode();
            var op = StandInAsync.Start(new AsyncOperation(), 2);
            var got = new List<Stamp>();
            AwaitDirect(op, got).Forget();
            Assert.Equal(1, op.m_CompletedAddCount, "one completed handler");
            int f = Time.frameCount;
            Sim.RunFrame();
            Sim.RunFrame();
            Assert.Equal(0, got.Count, "two runs of UpdatePreloading: not done");
            Sim.RunFrame();
            Assert.Equal(1, got.Count, "done at the third");
            Assert.Equal(f + 3, got[0].Frame, "frame");
            Assert.Equal(typeof(PL.EarlyUpdate.UpdatePreloading), got[0].System, "resumed inside the native system (native timing, as UniTask's await)");
            Assert.False(op.HasCompletionCallback, "Unity dropped the handler");

            var done = new List<Stamp>();
            AwaitDirect(op, done).Forget();
            Assert.Equal(1, done.Count, "an op already done completes at once");
        }

        [Test]
        public void ToOnityTask_ReportsProgressEachRunOfItsTiming_CompletesInThatTiming()
        {
            var probe = Probe.EnterPlayMode();
            AsyncOperation op = null;
            var progress = new Progress();
            var got = new List<Stamp>();
            int f = -1;
            probe.OnUpdate.Enqueue(p =>
            {
                f = Time.frameCount;
                op = StandInAsync.Start(new AsyncOperation(), 2); // after this frame's UpdatePreloading
                Stamp.Record(op.ToOnityTask(progress, OnityTiming.PreLateUpdate), got).Forget();
            });
            Sim.RunFrame();
            Assert.Equal(1, progress.Values.Count, "the first report at PreLateUpdate of the creating frame (its next run)");
            Sim.RunFrames(2);
            Assert.Equal(0, got.Count, "pending");
            Sim.RunFrame();
            Assert.Equal(1, got.Count, "done");
            Assert.Equal(f + 3, got[0].Frame, "the frame UpdatePreloading finished it");
            Assert.Equal(Sys.Of(OnityTiming.PreLateUpdate), got[0].System, "resumed in its timing's system");
            Assert.Equal(4, progress.Values.Count, "one report per run, the last one 1");
            Assert.Equal(1f, progress.Values[3], "last report");
            Assert.True(progress.Values[1] > 0 && progress.Values[1] < progress.Values[2], "rising: " + string.Join(",", progress.Values));
            Assert.Equal(OnityTaskStatus.Succeeded, op.ToOnityTask().Status, "an op already done: completed at once");
        }

        [Test]
        public void ToOnityTask_CanceledAtEveryPoint_AtTheNextRunOfItsTiming_TheOpGoesOn()
        {
            Probe.EnterPlayMode();
            for (int cancelAt = 0; cancelAt < 4; cancelAt++)
            {
                var op = StandInAsync.Start(new AsyncOperation(), 5);
                var got = new List<Stamp>();
                var cts = new CancellationTokenSource();
                Stamp.Record(op.WithCancellation(cts.Token), got).Forget();
                Sim.RunFrames(cancelAt);
                Assert.Equal(0, got.Count, "pending (" + cancelAt + ")");
                int f = Time.frameCount;
                cts.Cancel();
                Sim.RunFrame();
                Assert.Equal(1, got.Count, "canceled");
                Assert.True(got[0].Canceled, "as canceled");
                Assert.Equal(f + 1, got[0].Frame, "at the next frame");
                Assert.Equal(Sys.Of(OnityTiming.Update), got[0].System, "in Update (WithCancellation's timing)");
                Assert.False(op.isDone, "the operation itself is not stopped");
                var already = op.ToOnityTask(null, OnityTiming.Update, cts.Token);
                Assert.Equal(OnityTaskStatus.Canceled, already.Status, "an already-canceled token: at once");
                Assert.Throws<OperationCanceledException>(() => already.GetAwaiter().GetResult(), "canceled");
            }
        }

        [Test]
        public void LeavingPlayMode_CancelsPolledOperations_AbortsWebRequests()
        {
            Probe.EnterPlayMode();
            var op = StandInAsync.Start(new AsyncOperation(), -1);
            var req = new UnityWebRequest("http://example.invalid/").StandInScript(-1);
            var got = new List<Stamp>();
            Stamp.Record(op.ToOnityTask(), got).Forget();
            Stamp.Record(req.SendWebRequest().ToOnityTask(), got).Forget();
            Sim.RunFrames(2);
            Sim.ExitPlayMode();
            Assert.Equal(2, got.Count, "both completed by the runtime's disposal");
            Assert.True(got[0].Canceled && got[1].Canceled, "canceled");
            Assert.Equal(1, req.m_AbortCount, "the request was aborted");
        }

        static async OnityTask<UnityEngine.Object> LoadDirect(ResourceRequest r) { return await r; }

        [Test]
        public void ResourceAndAssetBundleRequests_GiveTheirAssetOrBundle()
        {
            Probe.EnterPlayMode();
            var asset = new GameObject("asset");
            var rr = StandInAsync.Start(new ResourceRequest { m_Asset = asset }, 0);
            var direct = LoadDirect(rr);
            var polled = rr.ToOnityTask();
            var abr = StandInAsync.Start(new AssetBundleRequest { m_Asset = asset }, 1);
            var abrTask = abr.ToOnityTask();
            var bundle = AssetBundle.StandInCreate();
            var abc = StandInAsync.Start(new AssetBundleCreateRequest { m_Bundle = bundle }, 1);
            var abcTask = abc.WithCancellation(CancellationToken.None);
            Sim.RunFrame();
            Assert.True(ReferenceEquals(asset, direct.GetAwaiter().GetResult()), "await ResourceRequest: the asset");
            Assert.True(ReferenceEquals(asset, polled.GetAwaiter().GetResult()), "ToOnityTask: the asset");
            Sim.RunFrame();
            Assert.True(ReferenceEquals(asset, abrTask.GetAwaiter().GetResult()), "AssetBundleRequest: the asset");
            Assert.True(ReferenceEquals(bundle, abcTask.GetAwaiter().GetResult()), "AssetBundleCreateRequest: the bundle");
            Assert.True(ReferenceEquals(bundle, abc.GetAwaiter().GetResult()), "await AssetBundleCreateRequest (done: at once)");
            Assert.True(ReferenceEquals(asset, abr.GetAwaiter().GetResult()), "await AssetBundleRequest (done: at once)");
            Assert.Throws<ArgumentNullException>(() => ((ResourceRequest)null).ToOnityTask(), "null operation");
        }

        static async OnityTask<UnityWebRequest> Send(UnityWebRequest r) { return await r.SendWebRequest(); }

        [Test]
        public void WebRequests_SucceedOrThrowOnityWebRequestException()
        {
            Probe.EnterPlayMode();
            var ok = new UnityWebRequest("http://example.invalid/ok").StandInScript(1, UnityWebRequest.Result.Success, 200, null, "hello");
            var okTask = Send(ok);
            var missing = new UnityWebRequest("http://example.invalid/missing").StandInScript(0, UnityWebRequest.Result.ProtocolError, 404, null, "{\"error\":\"no such thing\"}");
            var missingTask = Send(missing);
            var offline = new UnityWebRequest("http://example.invalid/offline").StandInScript(0, UnityWebRequest.Result.ConnectionError, 0, "Cannot resolve destination host");
            var offlineTask = offline.SendWebRequest().ToOnityTask();
            Sim.RunFrame();
            Assert.Equal(OnityTaskStatus.Pending, okTask.Status, "one more frame");
            var e = Assert.Throws<OnityWebRequestException>(() => missingTask.GetAwaiter().GetResult(), "404 throws");
            Assert.Equal(404L, e.ResponseCode, "response code");
            Assert.Equal(UnityWebRequest.Result.ProtocolError, e.Result, "result");
            Assert.Equal("HTTP/1.1 404 Not Found", e.Error, "Unity's error string");
            Assert.Equal("{\"error\":\"no such thing\"}", e.Text, "the body");
            Assert.Contains("no such thing", e.Message, "message carries the body");
            Assert.True(ReferenceEquals(missing, e.UnityWebRequest), "the request");
            var c = Assert.Throws<OnityWebRequestException>(() => offlineTask.GetAwaiter().GetResult(), "connection error throws");
            Assert.Equal(UnityWebRequest.Result.ConnectionError, c.Result, "connection error");
            Assert.True(c.IsNetworkError && !c.IsHttpError && e.IsHttpError && !e.IsNetworkError, "IsNetworkError / IsHttpError");
            Assert.Equal("Cannot resolve destination host", c.Error, "its error");
            Assert.Equal("25", e.ResponseHeaders["Content-Length"], "the response's headers");
            Assert.True(c.ResponseHeaders == null, "no response: no headers");
            Sim.RunFrame();
            Assert.True(ReferenceEquals(ok, okTask.GetAwaiter().GetResult()), "success: the request");
            Assert.Equal("hello", ok.downloadHandler.text, "its body");
        }

        [Test]
        public void WebRequest_CanceledAtEveryPoint_IsAborted()
        {
            Probe.EnterPlayMode();
            for (int cancelAt = 0; cancelAt < 3; cancelAt++)
            {
                var req = new UnityWebRequest("http://example.invalid/slow").StandInScript(10);
                var cts = new CancellationTokenSource();
                var got = new List<Stamp>();
                Stamp.Record(req.SendWebRequest().WithCancellation(cts.Token), got).Forget();
                Sim.RunFrames(cancelAt);
                cts.Cancel();
                Assert.Equal(0, req.m_AbortCount, "not aborted before the next run (" + cancelAt + ")");
                Sim.RunFrame();
                Assert.True(got.Count == 1 && got[0].Canceled, "canceled");
                Assert.Equal(1, req.m_AbortCount, "aborted once");
                Assert.Equal(UnityWebRequest.Result.ConnectionError, req.result, "Unity's aborted state");
            }
            var late = new UnityWebRequest("http://example.invalid/late").StandInScript(10);
            var op = late.SendWebRequest();
            var t = op.ToOnityTask(null, OnityTiming.Update, new CancellationToken(true));
            Assert.Equal(OnityTaskStatus.Canceled, t.Status, "already canceled: at once");
            Assert.Equal(1, late.m_AbortCount, "and aborted");
        }

        [Test]
        public void GpuReadback_DoneErrorOrDisposed()
        {
            Probe.EnterPlayMode();
            var ok = AsyncGPUReadbackRequest.StandInStart(1);
            var okTask = ok.ToOnityTask();
            var failing = AsyncGPUReadbackRequest.StandInStart(0, true);
            var failTask = failing.WithCancellation(CancellationToken.None);
            var canceled = new CancellationTokenSource();
            var c = AsyncGPUReadbackRequest.StandInStart(5).ToOnityTask(OnityTiming.Update, canceled.Token);
            Sim.RunFrame();
            Assert.Throws<InvalidOperationException>(() => failTask.GetAwaiter().GetResult(), "hasError faults");
            Assert.Equal(OnityTaskStatus.Pending, okTask.Status, "pending");
            canceled.Cancel();
            Sim.RunFrame();
            Assert.True(okTask.GetAwaiter().GetResult().done, "done, read in the same frame");
            Assert.Throws<OperationCanceledException>(() => c.GetAwaiter().GetResult(), "canceled at the next run");
            var stale = AsyncGPUReadbackRequest.StandInStart(0);
            Sim.RunFrames(2); // done, then disposed the frame after
            Assert.Throws<InvalidOperationException>(() => stale.ToOnityTask().GetAwaiter().GetResult(), "its data is gone: hasError");
        }

        static async OnityTask<int> DirectLoop(AsyncOperation[] ops)
        {
            int n = 0;
            for (int i = 0; i < ops.Length; i++) { await ops[i]; n++; }
            return n;
        }

        static async OnityTask<int> PolledLoop(AsyncOperation[] ops)
        {
            int n = 0;
            for (int i = 0; i < ops.Length; i++) { await ops[i].ToOnityTask(); n++; }
            return n;
        }

        static AsyncOperation[] Ops(int n)
        {
            var ops = new AsyncOperation[n];
            for (int i = 0; i < n; i++) ops[i] = new AsyncOperation();
            return ops;
        }

        [Test]
        public void AwaitingOperationsAllocatesNothingAfterWarmUp()
        {
            CleanContext.Run(() =>
            {
                Probe.EnterPlayMode();
                var rt = OnityPlayerLoop.Runtime;
                ulong frame = 100000;
                // The completed event: each op finishes while awaited.
                var warm = Ops(500);
                var w = DirectLoop(warm);
                foreach (var op in warm) op.StandInFinish();
                Assert.Equal(500, w.GetAwaiter().GetResult(), "warm-up");
                var ops = Ops(5000);
                var t = DirectLoop(ops);
                long b0 = GC.GetAllocatedBytesForCurrentThread();
                foreach (var op in ops) op.StandInFinish();
                long direct = GC.GetAllocatedBytesForCurrentThread() - b0;
                Assert.Equal(5000, t.GetAwaiter().GetResult(), "all awaited");
                Assert.Equal(0L, direct, "bytes over 5,000 awaits of a pending op (completed event)");
                // Polled: one op finishes per frame (the runtime driven directly: the simulated engine
                // itself allocates per frame).
                var pw = Ops(300);
                var p = PolledLoop(pw);
                foreach (var op in pw) { op.StandInFinish(); rt.BeginFrame(++frame, 0.016, 0.016, frame); rt.Tick(OnityTiming.Update); }
                Assert.Equal(300, p.GetAwaiter().GetResult(), "warm-up");
                var po = Ops(3000);
                var q = PolledLoop(po);
                b0 = GC.GetAllocatedBytesForCurrentThread();
                foreach (var op in po) { op.StandInFinish(); rt.BeginFrame(++frame, 0.016, 0.016, frame); rt.Tick(OnityTiming.Update); }
                long polled = GC.GetAllocatedBytesForCurrentThread() - b0;
                Assert.Equal(3000, q.GetAwaiter().GetResult(), "all awaited");
                Assert.Equal(0L, polled, "bytes over 3,000 polled awaits");
                // Control: the same measurement sees the ops' own allocation.
                b0 = GC.GetAllocatedBytesForCurrentThread();
                var control = Ops(10);
                Assert.True(GC.GetAllocatedBytesForCurrentThread() - b0 >= 10 * 16 && control.Length == 10, "allocations are seen");
                Sim.ExitPlayMode(); // the frame numbers given by hand are ahead of the loop's
            });
        }
    }
}
