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

        public delegate void CallbackFunction();

        // A field, as in Unity: "called once after all inspectors update" (the next editor tick).
        public static CallbackFunction delayCall;

        public static event Action<PlayModeStateChange> playModeStateChanged;

        public static bool isPlaying { get { return s_isPlaying; } set { s_isPlaying = value; } }

        // Unity's Internal_CallDelayFunctions (Editor/Mono/EditorApplication.cs), once per editor tick.
        internal static void CallDelayFunctions()
        {
            CallbackFunction delay = delayCall;
            delayCall = null;
            if (delay != null) delay();
        }

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
        // EditorGUILayout.Toggle(string, bool, params GUILayoutOption[]) (Unity 2022.3 Script
        // Reference): records the label and state; returns StandInToggle's answer when a test set one.
        public static bool Toggle(string label, bool value, params GUILayoutOption[] options)
        {
            StandInGui.Record("Toggle(" + label + "): " + value);
            bool r = StandInToggle.Next ?? value;
            StandInToggle.Next = null;
            return r;
        }
    }

    /// <summary>Stand-in only: what the next <see cref="EditorGUILayout.Toggle(string, bool, GUILayoutOption[])"/>
    /// returns (the user's click), or null for the value shown.</summary>
    internal static class StandInToggle
    {
        internal static bool? Next;
    }
}

namespace UnityEditor
{
    // Project Settings > Editor > Enter Play Mode Options (Editor/Mono/EditorSettings.bindings.cs).
    [Flags]
    public enum EnterPlayModeOptions
    {
        None = 0,
        DisableDomainReload = 1 << 0,
        DisableSceneReload = 1 << 1,
        DisableSceneBackupUnlessDirty = 1 << 2,
    }

    public sealed class EditorSettings : UnityEngine.Object
    {
        EditorSettings() { }

        // Unity's defaults: the options are off, so entering Play Mode reloads the domain.
        internal static bool s_EnterPlayModeOptionsEnabled;
        internal static EnterPlayModeOptions s_EnterPlayModeOptions = EnterPlayModeOptions.DisableDomainReload | EnterPlayModeOptions.DisableSceneReload;

        public static bool enterPlayModeOptionsEnabled { get { return s_EnterPlayModeOptionsEnabled; } set { s_EnterPlayModeOptionsEnabled = value; } }
        public static EnterPlayModeOptions enterPlayModeOptions { get { return s_EnterPlayModeOptions; } set { s_EnterPlayModeOptions = value; } }
    }

    // The subset of BuildTarget the linker data needs (values as in Unity).
    public enum BuildTarget
    {
        StandaloneOSX = 2,
        StandaloneWindows = 5,
        iOS = 9,
        Android = 13,
        StandaloneWindows64 = 19,
        WebGL = 20,
        StandaloneLinux64 = 24,
    }
}

namespace UnityEditor.Build
{
    public interface IOrderedCallback
    {
        int callbackOrder { get; }
    }

    // 2022.3 (Editor/Mono/BuildPipeline/BuildPipelineInterfaces.cs): OnBeforeRun/OnAfterRun are gone.
    public interface IUnityLinkerProcessor : IOrderedCallback
    {
        string GenerateAdditionalLinkXmlFile(UnityEditor.Build.Reporting.BuildReport report, UnityEditor.UnityLinker.UnityLinkerBuildPipelineData data);
    }
}

namespace UnityEditor.Build.Reporting
{
    public sealed class BuildReport : UnityEngine.Object
    {
        internal BuildReport() { }
    }
}

namespace UnityEditor.UnityLinker
{
    public sealed class UnityLinkerBuildPipelineData
    {
        public readonly BuildTarget target;
        public readonly string inputDirectory;

        public UnityLinkerBuildPipelineData(BuildTarget target, string inputDirectory)
        {
            this.target = target;
            this.inputDirectory = inputDirectory;
        }
    }
}
