using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;

namespace Onity
{
    // UniTask's remaining small helpers: Unwrap, ToAsyncLazy, IsOperationCanceledException,
    // CancellationTokenEqualityComparer, Progress.

    public readonly partial struct OnityTask
    {
        /// <summary>This task as a task of <see cref="AsyncUnit"/> (UniTask's AsAsyncUnitUniTask):
        /// completed at once when this one is; otherwise its outcome once awaited.</summary>
        public OnityTask<AsyncUnit> AsAsyncUnitOnityTask()
        {
            if (source == null) return new OnityTask<AsyncUnit>(AsyncUnit.Default);
            return AsUnit(this); // (OnityTask.Run.cs)
        }
    }

    public static partial class OnityTaskExtensions
    {
        public static async OnityTask<T> Unwrap<T>(this OnityTask<OnityTask<T>> task) { return await await task; }
        public static async OnityTask Unwrap(this OnityTask<OnityTask> task) { await await task; }
        public static async OnityTask<T> Unwrap<T>(this Task<OnityTask<T>> task) { return await await task; }
        public static async OnityTask Unwrap(this Task<OnityTask> task) { await await task; }
        public static async OnityTask<T> Unwrap<T>(this OnityTask<Task<T>> task) { return await await task; }
        public static async OnityTask Unwrap(this OnityTask<Task> task) { await await task; }

        /// <summary>As <see cref="Unwrap{T}(Task{OnityTask{T}})"/>; the Task is awaited with
        /// <c>ConfigureAwait(continueOnCapturedContext)</c>.</summary>
        public static async OnityTask<T> Unwrap<T>(this Task<OnityTask<T>> task, bool continueOnCapturedContext)
        {
            return await await task.ConfigureAwait(continueOnCapturedContext);
        }

        public static async OnityTask Unwrap(this Task<OnityTask> task, bool continueOnCapturedContext)
        {
            await await task.ConfigureAwait(continueOnCapturedContext);
        }

        public static async OnityTask<T> Unwrap<T>(this OnityTask<Task<T>> task, bool continueOnCapturedContext)
        {
            return await (await task).ConfigureAwait(continueOnCapturedContext);
        }

        public static async OnityTask Unwrap(this OnityTask<Task> task, bool continueOnCapturedContext)
        {
            await (await task).ConfigureAwait(continueOnCapturedContext);
        }

        /// <summary>The task as an <see cref="AsyncLazy"/> (awaited once, by the first await of the lazy).</summary>
        public static AsyncLazy ToAsyncLazy(this OnityTask task) { return new AsyncLazy(() => task); }

        /// <summary>As <see cref="ToAsyncLazy(OnityTask)"/>, with the result.</summary>
        public static AsyncLazy<T> ToAsyncLazy<T>(this OnityTask<T> task) { return new AsyncLazy<T>(() => task); }
    }

    /// <summary>UniTask's <c>ExceptionExtensions</c>.</summary>
    public static class OnityExceptionExtensions
    {
        public static bool IsOperationCanceledException(this Exception exception) { return exception is OperationCanceledException; }
    }

    /// <summary>UniTask's <c>CancellationTokenEqualityComparer</c>.</summary>
    public sealed class OnityCancellationTokenEqualityComparer : IEqualityComparer<CancellationToken>
    {
        public static readonly IEqualityComparer<CancellationToken> Default = new OnityCancellationTokenEqualityComparer();

        public bool Equals(CancellationToken x, CancellationToken y) { return x.Equals(y); }
        public int GetHashCode(CancellationToken obj) { return obj.GetHashCode(); }
    }

    /// <summary>UniTask's <c>Progress</c>: <see cref="IProgress{T}"/> from a delegate, called
    /// synchronously (not through a SynchronizationContext, unlike <c>System.Progress</c>).</summary>
    public static class OnityProgress
    {
        public static IProgress<T> Create<T>(Action<T> handler)
        {
            if (handler == null) throw new ArgumentNullException("handler");
            return new Anonymous<T>(handler);
        }

        /// <summary>Calls <paramref name="handler"/> only when the value differs from the last one reported.</summary>
        public static IProgress<T> CreateOnlyValueChanged<T>(Action<T> handler, IEqualityComparer<T> comparer = null)
        {
            if (handler == null) throw new ArgumentNullException("handler");
            return new OnlyValueChanged<T>(handler, comparer ?? EqualityComparer<T>.Default);
        }

        sealed class Anonymous<T> : IProgress<T>
        {
            readonly Action<T> handler;
            internal Anonymous(Action<T> handler) { this.handler = handler; }
            public void Report(T value) { handler(value); }
        }

        sealed class OnlyValueChanged<T> : IProgress<T>
        {
            readonly Action<T> handler;
            readonly IEqualityComparer<T> comparer;
            bool any;
            T last;

            internal OnlyValueChanged(Action<T> handler, IEqualityComparer<T> comparer)
            {
                this.handler = handler;
                this.comparer = comparer;
            }

            public void Report(T value)
            {
                if (any && comparer.Equals(last, value)) return;
                any = true;
                last = value;
                handler(value);
            }
        }
    }
}
