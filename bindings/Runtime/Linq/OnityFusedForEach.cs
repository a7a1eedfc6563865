using System;
using System.Threading;

namespace Onity.Linq
{
    /// <summary>ForEachAsync: no awaiting state machine; the action is the last stage of the
    /// source's chain (of a pump over a source that is not fused), so the pump runs it for each
    /// element and goes on pulling (over EveryUpdate: waits for the next run) by itself. Observable as
    /// the enumerating form: the action in order, the source disposed before the task completes,
    /// the task faulted by the source's or the action's exception, canceled by the token (checked
    /// before the first element and after each action, as each MoveNextAsync would).</summary>
    internal sealed class FusedForEach<T> : OnityStage<T>, IOnityPumpOwner
    {
        static readonly OnityObjectPool<FusedForEach<T>> pool = new OnityObjectPool<FusedForEach<T>>(256);
        Action<T> action;
        Action<T, int> indexed;
        int index;
        CancellationToken cancellationToken;
        bool cancelable;
        OnityPump pump;
        AutoResetOnityCompletionSource done;

        /// <summary>Over a fused chain its stages, over EveryUpdate its run waiter, over any other
        /// source a pump pulling its enumerator.</summary>
        internal static OnityTask Start(IOnityAsyncEnumerable<T> source, Action<T> action, Action<T, int> indexed, CancellationToken ct)
        {
            var f = pool.TryRent() ?? new FusedForEach<T>();
            f.action = action;
            f.indexed = indexed;
            f.index = 0;
            f.cancellationToken = ct;
            f.cancelable = ct.CanBeCanceled;
            bool empty = false;
            var fused = source as OnityFused<T>;
            // As the enumerating form (an async method): a source that cannot be enumerated
            // faults the task.
            if (fused != null)
            {
                try { f.pump = fused.Open(f, ref empty, ct); }
                catch (Exception ex) { return OnityTask.FromException(ex); } // (its stages, this one too, released)
            }
            else
            {
                try
                {
                    var every = source as EveryUpdateStream;
                    f.pump = every != null ? (OnityPump)EveryUpdatePump.Rent(every, (OnityStage<AsyncUnit>)(object)f, ct)
                        : OnityPump<T>.Rent(source.GetAsyncEnumerator(ct), f);
                }
                catch (Exception ex)
                {
                    f.Clear();
                    return OnityTask.FromException(ex);
                }
            }
            f.pump.owner = f;
            var d = f.done = AutoResetOnityCompletionSource.Create();
            var task = d.Task;
            if (f.cancelable && ct.IsCancellationRequested) ((IOnityPumpOwner)f).OnFault(new OperationCanceledException(ct));
            else if (empty) ((IOnityPumpOwner)f).OnEnd();
            else f.pump.Pull();
            return task;
        }

        internal override int Push(T item)
        {
            var a = action;
            if (a != null) a(item);
            else indexed(item, checked(index++));
            if (cancelable && cancellationToken.IsCancellationRequested) throw new OperationCanceledException(cancellationToken);
            return Skip; // taken: the pump pulls the next one
        }

        void IOnityPumpOwner.OnElement(bool last) { ((IOnityPumpOwner)this).OnEnd(); } // (never: Push gives Skip)
        void IOnityPumpOwner.OnEnd() { Finish(null); }
        void IOnityPumpOwner.OnFault(Exception ex) { Finish(ex); }

        void Finish(Exception ex)
        {
            var p = pump;
            var d = done;
            pump = null;
            OnityTask disposal;
            try { disposal = p.Dispose(false); } // this stage is released with the chain
            catch (Exception dex) { disposal = OnityTask.FromException(dex); }
            if (disposal.Status == OnityTaskStatus.Pending) CompleteLater(d, ex, disposal);
            else Complete(d, ex, disposal);
        }

        // (Its own method: mcs allocates a lambda's captured variables at the entry of the method
        // that holds it, whichever path runs.)
        static void CompleteLater(AutoResetOnityCompletionSource d, Exception ex, OnityTask disposal)
        {
            disposal.GetAwaiter().UnsafeOnCompleted(() => Complete(d, ex, disposal));
        }

        static void Complete(AutoResetOnityCompletionSource d, Exception ex, OnityTask disposal)
        {
            // As a finally: the disposal's exception replaces the enumeration's.
            try { disposal.GetAwaiter().GetResult(); }
            catch (Exception dex) { ex = dex; }
            if (ex == null) d.TrySetResult();
            else d.TrySetException(ex);
        }

        protected override void Release() { Clear(); }

        void Clear()
        {
            action = null;
            indexed = null;
            cancellationToken = default(CancellationToken);
            done = null;
            pool.Return(this);
        }
    }
}
