using System;
using System.Collections.Generic;
using System.Linq;
using Onity.Native;
using Onity.Unity;
using Unity.Profiling;
using Unity.Profiling.LowLevel;
using UnityEngine;

namespace Onity.UnityTests
{
    /// <summary>OnityProfiler: markers around each timing's tick, the batch call and the frame
    /// begin; counters published each frame; both switchable off.</summary>
    public class ProfilerTests
    {
        static List<string> Samples()
        {
            return StandInProfiler.Samples.Select(s => (s.Value ? "+" : "-") + StandInProfiler.Markers[s.Key]).ToList();
        }

        static async OnityTask Wait(int frames) { await OnityTask.DelayFrame(frames); }

        [Test]
        public void Markers_NestTheBatchCallInsideEachTimingsTick()
        {
            Sim.EnterPlayMode();
            OnityPlayerLoop.Initialize(OnityLoopTimings.Update | OnityLoopTimings.LastPostLateUpdate);
            Sim.RunFrame();
            // Both timings idle: their ticks make no native call (OnityRuntime.SkipIdleTicks), so
            // no batch marker.
            StandInProfiler.Samples.Clear();
            StandInProfiler.Record = true;
            Sim.RunFrame();
            StandInProfiler.Record = false;
            Assert.Equal("+Onity.BeginFrame,-Onity.BeginFrame,+Onity.Tick.Update,-Onity.Tick.Update,+Onity.Tick.LastPostLateUpdate,-Onity.Tick.LastPostLateUpdate",
                string.Join(",", Samples()), "one frame's samples, idle ticks skipped");
            OnityPlayerLoop.Runtime.SkipIdleTicks = false;
            StandInProfiler.Samples.Clear();
            StandInProfiler.Record = true;
            Sim.RunFrame();
            StandInProfiler.Record = false;
            var s = Samples();
            Assert.Equal("+Onity.BeginFrame,-Onity.BeginFrame,+Onity.Tick.Update,+Onity.Batch,-Onity.Batch,-Onity.Tick.Update,+Onity.Tick.LastPostLateUpdate,+Onity.Batch,-Onity.Batch,-Onity.Tick.LastPostLateUpdate",
                string.Join(",", s), "one frame's samples, balanced and nested");
            OnityProfiler.MarkersEnabled = false;
            try
            {
                StandInProfiler.Samples.Clear();
                StandInProfiler.Record = true;
                Sim.RunFrame();
                StandInProfiler.Record = false;
                Assert.Equal(0, StandInProfiler.Samples.Count, "switched off: no sample");
            }
            finally { OnityProfiler.MarkersEnabled = true; }
        }

        [Test]
        public void Counters_PublishPendingWaitsPoolsRunnersAndCrossingsEachFrame()
        {
            Sim.EnterPlayMode();
            Sim.RunFrame();
            var rt = OnityPlayerLoop.Runtime;
            for (int i = 0; i < 3; i++) Wait(5).Forget();
            OnityTask.Delay(TimeSpan.FromSeconds(10)).Forget();
            Sim.RunFrame();
            Assert.Equal(4L, StandInProfiler.Value("Onity Pending Waits"), "3 DelayFrame + 1 Delay (managed: counted at once)");
            Sim.RunFrame();
            Assert.Equal(1L, StandInProfiler.Value("Onity Waits Delay"), "the native Delay wait");
            Assert.Equal(3L, StandInProfiler.Value("Onity Waits DelayFrame"), "the fast-lane DelayFrame waits");
            Assert.True(StandInProfiler.Value("Onity Pool " + OnityRuntime.PoolName(OnityPool.WaitRecords) + " Live") >= 1, "the Delay's wait record");
            Assert.True(rt.PendingWaitCount == 4, "as the runtime says");
            Assert.True(StandInProfiler.Value("Onity Async Runners Live") >= 3, "the three waiting methods' runners");
            Assert.True(StandInProfiler.Value("Onity Native Crossings") >= 2, "BeginFrame, the ticks and the stats call");
            var c = StandInProfiler.Counters["Onity Pending Waits"];
            Assert.Equal((byte)ProfilerMarkerDataType.Int32, c.DataType, "Int32");
            Assert.Equal((byte)ProfilerMarkerDataUnit.Count, c.DataUnit, "a count");
            Assert.Equal(ProfilerCounterOptions.FlushOnEndOfFrame, c.Options, "flushed by Unity at the end of the frame");
            foreach (OnityWaitKind k in Enum.GetValues(typeof(OnityWaitKind)))
                Assert.True(StandInProfiler.Counters.ContainsKey("Onity Waits " + k), "a counter per wait kind: " + k);
            for (int p = 0; p < OnityNative.ONITY_POOL_COUNT; p++)
                Assert.True(StandInProfiler.Counters.ContainsKey("Onity Pool " + OnityRuntime.PoolName((OnityPool)p) + " Live"), "a counter per pool: " + p);
            OnityProfiler.CountersEnabled = false;
            try
            {
                Sim.RunFrames(6); // the DelayFrame waits end
                Assert.Equal(4L, StandInProfiler.Value("Onity Pending Waits"), "switched off: not updated");
            }
            finally { OnityProfiler.CountersEnabled = true; }
            Sim.RunFrame();
            Assert.Equal(1L, StandInProfiler.Value("Onity Pending Waits"), "on again: the Delay only");
        }

        [Test]
        public void StatsSnapshot_NamesComeFromTheNativeDefinitions()
        {
            Sim.EnterPlayMode();
            Wait(3).Forget();
            Sim.RunFrame();
            var snap = new OnityStatsSnapshot();
            snap.Capture(OnityPlayerLoop.Runtime);
            Assert.Equal((int)OnityNative.ONITY_POOL_COUNT, snap.Pools.Count, "every native pool");
            for (int p = 0; p < snap.Pools.Count; p++) Assert.Equal(OnityRuntime.PoolName((OnityPool)p), snap.Pools[p].Name, "pool " + p + " named by onity_pool_name");
            Assert.Equal(string.Join(",", Enum.GetNames(typeof(OnityWaitKind))), string.Join(",", OnityStatsSnapshot.WaitKindNames), "wait kinds from OnityWaitKind");
            Assert.Equal(1UL, snap.PendingWaits((int)OnityWaitKind.DelayFrame), "one DelayFrame pending (Get_waits)");
            Assert.Equal(0UL, snap.PendingWaits(99), "out of range");
            Assert.Contains("DelayFrame 1", snap.Summary(), "summary");
        }
    }
}
