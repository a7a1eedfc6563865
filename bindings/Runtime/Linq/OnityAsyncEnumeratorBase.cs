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
    /// thread may still be completing. An element or end produced synchronously inside
    /// MoveNextAsync returns a completed task and moves the state at once (no core).</summary>
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
            core.Reset(); // Ready implies a reset core (reset again after each pending outcome is taken)
        }

        public T Current { get { return current; } }

        /// <summary>True once the enumerator was disposed (a late callback ends with false).</summary>
        protected bool IsDisposed { get { return state == Disposed; } }

        /// <summary>In <see cref="OnDispose"/>: a MoveNextAsync is still pending (its callback will
        /// come; what it uses must not go back to a pool).</summary>
        protected bool IsPendingAtDispose { get; private set; }

        public OnityTask<bool> MoveNextAsync()
        {
            int s = state;
            if (s != Ready) return NotReady(s);
            if (cancellationToken.IsCancellationRequested)
            {
                state = Ended;
                return OnityTask.FromCanceled<bool>(cancellationToken);
            }
            int r = Step();
            if (r == SyncPending) return new OnityTask<bool>(this, core.Version);
            return new OnityTask<bool>(r == SyncElement);
        }

        /// <summary>For a consumer inside this package (ToArrayAsync): MoveNextAsync without the
        /// task when the outcome is synchronous: SyncElement (Current set), SyncEnd, SyncPending
        /// (the task is <see cref="PendingTask"/>), or 0: nothing done (not Ready, or the token is
        /// canceled): call MoveNextAsync.</summary>
        internal int TryMoveNextSync()
        {
            if (state != Ready || cancellationToken.IsCancellationRequested) return 0;
            return Step();
        }

        internal OnityTask<bool> PendingTask() { return new OnityTask<bool>(this, core.Version); }

        int Step()
        {
            state = Pending;
            // An element or the end given synchronously comes back as a completed task, without
            // the completion core (its interlocked publication and the awaiter's interface calls).
            // The thread-static mark, not a field: a producer on another thread (a channel's
            // writer) completing it meanwhile goes through the core.
            syncResult = 0;
            if (SynchronousOnly) MoveNextCore();
            else
            {
                var outer = SyncMoveNext.inside;
                SyncMoveNext.inside = this;
                try { MoveNextCore(); }
                catch
                {
                    SyncMoveNext.inside = outer;
                    throw;
                }
                SyncMoveNext.inside = outer; // (not a finally: Mono calls a finally block as a handler)
            }
            int r = syncResult;
            if (r == 0) return SyncPending;
            if (state != Pending) return SyncEnd; // disposed during MoveNextCore
            state = r == SyncElement ? Ready : Ended;
            return r;
        }

        /// <summary>Set by a subclass whose MoveNextCore always ends synchronously on the calling
        /// thread (Range, Repeat, an IEnumerable): no thread-static mark is needed.</summary>
        internal bool SynchronousOnly;

        internal const int SyncElement = 1, SyncEnd = 2, SyncPending = 3;
        int syncResult;

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
            if (SynchronousOnly || SyncMoveNext.inside == this) syncResult = SyncElement;
            else core.TrySetResult(state != Disposed);
        }

        protected void Finish()
        {
            if (SynchronousOnly || SyncMoveNext.inside == this) syncResult = SyncEnd;
            else core.TrySetResult(false);
        }
        protected void Fail(Exception ex) { core.TrySetException(ex); } // an OperationCanceledException cancels
        protected void Cancel() { core.TrySetCanceled(cancellationToken); }

        public OnityTask DisposeAsync()
        {
            int s = state;
            if (s == Disposed) return OnityTask.CompletedTask;
            state = Disposed;
            IsPendingAtDispose = s == Pending;
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
                if (state == Pending)
                {
                    state = v ? Ready : Ended;
                    if (v) core.Reset();
                }
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

    /// <summary>The enumerator whose MoveNextCore runs on this thread (see MoveNextAsync).</summary>
    internal static class SyncMoveNext
    {
        [ThreadStatic] internal static object inside;
    }
}
