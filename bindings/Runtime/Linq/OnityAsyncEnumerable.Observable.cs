using System;
using System.Collections.Generic;
using System.Threading;

namespace Onity
{
    // IObservable <-> async stream (UniTask's Linq/ToObservable.cs and ToUniTaskAsyncEnumerable's
    // IObservable overload), and the Await forms of Zip and Distinct (Linq/Zip.cs, Distinct.cs).
    public static partial class OnityAsyncEnumerable
    {
        /// <summary>An IObservable of the stream: each Subscribe enumerates it (Subscribe with the
        /// observer's OnNext / OnError / OnCompleted); disposing the subscription cancels it.</summary>
        public static IObservable<T> ToObservable<T>(this IOnityAsyncEnumerable<T> source)
        {
            if (source == null) throw new ArgumentNullException("source");
            return new StreamObservable<T>(source);
        }

        sealed class StreamObservable<T> : IObservable<T>
        {
            readonly IOnityAsyncEnumerable<T> source;
            internal StreamObservable(IOnityAsyncEnumerable<T> source) { this.source = source; }
            public IDisposable Subscribe(IObserver<T> observer) { return source.Subscribe(observer); }
        }

        /// <summary>The values of <paramref name="source"/> as a stream: each enumeration subscribes
        /// (at its first MoveNextAsync) and buffers the values pushed between two MoveNextAsync
        /// calls (unbounded, from any thread); OnCompleted ends it, OnError faults it; disposing the
        /// enumeration unsubscribes.</summary>
        public static IOnityAsyncEnumerable<T> ToOnityAsyncEnumerable<T>(this IObservable<T> source)
        {
            if (source == null) throw new ArgumentNullException("source");
            return Create<T>((w, ct) => ObservableProducer(source, w, ct));
        }

        static async OnityTask ObservableProducer<T>(IObservable<T> source, IOnityAsyncWriter<T> w, CancellationToken ct)
        {
            var channel = OnityChannel.CreateSingleConsumerUnbounded<T>();
            using (source.Subscribe(new ChannelObserver<T>(channel)))
            {
                var e = channel.Reader.ReadAllAsync(Src(w, ct)).GetAsyncEnumerator(Src(w, ct));
                try
                {
                    while (await e.MoveNextAsync()) await w.YieldAsync(e.Current);
                }
                finally
                {
                    await e.DisposeAsync();
                }
            }
        }

        sealed class ChannelObserver<T> : IObserver<T>
        {
            readonly OnityChannel<T> channel;
            internal ChannelObserver(OnityChannel<T> channel) { this.channel = channel; }
            public void OnNext(T value) { channel.Writer.TryWrite(value); }
            public void OnError(Exception error) { channel.Writer.TryComplete(error); }
            public void OnCompleted() { channel.Writer.TryComplete(); }
        }

        /// <summary>Zip with an awaited <paramref name="selector"/>.</summary>
        public static IOnityAsyncEnumerable<TResult> ZipAwait<TFirst, TSecond, TResult>(this IOnityAsyncEnumerable<TFirst> first, IOnityAsyncEnumerable<TSecond> second, Func<TFirst, TSecond, OnityTask<TResult>> selector)
        {
            if (selector == null) throw new ArgumentNullException("selector");
            return ZipAwaitWithCancellation(first, second, (a, b, ct) => selector(a, b));
        }

        /// <summary>Zip with an awaited <paramref name="selector"/> handed the enumeration's token.</summary>
        public static IOnityAsyncEnumerable<TResult> ZipAwaitWithCancellation<TFirst, TSecond, TResult>(this IOnityAsyncEnumerable<TFirst> first, IOnityAsyncEnumerable<TSecond> second, Func<TFirst, TSecond, CancellationToken, OnityTask<TResult>> selector)
        {
            if (first == null) throw new ArgumentNullException("first");
            if (second == null) throw new ArgumentNullException("second");
            if (selector == null) throw new ArgumentNullException("selector");
            return Create<TResult>((w, ct) => ZipAwaitProducer(first, second, selector, w, ct));
        }

        static async OnityTask ZipAwaitProducer<TFirst, TSecond, TResult>(IOnityAsyncEnumerable<TFirst> first, IOnityAsyncEnumerable<TSecond> second, Func<TFirst, TSecond, CancellationToken, OnityTask<TResult>> selector, IOnityAsyncWriter<TResult> w, CancellationToken ct)
        {
            var a = first.GetAsyncEnumerator(Src(w, ct));
            try
            {
                var b = second.GetAsyncEnumerator(Src(w, ct));
                try
                {
                    while (await a.MoveNextAsync() && await b.MoveNextAsync())
                        await w.YieldAsync(await selector(a.Current, b.Current, ct));
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
        }

        /// <summary>The elements whose awaited key was not seen before, in order.</summary>
        public static IOnityAsyncEnumerable<T> DistinctAwait<T, TKey>(this IOnityAsyncEnumerable<T> source, Func<T, OnityTask<TKey>> keySelector)
        {
            return DistinctAwait(source, keySelector, EqualityComparer<TKey>.Default);
        }

        public static IOnityAsyncEnumerable<T> DistinctAwait<T, TKey>(this IOnityAsyncEnumerable<T> source, Func<T, OnityTask<TKey>> keySelector, IEqualityComparer<TKey> comparer)
        {
            Check(source, keySelector, "keySelector");
            return DistinctAwaitCore(source, Wrap(keySelector, "keySelector"), NotNull(comparer));
        }

        public static IOnityAsyncEnumerable<T> DistinctAwaitWithCancellation<T, TKey>(this IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector)
        {
            return DistinctAwaitWithCancellation(source, keySelector, EqualityComparer<TKey>.Default);
        }

        public static IOnityAsyncEnumerable<T> DistinctAwaitWithCancellation<T, TKey>(this IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector, IEqualityComparer<TKey> comparer)
        {
            Check(source, keySelector, "keySelector");
            return DistinctAwaitCore(source, keySelector, NotNull(comparer));
        }

        static IOnityAsyncEnumerable<T> DistinctAwaitCore<T, TKey>(IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector, IEqualityComparer<TKey> comparer)
        {
            return Create<T>((w, ct) => DistinctAwaitProducer(source, keySelector, comparer, w, ct));
        }

        static async OnityTask DistinctAwaitProducer<T, TKey>(IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask<TKey>> keySelector, IEqualityComparer<TKey> comparer, IOnityAsyncWriter<T> w, CancellationToken ct)
        {
            var seen = new HashSet<TKey>(comparer);
            var e = source.GetAsyncEnumerator(Src(w, ct));
            try
            {
                while (await e.MoveNextAsync())
                {
                    var x = e.Current;
                    if (seen.Add(await keySelector(x, ct))) await w.YieldAsync(x);
                }
            }
            finally
            {
                await e.DisposeAsync();
            }
        }
    }
}
