using System;
using System.Runtime.CompilerServices;
using System.Threading;

namespace Onity
{
    public partial struct OnityTask
    {
        /// <summary>Completes like the first input to complete (succeeded, faulted or canceled); its
        /// result is the winner's index. Inputs already completed: the first in array order wins.
        /// Losers keep running and are observed (their failures ignored) when they finish. Each
        /// input is awaited by the combinator: do not await it yourself. Coordinators for up to 32
        /// inputs are pooled.</summary>
#if !ONITY_SITES // else OnityTask.Sites.cs
        public static OnityTask<int> WhenAny(OnityTask[] tasks, CancellationToken cancellationToken, [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            return WhenAnyPromise.Create(tasks, cancellationToken);
        }
#endif

        public static OnityTask<int> WhenAny(params OnityTask[] tasks)
        {
            return WhenAnyPromise.Create(tasks, default(CancellationToken));
        }

        /// <summary>WhenAny over frame waits (each converted to a wait task; allocates the converted
        /// array: pass an <c>OnityTask[]</c> for the allocation-free form).</summary>
#if !ONITY_SITES // else OnityTask.Sites.cs
        public static OnityTask<int> WhenAny(OnityFrameWait[] waits, CancellationToken cancellationToken, [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            return WhenAny(OnityFrameWait.ToTasks(waits), cancellationToken);
        }
#endif

        public static OnityTask<int> WhenAny(params OnityFrameWait[] waits)
        {
            return WhenAny(OnityFrameWait.ToTasks(waits), default(CancellationToken));
        }

        /// <summary>WhenAny over typed tasks: the winner's index and result.</summary>
#if !ONITY_SITES // else OnityTask.Sites.cs
        public static OnityTask<WhenAnyResult<T>> WhenAny<T>(OnityTask<T>[] tasks, CancellationToken cancellationToken, [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            return WhenAnyPromise<T>.Create(tasks, cancellationToken);
        }
#endif

        public static OnityTask<WhenAnyResult<T>> WhenAny<T>(params OnityTask<T>[] tasks)
        {
            return WhenAnyPromise<T>.Create(tasks, default(CancellationToken));
        }
    }

    /// <summary>The outcome of a typed WhenAny: the winner's index and result (deconstructs like
    /// UniTask's <c>(winArgumentIndex, result)</c> tuple; a struct because mcs loses tuple
    /// element types inside generic return types).</summary>
    public readonly struct WhenAnyResult<T>
    {
        public readonly int winArgumentIndex;
        public readonly T result;

        public WhenAnyResult(int winArgumentIndex, T result)
        {
            this.winArgumentIndex = winArgumentIndex;
            this.result = result;
        }

        public void Deconstruct(out int winArgumentIndex, out T result)
        {
            winArgumentIndex = this.winArgumentIndex;
            result = this.result;
        }

        public override string ToString() { return "(" + winArgumentIndex + ", " + result + ")"; }
    }

    internal static class CombinatorBuckets
    {
        internal static int Bucket(int n) { return n <= 16 ? 16 : n <= 32 ? 32 : n; }
    }

    internal sealed class WhenAnyPromise : IOnityTaskSource<int>, IOnitySiteSource
    {
        bool IOnitySiteSource.IsCurrent(long token) { return !consumed && (uint)token == core.Version; }
        OnityTaskStatus IOnitySiteSource.UnsafeGetStatus() { return core.UnsafeGetStatus(); }

        internal static readonly OnityObjectPool<WhenAnyPromise> pool16 = new OnityObjectPool<WhenAnyPromise>(256);
        static readonly OnityObjectPool<WhenAnyPromise> pool32 = new OnityObjectPool<WhenAnyPromise>(128);
        static readonly Action<object> cancel = o => { var p = (WhenAnyPromise)o; p.core.TrySetCanceled(p.token); };

        sealed class Input
        {
            internal WhenAnyPromise owner;
            internal int index;
            internal OnityTask task;
            internal readonly Action callback;
            internal Input() { callback = Run; }
            void Run() { owner.OnInput(this); }
        }

        readonly Input[] inputs;
        OnityCompletionSourceCore<int> core;
        int remaining;
        int winner;
        bool consumed;
        CancellationTokenRegistration registration;
        CancellationToken token; // the one registered: the cancellation carries it

        WhenAnyPromise(int capacity)
        {
            inputs = new Input[capacity];
            for (int i = 0; i < capacity; i++) inputs[i] = new Input { owner = this, index = i };
        }

        internal static OnityTask<int> Create(OnityTask[] tasks, CancellationToken ct)
        {
            if (tasks == null) throw new ArgumentNullException("tasks");
            int n = tasks.Length;
            if (n == 0) throw new ArgumentException("WhenAny needs at least one task.", "tasks");
            int cap = CombinatorBuckets.Bucket(n);
            var pool = cap == 16 ? pool16 : cap == 32 ? pool32 : null;
            var p = pool != null ? pool.TryRent() : null;
            if (p == null) p = new WhenAnyPromise(cap);
            p.remaining = n + 1;
            p.winner = -1;
            p.consumed = false;
            var result = new OnityTask<int>(p, p.core.Version);
            // Already canceled: canceled at once, and the inputs are still awaited (consumed) below.
            if (ct.IsCancellationRequested) p.core.TrySetCanceled(ct);
            else if (ct.CanBeCanceled)
            {
                p.token = ct;
                p.registration = ct.Register(cancel, p);
            }
            var inputs = p.inputs;
            for (int i = 0; i < n; i++) p.Subscribe(inputs[i], tasks[i]);
            return result;
        }

        /// <summary>Awaits one input. (Its own method: Mono keeps a try block's locals in memory,
        /// so the loop in Create stays free of exception handling.)</summary>
        void Subscribe(Input inp, OnityTask task)
        {
            inp.task = task;
            try
            {
                // A source runs the continuation inline when already completed (and throws on a
                // stale token), so only frame waits (cheap check, owner-thread OnCompleted) and
                // completed tasks are tested first.
                var src = task.source;
                var rt = src as OnityRuntime;
                if (src == null || (rt != null && rt.IsCompletedFast(task.token))) OnInput(inp);
                else src.OnCompleted(inp.callback, task.token);
            }
            catch (Exception ex)
            {
                // A stale input or one already awaited elsewhere: the combinator faults.
                inp.task = default(OnityTask);
                if (Interlocked.CompareExchange(ref winner, inp.index, -1) == -1) core.TrySetException(ex);
                Release();
            }
        }

        void OnInput(Input inp)
        {
            var t = inp.task;
            inp.task = default(OnityTask);
            Exception err = null;
            try { t.GetAwaiter().GetResult(); }
            catch (Exception ex) { err = ex; }
            // Completed outside the try: the consumer's continuation may run inline here, and an
            // exception it throws is its own (the tick reports it), not this input's outcome.
            // Losers (most inputs) see the winner with a plain read and skip the CAS.
            if (Volatile.Read(ref winner) == -1 && Interlocked.CompareExchange(ref winner, inp.index, -1) == -1)
            {
                if (err == null) core.TrySetResult(inp.index);
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
            core.Reset();
            var pool = inputs.Length == 16 ? pool16 : inputs.Length == 32 ? pool32 : null;
            if (pool != null) pool.Return(this);
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

        public int GetResult(long token)
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

    internal sealed class WhenAnyPromise<T> : IOnityTaskSource<WhenAnyResult<T>>, IOnitySiteSource
    {
        bool IOnitySiteSource.IsCurrent(long token) { return !consumed && (uint)token == core.Version; }
        OnityTaskStatus IOnitySiteSource.UnsafeGetStatus() { return core.UnsafeGetStatus(); }

        static readonly OnityObjectPool<WhenAnyPromise<T>> pool16 = new OnityObjectPool<WhenAnyPromise<T>>(256);
        static readonly OnityObjectPool<WhenAnyPromise<T>> pool32 = new OnityObjectPool<WhenAnyPromise<T>>(128);
        static readonly Action<object> cancel = o => { var p = (WhenAnyPromise<T>)o; p.core.TrySetCanceled(p.token); };

        sealed class Input
        {
            internal WhenAnyPromise<T> owner;
            internal int index;
            internal OnityTask<T> task;
            internal readonly Action callback;
            internal Input() { callback = Run; }
            void Run() { owner.OnInput(this); }
        }

        readonly Input[] inputs;
        OnityCompletionSourceCore<WhenAnyResult<T>> core;
        int remaining;
        int winner;
        bool consumed;
        CancellationTokenRegistration registration;
        CancellationToken token; // the one registered: the cancellation carries it

        WhenAnyPromise(int capacity)
        {
            inputs = new Input[capacity];
            for (int i = 0; i < capacity; i++) inputs[i] = new Input { owner = this, index = i };
        }

        internal static OnityTask<WhenAnyResult<T>> Create(OnityTask<T>[] tasks, CancellationToken ct)
        {
            if (tasks == null) throw new ArgumentNullException("tasks");
            int n = tasks.Length;
            if (n == 0) throw new ArgumentException("WhenAny needs at least one task.", "tasks");
            int cap = CombinatorBuckets.Bucket(n);
            var pool = cap == 16 ? pool16 : cap == 32 ? pool32 : null;
            var p = pool != null ? pool.TryRent() : null;
            if (p == null) p = new WhenAnyPromise<T>(cap);
            p.remaining = n + 1;
            p.winner = -1;
            p.consumed = false;
            var result = new OnityTask<WhenAnyResult<T>>(p, p.core.Version);
            // Already canceled: canceled at once, and the inputs are still awaited (consumed) below.
            if (ct.IsCancellationRequested) p.core.TrySetCanceled(ct);
            else if (ct.CanBeCanceled)
            {
                p.token = ct;
                p.registration = ct.Register(cancel, p);
            }
            var inputs = p.inputs;
            for (int i = 0; i < n; i++) p.Subscribe(inputs[i], tasks[i]);
            return result;
        }

        /// <summary>Awaits one input. (Its own method: Mono keeps a try block's locals in memory,
        /// so the loop in Create stays free of exception handling.)</summary>
        void Subscribe(Input inp, OnityTask<T> task)
        {
            inp.task = task;
            try
            {
                // A source runs the continuation inline when already completed (and throws on a
                // stale token), so only frame waits (cheap check, owner-thread OnCompleted) and
                // completed tasks are tested first.
                var src = task.source;
                var rt = src as OnityRuntime;
                if (src == null || (rt != null && rt.IsCompletedFast(task.token))) OnInput(inp);
                else src.OnCompleted(inp.callback, task.token);
            }
            catch (Exception ex)
            {
                // A stale input or one already awaited elsewhere: the combinator faults.
                inp.task = default(OnityTask<T>);
                if (Interlocked.CompareExchange(ref winner, inp.index, -1) == -1) core.TrySetException(ex);
                Release();
            }
        }

        void OnInput(Input inp)
        {
            var t = inp.task;
            inp.task = default(OnityTask<T>);
            T v = default(T);
            Exception err = null;
            try { v = t.GetAwaiter().GetResult(); }
            catch (Exception ex) { err = ex; }
            // As in WhenAnyPromise.OnInput: completed outside the try.
            if (Volatile.Read(ref winner) == -1 && Interlocked.CompareExchange(ref winner, inp.index, -1) == -1)
            {
                if (err == null) core.TrySetResult(new WhenAnyResult<T>(inp.index, v));
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
            core.Reset();
            var pool = inputs.Length == 16 ? pool16 : inputs.Length == 32 ? pool32 : null;
            if (pool != null) pool.Return(this);
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

        public WhenAnyResult<T> GetResult(long token)
        {
            if (consumed) throw OnityErrors.Stale();
            // As in WhenAnyPromise.GetResult: consumed and released once completed, whatever the outcome.
            core.ThrowIfNotCompleted(token);
            consumed = true;
            try { return core.GetResult(token); }
            finally { Release(); }
        }
    }
}
