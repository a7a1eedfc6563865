using System;

namespace Onity.Linq
{
    // The stages of Where, Select and TakeWhile (issue 28). Per element an operator costs its
    // delegate's invoke and, unless fused with its neighbour, one virtual call (Push): the element
    // and the indexed forms are separate stages (no per-element branch between them), and the
    // common pairs are one stage with two delegates when a chain is opened: Where then Select,
    // Select then Where, Select then TakeWhile. The delegates run in the same order, with the same
    // outcomes (an exception of either faults the stream as before).

    /// <summary>Where(predicate) (a miss skips the element) or TakeWhile(predicate) (a miss ends
    /// the stream).</summary>
    sealed class FilterStage<T> : OnityStage<FilterStage<T>, T, T>
    {
        internal Func<T, bool> predicate;
        internal int miss;

        /// <summary>The stage of Where(predicate) before <paramref name="d"/>: fused with it when
        /// that is a Select's.</summary>
        internal static OnityStage<T> Where(OnityStage<T> d, Func<T, bool> predicate)
        {
            return d.FuseWhere(predicate) ?? Rent(d).With(predicate, Skip);
        }

        internal static OnityStage<T> TakeWhile(OnityStage<T> d, Func<T, bool> predicate)
        {
            return Rent(d).With(predicate, Stop);
        }

        FilterStage<T> With(Func<T, bool> p, int m)
        {
            predicate = p;
            miss = m;
            return this;
        }

        internal override int Push(T item)
        {
            return predicate(item) ? next.Push(item) : miss;
        }

        protected override void Clear() { predicate = null; }
    }

    sealed class WhereIndexedStage<T> : OnityStage<WhereIndexedStage<T>, T, T>
    {
        Func<T, int, bool> predicate;
        int index;

        internal WhereIndexedStage<T> With(Func<T, int, bool> p)
        {
            predicate = p;
            index = 0;
            return this;
        }

        internal override int Push(T item)
        {
            return predicate(item, checked(index++)) ? next.Push(item) : Skip;
        }

        protected override void Clear() { predicate = null; }
    }

    sealed class SelectStage<TSource, TResult> : OnityStage<SelectStage<TSource, TResult>, TSource, TResult>
    {
        Func<TSource, TResult> selector;

        /// <summary>The stage of Select(selector) before <paramref name="d"/>: fused with it when
        /// that is a Where's or a TakeWhile's (FilterStage, which goes back to its pool).</summary>
        internal static OnityStage<TSource> Create(OnityStage<TResult> d, Func<TSource, TResult> selector)
        {
            var f = d as FilterStage<TResult>;
            if (f != null) return SelectFilterStage<TSource, TResult>.Replace(f, f.next, selector, f.predicate, f.miss);
            return Rent(d).With(selector);
        }

        SelectStage<TSource, TResult> With(Func<TSource, TResult> s)
        {
            selector = s;
            return this;
        }

        internal override int Push(TSource item)
        {
            return next.Push(selector(item));
        }

        /// <summary>A Where before this Select: one stage (this one goes back to its pool).</summary>
        internal override OnityStage<TSource> FuseWhere(Func<TSource, bool> predicate)
        {
            var ws = WhereSelectStage<TSource, TResult>.Rent(next).With(predicate, selector);
            ReleaseOne();
            return ws;
        }

        protected override void Clear() { selector = null; }
    }

    sealed class SelectIndexedStage<TSource, TResult> : OnityStage<SelectIndexedStage<TSource, TResult>, TSource, TResult>
    {
        Func<TSource, int, TResult> selector;
        int index;

        internal SelectIndexedStage<TSource, TResult> With(Func<TSource, int, TResult> s)
        {
            selector = s;
            index = 0;
            return this;
        }

        internal override int Push(TSource item)
        {
            return next.Push(selector(item, checked(index++)));
        }

        protected override void Clear() { selector = null; }
    }

    /// <summary>Where(predicate).Select(selector).</summary>
    sealed class WhereSelectStage<TSource, TResult> : OnityStage<WhereSelectStage<TSource, TResult>, TSource, TResult>
    {
        Func<TSource, bool> predicate;
        Func<TSource, TResult> selector;

        internal WhereSelectStage<TSource, TResult> With(Func<TSource, bool> p, Func<TSource, TResult> s)
        {
            predicate = p;
            selector = s;
            return this;
        }

        internal override int Push(TSource item)
        {
            return predicate(item) ? next.Push(selector(item)) : Skip;
        }

        protected override void Clear()
        {
            predicate = null;
            selector = null;
        }
    }

    /// <summary>Select(selector).Where(predicate) (a miss skips the element) or
    /// Select(selector).TakeWhile(predicate) (a miss stops the stream).</summary>
    sealed class SelectFilterStage<TSource, TResult> : OnityStage<SelectFilterStage<TSource, TResult>, TSource, TResult>
    {
        Func<TSource, TResult> selector;
        Func<TResult, bool> predicate;
        int miss;

        /// <summary>Fuses the Select before <paramref name="filter"/> (pushing into
        /// <paramref name="after"/>) into one stage; the filter's goes back to its pool.</summary>
        internal static SelectFilterStage<TSource, TResult> Replace(OnityStage filter, OnityStage<TResult> after, Func<TSource, TResult> s, Func<TResult, bool> p, int miss)
        {
            var f = Rent(after);
            f.selector = s;
            f.predicate = p;
            f.miss = miss;
            filter.ReleaseOne();
            return f;
        }

        internal override int Push(TSource item)
        {
            var v = selector(item);
            return predicate(v) ? next.Push(v) : miss;
        }

        protected override void Clear()
        {
            selector = null;
            predicate = null;
        }
    }
}
