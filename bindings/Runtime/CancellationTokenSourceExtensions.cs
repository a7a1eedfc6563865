using System;
using System.Threading;

namespace Onity
{
    /// <summary>A running <see cref="OnityCancellationExtensions.CancelAfterSlim(CancellationTokenSource, TimeSpan, DelayType, OnityTiming)"/>:
    /// <see cref="Dispose"/> stops it (the token source is then not canceled by it). A struct:
    /// storing it as <see cref="IDisposable"/> boxes it.</summary>
    public readonly struct OnityCancelAfter : IDisposable
    {
        readonly CancelAfterItem item;
        readonly uint version;

        internal OnityCancelAfter(CancelAfterItem item, uint version)
        {
            this.item = item;
            this.version = version;
        }

        /// <summary>Stops it if it has not fired yet. Owner thread.</summary>
        public void Dispose()
        {
            if (item != null) item.Stop(version);
        }
    }

    public static partial class OnityCancellationExtensions
    {
        /// <summary>Cancels <paramref name="cancellationTokenSource"/> after <paramref name="delay"/>
        /// on the player loop (UniTask's <c>CancelAfterSlim</c>; <c>CancelAfter</c> itself uses a
        /// timer thread): at the first run of <paramref name="timing"/> at which the chosen clock has
        /// advanced by the delay, as <see cref="OnityTask.Delay(TimeSpan, DelayType, OnityTiming, CancellationToken)"/>.
        /// Registrations of the token run there, on the owner thread. Pooled: nothing allocated
        /// after warm-up. A source disposed meanwhile is left alone; disposing the runtime stops it.
        /// After <see cref="OnityCancelAfter.Dispose"/> the wait's slot stays in use until the delay
        /// would have ended. Owner thread.</summary>
        public static OnityCancelAfter CancelAfterSlim(this CancellationTokenSource cancellationTokenSource, TimeSpan delay, DelayType delayType = DelayType.DeltaTime, OnityTiming timing = OnityTiming.Update)
        {
            if (cancellationTokenSource == null) throw new ArgumentNullException("cancellationTokenSource");
            return CancelAfterItem.Start(cancellationTokenSource, OnityTask.Delay(delay, delayType, timing));
        }

        /// <summary>As <see cref="CancelAfterSlim(CancellationTokenSource, TimeSpan, DelayType, OnityTiming)"/>
        /// with a delay in milliseconds.</summary>
        public static OnityCancelAfter CancelAfterSlim(this CancellationTokenSource cancellationTokenSource, int millisecondsDelay, DelayType delayType = DelayType.DeltaTime, OnityTiming timing = OnityTiming.Update)
        {
            return CancelAfterSlim(cancellationTokenSource, TimeSpan.FromMilliseconds(millisecondsDelay), delayType, timing);
        }
    }

    /// <summary>CancelAfterSlim's pooled state: awaits a token-less Delay (a wait slot, no
    /// registration) and cancels the source when it ends, unless stopped.</summary>
    internal sealed class CancelAfterItem
    {
        static readonly OnityObjectPool<CancelAfterItem> pool = new OnityObjectPool<CancelAfterItem>(256);
        readonly Action onDelay;
        OnityTask.Awaiter delay;
        CancellationTokenSource cts;
        uint version;
        bool stopped;

        CancelAfterItem() { onDelay = OnDelay; }

        internal static OnityCancelAfter Start(CancellationTokenSource cts, OnityTask delay)
        {
            var item = pool.TryRent() ?? new CancelAfterItem();
            item.cts = cts;
            item.stopped = false;
            item.delay = delay.GetAwaiter();
            var handle = new OnityCancelAfter(item, item.version);
            item.delay.UnsafeOnCompleted(item.onDelay);
            return handle;
        }

        internal void Stop(uint v)
        {
            if (v == version) stopped = true;
        }

        void OnDelay()
        {
            bool elapsed = true;
            try { delay.GetResult(); }
            catch (Exception) { elapsed = false; } // the runtime was disposed
            var c = cts;
            bool fire = elapsed && !stopped;
            cts = null;
            delay = default(OnityTask.Awaiter);
            unchecked { version++; }
            pool.Return(this);
            if (!fire) return;
            try { c.Cancel(); }
            catch (ObjectDisposedException) { }
            catch (Exception ex) { OnityTask.PublishUnobserved(ex); } // a registration threw
        }
    }
}
