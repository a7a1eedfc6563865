using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;

namespace Onity
{
    // Join and GroupJoin (UniTask's Linq/Join.cs, GroupJoin.cs): the inner stream is gathered
    // into a lookup first (elements with a null key left out, as System.Linq's joins), then the
    // outer stream is enumerated: Join yields a result per matching pair, GroupJoin one per outer
    // element with its (possibly empty) matches. Every form runs on one core with awaited,
    // token-taking selectors (OnityAsyncEnumerable.Join.cs wraps the others once per call).
    public static partial class OnityAsyncEnumerable
    {
        /// <summary>The pairs of outer and inner elements with equal keys, in outer order (then inner order).</summary>
        public static IOnityAsyncEnumerable<TResult> Join<TOuter, TInner, TKey, TResult>(this IOnityAsyncEnumerable<TOuter> outer, IOnityAsyncEnumerable<TInner> inner, Func<TOuter, TKey> outerKeySelector, Func<TInner, TKey> innerKeySelector, Func<TOuter, TInner, TResult> resultSelector)
        {
            return Join(outer, inner, outerKeySelector, innerKeySelector, resultSelector, EqualityComparer<TKey>.Default);
        }

        public static IOnityAsyncEnumerable<TResult> Join<TOuter, TInner, TKey, TResult>(this IOnityAsyncEnumerable<TOuter> outer, IOnityAsyncEnumerable<TInner> inner, Func<TOuter, TKey> outerKeySelector, Func<TInner, TKey> innerKeySelector, Func<TOuter, TInner, TResult> resultSelector, IEqualityComparer<TKey> comparer)
        {
            CheckJoin(outer, inner, resultSelector);
            Func<TOuter, TInner, CancellationToken, OnityTask<TResult>> rs = (o, i, ct) => new OnityTask<TResult>(resultSelector(o, i));
            return JoinCore(outer, inner, Wrap(outerKeySelector, "outerKeySelector"), Wrap(innerKeySelector, "innerKeySelector"), rs, NotNull(comparer));
        }

        /// <summary>Join with awaited selectors.</summary>
        public static IOnityAsyncEnumerable<TResult> JoinAwait<TOuter, TInner, TKey, TResult>(this IOnityAsyncEnumerable<TOuter> outer, IOnityAsyncEnumerable<TInner> inner, Func<TOuter, OnityTask<TKey>> outerKeySelector, Func<TInner, OnityTask<TKey>> innerKeySelector, Func<TOuter, TInner, OnityTask<TResult>> resultSelector)
        {
            return JoinAwait(outer, inner, outerKeySelector, innerKeySelector, resultSelector, EqualityComparer<TKey>.Default);
        }

        public static IOnityAsyncEnumerable<TResult> JoinAwait<TOuter, TInner, TKey, TResult>(this IOnityAsyncEnumerable<TOuter> outer, IOnityAsyncEnumerable<TInner> inner, Func<TOuter, OnityTask<TKey>> outerKeySelector, Func<TInner, OnityTask<TKey>> innerKeySelector, Func<TOuter, TInner, OnityTask<TResult>> resultSelector, IEqualityComparer<TKey> comparer)
        {
            CheckJoin(outer, inner, resultSelector);
            Func<TOuter, TInner, CancellationToken, OnityTask<TResult>> rs = (o, i, ct) => resultSelector(o, i);
            return JoinCore(outer, inner, Wrap(outerKeySelector, "outerKeySelector"), Wrap(innerKeySelector, "innerKeySelector"), rs, NotNull(comparer));
        }

        /// <summary>Join with awaited selectors (handed the enumeration's token).</summary>
        public static IOnityAsyncEnumerable<TResult> JoinAwaitWithCancellation<TOuter, TInner, TKey, TResult>(this IOnityAsyncEnumerable<TOuter> outer, IOnityAsyncEnumerable<TInner> inner, Func<TOuter, CancellationToken, OnityTask<TKey>> outerKeySelector, Func<TInner, CancellationToken, OnityTask<TKey>> innerKeySelector, Func<TOuter, TInner, CancellationToken, OnityTask<TResult>> resultSelector)
        {
            return JoinAwaitWithCancellation(outer, inner, outerKeySelector, innerKeySelector, resultSelector, EqualityComparer<TKey>.Default);
        }

        public static IOnityAsyncEnumerable<TResult> JoinAwaitWithCancellation<TOuter, TInner, TKey, TResult>(this IOnityAsyncEnumerable<TOuter> outer, IOnityAsyncEnumerable<TInner> inner, Func<TOuter, CancellationToken, OnityTask<TKey>> outerKeySelector, Func<TInner, CancellationToken, OnityTask<TKey>> innerKeySelector, Func<TOuter, TInner, CancellationToken, OnityTask<TResult>> resultSelector, IEqualityComparer<TKey> comparer)
        {
            CheckJoin(outer, inner, resultSelector);
            Func<TOuter, TInner, CancellationToken, OnityTask<TResult>> rs = resultSelector;
            return JoinCore(outer, inner, NotNull(outerKeySelector, "outerKeySelector"), NotNull(innerKeySelector, "innerKeySelector"), rs, NotNull(comparer));
        }

        /// <summary>Each outer element with the inner elements of equal key.</summary>
        public static IOnityAsyncEnumerable<TResult> GroupJoin<TOuter, TInner, TKey, TResult>(this IOnityAsyncEnumerable<TOuter> outer, IOnityAsyncEnumerable<TInner> inner, Func<TOuter, TKey> outerKeySelector, Func<TInner, TKey> innerKeySelector, Func<TOuter, IEnumerable<TInner>, TResult> resultSelector)
        {
            return GroupJoin(outer, inner, outerKeySelector, innerKeySelector, resultSelector, EqualityComparer<TKey>.Default);
        }

        public static IOnityAsyncEnumerable<TResult> GroupJoin<TOuter, TInner, TKey, TResult>(this IOnityAsyncEnumerable<TOuter> outer, IOnityAsyncEnumerable<TInner> inner, Func<TOuter, TKey> outerKeySelector, Func<TInner, TKey> innerKeySelector, Func<TOuter, IEnumerable<TInner>, TResult> resultSelector, IEqualityComparer<TKey> comparer)
        {
            CheckJoin(outer, inner, resultSelector);
            Func<TOuter, IEnumerable<TInner>, CancellationToken, OnityTask<TResult>> rs = (o, i, ct) => new OnityTask<TResult>(resultSelector(o, i));
            return GroupJoinCore(outer, inner, Wrap(outerKeySelector, "outerKeySelector"), Wrap(innerKeySelector, "innerKeySelector"), rs, NotNull(comparer));
        }

        /// <summary>GroupJoin with awaited selectors.</summary>
        public static IOnityAsyncEnumerable<TResult> GroupJoinAwait<TOuter, TInner, TKey, TResult>(this IOnityAsyncEnumerable<TOuter> outer, IOnityAsyncEnumerable<TInner> inner, Func<TOuter, OnityTask<TKey>> outerKeySelector, Func<TInner, OnityTask<TKey>> innerKeySelector, Func<TOuter, IEnumerable<TInner>, OnityTask<TResult>> resultSelector)
        {
            return GroupJoinAwait(outer, inner, outerKeySelector, innerKeySelector, resultSelector, EqualityComparer<TKey>.Default);
        }

        public static IOnityAsyncEnumerable<TResult> GroupJoinAwait<TOuter, TInner, TKey, TResult>(this IOnityAsyncEnumerable<TOuter> outer, IOnityAsyncEnumerable<TInner> inner, Func<TOuter, OnityTask<TKey>> outerKeySelector, Func<TInner, OnityTask<TKey>> innerKeySelector, Func<TOuter, IEnumerable<TInner>, OnityTask<TResult>> resultSelector, IEqualityComparer<TKey> comparer)
        {
            CheckJoin(outer, inner, resultSelector);
            Func<TOuter, IEnumerable<TInner>, CancellationToken, OnityTask<TResult>> rs = (o, i, ct) => resultSelector(o, i);
            return GroupJoinCore(outer, inner, Wrap(outerKeySelector, "outerKeySelector"), Wrap(innerKeySelector, "innerKeySelector"), rs, NotNull(comparer));
        }

        /// <summary>GroupJoin with awaited selectors (handed the enumeration's token).</summary>
        public static IOnityAsyncEnumerable<TResult> GroupJoinAwaitWithCancellation<TOuter, TInner, TKey, TResult>(this IOnityAsyncEnumerable<TOuter> outer, IOnityAsyncEnumerable<TInner> inner, Func<TOuter, CancellationToken, OnityTask<TKey>> outerKeySelector, Func<TInner, CancellationToken, OnityTask<TKey>> innerKeySelector, Func<TOuter, IEnumerable<TInner>, CancellationToken, OnityTask<TResult>> resultSelector)
        {
            return GroupJoinAwaitWithCancellation(outer, inner, outerKeySelector, innerKeySelector, resultSelector, EqualityComparer<TKey>.Default);
        }

        public static IOnityAsyncEnumerable<TResult> GroupJoinAwaitWithCancellation<TOuter, TInner, TKey, TResult>(this IOnityAsyncEnumerable<TOuter> outer, IOnityAsyncEnumerable<TInner> inner, Func<TOuter, CancellationToken, OnityTask<TKey>> outerKeySelector, Func<TInner, CancellationToken, OnityTask<TKey>> innerKeySelector, Func<TOuter, IEnumerable<TInner>, CancellationToken, OnityTask<TResult>> resultSelector, IEqualityComparer<TKey> comparer)
        {
            CheckJoin(outer, inner, resultSelector);
            Func<TOuter, IEnumerable<TInner>, CancellationToken, OnityTask<TResult>> rs = resultSelector;
            return GroupJoinCore(outer, inner, NotNull(outerKeySelector, "outerKeySelector"), NotNull(innerKeySelector, "innerKeySelector"), rs, NotNull(comparer));
        }

        static void CheckJoin(object outer, object inner, object resultSelector)
        {
            if (outer == null) throw new ArgumentNullException("outer");
            if (inner == null) throw new ArgumentNullException("inner");
            if (resultSelector == null) throw new ArgumentNullException("resultSelector");
        }

        static IOnityAsyncEnumerable<TResult> JoinCore<TOuter, TInner, TKey, TResult>(IOnityAsyncEnumerable<TOuter> outer, IOnityAsyncEnumerable<TInner> inner, Func<TOuter, CancellationToken, OnityTask<TKey>> outerKeySelector, Func<TInner, CancellationToken, OnityTask<TKey>> innerKeySelector, Func<TOuter, TInner, CancellationToken, OnityTask<TResult>> resultSelector, IEqualityComparer<TKey> comparer)
        {
            return Create<TResult>((w, ct) => JoinProducer(outer, inner, outerKeySelector, innerKeySelector, resultSelector, null, comparer, w, ct));
        }

        static IOnityAsyncEnumerable<TResult> GroupJoinCore<TOuter, TInner, TKey, TResult>(IOnityAsyncEnumerable<TOuter> outer, IOnityAsyncEnumerable<TInner> inner, Func<TOuter, CancellationToken, OnityTask<TKey>> outerKeySelector, Func<TInner, CancellationToken, OnityTask<TKey>> innerKeySelector, Func<TOuter, IEnumerable<TInner>, CancellationToken, OnityTask<TResult>> resultSelector, IEqualityComparer<TKey> comparer)
        {
            return Create<TResult>((w, ct) => JoinProducer(outer, inner, outerKeySelector, innerKeySelector, null, resultSelector, comparer, w, ct));
        }

        static async OnityTask JoinProducer<TOuter, TInner, TKey, TResult>(IOnityAsyncEnumerable<TOuter> outer, IOnityAsyncEnumerable<TInner> inner, Func<TOuter, CancellationToken, OnityTask<TKey>> outerKeySelector, Func<TInner, CancellationToken, OnityTask<TKey>> innerKeySelector, Func<TOuter, TInner, CancellationToken, OnityTask<TResult>> pairSelector, Func<TOuter, IEnumerable<TInner>, CancellationToken, OnityTask<TResult>> groupSelector, IEqualityComparer<TKey> comparer, IOnityAsyncWriter<TResult> w, CancellationToken ct)
        {
            var pairs = await GatherAwait(inner, innerKeySelector, Sel<TInner>.Identity, true, ct, Src(w, ct));
            var lookup = pairs.ToLookup(p => p.Key, p => p.Value, comparer);
            var e = outer.GetAsyncEnumerator(Src(w, ct));
            try
            {
                while (await e.MoveNextAsync())
                {
                    var o = e.Current;
                    var key = await outerKeySelector(o, ct);
                    if (groupSelector != null)
                    {
                        await w.YieldAsync(await groupSelector(o, key == null ? Enumerable.Empty<TInner>() : lookup[key], ct));
                        continue;
                    }
                    if (key == null) continue;
                    foreach (var i in lookup[key]) await w.YieldAsync(await pairSelector(o, i, ct));
                }
            }
            finally
            {
                await e.DisposeAsync();
            }
        }
    }
}
