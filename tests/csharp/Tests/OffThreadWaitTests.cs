using System;
using System.Collections.Generic;
using System.Threading;

namespace Onity.Tests
{
    /// <summary>Frame waits created and awaited on a worker thread resume on the owner's loop
    /// (UniTask's SwitchTo / DelayInThreadPool tests): the await is posted to the owner and filed at
    /// its next BeginFrame/Tick/Drain, counting from there.</summary>
    public class OffThreadWaitTests
    {
        sealed class Stamp
        {
            public int Thread;
            public ulong Frame;
            public Exception Error;
            public volatile object Slot; // a slot wait made on the worker (its source), once made
            public volatile bool ExpectSlot;
            public readonly ManualResetEventSlim Done = new ManualResetEventSlim();
        }

        enum Kind { YieldUpdate, YieldPreLate, NextFrame, DelayFrame3, Delay50ms, TokenNextFrame, Converted, Delay10s }

        /// <summary>On a thread-pool thread, awaits one wait made there (the await itself, so the
        /// worker's registration is part of it), then stamps where it resumed.</summary>
        static async OnityTask Hop(Kind kind, Stamp s, OnityRuntime rt, CancellationToken ct = default(CancellationToken))
        {
            s.ExpectSlot = kind >= Kind.Delay50ms;
            await OnityTask.SwitchToThreadPool();
            try
            {
                switch (kind)
                {
                    case Kind.YieldUpdate: await OnityTask.Yield(OnityTiming.Update); break;
                    case Kind.YieldPreLate: await OnityTask.Yield(OnityTiming.PreLateUpdate); break;
                    case Kind.NextFrame: await OnityTask.NextFrame(); break;
                    case Kind.DelayFrame3: await OnityTask.DelayFrame(3); break;
                    case Kind.Delay50ms: await Made(OnityTask.Delay(TimeSpan.FromSeconds(0.05)), s); break;
                    case Kind.TokenNextFrame: await Made(OnityTask.NextFrame(ct), s); break;
                    case Kind.Converted: await Made(OnityTask.NextFrame(), s); break;
                    default: await Made(OnityTask.Delay(TimeSpan.FromSeconds(10)), s); break;
                }
            }
            catch (Exception e) { s.Error = e; }
            s.Thread = Thread.CurrentThread.ManagedThreadId;
            s.Frame = rt.Frame;
            s.Done.Set();
        }

        static OnityTask Made(OnityTask t, Stamp s)
        {
            s.Slot = t.source ?? new object();
            return t;
        }

        /// <summary>The worker's await is registered: a frame wait posts at its await; a slot wait
        /// posts when made, and its continuation is registered by the await that follows.</summary>
        static bool Registered(TestHost h, Stamp s)
        {
            if (s.Done.IsSet) return true;
            if (h.Runtime.GetManagedStats().PostedContinuations == 0) return false;
            if (!s.ExpectSlot) return true;
            var slot = s.Slot;
            var w = slot as OffOwnerWait;
            return slot != null && (w == null || w.Awaited);
        }

        /// <summary>Starts the hop, waits until the worker posted its await, then runs the given
        /// host steps one at a time until the stamp is set; returns the step index it resumed at.</summary>
        static int RunUntilResumed(TestHost h, Stamp s, Action[] steps)
        {
            var deadline = DateTime.UtcNow.AddSeconds(10);
            while (!Registered(h, s))
            {
                if (DateTime.UtcNow > deadline) throw new AssertionException("the worker did not post its await");
                Thread.Sleep(1);
            }
            for (int i = 0; i < steps.Length; i++)
            {
                steps[i]();
                if (s.Done.IsSet) return i;
            }
            return -1;
        }

        [Test]
        public void EachFrameWaitOnAWorkerResumesOnTheOwnerWhereItsFilingSaysFrameByFrame()
        {
            // (wait, host steps after the post, index of the step it resumes in, frame then)
            using (var h = new TestHost())
            {
                int owner = Thread.CurrentThread.ManagedThreadId;
                h.RunFrame();
                var cts = new CancellationTokenSource();
                var cases = new[] { Kind.YieldUpdate, Kind.YieldPreLate, Kind.NextFrame, Kind.DelayFrame3, Kind.Delay50ms, Kind.TokenNextFrame, Kind.Converted };
                // The posted await is filed at the host's next step: BeginFrame of frame f+1.
                // Yield(Update): that frame's Update. NextFrame: Update of the frame after.
                // DelayFrame(3): 3 frames after the filing frame. Delay(0.05 s) at 1/60 s per frame:
                // the first Update at which the clock advanced by 0.05 s (3 frames, within rounding: 3 or 4).
                var expectFrames = new[] { 0UL, 0UL, 1UL, 3UL, 3UL, 1UL, 1UL };
                for (int c = 0; c < cases.Length; c++)
                {
                    var s = new Stamp();
                    var t = Hop(cases[c], s, h.Runtime, cts.Token);
                    ulong filedAt = h.Frame + 1;
                    var steps = new List<Action>();
                    for (int f = 0; f < 6; f++)
                    {
                        steps.Add(h.Begin);
                        for (int k = 0; k < 16; k++) { var tm = (OnityTiming)k; steps.Add(() => h.Runtime.Tick(tm)); }
                    }
                    int at = RunUntilResumed(h, s, steps.ToArray());
                    Assert.True(at >= 0, cases[c] + ": resumed");
                    Assert.True(s.Error == null, cases[c] + ": " + s.Error);
                    Assert.Equal(owner, s.Thread, cases[c] + ": on the owner thread");
                    int timing = (at % 17) - 1;
                    string expTiming = c == 1 ? "PreLateUpdate" : "Update";
                    Assert.Equal(expTiming, ((OnityTiming)timing).ToString(), cases[c] + ": in its timing's run");
                    ulong frame = s.Frame - filedAt;
                    if (c == 4) Assert.True(frame == 3 || frame == 4, cases[c] + ": frames after the filing " + frame);
                    else Assert.Equal(expectFrames[c], frame, cases[c] + ": frames after the filing");
                    while (h.Runtime.GetManagedStats().PostedContinuations != 0 || t.Status == OnityTaskStatus.Pending) h.RunFrame();
                    t.GetAwaiter().GetResult();
                    // The rest of this frame, so the next case starts at a frame boundary.
                    h.RunFrame();
                }
            }
        }

        [Test]
        public void AYieldPostedBeforeTickOfItsTimingResumesInThatRun()
        {
            using (var h = new TestHost())
            {
                h.RunFrame();
                h.Begin();
                var s = new Stamp();
                var t = Hop(Kind.YieldUpdate, s, h.Runtime);
                int at = RunUntilResumed(h, s, new Action[] { () => h.Runtime.Tick(OnityTiming.EarlyUpdate), () => h.Runtime.Tick(OnityTiming.Update) });
                // Filed at EarlyUpdate's tick (before its batch call): due at the next Update run.
                Assert.Equal(1, at, "resumed in this frame's Update");
                Assert.Equal(h.Frame, s.Frame, "same frame");
                h.RunFrame();
                t.GetAwaiter().GetResult();
            }
        }

        [Test]
        public void AWorkerWaitIsCanceledByItsTokenAndByTheRuntimesDisposal()
        {
            using (var h = new TestHost())
            using (var cts = new CancellationTokenSource())
            {
                h.RunFrame();
                var s = new Stamp();
                var t = Hop(Kind.TokenNextFrame, s, h.Runtime, cts.Token);
                RunUntilResumed(h, s, new Action[] { h.Begin }); // filed at BeginFrame
                cts.Cancel();
                h.Runtime.Tick(OnityTiming.Update);
                Assert.True(s.Done.IsSet, "canceled at the next run after the cancellation");
                Assert.True(s.Error is OperationCanceledException, "canceled: " + s.Error);
                t.GetAwaiter().GetResult();
                // Already canceled on the worker: canceled at once, on the worker.
                var s2 = new Stamp();
                var t2 = Hop(Kind.TokenNextFrame, s2, h.Runtime, cts.Token);
                Assert.True(s2.Done.Wait(10000), "completed on the worker");
                Assert.True(s2.Error is OperationCanceledException, "canceled at once");
                Assert.True(s2.Thread != Thread.CurrentThread.ManagedThreadId, "without visiting the owner");
                h.RunFrame();
                t2.GetAwaiter().GetResult();
            }
            // The runtime disposed with a worker's await filed on the owner (a fast-lane NextFrame
            // and a slot Delay), and with one still posted: each canceled, run once.
            var h2 = new TestHost();
            h2.RunFrame();
            var p = new Stamp();
            var q = new Stamp();
            var r = new Stamp();
            var tp = Hop(Kind.NextFrame, p, h2.Runtime);
            var tq = Hop(Kind.Delay10s, q, h2.Runtime);
            WaitPosted(h2, 2);
            h2.Begin(); // files both
            Assert.Equal(0, h2.Runtime.GetManagedStats().PostedContinuations, "filed");
            var tr = Hop(Kind.YieldUpdate, r, h2.Runtime);
            WaitPosted(h2, 1);
            h2.Dispose();
            Assert.True(p.Done.Wait(10000) && q.Done.Wait(10000) && r.Done.Wait(10000), "all ran");
            Assert.True(p.Error is OperationCanceledException, "filed fast-lane wait canceled: " + p.Error);
            Assert.True(q.Error is OperationCanceledException, "filed Delay canceled: " + q.Error);
            Assert.True(r.Error is OperationCanceledException, "posted wait canceled: " + r.Error);
            foreach (var t in new[] { tp, tq, tr }) t.GetAwaiter().GetResult();
        }

        static void WaitPosted(TestHost h, int n)
        {
            var deadline = DateTime.UtcNow.AddSeconds(10);
            while (h.Runtime.GetManagedStats().PostedContinuations < n)
            {
                if (DateTime.UtcNow > deadline) throw new AssertionException("the workers did not post " + n + " awaits");
                Thread.Sleep(1);
            }
        }

        [Test]
        public void AfterTheLastRuntimeIsDisposedAWorkerWaitThrowsCanceled()
        {
            var h = new TestHost();
            h.Dispose();
            Exception e = null;
            var th = new Thread(() => { try { OnityTask.Yield(); } catch (Exception x) { e = x; } });
            th.Start();
            th.Join();
            Assert.True(e is OperationCanceledException, "as on the owner: " + e);
        }

        [Test]
        public void ManyWorkersAwaitingFrameWaitsAllResumeOnTheOwnerOnce()
        {
            using (var h = new TestHost())
            {
                int owner = Thread.CurrentThread.ManagedThreadId;
                const int workers = 4, each = 200;
                int resumed = 0, wrongThread = 0;
                var threads = new Thread[workers];
                for (int w = 0; w < workers; w++)
                {
                    threads[w] = new Thread(() =>
                    {
                        for (int i = 0; i < each; i++)
                        {
                            Action cont = () =>
                            {
                                if (Thread.CurrentThread.ManagedThreadId != owner) Interlocked.Increment(ref wrongThread);
                                Interlocked.Increment(ref resumed);
                            };
                            switch (i % 3)
                            {
                                case 0: OnityTask.Yield().UnsafeOnCompleted(cont); break;
                                case 1: OnityTask.NextFrame().UnsafeOnCompleted(cont); break;
                                default: OnityTask.DelayFrame(2).UnsafeOnCompleted(cont); break;
                            }
                            if ((i & 15) == 0) Thread.Yield();
                        }
                    });
                    threads[w].Start();
                }
                var deadline = DateTime.UtcNow.AddSeconds(20);
                while (Volatile.Read(ref resumed) < workers * each && DateTime.UtcNow < deadline) h.RunFrame();
                foreach (var th in threads) th.Join();
                for (int f = 0; f < 4; f++) h.RunFrame();
                Assert.Equal(workers * each, resumed, "each resumed once");
                Assert.Equal(0, wrongThread, "all on the owner");
                Assert.Equal(0, h.Runtime.GetManagedStats().FastLaneWaits, "nothing left in the fast lane");
            }
        }

        [Test]
        public void AWaitMadeOnTheOwnerAndAwaitedOnAWorkerKeepsItsFrame()
        {
            using (var h = new TestHost())
            {
                h.RunFrame();
                var done = OnityTask.Yield(); // made in frame 1 after Update: due at frame 2's Update
                h.RunFrame();
                Assert.True(done.IsCompleted, "its run came");
                bool ranInline = false;
                var th = new Thread(() =>
                {
                    var aw = done.GetAwaiter();
                    if (aw.IsCompleted) ranInline = true; // completes at once, as a completed task would
                });
                th.Start();
                th.Join();
                Assert.True(ranInline, "complete at once on the worker");
            }
        }

        [Test]
        public void AWorkerMadeWaitAwaitedOnTheOwnerCountsFromTheAwait()
        {
            using (var h = new TestHost())
            {
                h.RunFrame();
                OnityFrameWait w = default(OnityFrameWait);
                var th = new Thread(() => { w = OnityTask.DelayFrame(2); });
                th.Start();
                th.Join();
                for (int f = 0; f < 3; f++) h.RunFrame();
                Assert.False(w.IsCompleted, "not complete before it is filed");
                ulong at = 0;
                w.UnsafeOnCompleted(() => at = h.Frame);
                ulong from = h.Frame;
                for (int f = 0; f < 3; f++) h.RunFrame();
                Assert.Equal(from + 2, at, "two frames after the await");
                // Its coroutine form counts from the call too.
                var co = w.ToCoroutine();
                int polls = 0;
                while (co.MoveNext() && polls < 10) { polls++; h.RunFrame(); }
                Assert.Equal(2, polls, "the coroutine waited two frames");
            }
        }
    }
}
