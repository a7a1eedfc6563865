using System;
using System.Threading;

namespace Onity
{
    // The completion sources' setter interfaces (UniTask's IResolvePromise, IRejectPromise,
    // ICancelPromise, IPromise): implemented by OnityCompletionSource(<T>) and
    // AutoResetOnityCompletionSource(<T>), so code completing a task can take any of them.

    /// <summary>Completes a task successfully (false when it already completed).</summary>
    public interface IOnityResolvePromise
    {
        bool TrySetResult();
    }

    /// <summary>Completes a task with a value (false when it already completed).</summary>
    public interface IOnityResolvePromise<T>
    {
        bool TrySetResult(T value);
    }

    /// <summary>Faults a task (an OperationCanceledException cancels it).</summary>
    public interface IOnityRejectPromise
    {
        bool TrySetException(Exception exception);
    }

    /// <summary>Cancels a task.</summary>
    public interface IOnityCancelPromise
    {
        bool TrySetCanceled(CancellationToken cancellationToken = default(CancellationToken));
    }

    /// <summary>A settable task with a value.</summary>
    public interface IOnityPromise<T> : IOnityResolvePromise<T>, IOnityRejectPromise, IOnityCancelPromise
    {
    }

    /// <summary>A settable task.</summary>
    public interface IOnityPromise : IOnityResolvePromise, IOnityRejectPromise, IOnityCancelPromise
    {
    }
}
