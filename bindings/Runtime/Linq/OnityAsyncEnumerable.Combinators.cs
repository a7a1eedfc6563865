using System;
using System.Collections.Generic;
using System.Threading;
using Onity.Linq;

namespace Onity
{
    public static partial class OnityAsyncEnumerable
    {
        // Combinators written as producers of a Create stream (one enumerator object and one
        // producer per enumeration; nothing per element but what the operator keeps: Distinct's
        // set, TakeLast's queue, Buffer's lists). Each source is enumerated with the token and
        // disposed before the next one is (or before the stream ends), as UniTask's are.

        /// <summary>The elements of <paramref name="first"/>, then those of <paramref name="second"/>.</summary>
        public static IOnityAsyncEnumerable<T> Concat<T>(this IOnityAsyncEnumerable<T> first, IOnityAsyncEnumerable<T> second)
        {
            CheckPair(first, second, second, "second");
            return Create<T>((w, ct) => ConcatProducer(first, second, w, ct));
        }

        /// <summary>The elements, then <paramref name="element"/>.</summary>
        public static IOnityAsyncEnumerable<T> Append<T>(this IOnityAsyncEnumerable<T> source, T element)
        {
            CheckSource(source);
            return Create<T>((w, ct) => AppendProducer(source, element, w, ct));
        }

        /// <summary><paramref name="element"/>, then the elements.</summary>
        public static IOnityAsyncEnumerable<T> Prepend<T>(this IOnityAsyncEnumerable<T> source, T element)
        {
            CheckSource(source);
            return Create<T>((w, ct) => PrependProducer(source, element, w, ct));
        }

        /// <summary>The elements, or default(T) alone when there is none.</summary>
        public static IOnityAsyncEnumerable<T> DefaultIfEmpty<T>(this IOnityAsyncEnumerable<T> source)
        {
            return DefaultIfEmpty(source, default(T));
        }

        /// <summary>The elements, or <paramref name="defaultValue"/> alone when there is none.</summary>
        public static IOnityAsyncEnumerable<T> DefaultIfEmpty<T>(this IOnityAsyncEnumerable<T> source, T defaultValue)
        {
            CheckSource(source);
            return Create<T>((w, ct) => DefaultIfEmptyProducer(source, defaultValue, w, ct));
        }

        /// <summary>The elements not seen before (EqualityComparer.Default).</summary>
        public static IOnityAsyncEnumerable<T> Distinct<T>(this IOnityAsyncEnumerable<T> source)
        {
            return Distinct(source, EqualityComparer<T>.Default);
        }

        /// <summary>The elements not seen before by <paramref name="comparer"/>.</summary>
        public static IOnityAsyncEnumerable<T> Distinct<T>(this IOnityAsyncEnumerable<T> source, IEqualityComparer<T> comparer)
        {
            Check(source, comparer, "comparer");
            return Create<T>((w, ct) => FilterBySet(source, new HashSet<T>(comparer), true, w, ct));
        }

        /// <summary>The elements whose key was not seen before.</summary>
        public static IOnityAsyncEnumerable<T> Distinct<T, TKey>(this IOnityAsyncEnumerable<T> source, Func<T, TKey> keySelector)
        {
            return Distinct(source, keySelector, EqualityComparer<TKey>.Default);
        }

        /// <summary>The elements whose key was not seen before by <paramref name="comparer"/>.</summary>
        public static IOnityAsyncEnumerable<T> Distinct<T, TKey>(this IOnityAsyncEnumerable<T> source, Func<T, TKey> keySelector, IEqualityComparer<TKey> comparer)
        {
            Check(source, keySelector, "keySelector");
            if (comparer == null) throw new ArgumentNullException("comparer");
            return Create<T>((w, ct) => DistinctByProducer(source, keySelector, comparer, w, ct));
        }

        // Union, Except, Intersect: OnityAsyncEnumerable.Combinators.g.cs (over the producers below).

        /// <summary>All but the last <paramref name="count"/> elements.</summary>
        public static IOnityAsyncEnumerable<T> SkipLast<T>(this IOnityAsyncEnumerable<T> source, int count)
        {
            CheckSource(source);
            if (count <= 0) return source;
            return Create<T>((w, ct) => SkipLastProducer(source, count, w, ct));
        }

        /// <summary>The last <paramref name="count"/> elements, given when the source ends.</summary>
        public static IOnityAsyncEnumerable<T> TakeLast<T>(this IOnityAsyncEnumerable<T> source, int count)
        {
            CheckSource(source);
            if (count <= 0) return Empty<T>();
            return Create<T>((w, ct) => TakeLastProducer(source, count, w, ct));
        }

        /// <summary>The elements in reverse order, given when the source ends.</summary>
        public static IOnityAsyncEnumerable<T> Reverse<T>(this IOnityAsyncEnumerable<T> source)
        {
            CheckSource(source);
            return Create<T>((w, ct) => ReverseProducer(source, w, ct));
        }

        /// <summary>Consecutive chunks of <paramref name="count"/> elements (the last one may be shorter).</summary>
        public static IOnityAsyncEnumerable<IList<T>> Buffer<T>(this IOnityAsyncEnumerable<T> source, int count)
        {
            return Buffer(source, count, count);
        }

        /// <summary>Chunks of <paramref name="count"/> elements, one starting every <paramref name="skip"/>
        /// elements; at the end, the started chunks that are not empty.</summary>
        public static IOnityAsyncEnumerable<IList<T>> Buffer<T>(this IOnityAsyncEnumerable<T> source, int count, int skip)
        {
            CheckSource(source);
            if (count <= 0) throw new ArgumentOutOfRangeException("count");
            if (skip <= 0) throw new ArgumentOutOfRangeException("skip");
            return Create<IList<T>>((w, ct) => BufferProducer(source, count, skip, w, ct));
        }

        /// <summary>Each element with the one before it, from the second element on.</summary>
        public static IOnityAsyncEnumerable<ValueTuple<T, T>> Pairwise<T>(this IOnityAsyncEnumerable<T> source)
        {
            CheckSource(source);
            return Create<ValueTuple<T, T>>((w, ct) => PairwiseProducer(source, w, ct));
        }

        /// <summary>Pairs of elements at the same position; ends with the shorter stream.</summary>
        public static IOnityAsyncEnumerable<ValueTuple<TFirst, TSecond>> Zip<TFirst, TSecond>(this IOnityAsyncEnumerable<TFirst> first, IOnityAsyncEnumerable<TSecond> second)
        {
            return Zip(first, second, (a, b) => new ValueTuple<TFirst, TSecond>(a, b));
        }

        /// <summary>The elements at the same position combined by <paramref name="resultSelector"/>.</summary>
        public static IOnityAsyncEnumerable<TResult> Zip<TFirst, TSecond, TResult>(this IOnityAsyncEnumerable<TFirst> first, IOnityAsyncEnumerable<TSecond> second, Func<TFirst, TSecond, TResult> resultSelector)
        {
            CheckPair(first, second, resultSelector, "resultSelector");
            return Create<TResult>((w, ct) => ZipProducer(first, second, resultSelector, w, ct));
        }

        static async OnityTask ConcatProducer<T>(IOnityAsyncEnumerable<T> first, IOnityAsyncEnumerable<T> second, IOnityAsyncWriter<T> w, CancellationToken ct)
        {
            await YieldAll(first, w, ct);
            await YieldAll(second, w, ct);
        }

        static async OnityTask AppendProducer<T>(IOnityAsyncEnumerable<T> source, T element, IOnityAsyncWriter<T> w, CancellationToken ct)
        {
            await YieldAll(source, w, ct);
            await w.YieldAsync(element);
        }

        static async OnityTask PrependProducer<T>(IOnityAsyncEnumerable<T> source, T element, IOnityAsyncWriter<T> w, CancellationToken ct)
        {
            await w.YieldAsync(element);
            await YieldAll(source, w, ct);
        }

        static async OnityTask DefaultIfEmptyProducer<T>(IOnityAsyncEnumerable<T> source, T defaultValue, IOnityAsyncWriter<T> w, CancellationToken ct)
        {
            if (await YieldAll(source, w, ct) == 0) await w.YieldAsync(defaultValue);
        }

        static async OnityTask DistinctByProducer<T, TKey>(IOnityAsyncEnumerable<T> source, Func<T, TKey> keySelector, IEqualityComparer<TKey> comparer, IOnityAsyncWriter<T> w, CancellationToken ct)
        {
            var seen = new HashSet<TKey>(comparer);
            var e = source.GetAsyncEnumerator(Src(w, ct));
            try
            {
                while (await e.MoveNextAsync())
                    if (seen.Add(keySelector(e.Current))) await w.YieldAsync(e.Current);
            }
            finally
            {
                await e.DisposeAsync();
            }
        }

        static async OnityTask UnionProducer<T>(IOnityAsyncEnumerable<T> first, IOnityAsyncEnumerable<T> second, IEqualityComparer<T> comparer, IOnityAsyncWriter<T> w, CancellationToken ct)
        {
            var seen = new HashSet<T>(comparer);
            await FilterBySet(first, seen, true, w, ct);
            await FilterBySet(second, seen, true, w, ct);
        }

        static async OnityTask ExceptProducer<T>(IOnityAsyncEnumerable<T> first, IOnityAsyncEnumerable<T> second, IEqualityComparer<T> comparer, IOnityAsyncWriter<T> w, CancellationToken ct)
        {
            var set = new HashSet<T>(await ToListCore(second, Src(w, ct)), comparer);
            await FilterBySet(first, set, true, w, ct);
        }

        static async OnityTask IntersectProducer<T>(IOnityAsyncEnumerable<T> first, IOnityAsyncEnumerable<T> second, IEqualityComparer<T> comparer, IOnityAsyncWriter<T> w, CancellationToken ct)
        {
            var set = new HashSet<T>(await ToListCore(second, Src(w, ct)), comparer);
            await FilterBySet(first, set, false, w, ct);
        }

        static async OnityTask SkipLastProducer<T>(IOnityAsyncEnumerable<T> source, int count, IOnityAsyncWriter<T> w, CancellationToken ct)
        {
            var q = new Queue<T>(Math.Min(count, 64));
            var e = source.GetAsyncEnumerator(Src(w, ct));
            try
            {
                while (await e.MoveNextAsync())
                {
                    if (q.Count == count) await w.YieldAsync(q.Dequeue());
                    q.Enqueue(e.Current);
                }
            }
            finally
            {
                await e.DisposeAsync();
            }
        }

        static async OnityTask TakeLastProducer<T>(IOnityAsyncEnumerable<T> source, int count, IOnityAsyncWriter<T> w, CancellationToken ct)
        {
            var q = new Queue<T>(Math.Min(count, 64));
            var e = source.GetAsyncEnumerator(Src(w, ct));
            try
            {
                while (await e.MoveNextAsync())
                {
                    if (q.Count == count) q.Dequeue();
                    q.Enqueue(e.Current);
                }
            }
            finally
            {
                await e.DisposeAsync();
            }
            while (q.Count > 0) await w.YieldAsync(q.Dequeue());
        }

        static async OnityTask ReverseProducer<T>(IOnityAsyncEnumerable<T> source, IOnityAsyncWriter<T> w, CancellationToken ct)
        {
            var list = await ToListCore(source, Src(w, ct));
            for (int i = list.Count - 1; i >= 0; i--) await w.YieldAsync(list[i]);
        }

        static async OnityTask BufferProducer<T>(IOnityAsyncEnumerable<T> source, int count, int skip, IOnityAsyncWriter<IList<T>> w, CancellationToken ct)
        {
            var open = new Queue<List<T>>();
            int index = 0;
            var e = source.GetAsyncEnumerator(Src(w, ct));
            try
            {
                while (await e.MoveNextAsync())
                {
                    if (index++ % skip == 0) open.Enqueue(new List<T>(count));
                    foreach (var b in open) b.Add(e.Current);
                    if (open.Count > 0 && open.Peek().Count == count) await w.YieldAsync(open.Dequeue());
                }
            }
            finally
            {
                await e.DisposeAsync();
            }
            while (open.Count > 0)
            {
                var b = open.Dequeue();
                if (b.Count > 0) await w.YieldAsync(b);
            }
        }

        static async OnityTask PairwiseProducer<T>(IOnityAsyncEnumerable<T> source, IOnityAsyncWriter<ValueTuple<T, T>> w, CancellationToken ct)
        {
            var e = source.GetAsyncEnumerator(Src(w, ct));
            try
            {
                bool any = await e.MoveNextAsync();
                T prev = any ? e.Current : default(T);
                while (any && await e.MoveNextAsync())
                {
                    T cur = e.Current;
                    await w.YieldAsync(new ValueTuple<T, T>(prev, cur));
                    prev = cur;
                }
            }
            finally
            {
                await e.DisposeAsync();
            }
        }

        static async OnityTask ZipProducer<TFirst, TSecond, TResult>(IOnityAsyncEnumerable<TFirst> first, IOnityAsyncEnumerable<TSecond> second, Func<TFirst, TSecond, TResult> resultSelector, IOnityAsyncWriter<TResult> w, CancellationToken ct)
        {
            var a = first.GetAsyncEnumerator(Src(w, ct));
            try
            {
                var b = second.GetAsyncEnumerator(Src(w, ct));
                try
                {
                    while (await a.MoveNextAsync() && await b.MoveNextAsync())
                        await w.YieldAsync(resultSelector(a.Current, b.Current));
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

        // ---- Subscribe: fire-and-forget enumeration ------------------------------------------------

        /// <summary>Runs <paramref name="onNext"/> for each element without awaiting; disposing the
        /// result cancels the enumeration. An exception (not a cancellation) goes to the unobserved
        /// exception handler (OnityTask.UnobservedTaskException), as UniTask's.</summary>
        public static IDisposable Subscribe<T>(this IOnityAsyncEnumerable<T> source, Action<T> onNext)
        {
            return SubscribeDisposable(source, onNext, null, null);
        }

        public static void Subscribe<T>(this IOnityAsyncEnumerable<T> source, Action<T> onNext, CancellationToken cancellationToken)
        {
            SubscribeChecked(source, onNext, null, null, cancellationToken);
        }

        /// <summary>Subscribe, <paramref name="onError"/> called with the stream's exception.</summary>
        public static IDisposable Subscribe<T>(this IOnityAsyncEnumerable<T> source, Action<T> onNext, Action<Exception> onError)
        {
            if (onError == null) throw new ArgumentNullException("onError");
            return SubscribeDisposable(source, onNext, onError, null);
        }

        public static void Subscribe<T>(this IOnityAsyncEnumerable<T> source, Action<T> onNext, Action<Exception> onError, CancellationToken cancellationToken)
        {
            if (onError == null) throw new ArgumentNullException("onError");
            SubscribeChecked(source, onNext, onError, null, cancellationToken);
        }

        /// <summary>Subscribe, <paramref name="onCompleted"/> called when the stream ends.</summary>
        public static IDisposable Subscribe<T>(this IOnityAsyncEnumerable<T> source, Action<T> onNext, Action onCompleted)
        {
            if (onCompleted == null) throw new ArgumentNullException("onCompleted");
            return SubscribeDisposable(source, onNext, null, onCompleted);
        }

        public static void Subscribe<T>(this IOnityAsyncEnumerable<T> source, Action<T> onNext, Action onCompleted, CancellationToken cancellationToken)
        {
            if (onCompleted == null) throw new ArgumentNullException("onCompleted");
            SubscribeChecked(source, onNext, null, onCompleted, cancellationToken);
        }

        /// <summary>Subscribe with an observer's OnNext, OnError and OnCompleted.</summary>
        public static IDisposable Subscribe<T>(this IOnityAsyncEnumerable<T> source, IObserver<T> observer)
        {
            if (observer == null) throw new ArgumentNullException("observer");
            return SubscribeDisposable(source, observer.OnNext, observer.OnError, observer.OnCompleted);
        }

        public static void Subscribe<T>(this IOnityAsyncEnumerable<T> source, IObserver<T> observer, CancellationToken cancellationToken)
        {
            if (observer == null) throw new ArgumentNullException("observer");
            SubscribeChecked(source, observer.OnNext, observer.OnError, observer.OnCompleted, cancellationToken);
        }

        static IDisposable SubscribeDisposable<T>(IOnityAsyncEnumerable<T> source, Action<T> onNext, Action<Exception> onError, Action onCompleted)
        {
            var cts = new CancellationTokenSource();
            SubscribeChecked(source, onNext, onError, onCompleted, cts.Token);
            return new CancelOnDispose(cts);
        }

        static void SubscribeChecked<T>(IOnityAsyncEnumerable<T> source, Action<T> onNext, Action<Exception> onError, Action onCompleted, CancellationToken ct)
        {
            Check(source, onNext, "onNext");
            SubscribeCore(source, onNext, onError, onCompleted, ct).Forget();
        }

        static async OnityTask SubscribeCore<T>(IOnityAsyncEnumerable<T> source, Action<T> onNext, Action<Exception> onError, Action onCompleted, CancellationToken ct)
        {
            Exception error = null;
            try { await source.ForEachAsync(onNext, ct); }
            catch (Exception ex) { error = ex; }
            EndSubscription(error, onError, onCompleted);
        }

        /// <summary>A subscription's end: onCompleted, or the error to onError (else unobserved);
        /// a cancellation is neither.</summary>
        static void EndSubscription(Exception error, Action<Exception> onError, Action onCompleted)
        {
            if (error == null)
            {
                if (onCompleted != null) onCompleted();
            }
            else if (!(error is OperationCanceledException))
            {
                if (onError != null) onError(error);
                else OnityTask.PublishUnobserved(error);
            }
        }

        sealed class CancelOnDispose : IDisposable
        {
            readonly CancellationTokenSource cts;
            internal CancelOnDispose(CancellationTokenSource cts) { this.cts = cts; }

            public void Dispose()
            {
                try { cts.Cancel(); }
                catch (ObjectDisposedException) { }
                cts.Dispose();
            }
        }

        /// <summary>Gives every element of <paramref name="source"/> to <paramref name="w"/>; returns their count.</summary>
        static async OnityTask<int> YieldAll<T>(IOnityAsyncEnumerable<T> source, IOnityAsyncWriter<T> w, CancellationToken ct)
        {
            int n = 0;
            var e = source.GetAsyncEnumerator(Src(w, ct));
            try
            {
                while (await e.MoveNextAsync())
                {
                    n++;
                    await w.YieldAsync(e.Current);
                }
            }
            finally
            {
                await e.DisposeAsync();
            }
            return n;
        }

        /// <summary>Gives the elements that <paramref name="set"/>.Add accepts (addNew) or that it
        /// holds, once each (removed when given).</summary>
        static async OnityTask FilterBySet<T>(IOnityAsyncEnumerable<T> source, HashSet<T> set, bool addNew, IOnityAsyncWriter<T> w, CancellationToken ct)
        {
            var e = source.GetAsyncEnumerator(Src(w, ct));
            try
            {
                while (await e.MoveNextAsync())
                {
                    var x = e.Current;
                    if (addNew ? set.Add(x) : set.Remove(x)) await w.YieldAsync(x);
                }
            }
            finally
            {
                await e.DisposeAsync();
            }
        }
    }
}
