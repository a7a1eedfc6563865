// uGUI events as awaitables, once and as streams. uGUI is a package (com.unity.ugui, assembly
// UnityEngine.UI): this file is its own assembly, Onity.Unity.UGUI, compiled only when the package
// is installed (defineConstraints ONITY_UGUI_SUPPORT, set by the asmdef's versionDefines).
#if (UNITY_5_3_OR_NEWER || ONITY_UNITY_STANDIN) && ONITY_UGUI_SUPPORT
using System;
using System.Threading;
using UnityEngine.UI;

namespace Onity
{
    /// <summary>Awaiting uGUI events. Each control's event gets one listener, kept until the control
    /// is destroyed and shared by every wait and stream on it: after the first, a wait allocates
    /// nothing. A wait completes at the next invocation; it is canceled at once when the control is
    /// destroyed (its <c>destroyCancellationToken</c>), or at the next run of Update after
    /// <c>cancellationToken</c> is canceled. A stream ends (<c>MoveNextAsync</c> returns false) when
    /// the control is destroyed; it is pulled (an invocation while its consumer is busy is not kept
    /// for it). Owner thread (the main thread).</summary>
    public static class OnityUGuiExtensions
    {
        /// <summary>The next click.</summary>
        public static OnityTask OnClickAsync(this Button button, CancellationToken cancellationToken = default(CancellationToken))
        {
            return button.onClick.OnInvokeAsync(button, cancellationToken);
        }

        /// <summary>The clicks, as a stream.</summary>
        public static IOnityAsyncEnumerable<AsyncUnit> OnClickAsAsyncEnumerable(this Button button)
        {
            return button.onClick.OnInvokeAsAsyncEnumerable(button);
        }

        /// <summary>As <see cref="OnClickAsAsyncEnumerable(Button)"/>, ended by <paramref name="cancellationToken"/> too
        /// (<see cref="OperationCanceledException"/> carrying the canceled token).</summary>
        public static IOnityAsyncEnumerable<AsyncUnit> OnClickAsAsyncEnumerable(this Button button, CancellationToken cancellationToken)
        {
            return new OnityUnityEventAsyncEnumerable(button.onClick, button, cancellationToken);
        }

        /// <summary>The next value change (the new value).</summary>
        public static OnityTask<bool> OnValueChangedAsync(this Toggle toggle, CancellationToken cancellationToken = default(CancellationToken))
        {
            return toggle.onValueChanged.OnInvokeAsync(toggle, cancellationToken);
        }

        public static IOnityAsyncEnumerable<bool> OnValueChangedAsAsyncEnumerable(this Toggle toggle)
        {
            return toggle.onValueChanged.OnInvokeAsAsyncEnumerable(toggle);
        }

        /// <summary>As <see cref="OnValueChangedAsAsyncEnumerable(Toggle)"/>, ended by <paramref name="cancellationToken"/> too
        /// (<see cref="OperationCanceledException"/> carrying the canceled token).</summary>
        public static IOnityAsyncEnumerable<bool> OnValueChangedAsAsyncEnumerable(this Toggle toggle, CancellationToken cancellationToken)
        {
            return new OnityUnityEventAsyncEnumerable<bool>(toggle.onValueChanged, toggle, cancellationToken);
        }

        /// <summary>The next value change (the new value).</summary>
        public static OnityTask<float> OnValueChangedAsync(this Slider slider, CancellationToken cancellationToken = default(CancellationToken))
        {
            return slider.onValueChanged.OnInvokeAsync(slider, cancellationToken);
        }

        public static IOnityAsyncEnumerable<float> OnValueChangedAsAsyncEnumerable(this Slider slider)
        {
            return slider.onValueChanged.OnInvokeAsAsyncEnumerable(slider);
        }

        /// <summary>As <see cref="OnValueChangedAsAsyncEnumerable(Slider)"/>, ended by <paramref name="cancellationToken"/> too
        /// (<see cref="OperationCanceledException"/> carrying the canceled token).</summary>
        public static IOnityAsyncEnumerable<float> OnValueChangedAsAsyncEnumerable(this Slider slider, CancellationToken cancellationToken)
        {
            return new OnityUnityEventAsyncEnumerable<float>(slider.onValueChanged, slider, cancellationToken);
        }

        /// <summary>The next value change (the new value).</summary>
        public static OnityTask<float> OnValueChangedAsync(this Scrollbar scrollbar, CancellationToken cancellationToken = default(CancellationToken))
        {
            return scrollbar.onValueChanged.OnInvokeAsync(scrollbar, cancellationToken);
        }

        public static IOnityAsyncEnumerable<float> OnValueChangedAsAsyncEnumerable(this Scrollbar scrollbar)
        {
            return scrollbar.onValueChanged.OnInvokeAsAsyncEnumerable(scrollbar);
        }

        /// <summary>As <see cref="OnValueChangedAsAsyncEnumerable(Scrollbar)"/>, ended by <paramref name="cancellationToken"/> too
        /// (<see cref="OperationCanceledException"/> carrying the canceled token).</summary>
        public static IOnityAsyncEnumerable<float> OnValueChangedAsAsyncEnumerable(this Scrollbar scrollbar, CancellationToken cancellationToken)
        {
            return new OnityUnityEventAsyncEnumerable<float>(scrollbar.onValueChanged, scrollbar, cancellationToken);
        }

        /// <summary>The next scroll (the normalized position).</summary>
        public static OnityTask<UnityEngine.Vector2> OnValueChangedAsync(this ScrollRect scrollRect, CancellationToken cancellationToken = default(CancellationToken))
        {
            return scrollRect.onValueChanged.OnInvokeAsync(scrollRect, cancellationToken);
        }

        public static IOnityAsyncEnumerable<UnityEngine.Vector2> OnValueChangedAsAsyncEnumerable(this ScrollRect scrollRect)
        {
            return scrollRect.onValueChanged.OnInvokeAsAsyncEnumerable(scrollRect);
        }

        /// <summary>As <see cref="OnValueChangedAsAsyncEnumerable(ScrollRect)"/>, ended by <paramref name="cancellationToken"/> too
        /// (<see cref="OperationCanceledException"/> carrying the canceled token).</summary>
        public static IOnityAsyncEnumerable<UnityEngine.Vector2> OnValueChangedAsAsyncEnumerable(this ScrollRect scrollRect, CancellationToken cancellationToken)
        {
            return new OnityUnityEventAsyncEnumerable<UnityEngine.Vector2>(scrollRect.onValueChanged, scrollRect, cancellationToken);
        }

        /// <summary>The next selection (the option's index).</summary>
        public static OnityTask<int> OnValueChangedAsync(this Dropdown dropdown, CancellationToken cancellationToken = default(CancellationToken))
        {
            return dropdown.onValueChanged.OnInvokeAsync(dropdown, cancellationToken);
        }

        public static IOnityAsyncEnumerable<int> OnValueChangedAsAsyncEnumerable(this Dropdown dropdown)
        {
            return dropdown.onValueChanged.OnInvokeAsAsyncEnumerable(dropdown);
        }

        /// <summary>As <see cref="OnValueChangedAsAsyncEnumerable(Dropdown)"/>, ended by <paramref name="cancellationToken"/> too
        /// (<see cref="OperationCanceledException"/> carrying the canceled token).</summary>
        public static IOnityAsyncEnumerable<int> OnValueChangedAsAsyncEnumerable(this Dropdown dropdown, CancellationToken cancellationToken)
        {
            return new OnityUnityEventAsyncEnumerable<int>(dropdown.onValueChanged, dropdown, cancellationToken);
        }

        /// <summary>The next text change (the text).</summary>
        public static OnityTask<string> OnValueChangedAsync(this InputField inputField, CancellationToken cancellationToken = default(CancellationToken))
        {
            return inputField.onValueChanged.OnInvokeAsync(inputField, cancellationToken);
        }

        public static IOnityAsyncEnumerable<string> OnValueChangedAsAsyncEnumerable(this InputField inputField)
        {
            return inputField.onValueChanged.OnInvokeAsAsyncEnumerable(inputField);
        }

        /// <summary>As <see cref="OnValueChangedAsAsyncEnumerable(InputField)"/>, ended by <paramref name="cancellationToken"/> too
        /// (<see cref="OperationCanceledException"/> carrying the canceled token).</summary>
        public static IOnityAsyncEnumerable<string> OnValueChangedAsAsyncEnumerable(this InputField inputField, CancellationToken cancellationToken)
        {
            return new OnityUnityEventAsyncEnumerable<string>(inputField.onValueChanged, inputField, cancellationToken);
        }

        /// <summary>The next end of editing (the text).</summary>
        public static OnityTask<string> OnEndEditAsync(this InputField inputField, CancellationToken cancellationToken = default(CancellationToken))
        {
            return inputField.onEndEdit.OnInvokeAsync(inputField, cancellationToken);
        }

        public static IOnityAsyncEnumerable<string> OnEndEditAsAsyncEnumerable(this InputField inputField)
        {
            return inputField.onEndEdit.OnInvokeAsAsyncEnumerable(inputField);
        }

        /// <summary>As <see cref="OnEndEditAsAsyncEnumerable(InputField)"/>, ended by <paramref name="cancellationToken"/> too
        /// (<see cref="OperationCanceledException"/> carrying the canceled token).</summary>
        public static IOnityAsyncEnumerable<string> OnEndEditAsAsyncEnumerable(this InputField inputField, CancellationToken cancellationToken)
        {
            return new OnityUnityEventAsyncEnumerable<string>(inputField.onEndEdit, inputField, cancellationToken);
        }

        // Reusable handlers (UniTask's GetAsyncXxxEventHandler): awaited again and again without
        // allocating; ended by Dispose, the token, or the control's destruction (OnityUnityEventHandler).

        /// <summary>A reusable handler of the Button's onClick (<c>OnClickAsync()</c>).</summary>
        public static IOnityClickEventHandler GetAsyncClickEventHandler(this Button button) { return new OnityUnityEventHandler(button.onClick, button, default(CancellationToken), false); }
        public static IOnityClickEventHandler GetAsyncClickEventHandler(this Button button, CancellationToken cancellationToken) { return new OnityUnityEventHandler(button.onClick, button, cancellationToken, false); }
        /// <summary>A reusable handler of the Toggle's onValueChanged (<c>OnValueChangedAsync()</c>).</summary>
        public static IOnityValueChangedEventHandler<bool> GetAsyncValueChangedEventHandler(this Toggle toggle) { return new OnityUnityEventHandler<bool>(toggle.onValueChanged, toggle, default(CancellationToken), false); }
        public static IOnityValueChangedEventHandler<bool> GetAsyncValueChangedEventHandler(this Toggle toggle, CancellationToken cancellationToken) { return new OnityUnityEventHandler<bool>(toggle.onValueChanged, toggle, cancellationToken, false); }
        /// <summary>A reusable handler of the Scrollbar's onValueChanged (<c>OnValueChangedAsync()</c>).</summary>
        public static IOnityValueChangedEventHandler<float> GetAsyncValueChangedEventHandler(this Scrollbar scrollbar) { return new OnityUnityEventHandler<float>(scrollbar.onValueChanged, scrollbar, default(CancellationToken), false); }
        public static IOnityValueChangedEventHandler<float> GetAsyncValueChangedEventHandler(this Scrollbar scrollbar, CancellationToken cancellationToken) { return new OnityUnityEventHandler<float>(scrollbar.onValueChanged, scrollbar, cancellationToken, false); }
        /// <summary>A reusable handler of the ScrollRect's onValueChanged (<c>OnValueChangedAsync()</c>).</summary>
        public static IOnityValueChangedEventHandler<UnityEngine.Vector2> GetAsyncValueChangedEventHandler(this ScrollRect scrollRect) { return new OnityUnityEventHandler<UnityEngine.Vector2>(scrollRect.onValueChanged, scrollRect, default(CancellationToken), false); }
        public static IOnityValueChangedEventHandler<UnityEngine.Vector2> GetAsyncValueChangedEventHandler(this ScrollRect scrollRect, CancellationToken cancellationToken) { return new OnityUnityEventHandler<UnityEngine.Vector2>(scrollRect.onValueChanged, scrollRect, cancellationToken, false); }
        /// <summary>A reusable handler of the Slider's onValueChanged (<c>OnValueChangedAsync()</c>).</summary>
        public static IOnityValueChangedEventHandler<float> GetAsyncValueChangedEventHandler(this Slider slider) { return new OnityUnityEventHandler<float>(slider.onValueChanged, slider, default(CancellationToken), false); }
        public static IOnityValueChangedEventHandler<float> GetAsyncValueChangedEventHandler(this Slider slider, CancellationToken cancellationToken) { return new OnityUnityEventHandler<float>(slider.onValueChanged, slider, cancellationToken, false); }
        /// <summary>A reusable handler of the InputField's onEndEdit (<c>OnEndEditAsync()</c>).</summary>
        public static IOnityEndEditEventHandler<string> GetAsyncEndEditEventHandler(this InputField inputField) { return new OnityUnityEventHandler<string>(inputField.onEndEdit, inputField, default(CancellationToken), false); }
        public static IOnityEndEditEventHandler<string> GetAsyncEndEditEventHandler(this InputField inputField, CancellationToken cancellationToken) { return new OnityUnityEventHandler<string>(inputField.onEndEdit, inputField, cancellationToken, false); }
        /// <summary>A reusable handler of the InputField's onValueChanged (<c>OnValueChangedAsync()</c>).</summary>
        public static IOnityValueChangedEventHandler<string> GetAsyncValueChangedEventHandler(this InputField inputField) { return new OnityUnityEventHandler<string>(inputField.onValueChanged, inputField, default(CancellationToken), false); }
        public static IOnityValueChangedEventHandler<string> GetAsyncValueChangedEventHandler(this InputField inputField, CancellationToken cancellationToken) { return new OnityUnityEventHandler<string>(inputField.onValueChanged, inputField, cancellationToken, false); }
        /// <summary>A reusable handler of the Dropdown's onValueChanged (<c>OnValueChangedAsync()</c>).</summary>
        public static IOnityValueChangedEventHandler<int> GetAsyncValueChangedEventHandler(this Dropdown dropdown) { return new OnityUnityEventHandler<int>(dropdown.onValueChanged, dropdown, default(CancellationToken), false); }
        public static IOnityValueChangedEventHandler<int> GetAsyncValueChangedEventHandler(this Dropdown dropdown, CancellationToken cancellationToken) { return new OnityUnityEventHandler<int>(dropdown.onValueChanged, dropdown, cancellationToken, false); }
    }
}
#endif
