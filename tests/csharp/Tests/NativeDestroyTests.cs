using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;

namespace Onity.Tests
{
    /// <summary>Issue 30 #4: C code destroys the native runtime an OnityRuntime still drives. The
    /// next C# call that would touch the memory the runtime shared (batch, deferred frame, idle
    /// bytes: freed with it) throws an ObjectDisposedException naming the cause instead, and
    /// Dispose still cancels the managed waits.</summary>
    public class NativeDestroyTests
    {
        const string Helper = "onity_test_helper";

        [DllImport(Helper, CallingConvention = CallingConvention.Cdecl)]
        static extern uint helper_c_destroy(IntPtr rt);

        static async OnityTask Log(OnityTask wait, List<string> log)
        {
            try
            {
                await wait;
                log.Add("ran");
            }
            catch (OperationCanceledException) { log.Add("canceled"); }
        }

        static void AssertNativeDestroyed(Action a, string what)
        {
            var ex = Assert.Throws<ObjectDisposedException>(a, what);
            Assert.Contains("destroyed by native code", ex.Message, what + ": names the cause");
        }

        [Test]
        public void EveryCallAfterACSideDestroyThrowsAndDisposeStillCancels()
        {
            using (var h = new TestHost())
            {
                var log = new List<string>();
                h.RunFrame(OnityTiming.Update);
                Log(OnityTask.Delay(TimeSpan.FromSeconds(10)), log);
                h.RunFrame(OnityTiming.Update);
                Assert.True(h.Runtime.IsNativeAlive, "alive before");
                Assert.Equal(0u, helper_c_destroy(h.Runtime.rt), "onity_runtime_destroy from C");
                Assert.False(h.Runtime.IsNativeAlive, "gone after");
                AssertNativeDestroyed(() => h.Begin(), "BeginFrame");
                AssertNativeDestroyed(() => h.Runtime.Tick(OnityTiming.Update), "Tick");
                AssertNativeDestroyed(() => h.Runtime.Drain(), "Drain");
                AssertNativeDestroyed(() => OnityTask.Delay(TimeSpan.FromSeconds(1)).GetAwaiter().UnsafeOnCompleted(() => { }), "a new wait");
                Assert.Equal(0, log.Count, "nothing resumed");
                h.Runtime.Dispose(); // no native call left to make: the managed side only
                Assert.True(h.Runtime.IsDisposed, "disposed");
                Assert.Equal("canceled", string.Join(",", log), "the pending wait");
                Assert.Throws<ObjectDisposedException>(() => h.Runtime.Tick(OnityTiming.Update), "Tick after Dispose");
            }
        }

        [Test]
        public void ACSideDestroyFromAContinuationEndsTheTickWithTheError()
        {
            using (var h = new TestHost())
            {
                var log = new List<string>();
                h.RunFrame(OnityTiming.Update);
                IntPtr rt = h.Runtime.rt;
                Log(OnityTask.Delay(TimeSpan.Zero), log);
                Log(OnityTask.Delay(TimeSpan.Zero), log);
                OnityTask.Delay(TimeSpan.Zero).GetAwaiter().UnsafeOnCompleted(() => { log.Add("destroy"); helper_c_destroy(rt); });
                h.Begin();
                AssertNativeDestroyed(() => h.Runtime.Tick(OnityTiming.Update), "the tick whose continuation destroyed it");
                Assert.True(string.Join(",", log).StartsWith("ran,ran,destroy"), "resumed in order up to the destroy: " + string.Join(",", log));
                h.Runtime.Dispose();
            }
        }
    }
}
