using System;
using System.Collections.Generic;

namespace Onity.Tests
{
    /// <summary>A tiny game loop for tests: frames numbered from 1, fixed frame times.</summary>
    public sealed class TestHost : IDisposable
    {
        static TestHost live;
        public readonly OnityRuntime Runtime;
        public ulong Frame;
        public double Dt = 1.0 / 60, UnscaledDt = 1.0 / 60, Realtime;
        public readonly List<Exception> Unobserved = new List<Exception>();
        readonly Action<Exception> onUnobserved;

        public TestHost(int submitCapacity = 65536)
        {
            Cleanup();
            Runtime = new OnityRuntime(submitCapacity);
            onUnobserved = e => { lock (Unobserved) Unobserved.Add(e); };
            OnityTask.UnobservedTaskException += onUnobserved;
            live = this;
        }

        /// <summary>BeginFrame(next frame) only.</summary>
        public void Begin()
        {
            Frame++;
            Realtime += UnscaledDt;
            Runtime.BeginFrame(Frame, Dt, UnscaledDt, Realtime);
        }

        /// <summary>A whole frame: BeginFrame, then every timing in order.</summary>
        public void RunFrame()
        {
            Begin();
            for (int t = 0; t < 16; t++) Runtime.Tick((OnityTiming)t);
        }

        /// <summary>BeginFrame then only the given timings.</summary>
        public void RunFrame(params OnityTiming[] timings)
        {
            Begin();
            foreach (var t in timings) Runtime.Tick(t);
        }

        public void Dispose()
        {
            OnityTask.UnobservedTaskException -= onUnobserved;
            if (!Runtime.IsDisposed) Runtime.Dispose();
            OnityContextFlow.Enabled = true;
            if (live == this) live = null;
        }

        internal static void Cleanup()
        {
            if (live != null) live.Dispose();
        }
    }
}
