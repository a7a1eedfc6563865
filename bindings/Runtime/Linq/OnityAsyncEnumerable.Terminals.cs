using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using Onity.Linq;

namespace Onity
{
    public static partial class OnityAsyncEnumerable
    {
        // Terminal operators (UniTask's ...Async names): async OnityTask methods (pooled runners)
        // that enumerate once and dispose the enumerator in a finally, as `await foreach` does.
        // A predicate's or selector's awaited form (...AwaitAsync, ...AwaitWithCancellationAsync)
        // is the synchronous terminal over WhereAwait/SelectAwait: the same elements, order,
        // exceptions and disposal. The collections built (ToList, ToDictionary, ...) are the
        // only allocations after warm-up.

        internal static InvalidOperationException NoElements() { return new InvalidOperationException("Onity: the stream ended without an element."); }
        static InvalidOperationException NoMatch() { return new InvalidOperationException("Onity: the stream ended without an element matching the predicate."); }
        static InvalidOperationException MoreThanOne() { return new InvalidOperationException("Onity: the stream has more than one element."); }

        static void CheckSource(object source)
        {
            if (source == null) throw new ArgumentNullException("source");
        }

        // ---- Any / All / Count / Contains ----------------------------------------------------

        // Any / All / Count / LongCount overloads: OnityAsyncEnumerable.Terminals.g.cs.
        static readonly Func<bool, bool> IsTrue = b => b;

        /// <summary>True when an element equals <paramref name="value"/> (by <paramref name="comparer"/>,
        /// default EqualityComparer.Default).</summary>
        public static OnityTask<bool> ContainsAsync<T>(this IOnityAsyncEnumerable<T> source, T value, CancellationToken cancellationToken = default(CancellationToken))
        {
            return ContainsAsync(source, value, EqualityComparer<T>.Default, cancellationToken);
        }

        public static OnityTask<bool> ContainsAsync<T>(this IOnityAsyncEnumerable<T> source, T value, IEqualityComparer<T> comparer, CancellationToken cancellationToken = default(CancellationToken))
        {
            Check(source, comparer, "comparer");
            var c = comparer;
            return AnyCore(source, x => c.Equals(x, value), cancellationToken);
        }

        static async OnityTask<bool> AnyCore<T>(IOnityAsyncEnumerable<T> source, Func<T, bool> predicate, CancellationToken ct)
        {
            var e = source.GetAsyncEnumerator(ct);
            try
            {
                while (await e.MoveNextAsync())
                    if (predicate == null || predicate(e.Current)) return true;
                return false;
            }
            finally
            {
                await e.DisposeAsync();
            }
        }

        static async OnityTask<bool> AllCore<T>(IOnityAsyncEnumerable<T> source, Func<T, bool> predicate, CancellationToken ct)
        {
            var e = source.GetAsyncEnumerator(ct);
            try
            {
                while (await e.MoveNextAsync())
                    if (!predicate(e.Current)) return false;
                return true;
            }
            finally
            {
                await e.DisposeAsync();
            }
        }

        static async OnityTask<int> CountCore<T>(IOnityAsyncEnumerable<T> source, CancellationToken ct)
        {
            return (int)await LongCountCore(source, int.MaxValue, ct);
        }

        /// <summary>The number of elements; OverflowException (and the enumeration stopped) past
        /// <paramref name="max"/>.</summary>
        static async OnityTask<long> LongCountCore<T>(IOnityAsyncEnumerable<T> source, long max, CancellationToken ct)
        {
            long n = 0;
            var e = source.GetAsyncEnumerator(ct);
            try
            {
                while (await e.MoveNextAsync())
                    if (n++ == max) throw new OverflowException();
            }
            finally
            {
                await e.DisposeAsync();
            }
            return n;
        }

        // ---- Aggregate -------------------------------------------------------------------------

        /// <summary>Folds the elements with <paramref name="accumulator"/>, the first element as the
        /// seed; InvalidOperationException when the stream is empty.</summary>
        public static OnityTask<T> AggregateAsync<T>(this IOnityAsyncEnumerable<T> source, Func<T, T, T> accumulator, CancellationToken cancellationToken = default(CancellationToken))
        {
            Check(source, accumulator, "accumulator");
            return AggregateCore(source, accumulator, cancellationToken);
        }

        /// <summary>Folds the elements from <paramref name="seed"/>.</summary>
        public static OnityTask<TAccumulate> AggregateAsync<TSource, TAccumulate>(this IOnityAsyncEnumerable<TSource> source, TAccumulate seed, Func<TAccumulate, TSource, TAccumulate> accumulator, CancellationToken cancellationToken = default(CancellationToken))
        {
            Check(source, accumulator, "accumulator");
            return AggregateSeedCore(source, seed, accumulator, cancellationToken);
        }

        /// <summary>Folds the elements from <paramref name="seed"/>, then maps the result.</summary>
        public static OnityTask<TResult> AggregateAsync<TSource, TAccumulate, TResult>(this IOnityAsyncEnumerable<TSource> source, TAccumulate seed, Func<TAccumulate, TSource, TAccumulate> accumulator, Func<TAccumulate, TResult> resultSelector, CancellationToken cancellationToken = default(CancellationToken))
        {
            Check(source, accumulator, "accumulator");
            if (resultSelector == null) throw new ArgumentNullException("resultSelector");
            return AggregateResultCore(source, seed, accumulator, resultSelector, cancellationToken);
        }

        /// <summary>AggregateAsync with an awaited accumulator (each awaited before the next element).</summary>
        public static OnityTask<T> AggregateAwaitAsync<T>(this IOnityAsyncEnumerable<T> source, Func<T, T, OnityTask<T>> accumulator, CancellationToken cancellationToken = default(CancellationToken))
        {
            Check(source, accumulator, "accumulator");
            return AggregateAwaitCore<T, T, T>(source, false, default(T), (a, x, ct) => accumulator(a, x), null, cancellationToken);
        }

        public static OnityTask<TAccumulate> AggregateAwaitAsync<TSource, TAccumulate>(this IOnityAsyncEnumerable<TSource> source, TAccumulate seed, Func<TAccumulate, TSource, OnityTask<TAccumulate>> accumulator, CancellationToken cancellationToken = default(CancellationToken))
        {
            Check(source, accumulator, "accumulator");
            return AggregateAwaitCore<TSource, TAccumulate, TAccumulate>(source, true, seed, (a, x, ct) => accumulator(a, x), null, cancellationToken);
        }

        public static OnityTask<TResult> AggregateAwaitAsync<TSource, TAccumulate, TResult>(this IOnityAsyncEnumerable<TSource> source, TAccumulate seed, Func<TAccumulate, TSource, OnityTask<TAccumulate>> accumulator, Func<TAccumulate, OnityTask<TResult>> resultSelector, CancellationToken cancellationToken = default(CancellationToken))
        {
            Check(source, accumulator, "accumulator");
            if (resultSelector == null) throw new ArgumentNullException("resultSelector");
            return AggregateAwaitCore<TSource, TAccumulate, TResult>(source, true, seed, (a, x, ct) => accumulator(a, x), (a, ct) => resultSelector(a), cancellationToken);
        }

        /// <summary>AggregateAwaitAsync with the enumeration's token given to the accumulator.</summary>
        public static OnityTask<T> AggregateAwaitWithCancellationAsync<T>(this IOnityAsyncEnumerable<T> source, Func<T, T, CancellationToken, OnityTask<T>> accumulator, CancellationToken cancellationToken = default(CancellationToken))
        {
            Check(source, accumulator, "accumulator");
            return AggregateAwaitCore<T, T, T>(source, false, default(T), accumulator, null, cancellationToken);
        }

        public static OnityTask<TAccumulate> AggregateAwaitWithCancellationAsync<TSource, TAccumulate>(this IOnityAsyncEnumerable<TSource> source, TAccumulate seed, Func<TAccumulate, TSource, CancellationToken, OnityTask<TAccumulate>> accumulator, CancellationToken cancellationToken = default(CancellationToken))
        {
            Check(source, accumulator, "accumulator");
            return AggregateAwaitCore<TSource, TAccumulate, TAccumulate>(source, true, seed, accumulator, null, cancellationToken);
        }

        public static OnityTask<TResult> AggregateAwaitWithCancellationAsync<TSource, TAccumulate, TResult>(this IOnityAsyncEnumerable<TSource> source, TAccumulate seed, Func<TAccumulate, TSource, CancellationToken, OnityTask<TAccumulate>> accumulator, Func<TAccumulate, CancellationToken, OnityTask<TResult>> resultSelector, CancellationToken cancellationToken = default(CancellationToken))
        {
            Check(source, accumulator, "accumulator");
            if (resultSelector == null) throw new ArgumentNullException("resultSelector");
            return AggregateAwaitCore(source, true, seed, accumulator, resultSelector, cancellationToken);
        }

        /// <summary>Without a seed (hasSeed false) TAcc is TSource and the first element seeds it;
        /// without a result selector TResult is TAcc.</summary>
        static async OnityTask<TResult> AggregateAwaitCore<TSource, TAcc, TResult>(IOnityAsyncEnumerable<TSource> source, bool hasSeed, TAcc acc, Func<TAcc, TSource, CancellationToken, OnityTask<TAcc>> f, Func<TAcc, CancellationToken, OnityTask<TResult>> result, CancellationToken ct)
        {
            var e = source.GetAsyncEnumerator(ct);
            try
            {
                if (!hasSeed)
                {
                    if (!await e.MoveNextAsync()) throw NoElements();
                    acc = (TAcc)(object)e.Current;
                }
                while (await e.MoveNextAsync()) acc = await f(acc, e.Current, ct);
            }
            finally
            {
                await e.DisposeAsync();
            }
            if (result != null) return await result(acc, ct);
            return (TResult)(object)acc;
        }

        static async OnityTask<T> AggregateCore<T>(IOnityAsyncEnumerable<T> source, Func<T, T, T> f, CancellationToken ct)
        {
            var e = source.GetAsyncEnumerator(ct);
            try
            {
                if (!await e.MoveNextAsync()) throw NoElements();
                T acc = e.Current;
                while (await e.MoveNextAsync()) acc = f(acc, e.Current);
                return acc;
            }
            finally
            {
                await e.DisposeAsync();
            }
        }

        static async OnityTask<TAcc> AggregateSeedCore<TSource, TAcc>(IOnityAsyncEnumerable<TSource> source, TAcc acc, Func<TAcc, TSource, TAcc> f, CancellationToken ct)
        {
            var e = source.GetAsyncEnumerator(ct);
            try
            {
                while (await e.MoveNextAsync()) acc = f(acc, e.Current);
                return acc;
            }
            finally
            {
                await e.DisposeAsync();
            }
        }

        static async OnityTask<TResult> AggregateResultCore<TSource, TAcc, TResult>(IOnityAsyncEnumerable<TSource> source, TAcc seed, Func<TAcc, TSource, TAcc> f, Func<TAcc, TResult> r, CancellationToken ct)
        {
            return r(await AggregateSeedCore(source, seed, f, ct));
        }

        // ---- ElementAt (First / Last / Single: OnityAsyncEnumerable.Terminals.g.cs) ---------------

        /// <summary>The element at <paramref name="index"/>; ArgumentOutOfRangeException when the
        /// stream is shorter (or index &lt; 0). Stops the enumeration there.</summary>
        public static OnityTask<T> ElementAtAsync<T>(this IOnityAsyncEnumerable<T> source, int index, CancellationToken cancellationToken = default(CancellationToken))
        {
            CheckSource(source);
            return ElementAtCore(source, index, true, cancellationToken);
        }

        /// <summary>The element at <paramref name="index"/>, or default(T).</summary>
        public static OnityTask<T> ElementAtOrDefaultAsync<T>(this IOnityAsyncEnumerable<T> source, int index, CancellationToken cancellationToken = default(CancellationToken))
        {
            CheckSource(source);
            return ElementAtCore(source, index, false, cancellationToken);
        }

        static async OnityTask<T> LastCore<T>(IOnityAsyncEnumerable<T> source, bool throwIfNone, bool predicate, CancellationToken ct)
        {
            var e = source.GetAsyncEnumerator(ct);
            bool any = false;
            T value = default(T);
            try
            {
                while (await e.MoveNextAsync())
                {
                    value = e.Current;
                    any = true;
                }
            }
            finally
            {
                await e.DisposeAsync();
            }
            if (!any && throwIfNone) throw predicate ? NoMatch() : NoElements();
            return value;
        }

        static async OnityTask<T> SingleCore<T>(IOnityAsyncEnumerable<T> source, bool throwIfNone, bool predicate, CancellationToken ct)
        {
            var e = source.GetAsyncEnumerator(ct);
            try
            {
                if (!await e.MoveNextAsync())
                {
                    if (throwIfNone) throw predicate ? NoMatch() : NoElements();
                    return default(T);
                }
                T value = e.Current;
                if (await e.MoveNextAsync()) throw MoreThanOne();
                return value;
            }
            finally
            {
                await e.DisposeAsync();
            }
        }

        static async OnityTask<T> ElementAtCore<T>(IOnityAsyncEnumerable<T> source, int index, bool throwIfNone, CancellationToken ct)
        {
            var e = source.GetAsyncEnumerator(ct);
            try
            {
                if (index >= 0)
                {
                    int i = 0;
                    while (await e.MoveNextAsync())
                        if (i++ == index) return e.Current;
                }
            }
            finally
            {
                await e.DisposeAsync();
            }
            if (throwIfNone) throw new ArgumentOutOfRangeException("index");
            return default(T);
        }

        // ---- collections ---------------------------------------------------------------------------

        /// <summary>Every element, in a new List.</summary>
        public static OnityTask<List<T>> ToListAsync<T>(this IOnityAsyncEnumerable<T> source, CancellationToken cancellationToken = default(CancellationToken))
        {
            CheckSource(source);
            return ToListCore(source, cancellationToken);
        }

        /// <summary>Every element, in a new HashSet (by <paramref name="comparer"/>).</summary>
        public static OnityTask<HashSet<T>> ToHashSetAsync<T>(this IOnityAsyncEnumerable<T> source, CancellationToken cancellationToken = default(CancellationToken))
        {
            return ToHashSetAsync(source, EqualityComparer<T>.Default, cancellationToken);
        }

        public static OnityTask<HashSet<T>> ToHashSetAsync<T>(this IOnityAsyncEnumerable<T> source, IEqualityComparer<T> comparer, CancellationToken cancellationToken = default(CancellationToken))
        {
            Check(source, comparer, "comparer");
            return ToHashSetCore(source, comparer, cancellationToken);
        }

        // ToDictionary / ToLookup: OnityAsyncEnumerable.Terminals.g.cs.

        static OnityTask<List<T>> ToListCore<T>(IOnityAsyncEnumerable<T> source, CancellationToken ct)
        {
            return FillCore(source, new List<T>(), ct);
        }

        static OnityTask<HashSet<T>> ToHashSetCore<T>(IOnityAsyncEnumerable<T> source, IEqualityComparer<T> comparer, CancellationToken ct)
        {
            return FillCore(source, new HashSet<T>(comparer), ct);
        }

        /// <summary>Adds every element to <paramref name="target"/> (a class: no constrained call
        /// over a value type for full AOT), then gives it.</summary>
        static async OnityTask<TCollection> FillCore<T, TCollection>(IOnityAsyncEnumerable<T> source, TCollection target, CancellationToken ct)
            where TCollection : class, ICollection<T>
        {
            var e = source.GetAsyncEnumerator(ct);
            try
            {
                while (await e.MoveNextAsync()) target.Add(e.Current);
            }
            finally
            {
                await e.DisposeAsync();
            }
            return target;
        }

        static async OnityTask<Dictionary<TKey, TElement>> ToDictionaryCore<T, TKey, TElement>(IOnityAsyncEnumerable<T> source, Func<T, TKey> key, Func<T, TElement> element, IEqualityComparer<TKey> comparer, CancellationToken ct)
        {
            var d = new Dictionary<TKey, TElement>(comparer);
            var e = source.GetAsyncEnumerator(ct);
            try
            {
                while (await e.MoveNextAsync())
                {
                    var x = e.Current;
                    d.Add(key(x), element(x));
                }
            }
            finally
            {
                await e.DisposeAsync();
            }
            return d;
        }

        static async OnityTask<ILookup<TKey, TElement>> ToLookupCore<T, TKey, TElement>(IOnityAsyncEnumerable<T> source, Func<T, TKey> key, Func<T, TElement> element, IEqualityComparer<TKey> comparer, CancellationToken ct)
        {
            var list = await ToListCore(source, ct);
            return list.ToLookup(key, element, comparer);
        }
    }
}
