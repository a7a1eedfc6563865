// Unity async operations as awaitables: AsyncOperation (SceneManager.LoadSceneAsync, ...) and
// ResourceRequest (Resources.LoadAsync; also AssetBundleRequest, which derives from it). Two forms, as UniTask's:
//   await op                       -> the op's completed event (Unity raises it on the main thread,
//                                     from the native system that finished it): no runtime needed,
//                                     a pooled callback, nothing allocated after warm-up;
//   op.ToOnityTask(progress, timing, ct) / op.WithCancellation(ct)
//                                  -> polled on the player loop (isDone, progress, the token) at
//                                     each run of the timing: a pooled OnityLoopSource.
#if UNITY_5_3_OR_NEWER || ONITY_UNITY_STANDIN
using System;
using System.Runtime.CompilerServices;
using System.Threading;
using UnityEngine;

// OnityEventContinuation (below) is shared with the Addressables assembly (await handle).
[assembly: InternalsVisibleTo("Onity.Unity.Addressables")]

namespace Onity
{
    /// <summary>Awaiting Unity's async operations (see the file's header for the two forms).</summary>
    public static partial class OnityUnityAsyncExtensions
    {
        static void ThrowNullOperation() { throw new ArgumentNullException("asyncOperation"); }

        // ---- AsyncOperation ------------------------------------------------------------

        /// <summary><c>await op</c>: resumes from the op's <c>completed</c> event (at once when it is
        /// already done).</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public static AsyncOperationAwaiter GetAwaiter(this AsyncOperation asyncOperation)
        {
            if (asyncOperation == null) ThrowNullOperation();
            return new AsyncOperationAwaiter(asyncOperation);
        }

        /// <summary><see cref="ToOnityTask(AsyncOperation, IProgress{float}, OnityTiming, CancellationToken, bool)"/> with a token only.</summary>
        public static OnityTask WithCancellation(this AsyncOperation asyncOperation, CancellationToken cancellationToken)
        {
            return ToOnityTask(asyncOperation, null, OnityTiming.Update, cancellationToken);
        }

        /// <summary>With <paramref name="cancelImmediately"/>: canceled at the token's Cancel call.</summary>
        public static OnityTask WithCancellation(this AsyncOperation asyncOperation, CancellationToken cancellationToken, bool cancelImmediately)
        {
            return ToOnityTask(asyncOperation, null, OnityTiming.Update, cancellationToken, cancelImmediately);
        }

        /// <summary>A task polled at each run of <paramref name="timing"/> from the next one on:
        /// <paramref name="progress"/> receives <c>op.progress</c> at each run, the task completes
        /// at the first run where <c>op.isDone</c>, or is canceled at the first run after
        /// <paramref name="cancellationToken"/> is canceled (the operation itself goes on: Unity
        /// cannot stop it), or when the runtime is disposed. An operation already done, or a
        /// token already canceled, completes at once. Owner thread.</summary>
        public static OnityTask ToOnityTask(this AsyncOperation asyncOperation, IProgress<float> progress = null, OnityTiming timing = OnityTiming.Update, CancellationToken cancellationToken = default(CancellationToken), bool cancelImmediately = false)
        {
            if (asyncOperation == null) throw new ArgumentNullException("asyncOperation");
            if (cancellationToken.IsCancellationRequested) return OnityTask.FromCanceled(cancellationToken);
            if (asyncOperation.isDone) return OnityTask.CompletedTask;
            return AsyncOperationSource.Start(asyncOperation, progress, timing, cancellationToken, cancelImmediately);
        }

        public struct AsyncOperationAwaiter : ICriticalNotifyCompletion
        {
            readonly AsyncOperation op;

            [MethodImpl(MethodImplOptions.AggressiveInlining)]
            public AsyncOperationAwaiter(AsyncOperation asyncOperation) { op = asyncOperation; }

            public bool IsCompleted { [MethodImpl(MethodImplOptions.AggressiveInlining)] get { return op.isDone; } }
            public void GetResult() { }
            public void OnCompleted(Action continuation) { UnsafeOnCompleted(continuation); }
            public void UnsafeOnCompleted(Action continuation) { op.completed += OnityCompletedCallback.Rent(continuation); }
        }

        // ---- ResourceRequest -----------------------------------------------------------

        /// <summary><c>await request</c>: the loaded asset, from the request's <c>completed</c> event.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public static ResourceRequestAwaiter GetAwaiter(this ResourceRequest asyncOperation)
        {
            if (asyncOperation == null) ThrowNullOperation();
            return new ResourceRequestAwaiter(asyncOperation);
        }

        public static OnityTask<UnityEngine.Object> WithCancellation(this ResourceRequest asyncOperation, CancellationToken cancellationToken)
        {
            return ToOnityTask(asyncOperation, null, OnityTiming.Update, cancellationToken);
        }

        /// <summary>With <paramref name="cancelImmediately"/>: canceled at the token's Cancel call.</summary>
        public static OnityTask<UnityEngine.Object> WithCancellation(this ResourceRequest asyncOperation, CancellationToken cancellationToken, bool cancelImmediately)
        {
            return ToOnityTask(asyncOperation, null, OnityTiming.Update, cancellationToken, cancelImmediately);
        }

        /// <summary>As <see cref="ToOnityTask(AsyncOperation, IProgress{float}, OnityTiming, CancellationToken, bool)"/>,
        /// with the loaded asset.</summary>
        public static OnityTask<UnityEngine.Object> ToOnityTask(this ResourceRequest asyncOperation, IProgress<float> progress = null, OnityTiming timing = OnityTiming.Update, CancellationToken cancellationToken = default(CancellationToken), bool cancelImmediately = false)
        {
            if (asyncOperation == null) throw new ArgumentNullException("asyncOperation");
            if (cancellationToken.IsCancellationRequested) return OnityTask.FromCanceled<UnityEngine.Object>(cancellationToken);
            if (asyncOperation.isDone) return new OnityTask<UnityEngine.Object>(asyncOperation.asset);
            return ResourceRequestSource.Start(asyncOperation, progress, timing, cancellationToken, cancelImmediately);
        }

        public struct ResourceRequestAwaiter : ICriticalNotifyCompletion
        {
            readonly ResourceRequest op;

            [MethodImpl(MethodImplOptions.AggressiveInlining)]
            public ResourceRequestAwaiter(ResourceRequest asyncOperation) { op = asyncOperation; }

            public bool IsCompleted { [MethodImpl(MethodImplOptions.AggressiveInlining)] get { return op.isDone; } }
            public UnityEngine.Object GetResult() { return op.asset; }
            public void OnCompleted(Action continuation) { UnsafeOnCompleted(continuation); }
            public void UnsafeOnCompleted(Action continuation) { op.completed += OnityCompletedCallback.Rent(continuation); }
        }

        sealed class AsyncOperationSource : OnityAsyncOperationSource<AsyncOperationSource, AsyncUnit>
        {
            protected override AsyncUnit Result() { return default(AsyncUnit); }
        }

        sealed class ResourceRequestSource : OnityAsyncOperationSource<ResourceRequestSource, UnityEngine.Object>
        {
            protected override UnityEngine.Object Result() { return ((ResourceRequest)Operation).asset; }
        }
    }

    /// <summary>A continuation as a pooled one-shot event handler (the handler delegate is created
    /// once per object): <see cref="Rent"/> gives the handler; its call returns the object to its
    /// pool, then runs the continuation. <c>await op</c> here, <c>await handle</c> in Addressables.</summary>
    internal abstract class OnityEventContinuation<TSelf, TArg> where TSelf : OnityEventContinuation<TSelf, TArg>, new()
    {
        static readonly OnityObjectPool<TSelf> pool = new OnityObjectPool<TSelf>(1024);
        readonly Action<TArg> handler;
        Action continuation;

        protected OnityEventContinuation() { handler = Invoke; }

        protected Action<TArg> Handler { get { return handler; } }

        internal static Action<TArg> Rent(Action continuation)
        {
            if (continuation == null) throw new ArgumentNullException("continuation");
            var c = pool.TryRent() ?? new TSelf();
            c.continuation = continuation;
            return c.handler;
        }

        /// <summary>At the call, before the object goes back to its pool (e.g. to unsubscribe).</summary>
        protected virtual void OnInvoked(TArg arg) { }

        void Invoke(TArg arg)
        {
            var k = continuation;
            continuation = null;
            OnInvoked(arg);
            pool.Return((TSelf)this);
            if (k != null) k();
        }
    }

    /// <summary>The continuation of an <c>await op</c>, as the op's <c>completed</c> handler. Unity
    /// raises the event once, on the main thread, and then drops its handlers.</summary>
    internal sealed class OnityCompletedCallback : OnityEventContinuation<OnityCompletedCallback, AsyncOperation> { }

    /// <summary>A polled wait that its token cancels at the next step, or with cancelImmediately
    /// at the token's Cancel call (a registration of the token, allocated as UniTask's), which
    /// may run on any thread while the owner thread runs a step. Exactly one side decides a use:
    /// a step's outcome, the registration and the runtime's disposal each take
    /// <see cref="decided"/> (one atomic exchange per use) before completing, and the side that
    /// does not get it does nothing. <see cref="Release"/> disposes the registration (which waits
    /// for a callback already running) before the next use can start, so a late callback never
    /// reaches that use. The continuation goes where every completion goes (inline on the owner
    /// thread, queued to it from any other thread).</summary>
    internal abstract class OnityCancelableLoopSource<T> : OnityLoopSource<T>
    {
        static readonly Action<object> onCancel = o => ((OnityCancelableLoopSource<T>)o).Cancel(true);
        CancellationToken ct;
        CancellationTokenRegistration registration;
        int decided; // 1 once this use's outcome is decided (see the class)

        /// <summary>Starts the use: the loop on <paramref name="timing"/>, then with
        /// <paramref name="cancelImmediately"/> the registration of <paramref name="token"/>.</summary>
        protected OnityTask<T> Begin(CancellationToken token, OnityTiming timing, bool cancelImmediately)
        {
            ct = token;
            var task = Task;
            StartLoopOrRelease(timing);
            if (cancelImmediately && token.CanBeCanceled) registration = token.Register(onCancel, this);
            return task;
        }

        /// <summary>One step of an undecided use whose token is not canceled: true to poll again;
        /// to end the use call <see cref="Succeed"/> or <see cref="Fail"/> and return false.</summary>
        protected abstract bool Poll();

        /// <summary>The use is being canceled (token or runtime disposal), by the side that decided
        /// it, before the task completes: a request that can be stopped is stopped here.</summary>
        protected virtual void OnCanceled() { }

        protected void Succeed(T value)
        {
            if (TryDecide()) TrySetResult(value);
        }

        protected void Fail(Exception error)
        {
            if (TryDecide()) TrySetException(error);
        }

        bool TryDecide() { return Interlocked.Exchange(ref decided, 1) == 0; }

        void Cancel(bool withToken)
        {
            if (!TryDecide()) return; // the other side decided: this use may already be over
            OnCanceled();
            if (withToken) TrySetCanceled(ct);
            else TrySetCanceled();
        }

        protected sealed override bool MoveNext()
        {
            if (Volatile.Read(ref decided) != 0) return false; // decided by the registration
            if (ct.IsCancellationRequested)
            {
                Cancel(true);
                return false;
            }
            return Poll();
        }

        protected sealed override void OnLoopCanceled() { Cancel(false); }

        /// <summary>Clears the derived fields and returns the source to its pool (the registration
        /// is already disposed).</summary>
        protected abstract void Recycle();

        protected sealed override void Release()
        {
            registration.Dispose(); // waits for a callback running on another thread; none runs after
            registration = default(CancellationTokenRegistration);
            ct = default(CancellationToken);
            Volatile.Write(ref decided, 0);
            Recycle();
        }
    }

    /// <summary>The polled form of an async operation (pooled per result type): at each run of the
    /// timing it reports progress and completes when the operation is done, or cancels.</summary>
    internal abstract class OnityAsyncOperationSource<TSelf, TResult> : OnityCancelableLoopSource<TResult>
        where TSelf : OnityAsyncOperationSource<TSelf, TResult>, new()
    {
        static readonly OnityObjectPool<TSelf> pool = new OnityObjectPool<TSelf>(256);
        AsyncOperation op;
        IProgress<float> progress;

        protected AsyncOperation Operation { get { return op; } }

        /// <summary>With <paramref name="cancelImmediately"/>, the task is canceled at the token's
        /// Cancel call instead of at the timing's next run (see <see cref="OnityCancelableLoopSource{T}"/>).</summary>
        internal static OnityTask<TResult> Start(AsyncOperation op, IProgress<float> progress, OnityTiming timing, CancellationToken ct, bool cancelImmediately = false)
        {
            return Start(Rent(), op, progress, timing, ct, cancelImmediately);
        }

        /// <summary>A source from the pool, for a derived class to set its own fields before
        /// <see cref="Start(TSelf, AsyncOperation, IProgress{float}, OnityTiming, CancellationToken, bool)"/>.</summary>
        protected static TSelf Rent() { return pool.TryRent() ?? new TSelf(); }

        protected static OnityTask<TResult> Start(TSelf s, AsyncOperation op, IProgress<float> progress, OnityTiming timing, CancellationToken ct, bool cancelImmediately)
        {
            s.op = op;
            s.progress = progress;
            return s.Begin(ct, timing, cancelImmediately);
        }

        /// <summary>The result once the operation is done (may throw: the task's failure).</summary>
        protected abstract TResult Result();

        protected override bool Poll()
        {
            TResult value;
            try
            {
                if (progress != null) progress.Report(op.progress);
                if (!op.isDone) return true;
                value = Result();
            }
            catch (Exception ex)
            {
                Fail(ex);
                return false;
            }
            Succeed(value);
            return false;
        }

        protected override void Recycle()
        {
            op = null;
            progress = null;
            pool.Return((TSelf)this);
        }
    }
}
#endif
