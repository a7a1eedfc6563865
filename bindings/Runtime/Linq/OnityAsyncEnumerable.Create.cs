using System;
using System.Threading;
using Onity.Linq;

namespace Onity
{
    /// <summary>The writer of a <see cref="OnityAsyncEnumerable.Create{T}"/> stream (UniTask's IAsyncWriter).</summary>
    public interface IOnityAsyncWriter<T>
    {
        /// <summary>Gives <paramref name="value"/> to the consumer; completes when the consumer asks
        /// for the next element (canceled when the enumeration is disposed first).</summary>
        OnityTask YieldAsync(T value);
    }

    public static partial class OnityAsyncEnumerable
    {
        /// <summary>A stream produced by <paramref name="create"/>: started at the first
        /// MoveNextAsync with a writer and the enumeration's token; each <c>YieldAsync</c> gives an
        /// element and resumes when the next is asked for; the stream ends when the returned task
        /// completes (faults with its exception). Disposing the enumeration while the producer waits
        /// in YieldAsync completes that wait canceled; disposing it while a MoveNextAsync waits ends
        /// that MoveNextAsync with false and, when the enumeration has no token (CanBeCanceled
        /// false), cancels the token the producer was given instead (a source of its own, allocated
        /// per enumeration; with a token, a source linked to it that this package's operators
        /// enumerate their sources with). One enumerator object per enumeration (the producer may outlive
        /// it); nothing per element.</summary>
        public static IOnityAsyncEnumerable<T> Create<T>(Func<IOnityAsyncWriter<T>, CancellationToken, OnityTask> create)
        {
            if (create == null) throw new ArgumentNullException("create");
            return new CreateStream<T>(create);
        }

        /// <summary>The token a producer of this package's Create-based operators enumerates its
        /// sources with (<paramref name="ct"/>, the enumeration's, stays what its selectors are
        /// handed): also canceled by a DisposeAsync that comes while a MoveNextAsync waits.</summary>
        internal static CancellationToken Src<T>(IOnityAsyncWriter<T> w, CancellationToken ct)
        {
            var e = w as CreateEnumerator<T>;
            return e != null ? e.sourceToken : ct;
        }
    }
}

namespace Onity.Linq
{
    sealed class CreateStream<T> : IOnityAsyncEnumerable<T>
    {
        readonly Func<IOnityAsyncWriter<T>, CancellationToken, OnityTask> create;
        internal CreateStream(Func<IOnityAsyncWriter<T>, CancellationToken, OnityTask> create) { this.create = create; }

        public IOnityAsyncEnumerator<T> GetAsyncEnumerator(CancellationToken cancellationToken = default(CancellationToken))
        {
            return new CreateEnumerator<T>(create, cancellationToken);
        }
    }

    /// <summary>The source of YieldAsync's task (an object of its own: the enumerator already is
    /// its MoveNextAsync task's source).</summary>
    sealed class YieldSource : IOnityTaskSource
    {
        internal OnityCompletionSourceCore<AsyncUnit> core;
        public OnityTaskStatus GetStatus(long token) { return core.GetStatus(token); }
        public void OnCompleted(Action continuation, long token) { core.OnCompleted(continuation, token); }
        public void GetResult(long token) { core.GetResult(token); }
    }

    sealed class CreateEnumerator<T> : OnityAsyncEnumeratorBase<T>, IOnityAsyncWriter<T>
    {
        readonly Func<IOnityAsyncWriter<T>, CancellationToken, OnityTask> create;
        readonly YieldSource yielded = new YieldSource();
        bool started, yielding;
        OnityTask producer;
        // Canceled by a DisposeAsync that comes while a MoveNextAsync waits (the producer then
        // awaits its sources: they stop and are disposed). Without a token of the enumeration's,
        // the producer's token; with one, linked to it, and the producer gets the enumeration's as
        // it is (its selectors are handed it, as UniTask's) while this package's producers open
        // their sources with this one (OnityAsyncEnumerable.Src).
        CancellationTokenSource stop;
        internal CancellationToken sourceToken; // stop's (kept: read after stop's disposal)
        readonly Action onProducerDone;

        internal CreateEnumerator(Func<IOnityAsyncWriter<T>, CancellationToken, OnityTask> create, CancellationToken ct)
        {
            this.create = create;
            onProducerDone = OnProducerDone;
            Begin(ct);
        }

        protected override void MoveNextCore()
        {
            if (started)
            {
                // The producer waits in YieldAsync: let it go on (it yields or ends).
                yielding = false;
                yielded.core.TrySetResult(default(AsyncUnit));
                return;
            }
            started = true;
            try
            {
                var ct = cancellationToken;
                stop = ct.CanBeCanceled ? CancellationTokenSource.CreateLinkedTokenSource(ct) : new CancellationTokenSource();
                sourceToken = stop.Token;
                if (!ct.CanBeCanceled) ct = sourceToken;
                producer = create(this, ct);
                var aw = producer.GetAwaiter();
                if (aw.IsCompleted) OnProducerDone();
                else aw.UnsafeOnCompleted(onProducerDone);
            }
            catch (Exception ex) { Fail(ex); }
        }

        public OnityTask YieldAsync(T value)
        {
            if (yielding) throw new InvalidOperationException("Onity: YieldAsync was called before the previous YieldAsync's task completed.");
            if (IsDisposed) return OnityTask.FromCanceled(new CancellationToken(true));
            yielding = true;
            yielded.core.Reset();
            var t = new OnityTask(yielded, yielded.core.Version);
            Yield(value);
            return t;
        }

        void OnProducerDone()
        {
            var p = producer;
            producer = default(OnityTask);
            var s = Interlocked.Exchange(ref stop, null);
            if (s != null) s.Dispose();
            try { p.GetAwaiter().GetResult(); }
            catch (Exception ex)
            {
                if (IsDisposed) Finish(); // stopped by the disposal: a waiting MoveNextAsync ends with false
                // The enumeration's token canceled: the exception carries it (a source's carries the linked one).
                else if (ex is OperationCanceledException && cancellationToken.IsCancellationRequested) Cancel();
                else Fail(ex);
                return;
            }
            Finish();
        }

        protected override OnityTask OnDispose()
        {
            if (yielding)
            {
                yielding = false;
                yielded.core.TrySetCanceled(new CancellationToken(true));
            }
            else if (IsPendingAtDispose)
            {
                var s = Interlocked.Exchange(ref stop, null);
                try
                {
                    if (s != null) s.Cancel(); // the producer's sources stop (their registrations run here)
                }
                finally
                {
                    if (s != null) s.Dispose();
                    // The waiting MoveNextAsync ends with false, whatever the sources do (after they
                    // were released: its continuation may run here and use them again).
                    Finish();
                }
            }
            return OnityTask.CompletedTask;
        }

        protected override void ReturnToPool() { } // not pooled: the producer may outlive the enumeration
    }
}
