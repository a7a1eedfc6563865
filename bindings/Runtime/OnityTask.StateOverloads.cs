using System;
using System.Threading;

namespace Onity
{
    // UniTask's overloads taking a state argument (Defer, Run / RunOnThreadPool, Action) and
    // Forget with an exception handler. The state forms here close over the state (one delegate
    // per call, as the thread-pool work item already allocates; Defer's is the only pooled path
    // that gains an allocation: pass a non-capturing factory to Defer(Func) to avoid it).
    public partial struct OnityTask
    {
        public static OnityTask Defer<TState>(TState state, Func<TState, OnityTask> factory)
        {
            if (factory == null) throw new ArgumentNullException("factory");
            return Defer(() => factory(state));
        }

        public static OnityTask<TResult> Defer<TState, TResult>(TState state, Func<TState, OnityTask<TResult>> factory)
        {
            if (factory == null) throw new ArgumentNullException("factory");
            return Defer(() => factory(state));
        }

        /// <summary><see cref="RunOnThreadPool(Action{object}, object, bool, CancellationToken)"/> (UniTask's older name).</summary>
        public static OnityTask Run(Action<object> action, object state, bool configureAwait = true, CancellationToken cancellationToken = default(CancellationToken))
        {
            return RunOnThreadPool(action, state, configureAwait, cancellationToken);
        }

        public static OnityTask Run(Func<object, OnityTask> action, object state, bool configureAwait = true, CancellationToken cancellationToken = default(CancellationToken))
        {
            return RunOnThreadPool(action, state, configureAwait, cancellationToken);
        }

        public static OnityTask<T> Run<T>(Func<object, T> func, object state, bool configureAwait = true, CancellationToken cancellationToken = default(CancellationToken))
        {
            return RunOnThreadPool(func, state, configureAwait, cancellationToken);
        }

        public static OnityTask<T> Run<T>(Func<object, OnityTask<T>> func, object state, bool configureAwait = true, CancellationToken cancellationToken = default(CancellationToken))
        {
            return RunOnThreadPool(func, state, configureAwait, cancellationToken);
        }

        /// <summary>Starts <paramref name="action"/>(<paramref name="state"/>) on the thread pool
        /// and awaits its task (as <see cref="RunOnThreadPool(Func{OnityTask}, bool, CancellationToken)"/>).</summary>
        public static OnityTask RunOnThreadPool(Func<object, OnityTask> action, object state, bool configureAwait = true, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (action == null) throw new ArgumentNullException("action");
            return RunOnThreadPool(() => action(state), configureAwait, cancellationToken);
        }

        public static OnityTask<T> RunOnThreadPool<T>(Func<object, T> func, object state, bool configureAwait = true, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (func == null) throw new ArgumentNullException("func");
            return RunOnThreadPool(() => func(state), configureAwait, cancellationToken);
        }

        public static OnityTask<T> RunOnThreadPool<T>(Func<object, OnityTask<T>> func, object state, bool configureAwait = true, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (func == null) throw new ArgumentNullException("func");
            return RunOnThreadPool(() => func(state), configureAwait, cancellationToken);
        }

        /// <summary>An <see cref="System.Action"/> that starts <paramref name="asyncAction"/>(<paramref name="state"/>)
        /// each time it is invoked (as <see cref="Void{T}(Func{T, OnityTask}, T)"/>).</summary>
        public static Action Action<T>(T state, Func<T, OnityTask> asyncAction)
        {
            if (asyncAction == null) throw new ArgumentNullException("asyncAction");
            return () => Void(asyncAction, state);
        }

        /// <summary>Fire and forget, sending the task's failure (cancellation included, as UniTask)
        /// to <paramref name="exceptionHandler"/>: on the runtime's owner thread when
        /// <paramref name="handleExceptionOnMainThread"/>, else where the task completed. An
        /// exception of the handler goes to <see cref="UnobservedTaskException"/>.</summary>
        public void Forget(Action<Exception> exceptionHandler, bool handleExceptionOnMainThread = true)
        {
            if (exceptionHandler == null) { Forget(); return; }
            ForgetWith(this, exceptionHandler, handleExceptionOnMainThread).Forget();
        }

        static async OnityTaskVoid ForgetWith(OnityTask task, Action<Exception> handler, bool onMain)
        {
            try { await task; }
            catch (Exception ex)
            {
                try
                {
                    if (onMain) await SwitchToMainThread();
                    handler(ex);
                }
                catch (Exception ex2) { PublishUnobserved(ex2); }
            }
        }
    }

    public partial struct OnityTask<T>
    {
        /// <summary>As <see cref="OnityTask.Forget(Action{Exception}, bool)"/>.</summary>
        public void Forget(Action<Exception> exceptionHandler, bool handleExceptionOnMainThread = true)
        {
            AsOnityTask().Forget(exceptionHandler, handleExceptionOnMainThread);
        }
    }
}
