using System;

namespace Onity
{
    /// <summary>What <see cref="OnityTaskExtensions.SuppressCancellationThrow{T}(OnityTask{T})"/> returns: whether the task
    /// was canceled and, when not, its result. Deconstructs as <c>var (isCanceled, result) = ...</c>
    /// (UniTask returns the tuple <c>(bool IsCanceled, T Result)</c>; mcs cannot compile a named
    /// tuple inside a generic return type, so this is a struct with the same members).</summary>
    public readonly struct SuppressedResult<T>
    {
        public readonly bool IsCanceled;
        public readonly T Result;

        public SuppressedResult(bool isCanceled, T result)
        {
            IsCanceled = isCanceled;
            Result = result;
        }

        public void Deconstruct(out bool isCanceled, out T result)
        {
            isCanceled = IsCanceled;
            result = Result;
        }

        public override string ToString() { return IsCanceled ? "(canceled)" : "(" + Result + ")"; }
    }

    public partial struct OnityTask
    {
        /// <summary>A task that completes with true when this one is canceled, false when it
        /// succeeds, instead of throwing <see cref="OperationCanceledException"/> to the caller (a
        /// failure still throws). Consumes this task. The source's cancellation exception is caught
        /// inside (sources create it when consumed); nothing reaches the caller, and after warm-up
        /// nothing is allocated on the success path (a pooled async runner).</summary>
        public OnityTask<bool> SuppressCancellationThrow()
        {
            if (source == null) return new OnityTask<bool>(false);
            return SuppressCore(this);
        }

        static async OnityTask<bool> SuppressCore(OnityTask task)
        {
            try { await task; }
            catch (OperationCanceledException) { return true; }
            return false;
        }
    }

    // An extension method, not a member of OnityTask<T> (as Timeout<T>, OnityTask.Timeout.cs):
    // a member of OnityTask<T> returning OnityTask<SuppressedResult<T>> makes Mono's full AOT
    // compile SuppressedResult<SuppressedResult<...>> instantiations up to its depth limit.
    public static partial class OnityTaskExtensions
    {
        /// <summary>As <see cref="OnityTask.SuppressCancellationThrow"/>, with the result when the
        /// task was not canceled (<c>default(T)</c> when it was).</summary>
        public static OnityTask<SuppressedResult<T>> SuppressCancellationThrow<T>(this OnityTask<T> task)
        {
            if (task.source == null) return new OnityTask<SuppressedResult<T>>(new SuppressedResult<T>(false, task.result));
            return SuppressCore(task);
        }

        static async OnityTask<SuppressedResult<T>> SuppressCore<T>(OnityTask<T> task)
        {
            T value;
            try { value = await task; }
            catch (OperationCanceledException) { return new SuppressedResult<T>(true, default(T)); }
            return new SuppressedResult<T>(false, value);
        }
    }
}
