// AssetBundleRequest.allAssets (LoadAssetWithSubAssetsAsync: the asset and its sub-assets) as an
// awaitable, UniTask's AwaitForAllAssets: the two forms of UnityAsyncExtensions.AsyncOperation.cs
// (the completed event, or polled with progress / timing / token) with allAssets as the result.
#if (UNITY_5_3_OR_NEWER || ONITY_UNITY_STANDIN) && ONITY_ASSETBUNDLE_SUPPORT
using System;
using System.Runtime.CompilerServices;
using System.Threading;
using UnityEngine;

namespace Onity
{
    public static partial class OnityUnityAsyncExtensions
    {
        /// <summary><c>await request.AwaitForAllAssets()</c>: <c>allAssets</c>, from the
        /// <c>completed</c> event (at once when done).</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public static AssetBundleRequestAllAssetsAwaiter AwaitForAllAssets(this AssetBundleRequest asyncOperation)
        {
            if (asyncOperation == null) ThrowNullOperation();
            return new AssetBundleRequestAllAssetsAwaiter(asyncOperation);
        }

        /// <summary>Polled on Update, canceled at its first run after the token is canceled.</summary>
        public static OnityTask<UnityEngine.Object[]> AwaitForAllAssets(this AssetBundleRequest asyncOperation, CancellationToken cancellationToken)
        {
            return AwaitForAllAssets(asyncOperation, null, OnityTiming.Update, cancellationToken);
        }

        /// <summary>With <paramref name="cancelImmediately"/>: canceled at the token's Cancel call.</summary>
        public static OnityTask<UnityEngine.Object[]> AwaitForAllAssets(this AssetBundleRequest asyncOperation, CancellationToken cancellationToken, bool cancelImmediately)
        {
            return AwaitForAllAssets(asyncOperation, null, OnityTiming.Update, cancellationToken, cancelImmediately);
        }

        /// <summary>As <see cref="ToOnityTask(AsyncOperation, IProgress{float}, OnityTiming, CancellationToken, bool)"/>,
        /// with <c>allAssets</c>.</summary>
        public static OnityTask<UnityEngine.Object[]> AwaitForAllAssets(this AssetBundleRequest asyncOperation, IProgress<float> progress = null, OnityTiming timing = OnityTiming.Update, CancellationToken cancellationToken = default(CancellationToken), bool cancelImmediately = false)
        {
            if (asyncOperation == null) throw new ArgumentNullException("asyncOperation");
            if (cancellationToken.IsCancellationRequested) return OnityTask.FromCanceled<UnityEngine.Object[]>(cancellationToken);
            if (asyncOperation.isDone) return new OnityTask<UnityEngine.Object[]>(asyncOperation.allAssets);
            return AllAssetsSource.Start(asyncOperation, progress, timing, cancellationToken, cancelImmediately);
        }

        /// <summary>The awaiter of <c>await request.AwaitForAllAssets()</c> (its own awaitable).</summary>
        public struct AssetBundleRequestAllAssetsAwaiter : ICriticalNotifyCompletion
        {
            readonly AssetBundleRequest op;

            [MethodImpl(MethodImplOptions.AggressiveInlining)]
            public AssetBundleRequestAllAssetsAwaiter(AssetBundleRequest asyncOperation) { op = asyncOperation; }

            public AssetBundleRequestAllAssetsAwaiter GetAwaiter() { return this; }
            public bool IsCompleted { [MethodImpl(MethodImplOptions.AggressiveInlining)] get { return op.isDone; } }
            public UnityEngine.Object[] GetResult() { return op.allAssets; }
            public void OnCompleted(Action continuation) { UnsafeOnCompleted(continuation); }
            public void UnsafeOnCompleted(Action continuation) { op.completed += OnityCompletedCallback.Rent(continuation); }
        }

        sealed class AllAssetsSource : OnityAsyncOperationSource<AllAssetsSource, UnityEngine.Object[]>
        {
            protected override UnityEngine.Object[] Result() { return ((AssetBundleRequest)Operation).allAssets; }
        }
    }
}
#endif
