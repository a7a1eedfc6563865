using System;
using System.Collections.Generic;
using System.Threading;
using Onity.Native;
using Onity.Unity;
using Unity.Profiling;
using UnityEngine;

namespace Onity.UnityTests
{
    /// <summary>Issue 31 #2.5: the stand-in's profiler checks that samples pair up per thread as
    /// Unity's does (an error for an end that does not match the innermost open sample of its
    /// thread, and for a sample still open at the end of a frame); the runner fails any test that
    /// leaves one. The binding's markers stay paired when the switch changes mid-sample.</summary>
    public class ProfilerPairingTests
    {
        static List<string> TakeMismatches()
        {
            lock (StandInProfiler.Mismatches)
            {
                var l = new List<string>(StandInProfiler.Mismatches);
                StandInProfiler.Mismatches.Clear();
                return l;
            }
        }

        [Test]
        public void StandIn_UnpairedSamplesAreErrors_PerThread()
        {
            var a = new ProfilerMarker("Test.A");
            var b = new ProfilerMarker("Test.B");
            a.Begin();
            b.Begin();
            b.End();
            a.End();
            Assert.Equal(0, TakeMismatches().Count, "nested pairs");
            b.End();
            var m = TakeMismatches();
            Assert.Equal(1, m.Count, "an end with nothing open");
            Assert.Contains("Non-matching Profiler.EndSample", m[0], "Unity's message");
            a.Begin();
            b.End();
            m = TakeMismatches();
            Assert.Equal(1, m.Count, "an end of another marker than the innermost");
            Assert.Contains("Test.B", m[0], "names it");
            a.End();
            // Begun on a worker, ended on the main thread: each thread has its own stack.
            var w = new Thread(() => a.Begin());
            w.Start();
            w.Join();
            a.End();
            Assert.Equal(1, TakeMismatches().Count, "ended on another thread than it began");
            Sim.EnterPlayMode();
            a.Begin();
            Sim.RunFrame();
            m = TakeMismatches();
            Assert.Equal(1, m.Count, "open at the end of the frame");
            Assert.Contains("Missing Profiler.EndSample", m[0], "Unity's message");
            Debug.Clear();
        }

        // Runs inside onity_batch_tick, i.e. between the Onity.Batch marker's Begin and End. A
        // native-to-managed call: static and marked, as IL2CPP (and mono --full-aot) need.
        [AOT.MonoPInvokeCallback(typeof(OnityCallback))]
        static void Toggle(IntPtr user, ulong task, uint state) { OnityProfiler.MarkersEnabled = !OnityProfiler.MarkersEnabled; }
        static readonly OnityCallback toggle = Toggle;

        [Test]
        public void MarkersSwitchedDuringTheBatchCall_StayPaired()
        {
            Sim.EnterPlayMode();
            Sim.RunFrames(2);
            var rt = OnityPlayerLoop.Runtime;
            try
            {
                foreach (bool startEnabled in new[] { true, false })
                {
                    OnityProfiler.MarkersEnabled = startEnabled;
                    Assert.Equal(OnityStatus.Ok, OnityNativeCalls.onity_yield_then(rt.NativeRuntime, (uint)OnityTiming.Update, 0, toggle, IntPtr.Zero), "callback wait");
                    Sim.RunFrames(2);
                    Assert.Equal(!startEnabled, OnityProfiler.MarkersEnabled, "the callback ran inside the tick");
                    Assert.Equal("", string.Join("\n", TakeMismatches()), "no unpaired sample (started " + (startEnabled ? "on" : "off") + ")");
                }
            }
            finally { OnityProfiler.MarkersEnabled = true; }
        }
    }
}
