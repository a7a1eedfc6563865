using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using Onity.Linq;

namespace Onity.Tests
{
    /// <summary>The synchronous operators (issue 28): each operator's semantics against LINQ to
    /// Objects, fused chains (one enumerator over the source), both consumption paths (the
    /// enumerator, as `await foreach`, and ForEachAsync), the end of Take/TakeWhile without a
    /// further pull, exceptions, Do's callbacks, disposal, cancellation at every point.</summary>
    public class StreamOperatorTests
    {
        /// <summary>A synchronous source over a list that logs pulls and disposal, and throws at
        /// index <c>throwAt</c>.</summary>
        sealed class LogSource<T> : IOnityAsyncEnumerable<T>
        {
            readonly T[] items;
            public readonly List<string> Log = new List<string>();
            public int ThrowAt = -1;
            public int Pulls, Disposals, Enumerations;
            public LogSource(params T[] items) { this.items = items; }

            public IOnityAsyncEnumerator<T> GetAsyncEnumerator(CancellationToken ct = default(CancellationToken))
            {
                Enumerations++;
                return new E(this);
            }

            sealed class E : IOnityAsyncEnumerator<T>
            {
                readonly LogSource<T> s;
                int i = -1;
                public E(LogSource<T> s) { this.s = s; }
                public T Current { get { return s.items[i]; } }
                public OnityTask<bool> MoveNextAsync()
                {
                    s.Pulls++;
                    s.Log.Add("pull");
                    if (++i == s.ThrowAt) return OnityTask.FromException<bool>(new InvalidOperationException("source " + i));
                    return new OnityTask<bool>(i < s.items.Length);
                }
                public OnityTask DisposeAsync()
                {
                    s.Disposals++;
                    s.Log.Add("dispose");
                    return OnityTask.CompletedTask;
                }
            }
        }

        static List<T> Enumerate<T>(IOnityAsyncEnumerable<T> s)
        {
            var into = new List<T>();
            AsyncStreamTests.AwaitForeach(s, into, CancellationToken.None).GetAwaiter().GetResult();
            return into;
        }

        static List<T> ForEach<T>(IOnityAsyncEnumerable<T> s)
        {
            var into = new List<T>();
            s.ForEachAsync(x => into.Add(x)).GetAwaiter().GetResult();
            return into;
        }

        /// <summary>Both paths give LINQ to Objects' elements and dispose the source once.</summary>
        static void Same<T>(Func<IOnityAsyncEnumerable<int>, IOnityAsyncEnumerable<T>> op, Func<IEnumerable<int>, IEnumerable<T>> linq, string what)
        {
            var data = new[] { 3, 3, 1, 4, 4, 4, 1, 5, 9, 2, 6, 6 };
            var want = string.Join(",", linq(data));
            var a = new LogSource<int>(data);
            Assert.Equal(want, string.Join(",", Enumerate(op(a))), what + " (enumerator)");
            Assert.Equal(1, a.Disposals, what + ": source disposed once (enumerator)");
            var b = new LogSource<int>(data);
            Assert.Equal(want, string.Join(",", ForEach(op(b))), what + " (ForEachAsync)");
            Assert.Equal(1, b.Disposals, what + ": source disposed once (ForEachAsync)");
        }

        [Test]
        public void EachOperatorGivesLinqToObjectsElements()
        {
            using (new TestHost())
            {
                Same(s => s.Where(x => x > 3), l => l.Where(x => x > 3), "Where");
                Same(s => s.Where((x, i) => i % 3 == 0), l => l.Where((x, i) => i % 3 == 0), "Where with index");
                Same(s => s.Select(x => x * 10), l => l.Select(x => x * 10), "Select");
                Same(s => s.Select((x, i) => x * 100 + i), l => l.Select((x, i) => x * 100 + i), "Select with index");
                foreach (int n in new[] { -1, 0, 1, 5, 12, 40 })
                {
                    Same(s => s.Take(n), l => l.Take(n), "Take(" + n + ")");
                    Same(s => s.Skip(n), l => l.Skip(n), "Skip(" + n + ")");
                }
                Same(s => s.TakeWhile(x => x != 5), l => l.TakeWhile(x => x != 5), "TakeWhile");
                Same(s => s.TakeWhile((x, i) => i < 4), l => l.TakeWhile((x, i) => i < 4), "TakeWhile with index");
                Same(s => s.SkipWhile(x => x != 5), l => l.SkipWhile(x => x != 5), "SkipWhile");
                Same(s => s.SkipWhile((x, i) => i < 4), l => l.SkipWhile((x, i) => i < 4), "SkipWhile with index");
                Same(s => s.DistinctUntilChanged(), l => Dedup(l, x => x), "DistinctUntilChanged");
                Same(s => s.DistinctUntilChanged(x => x / 2), l => Dedup(l, x => x / 2), "DistinctUntilChanged by key");
                Same(s => s.DistinctUntilChanged(x => x % 2, EqualityComparer<int>.Default), l => Dedup(l, x => x % 2), "DistinctUntilChanged by key and comparer");
                var seen = new List<int>();
                Same(s => s.Do(x => seen.Add(x)), l => l, "Do");
                Assert.Equal(24, seen.Count, "Do's onNext saw every element of both runs");
                Same(s => s.Select(x => (object)x).Cast<int>(), l => l, "Cast");
                Same(s => s.Select(x => x % 2 == 0 ? (object)x : "odd").OfType<int>(), l => l.Where(x => x % 2 == 0), "OfType");
                // A long chain in one enumerator: every kind of stage, twice over.
                Same(s => s.Skip(1).Where(x => x != 9).Select(x => x + 1).DistinctUntilChanged().SkipWhile(x => x < 2).Select((x, i) => x * 10 + i).TakeWhile(x => x < 1000).Take(6),
                     l => Dedup(l.Skip(1).Where(x => x != 9).Select(x => x + 1), x => x).SkipWhile(x => x < 2).Select((x, i) => x * 10 + i).TakeWhile(x => x < 1000).Take(6), "fused chain");
            }
        }

        static IEnumerable<int> Dedup(IEnumerable<int> l, Func<int, int> key)
        {
            bool any = false;
            int last = 0;
            foreach (var x in l)
            {
                int k = key(x);
                if (any && k == last) continue;
                any = true;
                last = k;
                yield return x;
            }
        }

        [Test]
        public void ASynchronousChainIsOneEnumeratorOverTheSource()
        {
            using (new TestHost())
            {
                var src = new LogSource<int>(1, 2, 3, 4);
                var e = src.Where(x => x > 0).Select(x => x * 2).Skip(1).TakeWhile(x => x < 100).GetAsyncEnumerator();
                Assert.True(e is FusedEnumerator<int>, "one fused enumerator for the chain");
                Assert.Equal(1, src.Enumerations, "the source enumerated once");
                e.DisposeAsync().GetAwaiter().GetResult();
                // A Do with onError/onCompleted starts a chain of its own over what came before it.
                var d = src.Where(x => x > 0).Do(x => { }, ex => { }).Select(x => x).GetAsyncEnumerator();
                Assert.True(d is FusedEnumerator<int>, "Do(onError) chain");
                Assert.Equal(2, src.Enumerations, "still one enumeration of the source");
                d.DisposeAsync().GetAwaiter().GetResult();
                Assert.Equal(2, src.Disposals, "each disposed once");
            }
        }

        [Test]
        public void TakeAndTakeWhileEndWithoutPullingTheSourceAgain()
        {
            using (new TestHost())
            {
                var a = new LogSource<int>(1, 2, 3, 4, 5);
                Assert.Equal("1,2,3", string.Join(",", Enumerate(a.Take(3))), "Take");
                Assert.Equal("pull,pull,pull,dispose", string.Join(",", a.Log), "three pulls, then the disposal");
                var b = new LogSource<int>(1, 2, 3, 4, 5);
                Assert.Equal("1", string.Join(",", ForEach(b.Take(3).Where(x => x == 1))), "Take then Where");
                Assert.Equal("pull,pull,pull,dispose", string.Join(",", b.Log), "a dropped last element ends the stream too");
                var c = new LogSource<int>(1, 2, 3);
                Assert.Equal("", string.Join(",", Enumerate(c.Where(x => true).Take(0))), "Take(0)");
                Assert.Equal("dispose", string.Join(",", c.Log), "Take(0): no pull");
                var d = new LogSource<int>(1, 2, 3, 4);
                Assert.Equal("1", string.Join(",", ForEach(d.TakeWhile(x => x < 2))), "TakeWhile");
                Assert.Equal("pull,pull,dispose", string.Join(",", d.Log), "TakeWhile: no pull after the false");
            }
        }

        [Test]
        public void DelegateAndSourceExceptionsFaultTheStreamAfterItsSourceIsDisposed()
        {
            using (new TestHost())
            {
                foreach (var viaForEach in new[] { false, true })
                {
                    string path = viaForEach ? " (ForEachAsync)" : " (enumerator)";
                    var a = new LogSource<int>(1, 2, 3);
                    var got = new List<int>();
                    var s = a.Where(x => x > 0).Select(x => { if (x == 2) throw new FormatException("two"); return x; });
                    var t = viaForEach ? s.ForEachAsync(x => got.Add(x)) : AsyncStreamTests.AwaitForeach(s, got, CancellationToken.None);
                    Assert.Equal(OnityTaskStatus.Faulted, t.Status, "faulted" + path);
                    Assert.Equal("two", Assert.Throws<FormatException>(() => t.GetAwaiter().GetResult()).Message, "the selector's exception" + path);
                    Assert.Equal("1", string.Join(",", got), "the element before it" + path);
                    Assert.Equal("pull,pull,dispose", string.Join(",", a.Log), "disposed once, after the fault" + path);

                    var b = new LogSource<int>(1, 2, 3) { ThrowAt = 1 };
                    got.Clear();
                    var u = viaForEach ? b.Select(x => x).ForEachAsync(x => got.Add(x)) : AsyncStreamTests.AwaitForeach(b.Select(x => x), got, CancellationToken.None);
                    Assert.Equal("source 1", Assert.Throws<InvalidOperationException>(() => u.GetAwaiter().GetResult()).Message, "the source's exception" + path);
                    Assert.Equal(1, b.Disposals, "disposed once" + path);
                }
                // ForEachAsync's action.
                var c = new LogSource<int>(1, 2, 3);
                var v = c.Where(x => true).ForEachAsync(x => { if (x == 2) throw new FormatException("action"); });
                Assert.Equal("action", Assert.Throws<FormatException>(() => v.GetAwaiter().GetResult()).Message, "the action's exception");
                Assert.Equal(1, c.Disposals, "disposed once");
            }
        }

        [Test]
        public void DoCallsOnErrorAndOnCompletedAsUniTasksDo()
        {
            using (new TestHost())
            {
                var log = new List<string>();
                var a = new LogSource<int>(1, 2);
                ForEach(a.Do(x => log.Add("next " + x), ex => log.Add("error"), () => log.Add("completed")).Select(x => x));
                Assert.Equal("next 1,next 2,completed", string.Join(",", log), "onNext each, onCompleted at the end");
                // The source's exception, and an exception of an operator before the Do.
                log.Clear();
                var b = new LogSource<int>(1, 2) { ThrowAt = 1 };
                var t = b.Do(x => log.Add("next " + x), ex => log.Add("error " + ex.Message), () => log.Add("completed")).ForEachAsync(x => { });
                Assert.Throws<InvalidOperationException>(() => t.GetAwaiter().GetResult());
                Assert.Equal("next 1,error source 1", string.Join(",", log), "onError with the source's exception");
                log.Clear();
                var c = new LogSource<int>(1, 2);
                t = c.Where(x => { if (x == 2) throw new FormatException("where"); return true; }).Do(x => log.Add("next " + x), ex => log.Add("error " + ex.Message)).ForEachAsync(x => { });
                Assert.Throws<FormatException>(() => t.GetAwaiter().GetResult());
                Assert.Equal("next 1,error where", string.Join(",", log), "onError sees an upstream operator's exception");
                // onNext's exception goes to onError; onError's own exception replaces it.
                log.Clear();
                var d = new LogSource<int>(1, 2);
                t = d.Do(x => { throw new FormatException("next"); }, ex => { log.Add("error " + ex.Message); throw new ArgumentException("replaced"); }).ForEachAsync(x => { });
                Assert.Equal("replaced", Assert.Throws<ArgumentException>(() => t.GetAwaiter().GetResult()).Message, "onError's exception");
                Assert.Equal("error next", string.Join(",", log), "onError saw onNext's exception");
                // A stage after the Do: its exception is not the Do's.
                log.Clear();
                var e = new LogSource<int>(1, 2);
                t = e.Do(x => { }, ex => log.Add("error")).Select<int, int>(x => { throw new FormatException("after"); }).ForEachAsync(x => { });
                Assert.Throws<FormatException>(() => t.GetAwaiter().GetResult());
                Assert.Equal(0, log.Count, "onError not called for a later stage");
                Assert.Equal(1, e.Disposals, "disposed once");
            }
        }

        [Test]
        public void OperatorsCheckTheirArguments()
        {
            IOnityAsyncEnumerable<int> nul = null;
            var s = new LogSource<int>(1);
            Assert.Throws<ArgumentNullException>(() => nul.Where(x => true), "Where source");
            Assert.Throws<ArgumentNullException>(() => s.Where((Func<int, bool>)null), "Where predicate");
            Assert.Throws<ArgumentNullException>(() => s.Where((Func<int, int, bool>)null), "Where indexed predicate");
            Assert.Throws<ArgumentNullException>(() => s.Select((Func<int, int>)null), "Select selector");
            Assert.Throws<ArgumentNullException>(() => s.Select((Func<int, int, int>)null), "Select indexed selector");
            Assert.Throws<ArgumentNullException>(() => nul.Take(1), "Take source");
            Assert.Throws<ArgumentNullException>(() => nul.Skip(1), "Skip source");
            Assert.Throws<ArgumentNullException>(() => s.TakeWhile((Func<int, bool>)null), "TakeWhile");
            Assert.Throws<ArgumentNullException>(() => s.SkipWhile((Func<int, int, bool>)null), "SkipWhile");
            Assert.Throws<ArgumentNullException>(() => s.Do((Action<int>)null), "Do onNext");
            Assert.Throws<ArgumentNullException>(() => s.Do((IObserver<int>)null), "Do observer");
            Assert.Throws<ArgumentNullException>(() => ((IOnityAsyncEnumerable<object>)null).Cast<int>(), "Cast");
            Assert.Throws<ArgumentNullException>(() => ((IOnityAsyncEnumerable<object>)null).OfType<int>(), "OfType");
            Assert.Throws<ArgumentNullException>(() => s.DistinctUntilChanged((IEqualityComparer<int>)null), "DistinctUntilChanged comparer");
            Assert.Throws<ArgumentNullException>(() => s.DistinctUntilChanged((Func<int, int>)null), "DistinctUntilChanged key");
            Assert.Throws<ArgumentNullException>(() => nul.ForEachAsync(x => { }), "ForEachAsync source");
            Assert.Throws<ArgumentNullException>(() => s.Where(x => true).ForEachAsync((Action<int>)null), "ForEachAsync action");
            Assert.Equal(0, s.Enumerations, "nothing enumerated");
        }

        /// <summary>A chain over EveryUpdate, consumed both ways, canceled at each point: before
        /// the first element, between frames, in the action, in a predicate that drops the run.</summary>
        [Test]
        public void FusedEveryUpdateChainsAreCanceledAtEveryPoint()
        {
            for (int point = 0; point < 4; point++)
                foreach (var viaForEach in new[] { false, true })
                    using (var h = new TestHost())
                    using (var cts = new CancellationTokenSource())
                    {
                        string what = "point " + point + (viaForEach ? " (ForEachAsync)" : " (enumerator)");
                        h.RunFrame();
                        int frame = 0, skipFrom = point == 3 ? 2 : int.MaxValue;
                        var got = new List<int>();
                        var s = OnityAsyncEnumerable.EveryUpdate().Select(_ => ++frame).Where(x => x < skipFrom).Select(x => x * 10);
                        if (point == 0) cts.Cancel();
                        OnityTask t;
                        if (viaForEach) t = s.ForEachAsync(x => { got.Add(x); if (point == 2 && x == 20) cts.Cancel(); }, cts.Token);
                        else t = AsyncStreamTests.AwaitForeach(s.Do(x => { if (point == 2 && x == 20) cts.Cancel(); }), got, cts.Token);
                        h.RunFrame();
                        h.RunFrame();
                        if (point == 1 || point == 3) cts.Cancel();
                        h.RunFrame();
                        h.RunFrame();
                        Assert.Equal(OnityTaskStatus.Canceled, t.Status, "canceled, " + what);
                        Assert.Throws<OperationCanceledException>(() => t.GetAwaiter().GetResult());
                        string want = point == 0 ? "" : point == 3 ? "10" : "10,20";
                        Assert.Equal(want, string.Join(",", got), "elements before the cancellation, " + what);
                        Assert.Equal(point == 0 ? 0 : point == 2 ? 2 : point == 3 ? 2 : 2, frame, "runs pushed through the chain, " + what);
                        Assert.Equal(0, h.Runtime.GetManagedStats().PendingWaits, "nothing left waiting, " + what);
                    }
        }

        [Test]
        public void FusedEveryUpdateChainSkipsRunsAndEndsWithTake()
        {
            using (var h = new TestHost())
            {
                h.RunFrame();
                int frame = 0;
                var got = new List<int>();
                var t = OnityAsyncEnumerable.EveryUpdate().Select(_ => ++frame).Where(x => x % 2 == 0).Take(3).ForEachAsync(x => got.Add(x));
                var u = new List<int>();
                int frame2 = 0;
                var v = AsyncStreamTests.AwaitForeach(OnityAsyncEnumerable.EveryUpdate().Select(_ => ++frame2).Where(x => x % 3 == 0).Take(2), u, CancellationToken.None);
                for (int f = 0; f < 5; f++) h.RunFrame();
                Assert.Equal("2,4", string.Join(",", got), "every second run");
                Assert.Equal(OnityTaskStatus.Pending, t.Status, "not yet");
                h.RunFrame();
                Assert.Equal("2,4,6", string.Join(",", got), "the third");
                Assert.Equal(OnityTaskStatus.Succeeded, t.Status, "Take ends it at its last element");
                Assert.Equal("3,6", string.Join(",", u), "enumerator path");
                Assert.Equal(OnityTaskStatus.Succeeded, v.Status, "ended");
                h.RunFrame();
                Assert.Equal(6, frame, "no run pushed after the end");
                Assert.Equal(0, h.Runtime.GetManagedStats().PendingWaits, "nothing left");
                // The runtime's disposal ends a pending chain canceled.
                var w = OnityAsyncEnumerable.EveryUpdate().Where(_ => false).ForEachAsync(_ => { });
                var x2 = AsyncStreamTests.AwaitForeach(OnityAsyncEnumerable.EveryUpdate().Where(_ => false), new List<AsyncUnit>(), CancellationToken.None);
                h.RunFrame();
                h.Runtime.Dispose();
                Assert.Equal(OnityTaskStatus.Canceled, w.Status, "ForEachAsync: canceled by the disposal");
                Assert.Equal(OnityTaskStatus.Canceled, x2.Status, "enumerator: canceled by the disposal");
            }
        }

        static readonly AsyncLocal<string> local = new AsyncLocal<string>();

        [Test]
        public void ForEachAsyncRunsItsActionInTheCallersContextWhenThereIsOneToFlow() { FreshThread.Run(ContextBody); }

        static void ContextBody()
        {
            using (var h = new TestHost())
            {
                h.RunFrame();
                var seen = new List<string>();
                local.Value = "caller";
                var t = OnityAsyncEnumerable.EveryUpdate().Select(_ => 1).Take(2).ForEachAsync(_ => seen.Add(local.Value ?? "none"));
                var u = OnityAsyncEnumerable.Range(0, 2).ForEachAsync(_ => seen.Add(local.Value ?? "none"));
                local.Value = null;
                h.RunFrame();
                h.RunFrame();
                Assert.Equal(OnityTaskStatus.Succeeded, t.Status, "ended");
                Assert.Equal("caller,caller,caller,caller", string.Join(",", seen), "the action sees the caller's AsyncLocal");
                // Nothing to flow: the action runs in the run's context (the direct path).
                seen.Clear();
                var v = OnityAsyncEnumerable.EveryUpdate().Take(1).ForEachAsync(_ => seen.Add(local.Value ?? "none"));
                h.RunFrame();
                Assert.Equal("none", string.Join(",", seen), "no context");
            }
        }

        static long count;
        static readonly Action<int> onInt = x => count += x;
        static readonly Func<AsyncUnit, int> one = _ => 1;
        static readonly Func<int, bool> positive = x => x > 0;
        static readonly Func<int, int> same = x => x;
        static readonly Action<int> nothing = x => { };
        static List<int> sinkList = new List<int>();

        static async OnityTask SumAll(IOnityAsyncEnumerable<int> s, CancellationToken ct)
        {
            var e = s.GetAsyncEnumerator(ct);
            try
            {
                while (await e.MoveNextAsync()) count += e.Current;
            }
            finally
            {
                await e.DisposeAsync();
            }
        }

        [Test]
        public void FusedChainsAllocateNothingPerElement() { FreshThread.Run(FusedChainsAllocateNothingPerElementBody); }

        static void FusedChainsAllocateNothingPerElementBody()
        {
            using (var h = new TestHost())
            using (var cts = new CancellationTokenSource())
            {
                var chain = OnityAsyncEnumerable.EveryUpdate().Select(one).Where(positive).Select(same).TakeWhile(positive)
                    .SkipWhile(x => x < 0).Skip(1).Do(nothing).DistinctUntilChanged(x => 0).Take(int.MaxValue);
                var ws = OnityAsyncEnumerable.EveryUpdate().Select(one).Where(positive);
                var tasks = new List<OnityTask>();
                for (int i = 0; i < 16; i++)
                {
                    tasks.Add(ws.ForEachAsync(onInt, cts.Token));
                    tasks.Add(SumAll(ws, cts.Token));
                    tasks.Add(OnityAsyncEnumerable.EveryUpdate().Select(one).DistinctUntilChanged().ForEachAsync(onInt, cts.Token));
                }
                tasks.Add(chain.ForEachAsync(onInt, cts.Token));
                for (int f = 0; f < 20; f++) { h.Begin(); h.Runtime.Tick(OnityTiming.Update); }
                count = 0;
                long b0 = GC.GetAllocatedBytesForCurrentThread();
                for (int f = 0; f < 300; f++) { h.Begin(); h.Runtime.Tick(OnityTiming.Update); }
                long d = GC.GetAllocatedBytesForCurrentThread() - b0;
                Assert.Equal(300L * 32, count, "one element per frame of each chain that gives elements");
                Assert.Equal(0L, d, "bytes over 300 frames of 49 fused chains");
                cts.Cancel();
                h.RunFrame();
                foreach (var t in tasks) Assert.Equal(OnityTaskStatus.Canceled, t.Status, "canceled");
                // Control: a chain whose selector boxes allocates per element.
                var boxing = OnityAsyncEnumerable.EveryUpdate().Select(_ => (object)frameBox++).Cast<int>().ForEachAsync(onInt);
                h.RunFrame();
                b0 = GC.GetAllocatedBytesForCurrentThread();
                for (int f = 0; f < 10; f++) { h.Begin(); h.Runtime.Tick(OnityTiming.Update); }
                Assert.True(GC.GetAllocatedBytesForCurrentThread() - b0 >= 10 * 16, "the control sees its boxes");
            }
        }

        static int frameBox = 1000;

        [Test]
        public void EnumeratingFusedChainsAgainAllocatesNothingAfterWarmUp() { FreshThread.Run(EnumeratingFusedChainsAgainBody); }

        static void EnumeratingFusedChainsAgainBody()
        {
            using (var h = new TestHost())
            {
                var ch = OnityChannel.CreateSingleConsumerUnbounded<int>();
                var ch2 = OnityChannel.CreateSingleConsumerUnbounded<int>();
                var overChannel = ch.Reader.ReadAllAsync().Where(positive).Select(same).Take(2);
                var overChannel2 = ch2.Reader.ReadAllAsync().Where(positive).Select(same).Take(2);
                var overFrames = OnityAsyncEnumerable.EveryUpdate().Select(one).Skip(1).Take(2);
                Action round = () =>
                {
                    var a = overChannel.ForEachAsync(onInt);
                    var b = SumAll(overChannel2, CancellationToken.None);
                    var c = overFrames.ForEachAsync(onInt);
                    var d = SumAll(overFrames, CancellationToken.None);
                    for (int i = 0; i < 2; i++)
                    {
                        ch.Writer.TryWrite(1);
                        ch2.Writer.TryWrite(1);
                    }
                    for (int f = 0; f < 3; f++) { h.Begin(); h.Runtime.Tick(OnityTiming.Update); }
                    a.GetAwaiter().GetResult();
                    b.GetAwaiter().GetResult();
                    c.GetAwaiter().GetResult();
                    d.GetAwaiter().GetResult();
                };
                for (int i = 0; i < 20; i++) round();
                count = 0;
                long b0 = GC.GetAllocatedBytesForCurrentThread();
                for (int i = 0; i < 200; i++) round();
                long bytes = GC.GetAllocatedBytesForCurrentThread() - b0;
                Assert.Equal(200L * 8, count, "elements");
                Assert.Equal(0L, bytes, "bytes over 200 rounds of four enumerations (pooled enumerators, stages, pumps)");
                // Control: building the chain each round allocates its operator objects.
                b0 = GC.GetAllocatedBytesForCurrentThread();
                for (int i = 0; i < 10; i++) overFrames = OnityAsyncEnumerable.EveryUpdate().Select(one).Skip(1).Take(2);
                Assert.True(GC.GetAllocatedBytesForCurrentThread() - b0 > 0, "the control sees allocations");
            }
        }

        /// <summary>A fused pair (Where+Select, Select+Where, Select+TakeWhile: one stage) calls its
        /// delegates as the two operators would: per element, in order, with the pulls between.</summary>
        [Test]
        public void FusedPairsCallTheirDelegatesAsTheTwoOperatorsWould()
        {
            using (new TestHost())
            {
                foreach (var viaForEach in new[] { false, true })
                {
                    string path = viaForEach ? " (ForEachAsync)" : " (enumerator)";
                    Func<IOnityAsyncEnumerable<int>, List<int>> run = s => viaForEach ? ForEach(s) : Enumerate(s);
                    var a = new LogSource<int>(1, 2, 3);
                    var ws = a.Where(x => { a.Log.Add("w" + x); return x % 2 == 1; }).Select(x => { a.Log.Add("s" + x); return x * 10; });
                    Assert.Equal("10,30", string.Join(",", run(ws)), "Where.Select" + path);
                    Assert.Equal("pull,w1,s1,pull,w2,pull,w3,s3,pull,dispose", string.Join(",", a.Log), "Where.Select calls" + path);
                    var b = new LogSource<int>(1, 2, 3);
                    var sw = b.Select(x => { b.Log.Add("s" + x); return x * 10; }).Where(y => { b.Log.Add("w" + y); return y != 20; });
                    Assert.Equal("10,30", string.Join(",", run(sw)), "Select.Where" + path);
                    Assert.Equal("pull,s1,w10,pull,s2,w20,pull,s3,w30,pull,dispose", string.Join(",", b.Log), "Select.Where calls" + path);
                    var c = new LogSource<int>(1, 2, 3, 4);
                    var st = c.Select(x => { c.Log.Add("s" + x); return x * 10; }).TakeWhile(y => { c.Log.Add("t" + y); return y < 30; });
                    Assert.Equal("10,20", string.Join(",", run(st)), "Select.TakeWhile" + path);
                    Assert.Equal("pull,s1,t10,pull,s2,t20,pull,s3,t30,dispose", string.Join(",", c.Log), "Select.TakeWhile: no pull after the false" + path);
                    // The second delegate's exception faults the stream after the first one's element.
                    var d = new LogSource<int>(1, 2, 3);
                    var got = new List<int>();
                    var bad = d.Select(x => x * 10).Where(y => { if (y == 20) throw new FormatException("twenty"); return true; });
                    var t = viaForEach ? bad.ForEachAsync(x => got.Add(x)) : AsyncStreamTests.AwaitForeach(bad, got, CancellationToken.None);
                    Assert.Equal("twenty", Assert.Throws<FormatException>(() => t.GetAwaiter().GetResult()).Message, "the predicate's exception" + path);
                    Assert.Equal("10", string.Join(",", got), "the element before it" + path);
                    Assert.Equal(1, d.Disposals, "disposed once" + path);
                }
            }
        }

        sealed class ThrowingSource : IOnityAsyncEnumerable<int>
        {
            public IOnityAsyncEnumerator<int> GetAsyncEnumerator(CancellationToken ct = default(CancellationToken))
            {
                throw new NotSupportedException("no enumerator");
            }
        }

        /// <summary>A chain whose source's GetAsyncEnumerator throws gives its pooled stages back
        /// once: two chains enumerated side by side afterwards do not share a stage.</summary>
        [Test]
        public void AChainThatFailsToOpenReturnsItsStagesOnce()
        {
            using (new TestHost())
            {
                var bad = new ThrowingSource();
                Assert.Throws<NotSupportedException>(() => bad.Skip(0).Take(5).GetAsyncEnumerator(), "the source's exception (enumerator)");
                var t = bad.Skip(0).Take(5).ForEachAsync(x => { });
                Assert.Equal(OnityTaskStatus.Faulted, t.Status, "ForEachAsync: faulted, as the async form");
                Assert.Throws<NotSupportedException>(() => t.GetAwaiter().GetResult(), "the source's exception (ForEachAsync)");
                var u = bad.ForEachAsync(x => { });
                Assert.Throws<NotSupportedException>(() => u.GetAwaiter().GetResult(), "the source's exception (ForEachAsync, no operator)");
                var e1 = new LogSource<int>(1, 2, 3, 4).Take(2).GetAsyncEnumerator();
                var e2 = new LogSource<int>(1, 2, 3, 4).Take(3).GetAsyncEnumerator();
                var e3 = new LogSource<int>(1, 2, 3, 4).Take(1).GetAsyncEnumerator();
                var got = new List<string>();
                for (int i = 0; i < 4; i++)
                {
                    got.Add((e1.MoveNextAsync().GetAwaiter().GetResult() ? e1.Current.ToString() : "-")
                        + (e2.MoveNextAsync().GetAwaiter().GetResult() ? e2.Current.ToString() : "-")
                        + (e3.MoveNextAsync().GetAwaiter().GetResult() ? e3.Current.ToString() : "-"));
                }
                Assert.Equal("111,22-,-3-,---", string.Join(",", got), "Take(2), Take(3) and Take(1) side by side");
                e1.DisposeAsync().GetAwaiter().GetResult();
                e2.DisposeAsync().GetAwaiter().GetResult();
                e3.DisposeAsync().GetAwaiter().GetResult();
            }
        }
    }
}
