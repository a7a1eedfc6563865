using System;
using System.Threading;

namespace Onity.Linq
{
    // Operator fusion (issue 28). The synchronous operators (Where, Select, Take, Skip, TakeWhile,
    // SkipWhile, Do, OfType, Cast, DistinctUntilChanged) do not each wrap their source in an
    // enumerator of their own: a chain of them over one source is enumerated by one
    // FusedEnumerator, whose pump pulls the source and pushes each item through the chain's
    // stages (one virtual call per stage; Where+Select, Select+Where and Select+TakeWhile are one
    // stage: Linq/OnityFusedStages.cs); an element costs one MoveNextAsync completion whatever the
    // chain's length. Stages are rented per enumeration and returned at disposal.
    // Observable behaviour is the unfused one: the same elements in the same order, the source
    // enumerated with the token, disposed once when the enumerator is disposed, a Take/TakeWhile
    // that is done ends the stream without pulling the source again, and an exception of a
    // delegate faults the stream.

    /// <summary>One operator of a fused chain, for one enumeration (rented from its pool).</summary>
    internal abstract class OnityStage
    {
        /// <summary>Push outcomes: nothing (pull again), an element, an element and then the end
        /// (Take's last), the end without an element (TakeWhile's false).</summary>
        internal const int Skip = 0, Pass = 1, PassLast = 2, Stop = 3;

        internal OnityStage nextStage;

        /// <summary>True when this stage ends the stream before any element (Take(0)).</summary>
        internal virtual bool EndsAtStart { get { return false; } }

        /// <summary>This stage and those after it go back to their pools (delegates cleared).</summary>
        internal void ReleaseChain()
        {
            var s = this;
            while (s != null)
            {
                var n = s.nextStage;
                s.nextStage = null;
                s.Release();
                s = n;
            }
        }

        /// <summary>This stage alone goes back to its pool (fused into a neighbour's stage).</summary>
        internal void ReleaseOne()
        {
            nextStage = null;
            Release();
        }

        protected abstract void Release();
    }

    internal abstract class OnityStage<TIn> : OnityStage
    {
        /// <summary>Takes an item: one of the push outcomes. An exception faults the stream.</summary>
        internal abstract int Push(TIn item);

        /// <summary>First stage only: the source ended (Do's onCompleted).</summary>
        internal virtual void OnSourceCompleted() { }

        /// <summary>First stage only: the source faulted; returns the exception the stream
        /// faults with (Do's onError, whose own exception replaces it).</summary>
        internal virtual Exception OnSourceError(Exception ex) { return ex; }

        /// <summary>A Where(predicate) before this stage as one stage with it (this one released),
        /// or null (<see cref="SelectStage{TSource, TResult}"/> fuses).</summary>
        internal virtual OnityStage<TIn> FuseWhere(Func<TIn, bool> predicate) { return null; }
    }

    /// <summary>A stage with a pool of its own type and a typed downstream stage.</summary>
    internal abstract class OnityStage<TSelf, TIn, TOut> : OnityStage<TIn> where TSelf : OnityStage<TSelf, TIn, TOut>, new()
    {
        static readonly OnityObjectPool<TSelf> pool = new OnityObjectPool<TSelf>(256);
        internal OnityStage<TOut> next;

        internal static TSelf Rent(OnityStage<TOut> downstream)
        {
            var s = pool.TryRent() ?? new TSelf();
            s.next = downstream;
            s.nextStage = downstream;
            return s;
        }

        protected override void Release()
        {
            next = null;
            Clear();
            pool.Return((TSelf)this);
        }

        /// <summary>Drops what the stage holds (delegates, the last value).</summary>
        protected abstract void Clear();
    }

    /// <summary>A fused chain's stream: the operator that ends it, over its source (a raw stream
    /// or another fused operator, whose stages then come first).</summary>
    internal abstract class OnityFused<TResult> : IOnityAsyncEnumerable<TResult>
    {
        /// <summary>Rents the chain's stages, the last one pushing into <paramref name="downstream"/>,
        /// and a pump over the chain's source. <paramref name="empty"/>: set when a stage ends the
        /// stream before any element (Take(0)).</summary>
        internal abstract OnityPump Open(OnityStage<TResult> downstream, ref bool empty, CancellationToken ct);

        public IOnityAsyncEnumerator<TResult> GetAsyncEnumerator(CancellationToken cancellationToken = default(CancellationToken))
        {
            return FusedEnumerator<TResult>.Rent(this, cancellationToken);
        }
    }

    /// <summary>A fused operator over <c>source</c>: its stage comes after the source's stages
    /// when that is a fused chain too, else it is the chain's first (always, for a Do with
    /// onError/onCompleted: those see the source's end, which only the first stage does).</summary>
    internal sealed class OnityFusedOp<TIn, TResult> : OnityFused<TResult>
    {
        readonly IOnityAsyncEnumerable<TIn> source;
        readonly OnityFused<TIn> upstream;
        readonly Func<OnityStage<TResult>, OnityStage<TIn>> createStage;

        /// <summary><paramref name="createStage"/>: rents this operator's stage for one
        /// enumeration, pushing into the given downstream stage.</summary>
        internal OnityFusedOp(IOnityAsyncEnumerable<TIn> source, Func<OnityStage<TResult>, OnityStage<TIn>> createStage, bool firstOnly = false)
        {
            if (source == null) throw new ArgumentNullException("source");
            this.source = source;
            this.createStage = createStage;
            upstream = firstOnly ? null : source as OnityFused<TIn>;
        }

        /// <summary>(If it throws, the stages are released once, by the innermost Open.)</summary>
        internal override OnityPump Open(OnityStage<TResult> downstream, ref bool empty, CancellationToken ct)
        {
            var stage = createStage(downstream);
            if (stage.EndsAtStart) empty = true;
            if (upstream != null) return upstream.Open(stage, ref empty, ct);
            try
            {
                var every = source as EveryUpdateStream;
                if (every != null) return EveryUpdatePump.Rent(every, (OnityStage<AsyncUnit>)(object)stage, ct);
                return OnityPump<TIn>.Rent(source.GetAsyncEnumerator(ct), stage);
            }
            catch
            {
                stage.ReleaseChain();
                throw;
            }
        }
    }

    /// <summary>What a pump reports to its enumerator (the end of the chain).</summary>
    internal interface IOnityPumpOwner
    {
        /// <summary>An element passed the chain (the sink holds it); last: the stream ends after it.</summary>
        void OnElement(bool last);
        void OnEnd();
        void OnFault(Exception ex);
    }

    /// <summary>The source side of a fused chain: pulls items and pushes them into the first
    /// stage until one passes the chain, the stream ends or faults, and reports that to the owner,
    /// synchronously or later. A run waiter so that a frame stream's pump can wait for a run
    /// itself (<see cref="EveryUpdatePump"/>).</summary>
    internal abstract class OnityPump : OnityRunWaiter
    {
        internal IOnityPumpOwner owner;

        internal abstract void Pull();

        /// <summary>Disposes the source; <paramref name="pending"/>: a Pull is still under way (its
        /// callback will come: the pump and its stages are then left to the collector).</summary>
        internal abstract OnityTask Dispose(bool pending);

        internal override void OnRun() { }
    }

    /// <summary>The pump over any source enumerator: one source MoveNextAsync per item, without
    /// recursion when the source completes synchronously, with one cached continuation when not.</summary>
    internal sealed class OnityPump<TSource> : OnityPump
    {
        static readonly OnityObjectPool<OnityPump<TSource>> pool = new OnityObjectPool<OnityPump<TSource>>(256);
        IOnityAsyncEnumerator<TSource> source;
        OnityStage<TSource> head;
        OnityTask<bool>.Awaiter awaiter;
        bool disposed;
        readonly Action onSource;

        OnityPump() { onSource = OnSource; }

        internal static OnityPump<TSource> Rent(IOnityAsyncEnumerator<TSource> source, OnityStage<TSource> head)
        {
            var p = pool.TryRent() ?? new OnityPump<TSource>();
            p.source = source;
            p.head = head;
            p.disposed = false;
            return p;
        }

        internal override void Pull()
        {
            while (true)
            {
                OnityTask<bool>.Awaiter aw;
                try
                {
                    aw = source.MoveNextAsync().GetAwaiter();
                    if (!aw.IsCompleted)
                    {
                        awaiter = aw;
                        aw.UnsafeOnCompleted(onSource);
                        return;
                    }
                }
                catch (Exception ex)
                {
                    SourceFault(ex);
                    return;
                }
                if (!Step(ref aw)) return;
            }
        }

        void OnSource()
        {
            var aw = awaiter;
            awaiter = default(OnityTask<bool>.Awaiter);
            if (Step(ref aw)) Pull();
        }

        void SourceFault(Exception ex)
        {
            Exception r;
            try { r = head.OnSourceError(ex); }
            catch (Exception ex2) { r = ex2; }
            owner.OnFault(r);
        }

        /// <summary>Takes the source's outcome; true when the item was skipped (pull again).</summary>
        bool Step(ref OnityTask<bool>.Awaiter aw)
        {
            bool more;
            try { more = aw.GetResult(); }
            catch (Exception ex)
            {
                if (disposed) owner.OnEnd();
                else SourceFault(ex);
                return false;
            }
            if (disposed)
            {
                owner.OnEnd();
                return false;
            }
            int r;
            try
            {
                if (!more)
                {
                    head.OnSourceCompleted();
                    owner.OnEnd();
                    return false;
                }
                r = head.Push(source.Current);
            }
            catch (Exception ex)
            {
                owner.OnFault(ex);
                return false;
            }
            return Report(owner, r);
        }

        /// <summary>Reports a push outcome; true for Skip (pull again).</summary>
        internal static bool Report(IOnityPumpOwner owner, int r)
        {
            if (r == OnityStage.Skip) return true;
            if (r == OnityStage.Stop) owner.OnEnd();
            else owner.OnElement(r == OnityStage.PassLast);
            return false;
        }

        internal override OnityTask Dispose(bool pending)
        {
            disposed = true;
            var s = source;
            source = null;
            OnityTask t = s != null ? s.DisposeAsync() : OnityTask.CompletedTask;
            if (!pending)
            {
                head.ReleaseChain();
                head = null;
                owner = null;
                pool.Return(this);
            }
            return t;
        }
    }

    /// <summary>The enumerator of a fused chain: its MoveNextAsync task is completed by the pump
    /// with the element the chain's last stage (the sink) received.</summary>
    internal sealed class FusedEnumerator<TResult> : OnityAsyncEnumeratorBase<TResult>, IOnityPumpOwner
    {
        static readonly OnityObjectPool<FusedEnumerator<TResult>> pool = new OnityObjectPool<FusedEnumerator<TResult>>(256);
        readonly Sink sink;
        OnityPump pump;
        bool ended; // the chain ended (Take's last element given, or Take(0)): false without pulling

        FusedEnumerator() { sink = new Sink(this); }

        sealed class Sink : OnityStage<TResult>
        {
            readonly FusedEnumerator<TResult> owner;
            internal Sink(FusedEnumerator<TResult> owner) { this.owner = owner; }
            internal override int Push(TResult item)
            {
                owner.current = item;
                return Pass;
            }
            protected override void Release() { } // part of its enumerator
        }

        internal static FusedEnumerator<TResult> Rent(OnityFused<TResult> chain, CancellationToken ct)
        {
            var e = pool.TryRent() ?? new FusedEnumerator<TResult>();
            bool empty = false;
            try { e.pump = chain.Open(e.sink, ref empty, ct); }
            catch
            {
                pool.Return(e);
                throw;
            }
            e.pump.owner = e;
            e.ended = empty;
            e.Begin(ct);
            return e;
        }

        protected override void MoveNextCore()
        {
            if (ended) Finish();
            else pump.Pull();
        }

        void IOnityPumpOwner.OnElement(bool last)
        {
            if (last) ended = true;
            Yield(current);
        }

        void IOnityPumpOwner.OnEnd() { Finish(); }
        void IOnityPumpOwner.OnFault(Exception ex) { Fail(ex); }

        protected override OnityTask OnDispose()
        {
            var p = pump;
            pump = null;
            return p != null ? p.Dispose(IsPendingAtDispose) : OnityTask.CompletedTask;
        }

        protected override void ReturnToPool() { pool.Return(this); }
    }
}
