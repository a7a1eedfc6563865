using System;
using System.Linq;
using System.Threading;
using Onity.Samples.Demo;
using Onity.Unity;
using UnityEngine;

namespace Onity.UnityTests
{
    /// <summary>The sample project's scripts (unity-sample/Assets/Scripts) and the package's
    /// QuickStart sample, run in the simulated loop.</summary>
    public class SampleTests
    {
        static void EnterWithDemoScene(bool sceneHasDemo)
        {
            Sim.InitNamespaces.Add("Onity.Samples");
            // The scene OnityDemo.unity holds one "Onity Demo" GameObject with these components.
            if (sceneHasDemo) Sim.LoadScene = () => DemoBootstrap.Create();
            Sim.EnterPlayMode();
        }

        static void RunSimulatedSeconds(int frames)
        {
            // Varying frame times (30-144 fps), with a little real time spent per frame so the
            // worker threads get to run.
            var rng = new System.Random(7);
            for (int i = 0; i < frames; i++)
            {
                Sim.FrameTime = (float)(1.0 / (30 + rng.Next(115)));
                if (i % 50 == 0) Thread.Sleep(2);
                Sim.RunFrame();
            }
        }

        [Test]
        public void DemoScene_400Frames_RunsWaves_Races_Workers_Overlay_WithoutErrors()
        {
            EnterWithDemoScene(true);
            Assert.Equal(1, UnityEngine.StandInScene.Objects.Count(o => o.name == "Onity Demo"), "one demo object (bootstrap did not add a second)");
            RunSimulatedSeconds(400);
            // Let outstanding worker round trips land.
            for (int i = 0; i < 200 && DemoStats.WorkerRoundTrips < 10; i++) { Thread.Sleep(1); Sim.RunFrame(); }
            Assert.Equal(0, Debug.Exceptions.Count, "no exceptions" + (Debug.Exceptions.Count > 0 ? ": " + Debug.Exceptions[0] : ""));
            Assert.Equal(0, Debug.Errors.Count, "no errors" + (Debug.Errors.Count > 0 ? ": " + Debug.Errors[0] : ""));
            Assert.True(DemoStats.Started > 10000, "waves started tasks: " + DemoStats.Started);
            Assert.True(DemoStats.Completed > 5000, "tasks completed: " + DemoStats.Completed);
            Assert.True(DemoStats.Canceled > 100, "tasks canceled with their wave: " + DemoStats.Canceled);
            Assert.True(DemoStats.NextFrames > 0 && DemoStats.DelayFrames > 0 && DemoStats.Delays > 0, "every wait kind completed");
            Assert.True(DemoStats.RaceWinsFrames + DemoStats.RaceWinsRealtime > 0, "races finished");
            Assert.True(DemoStats.Waves >= 4, "waves replaced: " + DemoStats.Waves);
            Assert.True(DemoStats.WorkerRoundTrips > 0 && DemoStats.NativeRoundTrips > 0 && DemoStats.ThreadHops > 0,
                "worker completions: managed " + DemoStats.WorkerRoundTrips + ", native " + DemoStats.NativeRoundTrips + ", hops " + DemoStats.ThreadHops);
            Assert.Equal(0L, DemoStats.OffMainThreadResumes, "all resumed on the main thread");
            var overlay = UnityEngine.StandInScene.Behaviours.OfType<OnityOverlay>().Single();
            Assert.Contains("tasks started", overlay.LastText, "overlay text");
            Assert.Contains(" ms", overlay.LastText, "overlay frame time");
            Assert.Contains("wait_records", overlay.LastText, "overlay pool stats");
            Assert.True(StandInGui.Drawn.Any(s => s.Contains("Onity frame")), "overlay drew");

            var rt = OnityPlayerLoop.Runtime;
            Sim.ExitPlayMode();
            Assert.True(rt.IsDisposed, "runtime destroyed at exit");
            Assert.Equal(0, Sim.CountOnitySystems(), "systems removed");
            Assert.Equal(0, Debug.Errors.Count, "no errors at exit");
            Assert.Equal(0, Debug.Exceptions.Count, "no exceptions at exit" + (Debug.Exceptions.Count > 0 ? ": " + Debug.Exceptions[0] : ""));

            // Second session without domain reload: statics reset, demo runs again.
            Debug.Clear();
            Sim.EnterPlayMode();
            Assert.Equal(0L, DemoStats.Started, "DemoStats reset at SubsystemRegistration");
            var snap = new OnityStatsSnapshot();
            snap.Capture(OnityPlayerLoop.Runtime);
            Assert.Equal((ulong)0, snap.TotalLive, "nothing live in the new runtime's pools");
            RunSimulatedSeconds(100);
            Assert.True(DemoStats.Completed > 0, "second session runs");
            Assert.Equal(0, Debug.Errors.Count + Debug.Exceptions.Count, "no errors in the second session");
        }

        [Test]
        public void Bootstrap_AddsDemoWhenSceneIsEmpty()
        {
            EnterWithDemoScene(false);
            Assert.Equal(1, UnityEngine.StandInScene.Objects.Count(o => o.name == "Onity Demo"), "bootstrap added the demo");
            RunSimulatedSeconds(60);
            Assert.True(DemoStats.Completed > 0, "runs");
        }

        [Test]
        public void QuickStartSample_LogsItsSteps()
        {
            Sim.EnterPlayMode();
            new GameObject("quick").AddComponent<Onity.Samples.QuickStart.QuickStartExample>();
            Sim.FrameTime = 0.1f;
            Sim.RunFrames(40);
            var logs = string.Join("\n", Debug.Logs);
            Assert.Contains("Onity: next frame, frame 2", logs, "NextFrame");
            Assert.Contains("Onity: 10 frames later, frame 12", logs, "DelayFrame");
            Assert.Contains("Onity: tick 3", logs, "Delay ticks");
            Assert.Contains("race won by Delay; done", logs, "race");
            Assert.Equal(0, Debug.Errors.Count + Debug.Exceptions.Count, "no errors");
        }
    }
}
