using System;
using System.Collections.Generic;
using System.Threading;

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

    public static class FreshThread
    {
        /// <summary>Runs <paramref name="body"/> on a new thread that has no ExecutionContext of its
        /// own (the test thread carries AsyncLocal values from other tests, which make every
        /// suspension capture), optionally with a SynchronizationContext as Unity's main thread
        /// has one; rethrows what it threw.</summary>
        public static void Run(Action body, bool withSyncContext = false)
        {
            Exception failure = null;
            var t = new Thread(() =>
            {
                try
                {
                    if (withSyncContext) SynchronizationContext.SetSynchronizationContext(new SynchronizationContext());
                    body();
                }
                catch (Exception e) { failure = e; }
            });
            using (ExecutionContext.SuppressFlow()) t.Start();
            t.Join();
            if (failure != null) throw failure;
        }
    }
}
