using System;
using System.Runtime.CompilerServices;
using System.Runtime.ExceptionServices;
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

    /// <summary>WhenAny over untyped tasks: the winner's index (the coordinator:
    /// <see cref="WhenPromise{TTask, TResult, TOps}"/>).</summary>
    internal static class WhenAnyPromise
    {
        internal static OnityTask<int> Create(OnityTask[] tasks, CancellationToken ct)
        {
            WhenArgs.CountAny(tasks);
            var p = WhenPromise<OnityTask, int, Ops>.Start(tasks, ct, true, 0);
            return new OnityTask<int>(p, p.Version);
        }

        internal struct Ops : IWhenOps<OnityTask, int>
        {
            public bool Any { [MethodImpl(MethodImplOptions.AggressiveInlining)] get { return true; } }
            [MethodImpl(MethodImplOptions.AggressiveInlining)] public IOnityTaskSource Source(OnityTask task, out long token) { token = task.token; return task.source; }
            [MethodImpl(MethodImplOptions.AggressiveInlining)] public int Read(IOnityTaskSource source, long token, int index, ref int shared) { WhenArgs.Read(source, token); return index; }
            [MethodImpl(MethodImplOptions.AggressiveInlining)] public int ReadCompleted(OnityTask task, int index, ref int shared) { return index; }
            public IOnityTaskSource Faulted(Exception ex) { return new ExceptionSource<AsyncUnit>(ExceptionDispatchInfo.Capture(ex), false); }
        }
    }

    /// <summary>WhenAny over typed tasks: the winner's index and result.</summary>
    internal static class WhenAnyPromise<T>
    {
        internal static OnityTask<WhenAnyResult<T>> Create(OnityTask<T>[] tasks, CancellationToken ct)
        {
            WhenArgs.CountAny(tasks);
            var p = WhenPromise<OnityTask<T>, WhenAnyResult<T>, Ops>.Start(tasks, ct, true, default(WhenAnyResult<T>));
            return new OnityTask<WhenAnyResult<T>>(p, p.Version);
        }

        internal struct Ops : IWhenOps<OnityTask<T>, WhenAnyResult<T>>
        {
            public bool Any { [MethodImpl(MethodImplOptions.AggressiveInlining)] get { return true; } }
            [MethodImpl(MethodImplOptions.AggressiveInlining)] public IOnityTaskSource Source(OnityTask<T> task, out long token) { token = task.token; return task.source; }
            [MethodImpl(MethodImplOptions.AggressiveInlining)] public WhenAnyResult<T> Read(IOnityTaskSource source, long token, int index, ref WhenAnyResult<T> shared) { return new WhenAnyResult<T>(index, ((IOnityTaskSource<T>)source).GetResult(token)); }
            [MethodImpl(MethodImplOptions.AggressiveInlining)] public WhenAnyResult<T> ReadCompleted(OnityTask<T> task, int index, ref WhenAnyResult<T> shared) { return new WhenAnyResult<T>(index, task.result); }
            public IOnityTaskSource Faulted(Exception ex) { return new ExceptionSource<T>(ExceptionDispatchInfo.Capture(ex), false); }
        }
    }
}
