using System;
using System.Collections.Generic;
using System.Threading;
using Onity.Linq;

namespace Onity
{
    // OrderByAwait, OrderByDescendingAwait, ThenByAwait, ThenByDescendingAwait and their
    // WithCancellation forms (UniTask's Linq/OrderBy.cs): the keys awaited for every element, in
    // order, when the sorted stream is enumerated (OrderedStream's key stages).
    public static partial class OnityAsyncEnumerable
    {
        /// <summary>The elements sorted by an awaited key (stable).</summary>
        public static IOnityOrderedAsyncEnumerable<T> OrderByAwait<T, TKey>(this IOnityAsyncEnumerable<T> source, Func<T, OnityTask<TKey>> keySelector)
        {
            return OrderByAwait(source, keySelector, Comparer<TKey>.Default);
        }

        public static IOnityOrderedAsyncEnumerable<T> OrderByAwait<T, TKey>(this IOnityAsyncEnumerable<T> source, Func<T, OnityTask<TKey>> keySelector, IComparer<TKey> comparer)
        {
            Check(source, keySelector, "keySelector");
            return new OrderedStream<T>(source, new KeyStage<T, TKey>(null, null, Wrap(keySelector, "keySelector"), comparer ?? Comparer<TKey>.Default, false));
        }

        /// <summary>The elements sorted by an awaited key (stable); the selector is handed the enumeration's token.</summary>
        public static IOnityOrderedAsyncEnumerable<T> OrderByAwaitWithCancellation<T, TKey>(this IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector)
        {
            return OrderByAwaitWithCancellation(source, keySelector, Comparer<TKey>.Default);
        }

        public static IOnityOrderedAsyncEnumerable<T> OrderByAwaitWithCancellation<T, TKey>(this IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector, IComparer<TKey> comparer)
        {
            Check(source, keySelector, "keySelector");
            return new OrderedStream<T>(source, new KeyStage<T, TKey>(null, null, keySelector, comparer ?? Comparer<TKey>.Default, false));
        }

        /// <summary>The elements sorted by an awaited key, descending (stable).</summary>
        public static IOnityOrderedAsyncEnumerable<T> OrderByDescendingAwait<T, TKey>(this IOnityAsyncEnumerable<T> source, Func<T, OnityTask<TKey>> keySelector)
        {
            return OrderByDescendingAwait(source, keySelector, Comparer<TKey>.Default);
        }

        public static IOnityOrderedAsyncEnumerable<T> OrderByDescendingAwait<T, TKey>(this IOnityAsyncEnumerable<T> source, Func<T, OnityTask<TKey>> keySelector, IComparer<TKey> comparer)
        {
            Check(source, keySelector, "keySelector");
            return new OrderedStream<T>(source, new KeyStage<T, TKey>(null, null, Wrap(keySelector, "keySelector"), comparer ?? Comparer<TKey>.Default, true));
        }

        /// <summary>The elements sorted by an awaited key, descending (stable); the selector is handed the enumeration's token.</summary>
        public static IOnityOrderedAsyncEnumerable<T> OrderByDescendingAwaitWithCancellation<T, TKey>(this IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector)
        {
            return OrderByDescendingAwaitWithCancellation(source, keySelector, Comparer<TKey>.Default);
        }

        public static IOnityOrderedAsyncEnumerable<T> OrderByDescendingAwaitWithCancellation<T, TKey>(this IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector, IComparer<TKey> comparer)
        {
            Check(source, keySelector, "keySelector");
            return new OrderedStream<T>(source, new KeyStage<T, TKey>(null, null, keySelector, comparer ?? Comparer<TKey>.Default, true));
        }

        /// <summary>Refines the order by an awaited key (on an ordering made by this package's OrderBy* / ThenBy*).</summary>
        public static IOnityOrderedAsyncEnumerable<T> ThenByAwait<T, TKey>(this IOnityOrderedAsyncEnumerable<T> source, Func<T, OnityTask<TKey>> keySelector)
        {
            return ThenByAwait(source, keySelector, Comparer<TKey>.Default);
        }

        public static IOnityOrderedAsyncEnumerable<T> ThenByAwait<T, TKey>(this IOnityOrderedAsyncEnumerable<T> source, Func<T, OnityTask<TKey>> keySelector, IComparer<TKey> comparer)
        {
            Check(source, keySelector, "keySelector");
            return ThenByAwaitCore(source, Wrap(keySelector, "keySelector"), comparer, false);
        }

        /// <summary>Refines the order by an awaited key (on an ordering made by this package's OrderBy* / ThenBy*); the selector is handed the enumeration's token.</summary>
        public static IOnityOrderedAsyncEnumerable<T> ThenByAwaitWithCancellation<T, TKey>(this IOnityOrderedAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector)
        {
            return ThenByAwaitWithCancellation(source, keySelector, Comparer<TKey>.Default);
        }

        public static IOnityOrderedAsyncEnumerable<T> ThenByAwaitWithCancellation<T, TKey>(this IOnityOrderedAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector, IComparer<TKey> comparer)
        {
            Check(source, keySelector, "keySelector");
            return ThenByAwaitCore(source, keySelector, comparer, false);
        }

        /// <summary>Refines the order by an awaited key, descending.</summary>
        public static IOnityOrderedAsyncEnumerable<T> ThenByDescendingAwait<T, TKey>(this IOnityOrderedAsyncEnumerable<T> source, Func<T, OnityTask<TKey>> keySelector)
        {
            return ThenByDescendingAwait(source, keySelector, Comparer<TKey>.Default);
        }

        public static IOnityOrderedAsyncEnumerable<T> ThenByDescendingAwait<T, TKey>(this IOnityOrderedAsyncEnumerable<T> source, Func<T, OnityTask<TKey>> keySelector, IComparer<TKey> comparer)
        {
            Check(source, keySelector, "keySelector");
            return ThenByAwaitCore(source, Wrap(keySelector, "keySelector"), comparer, true);
        }

        /// <summary>Refines the order by an awaited key, descending; the selector is handed the enumeration's token.</summary>
        public static IOnityOrderedAsyncEnumerable<T> ThenByDescendingAwaitWithCancellation<T, TKey>(this IOnityOrderedAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector)
        {
            return ThenByDescendingAwaitWithCancellation(source, keySelector, Comparer<TKey>.Default);
        }

        public static IOnityOrderedAsyncEnumerable<T> ThenByDescendingAwaitWithCancellation<T, TKey>(this IOnityOrderedAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector, IComparer<TKey> comparer)
        {
            Check(source, keySelector, "keySelector");
            return ThenByAwaitCore(source, keySelector, comparer, true);
        }

        static IOnityOrderedAsyncEnumerable<T> ThenByAwaitCore<T, TKey>(IOnityOrderedAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector, IComparer<TKey> comparer, bool descending)
        {
            var ordered = source as OrderedStream<T>;
            if (ordered == null)
                throw new ArgumentException("Onity: ThenBy*Await refines an ordering made by this package's OrderBy* / ThenBy* operators.", "source");
            return ordered.ThenAwait(keySelector, comparer, descending);
        }
    }
}
