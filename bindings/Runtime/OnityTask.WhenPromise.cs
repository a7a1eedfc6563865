using System;
using System.Runtime.CompilerServices;
using System.Threading;

namespace Onity
{
    internal static class CombinatorBuckets
    {
        internal static int Bucket(int n) { return n <= 16 ? 16 : n <= 32 ? 32 : n; }
    }

    /// <summary>What differs between the four combinators (a struct, so that each
    /// <see cref="WhenPromise{TTask, TResult, TOps}"/> instantiation calls it directly, inlined).
    /// Without a JIT, Mono runs a coordinator over <c>OnityTask&lt;T&gt;</c> as code shared over
    /// value types (gsharedvt), which makes a constrained call only with scalar, reference or
    /// byref parameters after the first: a <typeparamref name="TResult"/> is passed by
    /// <c>ref</c> (docs/full-aot.md).</summary>
    internal interface IWhenOps<TTask, TResult>
    {
        /// <summary>True: WhenAny (the first input to finish completes the task); false: WhenAll.</summary>
        bool Any { get; }
        /// <summary>The input's source and token (a null source: completed, with its result in the task).</summary>
        IOnityTaskSource Source(TTask task, out long token);
        /// <summary>Ends the use of finished input <paramref name="index"/> (throws its failure) and
        /// returns the task's result should this input complete it (<paramref name="shared"/>: the
        /// coordinator's result so far, WhenAll's array; by ref, see above). The input is read by its source and
        /// token, not as a task: the coordinator copies no struct that holds a reference per input
        /// (each such copy costs Mono a write barrier).</summary>
        TResult Read(IOnityTaskSource source, long token, int index, ref TResult shared);
        /// <summary>The same for an input that has no source (completed successfully).</summary>
        TResult ReadCompleted(TTask task, int index, ref TResult shared);
        /// <summary>A source faulted with <paramref name="ex"/> itself (an input that could not be
        /// awaited: the coordinator reads it as it reads a finished input).</summary>
        IOnityTaskSource Faulted(Exception ex);
    }

    /// <summary>The one coordinator of WhenAny and WhenAll, typed and untyped: it awaits every
    /// input, completes its own task once, carries the token's cancellation, and is recycled when
    /// every input has finished and the consumer has read the outcome. WhenAny completes like the
    /// first input to finish; WhenAll when the last input has, faulted or canceled like the first
    /// input that failed (in completion order). <typeparamref name="TOps"/> reads an input and says
    /// what the task's result is. Coordinators for up to 16 and 32 inputs are pooled per
    /// instantiation (not WhenAll over typed tasks: its result array is the caller's).</summary>
    internal sealed class WhenPromise<TTask, TResult, TOps> : IOnityTaskSource<TResult>, IOnitySiteSource
        where TOps : struct, IWhenOps<TTask, TResult>
    {
        bool IOnitySiteSource.IsCurrent(long token) { return !consumed && (uint)token == core.Version; }
        OnityTaskStatus IOnitySiteSource.UnsafeGetStatus() { return core.UnsafeGetStatus(); }

        internal static readonly OnityObjectPool<WhenPromise<TTask, TResult, TOps>> Pool16 = new OnityObjectPool<WhenPromise<TTask, TResult, TOps>>(256);
        internal static readonly OnityObjectPool<WhenPromise<TTask, TResult, TOps>> Pool32 = new OnityObjectPool<WhenPromise<TTask, TResult, TOps>>(128);
        // Read once: Mono folds a static readonly field of an initialised class, not the call.
        static readonly bool IsAny = default(TOps).Any;
        static readonly Action<object> cancel = o => { var p = (WhenPromise<TTask, TResult, TOps>)o; p.core.TrySetCanceled(p.token); };

        sealed class Input
        {
            internal WhenPromise<TTask, TResult, TOps> owner;
            internal int index;
            internal IOnityTaskSource source; // the input awaited (null when none)
            internal long token;
            internal readonly Action callback;
            internal Input() { callback = Run; }
            void Run() { owner.OnInput(this); }
        }

        /// <summary>The version of the current task (changes when the coordinator is recycled).</summary>
        internal uint Version { get { return core.Version; } }

        readonly Input[] inputs;
        readonly bool pooled;
        readonly TResult shared;
        OnityCompletionSourceCore<TResult> core;
        int remaining;        // inputs not finished + 1 for the consumer
        int pendingInputs;    // WhenAll: inputs not finished
        int winner;           // WhenAny: the first input to finish, -1 before
        Exception firstError; // WhenAll: the first failure, in completion order
        bool consumed;
        CancellationTokenRegistration registration;
        CancellationToken token; // the one registered: the cancellation carries it

        WhenPromise(int capacity, bool poolable, TResult shared)
        {
            pooled = poolable && (capacity == 16 || capacity == 32);
            this.shared = shared;
            inputs = new Input[capacity];
            for (int i = 0; i < capacity; i++) inputs[i] = new Input { owner = this, index = i };
        }

        /// <summary>A coordinator awaiting every task of <paramref name="tasks"/> (non-empty),
        /// pooled, or new when <paramref name="shared"/> must be (WhenAll's result array).</summary>
        internal static WhenPromise<TTask, TResult, TOps> Start(TTask[] tasks, CancellationToken ct, bool poolable, TResult shared)
        {
            int n = tasks.Length;
            var pool = !poolable ? null : n <= 16 ? Pool16 : n <= 32 ? Pool32 : null;
            var p = pool != null ? pool.TryRent() : null;
            if (p == null) p = new WhenPromise<TTask, TResult, TOps>(poolable ? CombinatorBuckets.Bucket(n) : n, poolable, shared);
            p.remaining = n + 1;
            p.pendingInputs = n;
            p.winner = -1;
            p.consumed = false;
            // Already canceled: canceled at once, and the inputs are still awaited (consumed) below.
            if (ct.IsCancellationRequested) p.core.TrySetCanceled(ct);
            else if (ct.CanBeCanceled)
            {
                p.token = ct;
                p.registration = ct.Register(cancel, p);
            }
            var inputs = p.inputs;
            for (int i = 0; i < n; i++) p.Subscribe(inputs[i], tasks[i]);
            return p;
        }

        /// <summary>Awaits one input. (Its own method: Mono keeps a try block's locals in memory,
        /// so the loop in Start stays free of exception handling.)</summary>
        void Subscribe(Input inp, TTask task)
        {
            try
            {
                // A source runs the continuation inline when already completed (and throws on a
                // stale token), so only frame waits (cheap check, owner-thread OnCompleted) and
                // completed tasks are tested first.
                long srcToken;
                var src = default(TOps).Source(task, out srcToken);
                if (src == null)
                {
                    var value = shared;
                    Finish(inp.index, default(TOps).ReadCompleted(task, inp.index, ref value), null);
                    return;
                }
                inp.source = src;
                inp.token = srcToken;
                var rt = src as OnityRuntime;
                if (rt != null && rt.IsCompletedFast(srcToken)) OnInput(inp);
                else src.OnCompleted(inp.callback, srcToken);
            }
            catch (Exception ex)
            {
                // A stale input or one already awaited elsewhere: the combinator faults.
                inp.source = default(TOps).Faulted(ex);
                inp.token = 0;
                OnInput(inp);
            }
        }

        void OnInput(Input inp)
        {
            var src = inp.source;
            inp.source = null;
            int index = inp.index;
            TResult value = shared;
            Exception err = null;
            try { value = default(TOps).Read(src, inp.token, index, ref value); }
            catch (Exception ex) { err = ex; }
            Finish(index, value, err);
        }

        /// <summary>Input <paramref name="index"/> has finished (read as <paramref name="value"/>
        /// or <paramref name="err"/>): completes the task if it is the winner (Any) or the last
        /// input (All), then releases the input's reference.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        void Finish(int index, TResult value, Exception err)
        {
            bool completes;
            if (IsAny)
            {
                // Losers (most inputs) see the winner with a plain read and skip the CAS.
                completes = Volatile.Read(ref winner) == -1 && Interlocked.CompareExchange(ref winner, index, -1) == -1;
            }
            else
            {
                if (err != null) Interlocked.CompareExchange(ref firstError, err, null);
                // Two counters: the input that finishes last completes the task before it releases
                // its own reference, so no input can touch the core after the coordinator was
                // recycled (one shared counter allowed that when the token canceled the task, the
                // consumer left, and inputs completed on two worker threads at once).
                completes = Interlocked.Decrement(ref pendingInputs) == 0;
                if (completes) err = Volatile.Read(ref firstError);
            }
            // Completed outside the try: the consumer's continuation may run inline here, and an
            // exception it throws is its own (the tick reports it), not this input's outcome.
            if (completes)
            {
                if (err == null) core.TrySetResult(value);
                else core.TrySetException(err);
            }
            Release();
        }

        void Release()
        {
            if (Interlocked.Decrement(ref remaining) != 0) return;
            registration.Dispose();
            registration = default(CancellationTokenRegistration);
            token = default(CancellationToken);
            firstError = null;
            core.Reset();
            if (pooled) (inputs.Length == 16 ? Pool16 : Pool32).Return(this);
        }

        public OnityTaskStatus GetStatus(long token)
        {
            if (consumed) throw OnityErrors.Stale();
            return core.GetStatus(token);
        }

        public void OnCompleted(Action continuation, long token)
        {
            if (consumed) throw OnityErrors.Stale();
            core.OnCompleted(continuation, token);
        }

        void IOnityTaskSource.GetResult(long token) { GetResult(token); }

        public TResult GetResult(long token)
        {
            if (consumed) throw OnityErrors.Stale();
            core.ThrowIfNotCompleted(token); // stale or pending: nothing consumed
            // Consumed and released whatever the outcome (a fault or cancellation rethrown here
            // must not keep the coordinator and its token registration alive).
            consumed = true;
            try { return core.GetResult(token); }
            finally { Release(); }
        }
    }

    /// <summary>The combinators' argument checks and input reads.</summary>
    internal static class WhenArgs
    {
        /// <summary>Ends the use of an untyped input by its source (not null) and token, as
        /// <see cref="OnityTask.Awaiter.GetResult"/> does (runtime sources called directly).</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal static void Read(IOnityTaskSource source, long token)
        {
            var r = source as OnityRuntime;
            if (r != null) r.GetResult(token);
            else source.GetResult(token);
        }

        internal static int Count<T>(T[] tasks)
        {
            if (tasks == null) throw new ArgumentNullException("tasks");
            return tasks.Length;
        }

        internal static int CountAny<T>(T[] tasks)
        {
            int n = Count(tasks);
            if (n == 0) throw new ArgumentException("WhenAny needs at least one task.", "tasks");
            return n;
        }
    }
}
