using System;

namespace Onity.UnityTests
{
    /// <summary>The Unity package's test program: every [Test] of this assembly (framework in
    /// tests/shared/TestFramework.cs) with a fresh simulated engine for each; -log echoes
    /// Debug.Log output. <c>--scenario NAME</c> runs one scenario of
    /// <see cref="ChildScenarios"/> instead (tests start this program as a child process when a
    /// case needs another native library than the test process has loaded).</summary>
    public static class Runner
    {
        public static int Main(string[] args)
        {
            UnityEngine.Debug.Echo = Array.IndexOf(args, "-log") >= 0;
            int s = Array.IndexOf(args, "--scenario");
            if (s >= 0 && s + 1 < args.Length) return ChildScenarios.Run(args[s + 1]);
            return TestRunner.Run(args, Sim.ResetEngine, AfterEach);
        }

        static void AfterEach()
        {
            // Unpaired profiler samples (Unity logs them as errors) fail the test.
            string mismatches;
            lock (global::Unity.Profiling.StandInProfiler.Mismatches)
                mismatches = string.Join("\n", global::Unity.Profiling.StandInProfiler.Mismatches);
            Sim.ResetEngine();
            Onity.Unity.OnityPlayerLoop.Shutdown();
            if (mismatches.Length > 0) throw new InvalidOperationException("unpaired profiler samples:\n" + mismatches);
        }
    }
}
