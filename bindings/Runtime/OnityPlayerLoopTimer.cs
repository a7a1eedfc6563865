using System;
using System.Threading;

namespace Onity
{
    /// <summary>A timer on the player loop (UniTask's <c>PlayerLoopTimer</c>): calls
    /// <c>timerCallback(state)</c> at the first run of its timing at which the chosen clock has
    /// advanced by the interval since <see cref="Restart()"/> (the clocks of
    /// <see cref="OnityTask.Delay(TimeSpan, DelayType, OnityTiming, CancellationToken)"/>, which
    /// advance at BeginFrame); a periodic timer then starts over. The token, <see cref="Stop"/> and
    /// <see cref="Dispose"/> stop it (no call). Polled as an <see cref="OnityLoopItem"/>: starting,
    /// restarting and each step allocate nothing. A callback's exception goes to
    /// <see cref="OnityTask.UnobservedTaskException"/> and stops the timer. Owner thread.</summary>
    public sealed class OnityPlayerLoopTimer : OnityLoopItem, IDisposable
    {
        readonly bool periodic;
        readonly DelayType delayType;
        readonly OnityTiming timing;
        readonly CancellationToken cancellationToken;
        readonly Action<object> timerCallback;
        readonly object state;
        double interval;    // seconds
        double start;       // the clock at the (re)start
        OnityRuntime clockOf;
        bool running, disposed;

        OnityPlayerLoopTimer(TimeSpan interval, bool periodic, DelayType delayType, OnityTiming timing, CancellationToken cancellationToken, Action<object> timerCallback, object state)
        {
            if (timerCallback == null) throw new ArgumentNullException("timerCallback");
            if ((uint)timing >= Native.OnityNative.ONITY_TIMING_COUNT) OnityRuntime.ThrowTiming();
            if (delayType != DelayType.DeltaTime && delayType != DelayType.UnscaledDeltaTime && delayType != DelayType.Realtime)
                throw new ArgumentOutOfRangeException("delayType", "Onity: delayType must be a DelayType value.");
            this.interval = Seconds(interval);
            this.periodic = periodic;
            this.delayType = delayType;
            this.timing = timing;
            this.cancellationToken = cancellationToken;
            this.timerCallback = timerCallback;
            this.state = state;
        }

        /// <summary>A timer, not started (<see cref="Restart()"/> starts it).</summary>
        public static OnityPlayerLoopTimer Create(TimeSpan interval, bool periodic, DelayType delayType, OnityTiming playerLoopTiming, CancellationToken cancellationToken, Action<object> timerCallback, object state)
        {
            return new OnityPlayerLoopTimer(interval, periodic, delayType, playerLoopTiming, cancellationToken, timerCallback, state);
        }

        /// <summary>A timer, started now.</summary>
        public static OnityPlayerLoopTimer StartNew(TimeSpan interval, bool periodic, DelayType delayType, OnityTiming playerLoopTiming, CancellationToken cancellationToken, Action<object> timerCallback, object state)
        {
            var t = Create(interval, periodic, delayType, playerLoopTiming, cancellationToken, timerCallback, state);
            t.Restart();
            return t;
        }

        static double Seconds(TimeSpan interval)
        {
            if (interval < TimeSpan.Zero) throw new ArgumentOutOfRangeException("interval", "Onity: a timer's interval must be >= 0.");
            return interval.TotalSeconds;
        }

        /// <summary>(Re)starts it: the interval counts from now. Owner thread.</summary>
        public void Restart()
        {
            if (disposed) throw new ObjectDisposedException("OnityPlayerLoopTimer");
            var r = OnityRuntime.Require();
            r.CheckOwner("OnityPlayerLoopTimer.Restart");
            clockOf = r;
            start = r.ClockSeconds(delayType);
            running = true;
            if (!LoopActive) StartLoop(timing);
        }

        /// <summary>(Re)starts it with a new interval.</summary>
        public void Restart(TimeSpan interval)
        {
            if (disposed) throw new ObjectDisposedException("OnityPlayerLoopTimer");
            this.interval = Seconds(interval);
            Restart();
        }

        /// <summary>Stops it (no call until the next <see cref="Restart()"/>).</summary>
        public void Stop() { running = false; }

        /// <summary>Stops it for good.</summary>
        public void Dispose()
        {
            disposed = true;
            Stop();
        }

        protected override bool MoveNext()
        {
            if (!running) return false;
            if (cancellationToken.IsCancellationRequested)
            {
                running = false;
                return false;
            }
            var r = clockOf;
            if (r.ClockSeconds(delayType) - start < interval) return true;
            running = periodic;
            if (periodic) start = r.ClockSeconds(delayType);
            timerCallback(state);
            return running; // the callback may have restarted or stopped it
        }

        protected override void OnLoopCanceled() { running = false; }

        protected override void OnLoopFaulted(Exception exception)
        {
            running = false;
            base.OnLoopFaulted(exception);
        }
    }
}
