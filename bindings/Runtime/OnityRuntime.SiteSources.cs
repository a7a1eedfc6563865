using System;
using System.Collections.Generic;

namespace Onity
{
    /// <summary>(Compiled in every build: implementing it costs nothing; ONITY_SITES builds track.)
    /// A task source whose uses can be tracked by creation site: true while
    /// <paramref name="token"/> is its current use (not consumed, not recycled).</summary>
    internal interface IOnitySiteSource
    {
        bool IsCurrent(long token);

        /// <summary>The status of whatever use is current, without a token check (which would
        /// throw if another thread consumed the use since <see cref="IsCurrent"/>).</summary>
        OnityTaskStatus UnsafeGetStatus();
    }

#if ONITY_SITES
    // Creation sites of managed task sources (ONITY_SITES builds, capture on): completion sources,
    // WaitUntilValueChanged and WhenAny/WhenAll record (source, token, site, frame) in one table,
    // reported by GetPendingWaits/GetWaitReport while the use is current. Entries whose use ended
    // are dropped when the table is full (then it doubles only if still more than half full), so
    // capture allocates nothing after warm-up.
    /// <summary>True once any runtime turned site capture on: tested before the thread-static
    /// owner lookup, so that creating sources while capture was never on costs one static load.</summary>
    internal static class OnitySiteSwitch
    {
        internal static bool Ever;
    }

    public sealed unsafe partial class OnityRuntime
    {
        struct TrackedSource
        {
            public IOnitySiteSource Source;
            public long Token;
            public int Site;
            public string Kind;
            public ulong Frame;
        }

        TrackedSource[] tracked;
        int trackedCount;

        /// <summary>Records that <paramref name="task"/>'s source was made at file:line, when site
        /// capture is on and this is the current runtime's owner thread. Returns the task.</summary>
        internal static OnityTask<T> TrackAt<T>(OnityTask<T> task, string kind, string file, int line)
        {
            if (!OnitySiteSwitch.Ever) return task;
            var r = ownedHere;
            if (r != null && r.siteCapture) r.Track(task.source as IOnitySiteSource, task.token, kind, file, line);
            return task;
        }

        internal static OnityTask TrackAt(OnityTask task, string kind, string file, int line)
        {
            if (!OnitySiteSwitch.Ever) return task;
            var r = ownedHere;
            if (r != null && r.siteCapture) r.Track(task.source as IOnitySiteSource, task.token, kind, file, line);
            return task;
        }

        internal static void TrackAt(IOnitySiteSource source, long token, string kind, string file, int line)
        {
            if (!OnitySiteSwitch.Ever) return;
            var r = ownedHere;
            if (r != null && r.siteCapture) r.Track(source, token, kind, file, line);
        }

        /// <summary>The site id to give the waits of a condition loop (0: none).</summary>
        internal static int LoopSite(string file, int line)
        {
            var r = ownedHere;
            return r != null && r.siteCapture ? r.SiteId(file, line) : 0;
        }

        void Track(IOnitySiteSource source, long token, string kind, string file, int line)
        {
            if (source == null) return;
            if (tracked == null) tracked = new TrackedSource[64];
            if (trackedCount == tracked.Length)
            {
                int n = DropEndedTrackedSources();
                if (n * 2 > tracked.Length) Array.Resize(ref tracked, tracked.Length * 2);
            }
            tracked[trackedCount++] = new TrackedSource { Source = source, Token = token, Site = SiteId(file, line), Kind = kind, Frame = frame };
        }

        /// <summary>Compacts the table in place to the uses still current, releasing the sources
        /// of the others (consumed or recycled: else pinned until the table fills, which never
        /// happens once capture is off). Returns the count left.</summary>
        int DropEndedTrackedSources()
        {
            int n = 0;
            for (int i = 0; i < trackedCount; i++)
                if (tracked[i].Source.IsCurrent(tracked[i].Token)) tracked[n++] = tracked[i];
            if (tracked != null) Array.Clear(tracked, n, trackedCount - n);
            trackedCount = n;
            return n;
        }

        /// <summary>GetPendingWaits' part: the tracked sources whose use is current.</summary>
        int AppendTrackedSources(List<OnityPendingWait> into)
        {
            int n = 0;
            for (int i = 0; i < trackedCount; i++)
            {
                var t = tracked[i];
                if (!t.Source.IsCurrent(t.Token)) continue;
                // The use may be consumed (and the source recycled) on another thread meanwhile:
                // read the status unchecked, then keep it only if the use is still current.
                bool completed = t.Source.UnsafeGetStatus() != OnityTaskStatus.Pending;
                if (!t.Source.IsCurrent(t.Token)) continue;
                var w = new OnityPendingWait();
                w.Kind = t.Kind;
                w.CreatedFrame = t.Frame;
                w.Completed = completed;
                w.Token = t.Token;
                Describe(t.Site, out w.File, out w.Line);
                into.Add(w);
                n++;
            }
            return n;
        }
    }
#endif
}
