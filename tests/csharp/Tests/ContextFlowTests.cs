using System;
using System.Collections.Generic;
using System.Threading;

namespace Onity.Tests
{
    public class ContextFlowTests
    {
        static readonly AsyncLocal<string> Ambient = new AsyncLocal<string>();

        static async OnityTask<string> SetAndAwait(string value)
        {
            Ambient.Value = value;
            await OnityTask.NextFrame();
            return Ambient.Value;
        }

        static string RunScenario(TestHost h)
        {
            h.RunFrame(OnityTiming.Update);
            string seen = null;
            // Run the method inside its own context so its AsyncLocal write does not leak here.
            OnityTask<string> t = default(OnityTask<string>);
            ExecutionContext.Run(ExecutionContext.Capture(), _ => { t = SetAndAwait("mine"); }, null);
            Ambient.Value = "host";
            h.RunFrame(OnityTiming.Update);
            seen = t.GetAwaiter().GetResult();
            Ambient.Value = null;
            return seen;
        }

        [Test]
        public void AsyncLocalFlowsAcrossAwaitsByDefault()
        {
            using (var h = new TestHost())
            {
                Assert.True(OnityContextFlow.Enabled, "on by default");
                Assert.Equal("mine", RunScenario(h));
            }
        }

        [Test]
        public void GlobalSwitchTurnsFlowOff()
        {
            using (var h = new TestHost())
            {
                OnityContextFlow.Enabled = false;
                Assert.Equal("host", RunScenario(h));
            }
        }

        [Test]
        public void InternalFastCaptureIsBound()
        {
            Assert.True(OnityContextFlow.UsesFastCapture, "ExecutionContext.FastCapture bound (allocation-free default path)");
        }
    }
}
