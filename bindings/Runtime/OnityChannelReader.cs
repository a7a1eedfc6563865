using System;
using System.Threading;
using Onity.Linq;

namespace Onity
{
    /// <summary>The consumer's side of an <see cref="OnityChannel{T}"/>: one read may wait at a
    /// time (a second one throws <see cref="InvalidOperationException"/>); it may be called from any
    /// thread, and a read that waits resumes on the runtime's owner thread. A cancellation token
    /// completes a waiting read canceled at once (from the canceling thread's Cancel, through the
    /// owner's continuation queue when that is another thread); it is registered once and kept
    /// until a read with another token, the end of the channel or the end of a ReadAllAsync
    /// enumeration.</summary>
    public sealed class OnityChannelReader<T>
    {
        internal const int None = 0, WaitToRead = 1, Read = 2, MoveNext = 3;
        static readonly Action<object> onCanceled = o => ((OnityChannelReader<T>)o).CancelWaiting();

        readonly OnityChannel<T> channel;
        readonly ChannelOp<T> readOp = new ChannelOp<T>();
        readonly ChannelOp<bool> waitOp = new ChannelOp<bool>();
        readonly ChannelAllStream<T> allStream;
        int waiting;                     // under gate: what the waiting read is (None: no read waits)
        CancellationToken waitToken;     // under gate: its token
        CancellationToken waitToken2;    // under gate: a second token (ReadAllAsync's and the enumeration's)
        ChannelAllEnumerator<T> mover;   // the waiting MoveNext's enumerator
        ChannelAllEnumerator<T> idleEnumerator;
        bool enumerating;
        CancellationToken regToken;      // consumer side: the tokens registered
        CancellationTokenRegistration registration;
        CancellationToken regToken2;
        CancellationTokenRegistration registration2;
        OnityCompletionSource completion;
        bool drained;                    // under gate: completed and empty (Completion signalled)

        internal OnityChannelReader(OnityChannel<T> channel)
        {
            this.channel = channel;
            allStream = new ChannelAllStream<T>(this, default(CancellationToken));
        }

        /// <summary>Takes the next item if one is queued. Any thread.</summary>
        public bool TryRead(out T item)
        {
            bool last;
            lock (channel.gate)
            {
                if (!channel.TryDequeue(out item)) return false;
                last = channel.writerDone && channel.CountUnlocked == 0;
            }
            if (last) SignalDrained();
            return true;
        }

        /// <summary>True when an item can be read (at once when one is queued), false once the
        /// channel was completed and is empty; throws the completion error if there was one.</summary>
        public OnityTask<bool> WaitToReadAsync(CancellationToken cancellationToken = default(CancellationToken))
        {
            OnityTask<bool> task;
            lock (channel.gate)
            {
                if (waiting != None) throw SecondReader();
                if (channel.CountUnlocked != 0) return new OnityTask<bool>(true);
                if (channel.writerDone) goto ended;
                if (cancellationToken.IsCancellationRequested) return OnityTask.FromCanceled<bool>(cancellationToken);
                task = waitOp.Start();
                Wait(WaitToRead, cancellationToken);
            }
            Watch(cancellationToken);
            return task;
        ended:
            // Outside the gate: disposing the registration waits for a callback that is running,
            // and the callback takes the gate.
            Unwatch();
            var error = channel.completionError;
            return error == null ? new OnityTask<bool>(false) : OnityTask.FromException<bool>(error);
        }

        /// <summary>The next item: at once when one is queued, else when one is written. Throws
        /// <see cref="OnityChannelClosedException"/> once the channel was completed and is empty
        /// (or its completion error).</summary>
        public OnityTask<T> ReadAsync(CancellationToken cancellationToken = default(CancellationToken))
        {
            OnityTask<T> task;
            T item;
            bool last;
            lock (channel.gate)
            {
                if (waiting != None) throw SecondReader();
                if (!channel.TryDequeue(out item))
                {
                    if (channel.writerDone) goto ended;
                    if (cancellationToken.IsCancellationRequested) return OnityTask.FromCanceled<T>(cancellationToken);
                    task = readOp.Start();
                    Wait(Read, cancellationToken);
                    goto waits;
                }
                last = channel.writerDone && channel.CountUnlocked == 0;
            }
            if (last) SignalDrained();
            return new OnityTask<T>(item);
        waits:
            Watch(cancellationToken);
            return task;
        ended:
            Unwatch();
            return OnityTask.FromException<T>(ReadEndedError(channel.completionError));
        }

        /// <summary>The items as a stream, until the channel is completed and empty (then it ends,
        /// or throws the completion error). One enumeration at a time. Enumerating allocates nothing
        /// after the first (its enumerator is kept by the reader); with a token, this call
        /// allocates its small stream object. With a token here and another one for the
        /// enumeration (<c>ReadAllAsync(ct1).ToArrayAsync(ct2)</c>) either cancels, and the
        /// <see cref="OperationCanceledException"/> carries the one canceled (no linked source).</summary>
        public IOnityAsyncEnumerable<T> ReadAllAsync(CancellationToken cancellationToken = default(CancellationToken))
        {
            return cancellationToken.CanBeCanceled ? new ChannelAllStream<T>(this, cancellationToken) : allStream;
        }

        /// <summary>Completes when the channel was completed and every item was read: succeeded,
        /// or with the completion error (canceled for an <see cref="OperationCanceledException"/>).
        /// May be awaited any number of times.</summary>
        public OnityTask Completion
        {
            get
            {
                OnityCompletionSource c;
                bool done;
                lock (channel.gate)
                {
                    c = completion ?? (completion = new OnityCompletionSource());
                    done = drained;
                }
                if (done) CompleteCompletion(c);
                return c.Task;
            }
        }

        // ---- the waiting read (gate held) ------------------------------------------------------

        void Wait(int kind, CancellationToken ct, CancellationToken ct2 = default(CancellationToken))
        {
            waiting = kind;
            waitToken = ct;
            waitToken2 = ct2;
        }

        /// <summary>A write (gate held): queues the item, or claims the waiting read for it.
        /// Returns what to complete outside the gate (None: nothing), and the waiting enumerator.</summary>
        internal int ClaimForItem(T item, out ChannelAllEnumerator<T> m, bool front = false)
        {
            int k = waiting;
            m = null;
            if (k == Read || k == MoveNext)
            {
                waiting = None;
                m = mover;
                mover = null;
                return k;
            }
            if (front) channel.EnqueueFront(item);
            else channel.Enqueue(item);
            if (k == WaitToRead) waiting = None;
            return k;
        }

        /// <summary>An item handed to an enumerator disposed meanwhile: back to the front of the
        /// queue (or to the read waiting now), even after the channel was completed.</summary>
        internal void Requeue(T item)
        {
            int k;
            ChannelAllEnumerator<T> m;
            lock (channel.gate) k = ClaimForItem(item, out m, true);
            if (k != None) CompleteWithItem(k, item, m);
        }

        /// <summary>Completes the read claimed by a write (outside the gate).</summary>
        internal void CompleteWithItem(int kind, T item, ChannelAllEnumerator<T> m)
        {
            if (kind == Read) readOp.SetResult(item);
            else if (kind == WaitToRead) waitOp.SetResult(true);
            else m.HandOff(item);
        }

        /// <summary>TryComplete: closes the channel; a waiting read ends.</summary>
        internal bool Close(Exception error)
        {
            int k;
            ChannelAllEnumerator<T> m;
            bool empty;
            lock (channel.gate)
            {
                if (channel.writerDone) return false;
                channel.writerDone = true;
                channel.completionError = error;
                k = waiting;
                waiting = None;
                m = mover;
                mover = null;
                empty = channel.CountUnlocked == 0;
            }
            if (k != None) EndWaiting(k, m, error);
            if (empty) SignalDrained();
            return true;
        }

        void EndWaiting(int kind, ChannelAllEnumerator<T> m, Exception error)
        {
            if (kind == Read) readOp.SetException(ReadEndedError(error));
            else if (kind == WaitToRead)
            {
                if (error == null) waitOp.SetResult(false);
                else waitOp.SetException(error);
            }
            else m.End(error);
        }

        void CancelWaiting()
        {
            int k;
            CancellationToken ct;
            ChannelAllEnumerator<T> m;
            lock (channel.gate)
            {
                if (waiting == None) return;
                // The OperationCanceledException carries the token that was canceled.
                if (waitToken.IsCancellationRequested) ct = waitToken;
                else if (waitToken2.IsCancellationRequested) ct = waitToken2;
                else return;
                k = waiting;
                waiting = None;
                m = mover;
                mover = null;
            }
            var oce = new OperationCanceledException(ct);
            if (k == Read) readOp.SetException(oce);
            else if (k == WaitToRead) waitOp.SetException(oce);
            else m.Canceled(oce);
        }

        /// <summary>Consumer side, after a read started waiting: registers the token (once per
        /// token) and catches a cancellation that came before the registration.</summary>
        void Watch(CancellationToken ct, CancellationToken ct2 = default(CancellationToken))
        {
            Register(ref regToken, ref registration, ct);
            Register(ref regToken2, ref registration2, ct2);
            if (ct.IsCancellationRequested || ct2.IsCancellationRequested) CancelWaiting();
        }

        void Register(ref CancellationToken registered, ref CancellationTokenRegistration reg, CancellationToken ct)
        {
            if (!ct.CanBeCanceled || ct == registered) return;
            reg.Dispose();
            registered = ct;
            reg = ct.Register(onCanceled, this);
        }

        void Unwatch()
        {
            registration.Dispose();
            registration = default(CancellationTokenRegistration);
            regToken = default(CancellationToken);
            registration2.Dispose();
            registration2 = default(CancellationTokenRegistration);
            regToken2 = default(CancellationToken);
        }

        void SignalDrained()
        {
            OnityCompletionSource c;
            lock (channel.gate)
            {
                if (drained) return;
                drained = true;
                c = completion;
            }
            if (c != null) CompleteCompletion(c);
        }

        void CompleteCompletion(OnityCompletionSource c)
        {
            var error = channel.completionError;
            if (error == null) c.TrySetResult();
            else c.TrySetException(error);
        }

        static Exception ReadEndedError(Exception error)
        {
            if (error == null) return new OnityChannelClosedException();
            return error is OperationCanceledException ? error : new OnityChannelClosedException(error);
        }

        static InvalidOperationException SecondReader()
        {
            return new InvalidOperationException("Onity: an OnityChannel has one consumer: a read is already waiting (await it before reading again).");
        }

        // ---- ReadAllAsync's enumerator -------------------------------------------------------

        internal ChannelAllEnumerator<T> RentEnumerator(CancellationToken ct, CancellationToken second)
        {
            lock (channel.gate)
            {
                if (enumerating) throw new InvalidOperationException("Onity: an OnityChannel has one consumer: ReadAllAsync is already being enumerated.");
                enumerating = true;
            }
            var e = idleEnumerator ?? new ChannelAllEnumerator<T>(this);
            idleEnumerator = null;
            e.Start(ct, second);
            return e;
        }

        /// <summary>MoveNextCore of the enumerator: 0 waits, 1 item, 2 ended, 3 another read waits.</summary>
        internal int TryMoveNext(ChannelAllEnumerator<T> e, CancellationToken ct, CancellationToken ct2, out T item)
        {
            bool last;
            lock (channel.gate)
            {
                if (channel.TryDequeue(out item)) last = channel.writerDone && channel.CountUnlocked == 0;
                else
                {
                    if (channel.writerDone) return 2;
                    if (waiting != None) return 3;
                    Wait(MoveNext, ct, ct2);
                    mover = e;
                    return 0;
                }
            }
            if (last) SignalDrained();
            return 1;
        }

        internal void WatchFor(CancellationToken ct, CancellationToken ct2) { Watch(ct, ct2); }

        internal Exception CompletionErrorAndUnwatch()
        {
            Unwatch();
            return channel.completionError;
        }

        /// <summary>Enumerator disposed: a waiting MoveNext ends (false), the registration goes.</summary>
        internal bool EndEnumeration(ChannelAllEnumerator<T> e)
        {
            bool wasWaiting = false;
            lock (channel.gate)
            {
                if (waiting == MoveNext && mover == e)
                {
                    waiting = None;
                    mover = null;
                    wasWaiting = true;
                }
                enumerating = false;
            }
            Unwatch();
            return wasWaiting;
        }

        internal void ReturnEnumerator(ChannelAllEnumerator<T> e) { idleEnumerator = e; }

        internal static InvalidOperationException SecondReaderError() { return SecondReader(); }
    }
}
