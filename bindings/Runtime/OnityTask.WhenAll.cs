using System;
using System.Runtime.CompilerServices;
using System.Runtime.ExceptionServices;
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

    /// <summary>WhenAll over untyped tasks (the coordinator: <see cref="WhenPromise{TTask, TResult, TOps}"/>).</summary>
    internal static class WhenAllPromise
    {
        internal static OnityTask Create(OnityTask[] tasks, CancellationToken ct)
        {
            if (WhenArgs.Count(tasks) == 0) return OnityTask.CompletedTask;
            var p = WhenPromise<OnityTask, AsyncUnit, Ops>.Start(tasks, ct, true, default(AsyncUnit));
            return new OnityTask(p, p.Version);
        }

        internal struct Ops : IWhenOps<OnityTask, AsyncUnit>
        {
            public bool Any { [MethodImpl(MethodImplOptions.AggressiveInlining)] get { return false; } }
            [MethodImpl(MethodImplOptions.AggressiveInlining)] public IOnityTaskSource Source(OnityTask task, out long token) { token = task.token; return task.source; }
            [MethodImpl(MethodImplOptions.AggressiveInlining)] public AsyncUnit Read(IOnityTaskSource source, long token, int index, ref AsyncUnit shared) { WhenArgs.Read(source, token); return shared; }
            [MethodImpl(MethodImplOptions.AggressiveInlining)] public AsyncUnit ReadCompleted(OnityTask task, int index, ref AsyncUnit shared) { return shared; }
            public IOnityTaskSource Faulted(Exception ex) { return new ExceptionSource<AsyncUnit>(ExceptionDispatchInfo.Capture(ex), false); }
        }
    }

    /// <summary>WhenAll over typed tasks: every result, in input order (a new array, filled as
    /// the inputs finish; the coordinator is not pooled: the array is the caller's).</summary>
    internal static class WhenAllPromise<T>
    {
        internal static OnityTask<T[]> Create(OnityTask<T>[] tasks, CancellationToken ct)
        {
            int n = WhenArgs.Count(tasks);
            if (n == 0) return OnityTask.FromResult(new T[0]);
            var p = WhenPromise<OnityTask<T>, T[], Ops>.Start(tasks, ct, false, new T[n]);
            return new OnityTask<T[]>(p, p.Version);
        }

        internal struct Ops : IWhenOps<OnityTask<T>, T[]>
        {
            public bool Any { [MethodImpl(MethodImplOptions.AggressiveInlining)] get { return false; } }
            [MethodImpl(MethodImplOptions.AggressiveInlining)] public IOnityTaskSource Source(OnityTask<T> task, out long token) { token = task.token; return task.source; }
            [MethodImpl(MethodImplOptions.AggressiveInlining)] public T[] Read(IOnityTaskSource source, long token, int index, ref T[] shared) { shared[index] = ((IOnityTaskSource<T>)source).GetResult(token); return shared; }
            [MethodImpl(MethodImplOptions.AggressiveInlining)] public T[] ReadCompleted(OnityTask<T> task, int index, ref T[] shared) { shared[index] = task.result; return shared; }
            public IOnityTaskSource Faulted(Exception ex) { return new ExceptionSource<T>(ExceptionDispatchInfo.Capture(ex), false); }
        }
    }
}
