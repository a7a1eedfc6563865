using System;
using System.Threading;

// TakeUntil(Canceled) / SkipUntil(Canceled): their overloads are in OnityAsyncEnumerable.Combinators.g.cs.
namespace Onity.Linq
{
    sealed class UntilStream<T> : IOnityAsyncEnumerable<T>
    {
        readonly IOnityAsyncEnumerable<T> source;
        readonly bool take;
        readonly CancellationToken signalToken;
        readonly Func<CancellationToken, OnityTask> signalTask;

        internal UntilStream(IOnityAsyncEnumerable<T> source, bool take, CancellationToken signalToken, Func<CancellationToken, OnityTask> signalTask)
        {
            this.source = source;
            this.take = take;
            this.signalToken = signalToken;
            this.signalTask = signalTask;
        }

        public IOnityAsyncEnumerator<T> GetAsyncEnumerator(CancellationToken cancellationToken = default(CancellationToken))
        {
            return new UntilEnumerator<T>(source.GetAsyncEnumerator(cancellationToken), take, signalToken, signalTask, cancellationToken);
        }
    }

    /// <summary>Pulls the source; a signal (a token's cancellation or a task's completion, from any
    /// thread) either ends the stream (take), completing a waiting MoveNextAsync with false, or
    /// opens it (skip). Not pooled: the signal's callback may come after the disposal.</summary>
    sealed class UntilEnumerator<T> : OnityAsyncEnumeratorBase<T>
    {
        readonly IOnityAsyncEnumerator<T> source;
        readonly bool take;
        int signaled;      // 1 once the signal came
        int pulling;       // 1 while a source MoveNextAsync is pending (the signal may end it: take)
        Exception signalError; // the signal task's exception (written before signaled)
        OnityTask.Awaiter signalAwaiter;
        CancellationTokenRegistration registration;
        OnityTask<bool>.Awaiter awaiter;
        readonly Action onSource;

        internal UntilEnumerator(IOnityAsyncEnumerator<T> source, bool take, CancellationToken signalToken, Func<CancellationToken, OnityTask> signalTask, CancellationToken ct)
        {
            this.source = source;
            this.take = take;
            onSource = OnSource;
            Begin(ct);
            if (signalToken.CanBeCanceled) registration = signalToken.Register(s => ((UntilEnumerator<T>)s).Signal(), this);
            if (signalTask != null)
            {
                OnityTask.Awaiter aw;
                try { aw = signalTask(ct).GetAwaiter(); }
                catch
                {
                    // The factory threw: no enumeration; what it opened is released.
                    registration.Dispose();
                    source.DisposeAsync().Forget();
                    throw;
                }
                if (aw.IsCompleted) TakeSignal(aw);
                else
                {
                    signalAwaiter = aw;
                    aw.UnsafeOnCompleted(() => TakeSignal(signalAwaiter));
                }
            }
        }

        /// <summary>The signal task completed: consumed (its exception kept to fault the stream, as
        /// UniTask's; it was dropped unobserved), then the signal.</summary>
        void TakeSignal(OnityTask.Awaiter aw)
        {
            signalAwaiter = default(OnityTask.Awaiter);
            try { aw.GetResult(); }
            catch (Exception ex) { signalError = ex; }
            Signal();
        }

        void Signal()
        {
            Volatile.Write(ref signaled, 1);
            // A waiting MoveNextAsync ends now (take) or faults (a failed task), if the source's
            // completion does not take it first.
            if ((take || signalError != null) && Interlocked.CompareExchange(ref pulling, 0, 1) == 1) End();
        }

        /// <summary>The stream ends at the signal: with false, or the signal task's exception.</summary>
        void End()
        {
            var ex = signalError;
            if (ex == null) Finish();
            else Fail(ex);
        }

        /// <summary>True when the signal ends the stream now (take, or a failed signal task).</summary>
        bool Ended { get { return Volatile.Read(ref signaled) == 1 && (take || signalError != null); } }

        protected override void MoveNextCore()
        {
            if (Ended)
            {
                End();
                return;
            }
            Pull();
        }

        void Pull()
        {
            while (true)
            {
                OnityTask<bool>.Awaiter aw;
                try
                {
                    aw = source.MoveNextAsync().GetAwaiter();
                    if (!aw.IsCompleted)
                    {
                        awaiter = aw;
                        Volatile.Write(ref pulling, 1);
                        aw.UnsafeOnCompleted(onSource);
                        if (Ended && Interlocked.CompareExchange(ref pulling, 0, 1) == 1) End();
                        return;
                    }
                }
                catch (Exception ex)
                {
                    Fail(ex);
                    return;
                }
                if (!Step(ref aw)) return;
            }
        }

        void OnSource()
        {
            if (Interlocked.CompareExchange(ref pulling, 0, 1) != 1) return; // the signal ended this MoveNextAsync
            var aw = awaiter;
            awaiter = default(OnityTask<bool>.Awaiter);
            if (Step(ref aw)) Pull();
        }

        /// <summary>True: the item was dropped (pull again).</summary>
        bool Step(ref OnityTask<bool>.Awaiter aw)
        {
            T x;
            try
            {
                if (!aw.GetResult() || IsDisposed)
                {
                    Finish();
                    return false;
                }
                x = source.Current;
            }
            catch (Exception ex)
            {
                Fail(ex);
                return false;
            }
            if (Ended)
            {
                End();
                return false;
            }
            bool open = Volatile.Read(ref signaled) == 1;
            if (!take && !open) return true;
            Yield(x);
            return false;
        }

        protected override OnityTask OnDispose()
        {
            registration.Dispose();
            return source.DisposeAsync();
        }

        protected override void ReturnToPool() { }
    }
}
