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
        static async OnityTask<List<KeyValuePair<TKey, TElement>>> GatherAwait<T, TKey, TElement>(IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector, Func<T, CancellationToken, OnityTask<TElement>> elementSelector, bool skipNullKeys, CancellationToken ct, CancellationToken sourceCt)
        {
            var pairs = new List<KeyValuePair<TKey, TElement>>();
            var e = source.GetAsyncEnumerator(sourceCt);
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
            var pairs = await GatherAwait(source, keySelector, elementSelector, false, ct, ct);
            var d = new Dictionary<TKey, TElement>(pairs.Count, comparer);
            foreach (var p in pairs) d.Add(p.Key, p.Value); // a duplicate or null key throws, as Dictionary.Add
            return d;
        }

        // The overloads over these two cores: OnityAsyncEnumerable.AwaitTerminals.g.cs.
        static async OnityTask<ILookup<TKey, TElement>> ToLookupAwaitCore<T, TKey, TElement>(IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector, Func<T, CancellationToken, OnityTask<TElement>> elementSelector, IEqualityComparer<TKey> comparer, CancellationToken ct)
        {
            var pairs = await GatherAwait(source, keySelector, elementSelector, false, ct, ct);
            return pairs.ToLookup(p => p.Key, p => p.Value, comparer);
        }
    }
}
