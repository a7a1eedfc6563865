using System;
using System.Threading;

namespace Onity.Linq
{
    /// <summary>One kind of waiting read of a channel reader (ReadAsync, WaitToReadAsync): the task's
    /// source, reset for each read that waits. The write or cancellation that claims the read
    /// completes it outside the channel's lock, possibly on another thread; the core is reset only
    /// once that completion has settled (normally the consumer awaited it first).</summary>
    internal sealed class ChannelOp<TR> : IOnityTaskSource<TR>
    {
        OnityCompletionSourceCore<TR> core;
        int consumed = 1; // the last use's outcome was taken (or there was none)

        /// <summary>A new waiting read (channel lock held, no read waiting).</summary>
        internal OnityTask<TR> Start()
        {
            if (Volatile.Read(ref consumed) == 0) Settle();
            core.Reset();
            Volatile.Write(ref consumed, 0);
            return new OnityTask<TR>(this, core.Version);
        }

        /// <summary>The previous read was claimed but its task never consumed: its completer may
        /// still be inside TrySet* on another thread; let it finish before the reset.</summary>
        void Settle()
        {
            var sw = new SpinWait();
            while (core.UnsafeGetStatus() == OnityTaskStatus.Pending) sw.SpinOnce();
        }

        internal void SetResult(TR value) { core.TrySetResult(value); }
        internal void SetException(Exception ex) { core.TrySetException(ex); }

        public OnityTaskStatus GetStatus(long token) { return core.GetStatus(token); }
        public void OnCompleted(Action continuation, long token) { core.OnCompleted(continuation, token); }
        void IOnityTaskSource.GetResult(long token) { GetResult(token); }

        public TR GetResult(long token)
        {
            TR v;
            if (core.TryGetSucceeded(token, out v))
            {
                Volatile.Write(ref consumed, 1);
                return v;
            }
            core.ThrowIfNotCompleted(token);
            Volatile.Write(ref consumed, 1);
            return core.GetResult(token);
        }
    }

    /// <summary>What ReadAllAsync returns: the reader and the call's token.</summary>
    internal sealed class ChannelAllStream<T> : IOnityAsyncEnumerable<T>
    {
        readonly OnityChannelReader<T> reader;
        readonly CancellationToken token;

        internal ChannelAllStream(OnityChannelReader<T> reader, CancellationToken token)
        {
            this.reader = reader;
            this.token = token;
        }

        public IOnityAsyncEnumerator<T> GetAsyncEnumerator(CancellationToken cancellationToken = default(CancellationToken))
        {
            if (!token.CanBeCanceled) return reader.RentEnumerator(cancellationToken, default(CancellationToken));
            if (!cancellationToken.CanBeCanceled || cancellationToken == token) return reader.RentEnumerator(token, default(CancellationToken));
            // Two different tokens (ReadAllAsync's and the enumeration's): either cancels, and the
            // OperationCanceledException carries the one canceled (UniTask's rule; no linked source).
            return reader.RentEnumerator(token, cancellationToken);
        }
    }

    /// <summary>The enumerator of ReadAllAsync, one per reader, reused from one enumeration to the
    /// next (one at a time). A write hands its item straight to a waiting MoveNextAsync.</summary>
    internal sealed class ChannelAllEnumerator<T> : OnityAsyncEnumeratorBase<T>
    {
        readonly OnityChannelReader<T> reader;
        CancellationToken second; // the enumeration's token when ReadAllAsync had another one

        internal ChannelAllEnumerator(OnityChannelReader<T> reader) { this.reader = reader; }

        internal void Start(CancellationToken ct, CancellationToken secondToken)
        {
            second = secondToken;
            Begin(ct);
        }

        protected override void MoveNextCore()
        {
            if (second.IsCancellationRequested)
            {
                Fail(new OperationCanceledException(second));
                return;
            }
            T item;
            int r;
            try { r = reader.TryMoveNext(this, cancellationToken, second, out item); }
            catch (Exception ex)
            {
                Fail(ex);
                return;
            }
            if (r == 1) Yield(item);
            else if (r == 2) End(reader.CompletionErrorAndUnwatch());
            else if (r == 3) Fail(OnityChannelReader<T>.SecondReaderError());
            else reader.WatchFor(cancellationToken, second);
        }

        /// <summary>A write claimed the waiting MoveNext (any thread). Disposed meanwhile: the item
        /// goes back to the front of the queue rather than into an enumeration nobody reads.</summary>
        internal void HandOff(T item)
        {
            if (IsDisposed)
            {
                reader.Requeue(item);
                Finish();
            }
            else Yield(item);
        }

        internal void End(Exception error)
        {
            if (error == null) Finish();
            else Fail(error);
        }

        internal void Canceled(OperationCanceledException oce) { Fail(oce); }

        protected override OnityTask OnDispose()
        {
            if (reader.EndEnumeration(this)) Finish(); // a waiting MoveNext ends with false
            second = default(CancellationToken);
            return OnityTask.CompletedTask;
        }

        protected override void ReturnToPool() { reader.ReturnEnumerator(this); }
    }
}
