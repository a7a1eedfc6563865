using System;
using System.Collections.Generic;
using System.Threading;

namespace Onity.Tests
{
    /// <summary>Frame waits awaited directly (OnityFrameWait through the batch's fast lane) against
    /// the same waits converted to OnityTask (wait slots through the native timing queues).</summary>
    public class FrameWaitTests
    {
        static OnityTiming current;

        static OnityFrameWait Make(int kind, int n, OnityTiming t)
        {
            if (kind == 0) return OnityTask.Yield(t);
            if (kind == 1) return OnityTask.NextFrame(t);
            return OnityTask.DelayFrame(n, t);
        }

        static async OnityTask Direct(OnityFrameWait w, OnityRuntime rt, List<string> log, string name)
        {
            await w;
            log.Add(name + "@" + rt.Frame + "/" + current);
        }

        static async OnityTask Converted(OnityTask w, OnityRuntime rt, List<string> log, string name)
        {
            await w;
            log.Add(name + "@" + rt.Frame + "/" + current);
        }

        static void Frame(TestHost h)
        {
            h.Begin();
            for (int t = 0; t < 16; t++)
            {
                current = (OnityTiming)t;
                h.Runtime.Tick((OnityTiming)t);
            }
        }

        static async OnityTask ResumeFrame(OnityFrameWait w, TestHost h, List<string> log, string name)
        {
            await w;
            log.Add(name + "@" + h.Frame);
        }

        static async OnityTask ResumeFrame(OnityTask t, TestHost h, List<string> log, string name)
        {
            await t;
            log.Add(name + "@" + h.Frame);
        }

        [Test]
        public void FrameWaitsMadeBeforeTheFirstFrameCountFromIt()
        {
            // Unity runs the first scene's Awake before the first player loop: a DelayFrame(n) made
            // there resumes in the n-th frame, whatever the host's first frame number (here 1000),
            // in the fast lane, converted to a task, and with a token (both the slot path).
            using (var h = new TestHost())
            using (var cts = new CancellationTokenSource())
            {
                h.Frame = 999;
                var log = new List<string>();
                var tasks = new[]
                {
                    ResumeFrame(OnityTask.NextFrame(), h, log, "NextFrame"),
                    ResumeFrame(OnityTask.DelayFrame(2), h, log, "DelayFrame(2)"),
                    ResumeFrame(OnityTask.DelayFrame(3), h, log, "DelayFrame(3)"),
                    ResumeFrame(OnityTask.DelayFrame(2).ToOnityTask(), h, log, "DelayFrame(2) task"),
                    ResumeFrame(OnityTask.DelayFrame(3, OnityTiming.Update, cts.Token), h, log, "DelayFrame(3) token"),
                };
                for (int i = 0; i < 4; i++) h.RunFrame(OnityTiming.Update);
                foreach (var t in tasks) t.GetAwaiter().GetResult();
                log.Sort(StringComparer.Ordinal);
                Assert.Equal("DelayFrame(2) task@1001,DelayFrame(2)@1001,DelayFrame(3) token@1002,DelayFrame(3)@1002,NextFrame@1000",
                    string.Join(",", log), "frame each wait resumed in");
            }
        }

        [Test]
        public void DirectAndConvertedWaitsResumeAtTheSameFrameAndTiming()
        {
            var timings = new[] { OnityTiming.EarlyUpdate, OnityTiming.Update, OnityTiming.PostLateUpdate };
            int cases = 0;
            foreach (int kind in new[] { 0, 1, 2 })
                foreach (int n in kind == 2 ? new[] { 0, 1, 2, 5 } : new[] { 0 })
                    foreach (var wt in timings)
                        foreach (var createAt in timings)
                            foreach (int awaitLater in new[] { 0, 1, 2 })
                            {
                                using (var h = new TestHost())
                                {
                                    var log = new List<string>();
                                    h.Begin();
                                    OnityFrameWait direct = default(OnityFrameWait);
                                    OnityTask converted = default(OnityTask);
                                    // Create both at the same point; await the direct one then or
                                    // `awaitLater` frames later (same timing).
                                    for (int f = 0; f < 12; f++)
                                    {
                                        if (f > 0) h.Begin();
                                        for (int t = 0; t < 16; t++)
                                        {
                                            current = (OnityTiming)t;
                                            if (f == 0 && t == (int)createAt)
                                            {
                                                direct = Make(kind, n, wt);
                                                converted = Make(kind, n, wt);
                                                Converted(converted, h.Runtime, log, "task").Forget();
                                            }
                                            if (f == awaitLater && t == (int)createAt)
                                            {
                                                string label = "direct";
                                                if (direct.IsCompleted) label = "direct(sync)";
                                                Direct(direct, h.Runtime, log, label).Forget();
                                            }
                                            h.Runtime.Tick((OnityTiming)t);
                                        }
                                    }
                                    string what = "kind " + kind + " n " + n + " on " + wt + ", created at " + createAt + ", awaited " + awaitLater + " frames later: " + string.Join(", ", log);
                                    Assert.Equal(2, log.Count, what);
                                    string task = log[0].StartsWith("task") ? log[0] : log[1];
                                    string dir = log[0].StartsWith("task") ? log[1] : log[0];
                                    if (dir.StartsWith("direct(sync)"))
                                    {
                                        // Already due when awaited: the task resumed no later than the await.
                                        Assert.True(log.IndexOf(task) < log.IndexOf(dir), "completed before the await: " + what);
                                    }
                                    else
                                    {
                                        Assert.Equal(task.Substring(4), dir.Substring(6), what);
                                    }
                                    Assert.Equal(0, h.Runtime.GetManagedStats().PendingWaits, "nothing left: " + what);
                                    cases++;
                                }
                            }
            Assert.True(cases > 100, "cases run");
        }

        static async OnityTask Loop(int frames, int[] count)
        {
            for (int i = 0; i < frames; i++)
            {
                await OnityTask.NextFrame();
                count[0]++;
            }
        }

        [Test]
        public void ManyLoopsResumeOncePerFrameAndLeaveNothing()
        {
            using (var h = new TestHost(submitCapacity: 64)) // small: forces flush crossings
            {
                h.RunFrame(OnityTiming.Update);
                var count = new int[1];
                var tasks = new OnityTask[3000];
                for (int i = 0; i < tasks.Length; i++) tasks[i] = Loop(10, count);
                Assert.Equal(3000, h.Runtime.GetManagedStats().FastLaneWaits, "fast lane pending");
                for (int f = 1; f <= 10; f++)
                {
                    h.RunFrame(OnityTiming.Update);
                    Assert.Equal(3000 * f, count[0], "resumed once per frame");
                }
                foreach (var t in tasks) t.GetAwaiter().GetResult();
                var m = h.Runtime.GetManagedStats();
                Assert.Equal(0, m.PendingWaits, "pending");
                var s = h.Runtime.GetNativeStats();
                var nf = s.Get_waits((int)Native.OnityWaitKind.NextFrame);
                Assert.Equal(30000UL, nf.scheduled, "native NextFrame scheduled");
                Assert.Equal(30000UL, nf.completed, "native NextFrame completed");
                Assert.Equal(0UL, nf.pending, "native NextFrame pending");
            }
        }

        [Test]
        public void YieldsResumeBeforeNextFrameWaitsInAwaitOrder()
        {
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update);
                var log = new List<string>();
                Direct(OnityTask.NextFrame(), h.Runtime, log, "nf1").Forget();
                Direct(OnityTask.DelayFrame(1), h.Runtime, log, "df1").Forget();
                Direct(OnityTask.Yield(), h.Runtime, log, "y1").Forget();
                Direct(OnityTask.NextFrame(), h.Runtime, log, "nf2").Forget();
                Direct(OnityTask.Yield(), h.Runtime, log, "y2").Forget();
                Frame(h);
                Assert.Equal("y1@2/Update, y2@2/Update, nf1@2/Update, df1@2/Update, nf2@2/Update", string.Join(", ", log));
            }
        }

        static async OnityTask AwaitCatching(OnityFrameWait w, List<string> log)
        {
            try
            {
                await w;
                log.Add("resumed");
            }
            catch (OperationCanceledException) { log.Add("canceled"); }
        }

        [Test]
        public void DisposeCancelsPendingFrameWaits()
        {
            var h = new TestHost();
            var log = new List<string>();
            h.RunFrame(OnityTiming.Update);
            var t1 = AwaitCatching(OnityTask.NextFrame(), log);
            var t2 = AwaitCatching(OnityTask.DelayFrame(100, OnityTiming.FixedUpdate), log);
            var kept = OnityTask.NextFrame();
            h.Dispose();
            Assert.Equal("canceled, canceled", string.Join(", ", log));
            t1.GetAwaiter().GetResult();
            t2.GetAwaiter().GetResult();
            // A wait created before the dispose and awaited after it: canceled at once.
            Assert.True(kept.IsCompleted, "completed after dispose");
            Assert.Throws<OperationCanceledException>(() => kept.GetResult());
            Assert.Equal(OnityTaskStatus.Canceled, kept.ToOnityTask().Status);
        }

        [Test]
        public void AwaitingOnAnotherThreadResumesOnTheOwnerAtItsLoop()
        {
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update);
                var w = OnityTask.NextFrame(); // made on the owner in frame 1: due at frame 2's Update
                int owner = Thread.CurrentThread.ManagedThreadId, ranOn = 0;
                ulong ranAt = 0;
                var th = new Thread(() => w.UnsafeOnCompleted(() => { ranOn = Thread.CurrentThread.ManagedThreadId; ranAt = h.Frame; }));
                th.Start();
                th.Join();
                Assert.Equal(0, ranOn, "posted, not run on the worker");
                Assert.Equal(1, h.Runtime.GetManagedStats().PostedContinuations, "posted to the owner");
                h.RunFrame(OnityTiming.Update);
                Assert.Equal(owner, ranOn, "resumed on the owner thread");
                Assert.Equal(2UL, ranAt, "at the wait's own frame (counted from its creation)");
            }
        }

        [Test]
        public void ConsumingACompletedWaitTaskOnAnotherThreadThrowsAndLosesNothing()
        {
            // A completed wait task's GetResult frees its slot; off the owner thread it raced the
            // owner's slot table (a second reader's finding: a later wait was handed a live slot).
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update);
                OnityTask t = OnityTask.NextFrame(); // a wait slot
                h.RunFrame(OnityTiming.Update);
                Assert.Equal(OnityTaskStatus.Succeeded, t.Status);
                int pending = h.Runtime.PendingWaitCount;
                Exception ex = null;
                var th = new Thread(() =>
                {
                    try { t.GetAwaiter().GetResult(); } catch (Exception e) { ex = e; }
                });
                th.Start();
                th.Join();
                Assert.True(ex is InvalidOperationException, "wrong thread: " + ex);
                Assert.Contains("owner thread", ex.Message);
                Assert.Equal(pending, h.Runtime.PendingWaitCount, "slot kept");
                Assert.Equal(OnityTaskStatus.Succeeded, t.Status, "still complete, not consumed");
                t.GetAwaiter().GetResult(); // the owner consumes it
                Assert.Equal(pending - 1, h.Runtime.PendingWaitCount, "slot freed once");
                Assert.Throws<InvalidOperationException>(() => t.GetAwaiter().GetResult());
            }
        }

        [Test]
        public void BadDelaysAndTimingsThrow()
        {
            using (var h = new TestHost())
            {
                Assert.Throws<ArgumentOutOfRangeException>(() => OnityTask.DelayFrame(-1));
                Assert.Throws<ArgumentOutOfRangeException>(() => OnityTask.DelayFrame(OnityFrameWait.MaxDelayFrames + 1));
                Assert.Throws<ArgumentOutOfRangeException>(() => OnityTask.NextFrame((OnityTiming)16));
                Assert.Throws<ArgumentOutOfRangeException>(() => OnityTask.Yield((OnityTiming)200));
                var w = OnityTask.DelayFrame(OnityFrameWait.MaxDelayFrames);
                Assert.Equal(OnityFrameWait.MaxDelayFrames, w.DelayFrames);
                Assert.Equal("DelayFrame(" + OnityFrameWait.MaxDelayFrames + ") @Update", w.ToString());
            }
        }

        [Test]
        public void AFrameWaitIsADescriptionAwaitingItAgainCompletesAtOnce()
        {
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update);
                var w = OnityTask.NextFrame();
                Assert.False(w.IsCompleted, "pending");
                h.RunFrame(OnityTiming.Update);
                Assert.True(w.IsCompleted, "due");
                w.GetResult();
                Assert.True(w.IsCompleted, "still due");
                var y = OnityTask.Yield(OnityTiming.PostLateUpdate);
                h.Runtime.Tick(OnityTiming.LastUpdate);
                Assert.False(y.IsCompleted, "other timing ran");
                h.Runtime.Tick(OnityTiming.PostLateUpdate);
                Assert.True(y.IsCompleted, "its timing ran");
                // Conversions of completed waits are completed tasks; pending ones hold a slot.
                Assert.Equal(OnityTaskStatus.Succeeded, ((OnityTask)w).Status);
                OnityTask pending = OnityTask.DelayFrame(2);
                Assert.Equal(OnityTaskStatus.Pending, pending.Status);
                h.RunFrame(OnityTiming.Update);
                Assert.Equal(OnityTaskStatus.Pending, pending.Status);
                h.RunFrame(OnityTiming.Update);
                Assert.Equal(OnityTaskStatus.Succeeded, pending.Status);
                pending.GetAwaiter().GetResult();
            }
        }

        [Test]
        public void ContinuationExceptionsAreReportedAndTheRestStillRun()
        {
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update);
                int ran = 0;
                OnityTask.NextFrame().UnsafeOnCompleted(() => { ran++; throw new InvalidTimeZoneException("boom"); });
                OnityTask.NextFrame().UnsafeOnCompleted(() => { ran++; });
                h.RunFrame(OnityTiming.Update);
                Assert.Equal(2, ran, "both ran");
                Assert.Equal(1, h.Unobserved.Count, "reported");
                Assert.True(h.Unobserved[0] is InvalidTimeZoneException, "the exception");
                h.Unobserved.Clear();
            }
        }

        [Test]
        public void PendingWaitListShowsFastLaneWaits()
        {
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update);
                Direct(OnityTask.Yield(OnityTiming.FixedUpdate), h.Runtime, new List<string>(), "x").Forget();
                var list = new List<OnityPendingWait>();
                Assert.Equal(1, h.Runtime.GetPendingWaits(list));
                Assert.Contains("Yield @FixedUpdate created in frame 1 awaited by", list[0].ToString());
                h.RunFrame(OnityTiming.FixedUpdate);
                list.Clear();
                Assert.Equal(0, h.Runtime.GetPendingWaits(list));
            }
        }

        [Test]
        public void DefaultFrameWaitIsRejectedClearly()
        {
            using (var h = new TestHost())
            {
                var d = default(OnityFrameWait);
                Assert.True(d.IsCompleted, "completes at once...");
                var ex = Assert.Throws<InvalidOperationException>(() => d.GetResult());
                Assert.Contains("default(OnityFrameWait)", ex.Message);
                Assert.Throws<InvalidOperationException>(() => d.UnsafeOnCompleted(() => { }));
                Assert.Throws<InvalidOperationException>(() => d.ToOnityTask());
                // Validated before anything is converted: no wait slot is left behind.
                Assert.Throws<ArgumentException>(() => OnityTask.WhenAll(OnityTask.NextFrame(), d));
                Assert.Equal(0, h.Runtime.GetManagedStats().PendingWaits, "nothing converted");
            }
        }

        [Test]
        public void PostAfterDisposeRunsTheContinuationAtOnce()
        {
            var h = new TestHost();
            var rt = h.Runtime;
            h.Dispose();
            bool ran = false;
            rt.Post(() => ran = true);
            Assert.True(ran, "not left in a list nobody reads");
        }

        /// <summary>IsCompleted of a direct frame wait is answered on the C# side from its counters
        /// (runs of each timing, frames since the first: no call); a token wait is answered by the
        /// core's one due rule (core/timing/due.rs). Frame by frame they agree: direct waits on a
        /// timing whose ticks are skipped (idle) against token waits on the timing ticked right
        /// after, made before the first frame (host number 1000) and in later frames, across gaps
        /// in the host's frame numbers and frames begun without a tick (left in the frame ring).
        /// docs/frame-protocol.md: why these counters stay in C#.</summary>
        [Test]
        public void DirectFrameWaitsAgreeWithTheCoresDueRule()
        {
            using (var h = new TestHost())
            using (var cts = new CancellationTokenSource())
            {
                h.Frame = 999;
                var direct = new List<OnityFrameWait>();
                var core = new List<OnityTask>();
                var names = new List<string>();
                int done = 0, mixed = 0;
                for (int f = 0; f < 30; f++)
                {
                    if (f > 0)
                    {
                        if (f % 5 == 0) h.Frame += 3; // the host skips frame numbers
                        h.Begin();
                    }
                    if (f < 9)
                        foreach (int n in new[] { 0, 1, 2, 3, 7, 12 })
                        {
                            direct.Add(OnityTask.DelayFrame(n, OnityTiming.EarlyUpdate));
                            core.Add(OnityTask.DelayFrame(n, OnityTiming.Update, cts.Token));
                            names.Add("DelayFrame(" + n + ") made " + (f == 0 ? "before the first frame" : "in frame " + h.Frame));
                        }
                    if (f == 0 || f % 4 == 3) continue; // no tick: the frame waits in the ring
                    h.Runtime.Tick(OnityTiming.EarlyUpdate);
                    h.Runtime.Tick(OnityTiming.Update);
                    int now = 0;
                    for (int i = 0; i < direct.Count; i++)
                    {
                        bool c = core[i].Status == OnityTaskStatus.Succeeded;
                        Assert.Equal(c, direct[i].IsCompleted, names[i] + ", after the runs of frame " + h.Frame);
                        if (c) now++;
                    }
                    if (now > done && now < direct.Count) mixed++;
                    done = now;
                }
                Assert.Equal(direct.Count, done, "every wait completed");
                Assert.True(mixed >= 8, "completions spread over the frames (" + mixed + ")");
                Assert.True(h.Runtime.SkippedTicks > 0, "the direct waits' timing was skipped (idle)");
            }
        }
    }
}
