using System;
using System.Collections.Generic;
using System.Runtime.ExceptionServices;
using System.Threading;
using Onity.Linq;

namespace Onity
{
    /// <summary>A stream shared by several consumers (UniTask's IConnectableUniTaskAsyncEnumerable):
    /// each enumeration receives the elements that come after it started; the source is enumerated
    /// once, from <see cref="Connect"/>.</summary>
    public interface IOnityConnectableAsyncEnumerable<T> : IOnityAsyncEnumerable<T>
    {
        /// <summary>Starts enumerating the source; disposing the result stops it (the consumers' streams end).</summary>
        IDisposable Connect();
    }

    public static partial class OnityAsyncEnumerable
    {
        // Streams fed by concurrent drains of their sources: each drain enumerates a source as fast
        // as it gives elements and writes them to a channel the consumer reads, so a source never
        // waits for the consumer. One channel and one drain per source per enumeration.

        /// <summary>The elements of every source as they come (the sources enumerated at once,
        /// concurrently); ends when all have ended; the first exception faults it (the other sources
        /// are then canceled). Stopping the enumeration cancels the sources.</summary>
        public static IOnityAsyncEnumerable<T> Merge<T>(this IOnityAsyncEnumerable<T> first, IOnityAsyncEnumerable<T> second)
        {
            if (first == null) throw new ArgumentNullException("first");
            if (second == null) throw new ArgumentNullException("second");
            return Merge(new[] { first, second });
        }

        public static IOnityAsyncEnumerable<T> Merge<T>(this IOnityAsyncEnumerable<T> first, IOnityAsyncEnumerable<T> second, IOnityAsyncEnumerable<T> third)
        {
            if (first == null) throw new ArgumentNullException("first");
            if (second == null) throw new ArgumentNullException("second");
            if (third == null) throw new ArgumentNullException("third");
            return Merge(new[] { first, second, third });
        }

        public static IOnityAsyncEnumerable<T> Merge<T>(this IEnumerable<IOnityAsyncEnumerable<T>> sources)
        {
            if (sources == null) throw new ArgumentNullException("sources");
            var list = new List<IOnityAsyncEnumerable<T>>(sources);
            foreach (var s in list) if (s == null) throw new ArgumentNullException("sources", "Onity: a source is null.");
            return Create<T>((w, ct) => MergeProducer(list.ToArray(), w, ct));
        }

        public static IOnityAsyncEnumerable<T> Merge<T>(params IOnityAsyncEnumerable<T>[] sources)
        {
            return Merge((IEnumerable<IOnityAsyncEnumerable<T>>)sources);
        }

        /// <summary>The same elements, the source enumerated ahead of the consumer (buffered: a slow
        /// consumer does not slow the source).</summary>
        public static IOnityAsyncEnumerable<T> Queue<T>(this IOnityAsyncEnumerable<T> source)
        {
            CheckSource(source);
            var one = new[] { source };
            return Create<T>((w, ct) => MergeProducer(one, w, ct));
        }

        /// <summary>selector(latest of first, latest of second) each time either gives an element,
        /// once both have given one; ends when both have ended.</summary>
        public static IOnityAsyncEnumerable<TResult> CombineLatest<T1, T2, TResult>(this IOnityAsyncEnumerable<T1> first, IOnityAsyncEnumerable<T2> second, Func<T1, T2, TResult> resultSelector)
        {
            if (first == null) throw new ArgumentNullException("first");
            if (second == null) throw new ArgumentNullException("second");
            if (resultSelector == null) throw new ArgumentNullException("resultSelector");
            return Create<TResult>((w, ct) => CombineProducer(first, second, resultSelector, w, ct));
        }

        /// <summary>A stream shared by its consumers from <see cref="IOnityConnectableAsyncEnumerable{T}.Connect"/> on.</summary>
        public static IOnityConnectableAsyncEnumerable<T> Publish<T>(this IOnityAsyncEnumerable<T> source)
        {
            CheckSource(source);
            return new PublishStream<T>(source);
        }

        /// <summary>State shared by the drains of one enumeration.</summary>
        sealed class Drains<T>
        {
            internal readonly OnityChannel<T> channel = OnityChannel.CreateSingleConsumerUnbounded<T>();
            internal readonly CancellationTokenSource stop;
            internal int running;
            internal ExceptionDispatchInfo error;

            internal Drains(int n, CancellationToken ct)
            {
                running = n;
                stop = CancellationTokenSource.CreateLinkedTokenSource(ct);
            }

            internal void Done(Exception ex)
            {
                if (ex != null && !(ex is OperationCanceledException && stop.IsCancellationRequested) && Interlocked.CompareExchange(ref error, ExceptionDispatchInfo.Capture(ex), null) == null)
                    stop.Cancel(); // the first exception cancels the other sources
                if (Interlocked.Decrement(ref running) == 0 || error != null) channel.Writer.TryComplete();
            }
        }

        static async OnityTask Drain<T, TOut>(IOnityAsyncEnumerable<T> source, Action<T> onItem, Drains<TOut> d)
        {
            Exception err = null;
            try
            {
                var e = source.GetAsyncEnumerator(d.stop.Token);
                try
                {
                    while (await e.MoveNextAsync()) onItem(e.Current);
                }
                finally
                {
                    await e.DisposeAsync();
                }
            }
            catch (Exception ex) { err = ex; }
            d.Done(err);
        }

        static async OnityTask MergeProducer<T>(IOnityAsyncEnumerable<T>[] sources, IOnityAsyncWriter<T> w, CancellationToken ct)
        {
            var d = new Drains<T>(sources.Length, Src(w, ct));
            try
            {
                Action<T> write = x => d.channel.Writer.TryWrite(x);
                foreach (var s in sources) Drain(s, write, d).Forget();
                await YieldAll(d.channel.Reader.ReadAllAsync(), w, ct);
                if (d.error != null) d.error.Throw();
            }
            finally
            {
                d.stop.Cancel();
                d.stop.Dispose();
            }
        }

        static async OnityTask CombineProducer<T1, T2, TResult>(IOnityAsyncEnumerable<T1> first, IOnityAsyncEnumerable<T2> second, Func<T1, T2, TResult> selector, IOnityAsyncWriter<TResult> w, CancellationToken ct)
        {
            var d = new Drains<TResult>(2, Src(w, ct));
            var latest = new Latest<T1, T2, TResult>(selector, d);
            try
            {
                Drain(first, latest.SetA, d).Forget();
                Drain(second, latest.SetB, d).Forget();
                await YieldAll(d.channel.Reader.ReadAllAsync(), w, ct);
                if (d.error != null) d.error.Throw();
            }
            finally
            {
                d.stop.Cancel();
                d.stop.Dispose();
            }
        }

        sealed class Latest<T1, T2, TResult>
        {
            readonly Func<T1, T2, TResult> selector;
            readonly Drains<TResult> d;
            readonly object gate = new object();
            T1 a;
            T2 b;
            bool hasA, hasB;

            internal Latest(Func<T1, T2, TResult> selector, Drains<TResult> d)
            {
                this.selector = selector;
                this.d = d;
            }

            internal void SetA(T1 x) { lock (gate) { a = x; hasA = true; if (hasB) d.channel.Writer.TryWrite(selector(a, b)); } }
            internal void SetB(T2 x) { lock (gate) { b = x; hasB = true; if (hasA) d.channel.Writer.TryWrite(selector(a, b)); } }
        }
    }
}

namespace Onity.Linq
{
    sealed class PublishStream<T> : IOnityConnectableAsyncEnumerable<T>
    {
        readonly IOnityAsyncEnumerable<T> source;
        readonly object gate = new object();
        // Copy-on-write: a write resumes consumers, which may unsubscribe while it iterates.
        OnityChannel<T>[] consumers = new OnityChannel<T>[0];
        CancellationTokenSource connection;
        bool ended;
        Exception error;

        internal PublishStream(IOnityAsyncEnumerable<T> source) { this.source = source; }

        public IOnityAsyncEnumerator<T> GetAsyncEnumerator(CancellationToken cancellationToken = default(CancellationToken))
        {
            var ch = OnityChannel.CreateSingleConsumerUnbounded<T>();
            lock (gate)
            {
                if (ended) ch.Writer.TryComplete(error);
                else
                {
                    var a = new OnityChannel<T>[consumers.Length + 1];
                    Array.Copy(consumers, a, consumers.Length);
                    a[consumers.Length] = ch;
                    consumers = a;
                }
            }
            return new Consumer(this, ch, cancellationToken);
        }

        public IDisposable Connect()
        {
            lock (gate)
            {
                if (connection != null) throw new InvalidOperationException("Onity: this published stream is already connected.");
                connection = new CancellationTokenSource();
            }
            Run(connection.Token).Forget();
            return new Disconnect(connection);
        }

        sealed class Disconnect : IDisposable
        {
            readonly CancellationTokenSource cts;
            internal Disconnect(CancellationTokenSource cts) { this.cts = cts; }
            public void Dispose() { cts.Cancel(); }
        }

        async OnityTask Run(CancellationToken ct)
        {
            Exception err = null;
            try
            {
                var e = source.GetAsyncEnumerator(ct);
                try
                {
                    while (await e.MoveNextAsync())
                    {
                        var x = e.Current;
                        foreach (var c in Volatile.Read(ref consumers)) c.Writer.TryWrite(x);
                    }
                }
                finally
                {
                    await e.DisposeAsync();
                }
            }
            catch (Exception ex) { if (!(ex is OperationCanceledException)) err = ex; }
            OnityChannel<T>[] last;
            lock (gate)
            {
                ended = true;
                error = err;
                last = consumers;
                consumers = new OnityChannel<T>[0];
            }
            foreach (var c in last) c.Writer.TryComplete(err);
        }

        void Remove(OnityChannel<T> ch)
        {
            lock (gate)
            {
                int i = Array.IndexOf(consumers, ch);
                if (i < 0) return;
                var a = new OnityChannel<T>[consumers.Length - 1];
                Array.Copy(consumers, a, i);
                Array.Copy(consumers, i + 1, a, i, a.Length - i);
                consumers = a;
            }
        }

        /// <summary>One consumer: reads its channel; disposing it unsubscribes.</summary>
        sealed class Consumer : IOnityAsyncEnumerator<T>
        {
            readonly PublishStream<T> owner;
            readonly OnityChannel<T> channel;
            readonly IOnityAsyncEnumerator<T> reader;

            internal Consumer(PublishStream<T> owner, OnityChannel<T> channel, CancellationToken ct)
            {
                this.owner = owner;
                this.channel = channel;
                reader = channel.Reader.ReadAllAsync(ct).GetAsyncEnumerator(ct);
            }

            public T Current { get { return reader.Current; } }

            public OnityTask<bool> MoveNextAsync() { return reader.MoveNextAsync(); }

            public OnityTask DisposeAsync()
            {
                owner.Remove(channel);
                return reader.DisposeAsync();
            }
        }
    }
}
