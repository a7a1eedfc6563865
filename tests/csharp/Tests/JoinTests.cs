using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;

namespace Onity.Tests
{
    /// <summary>Join, GroupJoin (and their Await forms), ToDictionaryAwaitAsync, ToLookupAwaitAsync:
    /// System.Linq's results over the same data, keys awaited across frames.</summary>
    public class JoinTests
    {
        static readonly string[] Outer = { "a1", "b1", "c1", null, "a2" };
        static readonly string[] Inner = { "a-x", "b-y", "a-z", "d-w", null };

        static string Key(string s) { return s == null ? null : s.Substring(0, 1); }

        static async OnityTask<string> KeyLater(string s)
        {
            await OnityTask.NextFrame();
            return Key(s);
        }

        static T Run<T>(TestHost h, OnityTask<T> t)
        {
            for (int i = 0; i < 100 && t.Status == OnityTaskStatus.Pending; i++) h.RunFrame();
            return t.GetAwaiter().GetResult();
        }

        [Test]
        public void JoinAndGroupJoinMatchSystemLinq()
        {
            using (var h = new TestHost())
            {
                h.RunFrame();
                var outer = Outer.ToOnityAsyncEnumerable();
                var inner = Inner.ToOnityAsyncEnumerable();
                string expected = string.Join(",", Outer.Join(Inner, Key, Key, (o, i) => o + i));
                Assert.Equal("a1a-x,a1a-z,b1b-y,a2a-x,a2a-z", expected, "System.Linq's join (null keys match nothing)");
                Assert.Equal(expected, string.Join(",", Run(h, outer.Join(inner, Key, Key, (o, i) => o + i).ToArrayAsync())), "Join");
                Assert.Equal(expected, string.Join(",", Run(h, outer.JoinAwait(inner, KeyLater, KeyLater, (o, i) => new OnityTask<string>(o + i)).ToArrayAsync())), "JoinAwait (keys a frame later)");
                var cts = new CancellationTokenSource();
                Assert.Equal(expected, string.Join(",", Run(h, outer.JoinAwaitWithCancellation(inner, (o, ct) => KeyLater(o), (i, ct) => KeyLater(i),
                    (o, i, ct) => new OnityTask<string>(ct == cts.Token ? o + i : "!"), StringComparer.Ordinal).ToArrayAsync(cts.Token))), "JoinAwaitWithCancellation, the token handed on");

                string g = string.Join(",", Outer.GroupJoin(Inner, Key, Key, (o, m) => (o ?? "null") + ":" + m.Count()));
                Assert.Equal("a1:2,b1:1,c1:0,null:0,a2:2", g, "System.Linq's group join");
                Assert.Equal(g, string.Join(",", Run(h, outer.GroupJoin(inner, Key, Key, (o, m) => (o ?? "null") + ":" + m.Count()).ToArrayAsync())), "GroupJoin");
                Assert.Equal(g, string.Join(",", Run(h, outer.GroupJoinAwait(inner, KeyLater, KeyLater, (o, m) => new OnityTask<string>((o ?? "null") + ":" + m.Count())).ToArrayAsync())), "GroupJoinAwait");
                Assert.Equal(g, string.Join(",", Run(h, outer.GroupJoinAwaitWithCancellation(inner, (o, ct) => KeyLater(o), (i, ct) => KeyLater(i), (o, m, ct) => new OnityTask<string>((o ?? "null") + ":" + m.Count())).ToArrayAsync())), "GroupJoinAwaitWithCancellation");

                // A comparer: case-insensitive keys.
                var upper = new[] { "A9" }.ToOnityAsyncEnumerable();
                Assert.Equal("A9a-x,A9a-z", string.Join(",", Run(h, upper.Join(inner, Key, Key, (o, i) => o + i, StringComparer.OrdinalIgnoreCase).ToArrayAsync())), "comparer");
                // Misuse.
                Assert.Throws<ArgumentNullException>(() => outer.Join((IOnityAsyncEnumerable<string>)null, Key, Key, (o, i) => o), "null inner");
                Assert.Throws<ArgumentNullException>(() => outer.Join(inner, (Func<string, string>)null, Key, (o, i) => o), "null outer key selector");
                Assert.Throws<ArgumentNullException>(() => outer.GroupJoin(inner, Key, Key, (Func<string, IEnumerable<string>, string>)null), "null result selector");
                Assert.Throws<ArgumentNullException>(() => outer.Join(inner, Key, Key, (o, i) => o, null), "null comparer");
                // A key selector's exception faults the enumeration.
                var bad = outer.Join(inner, o => { if (o == "c1") throw new FormatException("c"); return Key(o); }, Key, (o, i) => o).ToArrayAsync();
                Assert.Throws<FormatException>(() => Run(h, bad), "faulted by the outer key selector");
            }
        }

        [Test]
        public void ToDictionaryAndToLookupAwaitAsync()
        {
            using (var h = new TestHost())
            {
                h.RunFrame();
                var src = new[] { "a1", "b1", "a2" }.ToOnityAsyncEnumerable();
                var lookup = Run(h, src.ToLookupAwaitAsync(KeyLater));
                Assert.Equal("a1,a2", string.Join(",", lookup["a"]), "lookup a");
                Assert.Equal(2, lookup.Count, "two keys");
                var lookup2 = Run(h, src.ToLookupAwaitWithCancellationAsync((s, ct) => KeyLater(s), (s, ct) => new OnityTask<int>(s.Length), StringComparer.Ordinal));
                Assert.Equal("2,2", string.Join(",", lookup2["a"]), "element selector");
                var lookup3 = Run(h, src.ToLookupAwaitAsync(KeyLater, s => new OnityTask<string>(s.ToUpperInvariant())));
                Assert.Equal("B1", lookup3["b"].Single(), "ToLookupAwaitAsync with an element selector");

                var unique = new[] { "a1", "b1" }.ToOnityAsyncEnumerable();
                var d = Run(h, unique.ToDictionaryAwaitAsync(KeyLater));
                Assert.Equal("b1", d["b"], "dictionary");
                var d2 = Run(h, unique.ToDictionaryAwaitWithCancellationAsync((s, ct) => KeyLater(s), (s, ct) => new OnityTask<int>(s.Length)));
                Assert.Equal(2, d2["a"], "dictionary with an element selector");
                var d3 = Run(h, unique.ToDictionaryAwaitAsync(s => KeyLater(s.ToUpperInvariant()), StringComparer.OrdinalIgnoreCase));
                Assert.True(d3.ContainsKey("a"), "comparer");
                var dup = src.ToDictionaryAwaitAsync(KeyLater);
                Assert.Throws<ArgumentException>(() => Run(h, dup), "a duplicate key faults");
                Assert.Throws<ArgumentNullException>(() => src.ToDictionaryAwaitAsync((Func<string, OnityTask<string>>)null), "null key selector");
                Assert.Throws<ArgumentNullException>(() => src.ToLookupAwaitAsync(KeyLater, (IEqualityComparer<string>)null), "null comparer");
            }
        }
    
        [Test]
        public void GroupByAwaitGroupsInFirstElementOrder()
        {
            using (var h = new TestHost())
            {
                h.RunFrame();
                var src = new[] { "b1", "a1", "b2", "c1", "a2" }.ToOnityAsyncEnumerable();
                var groups = Run(h, src.GroupByAwait(KeyLater).ToArrayAsync());
                Assert.Equal("b:b1 b2,a:a1 a2,c:c1", string.Join(",", groups.Select(g => g.Key + ":" + string.Join(" ", g))), "groups and their order");
                var lengths = Run(h, src.GroupByAwait(KeyLater, s => new OnityTask<int>(s.Length)).ToArrayAsync());
                Assert.Equal("2 2", string.Join(" ", lengths[0]), "element selector");
                var counts = Run(h, src.GroupByAwait(KeyLater, (k, g) => new OnityTask<string>(k + g.Count())).ToArrayAsync());
                Assert.Equal("b2,a2,c1", string.Join(",", counts), "result selector");
                var cts = new CancellationTokenSource();
                var withToken = Run(h, src.GroupByAwaitWithCancellation((s, ct) => KeyLater(s), (s, ct) => new OnityTask<string>(s.Substring(1)),
                    (k, g, ct) => new OnityTask<string>(ct == cts.Token ? k + "=" + string.Join("", g) : "!"), StringComparer.OrdinalIgnoreCase).ToArrayAsync(cts.Token));
                Assert.Equal("b=12,a=12,c=1", string.Join(",", withToken), "WithCancellation: element and result selectors, the token");
                var ci = Run(h, new[] { "a", "A" }.ToOnityAsyncEnumerable().GroupByAwait(s => new OnityTask<string>(s), StringComparer.OrdinalIgnoreCase).ToArrayAsync());
                Assert.Equal(1, ci.Length, "comparer");
                Assert.Throws<ArgumentNullException>(() => src.GroupByAwait((Func<string, OnityTask<string>>)null), "null key selector");
                Assert.Throws<ArgumentNullException>(() => src.GroupByAwait(KeyLater, (Func<string, IEnumerable<string>, OnityTask<int>>)null), "null result selector");
            }
        }

        static async OnityTask<IOnityAsyncEnumerable<int>> RangeLater(int n)
        {
            await OnityTask.NextFrame();
            return OnityAsyncEnumerable.Range(0, n);
        }

        [Test]
        public void SelectManyAwaitEnumeratesEachAwaitedStreamInOrder()
        {
            using (var h = new TestHost())
            {
                h.RunFrame();
                var src = OnityAsyncEnumerable.Range(1, 3);
                Assert.Equal("0,0,1,0,1,2", string.Join(",", Run(h, src.SelectManyAwait(RangeLater).ToArrayAsync())), "flattened in order");
                Assert.Equal("0,0,1", string.Join(",", Run(h, src.SelectManyAwait((x, i) => RangeLater(i)).ToArrayAsync())), "index");
                Assert.Equal("1:0,2:0,2:1", string.Join(",", Run(h, src.Take(2).SelectManyAwait(RangeLater, (x, c) => new OnityTask<string>(x + ":" + c)).ToArrayAsync())), "result selector");
                var cts = new CancellationTokenSource();
                Assert.Equal("0,0,1", string.Join(",", Run(h, src.SelectManyAwaitWithCancellation((x, i, ct) => RangeLater(ct == cts.Token ? i : 0)).ToArrayAsync(cts.Token))), "WithCancellation: index and token");
                Assert.Equal("1:0", string.Join(",", Run(h, src.Take(1).SelectManyAwaitWithCancellation((x, ct) => RangeLater(x), (x, c, ct) => new OnityTask<string>(x + ":" + c)).ToArrayAsync())), "WithCancellation: result selector");
                Assert.Throws<InvalidOperationException>(() => Run(h, src.SelectManyAwait(x => new OnityTask<IOnityAsyncEnumerable<int>>(null)).ToArrayAsync()), "a null inner stream");
                Assert.Throws<ArgumentNullException>(() => src.SelectManyAwait((Func<int, OnityTask<IOnityAsyncEnumerable<int>>>)null), "null selector");
            }
        }

        [Test]
        public void OrderByAwaitSortsStablyByAwaitedKeys()
        {
            using (var h = new TestHost())
            {
                h.RunFrame();
                var src = new[] { "b2", "a2", "b1", "a1", "c1" }.ToOnityAsyncEnumerable();
                Assert.Equal("a2,a1,b2,b1,c1", string.Join(",", Run(h, src.OrderByAwait(KeyLater).ToArrayAsync())), "stable by the awaited key");
                Assert.Equal("c1,b2,b1,a2,a1", string.Join(",", Run(h, src.OrderByDescendingAwait(KeyLater).ToArrayAsync())), "descending, stable");
                Assert.Equal("a1,a2,b1,b2,c1", string.Join(",", Run(h, src.OrderByAwait(KeyLater).ThenByAwait(s => Later(s.Substring(1))).ToArrayAsync())), "ThenByAwait");
                Assert.Equal("a2,a1,b2,b1,c1", string.Join(",", Run(h, src.OrderBy(Key).ThenByDescendingAwait(s => Later(s.Substring(1))).ToArrayAsync())), "sync OrderBy then ThenByDescendingAwait");
                var cts = new CancellationTokenSource();
                Assert.Equal("c1,b1,b2,a1,a2", string.Join(",", Run(h, src.OrderByDescendingAwaitWithCancellation((s, ct) => KeyLater(ct == cts.Token ? s : "z"), StringComparer.Ordinal)
                    .ThenByAwaitWithCancellation((s, ct) => Later(s.Substring(1))).ToArrayAsync(cts.Token))), "WithCancellation forms, the token handed on");
                Assert.Equal("a2,a1,b2,b1,c1", string.Join(",", Run(h, src.OrderByAwaitWithCancellation((s, ct) => KeyLater(s)).ThenByDescendingAwaitWithCancellation((s, ct) => Later(s.Substring(1)), StringComparer.Ordinal).ThenBy(s => s).ToArrayAsync())), "then a sync ThenBy");
                Assert.Throws<ArgumentNullException>(() => src.OrderByAwait((Func<string, OnityTask<string>>)null), "null key selector");
                Assert.Throws<ArgumentException>(() => new Foreign().ThenByAwait(s => Later(s)), "an ordering of another implementation");
            }
        }

        static OnityTask<string> Later(string s) { return KeyLaterWhole(s); }

        static async OnityTask<string> KeyLaterWhole(string s)
        {
            await OnityTask.NextFrame();
            return s;
        }

        sealed class Foreign : IOnityOrderedAsyncEnumerable<string>
        {
            public IOnityOrderedAsyncEnumerable<string> CreateOrderedEnumerable<TKey>(Func<string, TKey> keySelector, IComparer<TKey> comparer, bool descending) { return this; }
            public IOnityAsyncEnumerator<string> GetAsyncEnumerator(CancellationToken cancellationToken = default(CancellationToken)) { return OnityAsyncEnumerable.Empty<string>().GetAsyncEnumerator(cancellationToken); }
        }
}
}
