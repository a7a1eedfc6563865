using System;

namespace Onity.Tests
{
    /// <summary>The binding's test program: every [Test] of this assembly (framework in
    /// tests/shared/TestFramework.cs), each followed by TestHost.Cleanup.</summary>
    public static class Runner
    {
        public static int Main(string[] args)
        {
            // A child process of ContextFlowTests (it needs a fresh OnityContextFlow type initializer).
            if (Array.IndexOf(args, "--stripped-context-scenario") >= 0) return ContextFlowTests.StrippedScenario();
            return TestRunner.Run(args, null, TestHost.Cleanup);
        }
    }
}
