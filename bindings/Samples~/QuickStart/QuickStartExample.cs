using System;
using System.Threading;
using UnityEngine;

namespace Onity.Samples.QuickStart
{
    /// <summary>Add to any GameObject and press Play: native frame waits driven by the PlayerLoop,
    /// canceled when the object is destroyed.</summary>
    public sealed class QuickStartExample : MonoBehaviour
    {
        [SerializeField] int ticks = 3;

        void Start()
        {
            Run(destroyCancellationToken).Forget();
        }

        async OnityTask Run(CancellationToken ct)
        {
            await OnityTask.NextFrame(ct);
            Debug.Log("Onity: next frame, frame " + Time.frameCount);
            await OnityTask.DelayFrame(10, OnityTiming.Update, ct);
            Debug.Log("Onity: 10 frames later, frame " + Time.frameCount);
            for (int i = 1; i <= ticks; i++)
            {
                await OnityTask.Delay(TimeSpan.FromSeconds(0.5), DelayType.DeltaTime, OnityTiming.Update, ct);
                Debug.Log("Onity: tick " + i + " at " + Time.time.ToString("F2") + " s");
            }
            int winner = await OnityTask.WhenAny(new[]
            {
                OnityTask.DelayFrame(1000, OnityTiming.Update, ct),
                OnityTask.Delay(TimeSpan.FromSeconds(0.25), DelayType.UnscaledDeltaTime, OnityTiming.Update, ct),
            }, ct);
            Debug.Log("Onity: race won by " + (winner == 0 ? "DelayFrame" : "Delay") + "; done");
        }
    }
}
