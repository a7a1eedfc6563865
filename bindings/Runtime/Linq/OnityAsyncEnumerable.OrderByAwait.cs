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
        // The overloads: OnityAsyncEnumerable.OrderByAwait.g.cs (scripts/gen_csharp_linq.py).
        static IOnityOrderedAsyncEnumerable<T> ThenByAwaitCore<T, TKey>(IOnityOrderedAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector, IComparer<TKey> comparer, bool descending)
        {
            var ordered = source as OrderedStream<T>;
            if (ordered == null)
                throw new ArgumentException("Onity: ThenBy*Await refines an ordering made by this package's OrderBy* / ThenBy* operators.", "source");
            return ordered.ThenAwait(keySelector, comparer, descending);
        }
    }
}
