using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using System.Threading;
using Onity.Native;

namespace Onity.Tests
{
    public class NativeCompletionTests
    {
        const string Helper = "onity_test_helper";

        [DllImport(Helper, CallingConvention = CallingConvention.Cdecl)]
        static extern int helper_complete_later(IntPtr rt, ulong task, ulong value, int mode, int delayMs);

        [DllImport(Helper, CallingConvention = CallingConvention.Cdecl)]
        static extern int helper_running();

        [DllImport(Helper, CallingConvention = CallingConvention.Cdecl)]
        static extern uint helper_last_status();

        static async OnityTask<ulong> AwaitNative(OnityTask<ulong> t, List<string> log, int owner)
        {
            try
            {
                ulong v = await t;
                log.Add("value " + v + (Thread.CurrentThread.ManagedThreadId == owner ? " on owner" : " on another thread"));
                return v;
            }
            catch (OnityException e)
            {
                log.Add("error " + e.ErrorCode);
                throw;
            }
            catch (OperationCanceledException)
            {
                log.Add("canceled");
                throw;
            }
        }

        static void WaitHelpers()
        {
            var deadline = DateTime.UtcNow.AddSeconds(10);
            while (helper_running() != 0 && DateTime.UtcNow < deadline) Thread.Sleep(1);
            Assert.Equal(0, helper_running(), "helper threads finished");
        }

        [Test]
        public void NativeThreadCompletesATaskAndTheContinuationRunsOnTheOwner()
        {
            using (var h = new TestHost())
            {
                int owner = Thread.CurrentThread.ManagedThreadId;
                var log = new List<string>();
                h.RunFrame(OnityTiming.Update);
                var src = h.Runtime.CreateNativeCompletionSource();
                var t = AwaitNative(src.Task, log, owner);
                Assert.Equal(0, helper_complete_later(h.Runtime.NativeRuntime, src.Handle, 0xDEADBEEFUL, 0, 20), "thread started");
                WaitHelpers();
                Assert.Equal((uint)OnityStatus.Ok, helper_last_status(), "native set_result status");
                Assert.Equal(0, log.Count, "nothing runs before the owner ticks");
                h.RunFrame(OnityTiming.Update);
                Assert.Equal("value " + 0xDEADBEEFUL + " on owner", string.Join(",", log));
                Assert.Equal(0xDEADBEEFUL, t.GetAwaiter().GetResult());
                var live = new List<ulong>();
                h.Runtime.GetNativeLiveTasks(live);
                Assert.False(live.Contains(src.Handle), "native task consumed");
            }
        }

        [Test]
        public void NativeErrorAndCancelAndDrain()
        {
            using (var h = new TestHost())
            {
                int owner = Thread.CurrentThread.ManagedThreadId;
                var log = new List<string>();
                h.RunFrame(OnityTiming.Update);
                var e = h.Runtime.CreateNativeCompletionSource();
                var c = h.Runtime.CreateNativeCompletionSource();
                var te = AwaitNative(e.Task, log, owner);
                var tc = AwaitNative(c.Task, log, owner);
                helper_complete_later(h.Runtime.NativeRuntime, e.Handle, 77, 1, 5);
                helper_complete_later(h.Runtime.NativeRuntime, c.Handle, 0, 2, 10);
                WaitHelpers();
                h.Runtime.Drain();
                log.Sort();
                Assert.Equal("canceled,error 77", string.Join(",", log));
                var ex = Assert.Throws<OnityException>(() => te.GetAwaiter().GetResult());
                Assert.Equal(77, ex.ErrorCode);
                Assert.Throws<OperationCanceledException>(() => tc.GetAwaiter().GetResult());
            }
        }

        [Test]
        public void ManyNativeCompletionsWhileFramesRun()
        {
            using (var h = new TestHost())
            {
                int owner = Thread.CurrentThread.ManagedThreadId;
                var log = new List<string>();
                h.RunFrame(OnityTiming.Update);
                var tasks = new List<OnityTask<ulong>>();
                for (int i = 0; i < 64; i++)
                {
                    var s = h.Runtime.CreateNativeCompletionSource();
                    tasks.Add(AwaitNative(s.Task, log, owner));
                    helper_complete_later(h.Runtime.NativeRuntime, s.Handle, (ulong)i, 0, i % 7);
                }
                var deadline = DateTime.UtcNow.AddSeconds(10);
                while (log.Count < 64 && DateTime.UtcNow < deadline) { h.RunFrame(OnityTiming.Update); Thread.Sleep(1); }
                WaitHelpers();
                h.RunFrame(OnityTiming.Update);
                Assert.Equal(64, log.Count);
                ulong sum = 0;
                foreach (var t in tasks) sum += t.GetAwaiter().GetResult();
                Assert.Equal(64UL * 63 / 2, sum);
                foreach (var l in log) Assert.Contains("on owner", l);
            }
        }

        [Test]
        public void NativeCompletionsRacingDisposeGetAStatusNeverFreedMemory()
        {
            // A worker completing native tasks while the owner disposes (the game quits): each call
            // either reaches the live runtime (Ok, AlreadyCompleted) or gets InvalidRuntime; Dispose
            // waits for calls in flight before it destroys the native runtime (it used to free it
            // under them: a second reader's finding, SIGSEGV with MALLOC_PERTURB_).
            var unexpected = new List<string>();
            for (int it = 0; it < 150; it++)
            {
                var h = new TestHost();
                h.RunFrame(OnityTiming.Update);
                var srcs = new OnityNativeCompletionSource[64];
                for (int i = 0; i < srcs.Length; i++) { srcs[i] = h.Runtime.CreateNativeCompletionSource(); srcs[i].Task.Forget(); }
                var rt = h.Runtime;
                var started = new ManualResetEventSlim();
                bool sawEnd = false;
                var w = new Thread(() =>
                {
                    started.Set();
                    for (int k = 0; k < 1000000; k++)
                    {
                        var st = rt.NativeSetResult(srcs[k & 63].Handle, (ulong)k);
                        if (st == OnityStatus.InvalidRuntime) { sawEnd = true; break; }
                        if (st != OnityStatus.Ok && st != OnityStatus.AlreadyCompleted)
                        {
                            lock (unexpected) unexpected.Add(st.ToString());
                            break;
                        }
                    }
                });
                w.Start();
                started.Wait();
                Thread.SpinWait(it * 37 % 3000);
                h.Dispose();
                w.Join();
                Assert.True(sawEnd, "the worker saw the disposal as InvalidRuntime (iteration " + it + ")");
            }
            Assert.Equal(0, unexpected.Count, "unexpected statuses: " + string.Join(", ", unexpected));
        }

        [Test]
        public void CompletingANativeTaskOnTheOwnerThreadResumesAtTheNextTick()
        {
            using (var h = new TestHost())
            {
                var log = new List<string>();
                h.RunFrame(OnityTiming.Update);
                var s = h.Runtime.CreateNativeCompletionSource();
                var t = AwaitNative(s.Task, log, Thread.CurrentThread.ManagedThreadId);
                h.Runtime.Tick(OnityTiming.LastUpdate); // files the record
                Assert.Equal(OnityStatus.Ok, h.Runtime.NativeSetResult(s.Handle, 5));
                Assert.Equal(OnityStatus.AlreadyCompleted, h.Runtime.NativeSetResult(s.Handle, 6));
                h.Runtime.Drain();
                Assert.Equal(5UL, t.GetAwaiter().GetResult());
            }
        }
    }
}
