using System;
using System.Runtime.CompilerServices;
using System.Threading;

namespace Onity
{
    // UniTask's SynchronizationContext switches (UniTask.Threading.cs): continue on a given
    // context, or go back to one (or to the main thread) when a scope ends (`await using` in C# 8,
    // `await scope.DisposeAsync()` in C# 7.2).
    public partial struct OnityTask
    {
        /// <summary>Continues through <paramref name="synchronizationContext"/>'s <c>Post</c>
        /// (always posts). The await throws <see cref="OperationCanceledException"/> when
        /// <paramref name="cancellationToken"/> was canceled by the time it resumes.</summary>
        public static SwitchToSynchronizationContextAwaitable SwitchToSynchronizationContext(SynchronizationContext synchronizationContext, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (synchronizationContext == null) throw new ArgumentNullException("synchronizationContext");
            return new SwitchToSynchronizationContextAwaitable(synchronizationContext, cancellationToken);
        }

        /// <summary>A scope whose <c>DisposeAsync</c> continues through
        /// <paramref name="synchronizationContext"/> (always posts).</summary>
        public static ReturnToSynchronizationContext ReturnToSynchronizationContext(SynchronizationContext synchronizationContext, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (synchronizationContext == null) throw new ArgumentNullException("synchronizationContext");
            return new ReturnToSynchronizationContext(synchronizationContext, false, cancellationToken);
        }

        /// <summary>A scope whose <c>DisposeAsync</c> returns to the calling thread's current
        /// <see cref="SynchronizationContext"/>: at once when it is still current there and
        /// <paramref name="dontPostWhenSameContext"/>, else through its <c>Post</c>. Throws
        /// <see cref="InvalidOperationException"/> when the caller has no current context.</summary>
        public static ReturnToSynchronizationContext ReturnToCurrentSynchronizationContext(bool dontPostWhenSameContext = true, CancellationToken cancellationToken = default(CancellationToken))
        {
            var current = SynchronizationContext.Current;
            if (current == null) throw new InvalidOperationException("Onity: the calling thread has no SynchronizationContext.Current to return to.");
            return new ReturnToSynchronizationContext(current, dontPostWhenSameContext, cancellationToken);
        }

        /// <summary>A scope whose <c>DisposeAsync</c> returns to the runtime's owner thread
        /// (<see cref="SwitchToMainThread(CancellationToken)"/>).</summary>
        public static ReturnToMainThread ReturnToMainThread(CancellationToken cancellationToken = default(CancellationToken))
        {
            return new ReturnToMainThread(cancellationToken);
        }

        /// <summary>As <see cref="ReturnToMainThread(CancellationToken)"/>, resuming at
        /// <paramref name="timing"/> when it comes from another thread.</summary>
        public static ReturnToMainThread ReturnToMainThread(OnityTiming timing, CancellationToken cancellationToken = default(CancellationToken))
        {
            return new ReturnToMainThread(timing, cancellationToken);
        }
    }

    /// <summary>What <see cref="OnityTask.SwitchToSynchronizationContext"/> returns.</summary>
    public struct SwitchToSynchronizationContextAwaitable
    {
        readonly SynchronizationContext synchronizationContext;
        readonly CancellationToken cancellationToken;

        public SwitchToSynchronizationContextAwaitable(SynchronizationContext synchronizationContext, CancellationToken cancellationToken)
        {
            this.synchronizationContext = synchronizationContext;
            this.cancellationToken = cancellationToken;
        }

        public Awaiter GetAwaiter() { return new Awaiter(synchronizationContext, cancellationToken); }

        public struct Awaiter : ICriticalNotifyCompletion
        {
            internal static readonly SendOrPostCallback run = o => ((Action)o)();
            readonly SynchronizationContext synchronizationContext;
            readonly CancellationToken cancellationToken;

            public Awaiter(SynchronizationContext synchronizationContext, CancellationToken cancellationToken)
            {
                this.synchronizationContext = synchronizationContext;
                this.cancellationToken = cancellationToken;
            }

            public bool IsCompleted { get { return false; } }

            public void GetResult() { cancellationToken.ThrowIfCancellationRequested(); }

            public void OnCompleted(Action continuation) { UnsafeOnCompleted(continuation); }

            public void UnsafeOnCompleted(Action continuation)
            {
                if (synchronizationContext == null) throw new InvalidOperationException("Onity: no SynchronizationContext (a default awaiter).");
                synchronizationContext.Post(run, continuation);
            }
        }
    }

    /// <summary>What <see cref="OnityTask.ReturnToSynchronizationContext"/> returns: its
    /// <see cref="DisposeAsync"/> continues through the context.</summary>
    public struct ReturnToSynchronizationContext
    {
        readonly Awaiter awaiter;

        public ReturnToSynchronizationContext(SynchronizationContext syncContext, bool dontPostWhenSameContext, CancellationToken cancellationToken)
        {
            awaiter = new Awaiter(syncContext, dontPostWhenSameContext, cancellationToken);
        }

        public Awaiter DisposeAsync() { return awaiter; }

        public struct Awaiter : ICriticalNotifyCompletion
        {
            readonly SynchronizationContext synchronizationContext;
            readonly bool dontPostWhenSameContext;
            readonly CancellationToken cancellationToken;

            public Awaiter(SynchronizationContext synchronizationContext, bool dontPostWhenSameContext, CancellationToken cancellationToken)
            {
                this.synchronizationContext = synchronizationContext;
                this.dontPostWhenSameContext = dontPostWhenSameContext;
                this.cancellationToken = cancellationToken;
            }

            public Awaiter GetAwaiter() { return this; }

            /// <summary>True only with dontPostWhenSameContext, when the context is the current one.</summary>
            public bool IsCompleted { get { return dontPostWhenSameContext && SynchronizationContext.Current == synchronizationContext; } }

            public void GetResult() { cancellationToken.ThrowIfCancellationRequested(); }

            public void OnCompleted(Action continuation) { UnsafeOnCompleted(continuation); }

            public void UnsafeOnCompleted(Action continuation)
            {
                if (synchronizationContext == null) throw new InvalidOperationException("Onity: no SynchronizationContext (a default awaiter).");
                synchronizationContext.Post(SwitchToSynchronizationContextAwaitable.Awaiter.run, continuation);
            }
        }
    }

    /// <summary>What <see cref="OnityTask.ReturnToMainThread(CancellationToken)"/> returns: its
    /// <see cref="DisposeAsync"/> continues on the runtime's owner thread.</summary>
    public struct ReturnToMainThread
    {
        readonly SwitchToMainThreadAwaitable.Awaiter inner;

        internal ReturnToMainThread(CancellationToken cancellationToken) { inner = new SwitchToMainThreadAwaitable.Awaiter(cancellationToken); }

        public ReturnToMainThread(OnityTiming playerLoopTiming, CancellationToken cancellationToken)
        {
            inner = new SwitchToMainThreadAwaitable.Awaiter(playerLoopTiming, cancellationToken);
        }

        public Awaiter DisposeAsync() { return new Awaiter(inner); }

        public struct Awaiter : ICriticalNotifyCompletion
        {
            readonly SwitchToMainThreadAwaitable.Awaiter inner;

            internal Awaiter(SwitchToMainThreadAwaitable.Awaiter inner) { this.inner = inner; }

            public Awaiter(OnityTiming timing, CancellationToken cancellationToken) { inner = new SwitchToMainThreadAwaitable.Awaiter(timing, cancellationToken); }

            public Awaiter GetAwaiter() { return this; }

            /// <summary>True on the owner thread (as <see cref="SwitchToMainThreadAwaitable.Awaiter.IsCompleted"/>).</summary>
            public bool IsCompleted { get { return inner.IsCompleted; } }

            public void GetResult() { inner.GetResult(); }

            public void OnCompleted(Action continuation) { inner.UnsafeOnCompleted(continuation); }

            public void UnsafeOnCompleted(Action continuation) { inner.UnsafeOnCompleted(continuation); }
        }
    }

    /// <summary>A <see cref="SynchronizationContext"/> that runs what is posted to it on the
    /// current runtime's owner thread, at its next BeginFrame/Tick/Drain (UniTask's
    /// UniTaskSynchronizationContext); <see cref="Send"/> runs the callback at once on the calling
    /// thread, as UniTask's. Pooled: a post allocates nothing in steady state. With no live
    /// runtime a post goes where <see cref="OnityRuntime.NoRuntimeContext"/> says.</summary>
    public class OnitySynchronizationContext : SynchronizationContext
    {
        int operationCount;

        /// <summary>Operations started and not completed (<see cref="OperationStarted"/>).</summary>
        public int OperationCount { get { return Volatile.Read(ref operationCount); } }

        public override void Send(SendOrPostCallback d, object state) { d(state); }

        public override void Post(SendOrPostCallback d, object state)
        {
            var run = OnityStateContinuation.Rent(d, state);
            var r = OnityRuntime.Current;
            if (r == null) OnityRuntime.RunWithoutRuntime(run);
            else r.Post(run);
        }

        public override void OperationStarted() { Interlocked.Increment(ref operationCount); }

        public override void OperationCompleted() { Interlocked.Decrement(ref operationCount); }

        public override SynchronizationContext CreateCopy() { return this; }
    }
}
