using System;
using System.Threading;
using UnityEngine;

namespace Onity.Samples.Demo
{
    /// <summary>Starts a wave of async work every frame: NextFrame, DelayFrame, Delay (scaled,
    /// unscaled, realtime) and WhenAny races, all tied to this object's
    /// <c>destroyCancellationToken</c>: when the wave's GameObject is destroyed, whatever is still
    /// waiting completes canceled at the next run of its timing.</summary>
    public sealed class WaveSpawner : MonoBehaviour
    {
        [SerializeField] int tasksPerFrame = 32;
        int counter;

        public int TasksPerFrame { get { return tasksPerFrame; } set { tasksPerFrame = value; } }

        void Update()
        {
            var ct = destroyCancellationToken;
            for (int i = 0; i < tasksPerFrame; i++) RunOne(counter++, ct).Forget();
        }

        static async OnityTask RunOne(int n, CancellationToken ct)
        {
            DemoStats.Started++;
            try
            {
                switch (n % 6)
                {
                    case 0:
                        await OnityTask.NextFrame(ct);
                        DemoStats.NextFrames++;
                        break;
                    case 1:
                        await OnityTask.DelayFrame(1 + n % 30, OnityTiming.Update, ct);
                        DemoStats.DelayFrames++;
                        break;
                    case 2:
                        await OnityTask.Delay(TimeSpan.FromMilliseconds(100 + n % 900), DelayType.DeltaTime, OnityTiming.Update, ct);
                        DemoStats.Delays++;
                        break;
                    case 3:
                        await OnityTask.Delay(TimeSpan.FromMilliseconds(50 + n % 500), DelayType.UnscaledDeltaTime, OnityTiming.PreLateUpdate, ct);
                        DemoStats.Delays++;
                        break;
                    case 4:
                    {
                        // A race: whichever finishes first wins; the loser keeps running and is
                        // consumed when it finishes (or is canceled with the wave).
                        int winner = await OnityTask.WhenAny(new[]
                        {
                            OnityTask.DelayFrame(10 + n % 20, OnityTiming.Update, ct),
                            OnityTask.Delay(TimeSpan.FromMilliseconds(150 + n % 300), DelayType.Realtime, OnityTiming.Update, ct),
                        }, ct);
                        if (winner == 0) DemoStats.RaceWinsFrames++;
                        else DemoStats.RaceWinsRealtime++;
                        break;
                    }
                    default:
                        await OnityTask.Yield(OnityTiming.LastPostLateUpdate, ct);
                        await OnityTask.NextFrame(OnityTiming.FixedUpdate, ct);
                        DemoStats.NextFrames++;
                        break;
                }
                DemoStats.Completed++;
            }
            catch (OperationCanceledException)
            {
                DemoStats.Canceled++;
            }
        }
    }
}
