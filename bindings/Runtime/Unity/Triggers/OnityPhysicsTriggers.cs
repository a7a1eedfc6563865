// Physics message triggers: OnTriggerEnter, OnCollisionEnter. The physics module
// (com.unity.modules.physics) can be disabled in a project: the asmdef's versionDefines sets
// ONITY_PHYSICS_SUPPORT when it is present.
#if (UNITY_5_3_OR_NEWER || ONITY_UNITY_STANDIN) && ONITY_PHYSICS_SUPPORT
using System.Threading;
using UnityEngine;

namespace Onity.Triggers
{
    /// <summary>OnTriggerEnter as an awaitable: the other collider.</summary>
    public sealed class OnityTriggerEnterTrigger : OnityTriggerBase<Collider>
    {
        void OnTriggerEnter(Collider other) { RaiseEvent(other); }

        public OnityTask<Collider> OnTriggerEnterAsync(CancellationToken cancellationToken = default(CancellationToken)) { return NextAsync(cancellationToken); }
    }

    /// <summary>OnCollisionEnter as an awaitable: the collision. (Unity reuses Collision objects
    /// when Physics.reuseCollisionCallbacks is on: read it in the continuation, do not keep it.)</summary>
    public sealed class OnityCollisionEnterTrigger : OnityTriggerBase<Collision>
    {
        void OnCollisionEnter(Collision collision) { RaiseEvent(collision); }

        public OnityTask<Collision> OnCollisionEnterAsync(CancellationToken cancellationToken = default(CancellationToken)) { return NextAsync(cancellationToken); }
    }
}
#endif
