namespace Onity.Tests
{
    /// <summary>The binding's test program: every [Test] of this assembly (framework in
    /// tests/shared/TestFramework.cs), each followed by TestHost.Cleanup.</summary>
    public static class Runner
    {
        public static int Main(string[] args)
        {
            return TestRunner.Run(args, null, TestHost.Cleanup);
        }
    }
}
