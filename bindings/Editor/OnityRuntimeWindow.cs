// Window > Onity > Runtime Monitor: live pool statistics and live tasks of the Play Mode runtime.
using System;
using Onity.Unity;
using UnityEditor;
using UnityEngine;

namespace Onity.Editor
{
    public sealed class OnityRuntimeWindow : EditorWindow
    {
        readonly OnityStatsSnapshot snapshot = new OnityStatsSnapshot();
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

            GUILayout.Label("Live tasks (" + snapshot.LiveTaskCount + ")", EditorStyles.boldLabel);
            for (int i = 0; i < snapshot.LiveTasks.Count; i++)
                EditorGUILayout.LabelField(snapshot.LiveTasks[i].ToString());
            if (snapshot.LiveTaskCount > snapshot.LiveTasks.Count)
                EditorGUILayout.LabelField("... " + (snapshot.LiveTaskCount - snapshot.LiveTasks.Count) + " more");

            EditorGUILayout.EndScrollView();
        }
    }
}
