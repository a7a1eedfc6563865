using System;
using System.Runtime.ExceptionServices;
using System.Threading;

namespace Onity
{
    public partial struct OnityTask
    {
        // Thread-pool work (UniTask's RunOnThreadPool): the delegate runs on a thread-pool thread;
        // with configureAwait (the default) the task then switches back to the runtime's owner
        // thread (SwitchToMainThread: at its next BeginFrame/Tick/Drain), so the caller's
        // continuation runs there whatever the delegate did. A failure of the delegate is the
        // task's failure (after the switch back). Cancellation is checked before the switch and
        // again on the pool thread before the delegate runs. Allocates: the thread-pool work item
        // and, for lambdas that capture, the delegate. Not available on WebGL (no threads).

        /// <summary>Runs <paramref name="action"/> on the thread pool.</summary>
        public static OnityTask RunOnThreadPool(Action action, bool configureAwait = true, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (action == null) throw new ArgumentNullException("action");
            return RunCore(callAction, action, configureAwait, cancellationToken);
        }

        /// <summary>Runs <paramref name="action"/> with <paramref name="state"/> on the thread pool.</summary>
        public static OnityTask RunOnThreadPool(Action<object> action, object state, bool configureAwait = true, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (action == null) throw new ArgumentNullException("action");
            return RunCore(callActionWithState, new ActionWithState(action, state), configureAwait, cancellationToken);
        }

        /// <summary>Runs <paramref name="func"/> on the thread pool; the task has its result.</summary>
        public static OnityTask<T> RunOnThreadPool<T>(Func<T> func, bool configureAwait = true, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (func == null) throw new ArgumentNullException("func");
            return RunCore(Calls<T>.Func, func, configureAwait, cancellationToken);
        }

        /// <summary>Starts <paramref name="func"/> on the thread pool and awaits the task it returns
        /// (its awaits that need the owner thread, such as frame waits, must switch there first).</summary>
        public static OnityTask RunOnThreadPool(Func<OnityTask> func, bool configureAwait = true, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (func == null) throw new ArgumentNullException("func");
            return RunCore(callAsync, func, configureAwait, cancellationToken);
        }

        /// <summary>As <see cref="RunOnThreadPool(Func{OnityTask}, bool, CancellationToken)"/>, with the result.</summary>
        public static OnityTask<T> RunOnThreadPool<T>(Func<OnityTask<T>> func, bool configureAwait = true, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (func == null) throw new ArgumentNullException("func");
            return RunCore(Calls<T>.AsyncFunc, func, configureAwait, cancellationToken);
        }

        sealed class ActionWithState
        {
            internal readonly Action<object> action;
            internal readonly object state;
            internal ActionWithState(Action<object> action, object state) { this.action = action; this.state = state; }
        }

        // Every form is a function returning a task: a synchronous one returns a completed task
        // (awaiting it costs next to nothing), so one core serves them all.
        static readonly Func<object, OnityTask<AsyncUnit>> callAction = s => { ((Action)s)(); return default(OnityTask<AsyncUnit>); };
        static readonly Func<object, OnityTask<AsyncUnit>> callActionWithState = s => { var a = (ActionWithState)s; a.action(a.state); return default(OnityTask<AsyncUnit>); };
        static readonly Func<object, OnityTask<AsyncUnit>> callAsync = s => AsUnit(((Func<OnityTask>)s)());

        static async OnityTask<AsyncUnit> AsUnit(OnityTask task)
        {
            await task;
            return default(AsyncUnit);
        }

        static class Calls<T>
        {
            internal static readonly Func<object, OnityTask<T>> Func = s => new OnityTask<T>(((Func<T>)s)());
            internal static readonly Func<object, OnityTask<T>> AsyncFunc = s => ((Func<OnityTask<T>>)s)();
        }

        static async OnityTask<T> RunCore<T>(Func<object, OnityTask<T>> call, object state, bool configureAwait, CancellationToken cancellationToken)
        {
            cancellationToken.ThrowIfCancellationRequested();
            await SwitchToThreadPool();
            ExceptionDispatchInfo error = null;
            T result = default(T);
            try
            {
                cancellationToken.ThrowIfCancellationRequested();
                result = await call(state);
            }
            catch (Exception ex) { error = ExceptionDispatchInfo.Capture(ex); }
            if (configureAwait) await SwitchToMainThread();
            if (error != null) error.Throw();
            return result;
        }

        /// <summary><see cref="RunOnThreadPool(Action, bool, CancellationToken)"/> (UniTask's older name).</summary>
        public static OnityTask Run(Action action, bool configureAwait = true, CancellationToken cancellationToken = default(CancellationToken))
        {
            return RunOnThreadPool(action, configureAwait, cancellationToken);
        }

        /// <summary><see cref="RunOnThreadPool{T}(Func{T}, bool, CancellationToken)"/>.</summary>
        public static OnityTask<T> Run<T>(Func<T> func, bool configureAwait = true, CancellationToken cancellationToken = default(CancellationToken))
        {
            return RunOnThreadPool(func, configureAwait, cancellationToken);
        }

        /// <summary><see cref="RunOnThreadPool(Func{OnityTask}, bool, CancellationToken)"/>.</summary>
        public static OnityTask Run(Func<OnityTask> func, bool configureAwait = true, CancellationToken cancellationToken = default(CancellationToken))
        {
            return RunOnThreadPool(func, configureAwait, cancellationToken);
        }

        /// <summary><see cref="RunOnThreadPool{T}(Func{OnityTask{T}}, bool, CancellationToken)"/>.</summary>
        public static OnityTask<T> Run<T>(Func<OnityTask<T>> func, bool configureAwait = true, CancellationToken cancellationToken = default(CancellationToken))
        {
            return RunOnThreadPool(func, configureAwait, cancellationToken);
        }
    }
}
