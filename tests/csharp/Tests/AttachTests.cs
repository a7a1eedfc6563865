using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using System.Threading;
using Onity.Native;

namespace Onity.Tests
{
    /// <summary>A runtime C owns (tests/csharp/native_helper.c: created, ticked or not, destroyed
    /// there) wrapped by C# with <see cref="OnityRuntime.Attach"/>, and native task handles awaited
    /// with <see cref="OnityRuntime.AwaitNative"/> / <see cref="OnityTask.FromNative"/>. The
    /// C#-owned case is CppCoroutineTests / NativeCompletionTests.</summary>
    public class AttachTests
    {
        const string Helper = "onity_test_helper";

        [DllImport(Helper, CallingConvention = CallingConvention.Cdecl)]
        static extern uint helper_owner_create(out IntPtr rt);

        [DllImport(Helper, CallingConvention = CallingConvention.Cdecl)]
        static extern uint helper_owner_frame(IntPtr rt, ulong frame);

        [DllImport(Helper, CallingConvention = CallingConvention.Cdecl)]
        static extern uint helper_owner_destroy(IntPtr rt);

        [DllImport(Helper, CallingConvention = CallingConvention.Cdecl)]
        static extern uint helper_task_create(IntPtr rt, out ulong task);

        [DllImport(Helper, CallingConvention = CallingConvention.Cdecl)]
        static extern uint helper_c_next_frame(IntPtr rt, out ulong task);

        [DllImport(Helper, CallingConvention = CallingConvention.Cdecl)]
        static extern uint helper_complete_now(IntPtr rt, ulong task, ulong value, int mode);

        [DllImport(Helper, CallingConvention = CallingConvention.Cdecl)]
        static extern int helper_complete_later(IntPtr rt, ulong task, ulong value, int mode, int delayMs);

        [DllImport(Helper, CallingConvention = CallingConvention.Cdecl)]
        static extern int helper_running();

        [DllImport(Helper, CallingConvention = CallingConvention.Cdecl)]
        static extern uint helper_live_tasks(IntPtr rt);

        [DllImport(Helper, CallingConvention = CallingConvention.Cdecl)]
        static extern uint helper_c_on_complete(IntPtr rt, ulong task);

        [DllImport(Helper, CallingConvention = CallingConvention.Cdecl)]
        static extern uint helper_c_begin(IntPtr rt, ulong frame);

        /// <summary>Attached (driving) after C began frames: C# takes the native side's frame and
        /// counts as it does, so a frame wait made before C#'s first BeginFrame is due when the
        /// native side's is (before ABI 1.7 C# counted from its own first frame).</summary>
        [Test]
        public void CSharpDrivingAfterCBeganFramesCountsAsTheNativeSide()
        {
            IntPtr raw = COwned();
            try
            {
                Assert.Equal(0u, helper_c_begin(raw, 50), "C's first frame");
                var rt = OnityRuntime.Attach(raw, true);
                using (var cts = new CancellationTokenSource())
                {
                    Assert.Equal(50UL, rt.Frame, "the native side's frame");
                    var direct = OnityTask.DelayFrame(2, OnityTiming.EarlyUpdate);
                    var core = OnityTask.DelayFrame(2, OnityTiming.Update, cts.Token);
                    for (ulong f = 51; f <= 53; f++)
                    {
                        rt.BeginFrame(f, 1.0 / 60, 1.0 / 60, f / 60.0);
                        rt.Tick(OnityTiming.EarlyUpdate);
                        rt.Tick(OnityTiming.Update);
                        Assert.Equal(f >= 52, core.Status == OnityTaskStatus.Succeeded, "native DelayFrame(2) at frame " + f);
                        Assert.Equal(f >= 52, direct.IsCompleted, "direct DelayFrame(2) at frame " + f);
                    }
                }
                rt.Dispose();
            }
            finally { Assert.Equal(0u, helper_owner_destroy(raw), "C destroys its runtime"); }
        }

        static IntPtr COwned()
        {
            TestHost.Cleanup();
            IntPtr raw;
            Assert.Equal(0u, helper_owner_create(out raw), "helper_owner_create");
            return raw;
        }

        static ulong NewTask(IntPtr raw)
        {
            ulong h;
            Assert.Equal(0u, helper_task_create(raw, out h), "helper_task_create");
            return h;
        }

        static async OnityTask<ulong> Logged(OnityTask<ulong> t, List<string> log, string name)
        {
            try
            {
                ulong v = await t;
                log.Add(name + " " + v);
                return v;
            }
            catch (OnityException e)
            {
                log.Add(name + " error " + e.ErrorCode);
                throw;
            }
            catch (OperationCanceledException)
            {
                log.Add(name + " canceled");
                throw;
            }
        }

        static string Sorted(List<string> log)
        {
            var a = log.ToArray();
            Array.Sort(a, StringComparer.Ordinal);
            return string.Join(",", a);
        }

        [Test]
        public void CSharpAwaitsTasksOfARuntimeCOwnsAndTicks()
        {
            IntPtr raw = COwned();
            var rt = OnityRuntime.Attach(raw, false);
            var log = new List<string>();
            try
            {
                Assert.False(rt.OwnsNative, "not owned");
                Assert.False(rt.Drives, "not driven by C#");
                Assert.True(OnityRuntime.Current == rt, "current");
                Assert.Equal(raw, rt.NativeRuntime, "same native runtime");
                Assert.Throws<InvalidOperationException>(() => rt.BeginFrame(1, 0.1, 0.1, 0.1), "BeginFrame");
                Assert.Throws<InvalidOperationException>(() => rt.Tick(OnityTiming.Update), "Tick");
                Assert.Throws<InvalidOperationException>(() => OnityRuntime.Attach(raw, true), "wrapped twice");
                Assert.Equal(0u, helper_owner_frame(raw, 1), "C frame 1");

                ulong value = NewTask(raw), error = NewTask(raw), cancel = NewTask(raw), thread = NewTask(raw);
                ulong next;
                Assert.Equal(0u, helper_c_next_frame(raw, out next), "C NextFrame");
                var tv = Logged(rt.AwaitNative(value), log, "value");
                var te = Logged(OnityTask.FromNative(error), log, "error");
                var tc = Logged(rt.AwaitNative(cancel), log, "cancel");
                var tt = Logged(OnityTask.FromNative(thread), log, "thread");
                var tn = Logged(rt.AwaitNative(next), log, "next");

                Assert.Equal(0u, helper_complete_now(raw, value, 5, 0), "C set_result");
                Assert.Equal(0u, helper_complete_now(raw, error, 7, 1), "C set_error");
                Assert.Equal(0u, helper_complete_now(raw, cancel, 0, 2), "C cancel");
                Assert.Equal(0, helper_complete_later(raw, thread, 9, 0, 5), "native thread");
                var deadline = DateTime.UtcNow.AddSeconds(10);
                while (helper_running() != 0 && DateTime.UtcNow < deadline) Thread.Sleep(1);
                Assert.Equal(0, log.Count, "C# continuations run at its Drain");
                rt.Drain();
                Assert.Equal("cancel canceled,error error 7,thread 9,value 5", Sorted(log));
                Assert.Equal(5UL, tv.GetAwaiter().GetResult(), "value");
                Assert.Equal(7, Assert.Throws<OnityException>(() => te.GetAwaiter().GetResult(), "error").ErrorCode, "error code");
                Assert.Throws<OperationCanceledException>(() => tc.GetAwaiter().GetResult(), "canceled");
                Assert.Equal(9UL, tt.GetAwaiter().GetResult(), "thread");

                // The C wait resumes at C's Update of frame 2, C# at its next Drain.
                Assert.Equal(0u, helper_owner_frame(raw, 2), "C frame 2");
                Assert.Equal(OnityTaskStatus.Pending, tn.Status, "not before the Drain");
                rt.Drain();
                Assert.Equal(OnityTaskStatus.Succeeded, tn.Status, "NextFrame");

                // Bad handles: at once.
                Assert.Equal(OnityStatus.InvalidHandle, Assert.Throws<OnityException>(() => rt.AwaitNative(0), "handle 0").Status, "handle 0");
                Assert.Equal(OnityStatus.StaleHandle, Assert.Throws<OnityException>(() => rt.AwaitNative(value), "consumed handle").Status, "consumed");

                // A handle C already awaits: the await faults with AlreadyAwaited (at the Drain that
                // files it); C's continuation keeps it.
                ulong cs = NewTask(raw);
                Assert.Equal(0u, helper_c_on_complete(raw, cs), "C awaits it");
                var twice = rt.AwaitNative(cs);
                rt.Drain();
                Assert.Equal(OnityStatus.AlreadyAwaited, Assert.Throws<OnityException>(() => twice.GetAwaiter().GetResult(), "awaited twice").Status, "status");
                Assert.Equal(0u, helper_complete_now(raw, cs, 1, 0), "C completes it; its continuation consumes it");

                // Still awaited at Dispose: canceled and consumed; the runtime is C's.
                var left = Logged(rt.AwaitNative(NewTask(raw)), log, "left");
                Assert.Equal(1u, helper_live_tasks(raw), "one task left, awaited by C#");
                rt.Dispose();
                Assert.Throws<OperationCanceledException>(() => left.GetAwaiter().GetResult(), "left canceled");
                Assert.True(OnityRuntime.Current == null, "no current runtime");
                Assert.Equal(0u, helper_live_tasks(raw), "C# consumed every handle it took");
                Assert.Equal(0u, helper_owner_frame(raw, 3), "C ticks on after C#'s Dispose");
            }
            finally
            {
                if (!rt.IsDisposed) rt.Dispose();
                Assert.Equal(0u, helper_owner_destroy(raw), "C destroys its runtime (C# did not)");
            }
        }

        static async OnityTask<string> FramesThenNative(OnityRuntime rt, ulong handle)
        {
            await OnityTask.NextFrame();
            ulong f = rt.Frame;
            ulong v = await OnityTask.FromNative(handle);
            return f + ":" + v + ":" + rt.Frame;
        }

        [Test]
        public void CSharpDrivesARuntimeCOwns()
        {
            IntPtr raw = COwned();
            try
            {
                for (int round = 0; round < 2; round++) // attach again after a Dispose
                {
                    var rt = OnityRuntime.Attach(raw, true);
                    ulong f0 = (ulong)round * 10;
                    Assert.True(rt.Drives && !rt.OwnsNative, "driven by C#, owned by C");
                    rt.BeginFrame(f0 + 1, 1.0 / 60, 1.0 / 60, 0.1);
                    for (int t = 0; t < 16; t++) rt.Tick((OnityTiming)t);
                    ulong handle = NewTask(raw);
                    var r = FramesThenNative(rt, handle);
                    rt.BeginFrame(f0 + 2, 1.0 / 60, 1.0 / 60, 0.2);
                    for (int t = 0; t < 16; t++) rt.Tick((OnityTiming)t);
                    Assert.Equal(0u, helper_complete_now(raw, handle, 42, 0), "C completes");
                    Assert.Equal(OnityTaskStatus.Pending, r.Status, "resumes at C#'s next tick");
                    rt.BeginFrame(f0 + 3, 1.0 / 60, 1.0 / 60, 0.3);
                    rt.Tick(OnityTiming.Initialization);
                    Assert.Equal((f0 + 2) + ":42:" + (f0 + 3), r.GetAwaiter().GetResult(), "NextFrame, then the native task");
                    rt.Dispose();
                    Assert.Equal(0u, helper_live_tasks(raw), "nothing left");
                }
            }
            finally { Assert.Equal(0u, helper_owner_destroy(raw), "C destroys its runtime"); }
        }

        [Test]
        public void AttachMisuse()
        {
            TestHost.Cleanup();
            Assert.Throws<ArgumentNullException>(() => OnityRuntime.Attach(IntPtr.Zero, true), "null");
            using (var h = new TestHost())
            {
                // Not a runtime: the native side checks the pointer against its live runtimes.
                var local = new byte[64];
                var pin = GCHandle.Alloc(local, GCHandleType.Pinned);
                try
                {
                    var e = Assert.Throws<OnityException>(() => OnityRuntime.Attach(pin.AddrOfPinnedObject(), true), "not a runtime");
                    Assert.Equal(OnityStatus.InvalidRuntime, e.Status, "status");
                }
                finally { pin.Free(); }
                Assert.True(OnityRuntime.Current == h.Runtime, "the failed attach changed nothing");
                Assert.True(h.Runtime.OwnsNative && h.Runtime.Drives, "a created runtime owns and drives");
            }
            IntPtr raw = COwned();
            try
            {
                Exception seen = null;
                var th = new Thread(() =>
                {
                    try { OnityRuntime.Attach(raw, true).Dispose(); }
                    catch (Exception ex) { seen = ex; }
                });
                th.Start();
                th.Join();
                Assert.True(seen is OnityException && ((OnityException)seen).Status == OnityStatus.WrongThread, "another thread: " + seen);
                Assert.True(OnityRuntime.Current == null, "nothing left live");
            }
            finally { Assert.Equal(0u, helper_owner_destroy(raw), "destroy"); }
        }

        static bool stop;
        static ulong nextHandle;
        static ulong total;
        static object sink;

        static async OnityTask NativeLoop(OnityRuntime rt, bool allocate)
        {
            while (!stop)
            {
                total += await rt.AwaitNative(nextHandle);
                if (allocate) sink = new object[4];
            }
        }

        /// <summary>Bytes allocated on this thread by <paramref name="measured"/> awaits of C task
        /// handles (C completes each, C# drains), after a warm-up.</summary>
        static long AwaitBytes(bool allocate, int warm, int measured)
        {
            IntPtr raw = COwned();
            var rt = OnityRuntime.Attach(raw, false);
            try
            {
                stop = false;
                total = 0;
                nextHandle = NewTask(raw);
                var loop = NativeLoop(rt, allocate);
                long b0 = 0;
                for (int i = 0; i < warm + measured; i++)
                {
                    if (i == warm) b0 = GC.GetAllocatedBytesForCurrentThread();
                    ulong h = nextHandle;
                    helper_task_create(raw, out nextHandle);
                    helper_complete_now(raw, h, 1, 0);
                    rt.Drain();
                }
                long d = GC.GetAllocatedBytesForCurrentThread() - b0;
                stop = true;
                helper_complete_now(raw, nextHandle, 1, 0);
                rt.Drain();
                loop.GetAwaiter().GetResult();
                Assert.Equal((ulong)(warm + measured + 1), total, "every await completed");
                rt.Dispose();
                Assert.Equal(0u, helper_live_tasks(raw), "every handle consumed");
                return d;
            }
            finally
            {
                if (!rt.IsDisposed) rt.Dispose();
                Assert.Equal(0u, helper_owner_destroy(raw), "destroy");
            }
        }

        [Test]
        public void AwaitingNativeHandlesAllocatesNothingAfterWarmUp()
        {
            long control = AwaitBytes(true, 200, 1000);
            Assert.True(control >= 1000 * 32, "control: the measurement sees the loop's allocations (" + control + " bytes)");
            long d = AwaitBytes(false, 200, 1000);
            Assert.Equal(0L, d, "GC bytes for 1000 awaits of native handles");
        }
    }
}
