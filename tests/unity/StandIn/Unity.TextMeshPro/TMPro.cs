// Test-only stand-in of the TextMeshPro members the package uses (com.unity.textmeshpro 3.0.x,
// Scripts/Runtime/TMP_Text.cs and TMP_InputField.cs; assembly Unity.TextMeshPro): TMP_InputField's
// events (their nested UnityEvent classes; not onTouchScreenKeyboardStatusChanged) and text,
// TMP_Text's text. Deviation: TMP_Text derives from UIBehaviour here (TMP: MaskableGraphic -> Graphic -> UIBehaviour; nothing here reads a
// Graphic member). Never shipped.
using System;
using System.Runtime.CompilerServices;
using UnityEngine.Events;
using UnityEngine.UI;

[assembly: InternalsVisibleTo("OnityUnityTests")]

namespace TMPro
{
    public abstract class TMP_Text : UnityEngine.EventSystems.UIBehaviour
    {
        [UnityEngine.SerializeField]
        protected string m_text;

        internal int m_TextSets; // simulation: assignments that changed the text

        public virtual string text
        {
            get { return m_text; }
            set
            {
                if (m_text == value) return;
                m_text = value;
                m_TextSets++;
            }
        }

        public void SetText(string sourceText) { text = sourceText; }
    }

    public class TextMeshProUGUI : TMP_Text
    {
    }

    public class TMP_InputField : Selectable
    {
        [Serializable]
        public class SubmitEvent : UnityEvent<string> { }

        [Serializable]
        public class OnChangeEvent : UnityEvent<string> { }

        [Serializable]
        public class SelectionEvent : UnityEvent<string> { }

        [Serializable]
        public class TextSelectionEvent : UnityEvent<string, int, int> { }

        [UnityEngine.SerializeField] private SubmitEvent m_OnEndEdit = new SubmitEvent();
        [UnityEngine.SerializeField] private SubmitEvent m_OnSubmit = new SubmitEvent();
        [UnityEngine.SerializeField] private SelectionEvent m_OnSelect = new SelectionEvent();
        [UnityEngine.SerializeField] private SelectionEvent m_OnDeselect = new SelectionEvent();
        [UnityEngine.SerializeField] private TextSelectionEvent m_OnTextSelection = new TextSelectionEvent();
        [UnityEngine.SerializeField] private TextSelectionEvent m_OnEndTextSelection = new TextSelectionEvent();
        [UnityEngine.SerializeField] private OnChangeEvent m_OnValueChanged = new OnChangeEvent();
        [UnityEngine.SerializeField] protected string m_Text = string.Empty;

        protected TMP_InputField() { }

        public string text
        {
            get { return m_Text; }
            set { SetText(value); }
        }

        public void SetTextWithoutNotify(string input) { m_Text = input ?? string.Empty; }

        protected virtual void SetText(string value, bool sendCallback = true)
        {
            if (m_Text == value) return;
            m_Text = value ?? string.Empty;
            if (sendCallback) m_OnValueChanged.Invoke(m_Text);
        }

        public SubmitEvent onEndEdit { get { return m_OnEndEdit; } set { m_OnEndEdit = value; } }
        public SubmitEvent onSubmit { get { return m_OnSubmit; } set { m_OnSubmit = value; } }
        public SelectionEvent onSelect { get { return m_OnSelect; } set { m_OnSelect = value; } }
        public SelectionEvent onDeselect { get { return m_OnDeselect; } set { m_OnDeselect = value; } }
        public TextSelectionEvent onTextSelection { get { return m_OnTextSelection; } set { m_OnTextSelection = value; } }
        public TextSelectionEvent onEndTextSelection { get { return m_OnEndTextSelection; } set { m_OnEndTextSelection = value; } }
        public OnChangeEvent onValueChanged { get { return m_OnValueChanged; } set { m_OnValueChanged = value; } }
    }
}
