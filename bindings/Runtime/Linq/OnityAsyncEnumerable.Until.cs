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
                var aw = signalTask(ct).GetAwaiter();
                if (aw.IsCompleted) Signal();
                else aw.UnsafeOnCompleted(Signal);
            }
        }

        void Signal()
        {
            Volatile.Write(ref signaled, 1);
            // Take: a waiting MoveNextAsync ends now, if the source's completion does not take it first.
            if (take && Interlocked.CompareExchange(ref pulling, 0, 1) == 1) Finish();
        }

        protected override void MoveNextCore()
        {
            if (take && Volatile.Read(ref signaled) == 1)
            {
                Finish();
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
                        if (take && Volatile.Read(ref signaled) == 1 && Interlocked.CompareExchange(ref pulling, 0, 1) == 1) Finish();
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
            bool open = Volatile.Read(ref signaled) == 1;
            if (take && open)
            {
                Finish();
                return false;
            }
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
