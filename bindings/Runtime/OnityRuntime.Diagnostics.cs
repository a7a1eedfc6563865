using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using System.Threading;
using Onity.Native;

namespace Onity
{
    /// <summary>A pending wait or native task, for leak diagnosis.</summary>
    public struct OnityPendingWait
    {
        public string Kind;
        public OnityTiming Timing;
        public ulong CreatedFrame;
        public bool Awaited;
        /// <summary>Type of the awaiting continuation's target (e.g. the async state machine's runner).</summary>
        public string Awaiter;
        public long Token;
        /// <summary>Where it was created (while <see cref="OnityRuntime.SiteCapture"/> was on), or null.</summary>
        public string File;
        public int Line;
        /// <summary>Completed, its result never consumed (else pending).</summary>
        public bool Completed;

        public override string ToString()
        {
            return Kind + " @" + Timing + " created " + (File != null ? "at " + File + ":" + Line + " " : "") + "in frame " + CreatedFrame +
                   (Awaited ? " awaited by " + Awaiter : " (not awaited)");
        }
    }

    /// <summary>Managed-side counters.</summary>
    public struct OnityManagedStats
    {
        public int WaitSlotCapacity;
        public int PendingWaits;
        public int CompletedUnconsumedWaits;
        public int CancellationTokensMapped;
        public int PostedContinuations;
        public long RunnersLive;
        public long RunnersCreated;
        public long Crossings;
        /// <summary>Pending waits of the fast lane (frame waits awaited directly; included in
        /// <see cref="PendingWaits"/>).</summary>
        public int FastLaneWaits;

        public override string ToString()
        {
            return string.Format("waits: {0} pending ({8} in the fast lane), {1} completed-unconsumed, {2} slots; tokens mapped {3}; posted {4}; runners live {5}, created {6}; crossings {7}",
                PendingWaits, CompletedUnconsumedWaits, WaitSlotCapacity, CancellationTokensMapped, PostedContinuations, RunnersLive, RunnersCreated, Crossings, FastLaneWaits);
        }
    }

    // Diagnostics: native and managed statistics, the live lists, status and pool names.
    public sealed unsafe partial class OnityRuntime
    {
        public static string StatusText(OnityStatus s)
        {
            return Marshal.PtrToStringAnsi(OnityNativeCalls.onity_status_text((uint)s));
        }

        static string[] poolNames;

        /// <summary>The native name of a pool (<c>onity_pool_name</c>: "tasks", "wait_records", ...),
        /// read once and cached; "invalid" for values out of range.</summary>
        public static string PoolName(OnityPool pool)
        {
            var names = poolNames;
            if (names == null)
            {
                names = new string[OnityNative.ONITY_POOL_COUNT];
                for (int i = 0; i < names.Length; i++)
                    names[i] = Marshal.PtrToStringAnsi(OnityNativeCalls.onity_pool_name((uint)i));
                poolNames = names;
            }
            return (uint)pool < (uint)names.Length ? names[(int)pool] : "invalid";
        }

        /// <summary>Waits not yet consumed, managed side (wait slots in use plus fast-lane waits), in
        /// O(1): what <see cref="GetManagedStats"/> adds up by scanning, for a per-frame display.
        /// Owner thread.</summary>
        public int PendingWaitCount { get { return liveSlots + FastLaneCount; } }

        /// <summary>Entries in the idle-token list (tests: it holds each entry once).</summary>
        internal int IdleTokenListCount { get { return tokens.IdleListCount; } }

        /// <summary>The native runtime's pool and wait statistics (<c>onity_runtime_stats</c>).</summary>
        public OnityStats GetNativeStats()
        {
            CheckOwner("GetNativeStats");
            OnityStats s = default(OnityStats);
            s.size = (uint)sizeof(OnityStats);
            Check(OnityNativeCalls.onity_runtime_stats(rt, &s), "onity_runtime_stats");
            return s;
        }

        public OnityManagedStats GetManagedStats()
        {
            var m = new OnityManagedStats();
            m.WaitSlotCapacity = slots.Length;
            for (int i = 0; i < slots.Length; i++)
            {
                if (slots[i].kind == KindFree) continue;
                if (slots[i].state == 0) m.PendingWaits++;
                else m.CompletedUnconsumedWaits++;
            }
            int fastLive = FastLaneCount;
            m.PendingWaits += fastLive + RunWaiterCount;
            m.FastLaneWaits = fastLive;
            m.CancellationTokensMapped = tokens.Count;
            m.PostedContinuations = posted.Count;
            m.RunnersLive = CompilerServices.OnityRunnerStats.Live;
            m.RunnersCreated = CompilerServices.OnityRunnerStats.Created;
            m.Crossings = OnityNativeCalls.Crossings;
            return m;
        }

        /// <summary>Appends every pending (or completed but never awaited) frame wait and native
        /// task to <paramref name="into"/>: the managed live-task list. Returns the count.</summary>
        public int GetPendingWaits(List<OnityPendingWait> into)
        {
            CheckOwner("GetPendingWaits");
            int n = 0;
            for (int i = 0; i < slots.Length; i++)
            {
                ref Slot s = ref slots[i];
                if (s.kind == KindFree) continue;
                var w = new OnityPendingWait();
                w.Kind = s.kind == KindNative ? "NativeTask" : KindName(s.kind);
                w.Timing = (OnityTiming)s.timing;
                w.CreatedFrame = s.frame;
                w.Awaited = s.cont != null;
                w.Awaiter = s.cont != null && s.cont.Target != null ? s.cont.Target.GetType().FullName : null;
                w.Token = (long)(((ulong)s.version << 32) | (uint)i);
                w.Completed = s.state != 0;
                SlotSite(i, out w.File, out w.Line);
                into.Add(w);
                n++;
            }
            for (int i = 0; i < fast.Length; i++)
            {
                ref FastWait f = ref fast[i];
                if (f.cont == null) continue;
                ulong d = f.record >> 36;
                var w = new OnityPendingWait();
                // A fast record's delay: 0 is a Yield, 1 a NextFrame, more a DelayFrame.
                w.Kind = KindName(d == 0 ? KindYield : d == 1 ? KindNextFrame : KindDelayFrame);
                w.Timing = (OnityTiming)((f.record >> 32) & 15);
                w.CreatedFrame = f.frame;
                w.Awaited = true;
                w.Awaiter = f.cont.Target != null ? f.cont.Target.GetType().FullName : null;
                w.Token = -1 - i;
                FastSite(i, out w.File, out w.Line);
                into.Add(w);
                n++;
            }
#if ONITY_SITES
            n += AppendTrackedSources(into);
#endif
            return n;
        }

        /// <summary>The name of a wait kind (the native <see cref="OnityWaitKind"/> name).</summary>
        internal static string KindName(byte kind)
        {
            return kind == KindYield ? "Yield" : kind == KindNextFrame ? "NextFrame" : kind == KindDelayFrame ? "DelayFrame" : "Delay";
        }

        /// <summary>Appends the handles of the native runtime's live (created, not consumed) tasks
        /// (<c>onity_runtime_live_tasks</c>). Returns the count.</summary>
        public int GetNativeLiveTasks(List<ulong> into)
        {
            CheckOwner("GetNativeLiveTasks");
            uint count;
            Check(OnityNativeCalls.onity_runtime_live_tasks(rt, null, 0, &count), "onity_runtime_live_tasks");
            if (count == 0) return 0;
            var buf = new ulong[count];
            fixed (ulong* p = buf)
            {
                Check(OnityNativeCalls.onity_runtime_live_tasks(rt, p, count, &count), "onity_runtime_live_tasks");
            }
            int n = (int)Math.Min(count, (uint)buf.Length);
            for (int i = 0; i < n; i++) into.Add(buf[i]);
            return n;
        }
    }
}
