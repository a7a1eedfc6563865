using System;
using System.Runtime.ExceptionServices;
using System.Threading;

namespace Onity
{
    /// <summary>A failure stored in a completion source until someone observes it (GetResult).
    /// Allocated only when a source faults, so the success path allocates nothing. If the source
    /// is dropped without being observed (a faulted task neither awaited nor <c>Forget()</c>-ed),
    /// its finalizer reports the exception to <see cref="OnityTask.UnobservedTaskException"/>
    /// once the collector has reclaimed it (UniTask's ExceptionHolder; its ExceptionUnobserved
    /// tests). Cancellations are never reported.</summary>
    internal sealed class OnityExceptionHolder
    {
        readonly ExceptionDispatchInfo error;
        int observed;

        internal OnityExceptionHolder(ExceptionDispatchInfo error) { this.error = error; }

        /// <summary>The failure, now observed (no report when collected).</summary>
        internal ExceptionDispatchInfo Observe()
        {
            if (Interlocked.Exchange(ref observed, 1) == 0) GC.SuppressFinalize(this);
            return error;
        }

        ~OnityExceptionHolder()
        {
            if (Volatile.Read(ref observed) == 0) OnityUnobserved.ReportCollected(error.SourceException);
        }
    }

    internal static class OnityUnobserved
    {
        /// <summary>From a finalizer: a faulted task was collected unobserved. The event runs on the
        /// current runtime's owner thread at its next BeginFrame/Tick/Drain (as UniTask dispatches
        /// it to Unity's main thread); with no live runtime, through
        /// <see cref="OnityRuntime.NoRuntimeContext"/> or on the finalizer thread. Nothing is
        /// reported while the process or domain is shutting down.</summary>
        internal static void ReportCollected(Exception ex)
        {
            try
            {
                if (Environment.HasShutdownStarted || AppDomain.CurrentDomain.IsFinalizingForUnload()) return;
                Action publish = () => OnityTask.PublishUnobserved(ex);
                var r = OnityRuntime.Current;
                if (r != null && !r.IsDisposed) r.Post(publish);
                else OnityRuntime.RunWithoutRuntime(publish);
            }
            catch (Exception)
            {
                // A finalizer must not throw.
            }
        }
    }
}
