using System;
using System.Runtime.CompilerServices;
using System.Threading;

namespace Onity
{
    public partial struct OnityTask
    {
        /// <summary>Completes once every input has; faults or cancels like the first input (in
        /// completion order) that failed. Each input is awaited by the combinator.</summary>
#if !ONITY_SITES // else OnityTask.Sites.cs
        public static OnityTask WhenAll(OnityTask[] tasks, CancellationToken cancellationToken, [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            return WhenAllPromise.Create(tasks, cancellationToken);
        }
#endif

        public static OnityTask WhenAll(params OnityTask[] tasks)
        {
            return WhenAllPromise.Create(tasks, default(CancellationToken));
        }

        /// <summary>WhenAll over frame waits (each converted to a wait task; allocates the converted
        /// array: pass an <c>OnityTask[]</c> for the allocation-free form).</summary>
#if !ONITY_SITES // else OnityTask.Sites.cs
        public static OnityTask WhenAll(OnityFrameWait[] waits, CancellationToken cancellationToken, [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            return WhenAllPromise.Create(OnityFrameWait.ToTasks(waits), cancellationToken);
        }
#endif

        public static OnityTask WhenAll(params OnityFrameWait[] waits)
        {
            return WhenAllPromise.Create(OnityFrameWait.ToTasks(waits), default(CancellationToken));
        }

        /// <summary>WhenAll over typed tasks: every result, in input order (a new array).</summary>
#if !ONITY_SITES // else OnityTask.Sites.cs
        public static OnityTask<T[]> WhenAll<T>(OnityTask<T>[] tasks, CancellationToken cancellationToken, [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            return WhenAllPromise<T>.Create(tasks, cancellationToken);
        }
#endif

        public static OnityTask<T[]> WhenAll<T>(params OnityTask<T>[] tasks)
        {
            return WhenAllPromise<T>.Create(tasks, default(CancellationToken));
        }
    }

    internal sealed class WhenAllPromise : IOnityTaskSource, IOnitySiteSource
    {
        bool IOnitySiteSource.IsCurrent(long token) { return !consumed && (uint)token == core.Version; }
        OnityTaskStatus IOnitySiteSource.UnsafeGetStatus() { return core.UnsafeGetStatus(); }

        static readonly OnityObjectPool<WhenAllPromise> pool16 = new OnityObjectPool<WhenAllPromise>(256);
        static readonly OnityObjectPool<WhenAllPromise> pool32 = new OnityObjectPool<WhenAllPromise>(128);
        static readonly Action<object> cancel = o => { var p = (WhenAllPromise)o; p.core.TrySetCanceled(p.token); };

        sealed class Input
        {
            internal WhenAllPromise owner;
            internal OnityTask task;
            internal readonly Action callback;
            internal Input() { callback = Run; }
            void Run() { owner.OnInput(this); }
        }

        readonly Input[] inputs;
        OnityCompletionSourceCore<AsyncUnit> core;
        int remaining;   // inputs not finished + 1 for the consumer
        int pendingInputs;
        Exception firstError;
        bool consumed;
        CancellationTokenRegistration registration;
        CancellationToken token; // the one registered: the cancellation carries it

        WhenAllPromise(int capacity)
        {
            inputs = new Input[capacity];
            for (int i = 0; i < capacity; i++) inputs[i] = new Input { owner = this };
        }

        internal static OnityTask Create(OnityTask[] tasks, CancellationToken ct)
        {
            if (tasks == null) throw new ArgumentNullException("tasks");
            int n = tasks.Length;
            if (n == 0) return OnityTask.CompletedTask;
            int cap = CombinatorBuckets.Bucket(n);
            var pool = cap == 16 ? pool16 : cap == 32 ? pool32 : null;
            var p = pool != null ? pool.TryRent() : null;
            if (p == null) p = new WhenAllPromise(cap);
            p.remaining = n + 1;
            p.pendingInputs = n;
            p.firstError = null;
            p.consumed = false;
            var result = new OnityTask(p, p.core.Version);
            // Already canceled: canceled at once, and the inputs are still awaited (consumed) below.
            if (ct.IsCancellationRequested) p.core.TrySetCanceled(ct);
            else if (ct.CanBeCanceled)
            {
                p.token = ct;
                p.registration = ct.Register(cancel, p);
            }
            for (int i = 0; i < n; i++)
            {
                var inp = p.inputs[i];
                inp.task = tasks[i];
                try
                {
                    // As WhenAny: sources run the continuation inline when already completed.
                    var src = tasks[i].source;
                    var rt = src as OnityRuntime;
                    if (src == null || (rt != null && rt.IsCompletedFast(tasks[i].token))) p.OnInput(inp);
                    else src.OnCompleted(inp.callback, tasks[i].token);
                }
                catch (Exception ex)
                {
                    inp.task = default(OnityTask);
                    p.Finish(ex);
                }
            }
            return result;
        }

        void OnInput(Input inp)
        {
            var t = inp.task;
            inp.task = default(OnityTask);
            Exception err = null;
            try { t.GetAwaiter().GetResult(); }
            catch (Exception ex) { err = ex; }
            Finish(err);
        }

        void Finish(Exception err)
        {
            if (err != null) Interlocked.CompareExchange(ref firstError, err, null);
            // Two counters: the input that finishes last completes the task before it releases its
            // own reference, so no input can touch the core after the coordinator was recycled
            // (one shared counter allowed that when the token canceled the task, the consumer
            // left, and inputs completed on two worker threads at once).
            if (Interlocked.Decrement(ref pendingInputs) == 0)
            {
                var e = Volatile.Read(ref firstError);
                if (e == null) core.TrySetResult(default(AsyncUnit));
                else core.TrySetException(e);
            }
            Release();
        }

        void Release()
        {
            if (Interlocked.Decrement(ref remaining) == 0) Recycle();
        }

        void Recycle()
        {
            registration.Dispose();
            registration = default(CancellationTokenRegistration);
            token = default(CancellationToken);
            firstError = null;
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

        public void GetResult(long token)
        {
            if (consumed) throw OnityErrors.Stale();
            core.ThrowIfNotCompleted(token); // stale or pending: nothing consumed
            consumed = true;
            try { core.GetResult(token); }
            finally { Release(); }
        }
    }

    internal sealed class WhenAllPromise<T> : IOnityTaskSource<T[]>, IOnitySiteSource
    {
        bool IOnitySiteSource.IsCurrent(long token) { return Volatile.Read(ref consumed) == 0 && (uint)token == core.Version; }
        OnityTaskStatus IOnitySiteSource.UnsafeGetStatus() { return core.UnsafeGetStatus(); }

        static readonly Action<object> cancel = o => { var p = (WhenAllPromise<T>)o; p.core.TrySetCanceled(p.token); };

        sealed class Input
        {
            internal WhenAllPromise<T> owner;
            internal int index;
            internal OnityTask<T> task;
            internal readonly Action callback;
            internal Input() { callback = Run; }
            void Run() { owner.OnInput(this); }
        }

        readonly Input[] inputs;
        readonly T[] results;
        OnityCompletionSourceCore<T[]> core;
        int pendingInputs;
        Exception firstError;
        int consumed; // the task was consumed (its core reset): a late outcome lands nowhere
        CancellationTokenRegistration registration;
        CancellationToken token; // the one registered: the cancellation carries it

        WhenAllPromise(int n)
        {
            inputs = new Input[n];
            results = new T[n];
            for (int i = 0; i < n; i++) inputs[i] = new Input { owner = this, index = i };
        }

        internal static OnityTask<T[]> Create(OnityTask<T>[] tasks, CancellationToken ct)
        {
            if (tasks == null) throw new ArgumentNullException("tasks");
            int n = tasks.Length;
            if (n == 0) return OnityTask.FromResult(new T[0]);
            var p = new WhenAllPromise<T>(n); // the result array is the caller's: not pooled
            p.pendingInputs = n;
            var result = new OnityTask<T[]>(p, p.core.Version);
            // Already canceled: canceled at once, and the inputs are still awaited (consumed) below.
            if (ct.IsCancellationRequested) p.core.TrySetCanceled(ct);
            else if (ct.CanBeCanceled)
            {
                p.token = ct;
                p.registration = ct.Register(cancel, p);
            }
            for (int i = 0; i < n; i++)
            {
                var inp = p.inputs[i];
                inp.task = tasks[i];
                try
                {
                    // As WhenAny: sources run the continuation inline when already completed.
                    var src = tasks[i].source;
                    var rt = src as OnityRuntime;
                    if (src == null || (rt != null && rt.IsCompletedFast(tasks[i].token))) p.OnInput(inp);
                    else src.OnCompleted(inp.callback, tasks[i].token);
                }
                catch (Exception ex)
                {
                    inp.task = default(OnityTask<T>);
                    p.Finish(ex);
                }
            }
            return result;
        }

        void OnInput(Input inp)
        {
            var t = inp.task;
            inp.task = default(OnityTask<T>);
            Exception err = null;
            try { results[inp.index] = t.GetAwaiter().GetResult(); }
            catch (Exception ex) { err = ex; }
            Finish(err);
        }

        void Finish(Exception err)
        {
            if (err != null) Interlocked.CompareExchange(ref firstError, err, null);
            if (Interlocked.Decrement(ref pendingInputs) == 0)
            {
                registration.Dispose();
                // Canceled by the token and consumed before every input ended: the reset core
                // belongs to nobody (a fault stored there would be reported as unobserved).
                if (Volatile.Read(ref consumed) != 0) return;
                var e = Volatile.Read(ref firstError);
                if (e == null) core.TrySetResult(results);
                else core.TrySetException(e);
            }
        }

        public OnityTaskStatus GetStatus(long token) { return core.GetStatus(token); }
        public void OnCompleted(Action continuation, long token) { core.OnCompleted(continuation, token); }
        void IOnityTaskSource.GetResult(long token) { GetResult(token); }

        public T[] GetResult(long token)
        {
            core.ThrowIfNotCompleted(token); // stale or pending: nothing reset
            Volatile.Write(ref consumed, 1);
            try { return core.GetResult(token); }
            finally { core.Reset(); }
        }
    }
}
