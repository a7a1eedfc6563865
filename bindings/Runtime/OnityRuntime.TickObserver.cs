namespace Onity
{
    /// <summary>Receives the start and end of each <see cref="OnityRuntime.Tick"/>'s native batch
    /// call (<c>onity_batch_tick</c>: filing the timing's new waits and running its queue), on the
    /// owner thread, so that a profiler can mark it (the Unity integration's <c>OnityProfiler</c>
    /// does). The continuations of the resumed waits run after <see cref="BatchEnd"/>. An abstract
    /// class, not an interface: a virtual call is cheaper than Mono's interface dispatch.</summary>
    public abstract class OnityTickObserver
    {
        public abstract void BatchBegin(OnityTiming timing);
        public abstract void BatchEnd(OnityTiming timing);
    }

    public sealed partial class OnityRuntime
    {
        OnityTickObserver tickObserver;

        /// <summary>Called around every batch call of <see cref="Tick"/> (null: none, the default).
        /// Set it on the owner thread.</summary>
        public OnityTickObserver TickObserver
        {
            get { return tickObserver; }
            set { tickObserver = value; }
        }
    }
}
