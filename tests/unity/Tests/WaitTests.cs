using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using Onity.Unity;
using UnityEngine;

namespace Onity.UnityTests
{
    /// <summary>Frame waits started from a MonoBehaviour's Update, resumed by the injected systems
    /// in the simulated loop: checked against the frame (Time.frameCount and the Onity frame)
    /// and the PlayerLoop system they resume in.</summary>
    public class WaitTests
    {
        public struct Result
        {
            public Stamp At;
            public ulong OnityFrame;
            public int Index;
        }

        static async OnityTask Record(OnityTask wait, List<Stamp> into)
        {
            var s = default(Stamp);
            try
            {
                await wait;
                s = Stamp.Now();
            }
            catch (OperationCanceledException)
            {
                s = Stamp.Now();
                s.Canceled = true;
            }
            into.Add(s);
        }

        static async OnityTask RecordAny(OnityTask<int> any, List<Result> into)
        {
            var r = new Result();
            try { r.Index = await any; }
            catch (OperationCanceledException) { r.Index = -1; }
            r.At = Stamp.Now();
            r.OnityFrame = OnityPlayerLoop.Runtime.Frame;
            into.Add(r);
        }

        /// <summary>Enters Play Mode with <paramref name="timings"/>, runs a few frames, then runs
        /// <paramref name="start"/> from a probe's Update in the next frame; returns that frame.</summary>
        static int StartInUpdate(Action<Probe> start, OnityLoopTimings timings = OnityLoopTimings.All)
        {
            Sim.EnterPlayMode();
            OnityPlayerLoop.Initialize(timings);
            var probe = Probe.Create();
            Sim.RunFrames(3);
            int frame = -1;
            probe.OnUpdate.Enqueue(p => { frame = Time.frameCount; start(p); });
            Sim.RunFrame();
            Assert.True(frame > 0, "started");
            return frame;
        }

        static void Expect(List<Stamp> got, int index, int frame, OnityTiming timing, string what)
        {
            Assert.True(got.Count > index, what + ": resumed");
            Assert.Equal(frame, got[index].Frame, what + ": frame");
            Assert.Equal(Sys.Of(timing), got[index].System, what + ": system");
        }

        [Test]
        public void NextFrame_FromUpdate_ResumesInNextFramesOnityUpdate()
        {
            var got = new List<Stamp>();
            int f = StartInUpdate(p => Record(OnityTask.NextFrame(), got).Forget(), OnityLoopTimings.Standard);
            Assert.Equal(0, got.Count, "not resumed in the creating frame");
            Sim.RunFrame();
            Expect(got, 0, f + 1, OnityTiming.Update, "NextFrame()");
        }

        [Test]
        public void YieldAndNextFrame_EveryTiming_ResumeOnTheRightFrameAndSystem()
        {
            var yields = new List<Stamp>[16];
            var nexts = new List<Stamp>[16];
            for (int t = 0; t < 16; t++) { yields[t] = new List<Stamp>(); nexts[t] = new List<Stamp>(); }
            Sim.FrameTime = 0.025f; // > fixedDeltaTime: one fixed step every frame
            int f = StartInUpdate(p =>
            {
                for (int t = 0; t < 16; t++)
                {
                    Record(OnityTask.Yield((OnityTiming)t), yields[t]).Forget();
                    Record(OnityTask.NextFrame((OnityTiming)t), nexts[t]).Forget();
                }
            });
            Sim.RunFrames(3);
            for (int t = 0; t < 16; t++)
            {
                var timing = (OnityTiming)t;
                // Created in Update of frame f: timings after Update still run in frame f.
                int onityFrame = t > (int)OnityTiming.Update ? f : f + 1;
                // TimeUpdate / LastTimeUpdate end the Onity frame at the start of the next Unity
                // frame, around the engine's time update (LastTimeUpdate sees the new frameCount).
                int unityFrame = onityFrame + (timing == OnityTiming.LastTimeUpdate ? 1 : 0);
                Expect(yields[t], 0, unityFrame, timing, "Yield(" + timing + ")");
                Expect(nexts[t], 0, f + 1 + (timing == OnityTiming.LastTimeUpdate ? 1 : 0), timing, "NextFrame(" + timing + ")");
                Assert.Equal(t == 4 || t == 5, yields[t][0].InFixedStep, timing + " inside a fixed step");
            }
        }

        [Test]
        public void DelayFrame_ResumesNFramesLater()
        {
            var got = new List<Stamp>();
            int f = StartInUpdate(p =>
            {
                Record(OnityTask.DelayFrame(3), got).Forget();
                Record(OnityTask.DelayFrame(2, OnityTiming.PostLateUpdate), got).Forget();
                Record(OnityTask.DelayFrame(0, OnityTiming.LastUpdate), got).Forget();
            });
            Sim.RunFrames(5);
            var byFrame = got.OrderBy(s => s.Frame).ToList();
            Expect(byFrame, 0, f, OnityTiming.LastUpdate, "DelayFrame(0, LastUpdate) = Yield");
            Expect(byFrame, 1, f + 2, OnityTiming.PostLateUpdate, "DelayFrame(2, PostLateUpdate)");
            Expect(byFrame, 2, f + 3, OnityTiming.Update, "DelayFrame(3)");
        }

        /// <summary>The frame at which a clock fed by <paramref name="dt"/> per frame has advanced by
        /// <paramref name="seconds"/> since frame <paramref name="f"/> (as the runtime counts).</summary>
        static int FrameAfter(int f, double dt, double seconds)
        {
            double sum = 0;
            int g = f;
            do { g++; sum += dt; } while (sum < seconds);
            return g;
        }

        [Test]
        public void Delay_ScaledUnscaledRealtime_FollowTimeScaleAndRealtime()
        {
            var scaled = new List<Stamp>();
            var unscaled = new List<Stamp>();
            var real = new List<Stamp>();
            var frozen = new List<Stamp>();
            int f = StartInUpdate(p =>
            {
                Time.timeScale = 0.5f; // from the next frame on (Play Mode entry resets it)
                Record(OnityTask.Delay(TimeSpan.FromMilliseconds(95), DelayType.DeltaTime), scaled).Forget();
                Record(OnityTask.Delay(TimeSpan.FromMilliseconds(95), DelayType.UnscaledDeltaTime, OnityTiming.PreLateUpdate), unscaled).Forget();
                Record(OnityTask.Delay(TimeSpan.FromMilliseconds(400), DelayType.Realtime, OnityTiming.LastPostLateUpdate), real).Forget();
            });
            Sim.RunFrame();
            Sim.ExtraRealtimeNextFrame = 0.5; // a hitch: realtime jumps, frame times do not
            Sim.RunFrame();
            Expect(real, 0, f + 2, OnityTiming.LastPostLateUpdate, "Delay(400 ms, Realtime) after a 500 ms hitch");
            Sim.RunFrames(20);
            float dt = 1f / 60f;
            Expect(scaled, 0, FrameAfter(f, (double)(dt * 0.5f), 0.095), OnityTiming.Update, "Delay(95 ms, DeltaTime) at timeScale 0.5");
            Expect(unscaled, 0, FrameAfter(f, (double)dt, 0.095), OnityTiming.PreLateUpdate, "Delay(95 ms, UnscaledDeltaTime)");
            Assert.Equal(f + 12, scaled[0].Frame, "scaled: 12 frames of 8.3 ms");
            Assert.Equal(f + 6, unscaled[0].Frame, "unscaled: 6 frames of 16.7 ms");

            // timeScale 0: scaled delays stand still, unscaled ones run.
            Time.timeScale = 0f;
            var probe = Probe.Create("second");
            probe.OnUpdate.Enqueue(p =>
            {
                Record(OnityTask.Delay(TimeSpan.FromMilliseconds(10), DelayType.DeltaTime), frozen).Forget();
                Record(OnityTask.Delay(TimeSpan.FromMilliseconds(10), DelayType.UnscaledDeltaTime), unscaled).Forget();
            });
            Sim.RunFrames(100);
            Assert.Equal(0, frozen.Count, "scaled delay at timeScale 0 never resumes");
            Assert.Equal(2, unscaled.Count, "unscaled delay at timeScale 0 resumes");
            Time.timeScale = 1f;
            Sim.RunFrames(2);
            Assert.Equal(1, frozen.Count, "resumes once time runs again");
        }

        [Test]
        public void WhenAny_Races_WinnerOnTheRightFrame()
        {
            var got = new List<Result>();
            int f = StartInUpdate(p =>
            {
                RecordAny(OnityTask.WhenAny(OnityTask.DelayFrame(5), OnityTask.Delay(TimeSpan.FromMilliseconds(100), DelayType.Realtime)), got).Forget();
                RecordAny(OnityTask.WhenAny(OnityTask.DelayFrame(2), OnityTask.NextFrame(OnityTiming.PreLateUpdate)), got).Forget();
            });
            Sim.RunFrame();
            Sim.ExtraRealtimeNextFrame = 0.2;
            Sim.RunFrames(6);
            Assert.Equal(2, got.Count, "both races finished");
            var byFrame = got.OrderBy(r => r.At.Frame).ToList();
            Assert.Equal(1, byFrame[0].Index, "NextFrame(PreLateUpdate) beats DelayFrame(2)");
            Assert.Equal(f + 1, byFrame[0].At.Frame, "first race frame");
            Assert.Equal(Sys.Of(OnityTiming.PreLateUpdate), byFrame[0].At.System, "first race system");
            Assert.Equal(1, byFrame[1].Index, "realtime delay beats DelayFrame(5) after a hitch");
            Assert.Equal(f + 2, byFrame[1].At.Frame, "second race frame");
        }

        [Test]
        public void DestroyCancellationToken_CancelsWaitsAtTheNextRunOfTheirTiming()
        {
            var got = new List<Stamp>();
            var anyGot = new List<Result>();
            Probe victim = null;
            int f = StartInUpdate(p =>
            {
                victim = Probe.Create("victim");
                var ct = victim.destroyCancellationToken;
                Record(OnityTask.DelayFrame(100, OnityTiming.Update, ct), got).Forget();
                Record(OnityTask.NextFrame(OnityTiming.LastUpdate, ct), got).Forget(); // completes normally first
                Record(OnityTask.Delay(TimeSpan.FromSeconds(10), DelayType.DeltaTime, OnityTiming.LastUpdate, ct), got).Forget();
                RecordAny(OnityTask.WhenAny(new[] { OnityTask.DelayFrame(50), OnityTask.DelayFrame(60) }, ct), anyGot).Forget();
            });
            Sim.RunFrame(); // f+1
            Assert.Equal(1, got.Count, "NextFrame(LastUpdate) done");
            Assert.False(got[0].Canceled, "not canceled");
            // The killer starts (EarlyUpdate) and destroys the victim from its Update in frame f+2;
            // Destroy is processed after ScriptRunBehaviourUpdate, before LastUpdate.
            Probe.Create("killer").OnUpdate.Enqueue(p => UnityEngine.Object.Destroy(victim.gameObject));
            Sim.RunFrame(); // f+2: LastUpdate wait canceled here
            Sim.RunFrame(); // f+3: Update wait canceled at its next run
            var canceled = got.Where(s => s.Canceled).OrderBy(s => s.Frame).ToList();
            Assert.Equal(2, canceled.Count, "both long waits canceled");
            Assert.Equal(f + 2, canceled[0].Frame, "LastUpdate wait canceled in the destroying frame");
            Assert.Equal(Sys.Of(OnityTiming.LastUpdate), canceled[0].System, "at LastUpdate");
            Assert.Equal(f + 3, canceled[1].Frame, "Update wait canceled at the next Update");
            Assert.Equal(Sys.Of(OnityTiming.Update), canceled[1].System, "at Update");
            Assert.Equal(1, anyGot.Count, "WhenAny canceled");
            Assert.Equal(-1, anyGot[0].Index, "WhenAny threw OperationCanceledException");
            Sim.RunFrames(5);
            Assert.Equal(0, OnityPlayerLoop.Runtime.GetManagedStats().CancellationTokensMapped, "token mapping released");
            // An already-canceled token completes at once.
            var late = new List<Stamp>();
            Record(OnityTask.NextFrame(new CancellationToken(true)), late).Forget();
            Assert.Equal(1, late.Count, "already canceled: synchronous");
            Assert.True(late[0].Canceled, "canceled");
        }

        [Test]
        public void FixedUpdate_WaitsResumeInsideFixedStepsOfLaterFrames()
        {
            Sim.EnterPlayMode();
            var probe = Probe.Create();
            Sim.FrameTime = 1f / 60f; // fixedDeltaTime 0.02: some frames have no fixed step
            Sim.RunFrames(2);
            var got = new List<Stamp>();
            int f = -1;
            probe.OnUpdate.Enqueue(p => { f = Time.frameCount; Record(OnityTask.NextFrame(OnityTiming.FixedUpdate), got).Forget(); });
            var stepsPerFrame = new Dictionary<int, int>();
            for (int i = 0; i < 12; i++)
            {
                Sim.RunFrame();
                stepsPerFrame[Time.frameCount] = Sim.FixedStepsLastFrame;
            }
            Assert.True(stepsPerFrame.Values.Contains(0) && stepsPerFrame.Values.Any(v => v > 0), "mixed frames");
            int expected = stepsPerFrame.Keys.Where(k => k > f && stepsPerFrame[k] > 0).Min();
            Assert.Equal(1, got.Count, "resumed");
            Assert.Equal(expected, got[0].Frame, "first later frame with a fixed step");
            Assert.True(got[0].InFixedStep, "inside the fixed step");
            Assert.Equal(Sys.Of(OnityTiming.FixedUpdate), got[0].System, "system");
        }

        /// <summary>A few hundred frames of random waits over every timing, each checked against
        /// the frame (Onity and Unity) and the system it must resume in.</summary>
        [Test]
        public void Soak_300Frames_RandomWaits_AllResumeOnTheirFrameAndTiming()
        {
            Sim.EnterPlayMode();
            OnityPlayerLoop.Initialize(OnityLoopTimings.All);
            Sim.FrameTime = 0.025f; // one fixed step per frame: fixed timings run every frame
            var probe = Probe.Create();
            var rng = new System.Random(12345);
            int expectedCount = 0, resumed = 0, wrong = 0;
            var failures = new List<string>();
            Action<Probe> spawn = null;
            spawn = p =>
            {
                ulong f = OnityPlayerLoop.Runtime.Frame;
                for (int i = 0; i < 24; i++)
                {
                    var timing = (OnityTiming)rng.Next(16);
                    int kind = rng.Next(3);
                    int n = rng.Next(0, 6);
                    bool laterThisFrame = timing > OnityTiming.Update;
                    ulong expect;
                    OnityTask w;
                    string what;
                    if (kind == 0) { w = OnityTask.Yield(timing); expect = laterThisFrame ? f : f + 1; what = "Yield"; }
                    else if (kind == 1) { w = OnityTask.NextFrame(timing); expect = f + 1; what = "NextFrame"; }
                    else { w = OnityTask.DelayFrame(n, timing); expect = n == 0 ? (laterThisFrame ? f : f + 1) : f + (ulong)n; what = "DelayFrame(" + n + ")"; }
                    expectedCount++;
                    Check(w, expect, timing, what + "@" + timing + " from frame " + f, () => resumed++, msg => { wrong++; if (failures.Count < 5) failures.Add(msg); }).Forget();
                }
                if (Time.frameCount < 300) p.OnUpdate.Enqueue(spawn);
            };
            probe.OnUpdate.Enqueue(spawn);
            Sim.RunFrames(310);
            Assert.True(failures.Count == 0, string.Join("; ", failures));
            Assert.Equal(0, wrong, "wrong resumptions");
            Assert.Equal(expectedCount, resumed, "every wait resumed");
            Assert.True(expectedCount > 6000, "enough waits: " + expectedCount);
            var stats = OnityPlayerLoop.Runtime.GetManagedStats();
            Assert.Equal(0, stats.PendingWaits, "no pending waits left");
            Assert.Equal(0, stats.CompletedUnconsumedWaits, "nothing left unconsumed");
            Assert.Equal((ulong)0, OnityPlayerLoop.Runtime.GetNativeStats().waits_1.pending, "native NextFrame queue empty");
        }

        static async OnityTask Check(OnityTask w, ulong expectFrame, OnityTiming timing, string what, Action ok, Action<string> bad)
        {
            await w;
            ulong got = OnityPlayerLoop.Runtime.Frame;
            if (got == expectFrame && Sim.CurrentSystem == Sys.Of(timing)) ok();
            else bad(what + ": resumed in Onity frame " + got + " (expected " + expectFrame + ") in " + (Sim.CurrentSystem == null ? "null" : Sim.CurrentSystem.Name));
        }
    }
}
