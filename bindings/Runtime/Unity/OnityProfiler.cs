// The runtime in Unity's Profiler: markers around each timing's tick, the native batch call and the
// frame begin; counters (Unity.Profiling core API, ProfilerUnsafeUtility.CreateCounterValue, in
// 2022.3's UnityEngine.CoreModule; ProfilerCounterValue<T> is in the com.unity.profiling.core
// package, so the low-level API is used) with the pending waits per kind, the live objects per
// native pool, the live async runners and the native crossings per frame. Compiled only where
// Unity profiles (ENABLE_PROFILER: the editor and development players); elsewhere the switches
// exist and nothing runs.
#if UNITY_5_3_OR_NEWER || ONITY_UNITY_STANDIN
using System;
using Onity.Native;
#if ENABLE_PROFILER
using Unity.Profiling;
using Unity.Profiling.LowLevel;
using Unity.Profiling.LowLevel.Unsafe;
#endif

namespace Onity.Unity
{
    /// <summary>Onity in Unity's Profiler (CPU module: markers; Profiler Module Editor / Profiler
    /// counters: the "Onity ..." counters in the Scripts category). Both are on by default in the
    /// editor and development players and cost nothing in release players. Main thread.
    /// <list type="table">
    /// <item><term>Markers</term><description><c>Onity.Tick.&lt;Timing&gt;</c> around each injected
    /// timing's tick, <c>Onity.Batch</c> around its native batch call inside it (the rest of the
    /// tick is the resumed continuations; none when the tick skips the call because the timing has
    /// nothing native to do, <see cref="OnityRuntime.SkipIdleTicks"/>), <c>Onity.BeginFrame</c>
    /// around the frame begin.</description></item>
    /// <item><term>Counters</term><description>published once per frame, after the frame begin (the
    /// runtime's state at the start of the frame): <c>Onity Pending Waits</c> (managed, all kinds),
    /// <c>Onity Waits &lt;Kind&gt;</c> per native wait kind (<see cref="OnityWaitKind"/>),
    /// <c>Onity Pool &lt;Name&gt; Live</c> per native pool (<see cref="OnityRuntime.PoolName"/>),
    /// <c>Onity Native Live Tasks</c>, <c>Onity Async Runners Live</c> and <c>Onity Native Crossings</c>
    /// (P/Invoke calls in the previous frame, this publication's one included). Publishing costs
    /// one native call per frame (<c>onity_runtime_stats</c>).</description></item>
    /// </list></summary>
    public static class OnityProfiler
    {
        /// <summary>Markers on (default true). Read at each marker, so it can change any time.</summary>
        public static bool MarkersEnabled = true;

        /// <summary>Counters published each frame (default true).</summary>
        public static bool CountersEnabled = true;

        /// <summary>The name of the marker of <paramref name="timing"/>'s tick.</summary>
        public static string TickMarkerName(OnityTiming timing) { return "Onity.Tick." + timing; }

        public const string BatchMarkerName = "Onity.Batch";
        public const string BeginFrameMarkerName = "Onity.BeginFrame";

#if ENABLE_PROFILER
        static ProfilerMarker[] tickMarkers;
        static ProfilerMarker batchMarker, beginFrameMarker;
        static readonly BatchObserver observer = new BatchObserver();
        static OnityCounters counters;

        sealed class BatchObserver : OnityTickObserver
        {
            // Ends only what it began: the switch may change during the native call (a C callback
            // runs inside it, another thread may set it) and an unpaired End is an error to Unity.
            bool began;

            public override void BatchBegin(OnityTiming timing)
            {
                began = MarkersEnabled;
                if (began) batchMarker.Begin();
            }

            public override void BatchEnd(OnityTiming timing)
            {
                if (began) batchMarker.End();
                began = false;
            }
        }

        static void EnsureMarkers()
        {
            if (tickMarkers != null) return;
            var m = new ProfilerMarker[OnityNative.ONITY_TIMING_COUNT];
            for (int t = 0; t < m.Length; t++) m[t] = new ProfilerMarker(TickMarkerName((OnityTiming)t));
            batchMarker = new ProfilerMarker(BatchMarkerName);
            beginFrameMarker = new ProfilerMarker(BeginFrameMarkerName);
            tickMarkers = m;
        }
#endif

        /// <summary>Connects the runtime's batch call to the Onity.Batch marker (OnityPlayerLoop does
        /// it for the runtime it creates).</summary>
        public static void Attach(OnityRuntime runtime)
        {
            if (runtime == null) throw new ArgumentNullException("runtime");
#if ENABLE_PROFILER
            EnsureMarkers();
            runtime.TickObserver = observer;
#endif
        }

        // Begin returns whether it began a sample; End ends it only then (the switch may change
        // in between: continuations run inside a tick).
        internal static bool BeginTick(OnityTiming timing)
        {
#if ENABLE_PROFILER
            if (!MarkersEnabled || tickMarkers == null) return false;
            tickMarkers[(int)timing].Begin();
            return true;
#else
            return false;
#endif
        }

        internal static void EndTick(OnityTiming timing, bool began)
        {
#if ENABLE_PROFILER
            if (began) tickMarkers[(int)timing].End();
#endif
        }

        internal static bool BeginFrame()
        {
#if ENABLE_PROFILER
            if (!MarkersEnabled || tickMarkers == null) return false;
            beginFrameMarker.Begin();
            return true;
#else
            return false;
#endif
        }

        internal static void EndFrame(bool began)
        {
#if ENABLE_PROFILER
            if (began) beginFrameMarker.End();
#endif
        }

        /// <summary>Writes the counters from <paramref name="runtime"/> (once per frame).</summary>
        internal static void PublishCounters(OnityRuntime runtime)
        {
#if ENABLE_PROFILER
            if (!CountersEnabled || runtime == null || runtime.IsDisposed) return;
            if (counters == null) counters = new OnityCounters();
            counters.Publish(runtime);
#endif
        }

#if ENABLE_PROFILER
        /// <summary>The counters' memory (Unity flushes it at the end of each frame).</summary>
        unsafe sealed class OnityCounters
        {
            readonly int* pendingWaits, nativeLiveTasks, runnersLive, crossings;
            readonly int*[] waitKinds = new int*[OnityNative.ONITY_WAIT_KIND_COUNT];
            readonly int*[] poolsLive = new int*[OnityNative.ONITY_POOL_COUNT];
            long lastCrossings = -1;

            internal OnityCounters()
            {
                pendingWaits = Create("Onity Pending Waits");
                nativeLiveTasks = Create("Onity Native Live Tasks");
                runnersLive = Create("Onity Async Runners Live");
                crossings = Create("Onity Native Crossings");
                for (int k = 0; k < waitKinds.Length; k++) waitKinds[k] = Create("Onity Waits " + (OnityWaitKind)k);
                for (int p = 0; p < poolsLive.Length; p++) poolsLive[p] = Create("Onity Pool " + OnityRuntime.PoolName((OnityPool)p) + " Live");
            }

            static int* Create(string name)
            {
                IntPtr handle;
                return (int*)ProfilerUnsafeUtility.CreateCounterValue(out handle, name, ProfilerUnsafeUtility.CategoryScripts, MarkerFlags.Counter,
                    (byte)ProfilerMarkerDataType.Int32, (byte)ProfilerMarkerDataUnit.Count, sizeof(int), ProfilerCounterOptions.FlushOnEndOfFrame);
            }

            internal void Publish(OnityRuntime runtime)
            {
                var stats = runtime.GetNativeStats();
                *pendingWaits = runtime.PendingWaitCount;
                *nativeLiveTasks = (int)stats.live_tasks;
                *runnersLive = (int)Onity.CompilerServices.OnityRunnerStats.Live;
                for (int k = 0; k < waitKinds.Length; k++) *waitKinds[k] = (int)stats.Get_waits(k).pending;
                for (int p = 0; p < poolsLive.Length; p++) *poolsLive[p] = (int)stats.Get_pools(p).live;
                long c = OnityNativeCalls.Crossings;
                *crossings = lastCrossings < 0 ? 0 : (int)(c - lastCrossings);
                lastCrossings = c;
            }
        }
#endif
    }
}
#endif
