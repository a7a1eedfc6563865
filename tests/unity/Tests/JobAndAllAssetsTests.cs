using System;
using System.Collections.Generic;
using System.Threading;
using Onity.Unity;
using Unity.Jobs;
using UnityEngine;

namespace Onity.UnityTests
{
    /// <summary>UniTask's JobHandle awaiting (await / ToOnityTask / WaitAsync), AssetBundleRequest's
    /// own awaiter and AwaitForAllAssets, and the cancelImmediately forms of the polled async
    /// operations, frame by frame against the simulated engine.</summary>
    public class JobAndAllAssetsTests
    {

        static async OnityTask AwaitJob(JobHandle h, List<Stamp> into)
        {
            await h;
            into.Add(Stamp.Now());
        }

        [Test]
        public void AwaitJobHandle_SeenAtTheNextPollingPointOfTheFrame_CompletedOnTheMainThread()
        {
            var probe = Probe.EnterPlayMode();
            StandInJob job;
            var h = StandInJob.Schedule(out job);
            var got = new List<Stamp>();
            AwaitJob(h, got).Forget();
            Sim.RunFrames(2);
            Assert.Equal(0, got.Count, "a running job: pending");
            int f = Time.frameCount + 1;
            probe.OnUpdate.Enqueue(p => job.StandInFinish()); // the worker finishes during Update
            Sim.RunFrame();
            Assert.Equal(1, got.Count, "resumed in the frame the job finished");
            Assert.Equal(f, got[0].Frame, "frame");
            Assert.Equal(Sys.Of(OnityTiming.PreLateUpdate), got[0].System, "at the first polling point after Update (PreLateUpdate)");
            Assert.Equal(1, job.m_CompleteCalls, "Complete() called once, before the continuation");
            var done = new List<Stamp>();
            AwaitJob(h, done).Forget();
            Sim.RunFrame();
            Assert.Equal(1, done.Count, "a completed handle: at the next polling point");
            Assert.Equal(Sys.Of(OnityTiming.EarlyUpdate), done[0].System, "EarlyUpdate of the next frame");
        }

        [Test]
        public void AwaitJobHandle_FromAMonoBehavioursUpdate_SeenLaterInThatFrame()
        {
            // UniTask polls `await handle` at the next of its five points from where it is awaited:
            // awaited in Update, a finished job resumes at PreLateUpdate of the same frame, not at
            // the next frame's EarlyUpdate.
            var probe = Probe.EnterPlayMode();
            StandInJob job;
            var h = StandInJob.Schedule(out job);
            job.StandInFinish();
            var got = new List<Stamp>();
            int f = Time.frameCount + 1;
            probe.OnUpdate.Enqueue(p => AwaitJob(h, got).Forget());
            Sim.RunFrame();
            Assert.Equal(1, got.Count, "resumed in the frame it was awaited");
            Assert.Equal(f, got[0].Frame, "frame");
            Assert.Equal(Sys.Of(OnityTiming.PreLateUpdate), got[0].System, "at the first polling point after Update");

            // Awaited in a continuation at PostLateUpdate (the last point): next frame's EarlyUpdate.
            var late = new List<Stamp>();
            AwaitAfter(OnityTiming.PostLateUpdate, h, late).Forget();
            Sim.RunFrame();
            Sim.RunFrame();
            Assert.Equal(1, late.Count, "resumed");
            Assert.Equal(f + 2, late[0].Frame, "the frame after the one it was awaited in");
            Assert.Equal(Sys.Of(OnityTiming.EarlyUpdate), late[0].System, "EarlyUpdate");
        }

        static async OnityTask AwaitAfter(OnityTiming timing, JobHandle h, List<Stamp> into)
        {
            await OnityTask.Yield(timing);
            await h;
            into.Add(Stamp.Now());
        }

        [Test]
        public void JobHandleToOnityTask_PolledOnItsTimingOnly()
        {
            var probe = Probe.EnterPlayMode();
            StandInJob job;
            var h = StandInJob.Schedule(out job);
            var got = new List<Stamp>();
            Stamp.Record(h.ToOnityTask(OnityTiming.PostLateUpdate), got).Forget();
            Sim.RunFrame();
            Assert.Equal(0, got.Count, "pending");
            int f = Time.frameCount + 1;
            probe.OnUpdate.Enqueue(p => job.StandInFinish());
            Sim.RunFrame();
            Assert.Equal(1, got.Count, "done");
            Assert.Equal(f, got[0].Frame, "frame");
            Assert.Equal(Sys.Of(OnityTiming.PostLateUpdate), got[0].System, "its timing");
            Assert.Equal(1, job.m_CompleteCalls, "Complete() called");
        }

        [Test]
        public void JobHandleWaitAsync_CompletesTheJobAtTheTimingsNextRun_ThenHonoursTheToken()
        {
            Probe.EnterPlayMode();
            StandInJob job;
            var h = StandInJob.Schedule(out job);
            var got = new List<Stamp>();
            int f = Time.frameCount + 1;
            Stamp.Record(h.WaitAsync(OnityTiming.PreUpdate), got).Forget();
            Assert.Equal(0, job.m_CompleteCalls, "nothing before the timing");
            Sim.RunFrame();
            Assert.Equal(1, got.Count, "done at the next PreUpdate, the job not finished by a worker: Complete() ran it");
            Assert.False(got[0].Canceled, "succeeded");
            Assert.Equal(f, got[0].Frame, "frame");
            Assert.Equal(Sys.Of(OnityTiming.PreUpdate), got[0].System, "its timing");
            Assert.Equal(1, job.m_CompleteCalls, "Complete() once");

            for (int cancelAt = 0; cancelAt < 2; cancelAt++)
            {
                StandInJob j2;
                var h2 = StandInJob.Schedule(out j2);
                var cts = new CancellationTokenSource();
                if (cancelAt == 0) cts.Cancel();
                var c = new List<Stamp>();
                Stamp.Record(h2.WaitAsync(OnityTiming.Update, cts.Token), c).Forget();
                if (cancelAt == 1) cts.Cancel();
                Assert.Equal(0, c.Count, "pending until the timing (" + cancelAt + ")");
                Sim.RunFrame();
                Assert.Equal(1, c.Count, "ended at the timing");
                Assert.True(c[0].Canceled, "canceled");
                Assert.Equal(1, j2.m_CompleteCalls, "the job is completed even when canceled");
            }
        }

        [Test]
        public void LeavingPlayMode_CompletesPendingJobAwaits()
        {
            Probe.EnterPlayMode();
            StandInJob job;
            var h = StandInJob.Schedule(out job);
            var got = new List<Stamp>();
            AwaitJob(h, got).Forget();
            Sim.RunFrame();
            Sim.ExitPlayMode();
            Assert.Equal(1, got.Count, "resumed by the runtime's disposal");
            Assert.Equal(1, job.m_CompleteCalls, "the job completed (its data is not left with a worker)");
        }

        [Test]
        public void JobHandleMisuse_WrongThreadOrTiming_ThrowsAndStartsNothing()
        {
            Probe.EnterPlayMode();
            StandInJob job;
            var h = StandInJob.Schedule(out job);
            Assert.Throws<ArgumentOutOfRangeException>(() => h.ToOnityTask((OnityTiming)99), "a timing out of range");
            Exception error = null;
            var worker = new Thread(() =>
            {
                try { h.ToOnityTask(OnityTiming.Update); }
                catch (Exception e) { error = e; }
            });
            worker.Start();
            worker.Join();
            Assert.True(error is InvalidOperationException, "off the main thread: InvalidOperationException, got " + error);
            // The pooled source was given back intact: the next await works.
            var got = new List<Stamp>();
            AwaitJob(h, got).Forget();
            job.StandInFinish();
            Sim.RunFrame();
            Assert.Equal(1, got.Count, "the next await completes");
            Assert.Equal(1, job.m_CompleteCalls, "the misuses never completed the job");
        }

        static async OnityTask<UnityEngine.Object> AwaitAsset(AssetBundleRequest r) { return await r; }
        static async OnityTask<UnityEngine.Object[]> AwaitAll(AssetBundleRequest r) { return await r.AwaitForAllAssets(); }

        [Test]
        public void AssetBundleRequest_AwaitGivesTheAsset_AwaitForAllAssetsGivesAllAssets()
        {
            Probe.EnterPlayMode();
            var asset = new GameObject("main");
            var all = new UnityEngine.Object[] { asset, new GameObject("sub") };
            var r = StandInAsync.Start(new AssetBundleRequest { m_Asset = asset, m_AllAssets = all }, 1);
            var one = AwaitAsset(r);
            var many = AwaitAll(r);
            var polled = r.AwaitForAllAssets(CancellationToken.None);
            Assert.Equal(2, r.m_CompletedAddCount, "the direct forms: one completed handler each");
            Sim.RunFrame();
            Assert.Equal(OnityTaskStatus.Pending, many.Status, "pending");
            Sim.RunFrame();
            Assert.True(ReferenceEquals(asset, one.GetAwaiter().GetResult()), "await: the asset");
            Assert.True(ReferenceEquals(all, many.GetAwaiter().GetResult()), "AwaitForAllAssets(): allAssets");
            Assert.True(ReferenceEquals(all, polled.GetAwaiter().GetResult()), "AwaitForAllAssets(token): allAssets");
            Assert.True(ReferenceEquals(all, r.AwaitForAllAssets(null, OnityTiming.Update, CancellationToken.None).GetAwaiter().GetResult()), "done: at once");
            Assert.Throws<ArgumentNullException>(() => ((AssetBundleRequest)null).AwaitForAllAssets(), "null request");
            Assert.Throws<ArgumentNullException>(() => ((AssetBundleRequest)null).AwaitForAllAssets(CancellationToken.None), "null request (polled)");
        }

        [Test]
        public void AwaitForAllAssets_CanceledAtTheNextRun_OrAtTheCancelCallWithCancelImmediately()
        {
            Probe.EnterPlayMode();
            for (int immediately = 0; immediately < 2; immediately++)
            {
                var r = StandInAsync.Start(new AssetBundleRequest(), 5);
                var cts = new CancellationTokenSource();
                var got = new List<Stamp>();
                Stamp.Record(r.AwaitForAllAssets(cts.Token, immediately == 1), got).Forget();
                Sim.RunFrame();
                int f = Time.frameCount;
                cts.Cancel();
                if (immediately == 1)
                {
                    Assert.Equal(1, got.Count, "canceled at the Cancel call");
                    Assert.True(got[0].Canceled && got[0].Frame == f && got[0].System == null, "between frames, as canceled");
                }
                else
                {
                    Assert.Equal(0, got.Count, "seen at the next run of Update");
                    Sim.RunFrame();
                    Assert.Equal(1, got.Count, "canceled");
                    Assert.True(got[0].Canceled && got[0].Frame == f + 1, "next frame, as canceled");
                }
                Sim.RunFrames(2); // the loop ends; the pooled source is reused safely below
            }
            var again = StandInAsync.Start(new AssetBundleRequest { m_AllAssets = new UnityEngine.Object[0] }, 0);
            var t = again.AwaitForAllAssets(CancellationToken.None, true);
            Sim.RunFrame();
            Assert.Equal(OnityTaskStatus.Succeeded, t.Status, "the reused source completes normally");
        }

        [Test]
        public void PolledOperations_CancelImmediately_CancelAtTheCallAndAbortWebRequests()
        {
            Probe.EnterPlayMode();
            var op = StandInAsync.Start(new AsyncOperation(), -1);
            var cts = new CancellationTokenSource();
            var task = op.WithCancellation(cts.Token, true);
            var req = new UnityEngine.Networking.UnityWebRequest("http://example.invalid/").StandInScript(-1);
            var web = req.SendWebRequest().ToOnityTask(null, OnityTiming.Update, cts.Token, true);
            var plain = StandInAsync.Start(new AsyncOperation(), -1).WithCancellation(cts.Token, false);
            Sim.RunFrame();
            cts.Cancel();
            Assert.Equal(OnityTaskStatus.Canceled, task.Status, "AsyncOperation: at the call");
            Assert.Equal(OnityTaskStatus.Canceled, web.Status, "web request: at the call");
            Assert.Equal(1, req.m_AbortCount, "aborted once");
            Assert.Equal(OnityTaskStatus.Pending, plain.Status, "without cancelImmediately: at the next Update");
            Sim.RunFrame();
            Assert.Equal(OnityTaskStatus.Canceled, plain.Status, "then canceled");
            Assert.Equal(1, req.m_AbortCount, "not aborted again by the loop");
        }

        static async OnityTask<int> JobLoop(JobHandle[] hs)
        {
            int n = 0;
            for (int i = 0; i < hs.Length; i++) { await hs[i]; n++; }
            return n;
        }

        static async OnityTask<int> AllAssetsLoop(AssetBundleRequest[] rs)
        {
            int n = 0;
            for (int i = 0; i < rs.Length; i++) { await rs[i].AwaitForAllAssets(); n++; }
            return n;
        }

        static JobHandle[] Jobs(int n, List<StandInJob> into)
        {
            var hs = new JobHandle[n];
            for (int i = 0; i < n; i++)
            {
                StandInJob j;
                hs[i] = StandInJob.Schedule(out j);
                j.StandInFinish();
                into.Add(j);
            }
            return hs;
        }

        static AssetBundleRequest[] Requests(int n)
        {
            var rs = new AssetBundleRequest[n];
            for (int i = 0; i < n; i++) rs[i] = new AssetBundleRequest();
            return rs;
        }

        [Test]
        public void AwaitingJobsAndAllAssetsAllocatesNothingAfterWarmUp()
        {
            CleanContext.Run(() =>
            {
                Probe.EnterPlayMode();
                var rt = OnityPlayerLoop.Runtime;
                ulong frame = 100000;
                var jobs = new List<StandInJob>();
                // One finished job awaited per run of the runtime's EarlyUpdate (driven directly:
                // the simulated engine itself allocates per frame).
                var warm = JobLoop(Jobs(300, jobs));
                for (int i = 0; i < 300; i++) { rt.BeginFrame(++frame, 0.016, 0.016, frame); rt.Tick(OnityTiming.EarlyUpdate); }
                Assert.Equal(300, warm.GetAwaiter().GetResult(), "warm-up");
                var hs = Jobs(3000, jobs);
                var t = JobLoop(hs);
                long b0 = GC.GetAllocatedBytesForCurrentThread();
                for (int i = 0; i < 3000; i++) { rt.BeginFrame(++frame, 0.016, 0.016, frame); rt.Tick(OnityTiming.EarlyUpdate); }
                long polled = GC.GetAllocatedBytesForCurrentThread() - b0;
                Assert.Equal(3000, t.GetAwaiter().GetResult(), "all awaited");
                Assert.Equal(0L, polled, "bytes over 3,000 awaits of a JobHandle");
                // AwaitForAllAssets: each request finishes while awaited (the completed event).
                var rw = Requests(300);
                var w = AllAssetsLoop(rw);
                foreach (var r in rw) r.StandInFinish();
                Assert.Equal(300, w.GetAwaiter().GetResult(), "warm-up");
                var rs = Requests(3000);
                var a = AllAssetsLoop(rs);
                b0 = GC.GetAllocatedBytesForCurrentThread();
                foreach (var r in rs) r.StandInFinish();
                long direct = GC.GetAllocatedBytesForCurrentThread() - b0;
                Assert.Equal(3000, a.GetAwaiter().GetResult(), "all awaited");
                Assert.Equal(0L, direct, "bytes over 3,000 awaits of AwaitForAllAssets()");
                // Control: the same measurement sees the requests' own allocation.
                b0 = GC.GetAllocatedBytesForCurrentThread();
                var control = Requests(10);
                Assert.True(GC.GetAllocatedBytesForCurrentThread() - b0 >= 10 * 16 && control.Length == 10, "allocations are seen");
                Sim.ExitPlayMode();
            });
        }
    }
}
