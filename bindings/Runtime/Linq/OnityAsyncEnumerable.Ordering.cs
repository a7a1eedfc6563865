using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using Onity.Linq;

namespace Onity
{
    /// <summary>A sorted stream that further keys refine (UniTask's IUniTaskOrderedAsyncEnumerable).</summary>
    public interface IOnityOrderedAsyncEnumerable<T> : IOnityAsyncEnumerable<T>
    {
        IOnityOrderedAsyncEnumerable<T> CreateOrderedEnumerable<TKey>(Func<T, TKey> keySelector, IComparer<TKey> comparer, bool descending);
    }

    public static partial class OnityAsyncEnumerable
    {
        // Operators that need the whole source first (sorting, grouping): the elements are gathered
        // in a list, then handed to System.Linq's stable sort / lookup and given one by one.

        /// <summary>The elements sorted by key (stable), given when the source ends.</summary>
        public static IOnityOrderedAsyncEnumerable<T> OrderBy<T, TKey>(this IOnityAsyncEnumerable<T> source, Func<T, TKey> keySelector)
        {
            return OrderBy(source, keySelector, Comparer<TKey>.Default);
        }

        public static IOnityOrderedAsyncEnumerable<T> OrderBy<T, TKey>(this IOnityAsyncEnumerable<T> source, Func<T, TKey> keySelector, IComparer<TKey> comparer)
        {
            Check(source, keySelector, "keySelector");
            return new OrderedStream<T>(source, new KeyStage<T, TKey>(null, keySelector, null, comparer ?? Comparer<TKey>.Default, false));
        }

        public static IOnityOrderedAsyncEnumerable<T> OrderByDescending<T, TKey>(this IOnityAsyncEnumerable<T> source, Func<T, TKey> keySelector)
        {
            return OrderByDescending(source, keySelector, Comparer<TKey>.Default);
        }

        public static IOnityOrderedAsyncEnumerable<T> OrderByDescending<T, TKey>(this IOnityAsyncEnumerable<T> source, Func<T, TKey> keySelector, IComparer<TKey> comparer)
        {
            Check(source, keySelector, "keySelector");
            return new OrderedStream<T>(source, new KeyStage<T, TKey>(null, keySelector, null, comparer ?? Comparer<TKey>.Default, true));
        }

        /// <summary>Refines the order by a further key.</summary>
        public static IOnityOrderedAsyncEnumerable<T> ThenBy<T, TKey>(this IOnityOrderedAsyncEnumerable<T> source, Func<T, TKey> keySelector, IComparer<TKey> comparer = null)
        {
            Check(source, keySelector, "keySelector");
            return source.CreateOrderedEnumerable(keySelector, comparer ?? Comparer<TKey>.Default, false);
        }

        public static IOnityOrderedAsyncEnumerable<T> ThenByDescending<T, TKey>(this IOnityOrderedAsyncEnumerable<T> source, Func<T, TKey> keySelector, IComparer<TKey> comparer = null)
        {
            Check(source, keySelector, "keySelector");
            return source.CreateOrderedEnumerable(keySelector, comparer ?? Comparer<TKey>.Default, true);
        }

        /// <summary>The elements grouped by key, groups in the order of their first element, given
        /// when the source ends.</summary>
        public static IOnityAsyncEnumerable<IGrouping<TKey, T>> GroupBy<T, TKey>(this IOnityAsyncEnumerable<T> source, Func<T, TKey> keySelector, IEqualityComparer<TKey> comparer = null)
        {
            Check(source, keySelector, "keySelector");
            return Create<IGrouping<TKey, T>>((w, ct) => GroupProducer(source, keySelector, x => x, comparer, w, ct));
        }

        public static IOnityAsyncEnumerable<IGrouping<TKey, TElement>> GroupBy<T, TKey, TElement>(this IOnityAsyncEnumerable<T> source, Func<T, TKey> keySelector, Func<T, TElement> elementSelector, IEqualityComparer<TKey> comparer = null)
        {
            Check(source, keySelector, "keySelector");
            if (elementSelector == null) throw new ArgumentNullException("elementSelector");
            return Create<IGrouping<TKey, TElement>>((w, ct) => GroupProducer(source, keySelector, elementSelector, comparer, w, ct));
        }

        /// <summary>The elements of each element's stream, in order (each inner stream to its end
        /// before the next outer element).</summary>
        public static IOnityAsyncEnumerable<TResult> SelectMany<T, TResult>(this IOnityAsyncEnumerable<T> source, Func<T, IOnityAsyncEnumerable<TResult>> selector)
        {
            Check(source, selector, "selector");
            return Create<TResult>((w, ct) => SelectManyProducer(source, selector, (x, y) => y, w, ct));
        }

        public static IOnityAsyncEnumerable<TResult> SelectMany<T, TCollection, TResult>(this IOnityAsyncEnumerable<T> source, Func<T, IOnityAsyncEnumerable<TCollection>> collectionSelector, Func<T, TCollection, TResult> resultSelector)
        {
            Check(source, collectionSelector, "collectionSelector");
            if (resultSelector == null) throw new ArgumentNullException("resultSelector");
            return Create<TResult>((w, ct) => SelectManyProducer(source, collectionSelector, resultSelector, w, ct));
        }

        /// <summary>True when both streams have equal elements in the same order (stops at the first difference).</summary>
        public static OnityTask<bool> SequenceEqualAsync<T>(this IOnityAsyncEnumerable<T> first, IOnityAsyncEnumerable<T> second, IEqualityComparer<T> comparer = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (first == null) throw new ArgumentNullException("first");
            if (second == null) throw new ArgumentNullException("second");
            return SequenceEqualCore(first, second, comparer ?? EqualityComparer<T>.Default, cancellationToken);
        }

        static async OnityTask GroupProducer<T, TKey, TElement>(IOnityAsyncEnumerable<T> source, Func<T, TKey> key, Func<T, TElement> element, IEqualityComparer<TKey> comparer, IOnityAsyncWriter<IGrouping<TKey, TElement>> w, CancellationToken ct)
        {
            var list = await ToListCore(source, Src(w, ct));
            foreach (var g in list.GroupBy(key, element, comparer ?? EqualityComparer<TKey>.Default)) await w.YieldAsync(g);
        }

        static async OnityTask SelectManyProducer<T, TCollection, TResult>(IOnityAsyncEnumerable<T> source, Func<T, IOnityAsyncEnumerable<TCollection>> selector, Func<T, TCollection, TResult> result, IOnityAsyncWriter<TResult> w, CancellationToken ct)
        {
            var e = source.GetAsyncEnumerator(Src(w, ct));
            try
            {
                while (await e.MoveNextAsync())
                {
                    var x = e.Current;
                    var inner = selector(x).GetAsyncEnumerator(Src(w, ct));
                    try
                    {
                        while (await inner.MoveNextAsync()) await w.YieldAsync(result(x, inner.Current));
                    }
                    finally
                    {
                        await inner.DisposeAsync();
                    }
                }
            }
            finally
            {
                await e.DisposeAsync();
            }
        }

        static async OnityTask<bool> SequenceEqualCore<T>(IOnityAsyncEnumerable<T> first, IOnityAsyncEnumerable<T> second, IEqualityComparer<T> comparer, CancellationToken ct)
        {
            var a = first.GetAsyncEnumerator(ct);
            bool equal = true;
            try
            {
                var b = second.GetAsyncEnumerator(ct);
                try
                {
                    while (equal)
                    {
                        bool ma = await a.MoveNextAsync();
                        bool mb = await b.MoveNextAsync();
                        if (ma != mb) equal = false;
                        else if (!ma) break;
                        else if (!comparer.Equals(a.Current, b.Current)) equal = false;
                    }
                }
                finally
                {
                    await b.DisposeAsync();
                }
            }
            finally
            {
                await a.DisposeAsync();
            }
            return equal;
        }
    }
}

namespace Onity.Linq
{
    /// <summary>A sorted stream: the elements gathered, then their indexes sorted by the chain of
    /// key stages (System.Linq's stable sort; each stage's keys computed, awaited when the
    /// selector is async, for every element in order), then the elements given in that order.</summary>
    sealed class OrderedStream<T> : IOnityOrderedAsyncEnumerable<T>
    {
        readonly IOnityAsyncEnumerable<T> source;
        readonly OrderStage<T> last;

        internal OrderedStream(IOnityAsyncEnumerable<T> source, OrderStage<T> last)
        {
            this.source = source;
            this.last = last;
        }

        public IOnityOrderedAsyncEnumerable<T> CreateOrderedEnumerable<TKey>(Func<T, TKey> keySelector, IComparer<TKey> comparer, bool descending)
        {
            if (keySelector == null) throw new ArgumentNullException("keySelector");
            return new OrderedStream<T>(source, new KeyStage<T, TKey>(last, keySelector, null, comparer ?? Comparer<TKey>.Default, descending));
        }

        internal IOnityOrderedAsyncEnumerable<T> ThenAwait<TKey>(Func<T, CancellationToken, OnityTask<TKey>> keySelector, IComparer<TKey> comparer, bool descending)
        {
            return new OrderedStream<T>(source, new KeyStage<T, TKey>(last, null, keySelector, comparer ?? Comparer<TKey>.Default, descending));
        }

        public IOnityAsyncEnumerator<T> GetAsyncEnumerator(CancellationToken cancellationToken = default(CancellationToken))
        {
            return OnityAsyncEnumerable.Create<T>((w, ct) => Produce(w, ct)).GetAsyncEnumerator(cancellationToken);
        }

        async OnityTask Produce(IOnityAsyncWriter<T> w, CancellationToken ct)
        {
            var list = await source.ToListAsync(OnityAsyncEnumerable.Src(w, ct));
            foreach (var i in await last.Apply(list, ct)) await w.YieldAsync(list[i]);
        }
    }

    abstract class OrderStage<T>
    {
        /// <summary>The indexes of <paramref name="items"/> ordered by this stage and the ones before.</summary>
        internal abstract OnityTask<IOrderedEnumerable<int>> Apply(List<T> items, CancellationToken ct);
    }

    sealed class KeyStage<T, TKey> : OrderStage<T>
    {
        readonly OrderStage<T> prev;
        readonly Func<T, TKey> keySelector;
        readonly Func<T, CancellationToken, OnityTask<TKey>> awaitedKeySelector;
        readonly IComparer<TKey> comparer;
        readonly bool descending;

        internal KeyStage(OrderStage<T> prev, Func<T, TKey> keySelector, Func<T, CancellationToken, OnityTask<TKey>> awaitedKeySelector, IComparer<TKey> comparer, bool descending)
        {
            this.prev = prev;
            this.keySelector = keySelector;
            this.awaitedKeySelector = awaitedKeySelector;
            this.comparer = comparer;
            this.descending = descending;
        }

        internal override async OnityTask<IOrderedEnumerable<int>> Apply(List<T> items, CancellationToken ct)
        {
            var before = prev == null ? null : await prev.Apply(items, ct);
            var keys = new TKey[items.Count];
            for (int i = 0; i < keys.Length; i++)
                keys[i] = keySelector != null ? keySelector(items[i]) : await awaitedKeySelector(items[i], ct);
            Func<int, TKey> key = i => keys[i];
            if (before != null) return before.CreateOrderedEnumerable(key, comparer, descending);
            var indexes = Enumerable.Range(0, keys.Length);
            return descending ? indexes.OrderByDescending(key, comparer) : indexes.OrderBy(key, comparer);
        }
    }
}
