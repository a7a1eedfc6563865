using System;
using System.Collections.Generic;
using System.Linq;
using Onity.Unity;
using UnityEditor;
using UnityEngine;
using UnityEngine.LowLevel;

namespace ForeignDefaultLoop
{
    /// <summary>Another library that (re)builds the PlayerLoop from Unity's default at
    /// BeforeSceneLoad, i.e. after Onity inserted its systems at AfterAssembliesLoaded.</summary>
    public static class DefaultLoopLib
    {
        public struct Marker { }
        public static int Runs;

        [RuntimeInitializeOnLoadMethod(RuntimeInitializeLoadType.BeforeSceneLoad)]
        static void Install()
        {
            Runs = 0;
            var loop = PlayerLoop.GetDefaultPlayerLoop();
            var phases = loop.subSystemList;
            for (int i = 0; i < phases.Length; i++)
            {
                if (phases[i].type != typeof(UnityEngine.PlayerLoop.Update)) continue;
                var l = phases[i].subSystemList.ToList();
                l.Add(new PlayerLoopSystem { type = typeof(Marker), updateDelegate = () => Runs++ });
                phases[i].subSystemList = l.ToArray();
            }
            PlayerLoop.SetPlayerLoop(loop);
        }
    }
}

namespace Onity.UnityTests
{
    public sealed class FadeOnDisable : MonoBehaviour
    {
        public static readonly List<string> Outcome = new List<string>();

        static async OnityTask Fade()
        {
            try
            {
                await OnityTask.DelayFrame(10);
                Outcome.Add("completed");
            }
            catch (OperationCanceledException) { Outcome.Add("canceled"); }
        }

        // A common pattern: start a short fade/cleanup when the component is disabled.
        void OnDisable() { Fade().Forget(); }
    }

    public class LifecycleTests
    {
        static async OnityTask Pending(OnityTask w, List<string> outcome)
        {
            try { await w; outcome.Add("completed"); }
            catch (OperationCanceledException) { outcome.Add("canceled"); }
            catch (Exception e) { outcome.Add(e.GetType().Name); }
        }

        /// <summary>Editor default "Script Changes While Playing: Recompile And Continue Playing":
        /// beforeAssemblyReload, domain reload (statics reset), [InitializeOnLoad]/[InitializeOnLoadMethod]
        /// run again, play continues. [RuntimeInitializeOnLoadMethod]s do NOT run again.</summary>
        [Test]
        public void RecompileWhilePlaying_OnityKeepsWorking()
        {
            Sim.EnterPlayMode();
            var probe = Probe.Create();
            Sim.RunFrames(3);
            AssemblyReloadEvents.RaiseBeforeAssemblyReload();
            Sim.RunEditorInitializeOnLoad(); // no-op unless the package has an [InitializeOnLoadMethod]
            var got = new List<string>();
            probe.OnUpdate.Enqueue(p => Pending(OnityTask.NextFrame(), got).Forget());
            Sim.RunFrames(3);
            Assert.Equal(0, Debug.Exceptions.Count, "no exceptions after the reload" + (Debug.Exceptions.Count > 0 ? ": " + Debug.Exceptions[0].Message : ""));
            Assert.Equal("completed", got.FirstOrDefault(), "NextFrame after a script reload in Play Mode");
        }

        /// <summary>Another library sets a loop built from GetDefaultPlayerLoop after Onity's
        /// AfterAssembliesLoaded insertion.</summary>
        [Test]
        public void LoopReplacedAfterInsertion_IsPutBackWithAWarning()
        {
            Sim.InitNamespaces.Add("ForeignDefaultLoop");
            Sim.EnterPlayMode();
            var probe = Probe.Create();
            var got = new List<string>();
            probe.OnUpdate.Enqueue(p => Pending(OnityTask.NextFrame(), got).Forget());
            Sim.RunFrames(5);
            Assert.True(ForeignDefaultLoop.DefaultLoopLib.Runs > 0, "foreign system runs");
            Assert.True(OnityPlayerLoop.IsInitialized, "IsInitialized");
            Assert.Equal(OnityLoopTimings.Standard, OnityPlayerLoop.InjectedTimings, "InjectedTimings claims Standard");
            Assert.Equal("completed", got.FirstOrDefault(), "Onity's systems were put back (Onity systems in loop: " + Sim.CountOnitySystems() + ")");
            Assert.Equal(1, Debug.Warnings.Count, "one warning says what happened");
            Assert.Contains("removed by another PlayerLoop.SetPlayerLoop", Debug.Warnings[0]);
        }

        /// <summary>Leaving Play Mode: ExitingPlayMode runs before OnDisable/OnDestroy (Unity's
        /// order); a wait started from OnDisable is logged as an error on every exit.</summary>
        [Test]
        public void WaitStartedInOnDisableDuringExit_IsCanceledNotLogged()
        {
            FadeOnDisable.Outcome.Clear();
            Sim.EnterPlayMode();
            new GameObject("fader").AddComponent<FadeOnDisable>();
            Sim.RunFrames(3);
            Sim.ExitPlayMode();
            Assert.Equal("canceled", string.Join(",", FadeOnDisable.Outcome), "the wait started in OnDisable");
            Assert.Equal(0, Debug.Exceptions.Count, "exceptions logged at exit" + (Debug.Exceptions.Count > 0 ? ": " + Debug.Exceptions[0].GetType().Name + ": " + Debug.Exceptions[0].Message : ""));
        }
    }
}

namespace Onity.UnityTests
{
    public class AfterExitThreadTests
    {
        static async OnityTask AwaitSource(OnityTask<int> t, List<string> log)
        {
            int v = await t;
            log.Add(v + " on " + (System.Threading.Thread.CurrentThread == Sim.MainThread ? "main" : "worker") + (Application.isPlaying ? " playing" : " edit mode"));
        }

        /// <summary>A worker completes a source after Play Mode ended: the continuation runs on the
        /// main thread (through Unity's SynchronizationContext), not on the worker.</summary>
        [Test]
        public void WorkerCompletionAfterExit_ResumesOnTheMainThread()
        {
            Sim.EnterPlayMode();
            var src = new OnityCompletionSource<int>();
            var log = new List<string>();
            AwaitSource(src.Task, log).Forget();
            Sim.RunFrames(2);
            Sim.ExitPlayMode();
            var w = new System.Threading.Thread(() => src.TrySetResult(7));
            w.Start();
            w.Join();
            Assert.Equal(0, log.Count, "not run on the worker");
            Sim.RunEditorUpdate();
            Assert.Equal("7 on main edit mode", string.Join(",", log), "resumed by the editor's update");
            Assert.Equal(0, Debug.Exceptions.Count, "no exceptions");
        }
    }
}
