using System;
using System.Collections.Generic;
using System.Threading;

namespace Onity.Tests
{
    /// <summary>SuppressCancellationThrow, AttachExternalCancellation, Preserve,
    /// WaitUntilValueChanged, Void/Action, Defer, Lazy, CancelAfterSlim: frame by frame, with
    /// cancellation at every point and allocation counts.</summary>
    public class TaskHelperTests
    {
        static long Bytes() { return GC.GetAllocatedBytesForCurrentThread(); }

        [Test]
        public void SuppressCancellationThrowReturnsTheOutcomeWithoutThrowingCancellation()
        {
            using (var h = new TestHost())
            using (var cts = new CancellationTokenSource())
            {
                Assert.False(OnityTask.CompletedTask.SuppressCancellationThrow().GetAwaiter().GetResult(), "completed");
                var r = OnityTask.FromResult(3).SuppressCancellationThrow().GetAwaiter().GetResult();
                Assert.False(r.IsCanceled, "not canceled");
                Assert.Equal(3, r.Result, "result");
                var canceledNow = OnityTask.FromCanceled<int>().SuppressCancellationThrow().GetAwaiter().GetResult();
                Assert.True(canceledNow.IsCanceled, "already canceled");

                var wait = OnityTask.DelayFrame(2, OnityTiming.Update, cts.Token).SuppressCancellationThrow();
                h.RunFrame();
                Assert.Equal(OnityTaskStatus.Pending, wait.Status, "pending");
                cts.Cancel();
                h.RunFrame();
                Assert.True(wait.GetAwaiter().GetResult(), "canceled, reported as true");
                var faulted = OnityTask.FromException<int>(new FormatException()).SuppressCancellationThrow();
                Assert.Throws<FormatException>(() => faulted.GetAwaiter().GetResult(), "a failure still throws");
                bool isCanceled;
                int value;
                OnityTask.FromResult(5).SuppressCancellationThrow().GetAwaiter().GetResult().Deconstruct(out isCanceled, out value);
                Assert.Equal(5, value, "Deconstruct");
            }
        }

        static bool stop;

        static async OnityTask SuppressLoop()
        {
            while (!stop)
            {
                if (await OnityTask.NextFrame().ToOnityTask().SuppressCancellationThrow()) break;
            }
        }

        [Test]
        public void SuppressCancellationThrowAllocatesNothingOnTheSuccessPath()
        {
            // A fresh thread: an AsyncLocal value left on the test thread by another test would make
            // every suspension capture the context (context flow's cost, not the measured path's).
            FreshThread.Run(() =>
            {
                using (var h = new TestHost())
                {
                    stop = false;
                    var tasks = new OnityTask[256];
                    for (int i = 0; i < tasks.Length; i++) tasks[i] = SuppressLoop();
                    for (int f = 0; f < 20; f++) { h.Begin(); h.Runtime.Tick(OnityTiming.Update); }
                    long b0 = Bytes();
                    for (int f = 0; f < 100; f++) { h.Begin(); h.Runtime.Tick(OnityTiming.Update); }
                    long d = Bytes() - b0;
                    stop = true;
                    for (int f = 0; f < 2; f++) h.RunFrame(OnityTiming.Update);
                    foreach (var t in tasks) t.GetAwaiter().GetResult();
                    Assert.Equal(0L, d, "bytes over 25,600 suppressed waits");
                }
            });
        }

        [Test]
        public void AttachExternalCancellation_FrameByFrame_AtEveryPoint()
        {
            using (var h = new TestHost())
            {
                h.RunFrame();
                for (int cancelAt = 0; cancelAt < 4; cancelAt++)
                {
                    using (var cts = new CancellationTokenSource())
                    {
                        var inner = AutoResetOnityCompletionSource<int>.Create();
                        var t = inner.Task.AttachExternalCancellation(cts.Token);
                        for (int f = 0; f < cancelAt; f++) h.RunFrame();
                        Assert.Equal(OnityTaskStatus.Pending, t.Status, "pending (" + cancelAt + ")");
                        cts.Cancel();
                        h.RunFrame(OnityTiming.EarlyUpdate);
                        Assert.Equal(OnityTaskStatus.Pending, t.Status, "seen at the next run of Update, not before");
                        h.Runtime.Tick(OnityTiming.Update);
                        Assert.Equal(OnityTaskStatus.Canceled, t.Status, "canceled at Update");
                        Assert.Throws<OperationCanceledException>(() => t.GetAwaiter().GetResult(), "canceled");
                        inner.TrySetException(new FormatException()); // the inner task ends later: observed, ignored
                        Assert.Equal(0, h.Unobserved.Count, "its failure is not reported");
                    }
                }
                using (var cts = new CancellationTokenSource())
                {
                    var inner = AutoResetOnityCompletionSource<int>.Create();
                    var t = inner.Task.AttachExternalCancellation(cts.Token);
                    inner.TrySetResult(4);
                    Assert.Equal(4, t.GetAwaiter().GetResult(), "the inner result when it comes first");
                    cts.Cancel();
                    h.RunFrame(); // the poll ends; the source returns to its pool
                    var failing = AutoResetOnityCompletionSource.Create();
                    var u = failing.Task.AttachExternalCancellation(new CancellationTokenSource().Token);
                    failing.TrySetException(new TimeoutException());
                    Assert.Throws<TimeoutException>(() => u.GetAwaiter().GetResult(), "the inner failure");
                    var already = AutoResetOnityCompletionSource.Create();
                    var v = already.Task.AttachExternalCancellation(cts.Token);
                    Assert.Equal(OnityTaskStatus.Canceled, v.Status, "an already canceled token cancels at once");
                    already.TrySetResult();
                    Assert.Throws<OperationCanceledException>(() => v.GetAwaiter().GetResult(), "canceled");
                    var plain = OnityTask.FromResult(1);
                    Assert.Equal(1, plain.AttachExternalCancellation(cts.Token).GetAwaiter().GetResult(), "a completed task is returned as is");
                }
            }
        }

        static async OnityTask<int> AttachedLoop(CancellationToken ct)
        {
            int n = 0;
            while (!stop)
            {
                await OnityTask.NextFrame().ToOnityTask().AttachExternalCancellation(ct);
                n++;
            }
            return n;
        }

        [Test]
        public void AttachExternalCancellationAllocatesNothingAfterWarmUp()
        {
            // A fresh thread: an AsyncLocal value left on the test thread by another test would make
            // every suspension capture the context (context flow's cost, not the measured path's).
            FreshThread.Run(() =>
            {
                using (var h = new TestHost())
                using (var cts = new CancellationTokenSource())
                {
                    stop = false;
                    var tasks = new OnityTask<int>[128];
                    for (int i = 0; i < tasks.Length; i++) tasks[i] = AttachedLoop(cts.Token);
                    for (int f = 0; f < 20; f++) { h.Begin(); h.Runtime.Tick(OnityTiming.Update); }
                    long b0 = Bytes();
                    for (int f = 0; f < 100; f++) { h.Begin(); h.Runtime.Tick(OnityTiming.Update); }
                    long d = Bytes() - b0;
                    stop = true;
                    for (int f = 0; f < 3; f++) h.RunFrame(OnityTiming.Update);
                    foreach (var t in tasks) Assert.True(t.GetAwaiter().GetResult() >= 100, "resumed every frame");
                    Assert.Equal(0L, d, "bytes over 12,800 attached waits");
                }
            });
        }

        [Test]
        public void DisposingTheRuntimeCancelsAnAttachedWait()
        {
            var inner = AutoResetOnityCompletionSource.Create();
            OnityTask t;
            using (var cts = new CancellationTokenSource())
            {
                using (var h = new TestHost()) t = inner.Task.AttachExternalCancellation(cts.Token);
                Assert.Equal(OnityTaskStatus.Canceled, t.Status, "canceled by the dispose");
                inner.TrySetResult();
            }
        }

        [Test]
        public void PreserveIsAwaitableManyTimes()
        {
            using (var h = new TestHost())
            {
                var src = AutoResetOnityCompletionSource<int>.Create();
                var p = src.Task.Preserve();
                var results = new List<int>();
                for (int i = 0; i < 3; i++) { var aw = p.GetAwaiter(); aw.UnsafeOnCompleted(() => results.Add(aw.GetResult())); }
                src.TrySetResult(7);
                Assert.Equal("7,7,7", string.Join(",", results), "three awaiters");
                Assert.Equal(7, p.GetAwaiter().GetResult(), "and again afterwards");
                Assert.Equal(7, p.GetAwaiter().GetResult(), "and again");
                var f = OnityTask.FromException(new FormatException()).Preserve();
                Assert.Throws<FormatException>(() => f.GetAwaiter().GetResult(), "failure, once");
                Assert.Throws<FormatException>(() => f.GetAwaiter().GetResult(), "failure, twice");
                var w = OnityTask.NextFrame().ToOnityTask().Preserve();
                h.RunFrame();
                w.GetAwaiter().GetResult();
                w.GetAwaiter().GetResult();
            }
        }

        sealed class Box { public int Value; }

        [Test]
        public void WaitUntilValueChanged_FrameByFrame_AtEveryPoint()
        {
            using (var h = new TestHost())
            {
                h.RunFrame();
                var box = new Box { Value = 1 };
                int calls = 0;
                var t = OnityTask.WaitUntilValueChanged(box, b => { calls++; return b.Value; }, OnityTiming.PreLateUpdate);
                Assert.Equal(1, calls, "the first value is read at the call");
                h.RunFrame();
                Assert.Equal(2, calls, "read at the next PreLateUpdate");
                box.Value = 2;
                h.RunFrame(OnityTiming.Update);
                Assert.Equal(OnityTaskStatus.Pending, t.Status, "only its timing reads it");
                h.Runtime.Tick(OnityTiming.PreLateUpdate);
                Assert.Equal(2, t.GetAwaiter().GetResult(), "the new value");

                for (int cancelAt = 0; cancelAt < 3; cancelAt++)
                {
                    using (var cts = new CancellationTokenSource())
                    {
                        var c = OnityTask.WaitUntilValueChanged(box, b => b.Value, OnityTiming.Update, null, cts.Token);
                        for (int f = 0; f < cancelAt; f++) h.RunFrame();
                        cts.Cancel();
                        Assert.Equal(OnityTaskStatus.Pending, c.Status, "pending (" + cancelAt + ")");
                        h.RunFrame();
                        Assert.Throws<OperationCanceledException>(() => c.GetAwaiter().GetResult(), "canceled at the next run");
                    }
                }
                var boom = new FormatException();
                int n = 0;
                var e = OnityTask.WaitUntilValueChanged(box, b => { if (n++ > 0) throw boom; return 0; });
                h.RunFrame();
                Assert.True(ReferenceEquals(boom, Assert.Throws<FormatException>(() => e.GetAwaiter().GetResult())), "the function's exception");
                var nulled = new FakeDestroyed();
                var d = OnityTask.WaitUntilValueChanged(nulled, x => 1);
                nulled.Destroyed = true;
                h.RunFrame();
                Assert.Throws<OperationCanceledException>(() => d.GetAwaiter().GetResult(), "a target equal to null (destroyed) cancels");
                Assert.Throws<ArgumentNullException>(() => OnityTask.WaitUntilValueChanged<Box, int>(null, b => 1), "null target");
                Assert.Throws<ArgumentNullException>(() => OnityTask.WaitUntilValueChanged<Box, int>(box, null), "null function");
            }
        }

        /// <summary>Stands in for a destroyed UnityEngine.Object (Equals(null) is true).</summary>
        sealed class FakeDestroyed
        {
            public bool Destroyed;
            public override bool Equals(object obj) { return obj == null ? Destroyed : ReferenceEquals(this, obj); }
            public override int GetHashCode() { return 1; }
        }

        static readonly Func<Box, int> readValue = b => b.Value;

        static async OnityTask<int> ChangedLoop(Box box, int n)
        {
            int sum = 0;
            for (int i = 0; i < n; i++) sum += await OnityTask.WaitUntilValueChanged(box, readValue);
            return sum;
        }

        [Test]
        public void WaitUntilValueChangedAllocatesNothingAfterWarmUp()
        {
            // A fresh thread: an AsyncLocal value left on the test thread by another test would make
            // every suspension capture the context (context flow's cost, not the measured path's).
            FreshThread.Run(() =>
            {
                using (var h = new TestHost())
                {
                    var box = new Box();
                    var t = ChangedLoop(box, 3000);
                    long b0 = 0;
                    for (int f = 0; f < 3000; f++)
                    {
                        if (f == 1000) b0 = Bytes();
                        box.Value++;
                        h.Begin();
                        h.Runtime.Tick(OnityTiming.Update);
                    }
                    long d = Bytes() - b0;
                    Assert.True(t.GetAwaiter().GetResult() > 0, "completed");
                    Assert.Equal(0L, d, "bytes over 2,000 waits");
                }
            });
        }

        static async OnityTask Throws() { await OnityTask.Yield(OnityTiming.Update, CancellationToken.None); throw new FormatException("late"); }
        static OnityTask ThrowsAtOnce() { throw new InvalidTimeZoneException("sync"); }
        static async OnityTask Cancels() { await OnityTask.Yield(OnityTiming.Update, CancellationToken.None); throw new OperationCanceledException(); }

        [Test]
        public void VoidAndActionReportFailuresButNotCancellation()
        {
            using (var h = new TestHost())
            {
                OnityTask.Void(Throws);
                OnityTask.Void(ThrowsAtOnce);
                OnityTask.Void(Cancels);
                var act = OnityTask.Action(Throws);
                act();
                int got = 0;
                OnityTask.Void(x => { got = x; return OnityTask.CompletedTask; }, 9);
                Assert.Equal(9, got, "state passed");
                OnityTask.Void(ct => { got = ct.CanBeCanceled ? 1 : 2; return OnityTask.CompletedTask; }, new CancellationToken(true));
                Assert.Equal(1, got, "token passed");
                Assert.Equal(1, h.Unobserved.Count, "the synchronous throw at once");
                h.RunFrame();
                Assert.Equal(3, h.Unobserved.Count, "two late failures, not the cancellation");
                Assert.True(h.Unobserved[0] is InvalidTimeZoneException, "sync failure");
                Assert.True(h.Unobserved[1] is FormatException && h.Unobserved[2] is FormatException, "late failures");
            }
        }

        [Test]
        public void DeferCallsTheFactoryAtTheFirstAwait()
        {
            // A fresh thread: an AsyncLocal value left on the test thread by another test would make
            // every suspension capture the context (context flow's cost, not the measured path's).
            FreshThread.Run(() =>
            {
                using (var h = new TestHost())
                {
                    int calls = 0;
                    var t = OnityTask.Defer(() => { calls++; return OnityTask.NextFrame().ToOnityTask(); });
                    Assert.Equal(0, calls, "not at the call");
                    var aw = t.GetAwaiter();
                    Assert.False(aw.IsCompleted, "pending");
                    Assert.Equal(1, calls, "at the first look");
                    bool done = false;
                    aw.UnsafeOnCompleted(() => done = true);
                    h.RunFrame();
                    Assert.True(done, "resumed");
                    aw.GetResult();
                    Assert.Equal(1, calls, "once");
                    Assert.Throws<InvalidOperationException>(() => t.GetAwaiter().GetResult(), "await once");
                    var typed = OnityTask.Defer(() => OnityTask.FromResult(4));
                    Assert.Equal(4, typed.GetAwaiter().GetResult(), "typed, completed");
                    var failing = OnityTask.Defer<int>(() => { throw new FormatException(); });
                    Assert.Throws<FormatException>(() => failing.GetAwaiter().GetResult(), "the factory's exception is the failure");
                    long b0 = 0;
                    Func<OnityTask<int>> f = () => OnityTask.FromResult(1);
                    for (int i = 0; i < 3000; i++)
                    {
                        if (i == 1000) b0 = Bytes();
                        OnityTask.Defer(f).GetAwaiter().GetResult();
                    }
                    Assert.Equal(0L, Bytes() - b0, "pooled: bytes over 2,000 defers");
                }
            });
        }

        static int lazyRuns;

        static async OnityTask<int> SlowInit()
        {
            lazyRuns++;
            await OnityTask.NextFrame();
            return 42;
        }

        static async OnityTask Use(AsyncLazy<int> lazy, List<int> into) { into.Add(await lazy); }

        [Test]
        public void LazyRunsOnceForManyAwaiters()
        {
            using (var h = new TestHost())
            {
                lazyRuns = 0;
                var lazy = OnityTask.Lazy(SlowInit);
                Assert.False(lazy.IsStarted, "not started at creation");
                var got = new List<int>();
                for (int i = 0; i < 3; i++) Use(lazy, got).Forget();
                Assert.Equal(1, lazyRuns, "started once");
                h.RunFrame();
                Assert.Equal("42,42,42", string.Join(",", got), "every awaiter");
                Assert.Equal(42, lazy.Task.GetAwaiter().GetResult(), "and later");
                var failing = OnityTask.Lazy(() => OnityTask.FromException(new FormatException()));
                Assert.Throws<FormatException>(() => failing.Task.GetAwaiter().GetResult(), "failure, once");
                Assert.Throws<FormatException>(() => failing.Task.GetAwaiter().GetResult(), "failure, twice");
                Assert.Equal(0, h.Unobserved.Count, "nothing unobserved");
            }
        }

        [Test]
        public void CancelAfterSlim_CancelsAtTheDelaysFrame_DisposeStops_DisposedSourceIgnored()
        {
            using (var h = new TestHost())
            {
                h.RunFrame();
                var cts = new CancellationTokenSource();
                int canceledAtFrame = -1;
                cts.Token.Register(() => canceledAtFrame = (int)h.Frame);
                cts.CancelAfterSlim(TimeSpan.FromSeconds(0.04)); // 1/60 s per frame: the 3rd frame
                h.RunFrame();
                h.RunFrame();
                Assert.False(cts.IsCancellationRequested, "not yet");
                h.RunFrame();
                Assert.True(cts.IsCancellationRequested, "canceled at the third frame's Update");
                Assert.Equal(4, canceledAtFrame, "frame 1 + 3");

                var stopped = new CancellationTokenSource();
                var handle = stopped.CancelAfterSlim(TimeSpan.FromSeconds(0.02), DelayType.UnscaledDeltaTime);
                handle.Dispose();
                for (int f = 0; f < 5; f++) h.RunFrame();
                Assert.False(stopped.IsCancellationRequested, "stopped");

                var disposed = new CancellationTokenSource();
                disposed.CancelAfterSlim(1);
                disposed.Dispose();
                for (int f = 0; f < 2; f++) h.RunFrame();
                Assert.Equal(0, h.Unobserved.Count, "a disposed source is left alone");

                var frames = new CancellationTokenSource();
                frames.CancelAfterSlim(TimeSpan.Zero, DelayType.DeltaTime, OnityTiming.LastUpdate);
                h.Runtime.Tick(OnityTiming.LastUpdate);
                Assert.False(frames.IsCancellationRequested, "a Delay completes in a later frame");
                h.RunFrame(OnityTiming.Update);
                Assert.False(frames.IsCancellationRequested, "its timing did not run");
                h.Runtime.Tick(OnityTiming.LastUpdate);
                Assert.True(frames.IsCancellationRequested, "canceled at the next frame's LastUpdate");
            }
        }

        [Test]
        public void CancelAfterSlimAllocatesNothingAfterWarmUp()
        {
            // A fresh thread: an AsyncLocal value left on the test thread by another test would make
            // every suspension capture the context (context flow's cost, not the measured path's).
            FreshThread.Run(() =>
            {
                using (var h = new TestHost())
                {
                    var sources = new CancellationTokenSource[64];
                    for (int i = 0; i < sources.Length; i++) sources[i] = new CancellationTokenSource();
                    long b0 = 0;
                    for (int round = 0; round < 60; round++)
                    {
                        if (round == 20) b0 = Bytes();
                        for (int i = 0; i < sources.Length; i++) sources[i].CancelAfterSlim(0).Dispose(); // the stopped delays end next frame
                        h.Begin();
                        h.Runtime.Tick(OnityTiming.Update);
                    }
                    long d = Bytes() - b0;
                    Assert.Equal(0L, d, "bytes over 2,560 CancelAfterSlim calls");
                }
            });
        }
    }
}
