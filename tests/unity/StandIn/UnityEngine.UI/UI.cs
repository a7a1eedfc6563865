// Test-only stand-in of the uGUI members the package uses (com.unity.ugui 1.0.0 for Unity 2022.3,
// Unity-Technologies/uGUI: UIBehaviour, Selectable, Button, Toggle, Slider, InputField): each
// control's UnityEvent and the value setters that raise it, as in uGUI. Compiled into its own
// UnityEngine.UI.dll, as the package's assembly is. Never shipped.
using System;
using System.Runtime.CompilerServices;
using UnityEngine.Events;

[assembly: InternalsVisibleTo("OnityUnityTests")]

namespace UnityEngine.EventSystems
{
    public abstract class UIBehaviour : MonoBehaviour
    {
        protected UIBehaviour() { }
    }
}

namespace UnityEngine.UI
{
    public class Selectable : EventSystems.UIBehaviour
    {
        protected Selectable() { }
    }

    public class Button : Selectable
    {
        [Serializable]
        public class ButtonClickedEvent : UnityEvent { }

        [SerializeField]
        private ButtonClickedEvent m_OnClick = new ButtonClickedEvent();

        protected Button() { }

        public ButtonClickedEvent onClick
        {
            get { return m_OnClick; }
            set { m_OnClick = value; }
        }
    }

    public class Toggle : Selectable
    {
        [Serializable]
        public class ToggleEvent : UnityEvent<bool> { }

        public ToggleEvent onValueChanged = new ToggleEvent();

        [SerializeField]
        private bool m_IsOn;

        protected Toggle() { }

        public bool isOn
        {
            get { return m_IsOn; }
            set
            {
                if (m_IsOn == value) return;
                m_IsOn = value;
                onValueChanged.Invoke(m_IsOn);
            }
        }
    }

    public class Slider : Selectable
    {
        [Serializable]
        public class SliderEvent : UnityEvent<float> { }

        [SerializeField]
        private float m_Value;

        [SerializeField]
        private SliderEvent m_OnValueChanged = new SliderEvent();

        protected Slider() { }

        public float value
        {
            get { return m_Value; }
            set
            {
                float v = Mathf.Clamp01(value); // minValue 0, maxValue 1 (uGUI's defaults)
                if (m_Value == v) return;
                m_Value = v;
                m_OnValueChanged.Invoke(v);
            }
        }

        public SliderEvent onValueChanged { get { return m_OnValueChanged; } set { m_OnValueChanged = value; } }
    }

    public class InputField : Selectable
    {
        [Serializable]
        public class SubmitEvent : UnityEvent<string> { }

        [SerializeField]
        private SubmitEvent m_OnEndEdit = new SubmitEvent();

        protected InputField() { }

        public SubmitEvent onEndEdit { get { return m_OnEndEdit; } set { m_OnEndEdit = value; } }
    }
}
