using System;

namespace Onity
{
    /// <summary>What an <see cref="OnityTask"/> points at. <c>token</c> identifies one use of a
    /// (possibly pooled) source; a source rejects a stale token with
    /// <see cref="InvalidOperationException"/>.</summary>
    public interface IOnityTaskSource
    {
        OnityTaskStatus GetStatus(long token);
        /// <summary>Registers the one continuation. It runs on the runtime's owner thread; when the
        /// source is already completed it runs at once (inline), which combinators rely on.</summary>
        void OnCompleted(Action continuation, long token);
        /// <summary>Ends this use of the source: returns normally or throws the failure.</summary>
        void GetResult(long token);
    }

    public interface IOnityTaskSource<out T> : IOnityTaskSource
    {
        new T GetResult(long token);
    }

    internal static class OnityErrors
    {
        internal const string AwaitTwice =
            "OnityTask: can not await twice. The task's source was already consumed (awaited or GetResult called) and may have been reused: the task is stale.";
        internal const string SecondContinuation =
            "OnityTask: can not await twice. This task already has a continuation (it is being awaited elsewhere, or was passed to WhenAny/WhenAll).";
        internal const string NotCompleted =
            "OnityTask: GetResult was called before the task completed; await it instead.";

        internal static InvalidOperationException Stale() { return new InvalidOperationException(AwaitTwice); }
        internal static InvalidOperationException Twice() { return new InvalidOperationException(SecondContinuation); }
        internal static InvalidOperationException Pending() { return new InvalidOperationException(NotCompleted); }
    }
}
