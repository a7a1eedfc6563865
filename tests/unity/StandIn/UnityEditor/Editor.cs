// Test-only stand-in of the UnityEditor API surface the Onity package uses (signatures from
// UnityCsReference). Never shipped.
using System;
using UnityEngine;
using System.Runtime.CompilerServices;

[assembly: InternalsVisibleTo("OnityUnityTests")]

namespace UnityEditor
{
    public enum PlayModeStateChange
    {
        EnteredEditMode,
        ExitingEditMode,
        EnteredPlayMode,
        ExitingPlayMode,
    }

    public sealed partial class EditorApplication
    {
        internal static bool s_isPlaying;

        public static event Action<PlayModeStateChange> playModeStateChanged;

        public static bool isPlaying { get { return s_isPlaying; } set { s_isPlaying = value; } }

        internal static void RaisePlayModeStateChanged(PlayModeStateChange state)
        {
            var h = playModeStateChanged;
            if (h != null) h(state);
        }

        internal static int PlayModeHandlerCount
        {
            get { var h = playModeStateChanged; return h == null ? 0 : h.GetInvocationList().Length; }
        }
    }

    public static class AssemblyReloadEvents
    {
        public delegate void AssemblyReloadCallback();

        public static event AssemblyReloadCallback beforeAssemblyReload;

        internal static void RaiseBeforeAssemblyReload()
        {
            var h = beforeAssemblyReload;
            if (h != null) h();
        }
    }

    [AttributeUsage(AttributeTargets.Method)]
    public class InitializeOnLoadMethodAttribute : Attribute { }

    [AttributeUsage(AttributeTargets.Method, AllowMultiple = true)]
    public sealed class MenuItem : Attribute
    {
        public string menuItem;
        public bool validate;
        public int priority;

        public MenuItem(string itemName) : this(itemName, false) { }
        public MenuItem(string itemName, bool isValidateFunction) : this(itemName, isValidateFunction, 1000) { }
        public MenuItem(string itemName, bool isValidateFunction, int priority)
        {
            menuItem = itemName;
            validate = isValidateFunction;
            this.priority = priority;
        }
    }

    public class EditorWindow : ScriptableObject
    {
        GUIContent m_TitleContent = new GUIContent();
        internal int RepaintCount;

        public GUIContent titleContent { get { return m_TitleContent; } set { m_TitleContent = value; } }

        public static T GetWindow<T>() where T : EditorWindow
        {
            return CreateInstance<T>();
        }

        public static T GetWindow<T>(string title) where T : EditorWindow
        {
            var w = CreateInstance<T>();
            w.titleContent = new GUIContent(title);
            return w;
        }

        public void Repaint() { RepaintCount++; }
    }

    public enum MessageType
    {
        None = 0,
        Info = 1,
        Warning = 2,
        Error = 3,
    }

    public sealed class EditorStyles
    {
        static readonly GUIStyle s_Bold = new GUIStyle();

        public static GUIStyle boldLabel { get { return s_Bold; } }
    }

    public sealed partial class EditorGUILayout
    {
        public static void LabelField(string label, params GUILayoutOption[] options) { StandInGui.Record(label); }
        public static void LabelField(string label, string label2, params GUILayoutOption[] options) { StandInGui.Record(label + ": " + label2); }
        public static void HelpBox(string message, MessageType type) { StandInGui.Record("HelpBox(" + type + "): " + message); }
        public static Vector2 BeginScrollView(Vector2 scrollPosition, params GUILayoutOption[] options) { return scrollPosition; }
        public static void EndScrollView() { }
        public static void Space() { }
    }
}
