// UnityEvents through a reusable handler (UniTask's AsyncUnityEventHandler and its uGUI
// interfaces) and as enumerables with their own token (UniTask's UnityEventHandlerAsyncEnumerable).
// The controls' GetAsyncXxxEventHandler() are in Onity.Unity.UGUI.
#if UNITY_5_3_OR_NEWER || ONITY_UNITY_STANDIN
using System;
using System.Threading;
using UnityEngine;
using UnityEngine.Events;

namespace Onity
{
    /// <summary>A reusable handler of a button's clicks: <see cref="OnClickAsync"/> awaited again and again.</summary>
    public interface IOnityClickEventHandler : IDisposable { OnityTask OnClickAsync(); }
    /// <summary>A reusable handler of a control's value changes.</summary>
    public interface IOnityValueChangedEventHandler<T> : IDisposable { OnityTask<T> OnValueChangedAsync(); }
    /// <summary>A reusable handler of an input field's end of editing.</summary>
    public interface IOnityEndEditEventHandler<T> : IDisposable { OnityTask<T> OnEndEditAsync(); }
    /// <summary>A reusable handler of an input field's end of text selection (TextMeshPro).</summary>
    public interface IOnityEndTextSelectionEventHandler<T> : IDisposable { OnityTask<T> OnEndTextSelectionAsync(); }
    /// <summary>A reusable handler of an input field's text selection (TextMeshPro).</summary>
    public interface IOnityTextSelectionEventHandler<T> : IDisposable { OnityTask<T> OnTextSelectionAsync(); }
    /// <summary>A reusable handler of an input field's deselection (TextMeshPro).</summary>
    public interface IOnityDeselectEventHandler<T> : IDisposable { OnityTask<T> OnDeselectAsync(); }
    /// <summary>A reusable handler of an input field's selection (TextMeshPro).</summary>
    public interface IOnitySelectEventHandler<T> : IDisposable { OnityTask<T> OnSelectAsync(); }
    /// <summary>A reusable handler of an input field's submit (TextMeshPro).</summary>
    public interface IOnitySubmitEventHandler<T> : IDisposable { OnityTask<T> OnSubmitAsync(); }

    /// <summary>A handler on a <see cref="UnityEvent"/> (UniTask's <c>AsyncUnityEventHandler</c>):
    /// <see cref="OnInvokeAsync"/> completes at the next <c>Invoke</c> and can be awaited again and
    /// again without allocating; see <see cref="OnityAsyncEventHandler{T}"/> for its rules. One
    /// listener per event serves every handler, wait and stream on it; without an owner it is
    /// added with the first and removed after the last.</summary>
    public sealed class OnityUnityEventHandler : OnityAsyncEventHandler<AsyncUnit>, IOnityClickEventHandler
    {
        /// <summary>A handler on <paramref name="unityEvent"/>, ended by
        /// <paramref name="cancellationToken"/>; with <paramref name="callOnce"/>, after one invocation.</summary>
        public OnityUnityEventHandler(UnityEvent unityEvent, CancellationToken cancellationToken, bool callOnce)
            : this(unityEvent, null, cancellationToken, callOnce) { }

        /// <summary>A handler on <paramref name="unityEvent"/> of <paramref name="owner"/>: also
        /// ended when the owner is destroyed (at once if it already is).</summary>
        public OnityUnityEventHandler(UnityEvent unityEvent, MonoBehaviour owner, CancellationToken cancellationToken, bool callOnce)
            : base(OnityUnityEventHub<AsyncUnit>.ForOrEnded(unityEvent, owner), cancellationToken, callOnce) { }

        /// <summary>Completes at the next invocation.</summary>
        public OnityTask OnInvokeAsync() { return NextUnitAsync(); }

        OnityTask IOnityClickEventHandler.OnClickAsync() { return NextUnitAsync(); }
    }

    /// <summary>As <see cref="OnityUnityEventHandler"/> for a <see cref="UnityEvent{T0}"/>: completes
    /// with the invocation's argument (UniTask's <c>AsyncUnityEventHandler&lt;T&gt;</c>).</summary>
    public sealed class OnityUnityEventHandler<T> : OnityAsyncEventHandler<T>, IOnityValueChangedEventHandler<T>, IOnityEndEditEventHandler<T>,
        IOnityEndTextSelectionEventHandler<T>, IOnityTextSelectionEventHandler<T>, IOnityDeselectEventHandler<T>, IOnitySelectEventHandler<T>, IOnitySubmitEventHandler<T>
    {
        public OnityUnityEventHandler(UnityEvent<T> unityEvent, CancellationToken cancellationToken, bool callOnce)
            : this(unityEvent, null, cancellationToken, callOnce) { }

        public OnityUnityEventHandler(UnityEvent<T> unityEvent, MonoBehaviour owner, CancellationToken cancellationToken, bool callOnce)
            : base(OnityUnityEventHub<T>.ForOrEnded(unityEvent, owner), cancellationToken, callOnce) { }

        /// <summary>Completes with the next invocation's argument.</summary>
        public OnityTask<T> OnInvokeAsync() { return NextAsync(); }

        OnityTask<T> IOnityValueChangedEventHandler<T>.OnValueChangedAsync() { return NextAsync(); }
        OnityTask<T> IOnityEndEditEventHandler<T>.OnEndEditAsync() { return NextAsync(); }
        OnityTask<T> IOnityEndTextSelectionEventHandler<T>.OnEndTextSelectionAsync() { return NextAsync(); }
        OnityTask<T> IOnityTextSelectionEventHandler<T>.OnTextSelectionAsync() { return NextAsync(); }
        OnityTask<T> IOnityDeselectEventHandler<T>.OnDeselectAsync() { return NextAsync(); }
        OnityTask<T> IOnitySelectEventHandler<T>.OnSelectAsync() { return NextAsync(); }
        OnityTask<T> IOnitySubmitEventHandler<T>.OnSubmitAsync() { return NextAsync(); }
    }

    /// <summary>What an OnityUnityEventAsyncEnumerable (typed or not) enumerates: the event, its
    /// owner (null: none) and the stream's own token.</summary>
    internal struct OnityUnityEventSubscription<TEvent> where TEvent : UnityEventBase
    {
        internal readonly TEvent unityEvent;
        internal readonly MonoBehaviour owner;
        internal readonly CancellationToken cancellationToken;

        internal OnityUnityEventSubscription(TEvent unityEvent, MonoBehaviour owner, CancellationToken cancellationToken)
        {
            if (unityEvent == null) throw new ArgumentNullException("unityEvent");
            this.unityEvent = unityEvent;
            this.owner = owner;
            this.cancellationToken = cancellationToken;
        }
    }

    /// <summary>A UnityEvent's invocations as a stream with its own token (UniTask's
    /// <c>UnityEventHandlerAsyncEnumerable</c>): each enumeration ends when that token or the
    /// enumeration's token is canceled (the exception carries the canceled one). Pulled: an
    /// invocation while the consumer is busy is not kept.</summary>
    public sealed class OnityUnityEventAsyncEnumerable : IOnityAsyncEnumerable<AsyncUnit>
    {
        readonly OnityUnityEventSubscription<UnityEvent> of;

        public OnityUnityEventAsyncEnumerable(UnityEvent unityEvent, CancellationToken cancellationToken)
            : this(unityEvent, null, cancellationToken) { }

        /// <summary>As <see cref="OnityUnityEventAsyncEnumerable(UnityEvent, CancellationToken)"/>
        /// for the event of <paramref name="owner"/>: an enumeration also ends
        /// (<c>MoveNextAsync</c> false) when the owner is destroyed, and the listener stays until then.</summary>
        public OnityUnityEventAsyncEnumerable(UnityEvent unityEvent, MonoBehaviour owner, CancellationToken cancellationToken)
        {
            of = new OnityUnityEventSubscription<UnityEvent>(unityEvent, owner, cancellationToken);
        }

        public IOnityAsyncEnumerator<AsyncUnit> GetAsyncEnumerator(CancellationToken cancellationToken = default(CancellationToken))
        {
            return OnityUnityEventHub<AsyncUnit>.ForOrEnded(of.unityEvent, of.owner).GetAsyncEnumerator(of.cancellationToken, cancellationToken);
        }
    }

    /// <summary>As <see cref="OnityUnityEventAsyncEnumerable"/> for a <see cref="UnityEvent{T0}"/>.</summary>
    public sealed class OnityUnityEventAsyncEnumerable<T> : IOnityAsyncEnumerable<T>
    {
        readonly OnityUnityEventSubscription<UnityEvent<T>> of;

        public OnityUnityEventAsyncEnumerable(UnityEvent<T> unityEvent, CancellationToken cancellationToken)
            : this(unityEvent, null, cancellationToken) { }

        /// <summary>For the event of <paramref name="owner"/>: also ends when the owner is destroyed.</summary>
        public OnityUnityEventAsyncEnumerable(UnityEvent<T> unityEvent, MonoBehaviour owner, CancellationToken cancellationToken)
        {
            of = new OnityUnityEventSubscription<UnityEvent<T>>(unityEvent, owner, cancellationToken);
        }

        public IOnityAsyncEnumerator<T> GetAsyncEnumerator(CancellationToken cancellationToken = default(CancellationToken))
        {
            return OnityUnityEventHub<T>.ForOrEnded(of.unityEvent, of.owner).GetAsyncEnumerator(of.cancellationToken, cancellationToken);
        }
    }

    public static partial class OnityUnityAsyncExtensions
    {
        /// <summary>A reusable handler of <paramref name="unityEvent"/> (UniTask's <c>GetAsyncEventHandler</c>).</summary>
        public static OnityUnityEventHandler GetAsyncEventHandler(this UnityEvent unityEvent, CancellationToken cancellationToken)
        {
            return new OnityUnityEventHandler(unityEvent, cancellationToken, false);
        }

        /// <summary>A reusable handler of <paramref name="unityEvent"/>, completing with its argument.</summary>
        public static OnityUnityEventHandler<T> GetAsyncEventHandler<T>(this UnityEvent<T> unityEvent, CancellationToken cancellationToken)
        {
            return new OnityUnityEventHandler<T>(unityEvent, cancellationToken, false);
        }
    }
}
#endif
