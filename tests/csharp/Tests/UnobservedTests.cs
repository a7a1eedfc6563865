using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Threading;

namespace Onity.Tests
{
    /// <summary>A faulted task dropped without being awaited or forgotten is reported to
    /// OnityTask.UnobservedTaskException once collected (UniTask's ExceptionUnobserved1/2 tests,
    /// rewritten here: GC.Collect + WaitForPendingFinalizers, then a frame).</summary>
    public class UnobservedTests
    {
        sealed class MyException : Exception
        {
            public MyException(string m) : base(m) { }
        }

        static async OnityTask InException1()
        {
            await OnityTask.Yield();
            throw new MyException("MyException");
        }

        static async OnityTask<int> InException2()
        {
            await OnityTask.Yield();
            throw new MyException("MyException");
        }

#pragma warning disable 1998
        static async OnityTask<int> ThrowsAtOnce() { throw new MyException("at once"); }
#pragma warning restore 1998

        // Mono scans stacks conservatively: a task dropped in the test method could stay reachable
        // from a stale stack slot. So tasks are dropped on a thread that then ends, or (async
        // methods, created on the owner as UniTask's test does) from a continuation the owner runs.
        static void OnOtherThread(Action a)
        {
            var th = new Thread(() => a());
            th.Start();
            th.Join();
        }

        static void Drop(Func<OnityTask> make) { OnOtherThread(() => make()); }
        static void DropTyped(Func<OnityTask<int>> make) { OnOtherThread(() => make()); }

        static void DropOnOwner(TestHost h, Func<OnityTask> make)
        {
            h.Runtime.Post(() => make());
            h.RunFrame(OnityTiming.Initialization); // runs it (and not Update yet)
        }

        /// <summary>Zeroes the stack below the caller. Mono scans stacks conservatively, the
        /// collector's own native frames included: a stale slot there (left by the continuation
        /// that dropped a task) keeps the task alive. A crossing into the native tick used to
        /// overwrite that region by chance; with idle ticks skipped, no call may happen.</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        static unsafe void ScrubStack()
        {
            const int n = 64 * 1024;
            byte* p = stackalloc byte[n];
            for (int i = 0; i < n; i += 8) *(long*)(p + i) = 0;
        }

        /// <summary>Runs frames, collecting between them, until a report arrives (at most 20 rounds:
        /// Mono scans stacks conservatively, so a dropped object may survive a collection or two).</summary>
        static int CollectUntilReported(TestHost h, int expected)
        {
            for (int i = 0; i < 20; i++)
            {
                ScrubStack();
                GC.Collect();
                GC.WaitForPendingFinalizers();
                GC.Collect();
                h.RunFrame();
                lock (h.Unobserved) if (h.Unobserved.Count >= expected) break;
            }
            lock (h.Unobserved) return h.Unobserved.Count;
        }

        [Test]
        public void ADroppedFaultedAsyncMethodIsReportedOnceCollected()
        {
            foreach (bool typed in new[] { false, true })
            {
                using (var h = new TestHost())
                {
                    int reporterThread = 0;
                    Action<Exception> onEvent = e => reporterThread = Thread.CurrentThread.ManagedThreadId;
                    OnityTask.UnobservedTaskException += onEvent;
                    try
                    {
                        if (typed) DropOnOwner(h, () => InException2());
                        else DropOnOwner(h, InException1);
                        for (int f = 0; f < 3; f++) h.RunFrame(); // it faults at the first Update
                        Assert.Equal(0, h.Unobserved.Count, "not before it is collected");
                        Assert.Equal(1, CollectUntilReported(h, 1), "reported once (" + (typed ? "typed" : "untyped") + ")");
                        Assert.True(h.Unobserved[0] is MyException && h.Unobserved[0].Message == "MyException", "the method's exception");
                        Assert.Equal(Thread.CurrentThread.ManagedThreadId, reporterThread, "raised on the owner thread (at a tick)");
                        for (int i = 0; i < 3; i++) { GC.Collect(); GC.WaitForPendingFinalizers(); h.RunFrame(); }
                        Assert.Equal(1, h.Unobserved.Count, "once");
                    }
                    finally { OnityTask.UnobservedTaskException -= onEvent; }
                }
            }
        }

        [Test]
        public void DroppedFaultsOfSourcesAndFromExceptionAreReportedButNotCancellations()
        {
            using (var h = new TestHost())
            {
                DropTyped(ThrowsAtOnce);                  // faulted before suspending: FromException
                DropTyped(() => OnityTask.FromException<int>(new MyException("from exception")));
                Drop(() => OnityTask.FromCanceled());      // canceled: never reported
                DropSource(new MyException("auto reset"), false);
                DropSource(new MyException("plain"), true);
                DropSource(new OperationCanceledException(), false);
                Assert.Equal(4, CollectUntilReported(h, 4), "four faults reported");
                for (int i = 0; i < 3; i++) { GC.Collect(); GC.WaitForPendingFinalizers(); h.RunFrame(); }
                var messages = new List<string>();
                foreach (var e in h.Unobserved) messages.Add(e.Message);
                messages.Sort(StringComparer.Ordinal);
                Assert.Equal("at once,auto reset,from exception,plain", string.Join(",", messages), "each fault once, no cancellation");
            }
        }

        static void DropSource(Exception ex, bool plain) { OnOtherThread(() => MakeFaultedSource(ex, plain)); }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void MakeFaultedSource(Exception ex, bool plain)
        {
            if (plain)
            {
                var s = new OnityCompletionSource<int>();
                s.TrySetException(ex);
            }
            else
            {
                var s = AutoResetOnityCompletionSource<int>.Create();
                s.TrySetException(ex);
            }
        }

        [Test]
        public void ObservedFaultsAreNeverReportedAndForgottenOnesOnlyOnce()
        {
            using (var h = new TestHost())
            {
                for (int i = 0; i < 50; i++)
                {
                    var t = InException2();
                    var u = ThrowsAtOnce();
                    var plain = new OnityCompletionSource<int>();
                    plain.TrySetException(new MyException("plain observed"));
                    h.RunFrame();
                    Assert.Throws<MyException>(() => t.GetAwaiter().GetResult());
                    Assert.Throws<MyException>(() => u.GetAwaiter().GetResult());
                    Assert.Throws<MyException>(() => plain.Task.GetAwaiter().GetResult());
                }
                Assert.Equal(0, CollectUntilReported(h, 1), "awaited faults are observed");
                h.Runtime.Post(() => InException1().Forget());
                h.RunFrame();
                Assert.Equal(1, h.Unobserved.Count, "Forget reports at the fault");
                Assert.Equal(1, CollectUntilReported(h, 2), "and the collector does not report it again");
            }
        }

        [Test]
        public void WithoutALiveRuntimeTheReportGoesToNoRuntimeContextOrTheFinalizerThread()
        {
            var seen = new List<Exception>();
            Action<Exception> onEvent = e => { lock (seen) if (e.Message == "no runtime") seen.Add(e); };
            OnityTask.UnobservedTaskException += onEvent;
            try
            {
                var h = new TestHost();
                h.Dispose();
                DropTyped(() => OnityTask.FromException<int>(new MyException("no runtime")));
                for (int i = 0; i < 20; i++)
                {
                    GC.Collect();
                    GC.WaitForPendingFinalizers();
                    lock (seen) if (seen.Count > 0) break;
                }
                lock (seen)
                {
                    Assert.Equal(1, seen.Count, "reported without a runtime");
                    Assert.Equal("no runtime", seen[0].Message);
                }
            }
            finally { OnityTask.UnobservedTaskException -= onEvent; }
        }
    }
}
