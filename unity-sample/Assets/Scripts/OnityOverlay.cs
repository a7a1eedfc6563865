using System.Text;
using Onity.Unity;
using UnityEngine;

namespace Onity.Samples.Demo
{
    /// <summary>On-screen overlay: frame time, Onity pool statistics and the demo's counters.</summary>
    public sealed class OnityOverlay : MonoBehaviour
    {
        readonly OnityStatsSnapshot snapshot = new OnityStatsSnapshot();
        readonly StringBuilder text = new StringBuilder(1024);
        float smoothedFrameTime = 1f / 60f;
        int lastCaptureFrame = -1;

        public string LastText { get; private set; }

        void Update()
        {
            smoothedFrameTime = Mathf.Lerp(smoothedFrameTime, Time.unscaledDeltaTime, 0.05f);
        }

        void OnGUI()
        {
            // OnGUI runs several times per frame (layout + events): build the text once per frame.
            if (lastCaptureFrame != Time.frameCount)
            {
                lastCaptureFrame = Time.frameCount;
                snapshot.Capture(OnityPlayerLoop.Runtime);
                text.Length = 0;
                text.Append("Frame ").Append(Time.frameCount)
                    .Append("   ").Append((smoothedFrameTime * 1000f).ToString("F2")).Append(" ms")
                    .Append("   timeScale ").Append(Time.timeScale.ToString("F2")).Append('\n');
                text.Append(snapshot.Summary()).Append('\n');
                text.Append("tasks started ").Append(DemoStats.Started)
                    .Append("  completed ").Append(DemoStats.Completed)
                    .Append("  canceled ").Append(DemoStats.Canceled).Append('\n');
                text.Append("races won by frames ").Append(DemoStats.RaceWinsFrames)
                    .Append(" / by realtime ").Append(DemoStats.RaceWinsRealtime)
                    .Append("   wave ").Append(DemoStats.Waves).Append('\n');
                text.Append("worker round trips ").Append(DemoStats.WorkerRoundTrips)
                    .Append("  native ").Append(DemoStats.NativeRoundTrips)
                    .Append("  thread hops ").Append(DemoStats.ThreadHops);
                LastText = text.ToString();
            }
            GUI.Box(new Rect(8, 8, 560, 190), "Onity");
            GUILayout.BeginArea(new Rect(16, 28, 544, 170));
            GUILayout.Label(LastText);
            GUILayout.EndArea();
        }
    }
}
