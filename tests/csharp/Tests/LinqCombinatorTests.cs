using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;

namespace Onity.Tests
{
    /// <summary>Async LINQ (issue 27): Create, the combinators built on it, Subscribe; against
    /// LINQ to Objects, with frame-driven sources, exceptions, cancellation and disposal.</summary>
    public class LinqCombinatorTests
    {
        static T Run<T>(OnityTask<T> t) { return t.GetAwaiter().GetResult(); }
        static string Str<T>(IEnumerable<T> l) { return string.Join(",", l); }
        static string All<T>(IOnityAsyncEnumerable<T> s) { return Str(Run(s.ToListAsync())); }
        static IOnityAsyncEnumerable<int> Of(params int[] x) { return x.ToOnityAsyncEnumerable(); }

        static async OnityTask CountTo(IOnityAsyncWriter<int> w, int n, List<string> log)
        {
            try
            {
                for (int i = 1; i <= n; i++)
                {
                    log.Add("yield " + i);
                    await w.YieldAsync(i);
                }
            }
            finally
            {
                log.Add("producer done");
            }
        }

        [Test]
        public void CreateYieldsWhenAskedAndEndsWithItsTask()
        {
            using (new TestHost())
            {
                var log = new List<string>();
                var s = OnityAsyncEnumerable.Create<int>((w, ct) => CountTo(w, 3, log));
                Assert.Equal(0, log.Count, "nothing runs before the enumeration");
                var e = s.GetAsyncEnumerator();
                Assert.Equal(0, log.Count, "nor before the first MoveNextAsync");
                Assert.True(Run(e.MoveNextAsync()), "first");
                Assert.Equal("yield 1", Str(log), "the producer ran up to its first yield");
                Assert.Equal(1, e.Current, "its value");
                Assert.True(Run(e.MoveNextAsync()), "second");
                Assert.Equal(2, e.Current, "second value");
                // Disposed while the producer waits in YieldAsync: that wait ends canceled.
                e.DisposeAsync().GetAwaiter().GetResult();
                Assert.Equal("yield 1,yield 2,producer done", Str(log), "the producer's finally ran");
                log.Clear();
                Assert.Equal("1,2,3", All(s), "a whole enumeration");
                var bad = OnityAsyncEnumerable.Create<int>((w, ct) => OnityTask.FromException(new FormatException("producer")));
                Assert.Equal("producer", Assert.Throws<FormatException>(() => All(bad)).Message, "the producer's exception");
                Assert.Throws<ArgumentNullException>(() => OnityAsyncEnumerable.Create<int>(null), "null");
            }
        }

        [Test]
        public void CombinatorsMatchLinqToObjects()
        {
            using (new TestHost())
            {
                int[] a = { 3, 1, 3, 2, 5, 1 }, b = { 1, 4, 5 };
                Assert.Equal(Str(a.Concat(b)), All(Of(a).Concat(Of(b))), "Concat");
                Assert.Equal("3,1,3,2,5,1,9", All(Of(a).Append(9)), "Append");
                Assert.Equal("9,3,1,3,2,5,1", All(Of(a).Prepend(9)), "Prepend");
                Assert.Equal("0", All(Of().DefaultIfEmpty()), "DefaultIfEmpty of none");
                Assert.Equal("7", All(Of().DefaultIfEmpty(7)), "DefaultIfEmpty(7)");
                Assert.Equal("1,2", All(Of(1, 2).DefaultIfEmpty(7)), "DefaultIfEmpty of some");
                Assert.Equal(Str(a.Distinct()), All(Of(a).Distinct()), "Distinct");
                Assert.Equal("3,2", All(Of(a).Distinct(x => x % 2)), "Distinct by key");
                Assert.Equal(Str(a.Union(b)), All(Of(a).Union(Of(b))), "Union");
                Assert.Equal(Str(a.Except(b)), All(Of(a).Except(Of(b))), "Except");
                Assert.Equal(Str(a.Intersect(b)), All(Of(a).Intersect(Of(b))), "Intersect");
                Assert.Equal("3,1,3,2", All(Of(a).SkipLast(2)), "SkipLast");
                Assert.Equal(Str(a), All(Of(a).SkipLast(0)), "SkipLast(0)");
                Assert.Equal("5,1", All(Of(a).TakeLast(2)), "TakeLast");
                Assert.Equal("", All(Of(a).TakeLast(0)), "TakeLast(0)");
                Assert.Equal(Str(a.Reverse()), All(Of(a).Reverse()), "Reverse");
                Assert.Equal("3 1|3 2|5 1", string.Join("|", Run(Of(a).Buffer(2).ToListAsync()).Select(l => string.Join(" ", l))), "Buffer(2)");
                Assert.Equal("3 1 3|3 2 5|5 1", string.Join("|", Run(Of(a).Buffer(3, 2).ToListAsync()).Select(l => string.Join(" ", l))), "Buffer(3, 2)");
                Assert.Equal("3 1|2 5", string.Join("|", Run(Of(a).Buffer(2, 3).ToListAsync()).Select(l => string.Join(" ", l))), "Buffer(2, 3)");
                Assert.Throws<ArgumentOutOfRangeException>(() => Of(a).Buffer(0), "Buffer(0)");
                Assert.Equal("(3, 1),(1, 3),(3, 2),(2, 5),(5, 1)", All(Of(a).Pairwise()), "Pairwise");
                Assert.Equal("", All(Of(1).Pairwise()), "Pairwise of one");
                Assert.Equal("(3, 1),(1, 4),(3, 5)", All(Of(a).Zip(Of(b))), "Zip");
                Assert.Equal("4,5,8", All(Of(a).Zip(Of(b), (x, y) => x + y)), "Zip with selector");
                Assert.Throws<ArgumentNullException>(() => Of(a).Concat(null), "Concat(null)");
                Assert.Throws<ArgumentNullException>(() => Of(a).Zip(Of(b), (Func<int, int, int>)null), "Zip selector");
            }
        }

        [Test]
        public void CombinatorsOverFramesDisposeEachSourceAndSeeTheToken()
        {
            using (var h = new TestHost())
            using (var cts = new CancellationTokenSource())
            {
                h.RunFrame();
                int n = 0;
                var frames = OnityAsyncEnumerable.EveryUpdate().Select(_ => ++n);
                var got = new List<int>();
                var t = frames.Take(2).Concat(Of(100)).Append(200).Pairwise().Select(p => p.Item1 * 1000 + p.Item2).ForEachAsync(x => got.Add(x));
                h.RunFrame();
                Assert.Equal("", Str(got), "one element so far: no pair");
                h.RunFrame();
                Assert.Equal("1002,2100,100200", Str(got), "the second frame ends the Take, then the rest at once");
                Assert.Equal(OnityTaskStatus.Succeeded, t.Status, "ended");
                // Canceled while a combinator waits for a frame.
                var u = frames.Distinct().Buffer(2).CountAsync(cts.Token);
                h.RunFrame();
                cts.Cancel();
                h.RunFrame();
                Assert.Equal(OnityTaskStatus.Canceled, u.Status, "canceled through the combinators");
                Assert.Equal(0, h.Runtime.GetManagedStats().PendingWaits, "nothing left");
            }
        }

        sealed class Observer : IObserver<int>
        {
            public readonly List<string> Log = new List<string>();
            public void OnNext(int v) { Log.Add("next " + v); }
            public void OnError(Exception e) { Log.Add("error " + e.Message); }
            public void OnCompleted() { Log.Add("completed"); }
        }

        [Test]
        public void SubscribeRunsWithoutAwaitingAndDisposingItCancels()
        {
            using (var h = new TestHost())
            {
                var o = new Observer();
                Of(1, 2).Subscribe(o);
                Assert.Equal("next 1,next 2,completed", Str(o.Log), "observer");
                var o2 = new Observer();
                OnityAsyncEnumerable.Throw<int>(new FormatException("bad")).Subscribe(o2);
                Assert.Equal("error bad", Str(o2.Log), "onError");
                h.RunFrame();
                var got = new List<int>();
                bool completed = false;
                int k = 0;
                var d = OnityAsyncEnumerable.EveryUpdate().Select(_ => ++k).Subscribe(x => got.Add(x), () => completed = true);
                h.RunFrame();
                h.RunFrame();
                d.Dispose();
                h.RunFrame();
                h.RunFrame();
                Assert.Equal("1,2", Str(got), "elements until the disposal");
                Assert.False(completed, "a cancellation is not a completion");
                // Without onError an exception goes to the unobserved handler.
                Exception seen = null;
                Action<Exception> handler = ex => seen = ex;
                OnityTask.UnobservedTaskException += handler;
                try
                {
                    Of(1).Select<int, int>(x => { throw new FormatException("unobserved"); }).Subscribe(x => { });
                }
                finally
                {
                    OnityTask.UnobservedTaskException -= handler;
                }
                Assert.True(seen is FormatException, "published as unobserved");
                Assert.Throws<ArgumentNullException>(() => Of(1).Subscribe((Action<int>)null), "null onNext");
            }
        }

        [Test]
        public void TakeUntilAndSkipUntilFollowTheirSignal()
        {
            using (var h = new TestHost())
            using (var stop = new CancellationTokenSource())
            using (var open = new CancellationTokenSource())
            {
                h.RunFrame();
                int n = 0, m = 0;
                var taken = new List<int>();
                var skipped = new List<int>();
                var t = OnityAsyncEnumerable.EveryUpdate().Select(_ => ++n).TakeUntilCanceled(stop.Token).ForEachAsync(x => taken.Add(x));
                var u = OnityAsyncEnumerable.EveryUpdate().Select(_ => ++m).SkipUntilCanceled(open.Token).Take(2).ForEachAsync(x => skipped.Add(x));
                h.RunFrame();
                h.RunFrame();
                stop.Cancel();
                open.Cancel();
                Assert.Equal(OnityTaskStatus.Succeeded, t.Status, "TakeUntilCanceled ends at once, while waiting for a frame");
                Assert.Equal("1,2", Str(taken), "the elements before");
                h.RunFrame();
                h.RunFrame();
                Assert.Equal("3,4", Str(skipped), "SkipUntilCanceled: the elements after");
                Assert.Equal(OnityTaskStatus.Succeeded, u.Status, "then its Take ends it");
                // The task forms.
                var gate = new OnityCompletionSource();
                var v = OnityAsyncEnumerable.EveryUpdate().Select(_ => 1).TakeUntil(gate.Task).CountAsync();
                h.RunFrame();
                h.RunFrame();
                gate.TrySetResult();
                Assert.Equal(2, Run(v), "TakeUntil(task): the elements before its completion");
                Assert.Equal("", All(Of(1, 2).SkipUntil(new OnityCompletionSource().Task)), "SkipUntil a pending task: nothing");
                Assert.Equal("1,2", All(Of(1, 2).SkipUntil(OnityTask.CompletedTask)), "SkipUntil a completed task: everything");
                Assert.Equal("", All(Of(1, 2).TakeUntil(ct => OnityTask.CompletedTask)), "TakeUntil a completed task: nothing");
                // The source's frame wait the signal cut short goes at its run (its element dropped).
                h.RunFrame();
                Assert.Equal(0, h.Runtime.GetManagedStats().PendingWaits, "nothing left");
            }
        }

        [Test]
        public void MergeQueueCombineLatestAndPublishServeConcurrentSources()
        {
            using (var h = new TestHost())
            {
                h.RunFrame();
                int n = 0;
                var ticks = OnityAsyncEnumerable.EveryUpdate().Select(_ => ++n);
                // Merge: frame elements and a synchronous source, interleaved as they come.
                var merged = new List<int>();
                var t = ticks.Take(3).Select(x => x * 10).Merge(Of(1, 2)).ForEachAsync(x => merged.Add(x));
                Assert.Equal("1,2", Str(merged), "the synchronous source at once");
                for (int f = 0; f < 3; f++) h.RunFrame();
                Assert.Equal("1,2,10,20,30", Str(merged), "then each frame's element");
                Assert.Equal(OnityTaskStatus.Succeeded, t.Status, "ends when both ended");
                var bad = Of(1).Merge(OnityAsyncEnumerable.Throw<int>(new FormatException("merge"))).ToListAsync();
                Assert.Equal("merge", Assert.Throws<FormatException>(() => Run(bad)).Message, "a source's exception");
                // Queue: the source runs ahead of a slow consumer.
                int pulled = 0;
                var q = Of(1, 2, 3).Do(_ => pulled++).Queue().GetAsyncEnumerator();
                Assert.True(Run(q.MoveNextAsync()), "first");
                Assert.Equal(3, pulled, "the source was drained ahead");
                q.DisposeAsync().GetAwaiter().GetResult();
                // CombineLatest.
                int m = 0;
                var letters = OnityAsyncEnumerable.EveryUpdate().Select(_ => (char)('a' + m++)).Take(2);
                var combined = new List<string>();
                var c = ticks.Take(3).CombineLatest(letters, (x, y) => x + "" + y).ForEachAsync(x => combined.Add(x));
                for (int f = 0; f < 4; f++) h.RunFrame();
                Assert.Equal(OnityTaskStatus.Succeeded, c.Status, "CombineLatest ends with both");
                Assert.Equal("4a,5a,5b,6b", Str(combined), "a value per element once both have one (the first tick has no letter yet)");
                // Publish: two consumers share one enumeration of the source.
                int runs = 0;
                var shared = OnityAsyncEnumerable.EveryUpdate().Select(_ => ++runs).Take(3).Publish();
                var a = shared.ToListAsync();
                var b = shared.Select(x => -x).ToListAsync();
                Assert.Equal(OnityTaskStatus.Pending, a.Status, "nothing before Connect");
                var conn = shared.Connect();
                Assert.Throws<InvalidOperationException>(() => shared.Connect(), "connected once");
                for (int f = 0; f < 4; f++) h.RunFrame();
                Assert.Equal("1,2,3", Str(Run(a)), "first consumer");
                Assert.Equal("-1,-2,-3", Str(Run(b)), "second consumer");
                Assert.Equal(3, runs, "the source enumerated once");
                Assert.Equal("", All(shared), "a consumer after the end: nothing");
                conn.Dispose();
            }
        }

        [Test]
        public void OrderingGroupingSelectManyAndSequenceEqualMatchLinq()
        {
            using (new TestHost())
            {
                var words = new[] { "pear", "fig", "apple", "kiwi", "plum", "date" };
                var s = words.ToOnityAsyncEnumerable();
                Assert.Equal(Str(words.OrderBy(w => w.Length)), All(s.OrderBy(w => w.Length)), "OrderBy (stable)");
                Assert.Equal(Str(words.OrderByDescending(w => w.Length).ThenBy(w => w)), All(s.OrderByDescending(w => w.Length).ThenBy(w => w)), "OrderByDescending.ThenBy");
                Assert.Equal(Str(words.OrderBy(w => w[0]).ThenByDescending(w => w.Length)), All(s.OrderBy(w => w[0]).ThenByDescending(w => w.Length)), "OrderBy.ThenByDescending");
                Assert.Equal("4:pear kiwi plum date|3:fig|5:apple", string.Join("|", Run(s.GroupBy(w => w.Length).ToListAsync()).Select(g => g.Key + ":" + string.Join(" ", g))), "GroupBy");
                Assert.Equal("p:4 4|f:3|a:5|k:4|d:4", string.Join("|", Run(s.GroupBy(w => w[0], w => w.Length).ToListAsync()).Select(g => g.Key + ":" + string.Join(" ", g))), "GroupBy with elements");
                Assert.Equal("1,1,2,1,2,3", All(Of(1, 2, 3).SelectMany(x => OnityAsyncEnumerable.Range(1, x))), "SelectMany");
                Assert.Equal("10,20,21", All(Of(1, 2).SelectMany(x => OnityAsyncEnumerable.Range(0, x), (x, y) => x * 10 + y)), "SelectMany with result");
                Assert.True(Run(Of(1, 2).SequenceEqualAsync(Of(1, 2))), "SequenceEqual");
                Assert.False(Run(Of(1, 2).SequenceEqualAsync(Of(1, 2, 3))), "a longer second");
                Assert.False(Run(Of(1, 3).SequenceEqualAsync(Of(1, 2))), "a different element");
                var bad = Of(1).SelectMany<int, int>(x => OnityAsyncEnumerable.Throw<int>(new FormatException("inner")));
                Assert.Equal("inner", Assert.Throws<FormatException>(() => All(bad)).Message, "an inner stream's exception");
            }
        }
    }
}
