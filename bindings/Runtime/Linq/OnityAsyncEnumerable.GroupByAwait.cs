using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;

namespace Onity
{
    // GroupByAwait / GroupByAwaitWithCancellation (UniTask's Linq/GroupBy.cs): the keys (and
    // elements) awaited in source order, then the groups in the order of their first element,
    // given when the source ends; the result-selector forms await one result per group.
    public static partial class OnityAsyncEnumerable
    {
        /// <summary>The elements grouped by the awaited key.</summary>
        public static IOnityAsyncEnumerable<IGrouping<TKey, T>> GroupByAwait<T, TKey>(this IOnityAsyncEnumerable<T> source, Func<T, OnityTask<TKey>> keySelector)
        {
            return GroupByAwait(source, keySelector, EqualityComparer<TKey>.Default);
        }

        public static IOnityAsyncEnumerable<IGrouping<TKey, T>> GroupByAwait<T, TKey>(this IOnityAsyncEnumerable<T> source, Func<T, OnityTask<TKey>> keySelector, IEqualityComparer<TKey> comparer)
        {
            Check(source, keySelector, "keySelector");
            return GroupByAwaitCore(source, Wrap(keySelector, "keySelector"), Sel<T>.Identity, NotNull(comparer));
        }

        public static IOnityAsyncEnumerable<IGrouping<TKey, TElement>> GroupByAwait<T, TKey, TElement>(this IOnityAsyncEnumerable<T> source, Func<T, OnityTask<TKey>> keySelector, Func<T, OnityTask<TElement>> elementSelector)
        {
            return GroupByAwait(source, keySelector, elementSelector, EqualityComparer<TKey>.Default);
        }

        public static IOnityAsyncEnumerable<IGrouping<TKey, TElement>> GroupByAwait<T, TKey, TElement>(this IOnityAsyncEnumerable<T> source, Func<T, OnityTask<TKey>> keySelector, Func<T, OnityTask<TElement>> elementSelector, IEqualityComparer<TKey> comparer)
        {
            Check(source, keySelector, "keySelector");
            return GroupByAwaitCore(source, Wrap(keySelector, "keySelector"), Wrap(elementSelector, "elementSelector"), NotNull(comparer));
        }

        public static IOnityAsyncEnumerable<TResult> GroupByAwait<T, TKey, TResult>(this IOnityAsyncEnumerable<T> source, Func<T, OnityTask<TKey>> keySelector, Func<TKey, IEnumerable<T>, OnityTask<TResult>> resultSelector)
        {
            return GroupByAwait(source, keySelector, resultSelector, EqualityComparer<TKey>.Default);
        }

        public static IOnityAsyncEnumerable<TResult> GroupByAwait<T, TKey, TElement, TResult>(this IOnityAsyncEnumerable<T> source, Func<T, OnityTask<TKey>> keySelector, Func<T, OnityTask<TElement>> elementSelector, Func<TKey, IEnumerable<TElement>, OnityTask<TResult>> resultSelector)
        {
            return GroupByAwait(source, keySelector, elementSelector, resultSelector, EqualityComparer<TKey>.Default);
        }

        public static IOnityAsyncEnumerable<TResult> GroupByAwait<T, TKey, TResult>(this IOnityAsyncEnumerable<T> source, Func<T, OnityTask<TKey>> keySelector, Func<TKey, IEnumerable<T>, OnityTask<TResult>> resultSelector, IEqualityComparer<TKey> comparer)
        {
            Check(source, keySelector, "keySelector");
            return GroupByAwaitResultCore(source, Wrap(keySelector, "keySelector"), Sel<T>.Identity, WrapResult(resultSelector), NotNull(comparer));
        }

        public static IOnityAsyncEnumerable<TResult> GroupByAwait<T, TKey, TElement, TResult>(this IOnityAsyncEnumerable<T> source, Func<T, OnityTask<TKey>> keySelector, Func<T, OnityTask<TElement>> elementSelector, Func<TKey, IEnumerable<TElement>, OnityTask<TResult>> resultSelector, IEqualityComparer<TKey> comparer)
        {
            Check(source, keySelector, "keySelector");
            return GroupByAwaitResultCore(source, Wrap(keySelector, "keySelector"), Wrap(elementSelector, "elementSelector"), WrapResult(resultSelector), NotNull(comparer));
        }

        /// <summary>The elements grouped by the awaited key (selectors handed the enumeration's token).</summary>
        public static IOnityAsyncEnumerable<IGrouping<TKey, T>> GroupByAwaitWithCancellation<T, TKey>(this IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector)
        {
            return GroupByAwaitWithCancellation(source, keySelector, EqualityComparer<TKey>.Default);
        }

        public static IOnityAsyncEnumerable<IGrouping<TKey, T>> GroupByAwaitWithCancellation<T, TKey>(this IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector, IEqualityComparer<TKey> comparer)
        {
            Check(source, keySelector, "keySelector");
            return GroupByAwaitCore(source, NotNull(keySelector, "keySelector"), Sel<T>.Identity, NotNull(comparer));
        }

        public static IOnityAsyncEnumerable<IGrouping<TKey, TElement>> GroupByAwaitWithCancellation<T, TKey, TElement>(this IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector, Func<T, CancellationToken, OnityTask<TElement>> elementSelector)
        {
            return GroupByAwaitWithCancellation(source, keySelector, elementSelector, EqualityComparer<TKey>.Default);
        }

        public static IOnityAsyncEnumerable<IGrouping<TKey, TElement>> GroupByAwaitWithCancellation<T, TKey, TElement>(this IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector, Func<T, CancellationToken, OnityTask<TElement>> elementSelector, IEqualityComparer<TKey> comparer)
        {
            Check(source, keySelector, "keySelector");
            return GroupByAwaitCore(source, NotNull(keySelector, "keySelector"), NotNull(elementSelector, "elementSelector"), NotNull(comparer));
        }

        public static IOnityAsyncEnumerable<TResult> GroupByAwaitWithCancellation<T, TKey, TResult>(this IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector, Func<TKey, IEnumerable<T>, CancellationToken, OnityTask<TResult>> resultSelector)
        {
            return GroupByAwaitWithCancellation(source, keySelector, resultSelector, EqualityComparer<TKey>.Default);
        }

        public static IOnityAsyncEnumerable<TResult> GroupByAwaitWithCancellation<T, TKey, TElement, TResult>(this IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector, Func<T, CancellationToken, OnityTask<TElement>> elementSelector, Func<TKey, IEnumerable<TElement>, CancellationToken, OnityTask<TResult>> resultSelector)
        {
            return GroupByAwaitWithCancellation(source, keySelector, elementSelector, resultSelector, EqualityComparer<TKey>.Default);
        }

        public static IOnityAsyncEnumerable<TResult> GroupByAwaitWithCancellation<T, TKey, TResult>(this IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector, Func<TKey, IEnumerable<T>, CancellationToken, OnityTask<TResult>> resultSelector, IEqualityComparer<TKey> comparer)
        {
            Check(source, keySelector, "keySelector");
            return GroupByAwaitResultCore(source, NotNull(keySelector, "keySelector"), Sel<T>.Identity, NotNull3(resultSelector), NotNull(comparer));
        }

        public static IOnityAsyncEnumerable<TResult> GroupByAwaitWithCancellation<T, TKey, TElement, TResult>(this IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector, Func<T, CancellationToken, OnityTask<TElement>> elementSelector, Func<TKey, IEnumerable<TElement>, CancellationToken, OnityTask<TResult>> resultSelector, IEqualityComparer<TKey> comparer)
        {
            Check(source, keySelector, "keySelector");
            return GroupByAwaitResultCore(source, NotNull(keySelector, "keySelector"), NotNull(elementSelector, "elementSelector"), NotNull3(resultSelector), NotNull(comparer));
        }

        static Func<TKey, IEnumerable<TElement>, CancellationToken, OnityTask<TResult>> WrapResult<TKey, TElement, TResult>(Func<TKey, IEnumerable<TElement>, OnityTask<TResult>> f)
        {
            if (f == null) throw new ArgumentNullException("resultSelector");
            return (k, g, ct) => f(k, g);
        }

        static Func<TKey, IEnumerable<TElement>, CancellationToken, OnityTask<TResult>> NotNull3<TKey, TElement, TResult>(Func<TKey, IEnumerable<TElement>, CancellationToken, OnityTask<TResult>> f)
        {
            if (f == null) throw new ArgumentNullException("resultSelector");
            return f;
        }

        static IOnityAsyncEnumerable<IGrouping<TKey, TElement>> GroupByAwaitCore<T, TKey, TElement>(IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector, Func<T, CancellationToken, OnityTask<TElement>> elementSelector, IEqualityComparer<TKey> comparer)
        {
            return Create<IGrouping<TKey, TElement>>((w, ct) => GroupByAwaitProducer(source, keySelector, elementSelector, comparer, w, ct));
        }

        static async OnityTask GroupByAwaitProducer<T, TKey, TElement>(IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector, Func<T, CancellationToken, OnityTask<TElement>> elementSelector, IEqualityComparer<TKey> comparer, IOnityAsyncWriter<IGrouping<TKey, TElement>> w, CancellationToken ct)
        {
            var pairs = await GatherAwait(source, keySelector, elementSelector, false, ct, Src(w, ct));
            foreach (var g in pairs.GroupBy(p => p.Key, p => p.Value, comparer)) await w.YieldAsync(g);
        }

        static IOnityAsyncEnumerable<TResult> GroupByAwaitResultCore<T, TKey, TElement, TResult>(IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector, Func<T, CancellationToken, OnityTask<TElement>> elementSelector, Func<TKey, IEnumerable<TElement>, CancellationToken, OnityTask<TResult>> resultSelector, IEqualityComparer<TKey> comparer)
        {
            return Create<TResult>((w, ct) => GroupByAwaitResultProducer(source, keySelector, elementSelector, resultSelector, comparer, w, ct));
        }

        static async OnityTask GroupByAwaitResultProducer<T, TKey, TElement, TResult>(IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector, Func<T, CancellationToken, OnityTask<TElement>> elementSelector, Func<TKey, IEnumerable<TElement>, CancellationToken, OnityTask<TResult>> resultSelector, IEqualityComparer<TKey> comparer, IOnityAsyncWriter<TResult> w, CancellationToken ct)
        {
            var pairs = await GatherAwait(source, keySelector, elementSelector, false, ct, Src(w, ct));
            foreach (var g in pairs.GroupBy(p => p.Key, p => p.Value, comparer)) await w.YieldAsync(await resultSelector(g.Key, g, ct));
        }
    }
}
