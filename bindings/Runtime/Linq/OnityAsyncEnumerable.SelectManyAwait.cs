using System;
using System.Threading;

namespace Onity
{
    // SelectManyAwait / SelectManyAwaitWithCancellation (UniTask's Linq/SelectMany.cs): the inner
    // stream of each element is awaited, then enumerated to its end before the next element; all
    // eight forms run on one core (index and token always passed, the other forms wrapped).
    public static partial class OnityAsyncEnumerable
    {
        /// <summary>The elements of each element's awaited stream, in order.</summary>
        public static IOnityAsyncEnumerable<TResult> SelectManyAwait<T, TResult>(this IOnityAsyncEnumerable<T> source, Func<T, OnityTask<IOnityAsyncEnumerable<TResult>>> selector)
        {
            Check(source, selector, "selector");
            return SelectManyAwaitCore<T, TResult, TResult>(source, (x, i, ct) => selector(x), Second<T, TResult>.Value);
        }

        public static IOnityAsyncEnumerable<TResult> SelectManyAwait<T, TResult>(this IOnityAsyncEnumerable<T> source, Func<T, int, OnityTask<IOnityAsyncEnumerable<TResult>>> selector)
        {
            Check(source, selector, "selector");
            return SelectManyAwaitCore<T, TResult, TResult>(source, (x, i, ct) => selector(x, i), Second<T, TResult>.Value);
        }

        public static IOnityAsyncEnumerable<TResult> SelectManyAwait<T, TCollection, TResult>(this IOnityAsyncEnumerable<T> source, Func<T, OnityTask<IOnityAsyncEnumerable<TCollection>>> collectionSelector, Func<T, TCollection, OnityTask<TResult>> resultSelector)
        {
            Check(source, collectionSelector, "collectionSelector");
            if (resultSelector == null) throw new ArgumentNullException("resultSelector");
            return SelectManyAwaitCore<T, TCollection, TResult>(source, (x, i, ct) => collectionSelector(x), (x, c, ct) => resultSelector(x, c));
        }

        public static IOnityAsyncEnumerable<TResult> SelectManyAwait<T, TCollection, TResult>(this IOnityAsyncEnumerable<T> source, Func<T, int, OnityTask<IOnityAsyncEnumerable<TCollection>>> collectionSelector, Func<T, TCollection, OnityTask<TResult>> resultSelector)
        {
            Check(source, collectionSelector, "collectionSelector");
            if (resultSelector == null) throw new ArgumentNullException("resultSelector");
            return SelectManyAwaitCore<T, TCollection, TResult>(source, (x, i, ct) => collectionSelector(x, i), (x, c, ct) => resultSelector(x, c));
        }

        /// <summary>SelectManyAwait with selectors handed the enumeration's token.</summary>
        public static IOnityAsyncEnumerable<TResult> SelectManyAwaitWithCancellation<T, TResult>(this IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<IOnityAsyncEnumerable<TResult>>> selector)
        {
            Check(source, selector, "selector");
            return SelectManyAwaitCore<T, TResult, TResult>(source, (x, i, ct) => selector(x, ct), Second<T, TResult>.Value);
        }

        public static IOnityAsyncEnumerable<TResult> SelectManyAwaitWithCancellation<T, TResult>(this IOnityAsyncEnumerable<T> source, Func<T, int, CancellationToken, OnityTask<IOnityAsyncEnumerable<TResult>>> selector)
        {
            Check(source, selector, "selector");
            return SelectManyAwaitCore<T, TResult, TResult>(source, selector, Second<T, TResult>.Value);
        }

        public static IOnityAsyncEnumerable<TResult> SelectManyAwaitWithCancellation<T, TCollection, TResult>(this IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<IOnityAsyncEnumerable<TCollection>>> collectionSelector, Func<T, TCollection, CancellationToken, OnityTask<TResult>> resultSelector)
        {
            Check(source, collectionSelector, "collectionSelector");
            if (resultSelector == null) throw new ArgumentNullException("resultSelector");
            return SelectManyAwaitCore<T, TCollection, TResult>(source, (x, i, ct) => collectionSelector(x, ct), resultSelector);
        }

        public static IOnityAsyncEnumerable<TResult> SelectManyAwaitWithCancellation<T, TCollection, TResult>(this IOnityAsyncEnumerable<T> source, Func<T, int, CancellationToken, OnityTask<IOnityAsyncEnumerable<TCollection>>> collectionSelector, Func<T, TCollection, CancellationToken, OnityTask<TResult>> resultSelector)
        {
            Check(source, collectionSelector, "collectionSelector");
            if (resultSelector == null) throw new ArgumentNullException("resultSelector");
            return SelectManyAwaitCore<T, TCollection, TResult>(source, collectionSelector, resultSelector);
        }

        static class Second<T, R>
        {
            internal static readonly Func<T, R, CancellationToken, OnityTask<R>> Value = (x, c, ct) => new OnityTask<R>(c);
        }

        static IOnityAsyncEnumerable<TResult> SelectManyAwaitCore<T, TCollection, TResult>(IOnityAsyncEnumerable<T> source, Func<T, int, CancellationToken, OnityTask<IOnityAsyncEnumerable<TCollection>>> collectionSelector, Func<T, TCollection, CancellationToken, OnityTask<TResult>> resultSelector)
        {
            return Create<TResult>((w, ct) => SelectManyAwaitProducer(source, collectionSelector, resultSelector, w, ct));
        }

        static async OnityTask SelectManyAwaitProducer<T, TCollection, TResult>(IOnityAsyncEnumerable<T> source, Func<T, int, CancellationToken, OnityTask<IOnityAsyncEnumerable<TCollection>>> collectionSelector, Func<T, TCollection, CancellationToken, OnityTask<TResult>> resultSelector, IOnityAsyncWriter<TResult> w, CancellationToken ct)
        {
            var e = source.GetAsyncEnumerator(Src(w, ct));
            try
            {
                int index = 0;
                while (await e.MoveNextAsync())
                {
                    var x = e.Current;
                    var stream = await collectionSelector(x, checked(index++), ct);
                    if (stream == null) throw new InvalidOperationException("Onity: SelectManyAwait's selector gave a null stream.");
                    var inner = stream.GetAsyncEnumerator(Src(w, ct));
                    try
                    {
                        while (await inner.MoveNextAsync())
                        {
                            await w.YieldAsync(await resultSelector(x, inner.Current, ct));
                        }
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
    }
}
