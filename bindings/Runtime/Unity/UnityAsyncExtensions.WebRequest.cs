// UnityWebRequestAsyncOperation as an awaitable: the request when it succeeded, an
// OnityWebRequestException when it failed (see UnityAsyncExtensions.AsyncOperation.cs for the two
// forms). On cancellation the request is aborted. Needs the UnityWebRequest module
// (ONITY_WEBREQUEST_SUPPORT, from the asmdef's versionDefines).
#if (UNITY_5_3_OR_NEWER || ONITY_UNITY_STANDIN) && ONITY_WEBREQUEST_SUPPORT
using System;
using System.Runtime.CompilerServices;
using System.Threading;
using UnityEngine;
using UnityEngine.Networking;

namespace Onity
{
    public static partial class OnityUnityAsyncExtensions
    {
        /// <summary><c>await request.SendWebRequest()</c>: the request, from the operation's
        /// <c>completed</c> event; throws <see cref="OnityWebRequestException"/> when it failed.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public static UnityWebRequestAsyncOperationAwaiter GetAwaiter(this UnityWebRequestAsyncOperation asyncOperation)
        {
            if (asyncOperation == null) ThrowNullOperation();
            return new UnityWebRequestAsyncOperationAwaiter(asyncOperation);
        }

        public static OnityTask<UnityWebRequest> WithCancellation(this UnityWebRequestAsyncOperation asyncOperation, CancellationToken cancellationToken)
        {
            return ToOnityTask(asyncOperation, null, OnityTiming.Update, cancellationToken);
        }

        /// <summary>With <paramref name="cancelImmediately"/>: canceled at the token's Cancel call.</summary>
        public static OnityTask<UnityWebRequest> WithCancellation(this UnityWebRequestAsyncOperation asyncOperation, CancellationToken cancellationToken, bool cancelImmediately)
        {
            return ToOnityTask(asyncOperation, null, OnityTiming.Update, cancellationToken, cancelImmediately);
        }

        /// <summary>Polled on the player loop (see
        /// <see cref="ToOnityTask(AsyncOperation, IProgress{float}, OnityTiming, CancellationToken, bool)"/>):
        /// the request, or <see cref="OnityWebRequestException"/>. When
        /// <paramref name="cancellationToken"/> is canceled (or the runtime disposed) the request is
        /// aborted (<c>Abort()</c>) and the task canceled.</summary>
        public static OnityTask<UnityWebRequest> ToOnityTask(this UnityWebRequestAsyncOperation asyncOperation, IProgress<float> progress = null, OnityTiming timing = OnityTiming.Update, CancellationToken cancellationToken = default(CancellationToken), bool cancelImmediately = false)
        {
            if (asyncOperation == null) throw new ArgumentNullException("asyncOperation");
            if (cancellationToken.IsCancellationRequested)
            {
                OnityWebRequestException.Abort(asyncOperation.webRequest);
                return OnityTask.FromCanceled<UnityWebRequest>(cancellationToken);
            }
            if (asyncOperation.isDone)
            {
                var r = asyncOperation.webRequest;
                try
                {
                    if (OnityWebRequestException.IsError(r)) return OnityTask.FromException<UnityWebRequest>(new OnityWebRequestException(r));
                }
                catch (ObjectDisposedException e) { return OnityTask.FromException<UnityWebRequest>(e); }
                return new OnityTask<UnityWebRequest>(r);
            }
            return WebRequestSource.Start(asyncOperation, progress, timing, cancellationToken, cancelImmediately);
        }

        public struct UnityWebRequestAsyncOperationAwaiter : ICriticalNotifyCompletion
        {
            readonly UnityWebRequestAsyncOperation op;

            [MethodImpl(MethodImplOptions.AggressiveInlining)]
            public UnityWebRequestAsyncOperationAwaiter(UnityWebRequestAsyncOperation asyncOperation) { op = asyncOperation; }

            public bool IsCompleted { [MethodImpl(MethodImplOptions.AggressiveInlining)] get { return op.isDone; } }

            public UnityWebRequest GetResult()
            {
                var r = op.webRequest;
                if (OnityWebRequestException.IsError(r)) throw new OnityWebRequestException(r);
                return r;
            }

            public void OnCompleted(Action continuation) { UnsafeOnCompleted(continuation); }
            public void UnsafeOnCompleted(Action continuation) { op.completed += OnityCompletedCallback.Rent(continuation); }
        }

        sealed class WebRequestSource : OnityAsyncOperationSource<WebRequestSource, UnityWebRequest>
        {
            protected override UnityWebRequest Result()
            {
                var r = ((UnityWebRequestAsyncOperation)Operation).webRequest;
                if (OnityWebRequestException.IsError(r)) throw new OnityWebRequestException(r);
                return r;
            }

            protected override void OnCanceled() { OnityWebRequestException.Abort(((UnityWebRequestAsyncOperation)Operation).webRequest); }
        }
    }
}
#endif
