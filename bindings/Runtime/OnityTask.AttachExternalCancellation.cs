using System;
using System.Threading;

namespace Onity
{
    public partial struct OnityTask
    {
        /// <summary>A task with this task's outcome, or canceled when
        /// <paramref name="cancellationToken"/> is canceled first (UniTask's
        /// <c>AttachExternalCancellation</c>): for work that takes no token. The token is polled
        /// at each run of Update (no registration: nothing allocated after warm-up), so a
        /// cancellation is seen at the next run of Update; an already-canceled token cancels at
        /// once. This task keeps running and is observed when it ends (its outcome then ignored).
        /// Consumes this task. A token that cannot be canceled, or a task already complete,
        /// returns this task itself. Owner thread.</summary>
        public OnityTask AttachExternalCancellation(CancellationToken cancellationToken)
        {
            if (!cancellationToken.CanBeCanceled || GetAwaiter().IsCompleted) return this;
            return ExternalCancellationSource<AsyncUnit>.Start(this, cancellationToken);
        }
    }

    public partial struct OnityTask<T>
    {
        /// <summary>As <see cref="OnityTask.AttachExternalCancellation"/>, with the result.</summary>
        public OnityTask<T> AttachExternalCancellation(CancellationToken cancellationToken)
        {
            if (!cancellationToken.CanBeCanceled || GetAwaiter().IsCompleted) return this;
            return ExternalCancellationSource<T>.Start(this, cancellationToken);
        }
    }

    /// <summary>AttachExternalCancellation's source (pooled): completed by the inner task's
    /// continuation or by the token, polled on Update. It returns to the pool once consumed, its
    /// polling loop ended and the inner task's continuation ran.</summary>
    internal sealed class ExternalCancellationSource<T> : OnityLoopSource<T>
    {
        static readonly OnityObjectPool<ExternalCancellationSource<T>> pool = new OnityObjectPool<ExternalCancellationSource<T>>(256);
        readonly Action onInner;
        OnityTask.Awaiter untyped;
        OnityTask<T>.Awaiter typed;
        bool isTyped;
        CancellationToken ct;
        bool done;              // this use has its outcome
        bool innerPending;      // the inner task's continuation is registered
        bool releaseAfterInner; // consumed while innerPending

        ExternalCancellationSource() { onInner = OnInner; }

        static ExternalCancellationSource<T> Rent(CancellationToken ct, OnityTask.Awaiter untyped, OnityTask<T>.Awaiter typed, bool isTyped)
        {
            OnityRuntime.Require().CheckOwner("AttachExternalCancellation");
            var s = pool.TryRent() ?? new ExternalCancellationSource<T>();
            s.ct = ct;
            s.untyped = untyped;
            s.typed = typed;
            s.isTyped = isTyped;
            return s;
        }

        internal static OnityTask Start(OnityTask task, CancellationToken ct)
        {
            var s = Rent(ct, task.GetAwaiter(), default(OnityTask<T>.Awaiter), false);
            var result = s.UntypedTask;
            s.Begin();
            return result;
        }

        internal static OnityTask<T> Start(OnityTask<T> task, CancellationToken ct)
        {
            var s = Rent(ct, default(OnityTask.Awaiter), task.GetAwaiter(), true);
            var result = s.Task;
            s.Begin();
            return result;
        }

        void Begin()
        {
            innerPending = true;
            try
            {
                if (isTyped) typed.UnsafeOnCompleted(onInner);
                else untyped.UnsafeOnCompleted(onInner);
            }
            catch
            {
                // A stale or already awaited task: nothing was handed out.
                innerPending = false;
                typed = default(OnityTask<T>.Awaiter);
                untyped = default(OnityTask.Awaiter);
                ReturnToPool();
                throw;
            }
            if (done) return; // the inner task completed during the registration
            if (ct.IsCancellationRequested)
            {
                done = true;
                TrySetCanceled(ct);
                return;
            }
            StartLoop(OnityTiming.Update);
        }

        void OnInner()
        {
            innerPending = false;
            T value = default(T);
            Exception error = null;
            try
            {
                if (isTyped) value = typed.GetResult();
                else untyped.GetResult();
            }
            catch (Exception ex) { error = ex; }
            typed = default(OnityTask<T>.Awaiter);
            untyped = default(OnityTask.Awaiter);
            if (releaseAfterInner)
            {
                releaseAfterInner = false;
                ReturnToPool();
                return;
            }
            if (done) return; // canceled first: the outcome is ignored
            done = true;
            if (error == null) TrySetResult(value);
            else TrySetException(error);
        }

        protected override bool MoveNext()
        {
            if (done) return false;
            if (!ct.IsCancellationRequested) return true;
            done = true;
            TrySetCanceled(ct);
            return false;
        }

        protected override void OnLoopCanceled()
        {
            if (done) return;
            done = true;
            TrySetCanceled();
        }

        protected override void Release()
        {
            if (innerPending) releaseAfterInner = true;
            else ReturnToPool();
        }

        void ReturnToPool()
        {
            ct = default(CancellationToken);
            done = false;
            pool.Return(this);
        }
    }
}
