using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;

namespace Onity.Tests
{
    /// <summary>Async LINQ (issue 27): sources, terminal operators, numeric aggregates and the
    /// awaited operator forms, against LINQ to Objects and UniTask's documented behaviour, with
    /// exceptions, cancellation and zero GC per element.</summary>
    public class LinqTests
    {
        static T Run<T>(OnityTask<T> t) { return t.GetAwaiter().GetResult(); }
        static string Str<T>(IEnumerable<T> l) { return string.Join(",", l); }
        static string All<T>(IOnityAsyncEnumerable<T> s) { return Str(Run(s.ToListAsync())); }

        [Test]
        public void SourcesGiveTheirElements()
        {
            using (new TestHost())
            {
                Assert.Equal("3,4,5,6", All(OnityAsyncEnumerable.Range(3, 4)), "Range");
                Assert.Equal("", All(OnityAsyncEnumerable.Range(7, 0)), "Range of none");
                Assert.Equal("2147483647", All(OnityAsyncEnumerable.Range(int.MaxValue, 1)), "Range to int.MaxValue");
                Assert.Throws<ArgumentOutOfRangeException>(() => OnityAsyncEnumerable.Range(0, -1), "negative count");
                Assert.Throws<ArgumentOutOfRangeException>(() => OnityAsyncEnumerable.Range(int.MaxValue, 2), "past int.MaxValue");
                Assert.Equal("a,a,a", All(OnityAsyncEnumerable.Repeat("a", 3)), "Repeat");
                Assert.Throws<ArgumentOutOfRangeException>(() => OnityAsyncEnumerable.Repeat(1, -1), "Repeat count");
                Assert.Equal("5", All(OnityAsyncEnumerable.Return(5)), "Return");
                Assert.Equal("", All(OnityAsyncEnumerable.Empty<int>()), "Empty");
                Assert.Equal("1,2", All(new List<int> { 1, 2 }.ToOnityAsyncEnumerable()), "from IEnumerable");
                var ex = new FormatException("thrown");
                Assert.True(ReferenceEquals(ex, Assert.Throws<FormatException>(() => Run(OnityAsyncEnumerable.Throw<int>(ex).ToListAsync()))), "Throw");
                Assert.Throws<ArgumentNullException>(() => OnityAsyncEnumerable.Throw<int>(null), "Throw(null)");
                Assert.Throws<ArgumentNullException>(() => ((IEnumerable<int>)null).ToOnityAsyncEnumerable(), "null IEnumerable");
                // A Task completing later, an OnityTask completing later, a faulted one.
                var tcs = new TaskCompletionSource<int>();
                var fromTask = tcs.Task.ToOnityAsyncEnumerable().ToListAsync();
                Assert.Equal(OnityTaskStatus.Pending, fromTask.Status, "waits for the task");
                tcs.SetResult(9);
                SpinWait.SpinUntil(() => fromTask.Status != OnityTaskStatus.Pending, 2000);
                Assert.Equal("9", Str(Run(fromTask)), "the task's result");
                var ocs = new OnityCompletionSource<string>();
                var fromOnity = ocs.Task.ToOnityAsyncEnumerable().ToListAsync();
                Assert.Equal(OnityTaskStatus.Pending, fromOnity.Status, "waits for the OnityTask");
                ocs.TrySetResult("x");
                Assert.Equal("x", Str(Run(fromOnity)), "its result");
                Assert.Throws<FormatException>(() => Run(OnityTask.FromException<int>(new FormatException()).ToOnityAsyncEnumerable().ToListAsync()), "faulted task");
            }
        }

        [Test]
        public void NeverEndsOnlyCanceledAndSyncSourcesSeeTheToken()
        {
            using (new TestHost())
            using (var cts = new CancellationTokenSource())
            {
                var t = OnityAsyncEnumerable.Never<int>().ToListAsync(cts.Token);
                Assert.Equal(OnityTaskStatus.Pending, t.Status, "pending");
                cts.Cancel();
                Assert.Equal(OnityTaskStatus.Canceled, t.Status, "canceled with the token");
                Assert.Equal(OnityTaskStatus.Canceled, OnityAsyncEnumerable.Range(0, 5).ToListAsync(cts.Token).Status, "Range with a canceled token");
                // Canceled in the middle of a synchronous source: no element after.
                using (var c2 = new CancellationTokenSource())
                {
                    var got = new List<int>();
                    var u = OnityAsyncEnumerable.Range(0, 10).ForEachAsync(x => { got.Add(x); if (x == 2) c2.Cancel(); }, c2.Token);
                    Assert.Equal(OnityTaskStatus.Canceled, u.Status, "canceled");
                    Assert.Equal("0,1,2", Str(got), "up to the cancellation");
                }
            }
        }

        [Test]
        public void TerminalOperatorsMatchLinqToObjects()
        {
            using (new TestHost())
            {
                var data = new[] { 5, 3, 8, 3, 9 };
                var s = data.ToOnityAsyncEnumerable();
                var none = OnityAsyncEnumerable.Empty<int>();
                Assert.Equal(5, Run(s.CountAsync()), "Count");
                Assert.Equal(2, Run(s.CountAsync(x => x == 3)), "Count(predicate)");
                Assert.Equal(5L, Run(s.LongCountAsync()), "LongCount");
                Assert.Equal(3L, Run(s.LongCountAsync(x => x > 4)), "LongCount(predicate)");
                Assert.True(Run(s.AnyAsync()), "Any");
                Assert.False(Run(none.AnyAsync()), "Any of none");
                Assert.True(Run(s.AnyAsync(x => x > 8)), "Any(predicate)");
                Assert.False(Run(s.AllAsync(x => x > 3)), "All false");
                Assert.True(Run(s.AllAsync(x => x > 2)), "All true");
                Assert.True(Run(none.AllAsync(x => false)), "All of none");
                Assert.True(Run(s.ContainsAsync(8)), "Contains");
                Assert.False(Run(s.ContainsAsync(4)), "Contains not");
                Assert.Equal(28, Run(s.AggregateAsync((a, b) => a + b)), "Aggregate");
                Assert.Throws<InvalidOperationException>(() => Run(none.AggregateAsync((a, b) => a + b)), "Aggregate of none");
                Assert.Equal("x53839", Run(s.AggregateAsync("x", (a, b) => a + b)), "Aggregate with seed");
                Assert.Equal(6, Run(s.AggregateAsync("x", (a, b) => a + b, a => a.Length)), "Aggregate with result selector");
                Assert.Equal(9, Run(s.LastAsync()), "Last");
                Assert.Equal(3, Run(s.LastAsync(x => x < 5)), "Last(predicate)");
                Assert.Throws<InvalidOperationException>(() => Run(none.LastAsync()), "Last of none");
                Assert.Equal(0, Run(none.LastOrDefaultAsync()), "LastOrDefault");
                Assert.Equal(0, Run(s.LastOrDefaultAsync(x => x > 100)), "LastOrDefault(predicate)");
                Assert.Equal(8, Run(s.SingleAsync(x => x == 8)), "Single(predicate)");
                Assert.Throws<InvalidOperationException>(() => Run(s.SingleAsync()), "Single of many");
                Assert.Throws<InvalidOperationException>(() => Run(none.SingleAsync()), "Single of none");
                Assert.Equal(0, Run(none.SingleOrDefaultAsync()), "SingleOrDefault of none");
                Assert.Throws<InvalidOperationException>(() => Run(s.SingleOrDefaultAsync(x => x == 3)), "SingleOrDefault of two");
                Assert.Equal(8, Run(s.ElementAtAsync(2)), "ElementAt");
                Assert.Throws<ArgumentOutOfRangeException>(() => Run(s.ElementAtAsync(5)), "ElementAt past the end");
                Assert.Throws<ArgumentOutOfRangeException>(() => Run(s.ElementAtAsync(-1)), "ElementAt(-1)");
                Assert.Equal(0, Run(s.ElementAtOrDefaultAsync(7)), "ElementAtOrDefault");
                Assert.Equal(5, Run(s.FirstAsync()), "First");
                Assert.Equal("5,3,8,3,9", Str(Run(s.ToListAsync())), "ToList");
                Assert.Equal("5,3,8,9", Str(Run(s.ToHashSetAsync())), "ToHashSet");
                var d = Run(s.Where(x => x != 3).ToDictionaryAsync(x => x * 10));
                Assert.Equal("50:5,80:8,90:9", string.Join(",", d.Select(kv => kv.Key + ":" + kv.Value)), "ToDictionary");
                Assert.Throws<ArgumentException>(() => Run(s.ToDictionaryAsync(x => x)), "a duplicate key");
                var lk = Run(s.ToLookupAsync(x => x % 2, x => x * 2));
                Assert.Equal("10,6,6,18", Str(lk[1]), "ToLookup odd");
                Assert.Equal("16", Str(lk[0]), "ToLookup even");
                Assert.Throws<ArgumentNullException>(() => s.CountAsync(null), "a null predicate");
                Assert.Throws<ArgumentNullException>(() => ((IOnityAsyncEnumerable<int>)null).ToListAsync(), "a null source");
            }
        }

        [Test]
        public void TerminalsStopTheEnumerationEarlyAndDisposeIt()
        {
            using (var h = new TestHost())
            {
                int pulled = 0;
                var s = OnityAsyncEnumerable.Range(0, 100).Do(_ => pulled++);
                Assert.True(Run(s.AnyAsync(x => x == 3)), "found");
                Assert.Equal(4, pulled, "Any stops at the match");
                pulled = 0;
                Assert.Throws<InvalidOperationException>(() => Run(s.SingleAsync()));
                Assert.Equal(2, pulled, "Single stops at the second");
                pulled = 0;
                Assert.Equal(5, Run(s.ElementAtAsync(5)), "ElementAt");
                Assert.Equal(6, pulled, "ElementAt stops there");
                // Over frames: FirstAsync of a chain, canceled while pending.
                h.RunFrame();
                using (var cts = new CancellationTokenSource())
                {
                    var t = OnityAsyncEnumerable.EveryUpdate().Select(_ => 1).CountAsync(cts.Token);
                    h.RunFrame();
                    cts.Cancel();
                    h.RunFrame();
                    Assert.Equal(OnityTaskStatus.Canceled, t.Status, "CountAsync canceled");
                }
            }
        }

        [Test]
        public void NumericAggregatesFollowUniTask()
        {
            using (new TestHost())
            {
                var ints = OnityAsyncEnumerable.Range(1, 4);
                var noInts = OnityAsyncEnumerable.Empty<int>();
                Assert.Equal(10, Run(ints.SumAsync()), "Sum int");
                Assert.Equal(20L, Run(ints.SumAsync(x => (long)x * 2)), "Sum long selector");
                Assert.Equal(-2, Run(OnityAsyncEnumerable.Repeat(int.MaxValue, 2).SumAsync()), "Sum adds unchecked, as UniTask's");
                Assert.Equal(2.5, Run(ints.AverageAsync()), "Average int");
                Assert.True(double.IsNaN(Run(noInts.AverageAsync())), "Average of none: NaN (UniTask)");
                Assert.Throws<OverflowException>(() => Run(OnityAsyncEnumerable.Repeat(int.MaxValue, 2).AverageAsync()), "Average adds checked");
                Assert.Equal(1.5f, Run(ints.AverageAsync(x => (float)x - 1)), "Average float");
                Assert.Throws<DivideByZeroException>(() => Run(OnityAsyncEnumerable.Empty<decimal>().AverageAsync()), "Average of no decimal");
                Assert.Equal(1, Run(ints.MinAsync()), "Min");
                Assert.Equal(4, Run(ints.MaxAsync()), "Max");
                Assert.Throws<InvalidOperationException>(() => Run(noInts.MinAsync()), "Min of none");
                Assert.Throws<InvalidOperationException>(() => Run(OnityAsyncEnumerable.Empty<double>().MaxAsync()), "Max of none");
                var nullables = new int?[] { null, 4, null, 2 }.ToOnityAsyncEnumerable();
                Assert.Equal(6, Run(nullables.SumAsync()).Value, "Sum of nullables adds the values");
                Assert.Equal(3.0, Run(nullables.AverageAsync()).Value, "Average skips nulls");
                Assert.Equal(2, Run(nullables.MinAsync()).Value, "Min skips nulls");
                Assert.Equal(4, Run(nullables.MaxAsync()).Value, "Max skips nulls");
                Assert.False(Run(new int?[] { null }.ToOnityAsyncEnumerable().MinAsync()).HasValue, "Min of nulls: null");
                Assert.Equal("apple", Run(new[] { "pear", "apple", "plum" }.ToOnityAsyncEnumerable().MinAsync()), "generic Min");
                Assert.Equal(5, Run(new[] { "pear", "apple", "plum" }.ToOnityAsyncEnumerable().MaxAsync(x => x.Length)), "generic Max with selector");
                Assert.Equal(null, Run(OnityAsyncEnumerable.Empty<string>().MaxAsync()), "generic Max of none: default");
                // Awaited selectors, synchronous and not.
                Assert.Equal(20.0, Run(ints.SumAwaitAsync(x => new OnityTask<double>(x * 2.0))), "SumAwait");
                Assert.Equal(4m, Run(ints.MaxAwaitWithCancellationAsync((x, ct) => new OnityTask<decimal>(x))), "MaxAwaitWithCancellation");
                Assert.Throws<ArgumentNullException>(() => ints.SumAsync((Func<int, int>)null), "a null selector");
            }
        }

        static async OnityTask<bool> EvenLater(int x)
        {
            await OnityTask.Yield();
            return x % 2 == 0;
        }

        static async OnityTask<int> TimesTenLater(int x, CancellationToken ct)
        {
            await OnityTask.Yield(OnityTiming.Update, ct);
            return x * 10;
        }

        [Test]
        public void AwaitedOperatorsAwaitTheirStepsInOrder()
        {
            using (var h = new TestHost())
            {
                h.RunFrame();
                var s = OnityAsyncEnumerable.Range(0, 6);
                var where = s.WhereAwait(EvenLater).ToListAsync();
                var select = s.SelectAwaitWithCancellation<int, int>(TimesTenLater).ToListAsync();
                var take = s.TakeWhileAwait((x, i) => new OnityTask<bool>(i < 3)).ToListAsync();
                var skip = s.SkipWhileAwait(EvenLater).ToListAsync();
                var distinct = new[] { 1, 1, 2, 2, 3, 1 }.ToOnityAsyncEnumerable().DistinctUntilChangedAwait(x => new OnityTask<int>(x)).ToListAsync();
                Assert.Equal("0,1,2", Str(Run(take)), "a synchronous step: no suspension");
                Assert.Equal("1,2,3,1", Str(Run(distinct)), "DistinctUntilChangedAwait");
                Assert.Equal(OnityTaskStatus.Pending, where.Status, "suspended on the step");
                for (int f = 0; f < 8 && (where.Status == OnityTaskStatus.Pending || select.Status == OnityTaskStatus.Pending || skip.Status == OnityTaskStatus.Pending); f++) h.RunFrame();
                Assert.Equal("0,2,4", Str(Run(where)), "WhereAwait");
                Assert.Equal("0,10,20,30,40,50", Str(Run(select)), "SelectAwaitWithCancellation");
                Assert.Equal("1,2,3,4,5", Str(Run(skip)), "SkipWhileAwait");
                // The step's exception faults the stream; the source is disposed.
                var bad = s.SelectAwait<int, int>(x => x == 2 ? OnityTask.FromException<int>(new FormatException("step")) : new OnityTask<int>(x)).ToListAsync();
                Assert.Equal("step", Assert.Throws<FormatException>(() => Run(bad)).Message, "the step's exception");
                // The token reaches a WithCancellation step and cancels the stream.
                using (var cts = new CancellationTokenSource())
                {
                    var c = OnityAsyncEnumerable.Range(0, 100).SelectAwaitWithCancellation<int, int>(TimesTenLater).ToListAsync(cts.Token);
                    h.RunFrame();
                    cts.Cancel();
                    h.RunFrame();
                    h.RunFrame();
                    Assert.Equal(OnityTaskStatus.Canceled, c.Status, "canceled in the step");
                }
                Assert.Throws<ArgumentNullException>(() => s.WhereAwait((Func<int, OnityTask<bool>>)null), "a null predicate");
            }
        }

        [Test]
        public void AwaitedPredicateTerminalsAwaitEachPredicate()
        {
            using (var h = new TestHost())
            {
                h.RunFrame();
                var s = OnityAsyncEnumerable.Range(1, 6);
                var first = s.FirstAwaitAsync(EvenLater);
                var last = s.LastAwaitWithCancellationAsync((x, ct) => new OnityTask<bool>(x < 4));
                var none = s.FirstOrDefaultAwaitAsync(x => new OnityTask<bool>(x > 10));
                var single = s.SingleAwaitAsync(x => new OnityTask<bool>(x == 5));
                var many = s.SingleOrDefaultAwaitAsync(x => new OnityTask<bool>(x > 4));
                var count = s.LongCountAwaitAsync(EvenLater);
                for (int f = 0; f < 10; f++) h.RunFrame();
                Assert.Equal(2, Run(first), "FirstAwait");
                Assert.Equal(3, Run(last), "LastAwaitWithCancellation");
                Assert.Equal(0, Run(none), "FirstOrDefaultAwait");
                Assert.Equal(5, Run(single), "SingleAwait");
                Assert.Throws<InvalidOperationException>(() => Run(many), "SingleOrDefaultAwait of two");
                Assert.Equal(3L, Run(count), "LongCountAwait");
                Assert.Throws<InvalidOperationException>(() => Run(s.LastAwaitAsync(x => new OnityTask<bool>(false))), "LastAwait of none");
                Assert.Throws<ArgumentNullException>(() => s.FirstAwaitAsync(null), "null predicate");
                // Aggregate with awaited accumulators and result selectors.
                var sum = s.AggregateAwaitAsync((a, x) => TimesTenLater(a + x, CancellationToken.None));
                var seeded = s.AggregateAwaitWithCancellationAsync("", (a, x, ct) => new OnityTask<string>(a + x), (a, ct) => new OnityTask<int>(a.Length));
                for (int f = 0; f < 20 && sum.Status == OnityTaskStatus.Pending; f++) h.RunFrame();
                Assert.Equal(((((1 + 2) * 10 + 3) * 10 + 4) * 10 + 5) * 100 + 60, Run(sum), "AggregateAwait without a seed");
                Assert.Equal(6, Run(seeded), "AggregateAwaitWithCancellation with seed and result selector");
                Assert.Throws<InvalidOperationException>(() => Run(OnityAsyncEnumerable.Empty<int>().AggregateAwaitAsync((a, x) => new OnityTask<int>(a))), "AggregateAwait of none");
            }
        }

        [Test]
        public void TimerFrameAndIntervalFrameCountFramesFromEachMoveNext()
        {
            using (var h = new TestHost())
            {
                h.RunFrame();
                var log = new List<ulong>();
                var once = OnityAsyncEnumerable.TimerFrame(2).ForEachAsync(_ => log.Add(h.Frame));
                var every = new List<ulong>();
                var periodic = OnityAsyncEnumerable.TimerFrame(1, 3).Take(3).ForEachAsync(_ => every.Add(h.Frame));
                var interval = new List<ulong>();
                var each = OnityAsyncEnumerable.IntervalFrame(2).Take(2).ForEachAsync(_ => interval.Add(h.Frame));
                ulong start = h.Frame;
                for (int f = 0; f < 9; f++) h.RunFrame();
                Assert.Equal(Str(new[] { start + 2 }), Str(log), "TimerFrame(2): one element two frames later");
                Assert.Equal(OnityTaskStatus.Succeeded, once.Status, "then the end");
                Assert.Equal(Str(new[] { start + 1, start + 4, start + 7 }), Str(every), "TimerFrame(1, 3)");
                Assert.Equal(Str(new[] { start + 2, start + 4 }), Str(interval), "IntervalFrame(2)");
                Assert.Equal(OnityTaskStatus.Succeeded, periodic.Status, "Take ended it");
                Assert.Equal(OnityTaskStatus.Succeeded, each.Status, "Take ended it");
                Assert.Throws<ArgumentOutOfRangeException>(() => OnityAsyncEnumerable.IntervalFrame(-1), "a negative count");
                using (var cts = new CancellationTokenSource())
                {
                    var c = OnityAsyncEnumerable.IntervalFrame(1).ForEachAsync(_ => { }, cts.Token);
                    h.RunFrame();
                    cts.Cancel();
                    h.RunFrame();
                    h.RunFrame();
                    Assert.Equal(OnityTaskStatus.Canceled, c.Status, "canceled by the token");
                }
            }
        }

        static long count;
        static readonly Func<AsyncUnit, int> one = _ => 1;
        static readonly Func<int, OnityTask<bool>> positiveNow = x => new OnityTask<bool>(x > 0);
        static readonly Func<int, OnityTask<int>> sameNow = x => new OnityTask<int>(x);
        static readonly Action<int> add = x => count += x;

        [Test]
        public void AwaitedOperatorsAndTerminalsAllocateNothingAfterWarmUp() { FreshThread.Run(AllocationBody); }

        static void AllocationBody()
        {
            using (var h = new TestHost())
            using (var cts = new CancellationTokenSource())
            {
                var chain = OnityAsyncEnumerable.EveryUpdate().Select(one).WhereAwait(positiveNow).SelectAwait(sameNow).Where(x => x > 0);
                var tasks = new List<OnityTask>();
                for (int i = 0; i < 16; i++) tasks.Add(chain.ForEachAsync(add, cts.Token));
                var range = OnityAsyncEnumerable.Range(0, 100);
                var query = range.Where(x => x > 50).SelectAwait(sameNow); // built once
                Func<long> terminals = () => Run(range.CountAsync()) + Run(range.SumAsync()) + Run(range.MaxAsync()) + Run(query.LongCountAsync());
                for (int f = 0; f < 20; f++) { h.Begin(); h.Runtime.Tick(OnityTiming.Update); terminals(); }
                count = 0;
                long total = 0;
                long b0 = GC.GetAllocatedBytesForCurrentThread();
                for (int f = 0; f < 200; f++) { h.Begin(); h.Runtime.Tick(OnityTiming.Update); }
                long perElement = GC.GetAllocatedBytesForCurrentThread() - b0;
                b0 = GC.GetAllocatedBytesForCurrentThread();
                for (int i = 0; i < 100; i++) total += terminals();
                long perTerminal = GC.GetAllocatedBytesForCurrentThread() - b0;
                Assert.Equal(200L * 16, count, "one element per frame per chain");
                Assert.Equal(0L, perElement, "bytes over 3,200 elements through awaited operators");
                Assert.Equal(100L * (100 + 4950 + 99 + 49), total, "terminal results");
                Assert.Equal(0L, perTerminal, "bytes over 400 terminal calls (pooled runners and enumerators)");
                // Control: ToListAsync allocates its list each time.
                b0 = GC.GetAllocatedBytesForCurrentThread();
                for (int i = 0; i < 10; i++) Run(range.ToListAsync());
                Assert.True(GC.GetAllocatedBytesForCurrentThread() - b0 >= 10 * 400, "the control sees the lists");
                cts.Cancel();
                h.RunFrame();
                foreach (var t in tasks) Assert.Equal(OnityTaskStatus.Canceled, t.Status, "canceled");
            }
        }
    }
}
