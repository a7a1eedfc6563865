using System;
using System.Collections.Generic;
using System.Linq;
using Onity.Unity;
using UnityEditor;
using UnityEngine;
using UnityEngine.LowLevel;

namespace Onity.UnityTests
{
    /// <summary>Play Mode exit and re-entry with domain reload disabled (this process's static
    /// state is never reset between sessions, exactly like the editor with
    /// "Enter Play Mode Options / Reload Domain" off).</summary>
    public class PlayModeTests
    {
        static async OnityTask Pending(OnityTask w, List<string> outcome)
        {
            try
            {
                await w;
                outcome.Add("completed");
            }
            catch (OperationCanceledException) { outcome.Add("canceled"); }
            catch (Exception e) { outcome.Add(e.GetType().Name); }
        }

        static int baseQuit, basePlay;

        static void Baseline()
        {
            baseQuit = Application.QuittingHandlerCount;
            basePlay = EditorApplication.PlayModeHandlerCount;
        }

        /// <summary>Starts a spread of long waits and returns the list their outcomes go to.</summary>
        static List<string> StartLongWaits(int expected)
        {
            var outcome = new List<string>();
            var probe = Probe.Create();
            probe.OnUpdate.Enqueue(p =>
            {
                Pending(OnityTask.DelayFrame(10000), outcome).Forget();
                Pending(OnityTask.NextFrame(OnityTiming.LastPostLateUpdate), outcome).Forget(); // completes
                Pending(OnityTask.Delay(TimeSpan.FromHours(1)), outcome).Forget();
                Pending(OnityTask.DelayFrame(5000, OnityTiming.PreLateUpdate, p.destroyCancellationToken), outcome).Forget();
                Pending(OnityPlayerLoop.Runtime.CreateNativeCompletionSource().Task, outcome).Forget();
                Pending(OnityTask.WhenAny(OnityTask.DelayFrame(9000), OnityTask.Delay(TimeSpan.FromHours(2))), outcome).Forget();
                OnityTask.DelayFrame(7000).Forget(); // forgotten: canceled silently
            });
            Sim.RunFrames(3);
            Assert.Equal(1, outcome.Count, "only the NextFrame wait completed");
            Assert.True(OnityPlayerLoop.Runtime.GetManagedStats().PendingWaits >= 6, "waits pending");
            return outcome;
        }

        static void AssertShutDown(OnityRuntime old, List<string> outcome, string when)
        {
            Assert.True(old.IsDisposed, when + ": runtime destroyed");
            Assert.True(OnityPlayerLoop.Runtime == null, when + ": no runtime");
            Assert.True(OnityRuntime.Current == null, when + ": OnityRuntime.Current cleared");
            Assert.False(OnityPlayerLoop.IsInitialized, when + ": not initialised");
            Assert.Equal(0, Sim.CountOnitySystems(), when + ": Onity systems removed from the PlayerLoop");
            Assert.Equal(OnityLoopTimings.None, OnityPlayerLoop.InjectedTimings, when + ": nothing injected");
            Assert.Equal(baseQuit, Application.QuittingHandlerCount, when + ": Application.quitting unhooked");
            Assert.Equal(basePlay, EditorApplication.PlayModeHandlerCount, when + ": playModeStateChanged unhooked");
            Assert.Equal(6, outcome.Count, when + ": every awaited wait finished");
            Assert.Equal(5, outcome.Count(o => o == "canceled"), when + ": pending waits canceled: " + string.Join(",", outcome));
            Assert.Equal(0, Debug.Exceptions.Count, when + ": no exceptions logged" + (Debug.Exceptions.Count > 0 ? ": " + Debug.Exceptions[0] : ""));
            Assert.Equal(0, Debug.Errors.Count, when + ": no errors logged");
        }

        [Test]
        public void ExitingPlayMode_DestroysRuntime_CancelsPending_RemovesSystems_Unhooks()
        {
            Baseline();
            Sim.EnterPlayMode();
            Assert.Equal(baseQuit + 1, Application.QuittingHandlerCount, "hooked Application.quitting once");
            Assert.Equal(basePlay + 1, EditorApplication.PlayModeHandlerCount, "hooked playModeStateChanged once");
            var old = OnityPlayerLoop.Runtime;
            var outcome = StartLongWaits(6);
            Sim.ExitPlayMode();
            AssertShutDown(old, outcome, "after exit");
            int frames = Time.frameCount;
            Sim.RunFrames(5); // edit mode: the loop runs without Onity
            Assert.Equal(0, Sim.CountOnitySystems(), "still nothing injected");
        }

        [Test]
        public void ApplicationQuitting_AloneShutsDown()
        {
            Baseline();
            Sim.EnterPlayMode();
            var old = OnityPlayerLoop.Runtime;
            var outcome = StartLongWaits(6);
            Application.InvokeQuitting(); // a player quitting: no editor events
            AssertShutDown(old, outcome, "after Application.quitting");
            Sim.ExitPlayMode();
            Assert.Equal(0, Sim.CountOnitySystems(), "no systems");
        }

        [Test]
        public void ScriptReloadDuringPlay_ShutsDown()
        {
            Baseline();
            Sim.EnterPlayMode();
            var old = OnityPlayerLoop.Runtime;
            var outcome = StartLongWaits(6);
            AssemblyReloadEvents.RaiseBeforeAssemblyReload();
            AssertShutDown(old, outcome, "before assembly reload");
        }

        [Test]
        public void ReEntryWithoutDomainReload_InitialisesExactlyOnce_NothingLeaks()
        {
            Baseline();
            Sim.SetDomainReload(false); // statics survive each entry (a reload resets InitializeCount)
            int before = OnityPlayerLoop.InitializeCount;
            OnityRuntime previous = null;
            for (int cycle = 1; cycle <= 3; cycle++)
            {
                Sim.EnterPlayMode();
                string c = "cycle " + cycle;
                var rt = OnityPlayerLoop.Runtime;
                Assert.True(rt != null && !rt.IsDisposed, c + ": runtime");
                Assert.True(!ReferenceEquals(rt, previous), c + ": a new runtime");
                Assert.Equal(before + cycle, OnityPlayerLoop.InitializeCount, c + ": initialised exactly once per entry");
                Assert.Equal(15, Sim.CountOnitySystems(), c + ": Standard = 14 timing systems + frame begin, no duplicates");
                Assert.Equal(baseQuit + 1, Application.QuittingHandlerCount, c + ": one quitting handler");
                Assert.Equal(basePlay + 1, EditorApplication.PlayModeHandlerCount, c + ": one playModeStateChanged handler");
                var snap = new OnityStatsSnapshot();
                snap.Capture(rt);
                Assert.Equal((ulong)0, snap.TotalLive, c + ": fresh runtime has nothing live in its pools");
                Assert.Equal((ulong)0, snap.Native.live_tasks, c + ": no live native tasks");
                Assert.Equal(0, snap.LiveTaskCount, c + ": no pending waits");
                var outcome = StartLongWaits(6);
                Sim.RunFrames(50);
                previous = rt;
                Sim.ExitPlayMode();
                AssertShutDown(rt, outcome, c);
            }
        }

        [Test]
        public void MissedExitHook_NextEntryCleansUpAtSubsystemRegistration()
        {
            Baseline();
            Sim.SetDomainReload(false); // the stale state survives only without a reload
            Sim.EnterPlayMode();
            var stale = OnityPlayerLoop.Runtime;
            var outcome = StartLongWaits(6);
            Sim.ExitPlayMode(raiseEvents: false); // no ExitingPlayMode, no quitting: state left behind
            Assert.False(stale.IsDisposed, "stale runtime survived the exit");
            Assert.Equal(15, Sim.CountOnitySystems(), "stale systems left in the loop");
            int count = OnityPlayerLoop.InitializeCount;
            Sim.EnterPlayMode();
            Assert.True(stale.IsDisposed, "stale runtime destroyed at SubsystemRegistration");
            Assert.Equal(5, outcome.Count(o => o == "canceled"), "its waits canceled");
            Assert.Equal(count + 1, OnityPlayerLoop.InitializeCount, "one new runtime");
            Assert.Equal(15, Sim.CountOnitySystems(), "one set of systems");
            Assert.Equal(baseQuit + 1, Application.QuittingHandlerCount, "one quitting handler");
            Sim.RunFrames(10);
            Assert.Equal((ulong)10, OnityPlayerLoop.Runtime.Frame, "new runtime runs");
        }

        [Test]
        public void ShutdownTwice_AndInitializeAfterShutdown_AreSafe()
        {
            Baseline();
            Sim.EnterPlayMode();
            OnityPlayerLoop.Shutdown();
            OnityPlayerLoop.Shutdown();
            Assert.Equal(0, Sim.CountOnitySystems(), "no systems");
            OnityPlayerLoop.Initialize(OnityLoopTimings.Minimum);
            Assert.Equal(4, Sim.CountOnitySystems(), "re-initialised by hand");
            Sim.RunFrames(3);
            var got = new List<string>();
            Pending(OnityTask.NextFrame(), got).Forget();
            Sim.RunFrame();
            Assert.Equal("completed", got.FirstOrDefault(), "NextFrame after re-initialisation");
            Sim.ExitPlayMode();
            Assert.Equal(0, Sim.CountOnitySystems(), "removed at exit");
            Assert.Equal(baseQuit, Application.QuittingHandlerCount, "unhooked");
        }
    }
}
