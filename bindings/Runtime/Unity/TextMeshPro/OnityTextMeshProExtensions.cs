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
        // The waits, streams and reusable handlers of the events: OnityTextMeshProExtensions.g.cs
        // (scripts/gen_csharp_triggers.py, TMP_EVENTS).

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
