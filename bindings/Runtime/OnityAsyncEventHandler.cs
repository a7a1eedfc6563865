using System;
using System.Threading;

namespace Onity
{
    /// <summary>A reusable handler on an <see cref="OnityAsyncEvent{T}"/> (UniTask's
    /// <c>AsyncTriggerHandler&lt;T&gt;</c> / <c>AsyncUnityEventHandler</c>): subscribed from creation
    /// until <see cref="Dispose"/>, <see cref="NextAsync"/> can be awaited again and again, each time
    /// completing with the next raised value. The base of the trigger handlers
    /// (<c>GetXxxAsyncHandler()</c>) and of the UnityEvent handlers (<c>GetAsyncEventHandler</c>,
    /// <c>GetAsyncClickEventHandler</c>, ...).
    /// <list type="bullet">
    /// <item>A value raised while nobody awaits <see cref="NextAsync"/> is not kept (as UniTask).</item>
    /// <item>With <c>callOnce</c> the handler disposes itself after its first value.</item>
    /// <item><see cref="Dispose"/>, the event's end (the trigger or control destroyed) or the
    /// token's cancellation cancel the pending wait; later waits are canceled at once. The token is
    /// observed at the next run of Update after it is canceled (polled from creation, awaited or
    /// not, nothing registered: an idle handler is disposed too, as UniTask's), and at once by
    /// <see cref="NextAsync"/>.</item>
    /// <item>One wait at a time: <see cref="NextAsync"/> while the previous one is pending throws.</item>
    /// <item>The handler is the task's source (versioned): after the first wait, waits and
    /// deliveries allocate nothing.</item>
    /// </list>
    /// Owner thread (the main thread).</summary>
    public class OnityAsyncEventHandler<T> : OnityLoopItem, IOnityTaskSource<T>, IDisposable, IOnityEventSubscriber<T>
    {
        readonly OnityAsyncEvent<T> ev;
        readonly CancellationToken cancellationToken;
        readonly bool callOnce;
        OnityCompletionSourceCore<T> core;
        bool pending, disposed;

        /// <summary>A handler on <paramref name="asyncEvent"/>, subscribed now; ended by
        /// <paramref name="cancellationToken"/>; with <paramref name="callOnce"/>, after its first
        /// value.</summary>
        public OnityAsyncEventHandler(OnityAsyncEvent<T> asyncEvent, CancellationToken cancellationToken, bool callOnce)
        {
            if (asyncEvent == null) throw new ArgumentNullException("asyncEvent");
            asyncEvent.CheckThread();
            ev = asyncEvent;
            this.cancellationToken = cancellationToken;
            this.callOnce = callOnce;
            if (asyncEvent.IsCompleted || cancellationToken.IsCancellationRequested) disposed = true;
            else
            {
                asyncEvent.Subscribe(this);
                // The token ends the handler awaited or not (UniTask's registration disposes it):
                // polled at each Update from now on, so an idle handler's listener goes too.
                if (cancellationToken.CanBeCanceled && OnityRuntime.Current != null) StartLoop(OnityTiming.Update);
            }
        }

        uint IOnityEventSubscriber<T>.Stamp { get; set; }

        /// <summary>True once disposed, ended (the event completed, the token canceled) or, with
        /// <c>callOnce</c>, after its value.</summary>
        public bool IsDisposed { get { return disposed; } }

        /// <summary>Completes with the next raised value; canceled when the handler is disposed or
        /// ended (at once if it already is) or its token is canceled. Throws
        /// <see cref="InvalidOperationException"/> while the previous wait is pending.</summary>
        public OnityTask<T> NextAsync()
        {
            return new OnityTask<T>(this, Begin());
        }

        /// <summary><see cref="NextAsync"/> without the value (the handlers of argument-less
        /// messages and events).</summary>
        protected OnityTask NextUnitAsync()
        {
            return new OnityTask((IOnityTaskSource)this, Begin());
        }

        /// <summary><see cref="NextAsync"/> typed as the interface of a message whose value type is
        /// <typeparamref name="U"/> (= <typeparamref name="T"/>).</summary>
        protected OnityTask<U> NextAsAsync<U>()
        {
            return new OnityTask<U>((IOnityTaskSource<U>)(object)this, Begin());
        }

        long Begin()
        {
            if (pending) throw new InvalidOperationException("Onity: the handler's previous wait is pending; await it before the next one.");
            ev.CheckThread();
            core.Reset();
            if (cancellationToken.IsCancellationRequested)
            {
                Dispose();
                core.TrySetCanceled(cancellationToken);
            }
            else if (disposed) core.TrySetCanceled();
            else
            {
                if (cancellationToken.CanBeCanceled && !LoopActive) StartLoop(OnityTiming.Update);
                pending = true;
            }
            return core.Version;
        }

        void IOnityEventSubscriber<T>.OnNext(T value)
        {
            if (!pending) return; // nobody awaits: not kept
            pending = false;
            if (callOnce) Dispose();
            core.TrySetResult(value);
        }

        void IOnityEventSubscriber<T>.OnEnd()
        {
            disposed = true;
            if (!pending) return;
            pending = false;
            core.TrySetCanceled();
        }

        protected override bool MoveNext()
        {
            if (disposed) return false;
            if (!cancellationToken.IsCancellationRequested) return true;
            bool wasPending = pending;
            pending = false;
            Dispose();
            if (wasPending) core.TrySetCanceled(cancellationToken);
            return false;
        }

        protected override void OnLoopCanceled()
        {
            if (!pending) return;
            pending = false;
            core.TrySetCanceled();
        }

        /// <summary>Unsubscribes; a pending wait is canceled. Idempotent.</summary>
        public void Dispose()
        {
            if (disposed && !pending) return;
            ev.CheckThread();
            disposed = true;
            ev.Unsubscribe(this);
            if (!pending) return;
            pending = false;
            core.TrySetCanceled();
        }

        public OnityTaskStatus GetStatus(long token) { return core.GetStatus(token); }
        public void OnCompleted(Action continuation, long token) { core.OnCompleted(continuation, token); }
        void IOnityTaskSource.GetResult(long token) { core.GetResult(token); }
        public T GetResult(long token) { return core.GetResult(token); }
    }
}
