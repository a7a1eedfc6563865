using System;
using System.Collections.Generic;
using System.Threading;

namespace Onity.Linq
{
    // The asynchronous operator forms (WhereAwait, SelectAwait, TakeWhileAwait, SkipWhileAwait,
    // DistinctUntilChangedAwait and their WithCancellation / indexed overloads, generated in
    // OnityAsyncEnumerable.Generated.cs): an enumerator of their own (they are not fused: their
    // step may suspend), which awaits the delegate's task only when it is not completed yet: a
    // delegate that completes synchronously costs no suspension.

    /// <summary>A user delegate in one shape: (element, index, token) -> task.</summary>
    internal delegate OnityTask<TAwait> OnityAwaitStep<TSource, TAwait>(TSource item, int index, CancellationToken ct);

    internal sealed class OnityAwaitStream<TSource, TAwait, TResult> : IOnityAsyncEnumerable<TResult>
    {
        readonly IOnityAsyncEnumerable<TSource> source;
        readonly OnityAwaitStep<TSource, TAwait> step;
        readonly Func<OnityAwaitEnumerator<TSource, TAwait, TResult>> rent;
        internal readonly object state; // the operator's own argument (DistinctUntilChanged's comparer)

        internal OnityAwaitStream(IOnityAsyncEnumerable<TSource> source, OnityAwaitStep<TSource, TAwait> step, Func<OnityAwaitEnumerator<TSource, TAwait, TResult>> rent, object state = null)
        {
            this.source = source;
            this.step = step;
            this.rent = rent;
            this.state = state;
        }

        public IOnityAsyncEnumerator<TResult> GetAsyncEnumerator(CancellationToken cancellationToken = default(CancellationToken))
        {
            var e = rent();
            e.Start(source, step, state, cancellationToken);
            return e;
        }
    }

    internal abstract class OnityAwaitEnumerator<TSource, TAwait, TResult> : OnityAsyncEnumeratorBase<TResult>
    {
        IOnityAsyncEnumerator<TSource> source;
        OnityAwaitStep<TSource, TAwait> step;
        int index;
        bool ended;
        TSource item;
        OnityTask<bool>.Awaiter sourceAwaiter;
        OnityTask<TAwait>.Awaiter stepAwaiter;
        readonly Action onSource, onStep;

        protected OnityAwaitEnumerator()
        {
            onSource = OnSource;
            onStep = OnStep;
        }

        internal void Start(IOnityAsyncEnumerable<TSource> s, OnityAwaitStep<TSource, TAwait> st, object state, CancellationToken ct)
        {
            step = st;
            index = 0;
            ended = false;
            Reset(state);
            source = s.GetAsyncEnumerator(ct);
            Begin(ct);
        }

        /// <summary>Per enumeration: the operator's state from its argument.</summary>
        protected virtual void Reset(object state) { }

        /// <summary>True: the item passes without a step (SkipWhile once its predicate was false).</summary>
        protected virtual bool PassesWithoutStep { get { return false; } }

        /// <summary>The step's result for the item: Skip, Pass (with <see cref="OnityAsyncEnumeratorBase{T}.current"/>
        /// set through <paramref name="result"/>) or Stop.</summary>
        protected abstract int Decide(TSource item, TAwait awaited, out TResult result);

        /// <summary>The item as an element (the operators that pass items through: TResult is TSource).</summary>
        protected abstract TResult AsResult(TSource item);

        protected override void MoveNextCore()
        {
            if (ended) Finish();
            else Pull();
        }

        void Pull()
        {
            while (true)
            {
                OnityTask<bool>.Awaiter aw;
                try
                {
                    aw = source.MoveNextAsync().GetAwaiter();
                    if (!aw.IsCompleted)
                    {
                        sourceAwaiter = aw;
                        aw.UnsafeOnCompleted(onSource);
                        return;
                    }
                }
                catch (Exception ex)
                {
                    Fail(ex);
                    return;
                }
                if (!OnSourceResult(ref aw)) return;
            }
        }

        void OnSource()
        {
            var aw = sourceAwaiter;
            sourceAwaiter = default(OnityTask<bool>.Awaiter);
            if (OnSourceResult(ref aw)) Pull();
        }

        /// <summary>True: pull again.</summary>
        bool OnSourceResult(ref OnityTask<bool>.Awaiter aw)
        {
            OnityTask<TAwait>.Awaiter sa;
            TSource x;
            try
            {
                if (!aw.GetResult() || IsDisposed)
                {
                    Finish();
                    return false;
                }
                x = source.Current;
                if (PassesWithoutStep)
                {
                    Yield(AsResult(x));
                    return false;
                }
                sa = step(x, checked(index++), cancellationToken).GetAwaiter();
                if (!sa.IsCompleted)
                {
                    item = x;
                    stepAwaiter = sa;
                    sa.UnsafeOnCompleted(onStep);
                    return false;
                }
            }
            catch (Exception ex)
            {
                Fail(ex);
                return false;
            }
            return OnStepResult(x, ref sa);
        }

        void OnStep()
        {
            var sa = stepAwaiter;
            var x = item;
            stepAwaiter = default(OnityTask<TAwait>.Awaiter);
            item = default(TSource);
            if (IsDisposed)
            {
                Finish();
                return;
            }
            if (OnStepResult(x, ref sa)) Pull();
        }

        bool OnStepResult(TSource x, ref OnityTask<TAwait>.Awaiter sa)
        {
            int r;
            TResult v;
            try { r = Decide(x, sa.GetResult(), out v); }
            catch (Exception ex)
            {
                Fail(ex);
                return false;
            }
            if (r == OnityStage.Skip) return true;
            if (r == OnityStage.Stop)
            {
                ended = true;
                Finish();
                return false;
            }
            Yield(v);
            return false;
        }

        protected override OnityTask OnDispose()
        {
            var s = source;
            source = null;
            return s != null ? s.DisposeAsync() : OnityTask.CompletedTask;
        }

        protected override void ReturnToPool()
        {
            step = null;
            item = default(TSource);
            Release();
        }

        /// <summary>Clears the operator's state and returns to the subclass's pool.</summary>
        protected abstract void Release();
    }

    /// <summary>WhereAwait (kind 0), TakeWhileAwait (1), SkipWhileAwait (2).</summary>
    internal sealed class OnityAwaitFilter<T> : OnityAwaitEnumerator<T, bool, T>
    {
        static readonly OnityObjectPool<OnityAwaitFilter<T>> pool = new OnityObjectPool<OnityAwaitFilter<T>>(256);
        internal static readonly Func<OnityAwaitEnumerator<T, bool, T>> RentWhere = () => Rent(0);
        internal static readonly Func<OnityAwaitEnumerator<T, bool, T>> RentTakeWhile = () => Rent(1);
        internal static readonly Func<OnityAwaitEnumerator<T, bool, T>> RentSkipWhile = () => Rent(2);
        int kind;
        bool passing; // SkipWhile: the predicate was false once

        static OnityAwaitFilter<T> Rent(int kind)
        {
            var e = pool.TryRent() ?? new OnityAwaitFilter<T>();
            e.kind = kind;
            e.passing = false;
            return e;
        }

        protected override bool PassesWithoutStep { get { return passing; } }

        protected override int Decide(T item, bool ok, out T result)
        {
            result = item;
            if (kind == 0) return ok ? OnityStage.Pass : OnityStage.Skip;
            if (kind == 1) return ok ? OnityStage.Pass : OnityStage.Stop;
            if (ok) return OnityStage.Skip;
            passing = true;
            return OnityStage.Pass;
        }

        protected override T AsResult(T item) { return item; }
        protected override void Release() { pool.Return(this); }
    }

    internal sealed class OnityAwaitSelect<TSource, TResult> : OnityAwaitEnumerator<TSource, TResult, TResult>
    {
        static readonly OnityObjectPool<OnityAwaitSelect<TSource, TResult>> pool = new OnityObjectPool<OnityAwaitSelect<TSource, TResult>>(256);
        internal static readonly Func<OnityAwaitEnumerator<TSource, TResult, TResult>> RentSelect = () => pool.TryRent() ?? new OnityAwaitSelect<TSource, TResult>();

        protected override int Decide(TSource item, TResult awaited, out TResult result)
        {
            result = awaited;
            return OnityStage.Pass;
        }

        protected override TResult AsResult(TSource item) { throw new InvalidOperationException(); } // (never: no pass-through)
        protected override void Release() { pool.Return(this); }
    }

    /// <summary>DistinctUntilChangedAwait: the awaited key compared with the previous element's.</summary>
    internal sealed class OnityAwaitDistinct<T, TKey> : OnityAwaitEnumerator<T, TKey, T>
    {
        static readonly OnityObjectPool<OnityAwaitDistinct<T, TKey>> pool = new OnityObjectPool<OnityAwaitDistinct<T, TKey>>(256);
        internal static readonly Func<OnityAwaitEnumerator<T, TKey, T>> RentDistinct = () => pool.TryRent() ?? new OnityAwaitDistinct<T, TKey>();
        IEqualityComparer<TKey> comparer;
        TKey last;
        bool any;

        protected override void Reset(object state)
        {
            comparer = (IEqualityComparer<TKey>)state;
            any = false;
        }

        protected override int Decide(T item, TKey key, out T result)
        {
            result = item;
            if (any && comparer.Equals(last, key)) return OnityStage.Skip;
            any = true;
            last = key;
            return OnityStage.Pass;
        }

        protected override T AsResult(T item) { return item; }

        protected override void Release()
        {
            comparer = null;
            last = default(TKey);
            pool.Return(this);
        }
    }
}
