// Live pool statistics and live tasks in a display-ready form, shared by the editor window
// (Window > Onity > Runtime Monitor) and in-game overlays.
#if UNITY_5_3_OR_NEWER || ONITY_UNITY_STANDIN
using System;
using System.Collections.Generic;
using System.Text;
using Onity.Native;

namespace Onity.Unity
{
    /// <summary>One row of the native pool table.</summary>
    public struct OnityPoolRow
    {
        public string Name;
        public OnityPoolStats Stats;

        public override string ToString()
        {
            return string.Format("{0,-14} live {1,6}  idle {2,6}  cap {3,6}  high {4,6}  rents {5,9}  cold {6,5}",
                Name, Stats.live, Stats.idle, Stats.capacity, Stats.high_water, Stats.rents, Stats.cold_allocations);
        }
    }

    /// <summary>A snapshot of the runtime's statistics and live tasks. Capture on the main thread
    /// (the runtime's owner); reuse one instance to avoid per-frame garbage for the lists.</summary>
    public sealed class OnityStatsSnapshot
    {
        /// <summary>The names of the native wait kinds (the generated <see cref="OnityWaitKind"/>'s),
        /// indexed by kind.</summary>
        public static readonly string[] WaitKindNames = Enum.GetNames(typeof(OnityWaitKind));

        public bool Valid;
        public ulong Frame;
        public OnityStats Native;
        public OnityManagedStats Managed;
        public readonly List<OnityPoolRow> Pools = new List<OnityPoolRow>();
        /// <summary>Pending managed waits and native tasks (the live-task list), at most
        /// <see cref="MaxLiveTasks"/> of them; <see cref="LiveTaskCount"/> has the total.</summary>
        public readonly List<OnityPendingWait> LiveTasks = new List<OnityPendingWait>();
        public int LiveTaskCount;
        public int MaxLiveTasks = 256;
        readonly List<OnityPendingWait> scratch = new List<OnityPendingWait>();

        /// <summary>Fills the snapshot from <paramref name="runtime"/> (null or disposed: Valid = false).</summary>
        public void Capture(OnityRuntime runtime)
        {
            Pools.Clear();
            LiveTasks.Clear();
            LiveTaskCount = 0;
            Valid = runtime != null && !runtime.IsDisposed;
            if (!Valid) return;
            Frame = runtime.Frame;
            Native = runtime.GetNativeStats();
            Managed = runtime.GetManagedStats();
            int n = (int)Math.Min(Native.pool_count, OnityNative.ONITY_POOL_COUNT);
            for (int i = 0; i < n; i++) Pools.Add(new OnityPoolRow { Name = OnityRuntime.PoolName((OnityPool)i), Stats = Native.Get_pools(i) });
            scratch.Clear();
            LiveTaskCount = runtime.GetPendingWaits(scratch);
            for (int i = 0; i < scratch.Count && i < MaxLiveTasks; i++) LiveTasks.Add(scratch[i]);
            scratch.Clear();
        }

        /// <summary>Pending waits of one kind (an <see cref="OnityWaitKind"/> value); 0 out of range.</summary>
        public ulong PendingWaits(int kind)
        {
            return (uint)kind < OnityNative.ONITY_WAIT_KIND_COUNT ? Native.Get_waits(kind).pending : 0;
        }

        /// <summary>Sum of <c>live</c> over every native pool.</summary>
        public ulong TotalLive
        {
            get
            {
                ulong sum = 0;
                for (int i = 0; i < Pools.Count; i++) sum += Pools[i].Stats.live;
                return sum;
            }
        }

        /// <summary>A short multi-line summary for overlays and logs.</summary>
        public string Summary()
        {
            if (!Valid) return "Onity: no runtime (not in Play Mode)";
            var sb = new StringBuilder(256);
            sb.Append("Onity frame ").Append(Frame)
              .Append("  native live tasks ").Append(Native.live_tasks)
              .Append("  pending waits ").Append(Managed.PendingWaits).Append('\n');
            sb.Append("waits: ");
            int kinds = WaitKindNames.Length;
            for (int k = 0; k < kinds; k++) sb.Append(WaitKindNames[k]).Append(' ').Append(PendingWaits(k)).Append(k < kinds - 1 ? ", " : "\n");
            for (int i = 0; i < Pools.Count && i < 3; i++) sb.Append(Pools[i].ToString()).Append('\n');
            sb.Append("runners live ").Append(Managed.RunnersLive).Append("  crossings ").Append(Managed.Crossings);
            return sb.ToString();
        }
    }
}
#endif
