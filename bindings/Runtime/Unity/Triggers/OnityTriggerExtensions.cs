// GetOnity...Trigger(): the trigger component of a GameObject, added on first use.
#if UNITY_5_3_OR_NEWER || ONITY_UNITY_STANDIN
using System;
using System.Threading;
using UnityEngine;

namespace Onity.Triggers
{
    public static partial class OnityTriggerExtensions
    {
        static T GetOrAdd<T>(GameObject gameObject) where T : Component
        {
            if (gameObject == null) throw new ArgumentNullException("gameObject");
            var t = gameObject.GetComponent<T>();
            return t != null ? t : gameObject.AddComponent<T>();
        }

        public static OnityDestroyTrigger GetOnityDestroyTrigger(this GameObject gameObject) { return GetOrAdd<OnityDestroyTrigger>(gameObject); }
        public static OnityDestroyTrigger GetOnityDestroyTrigger(this Component component) { return GetOrAdd<OnityDestroyTrigger>(component.gameObject); }
        public static OnityAwakeTrigger GetOnityAwakeTrigger(this GameObject gameObject) { return GetOrAdd<OnityAwakeTrigger>(gameObject); }
        public static OnityAwakeTrigger GetOnityAwakeTrigger(this Component component) { return GetOrAdd<OnityAwakeTrigger>(component.gameObject); }
        public static OnityStartTrigger GetOnityStartTrigger(this GameObject gameObject) { return GetOrAdd<OnityStartTrigger>(gameObject); }
        public static OnityStartTrigger GetOnityStartTrigger(this Component component) { return GetOrAdd<OnityStartTrigger>(component.gameObject); }

        /// <summary>Completes at the GameObject's Start (<c>GetOnityStartTrigger().StartAsync()</c>).</summary>
        public static OnityTask StartAsync(this GameObject gameObject) { return gameObject.GetOnityStartTrigger().StartAsync(); }

        /// <summary>As <see cref="StartAsync(GameObject)"/> for the component's GameObject.</summary>
        public static OnityTask StartAsync(this Component component) { return component.GetOnityStartTrigger().StartAsync(); }

        /// <summary>Completes once the GameObject had Awake (<c>GetOnityAwakeTrigger().AwakeAsync()</c>).</summary>
        public static OnityTask AwakeAsync(this GameObject gameObject) { return gameObject.GetOnityAwakeTrigger().AwakeAsync(); }

        /// <summary>As <see cref="AwakeAsync(GameObject)"/> for the component's GameObject.</summary>
        public static OnityTask AwakeAsync(this Component component) { return component.GetOnityAwakeTrigger().AwakeAsync(); }

        /// <summary>A token canceled when the MonoBehaviour is destroyed (UniTask's
        /// <c>GetCancellationTokenOnDestroy</c>: Unity 2022.2's <c>destroyCancellationToken</c>).</summary>
        public static CancellationToken GetCancellationTokenOnDestroy(this MonoBehaviour monoBehaviour)
        {
            if (monoBehaviour == null) throw new ArgumentNullException("monoBehaviour");
            return monoBehaviour.destroyCancellationToken;
        }

        /// <summary>A token canceled when the GameObject is destroyed (its
        /// <see cref="OnityDestroyTrigger"/>'s token; canceled already when it was).</summary>
        public static CancellationToken GetCancellationTokenOnDestroy(this GameObject gameObject)
        {
            return gameObject.GetOnityDestroyTrigger().CancellationToken;
        }

        /// <summary>As <see cref="GetCancellationTokenOnDestroy(GameObject)"/> for the component's GameObject.</summary>
        public static CancellationToken GetCancellationTokenOnDestroy(this Component component)
        {
            if (component == null) throw new ArgumentNullException("component");
            return component.gameObject.GetOnityDestroyTrigger().CancellationToken;
        }

        /// <summary>Cancels <paramref name="cts"/> when <paramref name="gameObject"/> is destroyed
        /// (UniTask's <c>RegisterRaiseCancelOnDestroy</c>; at once when it already was).</summary>
        public static void RegisterRaiseCancelOnDestroy(this CancellationTokenSource cts, GameObject gameObject)
        {
            if (cts == null) throw new ArgumentNullException("cts");
            gameObject.GetCancellationTokenOnDestroy().Register(CancelSource, cts, false);
        }

        /// <summary>As <see cref="RegisterRaiseCancelOnDestroy(CancellationTokenSource, GameObject)"/>
        /// for the component's GameObject.</summary>
        public static void RegisterRaiseCancelOnDestroy(this CancellationTokenSource cts, Component component)
        {
            if (component == null) throw new ArgumentNullException("component");
            RegisterRaiseCancelOnDestroy(cts, component.gameObject);
        }

        static readonly Action<object> CancelSource = s =>
        {
            try { ((CancellationTokenSource)s).Cancel(); }
            catch (ObjectDisposedException) { }
        };

        /// <summary>Completes when <paramref name="gameObject"/> is destroyed
        /// (<c>GetOnityDestroyTrigger().OnDestroyAsync()</c>).</summary>
        public static OnityTask OnDestroyAsync(this GameObject gameObject, CancellationToken cancellationToken = default(CancellationToken))
        {
            return gameObject.GetOnityDestroyTrigger().OnDestroyAsync(cancellationToken);
        }

        /// <summary>Completes when <paramref name="component"/>'s GameObject is destroyed
        /// (<c>GetOnityDestroyTrigger().OnDestroyAsync()</c>).</summary>
        public static OnityTask OnDestroyAsync(this Component component, CancellationToken cancellationToken = default(CancellationToken))
        {
            return component.GetOnityDestroyTrigger().OnDestroyAsync(cancellationToken);
        }
    }
}
#endif
