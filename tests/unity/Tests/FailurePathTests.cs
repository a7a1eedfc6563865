using System;
using System.Collections.Generic;
using Onity.Native;
using Onity.Unity;
using UnityEngine;

namespace Onity.UnityTests
{
    /// <summary>Issue 31 #3: a runtime the native library refuses to create (onity_runtime_create
    /// fails) gives one error per Play Mode entry, nothing escapes the
    /// [RuntimeInitializeOnLoadMethod]s, and every await started without the runtime fails with the
    /// same message.</summary>
    public class FailurePathTests
    {
        // A real refusal: the rewind timing is out of range (ONITY_STATUS_INVALID_ARGUMENT).
        static unsafe OnityRuntime CreateRefused()
        {
            OnityRuntimeConfig c;
            OnityNativeCalls.onity_runtime_config_init(&c, (uint)sizeof(OnityRuntimeConfig));
            c.frame_alloc_rewind_timing = 1000;
            return new OnityRuntime(c);
        }

        static async OnityTask AwaitNextFrame(List<Exception> into)
        {
            try { await OnityTask.NextFrame(); }
            catch (Exception e) { into.Add(e); }
        }

        [Test]
        public void RuntimeCreationFails_OneErrorPerEntry_NothingEscapes_AwaitsFailClearly()
        {
            // Installed at SubsystemRegistration of each entry (a domain reload resets the hook).
            var saved = OnityPlayerLoop.CreateRuntime;
            Sim.InitNamespaces.Add("RefusedRuntimeHooks");
            RefusedRuntimeHooks.Refuse.Create = CreateRefused;
            try
            {
                for (int entry = 1; entry <= 2; entry++)
                {
                    string p = "entry " + entry + ": ";
                    Debug.Clear();
                    Sim.SetDomainReload(entry == 1); // the editor's default, then reload disabled
                    Sim.EnterPlayMode();
                    Assert.Equal(0, Debug.Exceptions.Count, p + "nothing escaped the initialisation");
                    Assert.Equal(1, Debug.Errors.Count, p + "exactly one error");
                    Assert.Contains("could not create the runtime", Debug.Errors[0], p + "says what failed");
                    Assert.Contains("onity_runtime_create", Debug.Errors[0], p + "names the call");
                    Assert.Contains("InvalidArgument", Debug.Errors[0], p + "keeps the native status");
                    Assert.False(OnityPlayerLoop.IsInitialized, p + "not initialised");
                    Assert.Equal(0, Sim.CountOnitySystems(), p + "no systems injected");
                    var failures = new List<Exception>();
                    AwaitNextFrame(failures).Forget();
                    Sim.RunFrames(3);
                    Assert.Equal(1, failures.Count, p + "the await failed");
                    Assert.True(failures[0] is InvalidOperationException, p + "InvalidOperationException, got " + failures[0].GetType().Name);
                    Assert.Contains("could not create the runtime", failures[0].Message, p + "the await says why");
                    Assert.Equal(1, Debug.Errors.Count, p + "still one error after frames");
                    Sim.ExitPlayMode();
                }
            }
            finally
            {
                RefusedRuntimeHooks.Refuse.Create = null;
                OnityPlayerLoop.CreateRuntime = saved;
            }
            // The next entry that creates its runtime clears the reason.
            Debug.Clear();
            Sim.EnterPlayMode();
            Assert.True(OnityPlayerLoop.IsInitialized, "created once the failure is gone");
            Assert.Equal(null, OnityRuntime.UnavailableReason, "reason cleared");
            Assert.Equal(0, Debug.Errors.Count, "no error");
        }

        /// <summary>IL2CPP refuses at run time a managed delegate handed to native code unless it is a
        /// static [MonoPInvokeCallback] method: no public member of the binding takes a delegate that
        /// native code calls (the onity_*_then exports and OnityCallback are internal).</summary>
        [Test]
        public void NoPublicMemberHandsAManagedCallbackToNativeCode()
        {
            var cb = typeof(OnityNative).Assembly.GetType("Onity.Native.OnityCallback");
            Assert.True(cb != null, "OnityCallback still generated");
            Assert.False(cb.IsPublic, "OnityCallback is not public");
            var exposed = new List<string>();
            foreach (var t in new[] { typeof(OnityNative), typeof(OnityNativeCalls) })
                foreach (var m in t.GetMethods(System.Reflection.BindingFlags.Public | System.Reflection.BindingFlags.Static))
                    foreach (var p in m.GetParameters())
                        if (typeof(Delegate).IsAssignableFrom(p.ParameterType)) exposed.Add(t.Name + "." + m.Name);
            Assert.Equal("", string.Join(",", exposed), "public functions taking a native callback");
            var hidden = typeof(OnityNativeCalls).GetMethod("onity_yield_then", System.Reflection.BindingFlags.NonPublic | System.Reflection.BindingFlags.Static);
            Assert.True(hidden != null, "onity_yield_then is still declared (internal)");
        }
    }
}

namespace RefusedRuntimeHooks
{
    using System;
    using Onity;
    using Onity.Unity;
    using UnityEngine;

    /// <summary>Replaces the Play Mode runtime's creation at SubsystemRegistration while a test
    /// sets <see cref="Create"/> (test state: no reload resets it).</summary>
    public static class Refuse
    {
        public static Func<OnityRuntime> Create;

        [RuntimeInitializeOnLoadMethod(RuntimeInitializeLoadType.SubsystemRegistration)]
        static void Install()
        {
            if (Create != null) OnityPlayerLoop.CreateRuntime = Create;
        }
    }
}
