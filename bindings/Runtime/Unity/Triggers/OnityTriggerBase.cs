// MonoBehaviour messages as awaitables: a trigger component on the GameObject receives the message
// and raises it to its waiters and streams (UniTask's AsyncTriggers).
#if UNITY_5_3_OR_NEWER || ONITY_UNITY_STANDIN
using System.Threading;
using UnityEngine;

namespace Onity.Triggers
{
    /// <summary>The base of the message triggers: an <see cref="OnityAsyncEvent{T}"/> raised by the
    /// message, awaited once (<see cref="NextAsync"/>) or as a stream (this trigger is an
    /// <see cref="IOnityAsyncEnumerable{T}"/>). When the trigger is destroyed (with its GameObject)
    /// its waits are canceled and its streams end, at once. Get one with the
    /// <c>GetOnity...Trigger()</c> extensions of <see cref="OnityTriggerExtensions"/> (added to the
    /// GameObject on first use). After the first wait nothing is allocated per wait or message; a
    /// stream allocates its enumerator. Main thread.
    /// <para>Unity sends no OnDestroy to a component whose GameObject was never active since it
    /// was added (it never had Awake): a wait or stream started on such a trigger has it watched
    /// at each run of Update (as UniTask's AwakeMonitor) until Awake comes, or until it is found
    /// destroyed, which then ends it as OnDestroy would.</para></summary>
    public abstract class OnityTriggerBase<T> : MonoBehaviour, IOnityAsyncEnumerable<T>
    {
        OnityAsyncEvent<T> ev;
        bool destroyed;
        bool awoken;
        AwakeMonitor monitor;

        /// <summary>The trigger's event (made on first use; completed once the trigger is
        /// destroyed): what its waits, streams and handlers subscribe to.</summary>
        protected OnityAsyncEvent<T> Event
        {
            get
            {
                if (ev == null)
                {
                    ev = new OnityAsyncEvent<T>();
                    if (destroyed) ev.Complete();
                }
                if (!awoken && !destroyed) WatchUntilAwake();
                return ev;
            }
        }

        void Awake()
        {
            awoken = true;
            OnAwake();
        }

        /// <summary>True once Unity sent Awake to the trigger.</summary>
        protected bool IsAwake { get { return awoken; } }

        /// <summary>Called from Awake (the Awake trigger raises its event there).</summary>
        protected virtual void OnAwake() { }

        void WatchUntilAwake()
        {
            if (monitor != null && monitor.Running) return;
            var r = OnityRuntime.Current;
            if (r == null || r.IsDisposed || !r.IsOwnerThread) return; // nothing polls (Edit Mode)
            if (monitor == null) monitor = new AwakeMonitor(this);
            monitor.Start();
        }

        /// <summary>Watches a trigger that has not had Awake: ends it when it is destroyed first.</summary>
        sealed class AwakeMonitor : OnityLoopItem
        {
            readonly OnityTriggerBase<T> trigger;

            internal AwakeMonitor(OnityTriggerBase<T> trigger) { this.trigger = trigger; }

            internal bool Running { get { return LoopActive; } }

            internal void Start() { StartLoop(OnityTiming.Update); }

            protected override bool MoveNext()
            {
                if (trigger.awoken || trigger.destroyed) return false;
                if (trigger != null) return true;
                trigger.OnDestroy(); // destroyed without Awake: Unity sends no OnDestroy
                return false;
            }

            protected override void OnLoopCanceled() { }
        }

        /// <summary>True once the trigger (its GameObject) was destroyed.</summary>
        public bool IsDestroyed { get { return destroyed; } }

        /// <summary>Raises the message's value (from the message method).</summary>
        protected void RaiseEvent(T value)
        {
            if (ev != null) ev.Raise(value);
        }

        /// <summary>The next message; canceled when <paramref name="cancellationToken"/> is canceled
        /// (at the next run of Update) or the trigger is destroyed (at once).</summary>
        protected OnityTask<T> NextAsync(CancellationToken cancellationToken)
        {
            return Event.NextAsync(cancellationToken);
        }

        /// <summary>The messages as a stream, until the trigger is destroyed.</summary>
        public IOnityAsyncEnumerator<T> GetAsyncEnumerator(CancellationToken cancellationToken = default(CancellationToken))
        {
            return Event.GetAsyncEnumerator(cancellationToken);
        }

        protected virtual void OnDestroy()
        {
            if (destroyed) return;
            destroyed = true;
            if (ev != null) ev.Complete();
        }
    }
}
#endif
