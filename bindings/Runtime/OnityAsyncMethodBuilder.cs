using System;
using System.Runtime.CompilerServices;
using System.Security;
using System.Threading;

namespace Onity.CompilerServices
{
    /// <summary>What a builder holds once its method has suspended: the pooled runner. An
    /// abstract class, not an interface: fields and virtual calls are cheaper than Mono's
    /// interface dispatch on the await path.</summary>
    internal abstract class IRunner
    {
        internal Action moveNext;
        internal ExecutionContext context;
        public abstract OnityTask Task { get; }
        public abstract void SetResult();
        public abstract void SetException(Exception ex);
    }

    internal abstract class IRunner<T>
    {
        internal Action moveNext;
        internal ExecutionContext context;
        public abstract OnityTask<T> Task { get; }
        public abstract void SetResult(T value);
        public abstract void SetException(Exception ex);
    }

    /// <summary>What a builder holds when its method threw before suspending: the faulted task.
    /// (Keeping it behind the runner field keeps the builder, copied into every state machine,
    /// one field smaller: the synchronous path is the hot one.)</summary>
    internal sealed class FaultedRunner : IRunner
    {
        readonly OnityTask task;
        internal FaultedRunner(Exception ex) { task = OnityTask.FromException(ex); }
        public override OnityTask Task { get { return task; } }
        public override void SetResult() { }
        public override void SetException(Exception ex) { }
    }

    internal sealed class FaultedRunner<T> : IRunner<T>
    {
        readonly OnityTask<T> task;
        internal FaultedRunner(Exception ex) { task = OnityTask.FromException<T>(ex); }
        public override OnityTask<T> Task { get { return task; } }
        public override void SetResult(T value) { }
        public override void SetException(Exception ex) { }
    }

    /// <summary>Counters of the async-method runners (all state-machine types together).</summary>
    public static class OnityRunnerStats
    {
        internal static long rented, returned, created;
        /// <summary>Runners taken (a method's first real suspension).</summary>
        public static long Rented { get { return Volatile.Read(ref rented); } }
        /// <summary>Runners given back (their task was awaited).</summary>
        public static long Returned { get { return Volatile.Read(ref returned); } }
        /// <summary>Runners allocated because the pool was empty (cold allocations).</summary>
        public static long Created { get { return Volatile.Read(ref created); } }
        /// <summary>Async methods suspended whose task has not been awaited yet.</summary>
        public static long Live { get { return Rented - Returned; } }
    }

    /// <summary>The runner of an <c>async OnityTask</c> method with state machine
    /// <typeparamref name="TStateMachine"/>: holds the boxed state machine and the completion
    /// core, pooled per state-machine type; returned to the pool when its task is awaited.</summary>
    internal sealed class AsyncRunner<TStateMachine> : IRunner, IOnityTaskSource
        where TStateMachine : IAsyncStateMachine
    {
        static readonly OnityObjectPool<AsyncRunner<TStateMachine>> pool = new OnityObjectPool<AsyncRunner<TStateMachine>>(128 * 1024);
        static readonly ContextCallback runInContext = RunInContext;

        TStateMachine stateMachine;
        OnityCompletionSourceCore<AsyncUnit> core;

        AsyncRunner() { moveNext = Run; }

        /// <summary>First suspension: takes a runner, stores it in the builder (which lives inside
        /// <paramref name="sm"/>) and only then copies the state machine into it, so the copy's
        /// builder already knows its runner.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal static void Attach(ref TStateMachine sm, ref IRunner slot)
        {
            var r = pool.TryRent();
            if (r == null)
            {
                r = new AsyncRunner<TStateMachine>();
                Interlocked.Increment(ref OnityRunnerStats.created);
            }
            Interlocked.Increment(ref OnityRunnerStats.rented);
            slot = r;
            r.stateMachine = sm;
        }

        void Run()
        {
            var ec = context;
            if (ec == null)
            {
                stateMachine.MoveNext();
            }
            else
            {
                context = null;
                OnityContextFlow.Run(ec, runInContext, this);
            }
        }

        static void RunInContext(object s)
        {
            ((AsyncRunner<TStateMachine>)s).stateMachine.MoveNext();
        }

        public override OnityTask Task { get { return new OnityTask(this, core.s.version); } }

        // The core's non-generic part only (OnitySourceState: no generic lookup without a JIT).
        public override void SetResult() { if (core.s.TryBegin()) core.s.Publish(2); }
        public override void SetException(Exception ex) { core.s.TrySetException(ex); }

        public OnityTaskStatus GetStatus(long token) { return core.s.GetStatus(token); }
        public void OnCompleted(Action continuation, long token) { core.s.OnCompleted(continuation, token); }

        public void GetResult(long token)
        {
            if (core.s.Succeeded(token)) Recycle();
            else GetResultChecked(token);
        }

        void GetResultChecked(long token)
        {
            try { core.s.ThrowUnlessSucceeded(token); }
            finally
            {
                if (core.s.SettledAt(token)) Recycle();
            }
        }

        void Recycle()
        {
            core.s.Reset();
            stateMachine = default(TStateMachine);
            context = null;
            Interlocked.Increment(ref OnityRunnerStats.returned);
            pool.Return(this);
        }
    }

    internal sealed class AsyncRunner<TStateMachine, T> : IRunner<T>, IOnityTaskSource<T>
        where TStateMachine : IAsyncStateMachine
    {
        static readonly OnityObjectPool<AsyncRunner<TStateMachine, T>> pool = new OnityObjectPool<AsyncRunner<TStateMachine, T>>(128 * 1024);
        static readonly ContextCallback runInContext = RunInContext;

        TStateMachine stateMachine;
        OnityCompletionSourceCore<T> core;

        AsyncRunner() { moveNext = Run; }

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal static void Attach(ref TStateMachine sm, ref IRunner<T> slot)
        {
            var r = pool.TryRent();
            if (r == null)
            {
                r = new AsyncRunner<TStateMachine, T>();
                Interlocked.Increment(ref OnityRunnerStats.created);
            }
            Interlocked.Increment(ref OnityRunnerStats.rented);
            slot = r;
            r.stateMachine = sm;
        }

        void Run()
        {
            var ec = context;
            if (ec == null)
            {
                stateMachine.MoveNext();
            }
            else
            {
                context = null;
                OnityContextFlow.Run(ec, runInContext, this);
            }
        }

        static void RunInContext(object s)
        {
            ((AsyncRunner<TStateMachine, T>)s).stateMachine.MoveNext();
        }

        public override OnityTask<T> Task { get { return new OnityTask<T>(this, core.s.version); } }

        public override void SetResult(T value)
        {
            if (!core.s.TryBegin()) return;
            core.result = value;
            core.s.Publish(2);
        }
        public override void SetException(Exception ex) { core.s.TrySetException(ex); }

        public OnityTaskStatus GetStatus(long token) { return core.s.GetStatus(token); }
        public void OnCompleted(Action continuation, long token) { core.s.OnCompleted(continuation, token); }
        void IOnityTaskSource.GetResult(long token) { GetResult(token); }

        public T GetResult(long token)
        {
            if (!core.s.Succeeded(token)) return GetResultChecked(token);
            T value = core.result;
            Recycle();
            return value;
        }

        T GetResultChecked(long token)
        {
            try { core.s.ThrowUnlessSucceeded(token); return core.result; }
            finally
            {
                if (core.s.SettledAt(token)) Recycle();
            }
        }

        void Recycle()
        {
            core.result = default(T);
            core.s.Reset();
            stateMachine = default(TStateMachine);
            context = null;
            Interlocked.Increment(ref OnityRunnerStats.returned);
            pool.Return(this);
        }
    }

    /// <summary>Builder of <c>async OnityTask</c> methods. A method that completes synchronously
    /// allocates nothing; the first real suspension takes a pooled runner.</summary>
    public struct OnityTaskMethodBuilder
    {
        IRunner runner;

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public static OnityTaskMethodBuilder Create() { return default(OnityTaskMethodBuilder); }

        public OnityTask Task
        {
            [MethodImpl(MethodImplOptions.AggressiveInlining)]
            get
            {
                if (runner != null) return runner.Task;
                return OnityTask.CompletedTask;
            }
        }

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void Start<TStateMachine>(ref TStateMachine stateMachine) where TStateMachine : IAsyncStateMachine
        {
            stateMachine.MoveNext();
        }

        public void SetStateMachine(IAsyncStateMachine stateMachine) { }

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void SetResult()
        {
            if (runner != null) runner.SetResult();
        }

        public void SetException(Exception exception)
        {
            if (runner == null) runner = new FaultedRunner(exception);
            else runner.SetException(exception);
        }

        public void AwaitOnCompleted<TAwaiter, TStateMachine>(ref TAwaiter awaiter, ref TStateMachine stateMachine)
            where TAwaiter : INotifyCompletion
            where TStateMachine : IAsyncStateMachine
        {
            if (runner == null) AsyncRunner<TStateMachine>.Attach(ref stateMachine, ref runner);
            var r = runner;
            if (OnityContextFlow.Enabled) r.context = OnityContextFlow.Capture();
            awaiter.OnCompleted(r.moveNext);
        }

        [SecuritySafeCritical]
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void AwaitUnsafeOnCompleted<TAwaiter, TStateMachine>(ref TAwaiter awaiter, ref TStateMachine stateMachine)
            where TAwaiter : ICriticalNotifyCompletion
            where TStateMachine : IAsyncStateMachine
        {
            if (runner == null) AsyncRunner<TStateMachine>.Attach(ref stateMachine, ref runner);
            var r = runner;
            if (OnityContextFlow.Enabled) r.context = OnityContextFlow.Capture();
            awaiter.UnsafeOnCompleted(r.moveNext);
        }
    }

    /// <summary>Builder of <c>async OnityTask&lt;T&gt;</c> methods.</summary>
    public struct OnityTaskMethodBuilder<T>
    {
        IRunner<T> runner;
        T result;

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public static OnityTaskMethodBuilder<T> Create() { return default(OnityTaskMethodBuilder<T>); }

        public OnityTask<T> Task
        {
            [MethodImpl(MethodImplOptions.AggressiveInlining)]
            get
            {
                if (runner != null) return runner.Task;
                return new OnityTask<T>(result);
            }
        }

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void Start<TStateMachine>(ref TStateMachine stateMachine) where TStateMachine : IAsyncStateMachine
        {
            stateMachine.MoveNext();
        }

        public void SetStateMachine(IAsyncStateMachine stateMachine) { }

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void SetResult(T value)
        {
            if (runner != null) runner.SetResult(value);
            else result = value;
        }

        public void SetException(Exception exception)
        {
            if (runner == null) runner = new FaultedRunner<T>(exception);
            else runner.SetException(exception);
        }

        public void AwaitOnCompleted<TAwaiter, TStateMachine>(ref TAwaiter awaiter, ref TStateMachine stateMachine)
            where TAwaiter : INotifyCompletion
            where TStateMachine : IAsyncStateMachine
        {
            if (runner == null) AsyncRunner<TStateMachine, T>.Attach(ref stateMachine, ref runner);
            var r = runner;
            if (OnityContextFlow.Enabled) r.context = OnityContextFlow.Capture();
            awaiter.OnCompleted(r.moveNext);
        }

        [SecuritySafeCritical]
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void AwaitUnsafeOnCompleted<TAwaiter, TStateMachine>(ref TAwaiter awaiter, ref TStateMachine stateMachine)
            where TAwaiter : ICriticalNotifyCompletion
            where TStateMachine : IAsyncStateMachine
        {
            if (runner == null) AsyncRunner<TStateMachine, T>.Attach(ref stateMachine, ref runner);
            var r = runner;
            if (OnityContextFlow.Enabled) r.context = OnityContextFlow.Capture();
            awaiter.UnsafeOnCompleted(r.moveNext);
        }
    }
}
