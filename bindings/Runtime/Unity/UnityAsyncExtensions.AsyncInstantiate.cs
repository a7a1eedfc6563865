// Object.InstantiateAsync's operation as a task (UniTask's AsyncInstantiateOperationExtensions).
// AsyncInstantiateOperation is Unity 2022.3.20+ (and 2023.3+): ONITY_ASYNC_INSTANTIATE_SUPPORT is
// set by Onity.Unity.asmdef's versionDefines for those editor versions.
#if (UNITY_5_3_OR_NEWER || ONITY_UNITY_STANDIN) && ONITY_ASYNC_INSTANTIATE_SUPPORT
using System;
using System.Threading;
using UnityEngine;

namespace Onity
{
    /// <summary>Awaiting <c>Object.InstantiateAsync</c>: the task completes with the instances at
    /// the first run of the timing where the operation is done (<paramref name="progress"/> gets
    /// its progress at each run). A canceled token cancels the task at the next run, or at once
    /// with <c>cancelImmediately</c>; the operation itself goes on (call its <c>Cancel()</c> to
    /// stop it). Pooled: nothing allocated per await after warm-up. Main thread.</summary>
    public static class OnityAsyncInstantiateOperationExtensions
    {
        public static OnityTask<UnityEngine.Object[]> WithCancellation(this AsyncInstantiateOperation asyncOperation, CancellationToken cancellationToken)
        {
            return ToOnityTask(asyncOperation, null, OnityTiming.Update, cancellationToken, false);
        }

        public static OnityTask<UnityEngine.Object[]> WithCancellation(this AsyncInstantiateOperation asyncOperation, CancellationToken cancellationToken, bool cancelImmediately)
        {
            return ToOnityTask(asyncOperation, null, OnityTiming.Update, cancellationToken, cancelImmediately);
        }

        public static OnityTask<UnityEngine.Object[]> ToOnityTask(this AsyncInstantiateOperation asyncOperation, IProgress<float> progress = null, OnityTiming timing = OnityTiming.Update,
            CancellationToken cancellationToken = default(CancellationToken), bool cancelImmediately = false)
        {
            if (asyncOperation == null) throw new ArgumentNullException("asyncOperation");
            if (cancellationToken.IsCancellationRequested) return OnityTask.FromCanceled<UnityEngine.Object[]>(cancellationToken);
            if (asyncOperation.isDone) return new OnityTask<UnityEngine.Object[]>(asyncOperation.Result);
            return OnityInstantiateSource<UnityEngine.Object>.Start(asyncOperation, null, progress, timing, cancellationToken, cancelImmediately);
        }

        public static OnityTask<T[]> WithCancellation<T>(this AsyncInstantiateOperation<T> asyncOperation, CancellationToken cancellationToken) where T : UnityEngine.Object
        {
            return ToOnityTask(asyncOperation, null, OnityTiming.Update, cancellationToken, false);
        }

        public static OnityTask<T[]> WithCancellation<T>(this AsyncInstantiateOperation<T> asyncOperation, CancellationToken cancellationToken, bool cancelImmediately) where T : UnityEngine.Object
        {
            return ToOnityTask(asyncOperation, null, OnityTiming.Update, cancellationToken, cancelImmediately);
        }

        public static OnityTask<T[]> ToOnityTask<T>(this AsyncInstantiateOperation<T> asyncOperation, IProgress<float> progress = null, OnityTiming timing = OnityTiming.Update,
            CancellationToken cancellationToken = default(CancellationToken), bool cancelImmediately = false) where T : UnityEngine.Object
        {
            if (asyncOperation == null) throw new ArgumentNullException("asyncOperation");
            if (cancellationToken.IsCancellationRequested) return OnityTask.FromCanceled<T[]>(cancellationToken);
            if (asyncOperation.isDone) return new OnityTask<T[]>(asyncOperation.Result);
            return OnityInstantiateSource<T>.Start(asyncOperation.GetOperation(), asyncOperation, progress, timing, cancellationToken, cancelImmediately);
        }

        /// <summary><c>await Object.InstantiateAsync(...)</c>: the instances.</summary>
        public static OnityTask<T[]>.Awaiter GetAwaiter<T>(this AsyncInstantiateOperation<T> asyncOperation) where T : UnityEngine.Object
        {
            return ToOnityTask(asyncOperation).GetAwaiter();
        }
    }

    /// <summary>The polled wait of an instantiate operation (pooled per instance type).</summary>
    internal sealed class OnityInstantiateSource<T> : OnityLoopSource<T[]> where T : UnityEngine.Object
    {
        static readonly OnityObjectPool<OnityInstantiateSource<T>> pool = new OnityObjectPool<OnityInstantiateSource<T>>(64);
        static readonly Action<object> CancelNow = s => ((OnityInstantiateSource<T>)s).CancelFromToken();
        AsyncInstantiateOperation op;
        AsyncInstantiateOperation<T> typed; // null: the untyped operation (T is Object)
        IProgress<float> progress;
        CancellationToken ct;
        CancellationTokenRegistration registration;

        internal static OnityTask<T[]> Start(AsyncInstantiateOperation op, AsyncInstantiateOperation<T> typed, IProgress<float> progress, OnityTiming timing, CancellationToken ct, bool cancelImmediately)
        {
            var s = pool.TryRent() ?? new OnityInstantiateSource<T>();
            s.op = op;
            s.typed = typed;
            s.progress = progress;
            s.ct = ct;
            var task = s.Task;
            s.StartLoopOrRelease(timing);
            if (cancelImmediately && ct.CanBeCanceled) s.registration = ct.Register(CancelNow, s, false);
            return task;
        }

        void CancelFromToken() { TrySetCanceled(ct); }

        protected override bool MoveNext()
        {
            if (IsCompleted) return false; // canceled at once by the token
            if (ct.IsCancellationRequested)
            {
                TrySetCanceled(ct);
                return false;
            }
            T[] result;
            try
            {
                if (progress != null) progress.Report(op.progress);
                if (!op.isDone) return true;
                result = typed != null ? typed.Result : (T[])(object)op.Result;
            }
            catch (Exception ex)
            {
                TrySetException(ex);
                return false;
            }
            TrySetResult(result);
            return false;
        }

        protected override void OnLoopCanceled() { TrySetCanceled(); }

        void Clear()
        {
            registration.Dispose();
            registration = default(CancellationTokenRegistration);
            op = null;
            typed = null;
            progress = null;
            ct = default(CancellationToken);
        }

        protected override void Release()
        {
            Clear();
            pool.Return(this);
        }
    }
}
#endif
