using System;
using System.Threading;
using Onity.Linq;

namespace Onity
{
    public static partial class OnityAsyncEnumerable
    {
        // Operators: each call allocates its small stream object (as System.Linq does); each
        // enumeration rents a pooled enumerator and each element allocates nothing.

        /// <summary>The elements for which <paramref name="predicate"/> is true.</summary>
        public static IOnityAsyncEnumerable<T> Where<T>(this IOnityAsyncEnumerable<T> source, Func<T, bool> predicate)
        {
            if (source == null) throw new ArgumentNullException("source");
            if (predicate == null) throw new ArgumentNullException("predicate");
            return new WhereStream<T>(source, predicate);
        }

        /// <summary>Each element mapped by <paramref name="selector"/>.</summary>
        public static IOnityAsyncEnumerable<TResult> Select<TSource, TResult>(this IOnityAsyncEnumerable<TSource> source, Func<TSource, TResult> selector)
        {
            if (source == null) throw new ArgumentNullException("source");
            if (selector == null) throw new ArgumentNullException("selector");
            return new SelectStream<TSource, TResult>(source, selector);
        }

        /// <summary>The first <paramref name="count"/> elements (none when count &lt;= 0). Once they
        /// are given, MoveNextAsync returns false without waiting for the source.</summary>
        public static IOnityAsyncEnumerable<T> Take<T>(this IOnityAsyncEnumerable<T> source, int count)
        {
            if (source == null) throw new ArgumentNullException("source");
            return new TakeSkipStream<T>(source, Math.Max(count, 0), true);
        }

        /// <summary>The elements after the first <paramref name="count"/>.</summary>
        public static IOnityAsyncEnumerable<T> Skip<T>(this IOnityAsyncEnumerable<T> source, int count)
        {
            if (source == null) throw new ArgumentNullException("source");
            return new TakeSkipStream<T>(source, Math.Max(count, 0), false);
        }

        /// <summary>The same stream, enumerated with <paramref name="cancellationToken"/>: for
        /// <c>await foreach (var x in stream.WithCancellation(ct))</c> (C# 8).</summary>
        public static OnityCancelableAsyncEnumerable<T> WithCancellation<T>(this IOnityAsyncEnumerable<T> source, CancellationToken cancellationToken)
        {
            if (source == null) throw new ArgumentNullException("source");
            return new OnityCancelableAsyncEnumerable<T>(source, cancellationToken);
        }
    }

    /// <summary>A stream with the token its enumeration gets (<c>WithCancellation</c>).</summary>
    public readonly struct OnityCancelableAsyncEnumerable<T>
    {
        readonly IOnityAsyncEnumerable<T> source;
        readonly CancellationToken cancellationToken;

        internal OnityCancelableAsyncEnumerable(IOnityAsyncEnumerable<T> source, CancellationToken cancellationToken)
        {
            this.source = source;
            this.cancellationToken = cancellationToken;
        }

        public IOnityAsyncEnumerator<T> GetAsyncEnumerator() { return source.GetAsyncEnumerator(cancellationToken); }
    }
}

namespace Onity.Linq
{
    sealed class WhereStream<T> : IOnityAsyncEnumerable<T>
    {
        readonly IOnityAsyncEnumerable<T> source;
        readonly Func<T, bool> predicate;
        internal WhereStream(IOnityAsyncEnumerable<T> source, Func<T, bool> predicate) { this.source = source; this.predicate = predicate; }

        public IOnityAsyncEnumerator<T> GetAsyncEnumerator(CancellationToken cancellationToken = default(CancellationToken))
        {
            return WhereEnumerator<T>.Rent(source, predicate, cancellationToken);
        }
    }

    sealed class WhereEnumerator<T> : OnityOperatorEnumerator<T, T>
    {
        static readonly OnityObjectPool<WhereEnumerator<T>> pool = new OnityObjectPool<WhereEnumerator<T>>(256);
        Func<T, bool> predicate;

        internal static WhereEnumerator<T> Rent(IOnityAsyncEnumerable<T> source, Func<T, bool> predicate, CancellationToken ct)
        {
            var e = pool.TryRent() ?? new WhereEnumerator<T>();
            e.predicate = predicate;
            e.BeginOver(source, ct);
            return e;
        }

        protected override bool OnItem(T item, out T result)
        {
            result = item;
            return predicate(item);
        }

        protected override void ReturnToPool()
        {
            predicate = null;
            pool.Return(this);
        }
    }

    sealed class SelectStream<TSource, TResult> : IOnityAsyncEnumerable<TResult>
    {
        readonly IOnityAsyncEnumerable<TSource> source;
        readonly Func<TSource, TResult> selector;
        internal SelectStream(IOnityAsyncEnumerable<TSource> source, Func<TSource, TResult> selector) { this.source = source; this.selector = selector; }

        public IOnityAsyncEnumerator<TResult> GetAsyncEnumerator(CancellationToken cancellationToken = default(CancellationToken))
        {
            return SelectEnumerator<TSource, TResult>.Rent(source, selector, cancellationToken);
        }
    }

    sealed class SelectEnumerator<TSource, TResult> : OnityOperatorEnumerator<TSource, TResult>
    {
        static readonly OnityObjectPool<SelectEnumerator<TSource, TResult>> pool = new OnityObjectPool<SelectEnumerator<TSource, TResult>>(256);
        Func<TSource, TResult> selector;

        internal static SelectEnumerator<TSource, TResult> Rent(IOnityAsyncEnumerable<TSource> source, Func<TSource, TResult> selector, CancellationToken ct)
        {
            var e = pool.TryRent() ?? new SelectEnumerator<TSource, TResult>();
            e.selector = selector;
            e.BeginOver(source, ct);
            return e;
        }

        protected override bool OnItem(TSource item, out TResult result)
        {
            result = selector(item);
            return true;
        }

        protected override void ReturnToPool()
        {
            selector = null;
            pool.Return(this);
        }
    }

    sealed class TakeSkipStream<T> : IOnityAsyncEnumerable<T>
    {
        readonly IOnityAsyncEnumerable<T> source;
        readonly int count;
        readonly bool take;
        internal TakeSkipStream(IOnityAsyncEnumerable<T> source, int count, bool take) { this.source = source; this.count = count; this.take = take; }

        public IOnityAsyncEnumerator<T> GetAsyncEnumerator(CancellationToken cancellationToken = default(CancellationToken))
        {
            return TakeSkipEnumerator<T>.Rent(source, count, take, cancellationToken);
        }
    }

    sealed class TakeSkipEnumerator<T> : OnityOperatorEnumerator<T, T>
    {
        static readonly OnityObjectPool<TakeSkipEnumerator<T>> pool = new OnityObjectPool<TakeSkipEnumerator<T>>(256);
        int left; // Take: elements still to give; Skip: elements still to skip
        bool take;

        internal static TakeSkipEnumerator<T> Rent(IOnityAsyncEnumerable<T> source, int count, bool take, CancellationToken ct)
        {
            var e = pool.TryRent() ?? new TakeSkipEnumerator<T>();
            e.left = count;
            e.take = take;
            e.BeginOver(source, ct);
            return e;
        }

        protected override bool BeforePull() { return !take || left > 0; }

        protected override bool OnItem(T item, out T result)
        {
            result = item;
            if (take)
            {
                left--;
                return true;
            }
            if (left == 0) return true;
            left--;
            return false;
        }

        protected override void ReturnToPool() { pool.Return(this); }
    }
}
