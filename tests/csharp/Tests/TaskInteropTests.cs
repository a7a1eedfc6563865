using System;
using System.Threading;
using System.Threading.Tasks;
using System.Threading.Tasks.Sources;

namespace Onity.Tests
{
    /// <summary>Task / ValueTask to and from OnityTask, and RunOnThreadPool.</summary>
    public class TaskInteropTests
    {
        static long Bytes() { return GC.GetAllocatedBytesForCurrentThread(); }

        [Test]
        public void AsTaskAndAsValueTaskCarryEveryOutcome()
        {
            using (var h = new TestHost())
            {
                Assert.True(OnityTask.CompletedTask.AsTask().IsCompleted, "completed");
                Assert.Equal(3, OnityTask.FromResult(3).AsTask().Result, "result");
                Assert.True(OnityTask.FromCanceled().AsTask().IsCanceled, "canceled");
                Assert.True(OnityTask.FromException(new FormatException()).AsTask().Exception.InnerException is FormatException, "faulted");

                var src = AutoResetOnityCompletionSource<int>.Create();
                var task = src.Task.AsTask();
                Assert.False(task.IsCompleted, "pending");
                src.TrySetResult(9);
                Assert.Equal(9, task.Result, "completed by the source");

                var frame = OnityTask.NextFrame().ToOnityTask().AsValueTask();
                Assert.False(frame.IsCompleted, "a pending wait");
                h.RunFrame();
                Assert.True(frame.IsCompletedSuccessfully, "done at the next frame");
                frame.GetAwaiter().GetResult();

                var c = AutoResetOnityCompletionSource.Create();
                var vt = c.Task.AsValueTask();
                c.TrySetCanceled();
                Assert.True(vt.IsCanceled, "canceled ValueTask");
                Assert.Throws<OperationCanceledException>(() => vt.GetAwaiter().GetResult(), "throws canceled");
                Assert.Throws<InvalidOperationException>(() => vt.GetAwaiter().GetResult(), "a consumed ValueTask's token is stale");

                Assert.Equal(4, OnityTask.FromResult(4).AsValueTask().Result, "completed typed: no source");
            }
        }

        static async Task<int> AwaitValueTaskInATaskMethod(ValueTask<int> vt) { return await vt + 1; }

        [Test]
        public void AValueTaskAwaitedByAnAsyncTaskMethodResumesOnTheOwnerThread()
        {
            using (var h = new TestHost())
            {
                var src = AutoResetOnityCompletionSource<int>.Create();
                int owner = Thread.CurrentThread.ManagedThreadId, ranOn = 0;
                var t = AwaitValueTaskInATaskMethod(src.Task.AsValueTask()).ContinueWith(x => { ranOn = Thread.CurrentThread.ManagedThreadId; return x.Result; }, TaskContinuationOptions.ExecuteSynchronously);
                var worker = new Thread(() => src.TrySetResult(41));
                worker.Start();
                worker.Join();
                Assert.False(t.IsCompleted, "a completion on a worker waits for the owner's next tick");
                h.Runtime.Drain();
                Assert.Equal(42, t.Result, "result");
                Assert.Equal(owner, ranOn, "resumed on the owner thread");
            }
        }

        [Test]
        public void AsValueTaskAllocatesNothingAfterWarmUp()
        {
            // A fresh thread: an AsyncLocal value left on the test thread by another test would make
            // every suspension capture the context (context flow's cost, not the measured path's).
            FreshThread.Run(() =>
            {
                using (var h = new TestHost())
                {
                    var srcs = new AutoResetOnityCompletionSource<int>[64];
                    var vts = new ValueTask<int>[64];
                    long b0 = 0, sum = 0;
                    for (int round = 0; round < 300; round++)
                    {
                        if (round == 100) b0 = Bytes();
                        for (int i = 0; i < 64; i++) { srcs[i] = AutoResetOnityCompletionSource<int>.Create(); vts[i] = srcs[i].Task.AsValueTask(); }
                        for (int i = 0; i < 64; i++) srcs[i].TrySetResult(1);
                        for (int i = 0; i < 64; i++) sum += vts[i].Result;
                    }
                    Assert.Equal(0L, Bytes() - b0, "bytes over 12,800 conversions");
                    Assert.Equal(300L * 64, sum, "all completed");
                    b0 = Bytes();
                    sum += srcs[0].Task.AsTask().IsCompleted ? 0 : 1; // control: AsTask allocates
                    Assert.True(Bytes() - b0 > 0, "the measurement sees AsTask's allocation");
                }
            });
        }

        [Test]
        public void TaskAsOnityTaskResumesOnTheOwnerThreadAtItsNextTick()
        {
            using (var h = new TestHost())
            {
                Assert.Equal(OnityTaskStatus.Succeeded, Task.CompletedTask.AsOnityTask().Status, "completed Task");
                Assert.Equal(5, Task.FromResult(5).AsOnityTask().GetAwaiter().GetResult(), "completed Task<T>");
                Assert.Throws<FormatException>(() => Task.FromException(new FormatException()).AsOnityTask().GetAwaiter().GetResult(), "faulted");
                Assert.Throws<OperationCanceledException>(() => Task.FromCanceled<int>(new CancellationToken(true)).AsOnityTask().GetAwaiter().GetResult(), "canceled");

                var tcs = new TaskCompletionSource<int>();
                var t = tcs.Task.AsOnityTask();
                int ranOn = 0;
                t.GetAwaiter().UnsafeOnCompleted(() => ranOn = Thread.CurrentThread.ManagedThreadId);
                var worker = new Thread(() => tcs.SetResult(8));
                worker.Start();
                worker.Join();
                Thread.Sleep(20);
                Assert.Equal(0, ranOn, "not resumed on the worker");
                h.RunFrame(OnityTiming.Update);
                Assert.Equal(Thread.CurrentThread.ManagedThreadId, ranOn, "resumed on the owner at its tick");
                Assert.Equal(8, t.GetAwaiter().GetResult(), "result");

                var failing = new TaskCompletionSource<int>();
                var f = failing.Task.AsOnityTask();
                failing.SetException(new TimeoutException());
                h.RunFrame(OnityTiming.Update);
                Assert.Throws<TimeoutException>(() => f.GetAwaiter().GetResult(), "the Task's exception");
                var canceling = new TaskCompletionSource<bool>();
                OnityTask u = ((Task)canceling.Task).AsOnityTask();
                canceling.SetCanceled();
                h.RunFrame(OnityTiming.Update);
                Assert.Equal(OnityTaskStatus.Canceled, u.Status, "canceled Task");
                Assert.Throws<OperationCanceledException>(() => u.GetAwaiter().GetResult(), "canceled");
            }
        }

        /// <summary>A minimal reusable IValueTaskSource (as a library's pooled source would be).</summary>
        sealed class ManualSource : IValueTaskSource<int>
        {
            ManualResetValueTaskSourceCore<int> core;
            public short Version { get { return core.Version; } }
            public void Reset() { core.Reset(); }
            public void Set(int v) { core.SetResult(v); }
            public int GetResult(short token) { return core.GetResult(token); }
            public ValueTaskSourceStatus GetStatus(short token) { return core.GetStatus(token); }
            public void OnCompleted(Action<object> c, object s, short token, ValueTaskSourceOnCompletedFlags f) { core.OnCompleted(c, s, token, f); }
        }

        [Test]
        public void AValueTaskOverAnIValueTaskSourceConvertsWithoutAllocating()
        {
            // A fresh thread: an AsyncLocal value left on the test thread by another test would make
            // every suspension capture the context (context flow's cost, not the measured path's).
            FreshThread.Run(() =>
            {
                using (var h = new TestHost())
                {
                    var src = new ManualSource();
                    long b0 = 0, sum = 0;
                    for (int i = 0; i < 3000; i++)
                    {
                        if (i == 1000) b0 = Bytes();
                        src.Reset();
                        var t = new ValueTask<int>(src, src.Version).AsOnityTask();
                        src.Set(2);
                        h.Runtime.Drain(); // ManualResetValueTaskSourceCore may run the continuation inline
                        sum += t.GetAwaiter().GetResult();
                    }
                    Assert.Equal(0L, Bytes() - b0, "bytes over 2,000 conversions");
                    Assert.Equal(6000L, sum, "results");
                    Assert.Equal(OnityTaskStatus.Succeeded, new ValueTask(Task.CompletedTask).AsOnityTask().Status, "completed untyped ValueTask");
                }
            });
        }

        [Test]
        public void RunOnThreadPoolRunsOnAWorkerAndReturnsToTheOwnerThread()
        {
            using (var h = new TestHost())
            {
                int owner = Thread.CurrentThread.ManagedThreadId, workedOn = 0, resumedOn = 0;
                var t = OnityTask.RunOnThreadPool(() => { workedOn = Thread.CurrentThread.ManagedThreadId; return 6; });
                t.GetAwaiter().UnsafeOnCompleted(() => resumedOn = Thread.CurrentThread.ManagedThreadId);
                SpinUntil(() => workedOn != 0);
                Thread.Sleep(20);
                Assert.True(workedOn != owner, "ran on a thread-pool thread");
                Assert.Equal(0, resumedOn, "waits for the owner's next tick");
                h.Runtime.Drain();
                Assert.Equal(owner, resumedOn, "continued on the owner thread");
                Assert.Equal(6, t.GetAwaiter().GetResult(), "result");

                var boom = OnityTask.RunOnThreadPool(() => { throw new FormatException("x"); });
                SpinUntilDrained(h, boom);
                Assert.Throws<FormatException>(() => boom.GetAwaiter().GetResult(), "the delegate's exception, after the switch back");

                bool ran = false;
                var canceled = OnityTask.RunOnThreadPool(() => { ran = true; }, true, new CancellationToken(true));
                Assert.Equal(OnityTaskStatus.Canceled, canceled.Status, "an already canceled token: canceled, not run");
                Assert.False(ran, "not run");

                int noReturnOn = 0;
                var noReturn = OnityTask.RunOnThreadPool(() => { }, false);
                noReturn.GetAwaiter().UnsafeOnCompleted(() => noReturnOn = Thread.CurrentThread.ManagedThreadId);
                SpinUntilDrained(h, noReturn);
                Assert.Equal(owner, noReturnOn, "configureAwait false: the continuation still reaches the owner thread (posted)");

                var nested = OnityTask.RunOnThreadPool(NestedAsync);
                SpinUntilDrained(h, nested);
                Assert.Equal(11, nested.GetAwaiter().GetResult(), "a Func<OnityTask<T>> is awaited");
            }
        }

        [Test]
        public void ATaskFaultedWithTwoExceptionsThrowsTheFirstOnBothPaths()
        {
            // UniTask's rule: awaiting the converted task throws the first inner exception, whether
            // the Task had already faulted or faults after the conversion (typed and untyped).
            using (var h = new TestHost())
            {
                var first = new FormatException("first");
                var second = new InvalidCastException("second");
                var errors = new Exception[] { first, second };
                var faulted = new TaskCompletionSource<int>();
                faulted.SetException(errors);
                Assert.Equal(2, faulted.Task.Exception.InnerExceptions.Count, "the Task holds both");

                var untypedDone = ((Task)faulted.Task).AsOnityTask();
                Assert.True(ReferenceEquals(first, Assert.Throws<FormatException>(() => untypedDone.GetAwaiter().GetResult(), "already faulted, untyped")), "the first exception itself");
                var typedDone = faulted.Task.AsOnityTask();
                Assert.True(ReferenceEquals(first, Assert.Throws<FormatException>(() => typedDone.GetAwaiter().GetResult(), "already faulted, typed")), "the first exception itself (typed)");

                var later = new TaskCompletionSource<int>();
                var untypedLater = ((Task)later.Task).AsOnityTask();
                var typedLater = later.Task.AsOnityTask();
                Assert.Equal(OnityTaskStatus.Pending, untypedLater.Status, "pending until the Task faults");
                later.SetException(errors);
                SpinUntilDrained(h, untypedLater);
                SpinUntilDrained(h, typedLater);
                Assert.True(ReferenceEquals(first, Assert.Throws<FormatException>(() => untypedLater.GetAwaiter().GetResult(), "faulted later, untyped")), "the same exception later");
                Assert.True(ReferenceEquals(first, Assert.Throws<FormatException>(() => typedLater.GetAwaiter().GetResult(), "faulted later, typed")), "the same exception later (typed)");
            }
        }

        static async OnityTask<int> NestedAsync()
        {
            await OnityTask.SwitchToMainThread();
            await OnityTask.Yield(OnityTiming.Update, CancellationToken.None);
            return 11;
        }

        static void SpinUntil(Func<bool> cond)
        {
            for (int i = 0; i < 500 && !cond(); i++) Thread.Sleep(2);
            Assert.True(cond(), "condition within a second");
        }

        static void SpinUntilDrained(TestHost h, OnityTask t)
        {
            for (int i = 0; i < 500 && t.Status == OnityTaskStatus.Pending; i++)
            {
                Thread.Sleep(2);
                h.RunFrame();
            }
            Assert.True(t.Status != OnityTaskStatus.Pending, "completed within a second");
        }

        static void SpinUntilDrained<T>(TestHost h, OnityTask<T> t) { SpinUntilDrained(h, t.AsOnityTask()); }
    }
}
