using System;
using System.Threading;
using System.Threading.Tasks;

namespace Onity
{
    // UniTask's small helpers: Create, Never, SwitchToTaskPool, ContinueWith, the status
    // predicates, and the CancellationToken extensions.

    public partial struct OnityTask
    {
        /// <summary>Calls <paramref name="factory"/> and returns its task (UniTask's <c>Create</c>).</summary>
        public static OnityTask Create(Func<OnityTask> factory)
        {
            if (factory == null) throw new ArgumentNullException("factory");
            return factory();
        }

        /// <summary>As <see cref="Create(Func{OnityTask})"/>, passing <paramref name="cancellationToken"/>.</summary>
        public static OnityTask Create(Func<CancellationToken, OnityTask> factory, CancellationToken cancellationToken)
        {
            if (factory == null) throw new ArgumentNullException("factory");
            return factory(cancellationToken);
        }

        /// <summary>As <see cref="Create(Func{OnityTask})"/>, passing <paramref name="state"/>.</summary>
        public static OnityTask Create<T>(T state, Func<T, OnityTask> factory)
        {
            if (factory == null) throw new ArgumentNullException("factory");
            return factory(state);
        }

        /// <summary>As <see cref="Create(Func{OnityTask})"/>, with a result.</summary>
        public static OnityTask<T> Create<T>(Func<OnityTask<T>> factory)
        {
            if (factory == null) throw new ArgumentNullException("factory");
            return factory();
        }

        /// <summary>A task that never completes, but canceled when <paramref name="cancellationToken"/>
        /// is (at the next run of Update).</summary>
        public static OnityTask Never(CancellationToken cancellationToken) { return NeverCore<AsyncUnit>(cancellationToken).AsOnityTask(); }

        /// <summary>As <see cref="Never(CancellationToken)"/>, typed.</summary>
        public static OnityTask<T> Never<T>(CancellationToken cancellationToken) { return NeverCore<T>(cancellationToken); }

        static async OnityTask<T> NeverCore<T>(CancellationToken ct)
        {
            await WaitUntilCanceled(ct);
            throw new OperationCanceledException(ct);
        }

        /// <summary>Runs <paramref name="action"/> at the next run of <paramref name="timing"/> on the
        /// owner thread (UniTask's <c>Post</c> / <c>PlayerLoopHelper.AddContinuation</c>): a Yield's
        /// fast-lane wait, no allocation; from another thread it is posted to the owner first. An
        /// exception goes to <see cref="UnobservedTaskException"/>. Disposing the runtime first runs
        /// it then (as every pending frame wait's continuation).</summary>
        public static void Post(Action action, OnityTiming timing = OnityTiming.Update)
        {
            if (action == null) throw new ArgumentNullException("action");
            OnityRuntime.Require().FrameWait(0, timing).UnsafeOnCompleted(action);
        }

        /// <summary>Continues on a thread-pool thread through the default <see cref="TaskScheduler"/>
        /// (UniTask's <c>SwitchToTaskPool</c>; allocates the Task).</summary>
        public static SwitchToTaskPoolAwaitable SwitchToTaskPool() { return default(SwitchToTaskPoolAwaitable); }
    }

    /// <summary>What <see cref="OnityTask.SwitchToTaskPool"/> returns.</summary>
    public struct SwitchToTaskPoolAwaitable : System.Runtime.CompilerServices.ICriticalNotifyCompletion
    {
        static readonly Action<object> run = o => ((Action)o)();

        public SwitchToTaskPoolAwaitable GetAwaiter() { return this; }
        public bool IsCompleted { get { return false; } }
        public void GetResult() { }
        public void OnCompleted(Action continuation) { UnsafeOnCompleted(continuation); }

        public void UnsafeOnCompleted(Action continuation)
        {
            Task.Factory.StartNew(run, continuation, CancellationToken.None, TaskCreationOptions.DenyChildAttach, TaskScheduler.Default);
        }
    }

    /// <summary>UniTask's <c>UniTaskStatusExtensions</c>.</summary>
    public static class OnityTaskStatusExtensions
    {
        public static bool IsCompleted(this OnityTaskStatus status) { return status != OnityTaskStatus.Pending; }
        public static bool IsCompletedSuccessfully(this OnityTaskStatus status) { return status == OnityTaskStatus.Succeeded; }
        public static bool IsCanceled(this OnityTaskStatus status) { return status == OnityTaskStatus.Canceled; }
        public static bool IsFaulted(this OnityTaskStatus status) { return status == OnityTaskStatus.Faulted; }
    }

    /// <summary>UniTask's <c>ContinueWith</c> (an async method each: awaits the task, then calls
    /// the function; the task's failure propagates and the function is not called).</summary>
    public static partial class OnityTaskExtensions
    {
        public static async OnityTask ContinueWith<T>(this OnityTask<T> task, Action<T> continuationFunction)
        {
            continuationFunction(await task);
        }

        public static async OnityTask ContinueWith<T>(this OnityTask<T> task, Func<T, OnityTask> continuationFunction)
        {
            await continuationFunction(await task);
        }

        public static async OnityTask<TR> ContinueWith<T, TR>(this OnityTask<T> task, Func<T, TR> continuationFunction)
        {
            return continuationFunction(await task);
        }

        public static async OnityTask<TR> ContinueWith<T, TR>(this OnityTask<T> task, Func<T, OnityTask<TR>> continuationFunction)
        {
            return await continuationFunction(await task);
        }

        public static async OnityTask ContinueWith(this OnityTask task, Action continuationFunction)
        {
            await task;
            continuationFunction();
        }

        public static async OnityTask ContinueWith(this OnityTask task, Func<OnityTask> continuationFunction)
        {
            await task;
            await continuationFunction();
        }

        public static async OnityTask<T> ContinueWith<T>(this OnityTask task, Func<T> continuationFunction)
        {
            await task;
            return continuationFunction();
        }

        public static async OnityTask<T> ContinueWith<T>(this OnityTask task, Func<OnityTask<T>> continuationFunction)
        {
            await task;
            return await continuationFunction();
        }

        /// <summary>A token canceled when <paramref name="task"/> completes, whatever its outcome
        /// (allocates its source).</summary>
        public static CancellationToken ToCancellationToken(this OnityTask task)
        {
            var cts = new CancellationTokenSource();
            CancelWhenDone(task, cts).Forget();
            return cts.Token;
        }

        /// <summary>As <see cref="ToCancellationToken(OnityTask)"/>; <paramref name="linkToken"/> cancels it too.</summary>
        public static CancellationToken ToCancellationToken(this OnityTask task, CancellationToken linkToken)
        {
            if (linkToken.IsCancellationRequested) return linkToken;
            if (!linkToken.CanBeCanceled) return ToCancellationToken(task);
            var cts = CancellationTokenSource.CreateLinkedTokenSource(linkToken);
            CancelWhenDone(task, cts).Forget();
            return cts.Token;
        }

        public static CancellationToken ToCancellationToken<T>(this OnityTask<T> task) { return ToCancellationToken(task.AsOnityTask()); }

        public static CancellationToken ToCancellationToken<T>(this OnityTask<T> task, CancellationToken linkToken) { return ToCancellationToken(task.AsOnityTask(), linkToken); }

        static async OnityTask CancelWhenDone(OnityTask task, CancellationTokenSource cts)
        {
            try { await task; }
            catch (Exception) { } // any outcome cancels the token
            cts.Cancel();
        }
    }

    public static partial class OnityCancellationExtensions
    {
        static readonly Action<object> setResult = s => ((AutoResetOnityCompletionSource)s).TrySetResult();
        static readonly Action<object> dispose = s => ((IDisposable)s).Dispose();

        /// <summary>A task completed (successfully) when the token is canceled, with its registration
        /// to dispose (UniTask's <c>ToUniTask</c>); canceled at once when the token already is.</summary>
        public static ValueTuple<OnityTask, CancellationTokenRegistration> ToOnityTask(this CancellationToken cancellationToken)
        {
            if (cancellationToken.IsCancellationRequested) return ValueTuple.Create(OnityTask.FromCanceled(cancellationToken), default(CancellationTokenRegistration));
            var src = AutoResetOnityCompletionSource.Create();
            var task = src.Task;
            return ValueTuple.Create(task, cancellationToken.RegisterWithoutCaptureExecutionContext(setResult, src));
        }

        /// <summary>Completes (successfully) when the token is canceled, seen at the next run of
        /// Update (<see cref="OnityTask.WaitUntilCanceled"/>).</summary>
        public static OnityTask WaitUntilCanceled(this CancellationToken cancellationToken)
        {
            return OnityTask.WaitUntilCanceled(cancellationToken);
        }

        /// <summary>Registers <paramref name="callback"/> without capturing the ExecutionContext
        /// (AsyncLocal values are not restored when it runs).</summary>
        public static CancellationTokenRegistration RegisterWithoutCaptureExecutionContext(this CancellationToken cancellationToken, Action callback)
        {
            if (callback == null) throw new ArgumentNullException("callback");
            return RegisterWithoutCaptureExecutionContext(cancellationToken, invoke, callback);
        }

        static readonly Action<object> invoke = s => ((Action)s)();

        /// <summary>As <see cref="RegisterWithoutCaptureExecutionContext(CancellationToken, Action)"/>, with a state.</summary>
        public static CancellationTokenRegistration RegisterWithoutCaptureExecutionContext(this CancellationToken cancellationToken, Action<object> callback, object state)
        {
            if (callback == null) throw new ArgumentNullException("callback");
            bool restore = false;
            if (!ExecutionContext.IsFlowSuppressed())
            {
                ExecutionContext.SuppressFlow();
                restore = true;
            }
            try { return cancellationToken.Register(callback, state, false); }
            finally { if (restore) ExecutionContext.RestoreFlow(); }
        }

        /// <summary>Disposes <paramref name="disposable"/> when the token is canceled.</summary>
        public static CancellationTokenRegistration AddTo(this IDisposable disposable, CancellationToken cancellationToken)
        {
            if (disposable == null) throw new ArgumentNullException("disposable");
            return cancellationToken.RegisterWithoutCaptureExecutionContext(dispose, disposable);
        }
    }
}
