using System;
using System.Collections.Generic;
using System.Linq;
using Onity.Unity;
using UnityEngine;

namespace Onity.UnityTests
{
    /// <summary>Issue 31 #2.6: the simulator's domain-reload entries reset the package's statics as
    /// a new domain has them (compared with a fresh AppDomain at every such entry).</summary>
    public class DomainReloadTests
    {
        [Test]
        public void ReloadEntry_ResetsWhatThePreviousDomainSet()
        {
            Sim.SetDomainReload(true);
            Sim.EnterPlayMode();
            Sim.RunFrames(3);
            Sim.ExitPlayMode();
            // State of the old domain: settings, a handler, pools with objects, counters.
            OnityPlayerLoop.SubmitCapacity = 123;
            OnityPlayerLoop.DefaultTimings = OnityLoopTimings.Minimum;
            OnityProfiler.MarkersEnabled = false;
            Action<OnityRuntime> handler = _ => { };
            OnityPlayerLoop.RuntimeCreated += handler;
            Assert.True(Onity.Native.OnityNativeCalls.Crossings > 0, "crossings counted in the old domain");
            Sim.EnterPlayMode();
            Assert.Equal(65536, OnityPlayerLoop.SubmitCapacity, "SubmitCapacity back to its initializer");
            Assert.Equal(OnityLoopTimings.Standard, OnityPlayerLoop.InjectedTimings, "DefaultTimings back to Standard");
            Assert.True(OnityProfiler.MarkersEnabled, "MarkersEnabled back to true");
            Assert.Equal(1, OnityPlayerLoop.InitializeCount, "a new domain's first runtime");
            Assert.Equal(0, DomainReload.Survivors().Count(s => s.Contains("RuntimeCreated")), "the handler is gone");
            Sim.ExitPlayMode();
            // Without a reload the old domain's state stays (what the package cleans at
            // SubsystemRegistration instead).
            Sim.SetDomainReload(false);
            OnityPlayerLoop.SubmitCapacity = 123;
            Sim.EnterPlayMode();
            Assert.Equal(123, OnityPlayerLoop.SubmitCapacity, "kept without a reload");
            OnityPlayerLoop.SubmitCapacity = 65536;
        }

        /// <summary>The oracle is not vacuous: a static changed after the reset is reported, and
        /// the types compared include closed generic instantiations.</summary>
        [Test]
        public void Survivors_ListsAStaticThatDiffersFromAFreshDomain()
        {
            DomainReload.Reset();
            Assert.Equal("", string.Join("\n", DomainReload.Survivors()), "just reset: nothing differs");
            OnityPlayerLoop.LogUnobservedExceptions = false;
            try
            {
                var s = DomainReload.Survivors();
                Assert.Equal(1, s.Count, "one difference");
                Assert.Contains("OnityPlayerLoop::LogUnobservedExceptions", s[0], "names the static");
            }
            finally { OnityPlayerLoop.LogUnobservedExceptions = true; }
            var types = DomainReload.PackageTypes();
            Assert.True(types.Count(t => t.IsGenericType) >= 5, "closed generic instantiations compared: " + types.Count(t => t.IsGenericType));
            Assert.True(types.Contains(typeof(OnityPlayerLoop)) && types.Contains(typeof(OnityRuntime)), "the package's main types");
            Assert.False(types.Any(t => t.Namespace.StartsWith("Onity.UnityTests")), "not the tests");
        }

        /// <summary>The fallback oracle (a child process, where there is no AppDomain) sees the
        /// same fresh statics as a new AppDomain.</summary>
        [Test]
        public void FreshStatics_ChildProcessAgreesWithAFreshAppDomain()
        {
            string[] keys, values;
            DomainReload.FromChildProcess(out keys, out values);
            var domain = DomainReload.Fresh();
            Assert.Equal(domain.Count, keys.Length, "as many statics");
            var diff = new List<string>();
            for (int i = 0; i < keys.Length; i++)
            {
                string v;
                if (!domain.TryGetValue(keys[i], out v) || v != values[i]) diff.Add(keys[i] + ": " + values[i] + " | " + v);
            }
            Assert.Equal("", string.Join("\n", diff), "same values");
        }
    }
}
