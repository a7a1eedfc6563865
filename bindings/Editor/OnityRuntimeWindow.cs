// Window > Onity > Runtime Monitor: live pool statistics and live tasks of the Play Mode runtime.
using System;
using System.Collections.Generic;
using Onity.Unity;
using UnityEditor;
using UnityEngine;

namespace Onity.Editor
{
    public sealed class OnityRuntimeWindow : EditorWindow
    {
        readonly OnityStatsSnapshot snapshot = new OnityStatsSnapshot();
        readonly List<OnityWaitGroup> waitGroups = new List<OnityWaitGroup>();
        readonly List<OnitySiteLine> siteLines = new List<OnitySiteLine>();
        Vector2 scroll;

        [MenuItem("Window/Onity/Runtime Monitor")]
        public static void Open()
        {
            GetWindow<OnityRuntimeWindow>("Onity Runtime");
        }

        // Called by the editor about 10 times a second: keep the numbers live while playing.
        void OnInspectorUpdate()
        {
            if (EditorApplication.isPlaying) Repaint();
        }

        void OnGUI()
        {
            var rt = OnityPlayerLoop.Runtime;
            if (rt == null || rt.IsDisposed)
            {
                EditorGUILayout.HelpBox("No Onity runtime: enter Play Mode. The runtime is created at "
                    + "RuntimeInitializeOnLoadMethod(AfterAssembliesLoaded) and destroyed when Play Mode exits.", MessageType.Info);
                return;
            }
            try { snapshot.Capture(rt); }
            catch (Exception e)
            {
                EditorGUILayout.HelpBox("Could not read statistics: " + e.Message, MessageType.Warning);
                return;
            }

            scroll = EditorGUILayout.BeginScrollView(scroll);

            GUILayout.Label("Runtime", EditorStyles.boldLabel);
            EditorGUILayout.LabelField("Frame", snapshot.Frame.ToString());
            EditorGUILayout.LabelField("Injected timings", OnityPlayerLoop.InjectedTimings.ToString());
            EditorGUILayout.LabelField("Native live tasks", snapshot.Native.live_tasks.ToString());
            EditorGUILayout.LabelField("Completed, unconsumed", snapshot.Native.completed_unconsumed.ToString());
            EditorGUILayout.LabelField("Cross-thread queued", snapshot.Native.cross_thread_queued.ToString());
            EditorGUILayout.LabelField("Managed pending waits", snapshot.Managed.PendingWaits.ToString());
            EditorGUILayout.LabelField("Wait slots", snapshot.Managed.WaitSlotCapacity.ToString());
            EditorGUILayout.LabelField("Tokens mapped", snapshot.Managed.CancellationTokensMapped.ToString());
            EditorGUILayout.LabelField("Async runners live / created", snapshot.Managed.RunnersLive + " / " + snapshot.Managed.RunnersCreated);
            EditorGUILayout.LabelField("P/Invoke crossings", snapshot.Managed.Crossings.ToString());
            EditorGUILayout.Space();

            GUILayout.Label("Pending waits by kind", EditorStyles.boldLabel);
            for (int k = 0; k < OnityStatsSnapshot.WaitKindNames.Length; k++)
                EditorGUILayout.LabelField(OnityStatsSnapshot.WaitKindNames[k], snapshot.PendingWaits(k).ToString());
            EditorGUILayout.Space();

            GUILayout.Label("Native pools", EditorStyles.boldLabel);
            for (int i = 0; i < snapshot.Pools.Count; i++)
            {
                var p = snapshot.Pools[i].Stats;
                EditorGUILayout.LabelField(snapshot.Pools[i].Name,
                    "live " + p.live + "  idle " + p.idle + "  capacity " + p.capacity + "  high " + p.high_water
                    + "  rents " + p.rents + "  cold " + p.cold_allocations + "  discards " + p.discards);
            }
            EditorGUILayout.Space();

            DrawSites(rt);
            EditorGUILayout.Space();

            GUILayout.Label("Live tasks (" + snapshot.LiveTaskCount + ")", EditorStyles.boldLabel);
            for (int i = 0; i < snapshot.LiveTasks.Count; i++)
                EditorGUILayout.LabelField(snapshot.LiveTasks[i].ToString());
            if (snapshot.LiveTaskCount > snapshot.LiveTasks.Count)
                EditorGUILayout.LabelField("... " + (snapshot.LiveTaskCount - snapshot.LiveTasks.Count) + " more");

            EditorGUILayout.EndScrollView();
        }

        // The site report (docs/observability.md): managed waits and sources grouped by creation
        // site (ONITY_SITES builds; else by kind and awaiter), then native tasks made through the C
        // ABI's _at calls, each with its count, state and oldest age in frames.
        void DrawSites(OnityRuntime rt)
        {
            GUILayout.Label("Creation sites", EditorStyles.boldLabel);
            bool capture = EditorGUILayout.Toggle("Capture sites", rt.SiteCapture);
            if (capture != rt.SiteCapture) rt.SiteCapture = capture;
#if !ONITY_SITES
            EditorGUILayout.HelpBox("C# waits carry their file and line only with the scripting define ONITY_SITES "
                + "(Player Settings > Scripting Define Symbols); the toggle still captures native sites.", MessageType.Info);
#endif
            waitGroups.Clear();
            rt.GetWaitReport(waitGroups);
            for (int i = 0; i < waitGroups.Count; i++) EditorGUILayout.LabelField(waitGroups[i].Describe());
            siteLines.Clear();
            rt.GetSiteReport(siteLines, 0);
            for (int i = 0; i < siteLines.Count; i++)
            {
                var l = siteLines[i];
                if (l.File == null) continue; // native tasks without a site: counted above
                EditorGUILayout.LabelField(l.Tasks + " native tasks created at " + System.IO.Path.GetFileName(l.File) + ":" + l.Line + ", "
                    + l.Pending + " pending, " + l.Completed + " completed, oldest " + l.OldestAgeFrames + " frames, never consumed");
            }
            if (waitGroups.Count == 0 && siteLines.Count == 0) EditorGUILayout.LabelField("No pending waits.");
        }
    }
}
