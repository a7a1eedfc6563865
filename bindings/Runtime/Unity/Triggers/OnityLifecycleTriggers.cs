// The one-shot triggers: OnDestroy, Awake, Start (the other message triggers are generated:
// OnityMessageTriggers.g.cs).
#if UNITY_5_3_OR_NEWER || ONITY_UNITY_STANDIN
using System.Threading;
using UnityEngine;

namespace Onity.Triggers
{
    /// <summary>OnDestroy as an awaitable. <see cref="OnDestroyAsync"/> completes (successfully)
    /// when the GameObject is destroyed, at once if it already was; as a stream it yields once,
    /// then ends.</summary>
    public sealed class OnityDestroyTrigger : OnityTriggerBase<AsyncUnit>
    {
        bool called;
        CancellationTokenSource onDestroy;

        /// <summary>Canceled when this GameObject is destroyed (at once if it already was); the
        /// source is made on first use.</summary>
        public CancellationToken CancellationToken
        {
            get
            {
                if (called) return new CancellationToken(true);
                if (onDestroy == null) onDestroy = new CancellationTokenSource();
                return onDestroy.Token;
            }
        }

        /// <summary>Completes when this GameObject is destroyed; canceled when
        /// <paramref name="cancellationToken"/> is canceled first (at the next run of Update).</summary>
        public OnityTask OnDestroyAsync(CancellationToken cancellationToken = default(CancellationToken))
        {
            if (called) return OnityTask.CompletedTask;
            return NextAsync(cancellationToken);
        }

        protected override void OnDestroy()
        {
            if (called) return;
            called = true;
            RaiseEvent(default(AsyncUnit));
            base.OnDestroy();
            if (onDestroy != null) onDestroy.Cancel(); // a registration that throws: Unity logs it
        }
    }

    /// <summary>Awake as an awaitable (UniTask's <c>AwakeAsync</c>): completes at once when the
    /// component already had Awake (added to an active GameObject), else when the GameObject is
    /// activated.</summary>
    public sealed class OnityAwakeTrigger : OnityTriggerBase<AsyncUnit>
    {
        protected override void OnAwake() { RaiseEvent(default(AsyncUnit)); }

        public OnityTask AwakeAsync(CancellationToken cancellationToken = default(CancellationToken))
        {
            if (IsAwake) return OnityTask.CompletedTask;
            return NextAsync(cancellationToken);
        }
    }

    /// <summary>Start as an awaitable (UniTask's <c>StartAsync</c>): completes at Start (before the
    /// component's first Update), at once when it already ran.</summary>
    public sealed class OnityStartTrigger : OnityTriggerBase<AsyncUnit>
    {
        bool started;

        void Start()
        {
            started = true;
            RaiseEvent(default(AsyncUnit));
        }

        public OnityTask StartAsync(CancellationToken cancellationToken = default(CancellationToken))
        {
            if (started) return OnityTask.CompletedTask;
            return NextAsync(cancellationToken);
        }
    }
}
#endif
