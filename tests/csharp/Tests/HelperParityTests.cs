using System;
using System.Collections.Generic;
using System.Threading;

namespace Onity.Tests
{
    /// <summary>UniTask's small helpers: WaitUntil/WaitWhile with a state, WaitUntilCanceled,
    /// Never, Create, ContinueWith, the status predicates, the CancellationToken extensions,
    /// SwitchToTaskPool.</summary>
    public class HelperParityTests
    {
        static long Bytes() { return GC.GetAllocatedBytesForCurrentThread(); }

        sealed class Counter { public int Value; }

        static readonly Func<Counter, bool> reached3 = c => c.Value >= 3;

        [Test]
        public void WaitUntilAndWaitWhileWithAStateAtEveryPoint()
        {
            using (var h = new TestHost())
            {
                var c = new Counter();
                var until = OnityTask.WaitUntil(c, reached3);
                var whileLow = OnityTask.WaitWhile(c, x => x.Value < 3, OnityTiming.PreUpdate);
                c.Value = 3;
                Assert.Equal(OnityTaskStatus.Pending, until.Status, "never synchronously (checked from the next run on)");
                h.RunFrame(OnityTiming.PreUpdate);
                Assert.Equal(OnityTaskStatus.Succeeded, whileLow.Status, "WaitWhile at PreUpdate");
                Assert.Equal(OnityTaskStatus.Pending, until.Status, "Update has not run");
                h.RunFrame();
                Assert.Equal(OnityTaskStatus.Succeeded, until.Status, "WaitUntil at Update");

                for (int k = 0; k < 4; k++)
                {
                    using (var cts = new CancellationTokenSource())
                    {
                        var d = new Counter();
                        var t = OnityTask.WaitUntil(d, reached3, OnityTiming.Update, cts.Token);
                        for (int i = 0; i < k; i++) h.RunFrame();
                        cts.Cancel();
                        d.Value = 3; // too late: the token is seen first
                        h.RunFrame();
                        Assert.Equal(OnityTaskStatus.Canceled, t.Status, "canceled after " + k + " frames");
                    }
                }
                var thrower = OnityTask.WaitUntil(c, x => { throw new FormatException("p"); });
                h.RunFrame();
                Assert.Throws<FormatException>(() => thrower.GetAwaiter().GetResult(), "the predicate's exception faults it");
                Assert.Throws<ArgumentNullException>(() => OnityTask.WaitUntil(c, null), "null predicate");
                Assert.Throws<ArgumentOutOfRangeException>(() => OnityTask.WaitWhile(c, reached3, (OnityTiming)16), "bad timing");
            }
        }

        [Test]
        public void WaitUntilWithAStateAllocatesNothingAfterWarmUp()
        {
            FreshThread.Run(() =>
            {
                using (var h = new TestHost())
                {
                    var c = new Counter();
                    long b0 = 0;
                    for (int i = 0; i < 1100; i++)
                    {
                        if (i == 100) b0 = Bytes();
                        c.Value = 0;
                        var t = OnityTask.WaitUntil(c, reached3);
                        h.RunFrame();
                        c.Value = 3;
                        h.RunFrame();
                        t.GetAwaiter().GetResult();
                    }
                    Assert.Equal(0L, Bytes() - b0, "bytes over 1000 WaitUntil with a state");
                    b0 = Bytes();
                    var closure = OnityTask.WaitUntil(() => c.Value >= 3);
                    Assert.True(Bytes() - b0 > 0, "a capturing lambda allocates (the measurement sees it)");
                    h.RunFrame();
                    closure.GetAwaiter().GetResult();
                }
            });
        }

        [Test]
        public void WaitUntilCanceledNeverAndTokenToTask()
        {
            using (var h = new TestHost())
            {
                using (var cts = new CancellationTokenSource())
                {
                    var polled = OnityTask.WaitUntilCanceled(cts.Token);
                    var ext = cts.Token.WaitUntilCanceled();
                    var immediate = OnityTask.WaitUntilCanceled(cts.Token, OnityTiming.Update, true);
                    var never = OnityTask.Never(cts.Token);
                    var neverT = OnityTask.Never<int>(cts.Token);
                    var pair = cts.Token.ToOnityTask();
                    h.RunFrame();
                    Assert.Equal(OnityTaskStatus.Pending, polled.Status, "pending while not canceled");
                    cts.Cancel();
                    Assert.Equal(OnityTaskStatus.Succeeded, immediate.Status, "completeImmediately: at Cancel");
                    Assert.Equal(OnityTaskStatus.Succeeded, pair.Item1.Status, "ToOnityTask: completed by the cancellation");
                    Assert.Equal(OnityTaskStatus.Pending, polled.Status, "polled: at the next Update");
                    h.RunFrame();
                    Assert.Equal(OnityTaskStatus.Succeeded, polled.Status, "polled");
                    Assert.Equal(OnityTaskStatus.Succeeded, ext.Status, "the extension");
                    Assert.Equal(OnityTaskStatus.Canceled, never.Status, "Never: canceled by its token");
                    Assert.Equal(OnityTaskStatus.Canceled, neverT.Status, "Never<T>");
                    Assert.Equal(OnityTaskStatus.Succeeded, OnityTask.WaitUntilCanceled(cts.Token).Status, "already canceled: at once");
                    Assert.Equal(OnityTaskStatus.Canceled, cts.Token.ToOnityTask().Item1.Status, "ToOnityTask of a canceled token: canceled");
                }
                using (var cts = new CancellationTokenSource())
                {
                    var pair = cts.Token.ToOnityTask();
                    pair.Item2.Dispose();
                    cts.Cancel();
                    Assert.Equal(OnityTaskStatus.Pending, pair.Item1.Status, "the registration disposed: not completed");
                }
                var forever = OnityTask.WaitUntilCanceled(CancellationToken.None);
                for (int i = 0; i < 3; i++) h.RunFrame();
                Assert.Equal(OnityTaskStatus.Pending, forever.Status, "a token that cannot be canceled: never");
            }
        }

        static readonly AsyncLocal<string> flowed = new AsyncLocal<string>();

        [Test]
        public void RegisterWithoutCaptureExecutionContextAndAddTo()
        {
            using (var cts = new CancellationTokenSource())
            {
                string plain = null, without = null, withState = null;
                flowed.Value = "caller";
                cts.Token.Register(() => plain = flowed.Value);
                cts.Token.RegisterWithoutCaptureExecutionContext(() => without = flowed.Value);
                cts.Token.RegisterWithoutCaptureExecutionContext(s => withState = (string)s + flowed.Value, "state:");
                var d = new Disposable();
                d.AddTo(cts.Token);
                Assert.False(ExecutionContext.IsFlowSuppressed(), "flow restored after the registration");
                flowed.Value = null;
                var th = new Thread(() => cts.Cancel());
                using (ExecutionContext.SuppressFlow()) th.Start();
                th.Join();
                Assert.Equal("caller", plain, "Register captures the context (control)");
                Assert.Equal(null, without, "without capture: the caller's AsyncLocal is not there");
                Assert.Equal("state:", withState, "with a state, without capture");
                Assert.True(d.Disposed, "AddTo disposes at the cancellation");
            }
            Assert.Throws<ArgumentNullException>(() => CancellationToken.None.RegisterWithoutCaptureExecutionContext((Action)null), "null callback");
            Assert.Throws<ArgumentNullException>(() => ((IDisposable)null).AddTo(CancellationToken.None), "null disposable");
        }

        sealed class Disposable : IDisposable
        {
            public bool Disposed;
            public void Dispose() { Disposed = true; }
        }

        [Test]
        public void CreateContinueWithStatusAndToCancellationToken()
        {
            using (var h = new TestHost())
            {
                Assert.Equal(4, OnityTask.Create(() => OnityTask.FromResult(4)).GetAwaiter().GetResult(), "Create<T>");
                Assert.Equal(OnityTaskStatus.Succeeded, OnityTask.Create(() => OnityTask.CompletedTask).Status, "Create");
                Assert.Equal(OnityTaskStatus.Canceled, OnityTask.Create(ct => OnityTask.FromCanceled(ct), new CancellationToken(true)).Status, "Create with a token");
                var withState = OnityTask.Create(7, s => OnityTask.FromException(new FormatException(s.ToString())));
                Assert.Equal(OnityTaskStatus.Faulted, withState.Status, "Create with a state");
                // Observed: left unobserved, its finalizer reported it during a later test (flaky
                // "nothing unobserved" there).
                Assert.Equal("7", Assert.Throws<FormatException>(() => withState.GetAwaiter().GetResult(), "its exception").Message, "the state reached it");
                Assert.Throws<ArgumentNullException>(() => OnityTask.Create((Func<OnityTask>)null), "null factory");

                var log = new List<string>();
                var src = AutoResetOnityCompletionSource<int>.Create();
                var a = src.Task.ContinueWith(v => log.Add("a" + v));
                src.TrySetResult(1);
                Assert.Equal("a1", string.Join(",", log), "ContinueWith(Action<T>) when the task completes");
                a.GetAwaiter().GetResult();
                Assert.Equal(6, OnityTask.FromResult(3).ContinueWith(v => v * 2).GetAwaiter().GetResult(), "Func<T, TR>");
                Assert.Equal(8, OnityTask.FromResult(4).ContinueWith(v => OnityTask.FromResult(v * 2)).GetAwaiter().GetResult(), "Func<T, OnityTask<TR>>");
                Assert.Equal(9, OnityTask.CompletedTask.ContinueWith(() => 9).GetAwaiter().GetResult(), "Func<T>");
                Assert.Equal(10, OnityTask.CompletedTask.ContinueWith(() => OnityTask.FromResult(10)).GetAwaiter().GetResult(), "Func<OnityTask<T>>");
                OnityTask.CompletedTask.ContinueWith(() => log.Add("b")).GetAwaiter().GetResult();
                OnityTask.CompletedTask.ContinueWith(() => { log.Add("c"); return OnityTask.CompletedTask; }).GetAwaiter().GetResult();
                OnityTask.FromResult(2).ContinueWith(v => { log.Add("d" + v); return OnityTask.CompletedTask; }).GetAwaiter().GetResult();
                Assert.Equal("a1,b,c,d2", string.Join(",", log), "every overload");
                var failed = OnityTask.FromException<int>(new FormatException("f")).ContinueWith(v => log.Add("never"));
                Assert.Throws<FormatException>(() => failed.GetAwaiter().GetResult(), "the task's failure propagates");
                Assert.Equal(4, log.Count, "and the function is not called");

                Assert.True(OnityTaskStatus.Succeeded.IsCompleted() && OnityTaskStatus.Faulted.IsCompleted() && OnityTaskStatus.Canceled.IsCompleted(), "IsCompleted");
                Assert.False(OnityTaskStatus.Pending.IsCompleted(), "Pending is not completed");
                Assert.True(OnityTaskStatus.Succeeded.IsCompletedSuccessfully() && !OnityTaskStatus.Faulted.IsCompletedSuccessfully(), "IsCompletedSuccessfully");
                Assert.True(OnityTaskStatus.Canceled.IsCanceled() && !OnityTaskStatus.Faulted.IsCanceled(), "IsCanceled");
                Assert.True(OnityTaskStatus.Faulted.IsFaulted() && !OnityTaskStatus.Canceled.IsFaulted(), "IsFaulted");

                var frame = OnityTask.NextFrame().ToOnityTask();
                var token = frame.ToCancellationToken();
                Assert.False(token.IsCancellationRequested, "not before the task completes");
                h.RunFrame();
                Assert.True(token.IsCancellationRequested, "canceled when the task completes");
                Assert.True(OnityTask.FromException(new FormatException()).ToCancellationToken().IsCancellationRequested, "a faulted task too");
                using (var link = new CancellationTokenSource())
                {
                    var linked = OnityTask.Never(CancellationToken.None).ToCancellationToken(link.Token);
                    Assert.False(linked.IsCancellationRequested, "linked: pending");
                    link.Cancel();
                    Assert.True(linked.IsCancellationRequested, "the link cancels it");
                }
                Assert.True(OnityTask.FromResult(1).ToCancellationToken().IsCancellationRequested, "typed");
            }
        }

        [Test]
        public void SwitchToTaskPoolContinuesOnAPoolThread()
        {
            using (var h = new TestHost())
            {
                int owner = Thread.CurrentThread.ManagedThreadId;
                var t = RunOnTaskPool();
                for (int i = 0; i < 500 && t.Status == OnityTaskStatus.Pending; i++)
                {
                    Thread.Sleep(2);
                    h.RunFrame();
                }
                var r = t.GetAwaiter().GetResult();
                Assert.True(r.Item1 != owner, "ran on another thread");
                Assert.True(r.Item2, "a thread-pool thread");
            }
        }

        static readonly Func<CancellationToken, bool, OnityTask>[] immediateKinds =
        {
            (ct, im) => OnityTask.Yield(OnityTiming.Update, ct, im),
            (ct, im) => OnityTask.Yield(ct, im),
            (ct, im) => OnityTask.NextFrame(OnityTiming.Update, ct, im),
            (ct, im) => OnityTask.NextFrame(ct, im),
            (ct, im) => OnityTask.DelayFrame(2, OnityTiming.Update, ct, im),
            (ct, im) => OnityTask.DelayFrame(2, ct, im),
            (ct, im) => OnityTask.Delay(TimeSpan.FromSeconds(1), DelayType.DeltaTime, OnityTiming.Update, ct, im),
            (ct, im) => OnityTask.Delay(1000, DelayType.UnscaledDeltaTime, OnityTiming.Update, ct, im),
            (ct, im) => OnityTask.Delay(TimeSpan.FromSeconds(1), true, OnityTiming.Update, ct, im),
            (ct, im) => OnityTask.Delay(1000, false, OnityTiming.Update, ct, im),
            (ct, im) => OnityTask.WaitForSeconds(1f, false, OnityTiming.Update, ct, im),
            (ct, im) => OnityTask.WaitForSeconds(1, true, OnityTiming.Update, ct, im),
            (ct, im) => OnityTask.WaitForFixedUpdate(ct, im),
            (ct, im) => OnityTask.WaitUntil(() => false, OnityTiming.Update, ct, im),
            (ct, im) => OnityTask.WaitWhile(() => true, OnityTiming.Update, ct, im),
            (ct, im) => OnityTask.WaitUntil(0, x => false, OnityTiming.Update, ct, im),
            (ct, im) => OnityTask.WaitWhile(0, x => true, OnityTiming.Update, ct, im),
        };

        [Test]
        public void CancelImmediatelyCancelsAtTheCancelCallAtEveryPoint()
        {
            using (var h = new TestHost())
            {
                for (int kind = 0; kind < immediateKinds.Length; kind++)
                {
                    for (int k = 0; k < 2; k++)
                    {
                        using (var cts = new CancellationTokenSource())
                        {
                            var now = immediateKinds[kind](cts.Token, true);
                            var later = immediateKinds[kind](cts.Token, false);
                            h.RunFrame(k == 0 ? new OnityTiming[0] : new[] { OnityTiming.Initialization });
                            Assert.Equal(OnityTaskStatus.Pending, now.Status, "pending (kind " + kind + ", k=" + k + ")");
                            cts.Cancel();
                            Assert.Equal(OnityTaskStatus.Canceled, now.Status, "canceled at Cancel (kind " + kind + ")");
                            var oce = Assert.Throws<OperationCanceledException>(() => now.GetAwaiter().GetResult(), "throws");
                            Assert.True(oce.CancellationToken == cts.Token, "carries the token (kind " + kind + ")");
                            Assert.Equal(OnityTaskStatus.Pending, later.Status, "without cancelImmediately: at the next run (kind " + kind + ")");
                            h.RunFrame();
                            Assert.Equal(OnityTaskStatus.Canceled, later.Status, "canceled at the next run (kind " + kind + ")");
                        }
                    }
                }
                // Not canceled: completes as the wait does; canceled on another thread: at the owner's next tick.
                using (var cts = new CancellationTokenSource())
                {
                    var t = OnityTask.NextFrame(cts.Token, true);
                    h.RunFrame();
                    Assert.Equal(OnityTaskStatus.Succeeded, t.Status, "the wait's own completion");
                    t.GetAwaiter().GetResult();
                    cts.Cancel(); // after completion: nothing
                    var pending = OnityTask.DelayFrame(5, new CancellationTokenSource().Token, true);
                    for (int i = 0; i < 6; i++) h.RunFrame();
                    Assert.Equal(OnityTaskStatus.Succeeded, pending.Status, "DelayFrame(5) with an untouched token");
                }
                using (var cts = new CancellationTokenSource())
                {
                    var t = OnityTask.Delay(TimeSpan.FromSeconds(10), DelayType.DeltaTime, OnityTiming.Update, cts.Token, true);
                    int owner = Thread.CurrentThread.ManagedThreadId, ranOn = 0;
                    t.GetAwaiter().UnsafeOnCompleted(() => ranOn = Thread.CurrentThread.ManagedThreadId);
                    var th = new Thread(() => cts.Cancel());
                    th.Start();
                    th.Join();
                    Assert.Equal(0, ranOn, "not on the canceling thread");
                    h.RunFrame(OnityTiming.Initialization);
                    Assert.Equal(owner, ranOn, "resumed on the owner at its next tick");
                    Assert.Throws<OperationCanceledException>(() => t.GetAwaiter().GetResult());
                }
                Assert.Equal(OnityTaskStatus.Canceled, OnityTask.NextFrame(new CancellationToken(true), true).Status, "already canceled");
                Assert.Equal(OnityTiming.LastFixedUpdate, OnityTask.WaitForFixedUpdate().Timing, "WaitForFixedUpdate: LastFixedUpdate");
            }
        }

        [Test]
        public void TimeoutWithoutExceptionUnwrapLazyProgressAndSmallTypes()
        {
            using (var h = new TestHost())
            {
                // 0.04 s at 60 fps: the delay ends at frame 3.
                var slow = OnityTask.DelayFrame(10).ToOnityTask().TimeoutWithoutException(TimeSpan.FromSeconds(0.04));
                var fast = OnityTask.NextFrame().ToOnityTask().TimeoutWithoutException(TimeSpan.FromSeconds(0.04));
                var cts = new CancellationTokenSource();
                var typed = Then(OnityTask.DelayFrame(10).ToOnityTask(), 5).TimeoutWithoutException(TimeSpan.FromSeconds(0.04), DelayType.DeltaTime, OnityTiming.Update, cts);
                var typedFast = Then(OnityTask.NextFrame().ToOnityTask(), 6).TimeoutWithoutException(TimeSpan.FromSeconds(0.04));
                var failing = OnityTask.FromException(new FormatException("f")).TimeoutWithoutException(TimeSpan.FromSeconds(1));
                h.RunFrame();
                Assert.False(fast.GetAwaiter().GetResult(), "completed first: false");
                var tf = typedFast.GetAwaiter().GetResult();
                Assert.True(!tf.Item1 && tf.Item2 == 6, "typed, first: (false, result)");
                Assert.Equal(OnityTaskStatus.Pending, slow.Status, "frame 1: neither");
                h.RunFrame();
                h.RunFrame();
                Assert.True(slow.GetAwaiter().GetResult(), "the timeout first: true, no exception");
                var t = typed.GetAwaiter().GetResult();
                Assert.True(t.Item1 && t.Item2 == 0, "typed timeout: (true, default)");
                Assert.True(cts.IsCancellationRequested, "the task's source canceled on the timeout");
                Assert.Throws<FormatException>(() => failing.GetAwaiter().GetResult(), "the task's failure passes through");

                Assert.Equal(3, OnityTask.FromResult(OnityTask.FromResult(3)).Unwrap().GetAwaiter().GetResult(), "Unwrap OnityTask<OnityTask<T>>");
                Assert.Equal(4, System.Threading.Tasks.Task.FromResult(OnityTask.FromResult(4)).Unwrap().GetAwaiter().GetResult(), "Unwrap Task<OnityTask<T>>");
                Assert.Equal(5, OnityTask.FromResult(System.Threading.Tasks.Task.FromResult(5)).Unwrap(false).GetAwaiter().GetResult(), "Unwrap OnityTask<Task<T>>");
                Assert.Equal(OnityTaskStatus.Succeeded, OnityTask.FromResult(OnityTask.CompletedTask).Unwrap().Status, "Unwrap untyped");

                var lazy = Then(OnityTask.NextFrame().ToOnityTask(), 7).ToAsyncLazy();
                var l1 = Await(lazy);
                var l2 = Await(lazy);
                h.RunFrame();
                Assert.Equal(14, l1.GetAwaiter().GetResult() + l2.GetAwaiter().GetResult(), "ToAsyncLazy: awaited twice, one task");

                Assert.True(new OperationCanceledException().IsOperationCanceledException() && !new FormatException().IsOperationCanceledException(), "IsOperationCanceledException");
                var c1 = new CancellationTokenSource();
                Assert.True(OnityCancellationTokenEqualityComparer.Default.Equals(c1.Token, c1.Token) && !OnityCancellationTokenEqualityComparer.Default.Equals(c1.Token, CancellationToken.None), "token comparer");
                var seen = new List<int>();
                var p = OnityProgress.CreateOnlyValueChanged<int>(seen.Add);
                p.Report(1); p.Report(1); p.Report(2); p.Report(2); p.Report(1);
                OnityProgress.Create<int>(seen.Add).Report(9);
                Assert.Equal("1,2,1,9", string.Join(",", seen), "Progress: only changes, and plain");
                Assert.True(AsyncUnit.Default.Equals(default(AsyncUnit)) && AsyncUnit.Default.ToString() == "()", "AsyncUnit");
            }
        }

        static async OnityTask<T> Then<T>(OnityTask wait, T value)
        {
            await wait;
            return value;
        }

        static async OnityTask<int> Await(AsyncLazy<int> lazy) { return await lazy; }

        static int posted;
        static readonly Action countPost = () => posted++;

        [Test]
        public void PostRunsAtTheNextRunOfItsTimingInOrderFromAnyThread()
        {
            FreshThread.Run(() =>
            {
                using (var h = new TestHost())
                {
                    var log = new List<string>();
                    OnityTask.Post(() => log.Add("a"));
                    OnityTask.Post(() => log.Add("late"), OnityTiming.PostLateUpdate);
                    OnityTask.Post(() => log.Add("b"));
                    OnityTask.Post(() => { throw new FormatException("posted"); });
                    Assert.Equal(0, log.Count, "not at once");
                    h.RunFrame(OnityTiming.Update);
                    Assert.Equal("a,b", string.Join(",", log), "at the next Update, in order");
                    Assert.Equal(1, h.Unobserved.Count, "an exception is reported");
                    h.RunFrame();
                    Assert.Equal("a,b,late", string.Join(",", log), "PostLateUpdate's at its run");
                    int owner = Thread.CurrentThread.ManagedThreadId, ranOn = 0;
                    var th = new Thread(() => OnityTask.Post(() => ranOn = Thread.CurrentThread.ManagedThreadId));
                    th.Start();
                    th.Join();
                    h.RunFrame();
                    h.RunFrame();
                    Assert.Equal(owner, ranOn, "posted from a worker: runs on the owner");
                    Assert.Throws<ArgumentNullException>(() => OnityTask.Post(null), "null action");

                    long b0 = 0;
                    posted = 0;
                    for (int i = 0; i < 1100; i++)
                    {
                        if (i == 100) b0 = Bytes();
                        OnityTask.Post(countPost);
                        h.Begin(); // (RunFrame(timing) would allocate its params array)
                        h.Runtime.Tick(OnityTiming.Update);
                    }
                    Assert.Equal(0L, Bytes() - b0, "bytes over 1000 Posts");
                    Assert.Equal(1100, posted, "each ran");
                    b0 = Bytes();
                    OnityTask.Post(() => log.Add("closure"));
                    Assert.True(Bytes() - b0 > 0, "a capturing lambda allocates (the measurement sees it)");
                }
            });
        }

        [Test]
        public void ChannelWriterCompleteThrowsWhenAlreadyCompleted()
        {
            using (var h = new TestHost())
            {
                var ch = OnityChannel.CreateSingleConsumerUnbounded<int>();
                ch.Writer.Complete();
                Assert.Throws<OnityChannelClosedException>(() => ch.Writer.Complete(), "a second Complete");
                Assert.False(ch.Writer.TryComplete(), "TryComplete: false");
                Assert.Equal(OnityTaskStatus.Succeeded, ch.Reader.Completion.Status, "completed");
            }
        }

        static async OnityTask<ValueTuple<int, bool>> RunOnTaskPool()
        {
            await OnityTask.SwitchToTaskPool();
            return ValueTuple.Create(Thread.CurrentThread.ManagedThreadId, Thread.CurrentThread.IsThreadPoolThread);
        }
    }
}
