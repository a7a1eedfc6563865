using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Onity.Linq;

namespace Onity
{
    public static partial class OnityAsyncEnumerable
    {
        // Sources that are not frame streams (UniTask's UniTaskAsyncEnumerable factories). The
        // synchronous ones give each element at once (MoveNextAsync completes synchronously);
        // each enumeration rents a pooled enumerator; a token given to GetAsyncEnumerator cancels
        // the next MoveNextAsync.

        /// <summary><paramref name="count"/> ints from <paramref name="start"/>.</summary>
        public static IOnityAsyncEnumerable<int> Range(int start, int count)
        {
            if (count < 0 || (long)start + count - 1 > int.MaxValue) throw new ArgumentOutOfRangeException("count");
            return count == 0 ? Empty<int>() : new RangeStream(start, count);
        }

        /// <summary><paramref name="element"/> <paramref name="count"/> times.</summary>
        public static IOnityAsyncEnumerable<T> Repeat<T>(T element, int count)
        {
            if (count < 0) throw new ArgumentOutOfRangeException("count");
            return new SyncStream<T>(SyncKind.Repeat, element, count, null, null);
        }

        /// <summary>One element.</summary>
        public static IOnityAsyncEnumerable<T> Return<T>(T value)
        {
            return new SyncStream<T>(SyncKind.Repeat, value, 1, null, null);
        }

        /// <summary>No element (a shared instance).</summary>
        public static IOnityAsyncEnumerable<T> Empty<T>() { return SyncStream<T>.Empty; }

        /// <summary>A stream whose first MoveNextAsync faults with <paramref name="exception"/>.</summary>
        public static IOnityAsyncEnumerable<T> Throw<T>(Exception exception)
        {
            if (exception == null) throw new ArgumentNullException("exception");
            return new SyncStream<T>(SyncKind.Throw, default(T), 0, exception, null);
        }

        /// <summary>A stream that never gives an element nor ends: its MoveNextAsync completes only
        /// canceled, when the enumeration's token is.</summary>
        public static IOnityAsyncEnumerable<T> Never<T>() { return NeverStream<T>.Instance; }

        /// <summary>The elements of <paramref name="source"/> (enumerated when the stream is).</summary>
        public static IOnityAsyncEnumerable<T> ToOnityAsyncEnumerable<T>(this IEnumerable<T> source)
        {
            if (source == null) throw new ArgumentNullException("source");
            return new SyncStream<T>(SyncKind.Enumerable, default(T), 0, null, source);
        }

        /// <summary>One element: the task's result, when it completes (its exception faults the stream).</summary>
        public static IOnityAsyncEnumerable<T> ToOnityAsyncEnumerable<T>(this Task<T> source)
        {
            if (source == null) throw new ArgumentNullException("source");
            return new TaskStream<T>(source.AsOnityTask());
        }

        /// <summary>One element: the task's result when it completes. An OnityTask is awaited once:
        /// enumerate such a stream once (as UniTask's).</summary>
        public static IOnityAsyncEnumerable<T> ToOnityAsyncEnumerable<T>(this OnityTask<T> source)
        {
            return new TaskStream<T>(source);
        }
    }
}

namespace Onity.Linq
{
    enum SyncKind { Repeat, Throw, Enumerable }

    sealed class RangeStream : IOnityAsyncEnumerable<int>
    {
        readonly int start, count;
        internal RangeStream(int start, int count) { this.start = start; this.count = count; }

        public IOnityAsyncEnumerator<int> GetAsyncEnumerator(CancellationToken cancellationToken = default(CancellationToken))
        {
            return RangeEnumerator.Rent(start, count, cancellationToken);
        }
    }

    sealed class RangeEnumerator : OnityAsyncEnumeratorBase<int>
    {
        static readonly OnityObjectPool<RangeEnumerator> pool = new OnityObjectPool<RangeEnumerator>(256);
        int next, left;

        internal static RangeEnumerator Rent(int start, int count, CancellationToken ct)
        {
            var e = pool.TryRent() ?? new RangeEnumerator { SynchronousOnly = true };
            e.next = start;
            e.left = count;
            e.Begin(ct);
            return e;
        }

        protected override void MoveNextCore()
        {
            if (left == 0)
            {
                Finish();
                return;
            }
            left--;
            Yield(next++);
        }

        protected override void ReturnToPool() { pool.Return(this); }
    }

    sealed class SyncStream<T> : IOnityAsyncEnumerable<T>
    {
        internal static readonly SyncStream<T> Empty = new SyncStream<T>(SyncKind.Repeat, default(T), 0, null, null);
        internal readonly SyncKind kind;
        internal readonly T value;     // Repeat: the element
        internal readonly int count;
        internal readonly Exception exception;
        internal readonly IEnumerable<T> enumerable;

        internal SyncStream(SyncKind kind, T value, int count, Exception exception, IEnumerable<T> enumerable)
        {
            this.kind = kind;
            this.value = value;
            this.count = count;
            this.exception = exception;
            this.enumerable = enumerable;
        }

        public IOnityAsyncEnumerator<T> GetAsyncEnumerator(CancellationToken cancellationToken = default(CancellationToken))
        {
            return SyncEnumerator<T>.Rent(this, cancellationToken);
        }
    }

    sealed class SyncEnumerator<T> : OnityAsyncEnumeratorBase<T>
    {
        static readonly OnityObjectPool<SyncEnumerator<T>> pool = new OnityObjectPool<SyncEnumerator<T>>(256);
        SyncStream<T> stream;
        int given;
        IEnumerator<T> inner;

        internal static SyncEnumerator<T> Rent(SyncStream<T> s, CancellationToken ct)
        {
            var e = pool.TryRent() ?? new SyncEnumerator<T> { SynchronousOnly = true };
            e.stream = s;
            e.given = 0;
            e.Begin(ct);
            return e;
        }

        protected override void MoveNextCore()
        {
            var s = stream;
            switch (s.kind)
            {
                case SyncKind.Repeat:
                    if (given < s.count)
                    {
                        given++;
                        Yield(s.value);
                    }
                    else Finish();
                    return;
                case SyncKind.Throw:
                    Fail(s.exception);
                    return;
                default:
                    try
                    {
                        if (inner == null) inner = s.enumerable.GetEnumerator();
                        if (inner.MoveNext()) Yield(inner.Current);
                        else Finish();
                    }
                    catch (Exception ex) { Fail(ex); }
                    return;
            }
        }

        protected override OnityTask OnDispose()
        {
            var i = inner;
            inner = null;
            if (i != null) i.Dispose();
            return OnityTask.CompletedTask;
        }

        protected override void ReturnToPool()
        {
            stream = null;
            pool.Return(this);
        }
    }

    sealed class NeverStream<T> : IOnityAsyncEnumerable<T>
    {
        internal static readonly NeverStream<T> Instance = new NeverStream<T>();

        public IOnityAsyncEnumerator<T> GetAsyncEnumerator(CancellationToken cancellationToken = default(CancellationToken))
        {
            return new NeverEnumerator<T>(cancellationToken);
        }
    }

    /// <summary>Pending until the token is canceled (not pooled: a canceled registration may still
    /// run after the disposal).</summary>
    sealed class NeverEnumerator<T> : OnityAsyncEnumeratorBase<T>
    {
        CancellationTokenRegistration registration;
        internal NeverEnumerator(CancellationToken ct) { Begin(ct); }

        protected override void MoveNextCore()
        {
            if (cancellationToken.CanBeCanceled)
                registration = cancellationToken.Register(s => ((NeverEnumerator<T>)s).Cancel(), this);
        }

        protected override OnityTask OnDispose()
        {
            registration.Dispose();
            return OnityTask.CompletedTask;
        }

        protected override void ReturnToPool() { }
    }

    sealed class TaskStream<T> : IOnityAsyncEnumerable<T>
    {
        readonly OnityTask<T> task;
        internal TaskStream(OnityTask<T> task) { this.task = task; }

        public IOnityAsyncEnumerator<T> GetAsyncEnumerator(CancellationToken cancellationToken = default(CancellationToken))
        {
            return TaskEnumerator<T>.Rent(task, cancellationToken);
        }
    }

    sealed class TaskEnumerator<T> : OnityAsyncEnumeratorBase<T>
    {
        static readonly OnityObjectPool<TaskEnumerator<T>> pool = new OnityObjectPool<TaskEnumerator<T>>(64);
        OnityTask<T> task;
        OnityTask<T>.Awaiter awaiter;
        bool done;
        readonly Action onDone;

        TaskEnumerator() { onDone = OnDone; }

        internal static TaskEnumerator<T> Rent(OnityTask<T> t, CancellationToken ct)
        {
            var e = pool.TryRent() ?? new TaskEnumerator<T>();
            e.task = t;
            e.done = false;
            e.Begin(ct);
            return e;
        }

        protected override void MoveNextCore()
        {
            if (done)
            {
                Finish();
                return;
            }
            done = true;
            try
            {
                awaiter = task.GetAwaiter();
                if (awaiter.IsCompleted) OnDone();
                else awaiter.UnsafeOnCompleted(onDone);
            }
            catch (Exception ex) { Fail(ex); }
        }

        void OnDone()
        {
            var aw = awaiter;
            awaiter = default(OnityTask<T>.Awaiter);
            T v;
            try { v = aw.GetResult(); }
            catch (Exception ex)
            {
                Fail(ex);
                return;
            }
            Yield(v);
        }

        protected override void ReturnToPool()
        {
            task = default(OnityTask<T>);
            pool.Return(this);
        }
    }
}
