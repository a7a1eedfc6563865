// AssetBundleCreateRequest as an awaitable (see UnityAsyncExtensions.AsyncOperation.cs for the
// two forms; an AssetBundleRequest is a ResourceRequest and is awaited as one). The AssetBundle module
// (com.unity.modules.assetbundle) can be disabled in a project: the asmdef's versionDefines sets
// ONITY_ASSETBUNDLE_SUPPORT when it is present.
#if (UNITY_5_3_OR_NEWER || ONITY_UNITY_STANDIN) && ONITY_ASSETBUNDLE_SUPPORT
using System;
using System.Runtime.CompilerServices;
using System.Threading;
using UnityEngine;

namespace Onity
{
    public static partial class OnityUnityAsyncExtensions
    {
        // AssetBundleRequest derives from ResourceRequest (its virtual GetResult gives the bundle's
        // asset): the ResourceRequest forms (ToOnityTask, WithCancellation) serve it; await has its
        // own awaiter (UniTask's AssetBundleRequestAwaiter). Its allAssets: AwaitForAllAssets.

        /// <summary><c>await request</c>: the loaded asset, from the <c>completed</c> event.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public static AssetBundleRequestAwaiter GetAwaiter(this AssetBundleRequest asyncOperation)
        {
            if (asyncOperation == null) ThrowNullOperation();
            return new AssetBundleRequestAwaiter(asyncOperation);
        }

        public struct AssetBundleRequestAwaiter : ICriticalNotifyCompletion
        {
            readonly AssetBundleRequest op;

            [MethodImpl(MethodImplOptions.AggressiveInlining)]
            public AssetBundleRequestAwaiter(AssetBundleRequest asyncOperation) { op = asyncOperation; }

            public bool IsCompleted { [MethodImpl(MethodImplOptions.AggressiveInlining)] get { return op.isDone; } }
            public UnityEngine.Object GetResult() { return op.asset; }
            public void OnCompleted(Action continuation) { UnsafeOnCompleted(continuation); }
            public void UnsafeOnCompleted(Action continuation) { op.completed += OnityCompletedCallback.Rent(continuation); }
        }

        /// <summary>The loaded asset (the request's <c>asset</c>), canceled at the next run of Update
        /// after <paramref name="cancellationToken"/> is canceled (as a <c>ResourceRequest</c>).</summary>
        public static OnityTask<UnityEngine.Object> WithCancellation(this AssetBundleRequest asyncOperation, CancellationToken cancellationToken)
        {
            return ToOnityTask(asyncOperation, null, OnityTiming.Update, cancellationToken);
        }

        /// <summary>With <paramref name="cancelImmediately"/>: canceled at the token's Cancel call.</summary>
        public static OnityTask<UnityEngine.Object> WithCancellation(this AssetBundleRequest asyncOperation, CancellationToken cancellationToken, bool cancelImmediately)
        {
            return ToOnityTask(asyncOperation, null, OnityTiming.Update, cancellationToken, cancelImmediately);
        }

        // ---- AssetBundleCreateRequest --------------------------------------------------

        /// <summary><c>await request</c>: the loaded bundle, from the <c>completed</c> event.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public static AssetBundleCreateRequestAwaiter GetAwaiter(this AssetBundleCreateRequest asyncOperation)
        {
            if (asyncOperation == null) ThrowNullOperation();
            return new AssetBundleCreateRequestAwaiter(asyncOperation);
        }

        public static OnityTask<AssetBundle> WithCancellation(this AssetBundleCreateRequest asyncOperation, CancellationToken cancellationToken)
        {
            return ToOnityTask(asyncOperation, null, OnityTiming.Update, cancellationToken);
        }

        /// <summary>With <paramref name="cancelImmediately"/>: canceled at the token's Cancel call.</summary>
        public static OnityTask<AssetBundle> WithCancellation(this AssetBundleCreateRequest asyncOperation, CancellationToken cancellationToken, bool cancelImmediately)
        {
            return ToOnityTask(asyncOperation, null, OnityTiming.Update, cancellationToken, cancelImmediately);
        }

        /// <summary>Polled on the player loop, with the loaded bundle.</summary>
        public static OnityTask<AssetBundle> ToOnityTask(this AssetBundleCreateRequest asyncOperation, IProgress<float> progress = null, OnityTiming timing = OnityTiming.Update, CancellationToken cancellationToken = default(CancellationToken), bool cancelImmediately = false)
        {
            if (asyncOperation == null) throw new ArgumentNullException("asyncOperation");
            if (cancellationToken.IsCancellationRequested) return OnityTask.FromCanceled<AssetBundle>(cancellationToken);
            if (asyncOperation.isDone) return new OnityTask<AssetBundle>(asyncOperation.assetBundle);
            return AssetBundleCreateRequestSource.Start(asyncOperation, progress, timing, cancellationToken, cancelImmediately);
        }

        public struct AssetBundleCreateRequestAwaiter : ICriticalNotifyCompletion
        {
            readonly AssetBundleCreateRequest op;

            [MethodImpl(MethodImplOptions.AggressiveInlining)]
            public AssetBundleCreateRequestAwaiter(AssetBundleCreateRequest asyncOperation) { op = asyncOperation; }

            public bool IsCompleted { [MethodImpl(MethodImplOptions.AggressiveInlining)] get { return op.isDone; } }
            public AssetBundle GetResult() { return op.assetBundle; }
            public void OnCompleted(Action continuation) { UnsafeOnCompleted(continuation); }
            public void UnsafeOnCompleted(Action continuation) { op.completed += OnityCompletedCallback.Rent(continuation); }
        }

        sealed class AssetBundleCreateRequestSource : OnityAsyncOperationSource<AssetBundleCreateRequestSource, AssetBundle>
        {
            protected override AssetBundle Result() { return ((AssetBundleCreateRequest)Operation).assetBundle; }
        }
    }
}
#endif
