// UnityEvents as awaitables, once or as a stream: the base of the uGUI events (Button.onClick,
// Toggle.onValueChanged, ...; Onity.Unity.UGUI) and usable with any UnityEvent.
#if UNITY_5_3_OR_NEWER || ONITY_UNITY_STANDIN
using System;
using System.Collections.Generic;
using System.Threading;
using UnityEngine;
using UnityEngine.Events;

namespace Onity
{
    public static partial class OnityUnityAsyncExtensions
    {
        /// <summary>Completes at the next <c>Invoke</c> of <paramref name="unityEvent"/> (see
        /// <see cref="OnInvokeAsync(UnityEvent, Component, CancellationToken)"/>; without an owning
        /// component the event is listened to only while someone waits, so each wait with no other
        /// waiter adds and removes a listener, which Unity allocates for).</summary>
        public static OnityTask OnInvokeAsync(this UnityEvent unityEvent, CancellationToken cancellationToken = default(CancellationToken))
        {
            return OnInvokeAsync(unityEvent, null, cancellationToken);
        }

        /// <summary>Completes at the next <c>Invoke</c> of <paramref name="unityEvent"/>, which
        /// belongs to <paramref name="owner"/>: canceled when <paramref name="cancellationToken"/> is
        /// canceled (seen at the next run of Update) or at once when the owner is destroyed (its
        /// <c>destroyCancellationToken</c>). One listener per event stays on it until the owner is
        /// destroyed and serves every wait and stream: after the first, a wait allocates nothing.
        /// Owner thread.</summary>
        public static OnityTask OnInvokeAsync(this UnityEvent unityEvent, MonoBehaviour owner, CancellationToken cancellationToken = default(CancellationToken))
        {
            var ev = OnityUnityEventHub<AsyncUnit>.For(unityEvent, owner);
            if (ev == null) return OnityTask.FromCanceled(cancellationToken);
            return ev.NextAsync(cancellationToken);
        }

        /// <summary>The invocations of <paramref name="unityEvent"/> as a stream (see
        /// <see cref="OnityAsyncEvent{T}"/>: pulled, ends when the owner is destroyed).</summary>
        public static IOnityAsyncEnumerable<AsyncUnit> OnInvokeAsAsyncEnumerable(this UnityEvent unityEvent, MonoBehaviour owner = null)
        {
            return new UnityEventStream<AsyncUnit>(unityEvent, owner);
        }

        /// <summary>The invocations of <paramref name="unityEvent"/> as a stream ended by
        /// <paramref name="cancellationToken"/>: an enumeration throws
        /// <see cref="OperationCanceledException"/> carrying the canceled token (this one or the
        /// enumeration's) at its next <c>MoveNextAsync</c>, or at once in a pending one. Listens
        /// only while enumerated (see <see cref="OnityUnityEventAsyncEnumerable"/>).</summary>
        public static IOnityAsyncEnumerable<AsyncUnit> OnInvokeAsAsyncEnumerable(this UnityEvent unityEvent, CancellationToken cancellationToken)
        {
            return new OnityUnityEventAsyncEnumerable(unityEvent, cancellationToken);
        }

        /// <summary>As <see cref="OnInvokeAsync(UnityEvent, CancellationToken)"/>, with the
        /// invocation's argument.</summary>
        public static OnityTask<T> OnInvokeAsync<T>(this UnityEvent<T> unityEvent, CancellationToken cancellationToken = default(CancellationToken))
        {
            return OnInvokeAsync(unityEvent, null, cancellationToken);
        }

        /// <summary>As <see cref="OnInvokeAsync(UnityEvent, MonoBehaviour, CancellationToken)"/>,
        /// with the invocation's argument.</summary>
        public static OnityTask<T> OnInvokeAsync<T>(this UnityEvent<T> unityEvent, MonoBehaviour owner, CancellationToken cancellationToken = default(CancellationToken))
        {
            var ev = OnityUnityEventHub<T>.For(unityEvent, owner);
            if (ev == null) return OnityTask.FromCanceled<T>(cancellationToken);
            return ev.NextAsync(cancellationToken);
        }

        /// <summary>The invocations' arguments as a stream.</summary>
        public static IOnityAsyncEnumerable<T> OnInvokeAsAsyncEnumerable<T>(this UnityEvent<T> unityEvent, MonoBehaviour owner = null)
        {
            return new UnityEventStream<T>(unityEvent, owner);
        }

        /// <summary>As <see cref="OnInvokeAsAsyncEnumerable(UnityEvent, CancellationToken)"/>, with
        /// the invocations' arguments.</summary>
        public static IOnityAsyncEnumerable<T> OnInvokeAsAsyncEnumerable<T>(this UnityEvent<T> unityEvent, CancellationToken cancellationToken)
        {
            return new OnityUnityEventAsyncEnumerable<T>(unityEvent, cancellationToken);
        }
    }

    /// <summary>A UnityEvent's stream: each enumeration subscribes to the event's hub.</summary>
    internal sealed class UnityEventStream<T> : IOnityAsyncEnumerable<T>
    {
        readonly UnityEventBase unityEvent;
        readonly MonoBehaviour owner;

        internal UnityEventStream(UnityEventBase unityEvent, MonoBehaviour owner)
        {
            if (unityEvent == null) throw new ArgumentNullException("unityEvent");
            this.unityEvent = unityEvent;
            this.owner = owner;
        }

        public IOnityAsyncEnumerator<T> GetAsyncEnumerator(CancellationToken cancellationToken = default(CancellationToken))
        {
            return OnityUnityEventHub<T>.ForOrEnded(unityEvent, owner).GetAsyncEnumerator(cancellationToken);
        }
    }

    /// <summary>One listener on a UnityEvent, raising an <see cref="OnityAsyncEvent{T}"/> (the
    /// argument, or <see cref="AsyncUnit"/> for a UnityEvent without one). With an owning
    /// MonoBehaviour the listener stays until the owner is destroyed (then waits are canceled and
    /// streams end), so repeated waits cost no AddListener; without one it is added for the first
    /// waiter and removed after the last. Hubs are kept in a table by event (reference), on the
    /// owner thread.</summary>
    internal sealed class OnityUnityEventHub<T>
    {
        static readonly Dictionary<UnityEventBase, OnityUnityEventHub<T>> hubs = new Dictionary<UnityEventBase, OnityUnityEventHub<T>>();

        readonly UnityEventBase source;
        readonly UnityAction untypedListener;
        readonly UnityAction<T> typedListener;
        readonly OnityAsyncEvent<T> ev;
        bool listening;
        bool owned; // an owning MonoBehaviour keeps the listener until it is destroyed

        OnityUnityEventHub(UnityEventBase source)
        {
            this.source = source;
            if (source is UnityEvent) untypedListener = RaiseUnit;
            else typedListener = Raise;
            ev = new OnityAsyncEvent<T>(Listen, UnlistenUnlessOwned);
        }

        void UnlistenUnlessOwned()
        {
            if (!owned) Unlisten();
        }

        void RaiseUnit() { ev.Raise(default(T)); }
        void Raise(T value) { ev.Raise(value); }

        void Listen()
        {
            if (listening) return;
            listening = true;
            var u = source as UnityEvent;
            if (u != null) u.AddListener(untypedListener);
            else ((UnityEvent<T>)source).AddListener(typedListener);
            hubs[source] = this;
        }

        void Unlisten()
        {
            if (!listening) return;
            listening = false;
            var u = source as UnityEvent;
            if (u != null) u.RemoveListener(untypedListener);
            else ((UnityEvent<T>)source).RemoveListener(typedListener);
            OnityUnityEventHub<T> current;
            if (hubs.TryGetValue(source, out current) && current == this) hubs.Remove(source);
        }

        /// <summary>The event of <paramref name="source"/>'s hub (created on first use), or null when
        /// <paramref name="owner"/> is destroyed (or being destroyed).</summary>
        internal static OnityAsyncEvent<T> For(UnityEventBase source, MonoBehaviour owner)
        {
            if (source == null) throw new ArgumentNullException("unityEvent");
            // Before the table, a listener or a registration is touched: they are the main thread's.
            var r = OnityRuntime.Current;
            if (r != null && !r.IsOwnerThread)
                throw new InvalidOperationException("Onity: a UnityEvent is awaited on the main thread (the runtime's owner); this is thread " + System.Threading.Thread.CurrentThread.ManagedThreadId + ".");
            if (!ReferenceEquals(owner, null) && owner == null) return null; // destroyed
            OnityUnityEventHub<T> hub;
            if (!hubs.TryGetValue(source, out hub))
            {
                // Listening (and the table entry) start with its first subscriber and, without an
                // owner, end after its last.
                hub = new OnityUnityEventHub<T>(source);
            }
            if (!ReferenceEquals(owner, null) && !hub.owned)
            {
                var token = owner.destroyCancellationToken;
                if (token.IsCancellationRequested) return null; // being destroyed
                hub.owned = true;
                hub.Listen();
                token.Register(OnOwnerDestroyed, hub);
            }
            return hub.ev;
        }

        /// <summary>As <see cref="For"/>; an event that has ended when the owner is destroyed.</summary>
        internal static OnityAsyncEvent<T> ForOrEnded(UnityEventBase source, MonoBehaviour owner)
        {
            var ev = For(source, owner);
            if (ev != null) return ev;
            ev = new OnityAsyncEvent<T>();
            ev.Complete();
            return ev;
        }

        static readonly Action<object> OnOwnerDestroyed = state => ((OnityUnityEventHub<T>)state).Close();

        void Close()
        {
            owned = false;
            Unlisten();
            ev.Complete();
        }

        internal static int Count { get { return hubs.Count; } }
    }
}
#endif
