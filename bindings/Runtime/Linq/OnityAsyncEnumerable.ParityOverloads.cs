using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;

namespace Onity
{
    // UniTask's overloads of existing operators that take other arguments: Timer with
    // ignoreTimeScale, SequenceEqualAsync without a comparer, ForEachAsync with async actions (its
    // obsolete form of ForEachAwaitAsync), ForEachAwaitAsync / SelectMany with the index, GroupBy
    // with a result selector, Subscribe with async OnityTaskVoid handlers (each element starts the
    // handler and does not wait for it, as UniTask's). Each composes existing operators: the
    // building allocates the composing delegates once, enumeration nothing more.
    public static partial class OnityAsyncEnumerable
    {
        public static IOnityAsyncEnumerable<AsyncUnit> Timer(TimeSpan dueTime, OnityTiming updateTiming, bool ignoreTimeScale = false)
        {
            return Timer(dueTime, ignoreTimeScale ? DelayType.UnscaledDeltaTime : DelayType.DeltaTime, updateTiming);
        }

        public static IOnityAsyncEnumerable<AsyncUnit> Timer(TimeSpan dueTime, TimeSpan period, OnityTiming updateTiming, bool ignoreTimeScale = false)
        {
            return Timer(dueTime, period, ignoreTimeScale ? DelayType.UnscaledDeltaTime : DelayType.DeltaTime, updateTiming);
        }

        public static OnityTask<bool> SequenceEqualAsync<T>(this IOnityAsyncEnumerable<T> first, IOnityAsyncEnumerable<T> second, CancellationToken cancellationToken)
        {
            return SequenceEqualAsync(first, second, null, cancellationToken);
        }

        /// <summary>UniTask's obsolete name of <see cref="ForEachAwaitAsync{T}(IOnityAsyncEnumerable{T}, Func{T, OnityTask}, CancellationToken)"/>.</summary>
        public static OnityTask ForEachAsync<T>(this IOnityAsyncEnumerable<T> source, Func<T, OnityTask> action, CancellationToken cancellationToken = default(CancellationToken))
        {
            return ForEachAwaitAsync(source, action, cancellationToken);
        }

        public static OnityTask ForEachAsync<T>(this IOnityAsyncEnumerable<T> source, Func<T, int, OnityTask> action, CancellationToken cancellationToken = default(CancellationToken))
        {
            return ForEachAwaitAsync(source, action, cancellationToken);
        }

        /// <summary>As ForEachAwaitAsync, passing each element's index.</summary>
        public static OnityTask ForEachAwaitAsync<T>(this IOnityAsyncEnumerable<T> source, Func<T, int, OnityTask> action, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (action == null) throw new ArgumentNullException("action");
            var index = new Counter();
            return ForEachAwaitAsync(source, x => action(x, index.Next()), cancellationToken);
        }

        sealed class Counter
        {
            int n;
            internal int Next() { return checked(n++); }
        }

        public static IOnityAsyncEnumerable<TResult> SelectMany<T, TResult>(this IOnityAsyncEnumerable<T> source, Func<T, int, IOnityAsyncEnumerable<TResult>> selector)
        {
            if (selector == null) throw new ArgumentNullException("selector");
            return SelectMany(Select(source, (x, i) => new KeyValuePair<T, int>(x, i)), p => selector(p.Key, p.Value));
        }

        public static IOnityAsyncEnumerable<TResult> SelectMany<T, TCollection, TResult>(this IOnityAsyncEnumerable<T> source, Func<T, int, IOnityAsyncEnumerable<TCollection>> collectionSelector, Func<T, TCollection, TResult> resultSelector)
        {
            if (collectionSelector == null) throw new ArgumentNullException("collectionSelector");
            if (resultSelector == null) throw new ArgumentNullException("resultSelector");
            return SelectMany(Select(source, (x, i) => new KeyValuePair<T, int>(x, i)), p => collectionSelector(p.Key, p.Value), (p, c) => resultSelector(p.Key, c));
        }

        public static IOnityAsyncEnumerable<TResult> GroupBy<T, TKey, TResult>(this IOnityAsyncEnumerable<T> source, Func<T, TKey> keySelector, Func<TKey, IEnumerable<T>, TResult> resultSelector)
        {
            if (resultSelector == null) throw new ArgumentNullException("resultSelector");
            return Select(GroupBy(source, keySelector), g => resultSelector(g.Key, g));
        }

        public static IOnityAsyncEnumerable<TResult> GroupBy<T, TKey, TResult>(this IOnityAsyncEnumerable<T> source, Func<T, TKey> keySelector, Func<TKey, IEnumerable<T>, TResult> resultSelector, IEqualityComparer<TKey> comparer)
        {
            if (resultSelector == null) throw new ArgumentNullException("resultSelector");
            return Select(GroupBy(source, keySelector, comparer), g => resultSelector(g.Key, g));
        }

        public static IOnityAsyncEnumerable<TResult> GroupBy<T, TKey, TElement, TResult>(this IOnityAsyncEnumerable<T> source, Func<T, TKey> keySelector, Func<T, TElement> elementSelector, Func<TKey, IEnumerable<TElement>, TResult> resultSelector)
        {
            if (resultSelector == null) throw new ArgumentNullException("resultSelector");
            return Select(GroupBy(source, keySelector, elementSelector), g => resultSelector(g.Key, g));
        }

        public static IOnityAsyncEnumerable<TResult> GroupBy<T, TKey, TElement, TResult>(this IOnityAsyncEnumerable<T> source, Func<T, TKey> keySelector, Func<T, TElement> elementSelector, Func<TKey, IEnumerable<TElement>, TResult> resultSelector, IEqualityComparer<TKey> comparer)
        {
            if (resultSelector == null) throw new ArgumentNullException("resultSelector");
            return Select(GroupBy(source, keySelector, elementSelector, comparer), g => resultSelector(g.Key, g));
        }

        /// <summary>Subscribe with an async handler: each element starts it (not awaited; its
        /// failure goes to OnityTask.UnobservedTaskException).</summary>
        public static IDisposable Subscribe<T>(this IOnityAsyncEnumerable<T> source, Func<T, OnityTaskVoid> action)
        {
            if (action == null) throw new ArgumentNullException("action");
            return Subscribe(source, x => { action(x); });
        }

        /// <summary>As <see cref="Subscribe{T}(IOnityAsyncEnumerable{T}, Func{T, OnityTaskVoid})"/>;
        /// the handler gets a token canceled when the subscription is disposed.</summary>
        public static IDisposable Subscribe<T>(this IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTaskVoid> action)
        {
            if (source == null) throw new ArgumentNullException("source");
            if (action == null) throw new ArgumentNullException("action");
            var cts = new CancellationTokenSource();
            var token = cts.Token;
            Subscribe(source, x => { action(x, token); }, token);
            return new CancelOnDispose(cts);
        }

        public static void Subscribe<T>(this IOnityAsyncEnumerable<T> source, Func<T, OnityTaskVoid> action, CancellationToken cancellationToken)
        {
            if (action == null) throw new ArgumentNullException("action");
            Subscribe(source, x => { action(x); }, cancellationToken);
        }

        public static void Subscribe<T>(this IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTaskVoid> action, CancellationToken cancellationToken)
        {
            if (action == null) throw new ArgumentNullException("action");
            Subscribe(source, x => { action(x, cancellationToken); }, cancellationToken);
        }

        public static IDisposable Subscribe<T>(this IOnityAsyncEnumerable<T> source, Func<T, OnityTaskVoid> onNext, Action<Exception> onError)
        {
            if (onNext == null) throw new ArgumentNullException("onNext");
            return Subscribe(source, x => { onNext(x); }, onError);
        }

        public static void Subscribe<T>(this IOnityAsyncEnumerable<T> source, Func<T, OnityTaskVoid> onNext, Action<Exception> onError, CancellationToken cancellationToken)
        {
            if (onNext == null) throw new ArgumentNullException("onNext");
            Subscribe(source, x => { onNext(x); }, onError, cancellationToken);
        }

        public static IDisposable Subscribe<T>(this IOnityAsyncEnumerable<T> source, Func<T, OnityTaskVoid> onNext, Action onCompleted)
        {
            if (onNext == null) throw new ArgumentNullException("onNext");
            return Subscribe(source, x => { onNext(x); }, onCompleted);
        }

        public static void Subscribe<T>(this IOnityAsyncEnumerable<T> source, Func<T, OnityTaskVoid> onNext, Action onCompleted, CancellationToken cancellationToken)
        {
            if (onNext == null) throw new ArgumentNullException("onNext");
            Subscribe(source, x => { onNext(x); }, onCompleted, cancellationToken);
        }
    }
}
