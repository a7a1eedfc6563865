using System;
using System.Collections.Generic;
using System.Threading;

namespace Onity.Tests
{
    /// <summary>Async streams over the frame loop (EveryUpdate, Interval, Timer, EveryValueChanged),
    /// consumed with ForEachAsync and with the pattern `await foreach` compiles to, frame by frame,
    /// with cancellation at every point.</summary>
    public class AsyncStreamTests
    {
        /// <summary>What C# 8's `await foreach (var x in source.WithCancellation(ct))` lowers to
        /// (GetAsyncEnumerator, MoveNextAsync/Current in a loop, DisposeAsync in a finally): mcs has
        /// no `await foreach`, so the pattern is called by hand.</summary>
        internal static async OnityTask AwaitForeach<T>(IOnityAsyncEnumerable<T> source, List<T> into, CancellationToken ct)
        {
            var e = source.WithCancellation(ct).GetAsyncEnumerator();
            try
            {
                while (await e.MoveNextAsync())
                {
                    var x = e.Current;
                    into.Add(x);
                }
            }
            finally
            {
                if (e != null) await e.DisposeAsync();
            }
        }

        [Test]
        public void EveryUpdateGivesOneElementPerRunOfItsTimingFromTheNextOne()
        {
            using (var h = new TestHost())
            {
                h.RunFrame();
                int n = 0;
                var t = OnityAsyncEnumerable.EveryUpdate(OnityTiming.PreLateUpdate).ForEachAsync(_ => n++);
                Assert.Equal(0, n, "nothing at the call");
                h.RunFrame(OnityTiming.Update);
                Assert.Equal(0, n, "other timings give nothing");
                h.RunFrame(OnityTiming.PreLateUpdate);
                Assert.Equal(1, n, "one per run");
                h.Runtime.Tick(OnityTiming.PreLateUpdate);
                Assert.Equal(2, n, "a second run in the same frame gives a second element");
                for (int f = 0; f < 5; f++) h.RunFrame();
                Assert.Equal(7, n, "one per frame");
                Assert.Equal(OnityTaskStatus.Pending, t.Status, "an endless stream");
                // Ended by the runtime: canceled.
                h.Runtime.Dispose();
                Assert.Equal(OnityTaskStatus.Canceled, t.Status, "disposing the runtime cancels it");
                Assert.Throws<OperationCanceledException>(() => t.GetAwaiter().GetResult());
            }
        }

        [Test]
        public void StreamElementsResumeAfterTheRunsFastLaneWaitsAndBeforeItsSlotWaits()
        {
            using (var h = new TestHost())
            {
                h.RunFrame();
                var log = new List<string>();
                ((OnityTask)OnityTask.Yield()).GetAwaiter().UnsafeOnCompleted(() => log.Add("slot"));
                var t = OnityAsyncEnumerable.EveryUpdate().Take(2).ForEachAsync(_ => log.Add("stream " + h.Frame));
                OnityTask.Yield().UnsafeOnCompleted(() => log.Add("fast"));
                h.RunFrame();
                Assert.Equal("fast,stream 2,slot", string.Join(",", log), "order within one run");
                // Asked for during a run (from a fast-lane continuation): the next run, as a Yield.
                log.Clear();
                OnityTask.Yield().UnsafeOnCompleted(() => OnityAsyncEnumerable.EveryUpdate().Take(1).ForEachAsync(_ => log.Add("late " + h.Frame)));
                h.RunFrame();
                Assert.Equal("stream 3", string.Join(",", log), "the late stream waits for the next run");
                h.RunFrame();
                Assert.Equal("stream 3,late 4", string.Join(",", log), "then its element");
                t.GetAwaiter().GetResult();
                Assert.Equal(0, h.Runtime.GetManagedStats().PendingWaits, "nothing pending");
            }
        }

        [Test]
        public void EveryUpdateInTheAwaitForeachPatternSkipsRunsWhileTheBodyIsBusy()
        {
            using (var h = new TestHost())
            {
                h.RunFrame();
                var frames = new List<ulong>();
                var t = SlowBody(frames);
                for (int f = 0; f < 9; f++) h.RunFrame();
                // Elements at frames 2, then the body waits 2 frames (DelayFrame(2)): 4... every 3rd.
                Assert.Equal("2,5,8", string.Join(",", frames), "frames of the elements");
                Assert.Equal(OnityTaskStatus.Succeeded, t.Status, "Take(3) ended it");
                t.GetAwaiter().GetResult();
            }
        }

        static async OnityTask SlowBody(List<ulong> frames)
        {
            var e = OnityAsyncEnumerable.EveryUpdate().Take(3).GetAsyncEnumerator();
            try
            {
                while (await e.MoveNextAsync())
                {
                    frames.Add(OnityRuntime.Current.Frame);
                    await OnityTask.DelayFrame(2);
                }
            }
            finally
            {
                await e.DisposeAsync();
            }
        }

        [Test]
        public void EveryUpdateIsCanceledAtTheNextRunAfterItsTokenAtEveryPoint()
        {
            for (int k = 0; k < 5; k++)
            {
                using (var h = new TestHost())
                using (var cts = new CancellationTokenSource())
                {
                    h.RunFrame();
                    var got = new List<AsyncUnit>();
                    var viaForEach = 0;
                    var a = AwaitForeach(OnityAsyncEnumerable.EveryUpdate(), got, cts.Token);
                    var b = OnityAsyncEnumerable.EveryUpdate().ForEachAsync(_ => viaForEach++, cts.Token);
                    for (int f = 0; f < k; f++) h.RunFrame();
                    cts.Cancel();
                    Assert.Equal(OnityTaskStatus.Pending, a.Status, "pending until the next run (k=" + k + ")");
                    h.RunFrame(OnityTiming.EarlyUpdate);
                    Assert.Equal(OnityTaskStatus.Pending, b.Status, "another timing's run does not end it");
                    h.Runtime.Tick(OnityTiming.Update);
                    Assert.Equal(OnityTaskStatus.Canceled, a.Status, "canceled at the next Update (k=" + k + ")");
                    Assert.Equal(OnityTaskStatus.Canceled, b.Status, "ForEachAsync too");
                    Assert.Equal(k, got.Count, "elements before the cancellation");
                    Assert.Equal(k, viaForEach, "elements before the cancellation (ForEachAsync)");
                    Assert.Throws<OperationCanceledException>(() => a.GetAwaiter().GetResult());
                    Assert.Throws<OperationCanceledException>(() => b.GetAwaiter().GetResult());
                }
            }
        }

        [Test]
        public void ACancellationFromTheBodyEndsTheStreamAtTheNextMoveNext()
        {
            using (var h = new TestHost())
            using (var cts = new CancellationTokenSource())
            {
                int n = 0;
                var t = OnityAsyncEnumerable.EveryUpdate().ForEachAsync(_ => { if (++n == 2) cts.Cancel(); }, cts.Token);
                h.RunFrame();
                Assert.Equal(OnityTaskStatus.Pending, t.Status, "one element");
                h.RunFrame();
                Assert.Equal(OnityTaskStatus.Canceled, t.Status, "canceled in the run where the body canceled");
                Assert.Equal(2, n, "elements");
                Assert.Throws<OperationCanceledException>(() => t.GetAwaiter().GetResult());
                // An already canceled token: the first MoveNextAsync is canceled at once.
                var u = OnityAsyncEnumerable.EveryUpdate().ForEachAsync(_ => n++, cts.Token);
                Assert.Equal(OnityTaskStatus.Canceled, u.Status, "canceled at the call");
                Assert.Throws<OperationCanceledException>(() => u.GetAwaiter().GetResult());
            }
        }

        [Test]
        public void EnumeratorMisuseGivesClearErrorsAndEnumeratorsArePooled()
        {
            using (var h = new TestHost())
            {
                var e = OnityAsyncEnumerable.EveryUpdate().GetAsyncEnumerator();
                var first = e.MoveNextAsync();
                var ex = Assert.Throws<InvalidOperationException>(() => e.MoveNextAsync(), "second MoveNextAsync before the first was awaited");
                Assert.Contains("one at a time", ex.Message);
                h.RunFrame();
                Assert.True(first.GetAwaiter().GetResult(), "an element");
                e.DisposeAsync().GetAwaiter().GetResult();
                Assert.Throws<ObjectDisposedException>(() => e.MoveNextAsync(), "after DisposeAsync");
                e.DisposeAsync().GetAwaiter().GetResult(); // twice: ignored
                var again = OnityAsyncEnumerable.EveryUpdate().GetAsyncEnumerator();
                Assert.True(ReferenceEquals(e, again), "the disposed enumerator was pooled and is reused");
                again.DisposeAsync().GetAwaiter().GetResult();
                // Disposed while a MoveNextAsync waits: that MoveNext ends with false; not pooled.
                var p = OnityAsyncEnumerable.EveryUpdate().GetAsyncEnumerator();
                var pending = p.MoveNextAsync();
                p.DisposeAsync().GetAwaiter().GetResult();
                h.RunFrame();
                Assert.Equal(OnityTaskStatus.Succeeded, pending.Status, "completed at the next run");
                Assert.False(pending.GetAwaiter().GetResult(), "with false");
                var fresh = OnityAsyncEnumerable.EveryUpdate().GetAsyncEnumerator();
                Assert.False(ReferenceEquals(p, fresh), "an enumerator disposed while pending is not reused");
                fresh.DisposeAsync().GetAwaiter().GetResult();
                Assert.Throws<ArgumentOutOfRangeException>(() => OnityAsyncEnumerable.EveryUpdate((OnityTiming)16));
                Assert.Throws<ArgumentNullException>(() => OnityAsyncEnumerable.ForEachAsync<int>(null, x => { }));
            }
        }

        [Test]
        public void IntervalAndTimerFollowTheirClockFrameByFrame()
        {
            using (var h = new TestHost())
            {
                h.Dt = 0.125;
                h.RunFrame();
                var interval = new List<ulong>();
                var a = OnityAsyncEnumerable.Interval(TimeSpan.FromSeconds(0.25)).Take(3).ForEachAsync(_ => interval.Add(h.Frame));
                var timer = new List<ulong>();
                var b = OnityAsyncEnumerable.Timer(TimeSpan.FromSeconds(0.5)).ForEachAsync(_ => timer.Add(h.Frame));
                var periodic = new List<ulong>();
                var c = OnityAsyncEnumerable.Timer(TimeSpan.FromSeconds(0.375), TimeSpan.FromSeconds(0.125)).Take(3).ForEachAsync(_ => periodic.Add(h.Frame));
                var unscaled = new List<ulong>();
                var d = OnityAsyncEnumerable.Interval(TimeSpan.FromSeconds(0.25), DelayType.UnscaledDeltaTime).Take(2).ForEachAsync(_ => unscaled.Add(h.Frame));
                h.UnscaledDt = 0.25;
                for (int f = 0; f < 8; f++) h.RunFrame();
                Assert.Equal("3,5,7", string.Join(",", interval), "Interval(0.25 s) at 0.125 s per frame: every 2 frames");
                Assert.Equal("5", string.Join(",", timer), "Timer(0.5 s): once, 4 frames later");
                Assert.Equal("4,5,6", string.Join(",", periodic), "Timer(0.375 s, 0.125 s)");
                Assert.Equal("2,3", string.Join(",", unscaled), "unscaled clock at 0.25 s per frame");
                foreach (var t in new[] { a, b, c, d })
                {
                    Assert.Equal(OnityTaskStatus.Succeeded, t.Status, "ended");
                    t.GetAwaiter().GetResult();
                }
                Assert.Throws<ArgumentOutOfRangeException>(() => OnityAsyncEnumerable.Interval(TimeSpan.FromSeconds(-1)));
                Assert.Throws<ArgumentOutOfRangeException>(() => OnityAsyncEnumerable.Timer(TimeSpan.Zero, TimeSpan.FromSeconds(-0.5)));
            }
        }

        [Test]
        public void IntervalIsCanceledAtTheNextRunAfterItsTokenAtEveryPoint()
        {
            for (int k = 0; k < 4; k++)
            {
                using (var h = new TestHost())
                using (var cts = new CancellationTokenSource())
                {
                    h.RunFrame();
                    int n = 0;
                    var t = OnityAsyncEnumerable.Interval(TimeSpan.Zero).ForEachAsync(_ => n++, cts.Token);
                    for (int f = 0; f < k; f++) h.RunFrame();
                    cts.Cancel();
                    Assert.Equal(OnityTaskStatus.Pending, t.Status, "pending (k=" + k + ")");
                    h.RunFrame();
                    Assert.Equal(OnityTaskStatus.Canceled, t.Status, "canceled at the next run (k=" + k + ")");
                    Assert.Equal(k, n, "one element per frame before");
                    Assert.Throws<OperationCanceledException>(() => t.GetAwaiter().GetResult());
                }
            }
        }

        sealed class Box { public int V; }

        [Test]
        public void EveryValueChangedGivesTheValueThenEachChangeSeenAtARun()
        {
            using (var h = new TestHost())
            {
                var box = new Box { V = 5 };
                var seen = new List<int>();
                var t = OnityAsyncEnumerable.EveryValueChanged(box, b => b.V).Take(4).ForEachAsync(v => seen.Add(v));
                Assert.Equal("5", string.Join(",", seen), "the current value at once");
                h.RunFrame();
                Assert.Equal("5", string.Join(",", seen), "no change, nothing");
                box.V = 6;
                h.RunFrame();
                Assert.Equal("5,6", string.Join(",", seen), "a change seen at the next run");
                box.V = 7;
                box.V = 8;
                h.RunFrame(OnityTiming.FixedUpdate);
                Assert.Equal("5,6", string.Join(",", seen), "checked at Update only");
                h.Runtime.Tick(OnityTiming.Update);
                Assert.Equal("5,6,8", string.Join(",", seen), "two changes between runs: the last value");
                box.V = 6;
                box.V = 8;
                h.RunFrame();
                Assert.Equal(OnityTaskStatus.Pending, t.Status, "back to the same value: no element");
                box.V = 1;
                h.RunFrame();
                Assert.Equal("5,6,8,1", string.Join(",", seen), "fourth");
                t.GetAwaiter().GetResult();

                // A throwing selector faults the stream; a token cancels it at the next run.
                using (var cts = new CancellationTokenSource())
                {
                    bool fail = false;
                    var f = OnityAsyncEnumerable.EveryValueChanged(box, b => { if (fail) throw new FormatException("selector"); return b.V; }).ForEachAsync(v => { });
                    var c = OnityAsyncEnumerable.EveryValueChanged(box, b => b.V).ForEachAsync(v => { }, cts.Token);
                    fail = true;
                    cts.Cancel();
                    h.RunFrame();
                    Assert.Throws<FormatException>(() => f.GetAwaiter().GetResult(), "selector's exception");
                    Assert.Throws<OperationCanceledException>(() => c.GetAwaiter().GetResult(), "canceled");
                }
            }
        }

        [Test]
        public void EveryValueChangedEndsWhenAPlainTargetIsCollectedOrAUnityObjectDestroyed()
        {
            using (var h = new TestHost())
            {
                int n = 0;
                var t = StartOnGarbage(() => n++);
                for (int i = 0; i < 20 && t.Status == OnityTaskStatus.Pending; i++)
                {
                    GC.Collect();
                    GC.WaitForPendingFinalizers();
                    h.RunFrame();
                }
                Assert.Equal(OnityTaskStatus.Succeeded, t.Status, "ended once the target was collected");
                Assert.Equal(1, n, "its first value");
                t.GetAwaiter().GetResult();

                // A UnityEngine.Object (the type name is what counts): held, ended once it equals null.
                var go = new UnityEngine.Object();
                int m = 0;
                var u = OnityAsyncEnumerable.EveryValueChanged(go, o => o.Version).ForEachAsync(v => m++);
                go.Version++;
                h.RunFrame();
                Assert.Equal(2, m, "value and change");
                go.Destroyed = true;
                h.RunFrame();
                Assert.Equal(OnityTaskStatus.Succeeded, u.Status, "ended: destroyed");
                u.GetAwaiter().GetResult();
            }
        }

        [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
        static OnityTask StartOnGarbage(Action onValue)
        {
            return OnityAsyncEnumerable.EveryValueChanged(new Box { V = 1 }, b => b.V).ForEachAsync(v => onValue());
        }

        // (mcs cannot make an async lambda returning OnityTask: a method instead.)
        static async OnityTask SlowElement(ulong f, List<string> log, TestHost h)
        {
            log.Add("start " + f);
            await OnityTask.DelayFrame(3);
            log.Add("end " + h.Frame);
        }

        [Test]
        public void ForEachAwaitAsyncAwaitsTheBodyBeforeTheNextElement()
        {
            using (var h = new TestHost())
            using (var cts = new CancellationTokenSource())
            {
                h.RunFrame();
                var log = new List<string>();
                var t = OnityAsyncEnumerable.EveryUpdate().Select(_ => h.Frame).Take(2).ForEachAwaitAsync(f => SlowElement(f, log, h));
                var withToken = OnityAsyncEnumerable.EveryUpdate().ForEachAwaitAsync((u, ct) => OnityTask.Yield(OnityTiming.Update, ct), cts.Token);
                for (int f = 0; f < 10; f++) h.RunFrame();
                Assert.Equal("start 2,end 5,start 6,end 9", string.Join(",", log), "one body at a time");
                t.GetAwaiter().GetResult();
                cts.Cancel();
                h.RunFrame();
                Assert.Throws<OperationCanceledException>(() => withToken.GetAwaiter().GetResult(), "the token reaches the body and the stream");
            }
        }
    }
}

namespace UnityEngine
{
    /// <summary>Stands in for a UnityEngine.Object in this engine-agnostic test program: equal to
    /// null once destroyed, as Unity's is (the binding finds it by its type name).</summary>
    public class Object
    {
        public bool Destroyed;
        public int Version;
        public override bool Equals(object other) { return other == null ? Destroyed : ReferenceEquals(this, other); }
        public override int GetHashCode() { return 0; }
    }
}
