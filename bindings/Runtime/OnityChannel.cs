using System;
using System.Runtime.CompilerServices;
using System.Threading;
using Onity.Linq;

namespace Onity
{
    /// <summary>Creates channels (UniTask's <c>Channel</c>).</summary>
    public static class OnityChannel
    {
        /// <summary>An unbounded channel with one consumer: any number of producers on any threads
        /// write (<see cref="OnityChannelWriter{T}.TryWrite"/>), one consumer at a time reads
        /// (<see cref="OnityChannelReader{T}"/>). A read that waits resumes on the runtime's owner
        /// thread, inline when the write happens there, else at the owner's next
        /// BeginFrame/Tick/Drain.</summary>
        public static OnityChannel<T> CreateSingleConsumerUnbounded<T>()
        {
            return new OnityChannel<T>();
        }
    }

    /// <summary>A channel's two ends (UniTask's Channel&lt;TWrite, TRead&gt;): either end converts
    /// implicitly from the channel, so a method taking a reader or a writer accepts the channel.</summary>
    public abstract class OnityChannel<TWrite, TRead>
    {
        public OnityChannelReader<TRead> Reader { get; protected set; }
        public OnityChannelWriter<TWrite> Writer { get; protected set; }

        public static implicit operator OnityChannelReader<TRead>(OnityChannel<TWrite, TRead> channel) { return channel == null ? null : channel.Reader; }

        public static implicit operator OnityChannelWriter<TWrite>(OnityChannel<TWrite, TRead> channel) { return channel == null ? null : channel.Writer; }
    }

    /// <summary>A single-consumer unbounded channel: a FIFO guarded by a lock (held only to move an
    /// item or a flag, never while a continuation runs). A waiting read is handed the written item
    /// directly. Per item nothing is allocated after warm-up (the ring buffer grows by doubling and
    /// never shrinks; a pending read is a reset core of the reader, not a new object; a
    /// cancellation token is registered once per token, not per read).</summary>
    public sealed class OnityChannel<T> : OnityChannel<T, T>
    {
        internal readonly object gate = new object();
        T[] ring = new T[16];
        int head, count;
        internal bool writerDone;          // TryComplete called (under gate)
        internal Exception completionError; // its error, if any

        internal OnityChannel()
        {
            Reader = new OnityChannelReader<T>(this);
            Writer = new OnityChannelWriter<T>(this);
        }

        /// <summary>Items written and not read yet (a snapshot).</summary>
        public int Count { get { lock (gate) return count; } }

        internal void Enqueue(T item)
        {
            if (count == ring.Length) Grow();
            int tail = head + count;
            if (tail >= ring.Length) tail -= ring.Length;
            ring[tail] = item;
            count++;
        }

        internal void EnqueueFront(T item)
        {
            if (count == ring.Length) Grow();
            if (--head < 0) head = ring.Length - 1;
            ring[head] = item;
            count++;
        }

        internal bool TryDequeue(out T item)
        {
            if (count == 0)
            {
                item = default(T);
                return false;
            }
            item = ring[head];
            ring[head] = default(T);
            if (++head == ring.Length) head = 0;
            count--;
            return true;
        }

        internal int CountUnlocked { get { return count; } }

        void Grow()
        {
            var n = new T[ring.Length * 2];
            for (int i = 0; i < count; i++)
            {
                int j = head + i;
                if (j >= ring.Length) j -= ring.Length;
                n[i] = ring[j];
            }
            ring = n;
            head = 0;
        }
    }

    /// <summary>The producers' side of an <see cref="OnityChannel{T}"/>. Any thread.</summary>
    public sealed class OnityChannelWriter<T>
    {
        readonly OnityChannel<T> channel;
        internal OnityChannelWriter(OnityChannel<T> channel) { this.channel = channel; }

        /// <summary>Queues <paramref name="item"/> (or hands it to the waiting read); false once the
        /// channel was completed. Never blocks for long: the lock is held only to move the item.</summary>
        public bool TryWrite(T item)
        {
            var ch = channel;
            int handoff;
            ChannelAllEnumerator<T> mover;
            lock (ch.gate)
            {
                if (ch.writerDone) return false;
                handoff = ch.Reader.ClaimForItem(item, out mover);
            }
            if (handoff != 0) ch.Reader.CompleteWithItem(handoff, item, mover);
            return true;
        }

        /// <summary>Completes the channel: no more writes (TryWrite returns false). The reader still
        /// gets the queued items, then its reads end: WaitToReadAsync returns false, ReadAsync
        /// throws <see cref="OnityChannelClosedException"/>, ReadAllAsync ends; with
        /// <paramref name="error"/> they throw it instead (an <see cref="OperationCanceledException"/>
        /// cancels them). <see cref="OnityChannelReader{T}.Completion"/> completes once the queue is
        /// empty. False when already completed.</summary>
        public bool TryComplete(Exception error = null)
        {
            return channel.Reader.Close(error);
        }

        /// <summary>As <see cref="TryComplete"/>, but throws <see cref="OnityChannelClosedException"/>
        /// when the channel was already completed (UniTask's <c>Complete</c>).</summary>
        public void Complete(Exception error = null)
        {
            if (!TryComplete(error)) throw new OnityChannelClosedException();
        }
    }

    /// <summary>Thrown by ReadAsync on a channel that was completed without error and is empty.</summary>
    public sealed class OnityChannelClosedException : InvalidOperationException
    {
        public OnityChannelClosedException() : base("Onity: the channel was completed and every item was read.") { }
        public OnityChannelClosedException(Exception innerException) : base("Onity: the channel was completed with an error.", innerException) { }
        public OnityChannelClosedException(string message) : base(message) { }
        public OnityChannelClosedException(string message, Exception innerException) : base(message, innerException) { }
    }
}
