// TextMeshPro's TMP_InputField events as awaitables, once and as streams (UniTask's
// TextMeshProAsyncExtensions). TextMeshPro is a package (com.unity.textmeshpro; inside com.unity.ugui
// from 2.0): this folder is its own assembly, Onity.Unity.TextMeshPro, compiled only when it is
// installed (defineConstraints ONITY_TEXTMESHPRO_SUPPORT, set by the asmdef's versionDefines).
#if (UNITY_5_3_OR_NEWER || ONITY_UNITY_STANDIN) && ONITY_TEXTMESHPRO_SUPPORT
using System;
using System.Collections.Generic;
using System.Threading;
using TMPro;
using UnityEngine.Events;

namespace Onity
{
    /// <summary>Awaiting a TMP_InputField's events, as the uGUI controls' (OnityUGuiExtensions): one
    /// listener per event, kept until the field is destroyed and shared by every wait and stream
    /// on it, so a wait allocates nothing after the first. A wait completes at the next
    /// invocation with its argument; it is canceled at once when the field is destroyed, or at the
    /// next run of Update after <c>cancellationToken</c> is canceled. A stream ends
    /// (<c>MoveNextAsync</c> false) when the field is destroyed; with a token, it throws
    /// <see cref="OperationCanceledException"/> once that token or the enumeration's is canceled
    /// (carrying the canceled one; nothing linked). Streams are pulled: an
    /// invocation while the consumer is busy is not kept for it. The text-selection events
    /// (<c>UnityEvent&lt;string, int, int&gt;</c>) give a <c>(string, int, int)</c> tuple: the text
    /// and the selection's two ends. Owner thread (the main thread).</summary>
    public static partial class OnityTextMeshProExtensions
    {
        /// <summary>The next text change (the text).</summary>
        public static OnityTask<string> OnValueChangedAsync(this TMP_InputField inputField, CancellationToken cancellationToken = default(CancellationToken))
        {
            return Field(inputField).onValueChanged.OnInvokeAsync(inputField, cancellationToken);
        }

        public static IOnityAsyncEnumerable<string> OnValueChangedAsAsyncEnumerable(this TMP_InputField inputField)
        {
            return Field(inputField).onValueChanged.OnInvokeAsAsyncEnumerable(inputField);
        }

        public static IOnityAsyncEnumerable<string> OnValueChangedAsAsyncEnumerable(this TMP_InputField inputField, CancellationToken cancellationToken)
        {
            return new OnityUnityEventAsyncEnumerable<string>(Field(inputField).onValueChanged, inputField, cancellationToken);
        }

        /// <summary>The next end of editing (the text).</summary>
        public static OnityTask<string> OnEndEditAsync(this TMP_InputField inputField, CancellationToken cancellationToken = default(CancellationToken))
        {
            return Field(inputField).onEndEdit.OnInvokeAsync(inputField, cancellationToken);
        }

        public static IOnityAsyncEnumerable<string> OnEndEditAsAsyncEnumerable(this TMP_InputField inputField)
        {
            return Field(inputField).onEndEdit.OnInvokeAsAsyncEnumerable(inputField);
        }

        public static IOnityAsyncEnumerable<string> OnEndEditAsAsyncEnumerable(this TMP_InputField inputField, CancellationToken cancellationToken)
        {
            return new OnityUnityEventAsyncEnumerable<string>(Field(inputField).onEndEdit, inputField, cancellationToken);
        }

        /// <summary>The next end of a text selection (text, selection start, selection end).</summary>
        public static OnityTask<(string, int, int)> OnEndTextSelectionAsync(this TMP_InputField inputField, CancellationToken cancellationToken = default(CancellationToken))
        {
            return Selection(inputField, Field(inputField).onEndTextSelection).OnInvokeAsync(inputField, cancellationToken);
        }

        public static IOnityAsyncEnumerable<(string, int, int)> OnEndTextSelectionAsAsyncEnumerable(this TMP_InputField inputField)
        {
            return Selection(inputField, Field(inputField).onEndTextSelection).OnInvokeAsAsyncEnumerable(inputField);
        }

        public static IOnityAsyncEnumerable<(string, int, int)> OnEndTextSelectionAsAsyncEnumerable(this TMP_InputField inputField, CancellationToken cancellationToken)
        {
            return new OnityUnityEventAsyncEnumerable<(string, int, int)>(Selection(inputField, Field(inputField).onEndTextSelection), inputField, cancellationToken);
        }

        /// <summary>The next text selection (text, selection start, selection end).</summary>
        public static OnityTask<(string, int, int)> OnTextSelectionAsync(this TMP_InputField inputField, CancellationToken cancellationToken = default(CancellationToken))
        {
            return Selection(inputField, Field(inputField).onTextSelection).OnInvokeAsync(inputField, cancellationToken);
        }

        public static IOnityAsyncEnumerable<(string, int, int)> OnTextSelectionAsAsyncEnumerable(this TMP_InputField inputField)
        {
            return Selection(inputField, Field(inputField).onTextSelection).OnInvokeAsAsyncEnumerable(inputField);
        }

        public static IOnityAsyncEnumerable<(string, int, int)> OnTextSelectionAsAsyncEnumerable(this TMP_InputField inputField, CancellationToken cancellationToken)
        {
            return new OnityUnityEventAsyncEnumerable<(string, int, int)>(Selection(inputField, Field(inputField).onTextSelection), inputField, cancellationToken);
        }

        /// <summary>The next deselection (the text).</summary>
        public static OnityTask<string> OnDeselectAsync(this TMP_InputField inputField, CancellationToken cancellationToken = default(CancellationToken))
        {
            return Field(inputField).onDeselect.OnInvokeAsync(inputField, cancellationToken);
        }

        public static IOnityAsyncEnumerable<string> OnDeselectAsAsyncEnumerable(this TMP_InputField inputField)
        {
            return Field(inputField).onDeselect.OnInvokeAsAsyncEnumerable(inputField);
        }

        public static IOnityAsyncEnumerable<string> OnDeselectAsAsyncEnumerable(this TMP_InputField inputField, CancellationToken cancellationToken)
        {
            return new OnityUnityEventAsyncEnumerable<string>(Field(inputField).onDeselect, inputField, cancellationToken);
        }

        /// <summary>The next selection (the text).</summary>
        public static OnityTask<string> OnSelectAsync(this TMP_InputField inputField, CancellationToken cancellationToken = default(CancellationToken))
        {
            return Field(inputField).onSelect.OnInvokeAsync(inputField, cancellationToken);
        }

        public static IOnityAsyncEnumerable<string> OnSelectAsAsyncEnumerable(this TMP_InputField inputField)
        {
            return Field(inputField).onSelect.OnInvokeAsAsyncEnumerable(inputField);
        }

        public static IOnityAsyncEnumerable<string> OnSelectAsAsyncEnumerable(this TMP_InputField inputField, CancellationToken cancellationToken)
        {
            return new OnityUnityEventAsyncEnumerable<string>(Field(inputField).onSelect, inputField, cancellationToken);
        }

        /// <summary>The next submit (the text).</summary>
        public static OnityTask<string> OnSubmitAsync(this TMP_InputField inputField, CancellationToken cancellationToken = default(CancellationToken))
        {
            return Field(inputField).onSubmit.OnInvokeAsync(inputField, cancellationToken);
        }

        public static IOnityAsyncEnumerable<string> OnSubmitAsAsyncEnumerable(this TMP_InputField inputField)
        {
            return Field(inputField).onSubmit.OnInvokeAsAsyncEnumerable(inputField);
        }

        public static IOnityAsyncEnumerable<string> OnSubmitAsAsyncEnumerable(this TMP_InputField inputField, CancellationToken cancellationToken)
        {
            return new OnityUnityEventAsyncEnumerable<string>(Field(inputField).onSubmit, inputField, cancellationToken);
        }

        // Reusable handlers (UniTask's GetAsyncXxxEventHandler): awaited again and again without
        // allocating; ended by Dispose, the token, or the field's destruction (OnityUnityEventHandler).

        public static IOnityValueChangedEventHandler<string> GetAsyncValueChangedEventHandler(this TMP_InputField inputField) { return Handler(inputField, Field(inputField).onValueChanged, default(CancellationToken)); }
        public static IOnityValueChangedEventHandler<string> GetAsyncValueChangedEventHandler(this TMP_InputField inputField, CancellationToken cancellationToken) { return Handler(inputField, Field(inputField).onValueChanged, cancellationToken); }

        public static IOnityEndEditEventHandler<string> GetAsyncEndEditEventHandler(this TMP_InputField inputField) { return Handler(inputField, Field(inputField).onEndEdit, default(CancellationToken)); }
        public static IOnityEndEditEventHandler<string> GetAsyncEndEditEventHandler(this TMP_InputField inputField, CancellationToken cancellationToken) { return Handler(inputField, Field(inputField).onEndEdit, cancellationToken); }

        public static IOnityEndTextSelectionEventHandler<(string, int, int)> GetAsyncEndTextSelectionEventHandler(this TMP_InputField inputField) { return Handler(inputField, Selection(inputField, Field(inputField).onEndTextSelection), default(CancellationToken)); }
        public static IOnityEndTextSelectionEventHandler<(string, int, int)> GetAsyncEndTextSelectionEventHandler(this TMP_InputField inputField, CancellationToken cancellationToken) { return Handler(inputField, Selection(inputField, Field(inputField).onEndTextSelection), cancellationToken); }

        public static IOnityTextSelectionEventHandler<(string, int, int)> GetAsyncTextSelectionEventHandler(this TMP_InputField inputField) { return Handler(inputField, Selection(inputField, Field(inputField).onTextSelection), default(CancellationToken)); }
        public static IOnityTextSelectionEventHandler<(string, int, int)> GetAsyncTextSelectionEventHandler(this TMP_InputField inputField, CancellationToken cancellationToken) { return Handler(inputField, Selection(inputField, Field(inputField).onTextSelection), cancellationToken); }

        public static IOnityDeselectEventHandler<string> GetAsyncDeselectEventHandler(this TMP_InputField inputField) { return Handler(inputField, Field(inputField).onDeselect, default(CancellationToken)); }
        public static IOnityDeselectEventHandler<string> GetAsyncDeselectEventHandler(this TMP_InputField inputField, CancellationToken cancellationToken) { return Handler(inputField, Field(inputField).onDeselect, cancellationToken); }

        public static IOnitySelectEventHandler<string> GetAsyncSelectEventHandler(this TMP_InputField inputField) { return Handler(inputField, Field(inputField).onSelect, default(CancellationToken)); }
        public static IOnitySelectEventHandler<string> GetAsyncSelectEventHandler(this TMP_InputField inputField, CancellationToken cancellationToken) { return Handler(inputField, Field(inputField).onSelect, cancellationToken); }

        public static IOnitySubmitEventHandler<string> GetAsyncSubmitEventHandler(this TMP_InputField inputField) { return Handler(inputField, Field(inputField).onSubmit, default(CancellationToken)); }
        public static IOnitySubmitEventHandler<string> GetAsyncSubmitEventHandler(this TMP_InputField inputField, CancellationToken cancellationToken) { return Handler(inputField, Field(inputField).onSubmit, cancellationToken); }

        static OnityUnityEventHandler<T> Handler<T>(TMP_InputField inputField, UnityEvent<T> unityEvent, CancellationToken cancellationToken)
        {
            return new OnityUnityEventHandler<T>(unityEvent, inputField, cancellationToken, false);
        }

        static UnityEvent<(string, int, int)> Selection(TMP_InputField inputField, UnityEvent<string, int, int> textSelectionEvent)
        {
            return OnityTextSelectionRelay.For(textSelectionEvent, inputField);
        }

        static TMP_InputField Field(TMP_InputField inputField)
        {
            // A destroyed field still reads its events (the wait is then canceled, the stream ended).
            if (ReferenceEquals(inputField, null)) throw new ArgumentNullException("inputField");
            return inputField;
        }
    }

    /// <summary>A TMP text-selection event (<c>UnityEvent&lt;string, int, int&gt;</c>) relayed as a
    /// <c>UnityEvent&lt;(string, int, int)&gt;</c>, so the UnityEvent waits and streams serve it:
    /// one relay per event, listening until its input field is destroyed (kept in a table by event,
    /// on the owner thread).</summary>
    internal sealed class OnityTextSelectionRelay : UnityEvent<(string, int, int)>
    {
        static readonly Dictionary<UnityEventBase, OnityTextSelectionRelay> relays = new Dictionary<UnityEventBase, OnityTextSelectionRelay>();
        static readonly Action<object> onOwnerDestroyed = o => ((OnityTextSelectionRelay)o).Close();
        readonly UnityEvent<string, int, int> source;
        readonly UnityAction<string, int, int> listener;

        OnityTextSelectionRelay(UnityEvent<string, int, int> source)
        {
            this.source = source;
            listener = Relay;
        }

        void Relay(string text, int start, int end) { Invoke((text, start, end)); }

        /// <summary>The relay of <paramref name="source"/> (created and listening from the first
        /// use while <paramref name="owner"/> lives; for a destroyed owner a relay that never
        /// fires: the wait is canceled, the stream ended, by the owner check downstream).</summary>
        internal static OnityTextSelectionRelay For(UnityEvent<string, int, int> source, TMP_InputField owner)
        {
            if (source == null) throw new ArgumentNullException("unityEvent");
            var r = OnityRuntime.Current;
            if (r != null && !r.IsOwnerThread)
                throw new InvalidOperationException("Onity: a TMP_InputField event is awaited on the main thread (the runtime's owner); this is thread " + Thread.CurrentThread.ManagedThreadId + ".");
            OnityTextSelectionRelay relay;
            if (relays.TryGetValue(source, out relay)) return relay;
            relay = new OnityTextSelectionRelay(source);
            if (owner == null) return relay; // destroyed
            var token = owner.destroyCancellationToken;
            if (token.IsCancellationRequested) return relay; // being destroyed
            source.AddListener(relay.listener);
            relays[source] = relay;
            token.Register(onOwnerDestroyed, relay);
            return relay;
        }

        void Close()
        {
            source.RemoveListener(listener);
            OnityTextSelectionRelay current;
            if (relays.TryGetValue(source, out current) && current == this) relays.Remove(source);
        }
    }
}
#endif
