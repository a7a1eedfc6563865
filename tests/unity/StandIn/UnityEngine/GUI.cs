// Test-only stand-in: the IMGUI subset the package and sample use. Calls are recorded (internal)
// so tests can check what a window or overlay drew.
using System;
using System.Collections.Generic;

namespace UnityEngine
{
    public class GUIContent
    {
        string m_Text;

        public GUIContent() { m_Text = ""; }
        public GUIContent(string text) { m_Text = text; }

        public string text { get { return m_Text; } set { m_Text = value; } }
    }

    public class GUIStyle
    {
        public GUIStyle() { }
        public GUIStyle(GUIStyle other) { }
    }

    public sealed class GUILayoutOption
    {
        internal GUILayoutOption() { }
    }

    public class GUI
    {
        public static void Box(Rect position, string text) { StandInGui.Record("Box:" + text); }
    }

    public class GUILayout
    {
        public static void Label(string text, params GUILayoutOption[] options) { StandInGui.Record(text); }
        public static void Label(string text, GUIStyle style, params GUILayoutOption[] options) { StandInGui.Record(text); }
        public static void BeginArea(Rect screenRect) { StandInGui.Depth++; }
        public static void EndArea() { StandInGui.Depth--; }
        public static GUILayoutOption Width(float width) { return new GUILayoutOption(); }
    }

    internal static class StandInGui
    {
        internal static readonly List<string> Drawn = new List<string>();
        internal static int Depth;

        internal static void Record(string s) { Drawn.Add(s ?? ""); }
    }
}
