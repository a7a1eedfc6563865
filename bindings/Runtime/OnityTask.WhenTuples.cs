using System;
using System.Threading;

namespace Onity
{
    public partial struct OnityTask
    {
        /// <summary>UniTask's <c>WhenAny(UniTask&lt;T&gt;, UniTask)</c>: completes when either task
        /// has, with (true, the left's result) when the left one came first, (false, default) when
        /// the right one did; faults or cancels like the first input that failed. Pooled.</summary>
        public static OnityTask<ValueTuple<bool, T>> WhenAny<T>(OnityTask<T> leftTask, OnityTask rightTask)
        {
            return LeftRightAny<T>.Start(leftTask, rightTask);
        }
    }

    /// <summary>The common part of the tuple combinators (generated in OnityTask.WhenAll.Tuples.g.cs
    /// and OnityTask.WhenAny.Tuples.g.cs by scripts/gen_csharp_tuple_combinators.py): a pooled
    /// source completed by its inputs (any thread), recycled once every input finished and the
    /// result was consumed, so no late input touches a reused object.
    /// WhenAll: completes when every input has; faults or cancels like the first input (in
    /// completion order) that failed, as <see cref="OnityTask.WhenAll(OnityTask[])"/>.
    /// WhenAny: completes with the first input to finish (its index and result, the others'
    /// results default); faults or cancels when that input did.</summary>
    internal abstract class TuplePromise<TR> : IOnityTaskSource<TR>
    {
        OnityCompletionSourceCore<TR> core;
        int remaining;      // inputs not finished + 1 for the consumer
        int pendingInputs;  // WhenAll: inputs not finished
        int winner;         // WhenAny: the first input to finish, -1 before
        int consumed;
        bool any;
        Exception firstError;

        protected OnityTask<TR> Begin(int inputs, bool whenAny)
        {
            remaining = inputs + 1;
            pendingInputs = inputs;
            winner = -1;
            consumed = 0;
            any = whenAny;
            firstError = null;
            return new OnityTask<TR>(this, core.Version);
        }

        /// <summary>WhenAll: the tuple of every result (called once, after the last input).</summary>
        protected virtual TR AllResult() { throw new NotSupportedException(); }

        /// <summary>WhenAny: the tuple with <paramref name="index"/> and that input's result.</summary>
        protected virtual TR AnyResult(int index) { throw new NotSupportedException(); }

        /// <summary>Clears the results and awaiters, and returns to the subclass's pool.</summary>
        protected abstract void Recycle();

        /// <summary>Input <paramref name="index"/> finished (its result stored), with
        /// <paramref name="error"/> when it failed. Any thread.</summary>
        protected void InputDone(int index, Exception error)
        {
            if (any)
            {
                if (Interlocked.CompareExchange(ref winner, index, -1) == -1)
                {
                    if (error == null) core.TrySetResult(AnyResult(index));
                    else core.TrySetException(error);
                }
            }
            else
            {
                if (error != null) Interlocked.CompareExchange(ref firstError, error, null);
                if (Interlocked.Decrement(ref pendingInputs) == 0)
                {
                    var e = Volatile.Read(ref firstError);
                    if (e == null) core.TrySetResult(AllResult());
                    else core.TrySetException(e);
                }
            }
            Release();
        }

        void Release()
        {
            if (Interlocked.Decrement(ref remaining) != 0) return;
            firstError = null;
            core.Reset();
            Recycle();
        }

        public OnityTaskStatus GetStatus(long token)
        {
            if (Volatile.Read(ref consumed) != 0) throw OnityErrors.Stale();
            return core.GetStatus(token);
        }

        public void OnCompleted(Action continuation, long token)
        {
            if (Volatile.Read(ref consumed) != 0) throw OnityErrors.Stale();
            core.OnCompleted(continuation, token);
        }

        void IOnityTaskSource.GetResult(long token) { GetResult(token); }

        public TR GetResult(long token)
        {
            if (Volatile.Read(ref consumed) != 0) throw OnityErrors.Stale();
            core.ThrowIfNotCompleted(token); // stale or pending: nothing consumed
            if (Interlocked.Exchange(ref consumed, 1) != 0) throw OnityErrors.Stale();
            try { return core.GetResult(token); }
            finally { Release(); }
        }
    }

    /// <summary>WhenAny(OnityTask&lt;T&gt;, OnityTask).</summary>
    internal sealed class LeftRightAny<T> : TuplePromise<ValueTuple<bool, T>>
    {
        static readonly OnityObjectPool<LeftRightAny<T>> pool = new OnityObjectPool<LeftRightAny<T>>(64);
        readonly Action onLeft, onRight;
        OnityTask<T> left;
        OnityTask right;
        T leftResult;

        LeftRightAny()
        {
            onLeft = OnLeft;
            onRight = OnRight;
        }

        internal static OnityTask<ValueTuple<bool, T>> Start(OnityTask<T> leftTask, OnityTask rightTask)
        {
            var p = pool.TryRent() ?? new LeftRightAny<T>();
            var task = p.Begin(2, true);
            p.left = leftTask;
            p.right = rightTask;
            TupleInputs.Watch(leftTask, p.onLeft);
            TupleInputs.Watch(rightTask, p.onRight);
            return task;
        }

        void OnLeft()
        {
            Exception e = TupleInputs.Take(ref left, out leftResult);
            InputDone(0, e);
        }

        void OnRight()
        {
            Exception e = TupleInputs.Take(ref right);
            InputDone(1, e);
        }

        protected override ValueTuple<bool, T> AnyResult(int index)
        {
            return index == 0 ? new ValueTuple<bool, T>(true, leftResult) : new ValueTuple<bool, T>(false, default(T));
        }

        protected override void Recycle()
        {
            leftResult = default(T);
            pool.Return(this);
        }
    }

    /// <summary>How the tuple combinators watch and read their inputs.</summary>
    internal static class TupleInputs
    {
        /// <summary>Runs <paramref name="callback"/> when <paramref name="task"/> completes (at once,
        /// inline, when it already has).</summary>
        internal static void Watch<T>(OnityTask<T> task, Action callback)
        {
            var src = task.source;
            if (src == null) callback();
            else src.OnCompleted(callback, task.token);
        }

        internal static void Watch(OnityTask task, Action callback)
        {
            var src = task.source;
            var rt = src as OnityRuntime;
            if (src == null || (rt != null && rt.IsCompletedFast(task.token))) callback();
            else src.OnCompleted(callback, task.token);
        }

        /// <summary>Consumes the completed task (cleared): its result, or the exception it throws.</summary>
        internal static Exception Take<T>(ref OnityTask<T> task, out T result)
        {
            var t = task;
            task = default(OnityTask<T>);
            result = default(T);
            try { result = t.GetAwaiter().GetResult(); }
            catch (Exception ex) { return ex; }
            return null;
        }

        internal static Exception Take(ref OnityTask task)
        {
            var t = task;
            task = default(OnityTask);
            try { t.GetAwaiter().GetResult(); }
            catch (Exception ex) { return ex; }
            return null;
        }
    }
}
