using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using Onity.Native;

namespace Onity
{
    /// <summary>One line of <see cref="OnityRuntime.GetSiteReport"/>: the live native tasks made
    /// at one creation site (<c>onity_runtime_site_report</c>).</summary>
    public struct OnitySiteLine
    {
        /// <summary>The file given to the <c>_at</c> call; null for tasks made without a site.</summary>
        public string File;
        public int Line;
        public ulong Tasks;
        public ulong Pending;
        public ulong Completed;
        public ulong Awaited;
        /// <summary>Age in frames of the oldest and newest; ulong.MaxValue when unknown (no site).</summary>
        public ulong OldestAgeFrames;
        public ulong NewestAgeFrames;

        public override string ToString()
        {
            return Tasks + " tasks created at " + (File == null ? "(no site)" : File + ":" + Line) + ": " + Pending +
                   " pending, " + Completed + " completed never consumed, oldest " +
                   (OldestAgeFrames == ulong.MaxValue ? "?" : OldestAgeFrames.ToString()) + " frames";
        }
    }

    /// <summary>One line of <see cref="OnityRuntime.GetWaitReport"/>: the managed waits pending (or
    /// completed, never consumed) made at one creation site (while <see cref="OnityRuntime.SiteCapture"/>
    /// was on), or else of one kind awaited by one method, with their ages.</summary>
    public struct OnityWaitGroup
    {
        /// <summary>The creation site's file ([CallerFilePath]), or null when not captured.</summary>
        public string File;
        public int Line;
        public string Kind;
        /// <summary>The awaiting continuation's target type (an async method's state machine
        /// runner), or null for waits nobody awaits.</summary>
        public string Awaiter;
        public int Count;
        /// <summary>Of <see cref="Count"/>: completed, their results never consumed (the rest are pending).</summary>
        public int Completed;
        public ulong OldestAgeFrames;
        public ulong NewestAgeFrames;

        /// <summary>One line for a report: "412 WaitUntilValueChanged created at Enemy.cs:88, pending
        /// for 600 frames, never consumed" (the file's name without its directory).</summary>
        public string Describe()
        {
            string where = File != null ? " created at " + System.IO.Path.GetFileName(File) + ":" + Line : Awaiter != null ? " awaited by " + Awaiter : " not awaited";
            string state = Completed == 0 ? "pending" : Completed == Count ? "completed" : (Count - Completed) + " pending, " + Completed + " completed";
            return Count + " " + Kind + where + ", " + state + " for " + OldestAgeFrames + " frames, never consumed";
        }

        public override string ToString()
        {
            return Count + " " + Kind + " waits " + (File != null ? "created at " + File + ":" + Line + ", " : "") +
                   (Awaiter == null ? "not awaited" : "awaited by " + Awaiter) +
                   ", oldest " + OldestAgeFrames + " frames, newest " + NewestAgeFrames;
        }
    }

    /// <summary>Flags of <see cref="OnityRuntime.StartTrace"/> (<c>ONITY_TRACE_*</c>).</summary>
    [Flags]
    public enum OnityTraceFlags : uint
    {
        /// <summary>A complete event per tick of a timing, drains, rewinds, WhenAny/WhenAll settles,
        /// frame markers with counters.</summary>
        Runs = OnityNative.ONITY_TRACE_RUNS,
        /// <summary>Also every wait a run resumes, with its continuation's cost; only with
        /// <see cref="Runs"/> (alone: <c>INVALID_ARGUMENT</c>).</summary>
        Continuations = OnityNative.ONITY_TRACE_CONTINUATIONS,
    }

    // Observability (issue 20): creation sites of native tasks and the grouped reports, the frame
    // timeline as Chrome trace JSON. docs/observability.md.
    public sealed unsafe partial class OnityRuntime
    {
        /// <summary>Site capture, off by default: while on, the waits made through
        /// <see cref="OnityTask"/>'s public waits record their caller's file and line
        /// (<see cref="GetWaitReport"/>, <see cref="GetPendingWaits"/>), and so do native tasks made
        /// through the C ABI's <c>_at</c> calls (<c>onity_runtime_set_site_capture</c>,
        /// <see cref="GetSiteReport"/>). Owner thread.</summary>
        public bool SiteCapture
        {
            get { return siteCapture; }
            set
            {
                CheckOwner("SiteCapture");
                Check(OnityNativeCalls.onity_runtime_set_site_capture(rt, value ? 1u : 0u), "onity_runtime_set_site_capture");
#if ONITY_SITES
                if (value) OnitySiteSwitch.Ever = true;
                else DropEndedTrackedSources(); // nothing compacts the table while capture is off
#endif
                siteCapture = value;
            }
        }

        internal bool siteCapture; // read by OnityTask's public frame waits
        OnitySiteReport[] siteBuffer;

        /// <summary>Appends the native live-task report to <paramref name="into"/>: live tasks at
        /// least <paramref name="minAgeFrames"/> frames old grouped by creation site, most tasks
        /// first. Returns the number of lines. Owner thread.</summary>
        public int GetSiteReport(List<OnitySiteLine> into, ulong minAgeFrames = 0)
        {
            CheckOwner("GetSiteReport");
            if (into == null) throw new ArgumentNullException("into");
            uint n;
            while (true)
            {
                var buf = siteBuffer ?? (siteBuffer = new OnitySiteReport[16]);
                fixed (OnitySiteReport* p = buf)
                {
                    Check(OnityNativeCalls.onity_runtime_site_report(rt, minAgeFrames, p, (uint)buf.Length, &n), "onity_runtime_site_report");
                }
                if (n <= (uint)buf.Length) break;
                siteBuffer = new OnitySiteReport[(int)n];
            }
            for (int i = 0; i < (int)n; i++)
            {
                OnitySiteReport r = siteBuffer[i];
                var l = new OnitySiteLine();
                l.File = r.file == IntPtr.Zero ? null : Marshal.PtrToStringAnsi(r.file);
                l.Line = (int)r.line;
                l.Tasks = r.tasks;
                l.Pending = r.pending;
                l.Completed = r.completed;
                l.Awaited = r.awaited;
                l.OldestAgeFrames = r.oldest_age_frames;
                l.NewestAgeFrames = r.newest_age_frames;
                into.Add(l);
            }
            return (int)n;
        }

        /// <summary>The managed live-task report: <see cref="GetPendingWaits"/> grouped by creation
        /// site (when captured; else by kind and awaiter), largest groups first, with ages in
        /// frames. Returns the number of groups. Allocates (a diagnostic). Owner thread.</summary>
        public int GetWaitReport(List<OnityWaitGroup> into)
        {
            if (into == null) throw new ArgumentNullException("into");
            var waits = new List<OnityPendingWait>();
            GetPendingWaits(waits);
            var groups = new Dictionary<string, OnityWaitGroup>();
            foreach (var w in waits)
            {
                string key = w.File != null ? w.File + "\n" + w.Line : w.Kind + "\n" + w.Awaiter;
                ulong age = frame >= w.CreatedFrame ? frame - w.CreatedFrame : 0;
                OnityWaitGroup g;
                if (!groups.TryGetValue(key, out g))
                {
                    g.File = w.File;
                    g.Line = w.Line;
                    g.Kind = w.Kind;
                    g.Awaiter = w.Awaiter;
                    g.NewestAgeFrames = ulong.MaxValue;
                }
                g.Count++;
                if (w.Completed) g.Completed++;
                if (age > g.OldestAgeFrames) g.OldestAgeFrames = age;
                if (age < g.NewestAgeFrames) g.NewestAgeFrames = age;
                groups[key] = g;
            }
            var list = new List<OnityWaitGroup>(groups.Values);
            list.Sort(CompareGroups);
            into.AddRange(list);
            return list.Count;
        }

        static int CompareGroups(OnityWaitGroup a, OnityWaitGroup b)
        {
            int c = b.Count.CompareTo(a.Count);
            if (c == 0) c = string.CompareOrdinal(a.File, b.File);
            if (c == 0) c = a.Line.CompareTo(b.Line);
            return c != 0 ? c : string.CompareOrdinal(a.Kind + a.Awaiter, b.Kind + b.Awaiter);
        }

        /// <summary>Starts recording the frame timeline into a ring of <paramref name="events"/>
        /// 32-byte events (64 to 16,777,216, rounded up to a power of two); recording never
        /// allocates, and the oldest events are overwritten when it is full. Owner thread.</summary>
        public void StartTrace(int events = 1 << 16, OnityTraceFlags flags = OnityTraceFlags.Runs)
        {
            CheckOwner("StartTrace");
            if (events < 0) throw new ArgumentOutOfRangeException("events");
            Check(OnityNativeCalls.onity_trace_start(rt, (uint)events, (uint)flags), "onity_trace_start");
        }

        /// <summary>Stops recording; what was recorded stays readable. Stopping a trace that is
        /// not recording does nothing. Owner thread.</summary>
        public void StopTrace()
        {
            CheckOwner("StopTrace");
            Check(OnityNativeCalls.onity_trace_stop(rt), "onity_trace_stop");
        }

        /// <summary>The recorded frame timeline as Chrome trace event JSON (UTF-8): open it in
        /// ui.perfetto.dev or chrome://tracing. Owner thread.</summary>
        public byte[] GetTraceJson()
        {
            CheckOwner("GetTraceJson");
            UIntPtr len;
            Check(OnityNativeCalls.onity_trace_dump(rt, IntPtr.Zero, UIntPtr.Zero, &len), "onity_trace_dump");
            var buf = new byte[(int)len];
            fixed (byte* p = buf)
            {
                Check(OnityNativeCalls.onity_trace_dump(rt, (IntPtr)p, len, &len), "onity_trace_dump");
            }
            return buf;
        }

        /// <summary>Writes <see cref="GetTraceJson"/> to <paramref name="path"/>.</summary>
        public void WriteTrace(string path)
        {
            System.IO.File.WriteAllBytes(path, GetTraceJson());
        }

        /// <summary>(events held, events overwritten) of the frame timeline. Owner thread.</summary>
        public void GetTraceCounts(out ulong events, out ulong dropped)
        {
            CheckOwner("GetTraceCounts");
            ulong e, d;
            Check(OnityNativeCalls.onity_trace_counts(rt, &e, &d), "onity_trace_counts");
            events = e;
            dropped = d;
        }
    }
}
