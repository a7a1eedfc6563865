using System;
using System.Threading;

namespace Onity
{
    // UniTask's cancelImmediately overloads: the wait is canceled at the Cancel call itself (a
    // registration of the token: allocates it, as UniTask's) instead of at the timing's next run.
    // Also UniTask's WaitForFixedUpdate / WaitForSeconds names and Delay(int, bool ignoreTimeScale).
    public partial struct OnityTask
    {
        public static OnityTask Yield(OnityTiming timing, CancellationToken cancellationToken, bool cancelImmediately)
        {
            return Immediately(Yield(timing, cancellationToken), cancellationToken, cancelImmediately);
        }

        public static OnityTask Yield(CancellationToken cancellationToken, bool cancelImmediately)
        {
            return Immediately(Yield(OnityTiming.Update, cancellationToken), cancellationToken, cancelImmediately);
        }

        public static OnityTask NextFrame(OnityTiming timing, CancellationToken cancellationToken, bool cancelImmediately)
        {
            return Immediately(NextFrame(timing, cancellationToken), cancellationToken, cancelImmediately);
        }

        public static OnityTask NextFrame(CancellationToken cancellationToken, bool cancelImmediately)
        {
            return Immediately(NextFrame(OnityTiming.Update, cancellationToken), cancellationToken, cancelImmediately);
        }

        public static OnityTask DelayFrame(int delayFrameCount, OnityTiming timing, CancellationToken cancellationToken, bool cancelImmediately)
        {
            return Immediately(DelayFrame(delayFrameCount, timing, cancellationToken), cancellationToken, cancelImmediately);
        }

        public static OnityTask DelayFrame(int delayFrameCount, CancellationToken cancellationToken, bool cancelImmediately)
        {
            return Immediately(DelayFrame(delayFrameCount, OnityTiming.Update, cancellationToken), cancellationToken, cancelImmediately);
        }

        public static OnityTask Delay(TimeSpan delay, DelayType delayType, OnityTiming timing, CancellationToken cancellationToken, bool cancelImmediately)
        {
            return Immediately(Delay(delay, delayType, timing, cancellationToken), cancellationToken, cancelImmediately);
        }

        public static OnityTask Delay(int millisecondsDelay, DelayType delayType, OnityTiming timing, CancellationToken cancellationToken, bool cancelImmediately)
        {
            return Immediately(Delay(millisecondsDelay, delayType, timing, cancellationToken), cancellationToken, cancelImmediately);
        }

        public static OnityTask Delay(TimeSpan delay, bool ignoreTimeScale, OnityTiming timing, CancellationToken cancellationToken, bool cancelImmediately)
        {
            return Immediately(Delay(delay, ignoreTimeScale, timing, cancellationToken), cancellationToken, cancelImmediately);
        }

        /// <summary>UniTask's <c>Delay(int, bool ignoreTimeScale, …)</c>: unscaled time when
        /// <paramref name="ignoreTimeScale"/>.</summary>
        public static OnityTask Delay(int millisecondsDelay, bool ignoreTimeScale, OnityTiming timing = OnityTiming.Update, CancellationToken cancellationToken = default(CancellationToken), bool cancelImmediately = false)
        {
            return Immediately(Delay(TimeSpan.FromMilliseconds(millisecondsDelay), ignoreTimeScale, timing, cancellationToken), cancellationToken, cancelImmediately);
        }

        /// <summary>UniTask's <c>WaitForSeconds</c>: <see cref="Delay(TimeSpan, bool, OnityTiming, CancellationToken, bool)"/> in seconds.</summary>
        public static OnityTask WaitForSeconds(float duration, bool ignoreTimeScale = false, OnityTiming delayTiming = OnityTiming.Update, CancellationToken cancellationToken = default(CancellationToken), bool cancelImmediately = false)
        {
            return Immediately(Delay(TimeSpan.FromSeconds(duration), ignoreTimeScale, delayTiming, cancellationToken), cancellationToken, cancelImmediately);
        }

        /// <summary>As <see cref="WaitForSeconds(float, bool, OnityTiming, CancellationToken, bool)"/>.</summary>
        public static OnityTask WaitForSeconds(int duration, bool ignoreTimeScale = false, OnityTiming delayTiming = OnityTiming.Update, CancellationToken cancellationToken = default(CancellationToken), bool cancelImmediately = false)
        {
            return Immediately(Delay(TimeSpan.FromSeconds(duration), ignoreTimeScale, delayTiming, cancellationToken), cancellationToken, cancelImmediately);
        }

        /// <summary>UniTask's <c>WaitForFixedUpdate</c>: the next run of LastFixedUpdate.</summary>
        public static OnityFrameWait WaitForFixedUpdate() { return Yield(OnityTiming.LastFixedUpdate); }

        /// <summary>As <see cref="WaitForFixedUpdate()"/>, with a token.</summary>
        public static OnityTask WaitForFixedUpdate(CancellationToken cancellationToken, bool cancelImmediately = false)
        {
            return Immediately(Yield(OnityTiming.LastFixedUpdate, cancellationToken), cancellationToken, cancelImmediately);
        }

        /// <summary>UniTask's <c>WaitForEndOfFrame()</c> without a coroutine runner (Unity 2022.3):
        /// the next run of LastPostLateUpdate, the player loop's last point of the frame (Unity's
        /// real end of frame, after rendering, needs a MonoBehaviour:
        /// <c>OnityUnityTask.WaitForEndOfFrame(MonoBehaviour)</c>).</summary>
        public static OnityFrameWait WaitForEndOfFrame() { return Yield(OnityTiming.LastPostLateUpdate); }

        /// <summary>As <see cref="WaitForEndOfFrame()"/>, with a token.</summary>
        public static OnityTask WaitForEndOfFrame(CancellationToken cancellationToken, bool cancelImmediately = false)
        {
            return Immediately(Yield(OnityTiming.LastPostLateUpdate, cancellationToken), cancellationToken, cancelImmediately);
        }

        public static OnityTask WaitUntil(Func<bool> predicate, OnityTiming timing, CancellationToken cancellationToken, bool cancelImmediately)
        {
            return Immediately(WaitUntil(predicate, timing, cancellationToken), cancellationToken, cancelImmediately);
        }

        public static OnityTask WaitWhile(Func<bool> predicate, OnityTiming timing, CancellationToken cancellationToken, bool cancelImmediately)
        {
            return Immediately(WaitWhile(predicate, timing, cancellationToken), cancellationToken, cancelImmediately);
        }

        /// <summary><paramref name="inner"/>, or with <paramref name="cancelImmediately"/> a task
        /// canceled at the token's Cancel (the inner wait is still consumed when it ends).</summary>
        internal static OnityTask Immediately(OnityTask inner, CancellationToken ct, bool cancelImmediately)
        {
            if (!cancelImmediately || !ct.CanBeCanceled || inner.source == null) return inner;
            return CancelImmediatelyPromise.Start(inner, ct).AsOnityTask();
        }
    }

    /// <summary>A wait and its token's registration, whichever comes first (TuplePromise's WhenAny
    /// with two inputs: 0 the wait, 1 the cancellation).</summary>
    internal sealed class CancelImmediatelyPromise : TuplePromise<AsyncUnit>
    {
        static readonly OnityObjectPool<CancelImmediatelyPromise> pool = new OnityObjectPool<CancelImmediatelyPromise>(64);
        static readonly Action<object> onCancel = o => ((CancelImmediatelyPromise)o).Canceled();
        readonly Action onInner;
        OnityTask inner;
        CancellationToken token;
        CancellationTokenRegistration registration;
        int cancelInput; // 1 once input 1 (the cancellation) was counted

        CancelImmediatelyPromise() { onInner = OnInner; }

        internal static OnityTask<AsyncUnit> Start(OnityTask inner, CancellationToken ct)
        {
            var p = pool.TryRent() ?? new CancelImmediatelyPromise();
            var task = p.Begin(2, true);
            p.inner = inner;
            p.token = ct;
            p.cancelInput = 0;
            p.registration = OnityCancellationExtensions.RegisterWithoutCaptureExecutionContext(ct, onCancel, p);
            TupleInputs.Watch(inner, p.onInner);
            return task;
        }

        void Canceled()
        {
            if (Interlocked.Exchange(ref cancelInput, 1) == 0) InputDone(1, new OperationCanceledException(token));
        }

        void OnInner()
        {
            var e = TupleInputs.Take(ref inner);
            // Waits for a cancellation callback that is running; afterwards none runs.
            registration.Dispose();
            InputDone(0, e);
            if (Interlocked.Exchange(ref cancelInput, 1) == 0) InputDone(1, null); // not canceled: count it
        }

        protected override AsyncUnit AnyResult(int index) { return default(AsyncUnit); }

        protected override void Recycle()
        {
            registration = default(CancellationTokenRegistration);
            token = default(CancellationToken);
            pool.Return(this);
        }
    }
}
