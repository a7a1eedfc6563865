using System;
using System.Linq;
using Onity.Unity;
using UnityEngine;
using UnityEngine.LowLevel;
using PL = UnityEngine.PlayerLoop;

namespace ForeignLib
{
    /// <summary>Another library's PlayerLoop systems (inserted before Onity initialises).</summary>
    public struct ForeignEarly { }
    public struct ForeignLate { }

    public static class ForeignSystems
    {
        public static int EarlyRuns, LateRuns;

        public static void Install()
        {
            EarlyRuns = LateRuns = 0;
            var loop = PlayerLoop.GetCurrentPlayerLoop();
            for (int i = 0; i < loop.subSystemList.Length; i++)
            {
                var phase = loop.subSystemList[i];
                if (phase.type == typeof(PL.Update))
                {
                    var l = phase.subSystemList.ToList();
                    l.Insert(0, new PlayerLoopSystem { type = typeof(ForeignEarly), updateDelegate = () => EarlyRuns++ });
                    phase.subSystemList = l.ToArray();
                }
                if (phase.type == typeof(PL.PostLateUpdate))
                {
                    var l = phase.subSystemList.ToList();
                    l.Add(new PlayerLoopSystem { type = typeof(ForeignLate), updateDelegate = () => LateRuns++ });
                    phase.subSystemList = l.ToArray();
                }
                loop.subSystemList[i] = phase;
            }
            PlayerLoop.SetPlayerLoop(loop);
        }
    }
}

namespace Onity.UnityTests
{
    public class InjectionTests
    {
        static readonly Type[] Phases =
        {
            typeof(PL.Initialization), typeof(PL.EarlyUpdate), typeof(PL.FixedUpdate), typeof(PL.PreUpdate),
            typeof(PL.Update), typeof(PL.PreLateUpdate), typeof(PL.PostLateUpdate), typeof(PL.TimeUpdate),
        };

        /// <summary>Checks that exactly the selected timings have one system each, X first in its
        /// phase (after the frame begin in Initialization), LastX last, and that every native and
        /// foreign system of the default loop is still there in its order.</summary>
        static void CheckInjected(OnityLoopTimings timings, bool foreign)
        {
            var def = PlayerLoop.GetDefaultPlayerLoop();
            var cur = PlayerLoop.GetCurrentPlayerLoop();
            Assert.Equal(def.subSystemList.Length, cur.subSystemList.Length, "phase count");
            int expectedOnity = 1;
            for (int t = 0; t < 16; t++)
            {
                var timing = (OnityTiming)t;
                bool want = (timings & (OnityLoopTimings)(1 << t)) != 0;
                var phase = Sim.Phase(Phases[t >> 1]);
                int count = phase.subSystemList.Count(s => s.type == Sys.Of(timing));
                Assert.Equal(want ? 1 : 0, count, "systems for " + timing);
                int elsewhere = Sim.Flatten(cur).Count(x => x == Sys.Of(timing));
                Assert.Equal(want ? 1 : 0, elsewhere, "systems for " + timing + " anywhere");
                if (!want) continue;
                expectedOnity++;
                int idx = Array.FindIndex(phase.subSystemList, s => s.type == Sys.Of(timing));
                if ((t & 1) == 0)
                    Assert.Equal(timing == OnityTiming.Initialization ? 1 : 0, idx, timing + " position");
                else
                    Assert.Equal(phase.subSystemList.Length - 1, idx, timing + " position (last)");
                Assert.True(phase.subSystemList[idx].updateDelegate != null, timing + " has an updateDelegate");
            }
            var init = Sim.Phase(typeof(PL.Initialization));
            Assert.Equal(typeof(OnityLoopRunners.OnityFrameBegin), init.subSystemList[0].type, "frame begin first in Initialization");
            Assert.Equal(expectedOnity, Sim.CountOnitySystems(), "Onity systems in total");
            // Everything that is not Onity's is exactly what was there before, in order.
            for (int p = 0; p < def.subSystemList.Length; p++)
            {
                var before = def.subSystemList[p].subSystemList.Select(s => s.type).ToList();
                if (foreign && def.subSystemList[p].type == typeof(PL.Update)) before.Insert(0, typeof(ForeignLib.ForeignEarly));
                if (foreign && def.subSystemList[p].type == typeof(PL.PostLateUpdate)) before.Add(typeof(ForeignLib.ForeignLate));
                var after = cur.subSystemList[p].subSystemList.Select(s => s.type).Where(x => !OnityLoopRunners.IsOnitySystem(x)).ToList();
                Assert.Equal(string.Join(",", before.Select(x => x.Name)), string.Join(",", after.Select(x => x.Name)), "non-Onity systems of " + def.subSystemList[p].type.Name);
            }
        }

        [Test]
        public void StandardPresetAtPlayModeEntry_OneSystemPerTiming_ForeignSystemsKept()
        {
            ForeignLib.ForeignSystems.Install();
            Sim.EnterPlayMode();
            Assert.True(OnityPlayerLoop.IsInitialized, "initialised at AfterAssembliesLoaded");
            Assert.Equal(OnityLoopTimings.Standard, OnityPlayerLoop.InjectedTimings, "default preset");
            CheckInjected(OnityLoopTimings.Standard, true);
            Sim.RunFrames(10);
            Assert.Equal(10, ForeignLib.ForeignSystems.EarlyRuns, "foreign early system still runs");
            Assert.Equal(10, ForeignLib.ForeignSystems.LateRuns, "foreign late system still runs");
            Assert.Equal((ulong)10, OnityPlayerLoop.Runtime.Frame, "Onity frame follows Time.frameCount");
        }

        [Test]
        public void AllAndMinimumPresets_ReinjectWithoutDuplicates()
        {
            ForeignLib.ForeignSystems.Install();
            Sim.EnterPlayMode();
            int inits = OnityPlayerLoop.InitializeCount;
            OnityPlayerLoop.Initialize(OnityLoopTimings.All);
            CheckInjected(OnityLoopTimings.All, true);
            Assert.Equal(17, Sim.CountOnitySystems(), "16 timings + frame begin");
            OnityPlayerLoop.Initialize(OnityLoopTimings.Minimum);
            CheckInjected(OnityLoopTimings.Minimum, true);
            Assert.Equal(4, Sim.CountOnitySystems(), "3 timings + frame begin");
            OnityPlayerLoop.Initialize(OnityLoopTimings.Minimum);
            Assert.Equal(4, Sim.CountOnitySystems(), "idempotent");
            var custom = OnityLoopTimings.PreUpdate | OnityLoopTimings.LastTimeUpdate;
            OnityPlayerLoop.Initialize(custom);
            CheckInjected(custom, true);
            Assert.Equal(inits, OnityPlayerLoop.InitializeCount, "one runtime throughout");
            Sim.RunFrames(5);
            Assert.Equal(5, ForeignLib.ForeignSystems.EarlyRuns, "foreign system runs");
        }

        [Test]
        public void ForeignSystemsInsertedAfterOnity_SurviveShutdown()
        {
            Sim.EnterPlayMode();
            ForeignLib.ForeignSystems.Install();
            Sim.RunFrames(3);
            OnityPlayerLoop.Shutdown();
            Assert.Equal(0, Sim.CountOnitySystems(), "Onity systems removed");
            var types = Sim.Flatten(PlayerLoop.GetCurrentPlayerLoop());
            Assert.True(types.Contains(typeof(ForeignLib.ForeignEarly)) && types.Contains(typeof(ForeignLib.ForeignLate)), "foreign systems kept");
            Sim.RunFrames(2);
            Assert.Equal(5, ForeignLib.ForeignSystems.LateRuns, "foreign system still runs after Onity shut down");
        }

        [Test]
        public void CustomLoop_InitializeByRef_DoesNotSetLoop()
        {
            Sim.EnterPlayMode();
            OnityPlayerLoop.Shutdown();
            var loop = PlayerLoop.GetDefaultPlayerLoop();
            int sets = PlayerLoop.SetCount;
            OnityPlayerLoop.Initialize(ref loop, OnityLoopTimings.Minimum);
            Assert.Equal(sets, PlayerLoop.SetCount, "no SetPlayerLoop");
            Assert.Equal(4, Sim.Flatten(loop).Count(OnityLoopRunners.IsOnitySystem), "systems in the given loop");
            PlayerLoop.SetPlayerLoop(loop);
            CheckInjected(OnityLoopTimings.Minimum, false);
        }
    }
}

namespace Onity.UnityTests
{
    /// <summary>UniTask's PlayerLoopHelper members as OnityPlayerLoop's.</summary>
    public class PlayerLoopHelperParityTests
    {
        [Test]
        public void DumpListsThePhasesAndMarksOnitySystems()
        {
            Sim.EnterPlayMode();
            var text = OnityPlayerLoop.DumpCurrentPlayerLoop();
            Assert.Contains("------Update------", text, "a phase line");
            Assert.Contains("OnityUpdate (Onity)", text, "Onity's Update system, marked");
            Assert.Contains("OnityLastPostLateUpdate (Onity)", text, "Onity's last system, marked");
            bool logged;
            lock (Debug.Logs) logged = Debug.Logs.Contains(text);
            Assert.True(logged, "logged with Debug.Log");
        }

        [Test]
        public void MainThreadIdAndSynchronizationContextAreCapturedAtInitialization()
        {
            Sim.EnterPlayMode();
            Assert.Equal(System.Threading.Thread.CurrentThread.ManagedThreadId, OnityPlayerLoop.MainThreadId, "the main thread");
            Assert.True(OnityPlayerLoop.IsMainThread, "on the main thread");
            bool onWorker = true;
            System.Threading.Tasks.Task.Run(() => onWorker = OnityPlayerLoop.IsMainThread).Wait();
            Assert.False(onWorker, "a worker is not the main thread");
            Assert.True(OnityPlayerLoop.UnitySynchronizationContext != null && OnityPlayerLoop.UnitySynchronizationContext == System.Threading.SynchronizationContext.Current,
                "Unity's main-thread context");
        }
    }
}
