using System;
using System.Runtime.CompilerServices;
using System.Threading;

namespace Onity.Linq
{
    /// <summary>The common part of this package's enumerators: the pooled source of
    /// <see cref="MoveNextAsync"/>'s task (one completion core reset per call, so a MoveNext
    /// allocates nothing), the state machine of one enumeration, and the return to the pool on
    /// <see cref="DisposeAsync"/>.
    ///
    /// States: Ready (MoveNextAsync may be called), Pending (a MoveNextAsync not yet consumed:
    /// awaited / GetResult), Ended (false returned, or the stream faulted or was canceled: further
    /// MoveNextAsync calls return false), Disposed (in the pool or dropped). The state moves on when
    /// the consumer takes the outcome (GetResult), never when a producer completes the core: so a
    /// second MoveNextAsync without awaiting the first throws instead of resetting a core another
    /// thread may still be completing.</summary>
    internal abstract class OnityAsyncEnumeratorBase<T> : IOnityAsyncEnumerator<T>, IOnityTaskSource<bool>
    {
        const int Ready = 1, Pending = 2, Ended = 3, Disposed = 4;

        OnityCompletionSourceCore<bool> core;
        int state = Disposed;
        protected T current;
        protected CancellationToken cancellationToken;

        /// <summary>Called when rented (GetAsyncEnumerator), after the subclass set its fields.</summary>
        protected void Begin(CancellationToken ct)
        {
            cancellationToken = ct;
            state = Ready;
        }

        public T Current { get { return current; } }

        /// <summary>True once the enumerator was disposed (a late callback ends with false).</summary>
        protected bool IsDisposed { get { return state == Disposed; } }

        public OnityTask<bool> MoveNextAsync()
        {
            int s = state;
            if (s != Ready) return NotReady(s);
            if (cancellationToken.IsCancellationRequested)
            {
                state = Ended;
                return OnityTask.FromCanceled<bool>(cancellationToken);
            }
            state = Pending;
            core.Reset();
            var task = new OnityTask<bool>(this, core.Version);
            MoveNextCore();
            return task;
        }

        OnityTask<bool> NotReady(int s)
        {
            if (s == Ended) return new OnityTask<bool>(false);
            if (s == Pending) throw new InvalidOperationException("Onity: MoveNextAsync was called before the previous MoveNextAsync's task was awaited (one at a time).");
            throw new ObjectDisposedException(GetType().Name, "Onity: the enumerator was disposed (and went back to its pool); get a new one with GetAsyncEnumerator.");
        }

        /// <summary>Produces the next element: ends, synchronously or later, with exactly one call
        /// of <see cref="Yield"/>, <see cref="Finish"/>, <see cref="Fail"/> or <see cref="Cancel"/>.</summary>
        protected abstract void MoveNextCore();

        /// <summary>Disposal of what the enumeration holds (its source enumerator, a registration);
        /// the returned task is what DisposeAsync returns.</summary>
        protected virtual OnityTask OnDispose() { return OnityTask.CompletedTask; }

        /// <summary>Back to the subclass's pool (fields already cleared by the subclass if needed).</summary>
        protected abstract void ReturnToPool();

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        protected void Yield(T value)
        {
            current = value;
            core.TrySetResult(state != Disposed);
        }

        protected void Finish() { core.TrySetResult(false); }
        protected void Fail(Exception ex) { core.TrySetException(ex); } // an OperationCanceledException cancels
        protected void Cancel() { core.TrySetCanceled(cancellationToken); }

        public OnityTask DisposeAsync()
        {
            int s = state;
            if (s == Disposed) return OnityTask.CompletedTask;
            state = Disposed;
            OnityTask t;
            try { t = OnDispose(); }
            catch (Exception ex) { t = OnityTask.FromException(ex); }
            // A MoveNext still pending keeps this object referenced from its callback (a frame wait,
            // a source's continuation): it is not pooled; that callback completes it with false.
            if (s != Pending)
            {
                current = default(T);
                cancellationToken = default(CancellationToken);
                ReturnToPool();
            }
            return t;
        }

        // ---- the MoveNextAsync task's source ------------------------------------------------

        public OnityTaskStatus GetStatus(long token) { return core.GetStatus(token); }
        public void OnCompleted(Action continuation, long token) { core.OnCompleted(continuation, token); }
        void IOnityTaskSource.GetResult(long token) { GetResult(token); }

        public bool GetResult(long token)
        {
            bool v;
            if (core.TryGetSucceeded(token, out v))
            {
                if (state == Pending) state = v ? Ready : Ended;
                return v;
            }
            return GetResultSlow(token);
        }

        bool GetResultSlow(long token)
        {
            core.ThrowIfNotCompleted(token); // stale or pending: throws, state unchanged
            if (state == Pending) state = Ended; // faulted or canceled: the enumeration is over
            return core.GetResult(token);
        }
    }

    /// <summary>An operator over a source enumerator (Where, Select, Skip, Take): pulls from the
    /// source until <see cref="OnItem"/> produces an element, without recursion when the source
    /// completes synchronously, and with one cached continuation when it does not.</summary>
    internal abstract class OnityOperatorEnumerator<TSource, TResult> : OnityAsyncEnumeratorBase<TResult>
    {
        IOnityAsyncEnumerator<TSource> source;
        OnityTask<bool>.Awaiter awaiter;
        readonly Action onSource;

        protected OnityOperatorEnumerator() { onSource = OnSource; }

        protected void BeginOver(IOnityAsyncEnumerable<TSource> enumerable, CancellationToken ct)
        {
            source = enumerable.GetAsyncEnumerator(ct);
            Begin(ct);
        }

        /// <summary>True when the item gives an element (<paramref name="result"/>); false skips it.
        /// An exception faults the enumeration.</summary>
        protected abstract bool OnItem(TSource item, out TResult result);

        /// <summary>Before pulling: false ends the enumeration now (Take when its count is reached).</summary>
        protected virtual bool BeforePull() { return true; }

        protected override void MoveNextCore()
        {
            if (BeforePull()) Pull();
            else Finish();
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
                        aw.UnsafeOnCompleted(onSource);
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
            var aw = awaiter;
            awaiter = default(OnityTask<bool>.Awaiter);
            if (Step(ref aw)) Pull();
        }

        /// <summary>Takes the source's outcome; true when the item was skipped (pull again).</summary>
        bool Step(ref OnityTask<bool>.Awaiter aw)
        {
            TResult r;
            try
            {
                if (!aw.GetResult())
                {
                    Finish();
                    return false;
                }
                if (IsDisposed)
                {
                    Finish();
                    return false;
                }
                if (!OnItem(source.Current, out r)) return true;
            }
            catch (Exception ex)
            {
                Fail(ex);
                return false;
            }
            Yield(r);
            return false;
        }

        protected override OnityTask OnDispose()
        {
            var s = source;
            source = null;
            return s != null ? s.DisposeAsync() : OnityTask.CompletedTask;
        }
    }
}
