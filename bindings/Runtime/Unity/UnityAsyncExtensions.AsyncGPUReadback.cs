// AsyncGPUReadbackRequest as an awaitable (a struct without a completion event: always polled on
// the player loop). Unity updates pending requests in EarlyUpdate and keeps a finished request's
// data for that frame only: poll it on a timing that runs before the next frame's EarlyUpdate
// (Update, the default, does).
#if UNITY_5_3_OR_NEWER || ONITY_UNITY_STANDIN
using System;
using System.Threading;
using UnityEngine.Rendering;

namespace Onity
{
    public static partial class OnityUnityAsyncExtensions
    {
        /// <summary><c>await request</c>: <see cref="ToOnityTask(AsyncGPUReadbackRequest, OnityTiming, CancellationToken)"/> on Update.</summary>
        public static OnityTask<AsyncGPUReadbackRequest>.Awaiter GetAwaiter(this AsyncGPUReadbackRequest asyncOperation)
        {
            return ToOnityTask(asyncOperation).GetAwaiter();
        }

        public static OnityTask<AsyncGPUReadbackRequest> WithCancellation(this AsyncGPUReadbackRequest asyncOperation, CancellationToken cancellationToken)
        {
            return ToOnityTask(asyncOperation, OnityTiming.Update, cancellationToken);
        }

        /// <summary>With <paramref name="cancelImmediately"/>: canceled at the token's Cancel call
        /// (a registration of the token: the task completes on the canceling thread, its
        /// continuation runs on the owner thread, queued when Cancel runs elsewhere) instead of at
        /// the next run of Update.</summary>
        public static OnityTask<AsyncGPUReadbackRequest> WithCancellation(this AsyncGPUReadbackRequest asyncOperation, CancellationToken cancellationToken, bool cancelImmediately)
        {
            return ToOnityTask(asyncOperation, OnityTiming.Update, cancellationToken, cancelImmediately);
        }

        /// <summary>The request once <c>done</c> (read its data in the continuation), polled at each
        /// run of <paramref name="timing"/>; faults with <see cref="InvalidOperationException"/> when
        /// <c>hasError</c> (a failed request, or one whose data was already disposed); canceled at
        /// the first run after <paramref name="cancellationToken"/> is canceled. Owner thread.</summary>
        public static OnityTask<AsyncGPUReadbackRequest> ToOnityTask(this AsyncGPUReadbackRequest asyncOperation, OnityTiming timing = OnityTiming.Update, CancellationToken cancellationToken = default(CancellationToken))
        {
            return ToOnityTask(asyncOperation, timing, cancellationToken, false);
        }

        /// <summary>As <see cref="ToOnityTask(AsyncGPUReadbackRequest, OnityTiming, CancellationToken)"/>;
        /// with <paramref name="cancelImmediately"/> canceled at the token's Cancel call.</summary>
        public static OnityTask<AsyncGPUReadbackRequest> ToOnityTask(this AsyncGPUReadbackRequest asyncOperation, OnityTiming timing, CancellationToken cancellationToken, bool cancelImmediately)
        {
            if (cancellationToken.IsCancellationRequested) return OnityTask.FromCanceled<AsyncGPUReadbackRequest>(cancellationToken);
            if (asyncOperation.hasError) return OnityTask.FromException<AsyncGPUReadbackRequest>(GpuReadbackSource.Error());
            if (asyncOperation.done) return new OnityTask<AsyncGPUReadbackRequest>(asyncOperation);
            return GpuReadbackSource.Start(asyncOperation, timing, cancellationToken, cancelImmediately);
        }

        /// <summary>The polled wait (see <see cref="OnityCancelableLoopSource{T}"/> for the token).</summary>
        sealed class GpuReadbackSource : OnityCancelableLoopSource<AsyncGPUReadbackRequest>
        {
            static readonly OnityObjectPool<GpuReadbackSource> pool = new OnityObjectPool<GpuReadbackSource>(256);
            AsyncGPUReadbackRequest request;

            internal static Exception Error()
            {
                return new InvalidOperationException("Onity: AsyncGPUReadbackRequest.hasError is true (the readback failed, or its data was already disposed: Unity keeps it for the frame it completes in).");
            }

            internal static OnityTask<AsyncGPUReadbackRequest> Start(AsyncGPUReadbackRequest request, OnityTiming timing, CancellationToken ct, bool cancelImmediately)
            {
                var s = pool.TryRent() ?? new GpuReadbackSource();
                s.request = request;
                return s.Begin(ct, timing, cancelImmediately);
            }

            protected override bool Poll()
            {
                if (request.hasError) Fail(Error());
                else if (!request.done) return true;
                else Succeed(request);
                return false;
            }

            protected override void Recycle()
            {
                request = default(AsyncGPUReadbackRequest);
                pool.Return(this);
            }
        }
    }
}
#endif
