using System;
using System.Threading;

namespace Onity
{
    // SubscribeAwait (UniTask's Linq/Subscribe.cs): fire-and-forget enumeration whose onNext is
    // awaited before the next element is asked for; ForEachAwaitWithCancellationAsync and
    // AsOnityAsyncEnumerable under UniTask's names.
    public static partial class OnityAsyncEnumerable
    {
        /// <summary>Awaits <paramref name="onNext"/> for each element, one at a time, without the
        /// caller awaiting; disposing the result cancels the enumeration. An exception (not a
        /// cancellation) goes to the unobserved exception handler (OnityTask.UnobservedTaskException).</summary>
        public static IDisposable SubscribeAwait<T>(this IOnityAsyncEnumerable<T> source, Func<T, OnityTask> onNext)
        {
            return SubscribeAwaitDisposable(source, onNext, null, null, null);
        }

        public static void SubscribeAwait<T>(this IOnityAsyncEnumerable<T> source, Func<T, OnityTask> onNext, CancellationToken cancellationToken)
        {
            SubscribeAwaitChecked(source, onNext, null, null, null, cancellationToken);
        }

        /// <summary>As SubscribeAwait, the enumeration's token handed to <paramref name="onNext"/>.</summary>
        public static IDisposable SubscribeAwait<T>(this IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask> onNext)
        {
            return SubscribeAwaitDisposable(source, null, onNext, null, null);
        }

        public static void SubscribeAwait<T>(this IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask> onNext, CancellationToken cancellationToken)
        {
            SubscribeAwaitChecked(source, null, onNext, null, null, cancellationToken);
        }

        /// <summary>SubscribeAwait, <paramref name="onError"/> called with the stream's or onNext's exception.</summary>
        public static IDisposable SubscribeAwait<T>(this IOnityAsyncEnumerable<T> source, Func<T, OnityTask> onNext, Action<Exception> onError)
        {
            if (onError == null) throw new ArgumentNullException("onError");
            return SubscribeAwaitDisposable(source, onNext, null, onError, null);
        }

        public static void SubscribeAwait<T>(this IOnityAsyncEnumerable<T> source, Func<T, OnityTask> onNext, Action<Exception> onError, CancellationToken cancellationToken)
        {
            if (onError == null) throw new ArgumentNullException("onError");
            SubscribeAwaitChecked(source, onNext, null, onError, null, cancellationToken);
        }

        public static IDisposable SubscribeAwait<T>(this IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask> onNext, Action<Exception> onError)
        {
            if (onError == null) throw new ArgumentNullException("onError");
            return SubscribeAwaitDisposable(source, null, onNext, onError, null);
        }

        public static void SubscribeAwait<T>(this IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask> onNext, Action<Exception> onError, CancellationToken cancellationToken)
        {
            if (onError == null) throw new ArgumentNullException("onError");
            SubscribeAwaitChecked(source, null, onNext, onError, null, cancellationToken);
        }

        /// <summary>SubscribeAwait, <paramref name="onCompleted"/> called when the stream ends.</summary>
        public static IDisposable SubscribeAwait<T>(this IOnityAsyncEnumerable<T> source, Func<T, OnityTask> onNext, Action onCompleted)
        {
            if (onCompleted == null) throw new ArgumentNullException("onCompleted");
            return SubscribeAwaitDisposable(source, onNext, null, null, onCompleted);
        }

        public static void SubscribeAwait<T>(this IOnityAsyncEnumerable<T> source, Func<T, OnityTask> onNext, Action onCompleted, CancellationToken cancellationToken)
        {
            if (onCompleted == null) throw new ArgumentNullException("onCompleted");
            SubscribeAwaitChecked(source, onNext, null, null, onCompleted, cancellationToken);
        }

        public static IDisposable SubscribeAwait<T>(this IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask> onNext, Action onCompleted)
        {
            if (onCompleted == null) throw new ArgumentNullException("onCompleted");
            return SubscribeAwaitDisposable(source, null, onNext, null, onCompleted);
        }

        public static void SubscribeAwait<T>(this IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask> onNext, Action onCompleted, CancellationToken cancellationToken)
        {
            if (onCompleted == null) throw new ArgumentNullException("onCompleted");
            SubscribeAwaitChecked(source, null, onNext, null, onCompleted, cancellationToken);
        }

        static IDisposable SubscribeAwaitDisposable<T>(IOnityAsyncEnumerable<T> source, Func<T, OnityTask> onNext, Func<T, CancellationToken, OnityTask> onNextToken, Action<Exception> onError, Action onCompleted)
        {
            Check(source, (object)onNext ?? onNextToken, "onNext");
            var cts = new CancellationTokenSource();
            SubscribeAwaitCore(source, onNext, onNextToken, onError, onCompleted, cts.Token).Forget();
            return new CancelOnDispose(cts);
        }

        static void SubscribeAwaitChecked<T>(IOnityAsyncEnumerable<T> source, Func<T, OnityTask> onNext, Func<T, CancellationToken, OnityTask> onNextToken, Action<Exception> onError, Action onCompleted, CancellationToken ct)
        {
            Check(source, (object)onNext ?? onNextToken, "onNext");
            SubscribeAwaitCore(source, onNext, onNextToken, onError, onCompleted, ct).Forget();
        }

        static async OnityTask SubscribeAwaitCore<T>(IOnityAsyncEnumerable<T> source, Func<T, OnityTask> onNext, Func<T, CancellationToken, OnityTask> onNextToken, Action<Exception> onError, Action onCompleted, CancellationToken ct)
        {
            Exception error = null;
            try
            {
                if (onNext != null) await ForEachAwaitCore(source, onNext, ct);
                else await ForEachAwaitTokenCore(source, onNextToken, ct);
            }
            catch (Exception ex) { error = ex; }
            EndSubscription(error, onError, onCompleted);
        }

        /// <summary>UniTask's name for <see cref="ForEachAwaitAsync{T}(IOnityAsyncEnumerable{T}, Func{T, CancellationToken, OnityTask}, CancellationToken)"/>.</summary>
        public static OnityTask ForEachAwaitWithCancellationAsync<T>(this IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask> action, CancellationToken cancellationToken = default(CancellationToken))
        {
            return ForEachAwaitAsync(source, action, cancellationToken);
        }

        /// <summary>Awaits <paramref name="action"/> (element, index, token) for each element before
        /// asking for the next one.</summary>
        public static OnityTask ForEachAwaitWithCancellationAsync<T>(this IOnityAsyncEnumerable<T> source, Func<T, int, CancellationToken, OnityTask> action, CancellationToken cancellationToken = default(CancellationToken))
        {
            Check(source, action, "action");
            return ForEachAwaitIndexTokenCore(source, action, cancellationToken);
        }

        static async OnityTask ForEachAwaitIndexTokenCore<T>(IOnityAsyncEnumerable<T> source, Func<T, int, CancellationToken, OnityTask> action, CancellationToken ct)
        {
            var e = source.GetAsyncEnumerator(ct);
            try
            {
                int i = 0;
                while (await e.MoveNextAsync()) await action(e.Current, checked(i++), ct);
            }
            finally
            {
                await e.DisposeAsync();
            }
        }

        /// <summary>The stream itself, typed as <see cref="IOnityAsyncEnumerable{T}"/> (UniTask's
        /// AsUniTaskAsyncEnumerable: hides the concrete type).</summary>
        public static IOnityAsyncEnumerable<T> AsOnityAsyncEnumerable<T>(this IOnityAsyncEnumerable<T> source)
        {
            if (source == null) throw new ArgumentNullException("source");
            return source;
        }
    }
}
