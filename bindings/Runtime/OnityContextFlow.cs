using System;
using System.Reflection;
using System.Threading;

namespace Onity
{
    /// <summary>Ambient context (<see cref="ExecutionContext"/>: AsyncLocal values, logical call
    /// context) flow across awaits of <c>async OnityTask</c> methods. On by default; set
    /// <see cref="Enabled"/> to false to turn it off globally (then a continuation runs in whatever
    /// context the thread calling <see cref="OnityRuntime.Tick"/> has, as with UniTask).
    ///
    /// With flow on, each suspension captures the context through the allocation-free
    /// <c>ExecutionContext.FastCapture</c> the BCL's own builders use (bound once by reflection;
    /// falls back to the public, allocating <c>Capture</c> when unavailable). When the captured
    /// context is the default one nothing is kept and the continuation is called directly;
    /// otherwise it runs inside <c>ExecutionContext.Run</c>.</summary>
    internal static class FlowSwitch
    {
        internal static bool enabled = true;
    }

    public static class OnityContextFlow
    {
        /// <summary>The global switch (default true).</summary>
        public static bool Enabled
        {
            get { return FlowSwitch.enabled; }
            set { FlowSwitch.enabled = value; }
        }

        static readonly Func<ExecutionContext> fastCapture;
        static readonly Action<ExecutionContext, ContextCallback, object, bool> internalRun;
        static readonly ExecutionContext defaultContext;

        /// <summary>True when the allocation-free internal capture was bound.</summary>
        public static bool UsesFastCapture { get { return fastCapture != null && internalRun != null; } }

        static OnityContextFlow()
        {
            try
            {
                var t = typeof(ExecutionContext);
                var fc = t.GetMethod("FastCapture", BindingFlags.NonPublic | BindingFlags.Static, null, Type.EmptyTypes, null);
                var run = t.GetMethod("Run", BindingFlags.NonPublic | BindingFlags.Static, null,
                    new[] { typeof(ExecutionContext), typeof(ContextCallback), typeof(object), typeof(bool) }, null);
                if (fc != null && run != null)
                {
                    fastCapture = (Func<ExecutionContext>)Delegate.CreateDelegate(typeof(Func<ExecutionContext>), fc);
                    internalRun = (Action<ExecutionContext, ContextCallback, object, bool>)Delegate.CreateDelegate(
                        typeof(Action<ExecutionContext, ContextCallback, object, bool>), run);
                    // The object FastCapture hands out for "nothing to flow".
                    var f = t.GetField("s_dummyDefaultEC", BindingFlags.NonPublic | BindingFlags.Static);
                    defaultContext = f != null ? f.GetValue(null) as ExecutionContext : null;
                    if (defaultContext == null)
                    {
                        ExecutionContext probe = null;
                        var th = new Thread(() => { probe = fastCapture(); });
                        th.Start();
                        th.Join();
                        defaultContext = probe;
                    }
                }
            }
            catch (Exception)
            {
                fastCapture = null;
                internalRun = null;
            }
        }

        /// <summary>The context to flow, or null when there is nothing to flow (flow off, flow
        /// suppressed, or the default context).</summary>
        internal static ExecutionContext Capture()
        {
            if (fastCapture != null)
            {
                var ec = fastCapture();
                return ReferenceEquals(ec, defaultContext) ? null : ec;
            }
            if (ExecutionContext.IsFlowSuppressed()) return null;
            return ExecutionContext.Capture();
        }

        internal static void Run(ExecutionContext ec, ContextCallback callback, object state)
        {
            if (internalRun != null) internalRun(ec, callback, state, true);
            else ExecutionContext.Run(ec, callback, state);
        }
    }
}
