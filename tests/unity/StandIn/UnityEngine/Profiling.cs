// Test-only stand-in: the Unity.Profiling core API the package uses (UnityCsReference 2022.3:
// Runtime/Profiler/ScriptBindings/ProfilerMarker.bindings.cs, ProfilerUnsafeUtility.bindings.cs,
// LowLevel enums). Markers record their samples and counters live in native memory, both readable
// by tests through StandInProfiler. Never shipped.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Runtime.InteropServices;
using Unity.Profiling.LowLevel;
using Unity.Profiling.LowLevel.Unsafe;

namespace Unity.Profiling
{
    [StructLayout(LayoutKind.Sequential)]
    public struct ProfilerMarker
    {
        internal readonly IntPtr m_Ptr;

        public IntPtr Handle { get { return m_Ptr; } }

        public ProfilerMarker(string name)
        {
            m_Ptr = ProfilerUnsafeUtility.CreateMarker(name, ProfilerUnsafeUtility.CategoryScripts, MarkerFlags.Default, 0);
        }

        [Conditional("ENABLE_PROFILER")]
        public void Begin() { ProfilerUnsafeUtility.BeginSample(m_Ptr); }

        [Conditional("ENABLE_PROFILER")]
        public void End() { ProfilerUnsafeUtility.EndSample(m_Ptr); }
    }

    public enum ProfilerMarkerDataUnit : byte
    {
        Undefined = 0,
        TimeNanoseconds = 1,
        Bytes = 2,
        Count = 3,
        Percent = 4,
        FrequencyHz = 5,
    }

    [Flags]
    public enum ProfilerCounterOptions : ushort
    {
        None = 0,
        FlushOnEndOfFrame = 1 << 1,
        ResetToZeroOnFlush = 1 << 2,
    }

    /// <summary>What the simulated Profiler saw (internal: not Unity API).</summary>
    internal static class StandInProfiler
    {
        internal static readonly List<string> Markers = new List<string>();
        /// <summary>Samples in order: marker index, begin (true) or end.</summary>
        internal static readonly List<KeyValuePair<int, bool>> Samples = new List<KeyValuePair<int, bool>>();
        internal static readonly Dictionary<string, Counter> Counters = new Dictionary<string, Counter>();
        internal static bool Record; // off by default: recording grows a list (allocation tests)

        internal sealed class Counter
        {
            internal IntPtr Memory;
            internal byte DataType, DataUnit;
            internal int DataSize;
            internal ushort Category;
            internal ProfilerCounterOptions Options;
        }

        internal static string MarkerName(IntPtr p) { return Markers[(int)p - 1]; }

        // Unity's profiler keeps a sample stack per thread and logs an error when an end does not
        // match the innermost open sample of that thread ("Non-matching Profiler.EndSample"), and
        // when a frame ends with a sample still open on the main thread ("Missing
        // Profiler.EndSample"). The stand-in logs the same (Debug.LogError) and keeps them in
        // Mismatches, which the test runner fails a test on.
        static readonly Dictionary<int, List<IntPtr>> open = new Dictionary<int, List<IntPtr>>();
        internal static readonly List<string> Mismatches = new List<string>();

        static List<IntPtr> StackOf(int thread)
        {
            List<IntPtr> l;
            if (!open.TryGetValue(thread, out l)) open.Add(thread, l = new List<IntPtr>(16));
            return l;
        }

        internal static void Begin(IntPtr marker)
        {
            lock (open) StackOf(System.Threading.Thread.CurrentThread.ManagedThreadId).Add(marker);
        }

        internal static void End(IntPtr marker)
        {
            string error = null;
            lock (open)
            {
                var l = StackOf(System.Threading.Thread.CurrentThread.ManagedThreadId);
                if (l.Count > 0 && l[l.Count - 1] == marker) l.RemoveAt(l.Count - 1);
                else error = "Non-matching Profiler.EndSample (Every EndSample call must have a preceding BeginSample call within the same frame): " + MarkerName(marker)
                    + (l.Count > 0 ? " (innermost open: " + MarkerName(l[l.Count - 1]) + ")" : " (nothing open)");
            }
            if (error != null) Fail(error);
        }

        /// <summary>The simulator calls this at the end of each frame (main thread).</summary>
        internal static void EndOfFrame()
        {
            string error = null;
            lock (open)
            {
                var l = StackOf(System.Threading.Thread.CurrentThread.ManagedThreadId);
                if (l.Count > 0)
                {
                    error = "Missing Profiler.EndSample (BeginSample and EndSample count must match): " + MarkerName(l[l.Count - 1]);
                    l.Clear();
                }
            }
            if (error != null) Fail(error);
        }

        static void Fail(string error)
        {
            lock (Mismatches) Mismatches.Add(error);
            UnityEngine.Debug.LogError(error);
        }

        internal static void ResetPairing()
        {
            lock (open) open.Clear();
            lock (Mismatches) Mismatches.Clear();
        }

        internal static unsafe long Value(string counter)
        {
            var c = Counters[counter];
            if (c.DataSize == 8) return *(long*)c.Memory;
            return *(int*)c.Memory;
        }
    }
}

namespace Unity.Profiling.LowLevel
{
    [Flags]
    public enum MarkerFlags : ushort
    {
        Default = 0,
        Script = 1 << 1,
        ScriptInvoke = 1 << 5,
        ScriptDeepProfiler = 1 << 6,
        AvailabilityEditor = 1 << 2,
        AvailabilityNonDevelopment = 1 << 3,
        Warning = 1 << 4,
        Counter = 1 << 7,
        SampleGPU = 1 << 8,
    }

    public enum ProfilerMarkerDataType : byte
    {
        InstanceId = 1,
        Int32 = 2,
        UInt32 = 3,
        Int64 = 4,
        UInt64 = 5,
        Float = 6,
        Double = 7,
        String16 = 9,
        Blob8 = 11,
        GfxResourceId = 12,
    }
}

namespace Unity.Profiling.LowLevel.Unsafe
{
    public static class ProfilerUnsafeUtility
    {
        public const ushort CategoryScripts = 1;

        public static IntPtr CreateMarker(string name, ushort categoryId, MarkerFlags flags, int metadataCount)
        {
            int i = StandInProfiler.Markers.IndexOf(name);
            if (i < 0)
            {
                StandInProfiler.Markers.Add(name);
                i = StandInProfiler.Markers.Count - 1;
            }
            return new IntPtr(i + 1);
        }

        public static void BeginSample(IntPtr markerPtr)
        {
            StandInProfiler.Begin(markerPtr);
            if (StandInProfiler.Record) StandInProfiler.Samples.Add(new KeyValuePair<int, bool>((int)markerPtr - 1, true));
        }

        public static void EndSample(IntPtr markerPtr)
        {
            StandInProfiler.End(markerPtr);
            if (StandInProfiler.Record) StandInProfiler.Samples.Add(new KeyValuePair<int, bool>((int)markerPtr - 1, false));
        }

        public static unsafe void* CreateCounterValue(out IntPtr counterPtr, string name, ushort categoryId, MarkerFlags flags, byte dataType, byte dataUnit, int dataSize, ProfilerCounterOptions counterOptions)
        {
            StandInProfiler.Counter c;
            if (!StandInProfiler.Counters.TryGetValue(name, out c))
            {
                c = new StandInProfiler.Counter
                {
                    Memory = Marshal.AllocHGlobal(Math.Max(8, dataSize)),
                    DataType = dataType,
                    DataUnit = dataUnit,
                    DataSize = dataSize,
                    Category = categoryId,
                    Options = counterOptions,
                };
                *(long*)c.Memory = 0;
                StandInProfiler.Counters.Add(name, c);
            }
            counterPtr = c.Memory;
            return (void*)c.Memory;
        }
    }
}
