using System;
using System.Runtime.CompilerServices;
using System.Security;

namespace Onity
{
    /// <summary>The return type of fire-and-forget async methods (UniTask's UniTaskVoid):
    /// <c>async OnityTaskVoid M()</c> runs as <c>async OnityTask</c> followed by
    /// <see cref="OnityTask.Forget"/>: nothing can await it, a failure (other than cancellation)
    /// goes to <see cref="OnityTask.UnobservedTaskException"/>. Unlike <c>async void</c> it does
    /// not go through a SynchronizationContext and allocates nothing in steady state (pooled
    /// runners, as <c>async OnityTask</c>).</summary>
    [AsyncMethodBuilder(typeof(CompilerServices.AsyncOnityTaskVoidMethodBuilder))]
    public readonly struct OnityTaskVoid
    {
        /// <summary>Does nothing: the method is already observed (it silences the "call not
        /// awaited" warning, as UniTaskVoid.Forget).</summary>
        public void Forget() { }
    }
}

namespace Onity.CompilerServices
{
    /// <summary>Builder of <c>async OnityTaskVoid</c> methods: an <see cref="OnityTaskMethodBuilder"/>
    /// whose task is forgotten once the method first returns.</summary>
    public struct AsyncOnityTaskVoidMethodBuilder
    {
        OnityTaskMethodBuilder inner;

        public static AsyncOnityTaskVoidMethodBuilder Create() { return default(AsyncOnityTaskVoidMethodBuilder); }

        public OnityTaskVoid Task { get { return default(OnityTaskVoid); } }

        public void Start<TStateMachine>(ref TStateMachine stateMachine) where TStateMachine : IAsyncStateMachine
        {
            inner.Start(ref stateMachine);
            // Completed (succeeded or faulted) or suspended: observe it from here on.
            inner.Task.Forget();
        }

        public void SetStateMachine(IAsyncStateMachine stateMachine) { }

        public void SetResult() { inner.SetResult(); }

        public void SetException(Exception exception) { inner.SetException(exception); }

        public void AwaitOnCompleted<TAwaiter, TStateMachine>(ref TAwaiter awaiter, ref TStateMachine stateMachine)
            where TAwaiter : INotifyCompletion
            where TStateMachine : IAsyncStateMachine
        {
            inner.AwaitOnCompleted(ref awaiter, ref stateMachine);
        }

        [SecuritySafeCritical]
        public void AwaitUnsafeOnCompleted<TAwaiter, TStateMachine>(ref TAwaiter awaiter, ref TStateMachine stateMachine)
            where TAwaiter : ICriticalNotifyCompletion
            where TStateMachine : IAsyncStateMachine
        {
            inner.AwaitUnsafeOnCompleted(ref awaiter, ref stateMachine);
        }
    }
}
