using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;

namespace Onity
{
    // Join, GroupJoin (with their Await / AwaitWithCancellation forms) and the Await forms of
    // ToDictionaryAsync / ToLookupAsync (UniTask's Linq/Join.cs, GroupJoin.cs, ToDictionary.cs,
    // ToLookup.cs). Every form runs on one core whose selectors take the token and return a task:
    // the synchronous and token-less selectors are wrapped once per call.
    public static partial class OnityAsyncEnumerable
    {
        static class Sel<T>
        {
            internal static readonly Func<T, CancellationToken, OnityTask<T>> Identity = (x, ct) => new OnityTask<T>(x);
        }

        static Func<T, CancellationToken, OnityTask<R>> Wrap<T, R>(Func<T, R> f, string name)
        {
            if (f == null) throw new ArgumentNullException(name);
            return (x, ct) => new OnityTask<R>(f(x));
        }

        static Func<T, CancellationToken, OnityTask<R>> Wrap<T, R>(Func<T, OnityTask<R>> f, string name)
        {
            if (f == null) throw new ArgumentNullException(name);
            return (x, ct) => f(x);
        }

        static Func<T, CancellationToken, OnityTask<R>> NotNull<T, R>(Func<T, CancellationToken, OnityTask<R>> f, string name)
        {
            if (f == null) throw new ArgumentNullException(name);
            return f;
        }

        static IEqualityComparer<TKey> NotNull<TKey>(IEqualityComparer<TKey> comparer)
        {
            if (comparer == null) throw new ArgumentNullException("comparer");
            return comparer;
        }

        /// <summary>The (key, element) pairs of the stream, selectors awaited in order; with
        /// <paramref name="skipNullKeys"/> (joins) the elements whose key is null are left out.</summary>
        static async OnityTask<List<KeyValuePair<TKey, TElement>>> GatherAwait<T, TKey, TElement>(IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector, Func<T, CancellationToken, OnityTask<TElement>> elementSelector, bool skipNullKeys, CancellationToken ct)
        {
            var pairs = new List<KeyValuePair<TKey, TElement>>();
            var e = source.GetAsyncEnumerator(ct);
            try
            {
                while (await e.MoveNextAsync())
                {
                    var x = e.Current;
                    var key = await keySelector(x, ct);
                    if (skipNullKeys && key == null) continue;
                    pairs.Add(new KeyValuePair<TKey, TElement>(key, await elementSelector(x, ct)));
                }
            }
            finally
            {
                await e.DisposeAsync();
            }
            return pairs;
        }

        static async OnityTask<Dictionary<TKey, TElement>> ToDictionaryAwaitCore<T, TKey, TElement>(IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector, Func<T, CancellationToken, OnityTask<TElement>> elementSelector, IEqualityComparer<TKey> comparer, CancellationToken ct)
        {
            var pairs = await GatherAwait(source, keySelector, elementSelector, false, ct);
            var d = new Dictionary<TKey, TElement>(pairs.Count, comparer);
            foreach (var p in pairs) d.Add(p.Key, p.Value); // a duplicate or null key throws, as Dictionary.Add
            return d;
        }

        static async OnityTask<ILookup<TKey, TElement>> ToLookupAwaitCore<T, TKey, TElement>(IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector, Func<T, CancellationToken, OnityTask<TElement>> elementSelector, IEqualityComparer<TKey> comparer, CancellationToken ct)
        {
            var pairs = await GatherAwait(source, keySelector, elementSelector, false, ct);
            return pairs.ToLookup(p => p.Key, p => p.Value, comparer);
        }

        // ---- ToDictionaryAwaitAsync / ToDictionaryAwaitWithCancellationAsync ----------------------

        /// <summary>A dictionary keyed by the awaited <paramref name="keySelector"/> (a duplicate key
        /// faults the task with ArgumentException).</summary>
        public static OnityTask<Dictionary<TKey, T>> ToDictionaryAwaitAsync<T, TKey>(this IOnityAsyncEnumerable<T> source, Func<T, OnityTask<TKey>> keySelector, CancellationToken cancellationToken = default(CancellationToken))
        {
            return ToDictionaryAwaitAsync(source, keySelector, EqualityComparer<TKey>.Default, cancellationToken);
        }

        public static OnityTask<Dictionary<TKey, T>> ToDictionaryAwaitAsync<T, TKey>(this IOnityAsyncEnumerable<T> source, Func<T, OnityTask<TKey>> keySelector, IEqualityComparer<TKey> comparer, CancellationToken cancellationToken = default(CancellationToken))
        {
            Check(source, keySelector, "keySelector");
            return ToDictionaryAwaitCore(source, Wrap(keySelector, "keySelector"), Sel<T>.Identity, NotNull(comparer), cancellationToken);
        }

        public static OnityTask<Dictionary<TKey, TElement>> ToDictionaryAwaitAsync<T, TKey, TElement>(this IOnityAsyncEnumerable<T> source, Func<T, OnityTask<TKey>> keySelector, Func<T, OnityTask<TElement>> elementSelector, CancellationToken cancellationToken = default(CancellationToken))
        {
            return ToDictionaryAwaitAsync(source, keySelector, elementSelector, EqualityComparer<TKey>.Default, cancellationToken);
        }

        public static OnityTask<Dictionary<TKey, TElement>> ToDictionaryAwaitAsync<T, TKey, TElement>(this IOnityAsyncEnumerable<T> source, Func<T, OnityTask<TKey>> keySelector, Func<T, OnityTask<TElement>> elementSelector, IEqualityComparer<TKey> comparer, CancellationToken cancellationToken = default(CancellationToken))
        {
            Check(source, keySelector, "keySelector");
            return ToDictionaryAwaitCore(source, Wrap(keySelector, "keySelector"), Wrap(elementSelector, "elementSelector"), NotNull(comparer), cancellationToken);
        }

        public static OnityTask<Dictionary<TKey, T>> ToDictionaryAwaitWithCancellationAsync<T, TKey>(this IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector, CancellationToken cancellationToken = default(CancellationToken))
        {
            return ToDictionaryAwaitWithCancellationAsync(source, keySelector, EqualityComparer<TKey>.Default, cancellationToken);
        }

        public static OnityTask<Dictionary<TKey, T>> ToDictionaryAwaitWithCancellationAsync<T, TKey>(this IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector, IEqualityComparer<TKey> comparer, CancellationToken cancellationToken = default(CancellationToken))
        {
            Check(source, keySelector, "keySelector");
            return ToDictionaryAwaitCore(source, keySelector, Sel<T>.Identity, NotNull(comparer), cancellationToken);
        }

        public static OnityTask<Dictionary<TKey, TElement>> ToDictionaryAwaitWithCancellationAsync<T, TKey, TElement>(this IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector, Func<T, CancellationToken, OnityTask<TElement>> elementSelector, CancellationToken cancellationToken = default(CancellationToken))
        {
            return ToDictionaryAwaitWithCancellationAsync(source, keySelector, elementSelector, EqualityComparer<TKey>.Default, cancellationToken);
        }

        public static OnityTask<Dictionary<TKey, TElement>> ToDictionaryAwaitWithCancellationAsync<T, TKey, TElement>(this IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector, Func<T, CancellationToken, OnityTask<TElement>> elementSelector, IEqualityComparer<TKey> comparer, CancellationToken cancellationToken = default(CancellationToken))
        {
            Check(source, keySelector, "keySelector");
            return ToDictionaryAwaitCore(source, keySelector, NotNull(elementSelector, "elementSelector"), NotNull(comparer), cancellationToken);
        }

        // ---- ToLookupAwaitAsync / ToLookupAwaitWithCancellationAsync ------------------------------

        /// <summary>An ILookup of the elements by the awaited <paramref name="keySelector"/>.</summary>
        public static OnityTask<ILookup<TKey, T>> ToLookupAwaitAsync<T, TKey>(this IOnityAsyncEnumerable<T> source, Func<T, OnityTask<TKey>> keySelector, CancellationToken cancellationToken = default(CancellationToken))
        {
            return ToLookupAwaitAsync(source, keySelector, EqualityComparer<TKey>.Default, cancellationToken);
        }

        public static OnityTask<ILookup<TKey, T>> ToLookupAwaitAsync<T, TKey>(this IOnityAsyncEnumerable<T> source, Func<T, OnityTask<TKey>> keySelector, IEqualityComparer<TKey> comparer, CancellationToken cancellationToken = default(CancellationToken))
        {
            Check(source, keySelector, "keySelector");
            return ToLookupAwaitCore(source, Wrap(keySelector, "keySelector"), Sel<T>.Identity, NotNull(comparer), cancellationToken);
        }

        public static OnityTask<ILookup<TKey, TElement>> ToLookupAwaitAsync<T, TKey, TElement>(this IOnityAsyncEnumerable<T> source, Func<T, OnityTask<TKey>> keySelector, Func<T, OnityTask<TElement>> elementSelector, CancellationToken cancellationToken = default(CancellationToken))
        {
            return ToLookupAwaitAsync(source, keySelector, elementSelector, EqualityComparer<TKey>.Default, cancellationToken);
        }

        public static OnityTask<ILookup<TKey, TElement>> ToLookupAwaitAsync<T, TKey, TElement>(this IOnityAsyncEnumerable<T> source, Func<T, OnityTask<TKey>> keySelector, Func<T, OnityTask<TElement>> elementSelector, IEqualityComparer<TKey> comparer, CancellationToken cancellationToken = default(CancellationToken))
        {
            Check(source, keySelector, "keySelector");
            return ToLookupAwaitCore(source, Wrap(keySelector, "keySelector"), Wrap(elementSelector, "elementSelector"), NotNull(comparer), cancellationToken);
        }

        public static OnityTask<ILookup<TKey, T>> ToLookupAwaitWithCancellationAsync<T, TKey>(this IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector, CancellationToken cancellationToken = default(CancellationToken))
        {
            return ToLookupAwaitWithCancellationAsync(source, keySelector, EqualityComparer<TKey>.Default, cancellationToken);
        }

        public static OnityTask<ILookup<TKey, T>> ToLookupAwaitWithCancellationAsync<T, TKey>(this IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector, IEqualityComparer<TKey> comparer, CancellationToken cancellationToken = default(CancellationToken))
        {
            Check(source, keySelector, "keySelector");
            return ToLookupAwaitCore(source, keySelector, Sel<T>.Identity, NotNull(comparer), cancellationToken);
        }

        public static OnityTask<ILookup<TKey, TElement>> ToLookupAwaitWithCancellationAsync<T, TKey, TElement>(this IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector, Func<T, CancellationToken, OnityTask<TElement>> elementSelector, CancellationToken cancellationToken = default(CancellationToken))
        {
            return ToLookupAwaitWithCancellationAsync(source, keySelector, elementSelector, EqualityComparer<TKey>.Default, cancellationToken);
        }

        public static OnityTask<ILookup<TKey, TElement>> ToLookupAwaitWithCancellationAsync<T, TKey, TElement>(this IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector, Func<T, CancellationToken, OnityTask<TElement>> elementSelector, IEqualityComparer<TKey> comparer, CancellationToken cancellationToken = default(CancellationToken))
        {
            Check(source, keySelector, "keySelector");
            return ToLookupAwaitCore(source, keySelector, NotNull(elementSelector, "elementSelector"), NotNull(comparer), cancellationToken);
        }
    }
}
