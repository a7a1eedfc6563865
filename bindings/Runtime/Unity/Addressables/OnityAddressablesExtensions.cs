// Addressables' AsyncOperationHandle / AsyncOperationHandle<T> as awaitables (UniTask's
// AddressablesAsyncExtensions). Addressables is a package (com.unity.addressables): this folder is
// its own assembly, Onity.Unity.Addressables, compiled only when it is installed
// (defineConstraints ONITY_ADDRESSABLES_SUPPORT, set by the asmdef's versionDefines).
#if (UNITY_5_3_OR_NEWER || ONITY_UNITY_STANDIN) && ONITY_ADDRESSABLES_SUPPORT
using System;
using System.Runtime.CompilerServices;
using System.Threading;
using UnityEngine.AddressableAssets;
using UnityEngine.ResourceManagement.AsyncOperations;

namespace Onity
{
    /// <summary>Awaiting Addressables operations, with UniTask's semantics: the task completes from
    /// the handle's <c>Completed</c> event (where Addressables raises it), faults with
    /// <c>OperationException</c> when the operation failed, and gives <c>Result</c> for a typed
    /// handle. Meanwhile a pooled player-loop item at each run of <c>timing</c> reports
    /// <c>PercentComplete</c> to <c>progress</c> and checks <c>cancellationToken</c>: the task is
    /// canceled at the first run after it is canceled, or at the Cancel call with
    /// <c>cancelImmediately</c> (a token registration, allocated as UniTask's). With
    /// <c>autoReleaseWhenCanceled</c> a canceled wait also releases the handle
    /// (<c>Addressables.Release</c>); otherwise the operation is left to its owner. A handle
    /// released by someone else while awaited faults the task (UniTask's would wait forever).
    /// Nothing allocated per await after warm-up. Owner thread (the main thread).</summary>
    public static class OnityAddressablesExtensions
    {
        /// <summary><c>await handle</c>: <see cref="ToOnityTask(AsyncOperationHandle, IProgress{float}, OnityTiming, CancellationToken, bool, bool)"/> with its defaults.</summary>
        public static OnityTask.Awaiter GetAwaiter(this AsyncOperationHandle handle)
        {
            return ToOnityTask(handle).GetAwaiter();
        }

        public static OnityTask WithCancellation(this AsyncOperationHandle handle, CancellationToken cancellationToken, bool cancelImmediately = false, bool autoReleaseWhenCanceled = false)
        {
            return ToOnityTask(handle, null, OnityTiming.Update, cancellationToken, cancelImmediately, autoReleaseWhenCanceled);
        }

        /// <summary>See the class. A handle already invalid (released, or default) gives a completed
        /// task (as UniTask's: a handle auto-released by Addressables reads invalid); one already
        /// done completes at once; a token already canceled cancels at once.</summary>
        public static OnityTask ToOnityTask(this AsyncOperationHandle handle, IProgress<float> progress = null, OnityTiming timing = OnityTiming.Update, CancellationToken cancellationToken = default(CancellationToken), bool cancelImmediately = false, bool autoReleaseWhenCanceled = false)
        {
            if (cancellationToken.IsCancellationRequested) return OnityTask.FromCanceled(cancellationToken);
            if (!handle.IsValid()) return OnityTask.CompletedTask;
            if (handle.IsDone)
            {
                if (handle.Status == AsyncOperationStatus.Failed) return OnityTask.FromException(Error(handle));
                return OnityTask.CompletedTask;
            }
            return OnityHandleSource<AsyncUnit>.Start(handle, default(AsyncOperationHandle<AsyncUnit>), false, progress, timing, cancellationToken, cancelImmediately, autoReleaseWhenCanceled);
        }

        /// <summary><c>await handle</c>: its <c>Result</c>.</summary>
        public static OnityTask<T>.Awaiter GetAwaiter<T>(this AsyncOperationHandle<T> handle)
        {
            return ToOnityTask(handle).GetAwaiter();
        }

        public static OnityTask<T> WithCancellation<T>(this AsyncOperationHandle<T> handle, CancellationToken cancellationToken, bool cancelImmediately = false, bool autoReleaseWhenCanceled = false)
        {
            return ToOnityTask(handle, null, OnityTiming.Update, cancellationToken, cancelImmediately, autoReleaseWhenCanceled);
        }

        /// <summary>As the untyped form, with <c>Result</c>; an invalid handle throws
        /// <see cref="InvalidOperationException"/> here (it has no result to give).</summary>
        public static OnityTask<T> ToOnityTask<T>(this AsyncOperationHandle<T> handle, IProgress<float> progress = null, OnityTiming timing = OnityTiming.Update, CancellationToken cancellationToken = default(CancellationToken), bool cancelImmediately = false, bool autoReleaseWhenCanceled = false)
        {
            if (cancellationToken.IsCancellationRequested) return OnityTask.FromCanceled<T>(cancellationToken);
            if (!handle.IsValid())
                throw new InvalidOperationException("Onity: awaiting an invalid AsyncOperationHandle<" + typeof(T).Name + "> (default, or already released): it has no result.");
            if (handle.IsDone)
            {
                if (handle.Status == AsyncOperationStatus.Failed) return OnityTask.FromException<T>(Error(handle));
                return new OnityTask<T>(handle.Result);
            }
            return OnityHandleSource<T>.Start(handle, handle, true, progress, timing, cancellationToken, cancelImmediately, autoReleaseWhenCanceled);
        }

        internal static Exception Error(AsyncOperationHandle handle)
        {
            return handle.OperationException ?? new InvalidOperationException("Onity: the Addressables operation failed without an exception.");
        }

        /// <summary>An awaiter on the handle's <c>Completed</c> event only (UniTask's public
        /// AsyncOperationHandleAwaiter; <c>await handle</c> uses the task form): no progress, no
        /// token. Its GetResult throws the operation's exception when it failed.</summary>
        public struct AsyncOperationHandleAwaiter : ICriticalNotifyCompletion
        {
            AsyncOperationHandle handle;

            public AsyncOperationHandleAwaiter(AsyncOperationHandle handle) { this.handle = handle; }

            public bool IsCompleted { [MethodImpl(MethodImplOptions.AggressiveInlining)] get { return handle.IsDone; } }

            public void GetResult()
            {
                var h = handle;
                handle = default(AsyncOperationHandle);
                if (h.IsValid() && h.Status == AsyncOperationStatus.Failed)
                    System.Runtime.ExceptionServices.ExceptionDispatchInfo.Capture(Error(h)).Throw();
            }

            public void OnCompleted(Action continuation) { UnsafeOnCompleted(continuation); }

            public void UnsafeOnCompleted(Action continuation) { handle.Completed += OnityHandleCallback.Rent(continuation); }
        }
    }

    /// <summary>The continuation of an <see cref="OnityAddressablesExtensions.AsyncOperationHandleAwaiter"/>
    /// as a <c>Completed</c> handler (pooled; its delegate created once per object).</summary>
    internal sealed class OnityHandleCallback : OnityEventContinuation<OnityHandleCallback, AsyncOperationHandle>
    {
        protected override void OnInvoked(AsyncOperationHandle h) { if (h.IsValid()) h.Completed -= Handler; }
    }

    /// <summary>The task form (pooled per result type): completed from the handle's Completed event,
    /// polled on the timing for progress, the token, and a handle released under it.</summary>
    internal sealed class OnityHandleSource<T> : OnityLoopSource<T>
    {
        static readonly OnityObjectPool<OnityHandleSource<T>> pool = new OnityObjectPool<OnityHandleSource<T>>(256);
        static readonly Action<object> onCancel = o => ((OnityHandleSource<T>)o).CancelNow();
        readonly Action<AsyncOperationHandle> completed;
        AsyncOperationHandle handle;
        AsyncOperationHandle<T> typed;
        bool isTyped, autoRelease, subscribed;
        IProgress<float> progress;
        CancellationToken ct;
        CancellationTokenRegistration registration;
        int finished; // 1 once an outcome was decided (the event, the token or the loop)

        OnityHandleSource() { completed = OnHandleCompleted; }

        internal static OnityTask<T> Start(AsyncOperationHandle handle, AsyncOperationHandle<T> typed, bool isTyped, IProgress<float> progress, OnityTiming timing, CancellationToken ct, bool cancelImmediately, bool autoRelease)
        {
            var s = pool.TryRent() ?? new OnityHandleSource<T>();
            s.handle = handle;
            s.typed = typed;
            s.isTyped = isTyped;
            s.progress = progress;
            s.ct = ct;
            s.autoRelease = autoRelease;
            s.finished = 0;
            var task = s.Task;
            s.StartLoopOrRelease(timing);
            handle.Completed += s.completed;
            s.subscribed = true;
            if (cancelImmediately && ct.CanBeCanceled) s.registration = ct.Register(onCancel, s);
            return task;
        }

        bool TryFinish() { return Interlocked.Exchange(ref finished, 1) == 0; }

        void OnHandleCompleted(AsyncOperationHandle h)
        {
            if (!h.Equals(handle)) return; // a late event of an earlier use's handle
            Unsubscribe();
            if (!TryFinish()) return;
            if (ct.IsCancellationRequested)
            {
                ReleaseHandleIfAuto();
                TrySetCanceled(ct);
            }
            else if (h.Status == AsyncOperationStatus.Failed) TrySetException(OnityAddressablesExtensions.Error(h));
            else TrySetResult(isTyped ? typed.Result : default(T));
        }

        void CancelNow()
        {
            if (!TryFinish()) return;
            ReleaseHandleIfAuto();
            TrySetCanceled(ct);
        }

        void ReleaseHandleIfAuto()
        {
            if (autoRelease && handle.IsValid()) Addressables.Release(handle);
        }

        protected override bool MoveNext()
        {
            if (Volatile.Read(ref finished) != 0) return false;
            if (ct.IsCancellationRequested)
            {
                if (TryFinish())
                {
                    ReleaseHandleIfAuto();
                    TrySetCanceled(ct);
                }
                return false;
            }
            if (!handle.IsValid())
            {
                if (TryFinish()) TrySetException(new InvalidOperationException("Onity: the AsyncOperationHandle was released while awaited: its operation will not complete."));
                return false;
            }
            if (progress != null) progress.Report(handle.PercentComplete);
            return true;
        }

        protected override void OnLoopCanceled()
        {
            if (TryFinish()) TrySetCanceled();
        }

        void Unsubscribe()
        {
            if (!subscribed) return;
            subscribed = false;
            if (handle.IsValid()) handle.Completed -= completed;
        }

        void Clear()
        {
            registration.Dispose();
            registration = default(CancellationTokenRegistration);
            handle = default(AsyncOperationHandle);
            typed = default(AsyncOperationHandle<T>);
            progress = null;
            ct = default(CancellationToken);
        }

        protected override void Release()
        {
            Unsubscribe();
            Clear();
            pool.Return(this);
        }
    }
}
#endif
