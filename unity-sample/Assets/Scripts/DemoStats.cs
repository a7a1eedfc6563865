using UnityEngine;

namespace Onity.Samples.Demo
{
    /// <summary>Counters the demo scripts update and the overlay shows. Main thread only.</summary>
    public static class DemoStats
    {
        public static long Started, Completed, Canceled;
        public static long NextFrames, DelayFrames, Delays, RaceWinsFrames, RaceWinsRealtime;
        public static long WorkerRoundTrips, NativeRoundTrips, ThreadHops, OffMainThreadResumes;
        public static int Waves;

        // With "Enter Play Mode Options" and domain reload disabled, statics survive between
        // Play Mode sessions: reset them at the earliest point of each session.
        [RuntimeInitializeOnLoadMethod(RuntimeInitializeLoadType.SubsystemRegistration)]
        public static void Reset()
        {
            Started = Completed = Canceled = 0;
            NextFrames = DelayFrames = Delays = RaceWinsFrames = RaceWinsRealtime = 0;
            WorkerRoundTrips = NativeRoundTrips = ThreadHops = OffMainThreadResumes = 0;
            Waves = 0;
        }
    }
}
