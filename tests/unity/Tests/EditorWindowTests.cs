using System;
using System.Collections.Generic;
using System.Linq;
using System.Reflection;
using Onity.Editor;
using Onity.Unity;
using UnityEditor;
using UnityEngine;

namespace Onity.UnityTests
{
    public class EditorWindowTests
    {
        static void Invoke(object target, string method)
        {
            target.GetType().GetMethod(method, BindingFlags.Instance | BindingFlags.NonPublic | BindingFlags.Public).Invoke(target, null);
        }

        [Test]
        public void Window_OutsidePlayMode_ShowsHelp()
        {
            var w = EditorWindow.GetWindow<OnityRuntimeWindow>("Onity Runtime");
            StandInGui.Drawn.Clear();
            Invoke(w, "OnGUI");
            Assert.True(StandInGui.Drawn.Any(s => s.StartsWith("HelpBox(Info)") && s.Contains("enter Play Mode")), "help box: " + string.Join(" | ", StandInGui.Drawn));
            Invoke(w, "OnInspectorUpdate");
            Assert.Equal(0, w.RepaintCount, "no repaint outside Play Mode");
        }

        [Test]
        public void Window_InPlayMode_ShowsLivePoolStatsAndLiveTasks()
        {
            var menu = typeof(OnityRuntimeWindow).GetMethod("Open").GetCustomAttributes(typeof(MenuItem), false).Cast<MenuItem>().Single();
            Assert.Equal("Window/Onity/Runtime Monitor", menu.menuItem, "menu path");
            Sim.EnterPlayMode();
            var probe = Probe.Create();
            probe.OnUpdate.Enqueue(p =>
            {
                for (int i = 0; i < 5; i++) OnityTask.DelayFrame(100).Forget();
                OnityTask.NextFrame(OnityTiming.PreLateUpdate, p.destroyCancellationToken).Forget();
                OnityTask.Delay(TimeSpan.FromSeconds(30)).Forget();
            });
            Sim.RunFrames(3);
            var w = EditorWindow.GetWindow<OnityRuntimeWindow>();
            StandInGui.Drawn.Clear();
            Invoke(w, "OnGUI");
            var text = string.Join("\n", StandInGui.Drawn);
            Assert.Contains("Frame: 3", text, "frame row");
            Assert.Contains("Native pools", text, "pool header");
            Assert.Contains("wait_records: live 6", text, "wait-record pool live count");
            Assert.Contains("DelayFrame: 5", text, "pending DelayFrame waits");
            Assert.Contains("Delay: 1", text, "pending Delay waits");
            Assert.Contains("Live tasks (6)", text, "live task count");
            Assert.Contains("DelayFrame @Update created in frame 1", text, "a live task entry");
            Assert.Contains("Injected timings: Standard", text, "timings");
            Invoke(w, "OnInspectorUpdate");
            Assert.Equal(1, w.RepaintCount, "repaints while playing");
            Sim.ExitPlayMode();
            StandInGui.Drawn.Clear();
            Invoke(w, "OnGUI");
            Assert.True(StandInGui.Drawn.Any(s => s.StartsWith("HelpBox")), "back to help after exit");
        }

        static int lineLeak;

        static void Leak(int n)
        {
            for (int i = 0; i < n; i++) OnityTask.DelayFrame(600).Forget(); lineLeak = Line();
        }

        static int Line([System.Runtime.CompilerServices.CallerLineNumber] int line = 0) { return line; }

        [Test]
        public void Window_ShowsTheSiteReportGroupedBySite_WithACaptureToggle()
        {
            Sim.EnterPlayMode();
            var w = EditorWindow.GetWindow<OnityRuntimeWindow>();
            StandInGui.Drawn.Clear();
            StandInToggle.Next = true; // the user ticks "Capture sites"
            Invoke(w, "OnGUI");
            Assert.Contains("Toggle(Capture sites): False", string.Join("\n", StandInGui.Drawn), "toggle drawn off");
            Assert.True(OnityPlayerLoop.Runtime.SiteCapture, "the toggle turned capture on");
            var probe = Probe.Create();
            probe.OnUpdate.Enqueue(p => Leak(12));
            Sim.RunFrames(4);
            StandInGui.Drawn.Clear();
            Invoke(w, "OnGUI");
            var text = string.Join("\n", StandInGui.Drawn);
            Assert.Contains("Toggle(Capture sites): True", text, "toggle drawn on");
            Assert.Contains("Creation sites", text, "section header");
            Assert.Contains("12 DelayFrame created at EditorWindowTests.cs:" + lineLeak + ", pending for 3 frames, never consumed", text, "grouped row");
            StandInToggle.Next = false;
            Invoke(w, "OnGUI");
            Assert.False(OnityPlayerLoop.Runtime.SiteCapture, "unticked");
            Sim.ExitPlayMode();
        }
    }
}
