// Test-only stand-in of the uGUI members the package uses (com.unity.ugui 1.0.0 for Unity 2022.3,
// Unity-Technologies/uGUI: UIBehaviour, the EventSystems handler interfaces and event data,
// Selectable (interactable), Text, Button, Toggle, Slider, InputField, Scrollbar, ScrollRect, Dropdown): each
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

    // EventSystem/EventInterfaces.cs and EventData/*.cs (the types the package's EventSystems
    // triggers name; the data classes reduced to their constructors).
    public class EventSystem : UIBehaviour
    {
    }

    public abstract class AbstractEventData
    {
    }

    public class BaseEventData : AbstractEventData
    {
        public BaseEventData(EventSystem eventSystem) { }
    }

    public class AxisEventData : BaseEventData
    {
        public AxisEventData(EventSystem eventSystem) : base(eventSystem) { }
    }

    public class PointerEventData : BaseEventData
    {
        public PointerEventData(EventSystem eventSystem) : base(eventSystem) { }
    }

    public interface IEventSystemHandler { }
    public interface IPointerEnterHandler : IEventSystemHandler { void OnPointerEnter(PointerEventData eventData); }
    public interface IPointerExitHandler : IEventSystemHandler { void OnPointerExit(PointerEventData eventData); }
    public interface IPointerDownHandler : IEventSystemHandler { void OnPointerDown(PointerEventData eventData); }
    public interface IPointerUpHandler : IEventSystemHandler { void OnPointerUp(PointerEventData eventData); }
    public interface IPointerClickHandler : IEventSystemHandler { void OnPointerClick(PointerEventData eventData); }
    public interface IBeginDragHandler : IEventSystemHandler { void OnBeginDrag(PointerEventData eventData); }
    public interface IInitializePotentialDragHandler : IEventSystemHandler { void OnInitializePotentialDrag(PointerEventData eventData); }
    public interface IDragHandler : IEventSystemHandler { void OnDrag(PointerEventData eventData); }
    public interface IEndDragHandler : IEventSystemHandler { void OnEndDrag(PointerEventData eventData); }
    public interface IDropHandler : IEventSystemHandler { void OnDrop(PointerEventData eventData); }
    public interface IScrollHandler : IEventSystemHandler { void OnScroll(PointerEventData eventData); }
    public interface IUpdateSelectedHandler : IEventSystemHandler { void OnUpdateSelected(BaseEventData eventData); }
    public interface ISelectHandler : IEventSystemHandler { void OnSelect(BaseEventData eventData); }
    public interface IDeselectHandler : IEventSystemHandler { void OnDeselect(BaseEventData eventData); }
    public interface IMoveHandler : IEventSystemHandler { void OnMove(AxisEventData eventData); }
    public interface ISubmitHandler : IEventSystemHandler { void OnSubmit(BaseEventData eventData); }
    public interface ICancelHandler : IEventSystemHandler { void OnCancel(BaseEventData eventData); }
}

namespace UnityEngine.UI
{
    public class Selectable : EventSystems.UIBehaviour
    {
        [SerializeField]
        private bool m_Interactable = true;

        protected Selectable() { }

        public bool interactable
        {
            get { return m_Interactable; }
            set { m_Interactable = value; }
        }
    }

    // Core/Graphic.cs, Core/MaskableGraphic.cs, Core/Text.cs (reduced to the text property).
    public abstract class Graphic : EventSystems.UIBehaviour
    {
        protected Graphic() { }
    }

    public abstract class MaskableGraphic : Graphic
    {
        protected MaskableGraphic() { }
    }

    public class Text : MaskableGraphic
    {
        [SerializeField]
        protected string m_Text = String.Empty;

        protected Text() { }

        public virtual string text
        {
            get { return m_Text; }
            set { m_Text = String.IsNullOrEmpty(value) ? "" : value; }
        }
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

    // uGUI 2022.3 (com.unity.ugui 1.0.0): onEndEdit is an EndEditEvent (the end of any edit,
    // also by losing focus); onSubmit, a SubmitEvent, is raised only by a submit (Enter).
    public class InputField : Selectable
    {
        [Serializable]
        public class SubmitEvent : UnityEvent<string> { }

        [Serializable]
        public class EndEditEvent : UnityEvent<string> { }

        [SerializeField]
        private SubmitEvent m_OnSubmit = new SubmitEvent();

        [SerializeField]
        private EndEditEvent m_OnDidEndEdit = new EndEditEvent();

        protected InputField() { }

        [Serializable]
        public class OnChangeEvent : UnityEvent<string> { }

        [SerializeField]
        private OnChangeEvent m_OnValueChanged = new OnChangeEvent();

        private string m_Text = "";

        public EndEditEvent onEndEdit { get { return m_OnDidEndEdit; } set { m_OnDidEndEdit = value; } }

        public OnChangeEvent onValueChanged { get { return m_OnValueChanged; } set { m_OnValueChanged = value; } }

        public string text
        {
            get { return m_Text; }
            set
            {
                if (m_Text == value) return;
                m_Text = value ?? "";
                m_OnValueChanged.Invoke(m_Text);
            }
        }

        public SubmitEvent onSubmit { get { return m_OnSubmit; } set { m_OnSubmit = value; } }
    }

    public class Scrollbar : Selectable
    {
        [Serializable]
        public class ScrollEvent : UnityEvent<float> { }

        [SerializeField]
        private ScrollEvent m_OnValueChanged = new ScrollEvent();

        private float m_Value;

        protected Scrollbar() { }

        public ScrollEvent onValueChanged { get { return m_OnValueChanged; } set { m_OnValueChanged = value; } }

        public float value
        {
            get { return m_Value; }
            set
            {
                float v = Mathf.Clamp01(value);
                if (m_Value == v) return;
                m_Value = v;
                m_OnValueChanged.Invoke(v);
            }
        }
    }

    public class ScrollRect : EventSystems.UIBehaviour
    {
        [Serializable]
        public class ScrollRectEvent : UnityEvent<Vector2> { }

        [SerializeField]
        private ScrollRectEvent m_OnValueChanged = new ScrollRectEvent();

        private Vector2 m_NormalizedPosition;

        protected ScrollRect() { }

        public ScrollRectEvent onValueChanged { get { return m_OnValueChanged; } set { m_OnValueChanged = value; } }

        public Vector2 normalizedPosition
        {
            get { return m_NormalizedPosition; }
            set
            {
                m_NormalizedPosition = value;
                m_OnValueChanged.Invoke(value);
            }
        }
    }

    public class Dropdown : Selectable
    {
        [Serializable]
        public class DropdownEvent : UnityEvent<int> { }

        [SerializeField]
        private DropdownEvent m_OnValueChanged = new DropdownEvent();

        private int m_Value;

        protected Dropdown() { }

        public DropdownEvent onValueChanged { get { return m_OnValueChanged; } set { m_OnValueChanged = value; } }

        public int value
        {
            get { return m_Value; }
            set
            {
                if (m_Value == value) return;
                m_Value = value;
                m_OnValueChanged.Invoke(value);
            }
        }
    }
}
