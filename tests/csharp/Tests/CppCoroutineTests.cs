using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using System.Threading;
using Onity.Native;

namespace Onity.Tests
{
    /// <summary>C++20 coroutines (examples/cpp/csharp_plugin.cpp over include/onity/coro.hpp,
    /// built by scripts/test-csharp.sh as libonity_cpp_plugin) and C# async methods on one
    /// runtime that C# creates and ticks. Only the binding's public API is used on this side:
    /// NativeRuntime, CreateNativeCompletionSource, NativeSetResult, GetNativeLiveTasks.</summary>
    public class CppCoroutineTests
    {
        const string Plugin = "onity_cpp_plugin";

        [DllImport(Plugin, CallingConvention = CallingConvention.Cdecl)]
        static extern uint plugin_attach(IntPtr rt);

        [DllImport(Plugin, CallingConvention = CallingConvention.Cdecl)]
        static extern uint plugin_start(ulong sink, out ulong fromCsharp);

        [DllImport(Plugin, CallingConvention = CallingConvention.Cdecl)]
        static extern uint plugin_watch(ulong shared);

        [DllImport(Plugin, CallingConvention = CallingConvention.Cdecl)]
        static extern uint plugin_complete_later(ulong shared, ulong value, int delayMs);

        [DllImport(Plugin, CallingConvention = CallingConvention.Cdecl)]
        static extern void plugin_join_thread();

        [DllImport(Plugin, CallingConvention = CallingConvention.Cdecl)]
        static extern int plugin_events(ulong[] frames, ulong[] values, int cap);

        [DllImport(Plugin, CallingConvention = CallingConvention.Cdecl)]
        static extern void plugin_stats(out ulong liveFrames, out ulong liveBlocks, out ulong started, out int runtimeAlive);

        [DllImport(Plugin, CallingConvention = CallingConvention.Cdecl)]
        static extern void plugin_detach();

        static readonly ulong[] frames = new ulong[16];
        static readonly ulong[] values = new ulong[16];

        static int Events()
        {
            return plugin_events(frames, values, frames.Length);
        }

        static async OnityTask<ulong> AwaitNative(OnityTask<ulong> t, List<string> log, OnityRuntime rt, string name, int owner)
        {
            try
            {
                ulong v = await t;
                log.Add(name + " " + v + " frame " + rt.Frame + (Thread.CurrentThread.ManagedThreadId == owner ? " owner" : " other"));
                return v;
            }
            catch (OperationCanceledException)
            {
                log.Add(name + " canceled");
                throw;
            }
        }

        static int LiveNativeTasks(OnityRuntime rt)
        {
            var live = new List<ulong>();
            return rt.GetNativeLiveTasks(live);
        }

        [Test]
        public void CppCoroutinesAndCSharpShareOneRuntime()
        {
            using (var h = new TestHost())
            {
                int owner = Thread.CurrentThread.ManagedThreadId;
                var log = new List<string>();
                Assert.Equal(0u, plugin_attach(h.Runtime.NativeRuntime), "plugin_attach");
                try
                {
                    h.RunFrame(); // frame 1
                    var sink = h.Runtime.CreateNativeCompletionSource();
                    var fromCpp = AwaitNative(sink.Task, log, h.Runtime, "coroutine", owner);
                    ulong fromCsharp;
                    Assert.Equal(0u, plugin_start(sink.Handle, out fromCsharp), "plugin_start");
                    Assert.Equal(0, Events(), "nothing yet");

                    // Frame 2, timing by timing: the first NextFrame resumes in Update, not before.
                    h.Begin();
                    for (int t = 0; t < 16; t++)
                    {
                        h.Runtime.Tick((OnityTiming)t);
                        Assert.Equal(t >= (int)OnityTiming.Update ? 1 : 0, Events(), "coroutine events after " + (OnityTiming)t);
                    }
                    h.RunFrame(); // 3
                    h.RunFrame(); // 4
                    Assert.Equal(3, Events(), "three NextFrames");
                    for (int i = 0; i < 3; i++)
                    {
                        Assert.Equal((ulong)(i + 2), frames[i], "NextFrame " + (i + 1) + " frame");
                        Assert.Equal((ulong)(i + 1), values[i], "NextFrame " + (i + 1));
                    }
                    h.RunFrame(); // 5: the coroutine waits for C#
                    Assert.Equal(3, Events(), "waiting for C#");
                    Assert.Equal(0, log.Count, "C# still waiting for the coroutine");

                    // Frame 6: C# completes the task on the owner thread: the coroutine resumes inside
                    // the call and finishes; C#'s await of it resumes at the next tick.
                    h.Begin();
                    Assert.Equal(OnityStatus.Ok, h.Runtime.NativeSetResult(fromCsharp, 41), "NativeSetResult");
                    Assert.Equal(4, Events(), "the coroutine resumed inside NativeSetResult");
                    Assert.Equal(41UL, values[3], "value C# sent");
                    Assert.Equal(6UL, frames[3], "frame it resumed in");
                    Assert.Equal(0, log.Count, "C# resumes at the next tick");
                    h.Runtime.Tick(OnityTiming.Initialization);
                    Assert.Equal("coroutine 42 frame 6 owner", string.Join(",", log.ToArray()));
                    for (int t = 1; t < 16; t++) h.Runtime.Tick((OnityTiming)t);
                    Assert.Equal(42UL, fromCpp.GetAwaiter().GetResult(), "the coroutine's value");

                    // A native thread the plugin starts completes a task that C# awaits and a C++
                    // coroutine waits on (its state: C# holds its one continuation).
                    var shared = h.Runtime.CreateNativeCompletionSource();
                    var csShared = AwaitNative(shared.Task, log, h.Runtime, "shared", owner);
                    Assert.Equal(0u, plugin_watch(shared.Handle), "plugin_watch");
                    Assert.Equal(0u, plugin_complete_later(shared.Handle, 777, 5), "plugin_complete_later");
                    plugin_join_thread(); // completed, off the owner, before frame 7
                    h.Begin(); // 7
                    h.Runtime.Tick(OnityTiming.Initialization);
                    Assert.Equal("coroutine 42 frame 6 owner,shared 777 frame 7 owner", string.Join(",", log.ToArray()));
                    Assert.Equal(4, Events(), "the C++ side waits for Update");
                    for (int t = 1; t <= (int)OnityTiming.Update; t++) h.Runtime.Tick((OnityTiming)t);
                    Assert.Equal(5, Events(), "the C++ coroutine saw it");
                    Assert.Equal(7UL, frames[4], "same frame");
                    Assert.Equal(1000UL, values[4], "watch event");
                    for (int t = (int)OnityTiming.Update + 1; t < 16; t++) h.Runtime.Tick((OnityTiming)t);
                    Assert.Equal(777UL, csShared.GetAwaiter().GetResult(), "shared value");

                    // Nothing left: no C++ frame, no native task but the layer's bell, no C# wait.
                    ulong liveFrames, liveBlocks, started;
                    int alive;
                    plugin_stats(out liveFrames, out liveBlocks, out started, out alive);
                    Assert.Equal(0UL, liveFrames, "C++ frames");
                    Assert.Equal(0UL, liveBlocks, "C++ pool blocks out");
                    Assert.Equal(2UL, started, "coroutines started");
                    Assert.Equal(1, alive, "runtime alive");
                    Assert.Equal(1, LiveNativeTasks(h.Runtime), "native tasks: the bell");
                    Assert.Equal(0, h.Runtime.PendingWaitCount, "C# waits");
                }
                finally
                {
                    plugin_detach();
                }
                Assert.Equal(0, LiveNativeTasks(h.Runtime), "native tasks after detach");
            }
        }

        [Test]
        public void DisposingTheRuntimeCancelsSuspendedCppCoroutines()
        {
            var log = new List<string>();
            OnityTask<ulong> fromCpp;
            var h = new TestHost();
            try
            {
                int owner = Thread.CurrentThread.ManagedThreadId;
                Assert.Equal(0u, plugin_attach(h.Runtime.NativeRuntime), "plugin_attach");
                h.RunFrame();
                var sink = h.Runtime.CreateNativeCompletionSource();
                fromCpp = AwaitNative(sink.Task, log, h.Runtime, "coroutine", owner);
                ulong fromCsharp;
                Assert.Equal(0u, plugin_start(sink.Handle, out fromCsharp), "plugin_start");
                h.RunFrame();
                Assert.Equal(1, Events(), "one NextFrame done");
            }
            finally
            {
                h.Dispose(); // destroys the runtime: the C++ coroutine finishes canceled, then C#'s await
            }
            try
            {
                Assert.Equal("coroutine canceled", string.Join(",", log.ToArray()));
                Assert.Throws<OperationCanceledException>(() => fromCpp.GetAwaiter().GetResult(), "C# sees the cancel");
                ulong liveFrames, liveBlocks, started;
                int alive;
                plugin_stats(out liveFrames, out liveBlocks, out started, out alive);
                Assert.Equal(0, alive, "runtime gone");
                Assert.Equal(0UL, liveFrames, "C++ frames");
                Assert.Equal(0UL, liveBlocks, "C++ pool blocks out");
                Assert.Equal(1, Events(), "the coroutine never resumed after the destruction");
            }
            finally
            {
                plugin_detach();
            }
        }
    }
}
