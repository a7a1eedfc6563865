using System;
using System.Collections.Generic;
using System.Threading;
using Onity.Linq;

namespace Onity
{
    public static partial class OnityAsyncEnumerable
    {
        // Synchronous operators: each call allocates its small stream object (as System.Linq and
        // UniTask do); a chain of them is fused (Linq/OnityFusion.cs): one enumerator per
        // enumeration, rented with its stages from pools, and one MoveNextAsync completion per
        // element whatever the chain's length; each element allocates nothing.

        static void Check(object source, object arg, string argName)
        {
            if (source == null) throw new ArgumentNullException("source");
            if (arg == null) throw new ArgumentNullException(argName);
        }

        /// <summary>The null checks of a two-source operator (first, second, then its argument).</summary>
        static void CheckPair(object first, object second, object arg, string argName)
        {
            if (first == null) throw new ArgumentNullException("first");
            if (second == null) throw new ArgumentNullException("second");
            if (arg == null) throw new ArgumentNullException(argName);
        }

        /// <summary>The elements for which <paramref name="predicate"/> is true.</summary>
        public static IOnityAsyncEnumerable<T> Where<T>(this IOnityAsyncEnumerable<T> source, Func<T, bool> predicate)
        {
            Check(source, predicate, "predicate");
            return new OnityFusedOp<T, T>(source, d => FilterStage<T>.Where(d, predicate));
        }

        /// <summary>The elements for which <paramref name="predicate"/> (element, index in the
        /// source) is true.</summary>
        public static IOnityAsyncEnumerable<T> Where<T>(this IOnityAsyncEnumerable<T> source, Func<T, int, bool> predicate)
        {
            Check(source, predicate, "predicate");
            return new OnityFusedOp<T, T>(source, d => WhereIndexedStage<T>.Rent(d).With(predicate));
        }

        /// <summary>Each element mapped by <paramref name="selector"/>.</summary>
        public static IOnityAsyncEnumerable<TResult> Select<TSource, TResult>(this IOnityAsyncEnumerable<TSource> source, Func<TSource, TResult> selector)
        {
            Check(source, selector, "selector");
            return new OnityFusedOp<TSource, TResult>(source, d => SelectStage<TSource, TResult>.Create(d, selector));
        }

        /// <summary>Each element mapped by <paramref name="selector"/> (element, index).</summary>
        public static IOnityAsyncEnumerable<TResult> Select<TSource, TResult>(this IOnityAsyncEnumerable<TSource> source, Func<TSource, int, TResult> selector)
        {
            Check(source, selector, "selector");
            return new OnityFusedOp<TSource, TResult>(source, d => SelectIndexedStage<TSource, TResult>.Rent(d).With(selector));
        }

        /// <summary>The first <paramref name="count"/> elements (none when count &lt;= 0). Once they
        /// are given, MoveNextAsync returns false without waiting for the source.</summary>
        public static IOnityAsyncEnumerable<T> Take<T>(this IOnityAsyncEnumerable<T> source, int count)
        {
            if (source == null) throw new ArgumentNullException("source");
            int n = Math.Max(count, 0);
            return new OnityFusedOp<T, T>(source, d => TakeStage<T>.Rent(d).With(n));
        }

        /// <summary>The elements after the first <paramref name="count"/>.</summary>
        public static IOnityAsyncEnumerable<T> Skip<T>(this IOnityAsyncEnumerable<T> source, int count)
        {
            if (source == null) throw new ArgumentNullException("source");
            int n = Math.Max(count, 0);
            return new OnityFusedOp<T, T>(source, d => SkipStage<T>.Rent(d).With(n));
        }

        /// <summary>The elements while <paramref name="predicate"/> is true; the stream ends at the
        /// first element for which it is false (without pulling the source again).</summary>
        public static IOnityAsyncEnumerable<T> TakeWhile<T>(this IOnityAsyncEnumerable<T> source, Func<T, bool> predicate)
        {
            Check(source, predicate, "predicate");
            return new OnityFusedOp<T, T>(source, d => FilterStage<T>.TakeWhile(d, predicate));
        }

        /// <summary>TakeWhile with the element's index.</summary>
        public static IOnityAsyncEnumerable<T> TakeWhile<T>(this IOnityAsyncEnumerable<T> source, Func<T, int, bool> predicate)
        {
            Check(source, predicate, "predicate");
            return new OnityFusedOp<T, T>(source, d => WhileStage<T>.Rent(d).With(true, null, predicate));
        }

        /// <summary>The elements from the first one for which <paramref name="predicate"/> is false on.</summary>
        public static IOnityAsyncEnumerable<T> SkipWhile<T>(this IOnityAsyncEnumerable<T> source, Func<T, bool> predicate)
        {
            Check(source, predicate, "predicate");
            return new OnityFusedOp<T, T>(source, d => WhileStage<T>.Rent(d).With(false, predicate, null));
        }

        /// <summary>SkipWhile with the element's index.</summary>
        public static IOnityAsyncEnumerable<T> SkipWhile<T>(this IOnityAsyncEnumerable<T> source, Func<T, int, bool> predicate)
        {
            Check(source, predicate, "predicate");
            return new OnityFusedOp<T, T>(source, d => WhileStage<T>.Rent(d).With(false, null, predicate));
        }

        /// <summary>The same elements, <paramref name="onNext"/> called with each before it is given
        /// (an exception of it faults the stream).</summary>
        public static IOnityAsyncEnumerable<T> Do<T>(this IOnityAsyncEnumerable<T> source, Action<T> onNext)
        {
            Check(source, onNext, "onNext");
            return new OnityFusedOp<T, T>(source, d => DoStage<T>.Rent(d).With(onNext, null, null));
        }

        /// <summary>Do, with <paramref name="onError"/> called with the source's exception or
        /// onNext's before the stream faults with it (an exception of onError replaces it).</summary>
        public static IOnityAsyncEnumerable<T> Do<T>(this IOnityAsyncEnumerable<T> source, Action<T> onNext, Action<Exception> onError)
        {
            return Do(source, onNext, onError, null);
        }

        /// <summary>Do, with <paramref name="onCompleted"/> called when the source ends.</summary>
        public static IOnityAsyncEnumerable<T> Do<T>(this IOnityAsyncEnumerable<T> source, Action<T> onNext, Action onCompleted)
        {
            return Do(source, onNext, null, onCompleted);
        }

        /// <summary>Do with onNext, onError and onCompleted (each may be null).</summary>
        public static IOnityAsyncEnumerable<T> Do<T>(this IOnityAsyncEnumerable<T> source, Action<T> onNext, Action<Exception> onError, Action onCompleted)
        {
            if (source == null) throw new ArgumentNullException("source");
            // onError/onCompleted see the source's end: the stage is the first of its chain.
            bool first = onError != null || onCompleted != null;
            return new OnityFusedOp<T, T>(source, d => DoStage<T>.Rent(d).With(onNext, onError, onCompleted), first);
        }

        /// <summary>Do with an observer's OnNext, OnError and OnCompleted.</summary>
        public static IOnityAsyncEnumerable<T> Do<T>(this IOnityAsyncEnumerable<T> source, IObserver<T> observer)
        {
            Check(source, observer, "observer");
            return Do(source, observer.OnNext, observer.OnError, observer.OnCompleted);
        }

        /// <summary>The elements that are <typeparamref name="TResult"/> (null ones are left out).</summary>
        public static IOnityAsyncEnumerable<TResult> OfType<TResult>(this IOnityAsyncEnumerable<object> source)
        {
            if (source == null) throw new ArgumentNullException("source");
            return new OnityFusedOp<object, TResult>(source, d => CastStage<TResult>.Rent(d).With(false));
        }

        /// <summary>Each element cast to <typeparamref name="TResult"/>; an element that is not one
        /// faults the stream with <see cref="InvalidCastException"/>.</summary>
        public static IOnityAsyncEnumerable<TResult> Cast<TResult>(this IOnityAsyncEnumerable<object> source)
        {
            if (source == null) throw new ArgumentNullException("source");
            return new OnityFusedOp<object, TResult>(source, d => CastStage<TResult>.Rent(d).With(true));
        }

        /// <summary>The elements that differ from the one before them (EqualityComparer.Default).</summary>
        public static IOnityAsyncEnumerable<T> DistinctUntilChanged<T>(this IOnityAsyncEnumerable<T> source)
        {
            return DistinctUntilChanged(source, EqualityComparer<T>.Default);
        }

        /// <summary>The elements that differ from the one before them by <paramref name="comparer"/>.</summary>
        public static IOnityAsyncEnumerable<T> DistinctUntilChanged<T>(this IOnityAsyncEnumerable<T> source, IEqualityComparer<T> comparer)
        {
            Check(source, comparer, "comparer");
            return new OnityFusedOp<T, T>(source, d => DistinctStage<T>.Rent(d).With(comparer));
        }

        /// <summary>The elements whose key differs from the previous element's key.</summary>
        public static IOnityAsyncEnumerable<T> DistinctUntilChanged<T, TKey>(this IOnityAsyncEnumerable<T> source, Func<T, TKey> keySelector)
        {
            return DistinctUntilChanged(source, keySelector, EqualityComparer<TKey>.Default);
        }

        /// <summary>The elements whose key differs from the previous element's key by <paramref name="comparer"/>.</summary>
        public static IOnityAsyncEnumerable<T> DistinctUntilChanged<T, TKey>(this IOnityAsyncEnumerable<T> source, Func<T, TKey> keySelector, IEqualityComparer<TKey> comparer)
        {
            Check(source, keySelector, "keySelector");
            if (comparer == null) throw new ArgumentNullException("comparer");
            return new OnityFusedOp<T, T>(source, d => DistinctStage<T, TKey>.Rent(d).With(keySelector, comparer));
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
    // The stages of the synchronous operators (one per operator and enumeration, pooled).

    sealed class TakeStage<T> : OnityStage<TakeStage<T>, T, T>
    {
        int left;

        internal TakeStage<T> With(int count)
        {
            left = count;
            return this;
        }

        internal override bool EndsAtStart { get { return left == 0; } }

        internal override int Push(T item)
        {
            int r = next.Push(item);
            if (--left > 0) return r;
            // The last element taken: the stream ends after it (or now, if a later stage dropped it).
            return r == Pass ? PassLast : r == Skip ? Stop : r;
        }

        protected override void Clear() { }
    }

    sealed class SkipStage<T> : OnityStage<SkipStage<T>, T, T>
    {
        int left;

        internal SkipStage<T> With(int count)
        {
            left = count;
            return this;
        }

        internal override int Push(T item)
        {
            if (left == 0) return next.Push(item);
            left--;
            return Skip;
        }

        protected override void Clear() { }
    }

    /// <summary>TakeWhile (take) and SkipWhile.</summary>
    sealed class WhileStage<T> : OnityStage<WhileStage<T>, T, T>
    {
        bool take, done; // done: SkipWhile's predicate was false once (everything passes)
        Func<T, bool> predicate;
        Func<T, int, bool> indexed;
        int index;

        internal WhileStage<T> With(bool take, Func<T, bool> p, Func<T, int, bool> pi)
        {
            this.take = take;
            done = false;
            predicate = p;
            indexed = pi;
            index = 0;
            return this;
        }

        internal override int Push(T item)
        {
            if (done) return next.Push(item);
            var p = predicate;
            bool ok = p != null ? p(item) : indexed(item, checked(index++));
            if (take) return ok ? next.Push(item) : Stop;
            if (ok) return Skip;
            done = true;
            return next.Push(item);
        }

        protected override void Clear()
        {
            predicate = null;
            indexed = null;
        }
    }

    sealed class DoStage<T> : OnityStage<DoStage<T>, T, T>
    {
        Action<T> onNext;
        Action<Exception> onError;
        Action onCompleted;

        internal DoStage<T> With(Action<T> n, Action<Exception> e, Action c)
        {
            onNext = n;
            onError = e;
            onCompleted = c;
            return this;
        }

        internal override int Push(T item)
        {
            var n = onNext;
            if (n != null)
            {
                if (onError == null) n(item);
                else
                {
                    try { n(item); }
                    catch (Exception ex) { throw OnSourceError(ex); }
                }
            }
            return next.Push(item);
        }

        internal override void OnSourceCompleted()
        {
            var c = onCompleted;
            if (c != null) c();
        }

        internal override Exception OnSourceError(Exception ex)
        {
            var e = onError;
            if (e == null) return ex;
            try { e(ex); }
            catch (Exception ex2) { return ex2; }
            return ex;
        }

        protected override void Clear()
        {
            onNext = null;
            onError = null;
            onCompleted = null;
        }
    }

    /// <summary>Cast (cast: an element of another type throws) and OfType (skips it).</summary>
    sealed class CastStage<TResult> : OnityStage<CastStage<TResult>, object, TResult>
    {
        bool cast;

        internal CastStage<TResult> With(bool cast)
        {
            this.cast = cast;
            return this;
        }

        internal override int Push(object item)
        {
            if (item is TResult) return next.Push((TResult)item);
            if (cast) return next.Push((TResult)item); // null to a reference type, or InvalidCastException
            return Skip;
        }

        protected override void Clear() { }
    }

    /// <summary>DistinctUntilChanged's memory: the last key, and whether there is one.</summary>
    struct LastKey<TKey>
    {
        IEqualityComparer<TKey> comparer;
        TKey last;
        bool any;

        internal void Start(IEqualityComparer<TKey> c)
        {
            comparer = c;
            any = false;
        }

        /// <summary>False when <paramref name="key"/> equals the last key; else remembers it.</summary>
        internal bool Changed(TKey key)
        {
            if (any && comparer.Equals(last, key)) return false;
            any = true;
            last = key;
            return true;
        }

        internal void Clear()
        {
            comparer = null;
            last = default(TKey);
        }
    }

    sealed class DistinctStage<T> : OnityStage<DistinctStage<T>, T, T>
    {
        LastKey<T> last;

        internal DistinctStage<T> With(IEqualityComparer<T> c)
        {
            last.Start(c);
            return this;
        }

        internal override int Push(T item) { return last.Changed(item) ? next.Push(item) : Skip; }

        protected override void Clear() { last.Clear(); }
    }

    sealed class DistinctStage<T, TKey> : OnityStage<DistinctStage<T, TKey>, T, T>
    {
        Func<T, TKey> keySelector;
        LastKey<TKey> last;

        internal DistinctStage<T, TKey> With(Func<T, TKey> k, IEqualityComparer<TKey> c)
        {
            keySelector = k;
            last.Start(c);
            return this;
        }

        internal override int Push(T item) { return last.Changed(keySelector(item)) ? next.Push(item) : Skip; }

        protected override void Clear()
        {
            keySelector = null;
            last.Clear();
        }
    }
}
