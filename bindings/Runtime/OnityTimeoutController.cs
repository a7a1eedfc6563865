using System;
using System.Threading;

namespace Onity
{
    /// <summary>A reusable timeout token (UniTask's <c>TimeoutController</c>): <see cref="Timeout(TimeSpan)"/>
    /// returns a token canceled when the timeout elapses on the player loop (an
    /// <see cref="OnityPlayerLoopTimer"/>), <see cref="Reset"/> stops the timer once the guarded
    /// work finished in time, and the next Timeout reuses the same source: no allocation per use
    /// until a timeout fires (then the next Timeout makes a new source, as UniTask). With a linked
    /// source, its cancellation cancels the token too. Owner thread.</summary>
    public sealed class OnityTimeoutController : IDisposable
    {
        static readonly Action<object> onTimeout = s => ((OnityTimeoutController)s).Fire();
        readonly CancellationTokenSource link;
        readonly DelayType delayType;
        readonly OnityTiming delayTiming;
        CancellationTokenSource timeoutSource;
        OnityPlayerLoopTimer timer;
        bool timedOut, disposed;

        public OnityTimeoutController(DelayType delayType = DelayType.DeltaTime, OnityTiming delayTiming = OnityTiming.Update)
            : this(null, delayType, delayTiming) { }

        public OnityTimeoutController(CancellationTokenSource linkCancellationTokenSource, DelayType delayType = DelayType.DeltaTime, OnityTiming delayTiming = OnityTiming.Update)
        {
            if ((uint)delayTiming >= Native.OnityNative.ONITY_TIMING_COUNT) OnityRuntime.ThrowTiming("delayTiming");
            link = linkCancellationTokenSource;
            this.delayType = delayType;
            this.delayTiming = delayTiming;
            timeoutSource = NewSource();
        }

        CancellationTokenSource NewSource()
        {
            return link == null ? new CancellationTokenSource() : CancellationTokenSource.CreateLinkedTokenSource(link.Token);
        }

        /// <summary>As <see cref="Timeout(TimeSpan)"/>, in milliseconds.</summary>
        public CancellationToken Timeout(int millisecondsTimeout) { return Timeout(TimeSpan.FromMilliseconds(millisecondsTimeout)); }

        /// <summary>A token canceled once <paramref name="timeout"/> elapsed from now (restarts the
        /// timer). Owner thread.</summary>
        public CancellationToken Timeout(TimeSpan timeout)
        {
            if (disposed) throw new ObjectDisposedException("OnityTimeoutController");
            if (link != null && link.IsCancellationRequested) return link.Token;
            if (timeoutSource.IsCancellationRequested)
            {
                timeoutSource.Dispose();
                timeoutSource = NewSource();
                timedOut = false;
            }
            if (timer == null) timer = OnityPlayerLoopTimer.StartNew(timeout, false, delayType, delayTiming, CancellationToken.None, onTimeout, this);
            else timer.Restart(timeout);
            return timeoutSource.Token;
        }

        /// <summary>True when the last token was canceled by its timeout (not by the linked source).</summary>
        public bool IsTimeout() { return timedOut; }

        /// <summary>Stops the timer: the token is not canceled by it (call when the work finished in time).</summary>
        public void Reset()
        {
            if (timer != null) timer.Stop();
        }

        /// <summary>Stops the timer and cancels the last token (as UniTask's: the work it guards
        /// ends rather than waiting for ever on a source nobody can cancel any more).</summary>
        public void Dispose()
        {
            if (disposed) return;
            disposed = true;
            if (timer != null) timer.Dispose();
            try { timeoutSource.Cancel(); } // registrations run here
            finally { timeoutSource.Dispose(); }
        }

        void Fire()
        {
            if (timeoutSource.IsCancellationRequested) return; // the linked source canceled it first: no timeout
            timedOut = true;
            timeoutSource.Cancel(); // registrations run here; one that throws reaches UnobservedTaskException
        }
    }
}
