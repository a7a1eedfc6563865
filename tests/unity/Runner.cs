using System;

namespace Onity.UnityTests
{
    /// <summary>The Unity package's test program: every [Test] of this assembly (framework in
    /// tests/shared/TestFramework.cs) with a fresh simulated engine for each; -log echoes
    /// Debug.Log output.</summary>
    public static class Runner
    {
        public static int Main(string[] args)
        {
            UnityEngine.Debug.Echo = Array.IndexOf(args, "-log") >= 0;
            return TestRunner.Run(args, Sim.ResetEngine, AfterEach);
        }

        static void AfterEach()
        {
            Sim.ResetEngine();
            Onity.Unity.OnityPlayerLoop.Shutdown();
        }
    }
}
