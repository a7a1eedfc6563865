using System;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;
using System.Threading.Tasks.Sources;

namespace Onity
{
    // .NET interop: OnityTask -> Task / ValueTask, and Task / ValueTask -> OnityTask.

    public partial struct OnityTask
    {
        /// <summary>This task as a <see cref="System.Threading.Tasks.Task"/> (consumes it). Allocates
        /// the Task (already complete: a cached or small completed Task). The Task completes on the
        /// owner thread, where the OnityTask's continuation runs.</summary>
        public Task AsTask()
        {
            var aw = GetAwaiter();
            if (aw.IsCompleted)
            {
                try
                {
                    aw.GetResult();
                    return Task.CompletedTask;
                }
                catch (OperationCanceledException ex) { return Task.FromCanceled(CanceledToken(ex)); }
                catch (Exception ex) { return Task.FromException(ex); }
            }
            var tcs = new TaskCompletionSource<AsyncUnit>();
            aw.UnsafeOnCompleted(() =>
            {
                try
                {
                    aw.GetResult();
                    tcs.TrySetResult(default(AsyncUnit));
                }
                catch (OperationCanceledException ex) { tcs.TrySetCanceled(ex.CancellationToken); }
                catch (Exception ex) { tcs.TrySetException(ex); }
            });
            return tcs.Task;
        }

        /// <summary>This task as a <see cref="ValueTask"/> (consumes it): over a pooled
        /// <see cref="IValueTaskSource"/>, so nothing is allocated after warm-up. Await the
        /// ValueTask once (ValueTask's rule).</summary>
        public ValueTask AsValueTask()
        {
            if (source == null) return default(ValueTask);
            var b = OnityValueTaskSource<AsyncUnit>.Rent(this);
            return new ValueTask(b, b.Version);
        }

        internal static CancellationToken CanceledToken(OperationCanceledException ex)
        {
            // Task.FromCanceled needs a canceled token; a default one is not.
            return ex.CancellationToken.IsCancellationRequested ? ex.CancellationToken : new CancellationToken(true);
        }
    }

    public partial struct OnityTask<T>
    {
        /// <summary>As <see cref="OnityTask.AsTask"/>, with the result.</summary>
        public Task<T> AsTask()
        {
            var aw = GetAwaiter();
            if (aw.IsCompleted)
            {
                try { return Task.FromResult(aw.GetResult()); }
                catch (OperationCanceledException ex) { return Task.FromCanceled<T>(OnityTask.CanceledToken(ex)); }
                catch (Exception ex) { return Task.FromException<T>(ex); }
            }
            var tcs = new TaskCompletionSource<T>();
            aw.UnsafeOnCompleted(() =>
            {
                try { tcs.TrySetResult(aw.GetResult()); }
                catch (OperationCanceledException ex) { tcs.TrySetCanceled(ex.CancellationToken); }
                catch (Exception ex) { tcs.TrySetException(ex); }
            });
            return tcs.Task;
        }

        /// <summary>As <see cref="OnityTask.AsValueTask"/>, with the result (nothing allocated
        /// after warm-up).</summary>
        public ValueTask<T> AsValueTask()
        {
            if (source == null) return new ValueTask<T>(result);
            var b = OnityValueTaskSource<T>.Rent(this);
            return new ValueTask<T>(b, b.Version);
        }
    }

    /// <summary>Conversions from .NET tasks.</summary>
    public static class OnityTaskInteropExtensions
    {
        /// <summary>The Task as an OnityTask. A pending Task is observed without its
        /// SynchronizationContext (<c>ConfigureAwait(false)</c>); the OnityTask's continuation
        /// runs on the runtime's owner thread (at its next BeginFrame/Tick/Drain when the Task
        /// completes on another thread). The Task's own continuation allocates (TPL); the OnityTask
        /// side is pooled.</summary>
        public static OnityTask AsOnityTask(this Task task)
        {
            if (task == null) throw new ArgumentNullException("task");
            if (task.IsCompleted) return FromCompleted(task);
            return OnityTaskFromAwaiter<AsyncUnit>.Start(task.ConfigureAwait(false).GetAwaiter()).AsOnityTask();
        }

        /// <summary>As <see cref="AsOnityTask(Task)"/>, with the result.</summary>
        public static OnityTask<T> AsOnityTask<T>(this Task<T> task)
        {
            if (task == null) throw new ArgumentNullException("task");
            if (task.IsCompleted)
            {
                if (task.Status == TaskStatus.RanToCompletion) return new OnityTask<T>(task.Result);
                if (task.IsCanceled) return OnityTask.FromCanceled<T>(CanceledTokenOf(task));
                return OnityTask.FromException<T>(FirstError(task));
            }
            return OnityTaskFromAwaiter<T>.Start(task.ConfigureAwait(false).GetAwaiter());
        }

        /// <summary>The ValueTask as an OnityTask. One backed by an <see cref="IValueTaskSource"/>
        /// is observed without allocating (pooled bridge); one backed by a Task as
        /// <see cref="AsOnityTask(Task)"/>.</summary>
        public static OnityTask AsOnityTask(this ValueTask task)
        {
            if (task.IsCompletedSuccessfully)
            {
                task.GetAwaiter().GetResult(); // consumes an IValueTaskSource
                return OnityTask.CompletedTask;
            }
            return OnityTaskFromAwaiter<AsyncUnit>.Start(task.ConfigureAwait(false).GetAwaiter()).AsOnityTask();
        }

        /// <summary>As <see cref="AsOnityTask(ValueTask)"/>, with the result.</summary>
        public static OnityTask<T> AsOnityTask<T>(this ValueTask<T> task)
        {
            if (task.IsCompletedSuccessfully) return new OnityTask<T>(task.Result);
            return OnityTaskFromAwaiter<T>.Start(task.ConfigureAwait(false).GetAwaiter());
        }

        static OnityTask FromCompleted(Task task)
        {
            if (task.Status == TaskStatus.RanToCompletion) return OnityTask.CompletedTask;
            if (task.IsCanceled) return OnityTask.FromCanceled(CanceledTokenOf(task));
            return OnityTask.FromException(FirstError(task));
        }

        /// <summary>The first inner exception, as awaiting the Task throws it (UniTask does the
        /// same on both paths: already faulted, or faulting later).</summary>
        static Exception FirstError(Task task)
        {
            var agg = task.Exception;
            return agg != null && agg.InnerExceptions.Count > 0 ? agg.InnerExceptions[0] : (Exception)agg ?? new InvalidOperationException("Onity: the task faulted without an exception.");
        }

        static CancellationToken CanceledTokenOf(Task task)
        {
            try { task.GetAwaiter().GetResult(); }
            catch (OperationCanceledException ex) { return ex.CancellationToken; }
            catch (Exception) { }
            return default(CancellationToken);
        }
    }

    /// <summary>A pooled bridge from a .NET awaiter to an OnityTask: a completion source completed
    /// by the awaiter's continuation (on whatever thread it runs; the OnityTask's continuation is
    /// dispatched to the owner thread).</summary>
    internal sealed class OnityTaskFromAwaiter<T>
    {
        static readonly OnityObjectPool<OnityTaskFromAwaiter<T>> pool = new OnityObjectPool<OnityTaskFromAwaiter<T>>(256);
        readonly Action onCompleted;
        ConfiguredTaskAwaitable.ConfiguredTaskAwaiter untypedTask;
        ConfiguredTaskAwaitable<T>.ConfiguredTaskAwaiter typedTask;
        ConfiguredValueTaskAwaitable.ConfiguredValueTaskAwaiter untypedValue;
        ConfiguredValueTaskAwaitable<T>.ConfiguredValueTaskAwaiter typedValue;
        byte kind; // 0 Task, 1 Task<T>, 2 ValueTask, 3 ValueTask<T>
        AutoResetOnityCompletionSource<T> target;

        OnityTaskFromAwaiter() { onCompleted = OnCompleted; }

        static OnityTaskFromAwaiter<T> Rent(byte kind)
        {
            var b = pool.TryRent() ?? new OnityTaskFromAwaiter<T>();
            b.kind = kind;
            b.target = AutoResetOnityCompletionSource<T>.Create();
            return b;
        }

        internal static OnityTask<T> Start(ConfiguredTaskAwaitable.ConfiguredTaskAwaiter awaiter) { var b = Rent(0); b.untypedTask = awaiter; return b.Begin(); }
        internal static OnityTask<T> Start(ConfiguredTaskAwaitable<T>.ConfiguredTaskAwaiter awaiter) { var b = Rent(1); b.typedTask = awaiter; return b.Begin(); }
        internal static OnityTask<T> Start(ConfiguredValueTaskAwaitable.ConfiguredValueTaskAwaiter awaiter) { var b = Rent(2); b.untypedValue = awaiter; return b.Begin(); }
        internal static OnityTask<T> Start(ConfiguredValueTaskAwaitable<T>.ConfiguredValueTaskAwaiter awaiter) { var b = Rent(3); b.typedValue = awaiter; return b.Begin(); }

        OnityTask<T> Begin()
        {
            var task = target.Task;
            switch (kind)
            {
                case 0: untypedTask.UnsafeOnCompleted(onCompleted); break;
                case 1: typedTask.UnsafeOnCompleted(onCompleted); break;
                case 2: untypedValue.UnsafeOnCompleted(onCompleted); break;
                default: typedValue.UnsafeOnCompleted(onCompleted); break;
            }
            return task;
        }

        void OnCompleted()
        {
            var t = target;
            target = null;
            T value = default(T);
            Exception error = null;
            try
            {
                switch (kind)
                {
                    case 0: untypedTask.GetResult(); break;
                    case 1: value = typedTask.GetResult(); break;
                    case 2: untypedValue.GetResult(); break;
                    default: value = typedValue.GetResult(); break;
                }
            }
            catch (Exception ex) { error = ex; }
            untypedTask = default(ConfiguredTaskAwaitable.ConfiguredTaskAwaiter);
            typedTask = default(ConfiguredTaskAwaitable<T>.ConfiguredTaskAwaiter);
            untypedValue = default(ConfiguredValueTaskAwaitable.ConfiguredValueTaskAwaiter);
            typedValue = default(ConfiguredValueTaskAwaitable<T>.ConfiguredValueTaskAwaiter);
            pool.Return(this);
            // Last: completing may run the OnityTask's continuation inline (on the owner thread).
            if (error == null) t.TrySetResult(value);
            else t.TrySetException(error);
        }
    }

    /// <summary>A pooled <see cref="IValueTaskSource"/> over one OnityTask (what
    /// <c>AsValueTask</c> returns): versioned with the ValueTask's 16-bit token, returned to its
    /// pool when the ValueTask is consumed.</summary>
    internal sealed class OnityValueTaskSource<T> : IValueTaskSource, IValueTaskSource<T>
    {
        static readonly OnityObjectPool<OnityValueTaskSource<T>> pool = new OnityObjectPool<OnityValueTaskSource<T>>(256);
        static readonly ContextCallback runInContext = RunInContext;
        readonly Action onCompleted;
        OnityTask untyped;
        OnityTask<T> typed;
        bool isTyped;
        short version;
        Action<object> continuation;
        object state;
        ExecutionContext context;

        OnityValueTaskSource() { onCompleted = OnCompleted; }

        internal short Version { get { return version; } }

        internal static OnityValueTaskSource<T> Rent(OnityTask task)
        {
            var b = pool.TryRent() ?? new OnityValueTaskSource<T>();
            b.untyped = task;
            b.isTyped = false;
            return b;
        }

        internal static OnityValueTaskSource<T> Rent(OnityTask<T> task)
        {
            var b = pool.TryRent() ?? new OnityValueTaskSource<T>();
            b.typed = task;
            b.isTyped = true;
            return b;
        }

        void Check(short token)
        {
            if (token != version) throw OnityErrors.Stale();
        }

        public ValueTaskSourceStatus GetStatus(short token)
        {
            Check(token);
            var s = isTyped ? typed.Status : untyped.Status;
            if (s == OnityTaskStatus.Pending) return ValueTaskSourceStatus.Pending;
            return s == OnityTaskStatus.Succeeded ? ValueTaskSourceStatus.Succeeded : s == OnityTaskStatus.Canceled ? ValueTaskSourceStatus.Canceled : ValueTaskSourceStatus.Faulted;
        }

        public void OnCompleted(Action<object> continuation, object state, short token, ValueTaskSourceOnCompletedFlags flags)
        {
            Check(token);
            if (this.continuation != null) throw OnityErrors.Twice();
            this.continuation = continuation;
            this.state = state;
            // Continuations run on the owner thread; a SynchronizationContext request is met by
            // that. An ExecutionContext is flowed when asked for (async Task builders do not ask).
            if ((flags & ValueTaskSourceOnCompletedFlags.FlowExecutionContext) != 0) context = ExecutionContext.Capture();
            if (isTyped) typed.GetAwaiter().UnsafeOnCompleted(onCompleted);
            else untyped.GetAwaiter().UnsafeOnCompleted(onCompleted);
        }

        void OnCompleted()
        {
            var c = continuation;
            var s = state;
            var ec = context;
            continuation = null;
            state = null;
            context = null;
            if (ec == null) c(s);
            else ExecutionContext.Run(ec, runInContext, new ContinuationAndState(c, s));
        }

        sealed class ContinuationAndState
        {
            internal readonly Action<object> c;
            internal readonly object s;
            internal ContinuationAndState(Action<object> c, object s) { this.c = c; this.s = s; }
        }

        static void RunInContext(object o)
        {
            var cs = (ContinuationAndState)o;
            cs.c(cs.s);
        }

        void IValueTaskSource.GetResult(short token) { GetResult(token); }

        public T GetResult(short token)
        {
            Check(token);
            if (GetStatus(token) == ValueTaskSourceStatus.Pending) throw OnityErrors.Pending();
            try { return isTyped ? typed.GetAwaiter().GetResult() : GetUntyped(); }
            finally
            {
                unchecked { version++; }
                untyped = default(OnityTask);
                typed = default(OnityTask<T>);
                pool.Return(this);
            }
        }

        T GetUntyped()
        {
            untyped.GetAwaiter().GetResult();
            return default(T);
        }
    }
}
