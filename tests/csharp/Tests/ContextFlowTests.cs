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

        static async OnityTask NextFrames(int n)
        {
            for (int i = 0; i < n; i++) await OnityTask.NextFrame();
        }

        static async OnityTask<string> ReadLogicalAfterAwait()
        {
            await OnityTask.NextFrame();
            return (string)System.Runtime.Remoting.Messaging.CallContext.LogicalGetData("onity-test");
        }

        /// <summary>Sets a logical call context value, reads it back after an await, clears it.</summary>
        static string LogicalValueAfterAwait(TestHost h)
        {
            System.Runtime.Remoting.Messaging.CallContext.LogicalSetData("onity-test", "lcc");
            var lcc = ReadLogicalAfterAwait();
            System.Runtime.Remoting.Messaging.CallContext.FreeNamedDataSlot("onity-test");
            h.RunFrame(OnityTiming.Update);
            h.RunFrame(OnityTiming.Update);
            return lcc.GetAwaiter().GetResult();
        }

        /// <summary>Without the Reflection.Emit checks (the ENABLE_IL2CPP build, where they are not
        /// compiled, or the Mono build where no JIT runs a DynamicMethod: Mono's full AOT), every
        /// suspension takes the FastCapture path, and what must flow still flows.</summary>
        static void EverySuspensionTakesFastCapture()
        {
            Assert.False(OnityContextFlow.UsesNothingToFlowCheck, "no nothing-to-flow check (DynamicMethod)");
            Assert.False(OnityContextFlow.UsesEmptyContextCheck, "no empty-context check (DynamicMethod)");
            Assert.True(OnityContextFlow.UsesFastCapture, "FastCapture/Run bound by plain reflection");
            FreshThread.Run(() =>
            {
                using (var h = new TestHost())
                {
                    h.RunFrame(OnityTiming.Update);
                    int slow = Volatile.Read(ref OnityTestHooks.SlowCaptures);
                    var t = NextFrames(10);
                    for (int f = 0; f < 12; f++) h.RunFrame(OnityTiming.Update);
                    t.GetAwaiter().GetResult();
                    Assert.Equal(10, Volatile.Read(ref OnityTestHooks.SlowCaptures) - slow, "one FastCapture per suspension");
                    Assert.Equal("lcc", LogicalValueAfterAwait(h), "logical call context value");
                    Assert.Equal("mine", RunScenario(h));
                }
            }, withSyncContext: true);
        }

#if ENABLE_IL2CPP
        /// <summary>The IL2CPP build (scripts/test-csharp.sh runs the suite a second time with
        /// ENABLE_IL2CPP): the Reflection.Emit checks are not compiled.</summary>
        [Test]
        public void Il2cppBuild_NoEmitChecks_EverySuspensionTakesFastCapture_FlowUnchanged()
        {
            EverySuspensionTakesFastCapture();
        }
#else
        /// <summary>Whether this process runs a DynamicMethod (false without a JIT: mono --full-aot,
        /// as scripts/test-csharp-aot.sh runs this build).</summary>
        static bool DynamicMethodsRun()
        {
            try
            {
                var dm = new System.Reflection.Emit.DynamicMethod("OnityTestProbe", typeof(int), Type.EmptyTypes, typeof(ContextFlowTests), true);
                var il = dm.GetILGenerator();
                il.Emit(System.Reflection.Emit.OpCodes.Ldc_I4_7);
                il.Emit(System.Reflection.Emit.OpCodes.Ret);
                return ((Func<int>)dm.CreateDelegate(typeof(Func<int>)))() == 7;
            }
            catch (Exception)
            {
                return false;
            }
        }

        [Test]
        public void AThreadWhoseContextHoldsOnlyASyncContextCapturesNothing()
        {
            if (!DynamicMethodsRun())
            {
                // The Mono build without a JIT: the binding falls back to the IL2CPP build's path.
                EverySuspensionTakesFastCapture();
                return;
            }
            // Each suspension used to take the full capture there (about 80 ns on Mono).
            Assert.True(OnityContextFlow.UsesNothingToFlowCheck, "the nothing-to-flow check is bound on Mono");
            FreshThread.Run(() =>
            {
                using (var h = new TestHost())
                {
                    h.RunFrame(OnityTiming.Update);
                    // A Task awaited here leaves an empty logical call context in the thread's context.
                    System.Threading.Tasks.Task.Run(async () => { await System.Threading.Tasks.Task.Yield(); }).Wait();
                    var warm = NextFrames(1); // the thread's first suspension finds the thread object
                    h.RunFrame(OnityTiming.Update);
                    h.RunFrame(OnityTiming.Update);
                    warm.GetAwaiter().GetResult();
                    int slow = Volatile.Read(ref OnityTestHooks.SlowCaptures);
                    var t = NextFrames(50);
                    for (int f = 0; f < 52; f++) h.RunFrame(OnityTiming.Update);
                    t.GetAwaiter().GetResult();
                    Assert.Equal(0, Volatile.Read(ref OnityTestHooks.SlowCaptures) - slow, "full captures for 50 suspensions");
                    // A logical call context value flows too (the thread's context now has one).
                    Assert.Equal("lcc", LogicalValueAfterAwait(h), "logical call context value");
                    // Emptied again (the call context object stays, with nothing in it): nothing to flow.
                    slow = Volatile.Read(ref OnityTestHooks.SlowCaptures);
                    t = NextFrames(20);
                    for (int f = 0; f < 22; f++) h.RunFrame(OnityTiming.Update);
                    t.GetAwaiter().GetResult();
                    Assert.Equal(0, Volatile.Read(ref OnityTestHooks.SlowCaptures) - slow, "full captures with an empty call context");
                    // With an AsyncLocal value to flow, it is captured and flows.
                    Assert.Equal("mine", RunScenario(h));
                }
            }, withSyncContext: true);
        }
#endif

        /// <summary>A player whose code stripping removed the ExecutionContext internals
        /// (OnityLinkerProcessor's link.xml not applied): flow takes the public
        /// ExecutionContext.Capture/Run, with the same semantics. Run in a child process
        /// (ONITY_TEST_STRIPPED_EXECUTION_CONTEXT=1 makes the binding skip what stripping removes),
        /// in the Mono build and in the ENABLE_IL2CPP build.</summary>
        [Test]
        public void StrippedExecutionContextInternals_PublicFallbackFlowsTheSame()
        {
            var psi = ChildMono.Start("--stripped-context-scenario");
            psi.EnvironmentVariables["ONITY_TEST_STRIPPED_EXECUTION_CONTEXT"] = "1";
            string output;
            using (var p = System.Diagnostics.Process.Start(psi))
            {
                output = p.StandardOutput.ReadToEnd();
                p.WaitForExit();
                Assert.Equal(0, p.ExitCode, "child exit code; output:\n" + output);
            }
            Func<string, string> value = key =>
            {
                foreach (var line in output.Split('\n'))
                    if (line.StartsWith(key + "=")) return line.Substring(key.Length + 1).TrimEnd('\r');
                throw new AssertionException("no " + key + " in the child's output:\n" + output);
            };
            Assert.Equal("False", value("fastCapture"), "internals not bound (as stripped)");
            Assert.Equal("False", value("emitChecks"), "no Reflection.Emit checks either");
            Assert.Equal("mine", value("asyncLocal"), "AsyncLocal value flows across the await");
            Assert.Equal("lcc", value("logical"), "logical call context value flows");
            Assert.Equal("host", value("flowOff"), "the global switch still turns flow off");
            Assert.Equal("mine", value("afterMany"), "still flows after 100 suspensions");
            Assert.Equal("0", value("unobserved"), "nothing failed");
        }

        /// <summary>The child side of the test above.</summary>
        internal static int StrippedScenario()
        {
            Console.WriteLine("fastCapture=" + OnityContextFlow.UsesFastCapture);
            Console.WriteLine("emitChecks=" + (OnityContextFlow.UsesEmptyContextCheck || OnityContextFlow.UsesNothingToFlowCheck));
            string local = null, logical = null, off = null, worker = null;
            int unobserved = 0;
            FreshThread.Run(() =>
            {
                using (var h = new TestHost())
                {
                    local = RunScenario(h);
                    logical = LogicalValueAfterAwait(h);
                    // 100 suspensions in a row (each captures and runs its own context once).
                    var t = NextFrames(100);
                    for (int f = 0; f < 102; f++) h.RunFrame(OnityTiming.Update);
                    t.GetAwaiter().GetResult();
                    worker = RunScenario(h);
                    unobserved = h.Unobserved.Count;
                }
                using (var h = new TestHost())
                {
                    OnityContextFlow.Enabled = false;
                    off = RunScenario(h);
                }
            }, withSyncContext: true);
            Console.WriteLine("asyncLocal=" + local);
            Console.WriteLine("logical=" + logical);
            Console.WriteLine("flowOff=" + off);
            Console.WriteLine("afterMany=" + worker);
            Console.WriteLine("unobserved=" + unobserved);
            return 0;
        }

        [Test]
        public void InternalFastCaptureIsBound()
        {
            Assert.True(OnityContextFlow.UsesFastCapture, "ExecutionContext.FastCapture bound (allocation-free default path)");
        }
    }
}
