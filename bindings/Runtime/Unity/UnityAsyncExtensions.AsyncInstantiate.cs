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

    /// <summary>The polled wait of an instantiate operation (pooled per instance type): the
    /// polled form of UnityAsyncExtensions.AsyncOperation.cs with the instances as the result.</summary>
    internal sealed class OnityInstantiateSource<T> : OnityAsyncOperationSource<OnityInstantiateSource<T>, T[]> where T : UnityEngine.Object
    {
        AsyncInstantiateOperation<T> typed; // null: the untyped operation (T is Object)

        internal static OnityTask<T[]> Start(AsyncInstantiateOperation op, AsyncInstantiateOperation<T> typed, IProgress<float> progress, OnityTiming timing, CancellationToken ct, bool cancelImmediately)
        {
            var s = Rent();
            s.typed = typed;
            return Start(s, op, progress, timing, ct, cancelImmediately);
        }

        protected override T[] Result() { return typed != null ? typed.Result : (T[])(object)((AsyncInstantiateOperation)Operation).Result; }

        protected override void Recycle()
        {
            typed = null;
            base.Recycle();
        }
    }
}
#endif
