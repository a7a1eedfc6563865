using System;
using System.Threading;
using Onity.Native;

namespace Onity
{
    // The frame driver: what the host calls every frame (BeginFrame, then Tick per timing it runs;
    // Drain between frames), and the frame counters frame waits read without a call. A frame
    // costs at most one native call per timing run: BeginFrame writes the frame into native memory
    // and the first native call that depends on the frame applies it (ABI 1.3, OnityDeferredFrame);
    // a run with nothing native to do makes no call at all (ABI 1.4, OnityTickIdle).
    public sealed unsafe partial class OnityRuntime
    {
        // Where the native side publishes which timings' runs have nothing to do (OnityTickIdle:
        // timing t's byte at idleTimings[t * idleStride], the cross-thread completion stack's
        // head, and for the frame allocator's rewind timing the allocator's frame-memory byte);
        // null once disposed.
        byte* idleTimings;
        int idleStride;
        uint* crossThreadHead;
        byte* frameMemory;
        int rewindTiming;
        // The scaled and unscaled clocks as the frames begun here leave them (each delta added in
        // turn, as the native side does; 0 at creation): managed timers read them.
        double scaledClock, unscaledClock;
        double realtimeClock; // the realtime of the newest frame begun here

        /// <summary>The clock a delay of <paramref name="type"/> counts, as the frames begun here
        /// left it (seconds; managed timers: OnityPlayerLoopTimer).</summary>
        internal double ClockSeconds(DelayType type)
        {
            return type == DelayType.DeltaTime ? scaledClock : type == DelayType.UnscaledDeltaTime ? unscaledClock : realtimeClock;
        }
        bool skipIdleTicks = true;

        /// <summary>Whether <see cref="Tick"/> skips its native call when the native side has
        /// provably nothing to do in that run (no wait or fast-lane wait of the timing, nothing
        /// submitted, nothing completed by another thread, no watched WhenAny/WhenAll, no
        /// tracing, and on the frame allocator's rewind timing no frame memory left to release: an
        /// allocation made after that timing's skipped tick is rewound at its next tick that runs,
        /// a frame later). On by default; the frames a host
        /// begins while ticks are skipped wait in the native frame ring and are applied one by one
        /// at the next call (docs/frame-protocol.md). Off: every Tick makes its call. The managed side of a run (frame streams,
        /// continuations) is the same either way. Owner thread.</summary>
        public bool SkipIdleTicks
        {
            get { return skipIdleTicks; }
            set { CheckOwner("SkipIdleTicks"); skipIdleTicks = value; }
        }

        /// <summary>Ticks that skipped their native call (see <see cref="SkipIdleTicks"/>).</summary>
        public long SkippedTicks { get { return skippedTicks; } }
        long skippedTicks;

        // Frames counted from the first one (1; 0 before it): frame waits made before the first
        // frame count from the frame before it, whatever the host's first frame number (the
        // native side rebases its waits the same way). Only differences of it cross to native.
        ulong fcount;
        ulong fbase;
        // [t]: runs of timing t (batch ticks); [16 + t]: fcount at t's last run. After Dispose
        // every entry is ulong.MaxValue, so every frame wait reads as done (and GetResult throws).
        readonly ulong[] runs = new ulong[32];

        /// <summary>Begins a frame: frame number (strictly increasing), scaled and unscaled delta
        /// times and the absolute realtime clock, in seconds. Owner thread.
        /// <para>No call: the frame is written into the runtime's frame ring (native memory,
        /// <c>onity_batch_frame_ring</c>), and the native runtime applies the frames written there,
        /// in order, at the next call on this thread whose result depends on the frame — a
        /// <see cref="Tick"/> that has work, or C/C++ code scheduling a wait or reading the frame
        /// before that, which sees the new frame as with a call. Waits written before this begin
        /// are filed with the previous frame. A frame the native side refuses although it passed
        /// the checks here (another host began a later frame on the same runtime) is reported by
        /// the next Tick or Drain, which throws after running its continuations. A frame that
        /// fails the checks here, or a begin while the ring is full, takes the call
        /// (<c>onity_runtime_frame_begin</c>, which applies the ring first), so its error is thrown
        /// here.</para></summary>
        public void BeginFrame(ulong frameNumber, double deltaTime, double unscaledDeltaTime, double realtime)
        {
            CheckOwner("BeginFrame");
            if (!drives) ThrowNotDriver("BeginFrame");
            if (inTick) throw new InvalidOperationException("Onity: BeginFrame called from a continuation during a tick.");
            CheckNative();
            OnityFrameInfo info;
            info.size = (uint)sizeof(OnityFrameInfo);
            info.reserved = 0;
            info.frame = frameNumber;
            info.delta_time = deltaTime;
            info.unscaled_delta_time = unscaledDeltaTime;
            info.realtime = realtime;
            OnityDeferredFrame* d = deferred;
            OnityBatch* b = batch;
            uint n = d->pending;
            if (n < ringSize && Deferrable(frameNumber, deltaTime, unscaledDeltaTime, realtime))
            {
                OnityDeferredFrame* e = d + n;
                e->info = info;
                e->submit_split = b->submit_count;
                e->fast_split = b->fast_count;
                d->pending = n + 1; // read by the native side only in later calls on this thread
            }
            else
                Check(OnityNativeCalls.onity_runtime_frame_begin(rt, &info), "BeginFrame");
            scaledClock += deltaTime;
            unscaledClock += unscaledDeltaTime;
            realtimeClock = realtime;
            frame = frameNumber;
            if (fcount == 0) fbase = frameNumber;
            fcount = frameNumber + 1 - fbase;
            if (tokens.HasIdle) tokens.Sweep(frame);
            inTick = true;
            try
            {
                posted.RunPending();
                ProcessResumed();
            }
            finally { inTick = false; }
        }

        /// <summary>Frames written into the native frame ring and not applied yet.</summary>
        internal uint FramesInRing { get { return deferred->pending; } }

        /// <summary>Whether the native side will accept this frame as far as this runtime knows
        /// (onity_runtime_frame_begin's rules: increasing frame number below 2^59, finite
        /// non-negative deltas, finite realtime). A frame that fails goes through the call, so the
        /// native side stays the one judge and its error is thrown by BeginFrame.</summary>
        bool Deferrable(ulong frameNumber, double deltaTime, double unscaledDeltaTime, double realtime)
        {
            return (fcount == 0 || frameNumber > frame) && frameNumber < 1UL << 59
                && deltaTime >= 0 && deltaTime <= double.MaxValue
                && unscaledDeltaTime >= 0 && unscaledDeltaTime <= double.MaxValue
                && realtime >= -double.MaxValue && realtime <= double.MaxValue;
        }

        /// <summary>Throws what the native side reported for a deferred frame it refused (the
        /// frame was dropped); called after a Tick or Drain has run its continuations.</summary>
        void ThrowRefusedFrame()
        {
            var st = (OnityStatus)deferred->status;
            deferred->status = 0;
            throw new OnityException(st, "BeginFrame (applied by the next call)");
        }

        /// <summary>Runs one timing: continuations posted from other threads, then one
        /// <c>onity_batch_tick</c> (files this frame's new waits, runs the timing's queue; skipped
        /// when it would do nothing, see <see cref="SkipIdleTicks"/>), then the
        /// continuations of every wait reported due, in the order the waits were scheduled; when
        /// those canceled a token, <c>onity_batch_cancel_pass</c> completes the timing's other
        /// waits pending with it, canceled, in this same run.
        /// Owner thread; not re-entrant.</summary>
        public void Tick(OnityTiming timing)
        {
            CheckOwner("Tick");
            if (!drives) ThrowNotDriver("Tick");
            if (inTick) throw new InvalidOperationException("Onity: Tick called re-entrantly (from a continuation running inside a tick).");
            CheckNative();
            inTick = true;
            try
            {
                posted.RunPending();
                int cancels = tokens.Cancels;
                int t = (int)timing & 15;
                OnityBatch* b = batch;
                // The native call is skipped when it would do nothing (OnityTickIdle): the timing is
                // idle, nothing is submitted, nothing was completed by another thread, and on the
                // rewind timing no frame memory is left to release (words other threads write:
                // volatile reads, which no compiler keeps from an earlier tick).
                bool call = !skipIdleTicks || (uint)timing > 15 || idleTimings[t * idleStride] == 0 || b->submit_count != 0
                    || b->fast_count != 0 || Volatile.Read(ref *crossThreadHead) != 0
                    || (t == rewindTiming && Volatile.Read(ref *frameMemory) != 0);
                if (call)
                {
                    var obs = tickObserver;
                    if (obs != null) obs.BatchBegin(timing);
                    var st = OnityNativeCalls.onity_batch_tick(rt, b, (uint)timing);
                    if (obs != null) obs.BatchEnd(timing);
                    Check(st, "Tick");
                }
                else
                    skippedTicks++;
                var rc = runs;
                rc[t]++;
                rc[16 + t] = fcount;
                var due = TakeRunWaiters(t); // frame streams (OnityRuntime.RunWaiters.cs)
                CheckNative(); // RunPending's continuations may have run native code
                if (call && batch->fast_resumed_count != 0) ProcessFast();
                if (due != null) RunRunWaiters(due);
                ProcessResumed();
                // A token canceled by one of this run's continuations cancels the run's other
                // pending waits in this run (as inside a native tick): one more crossing, only then.
                while (tokens.Cancels != cancels)
                {
                    CheckNative();
                    cancels = tokens.Cancels;
                    Check(OnityNativeCalls.onity_batch_cancel_pass(rt, batch, (uint)timing), "Tick");
                    ProcessResumed();
                }
            }
            finally { inTick = false; }
            // Not disposed here: Dispose refuses during a tick (native code may have destroyed it).
            CheckNative();
            if (deferred->status != 0) ThrowRefusedFrame();
        }

        /// <summary>Runs continuations completed from other threads (managed and native) without
        /// running a timing. Owner thread.</summary>
        public void Drain()
        {
            CheckOwner("Drain");
            if (inTick) throw new InvalidOperationException("Onity: Drain called re-entrantly.");
            CheckNative();
            inTick = true;
            try
            {
                posted.RunPending();
                CheckNative();
                Check(OnityNativeCalls.onity_batch_drain(rt, batch), "Drain");
                ProcessResumed();
            }
            finally { inTick = false; }
            CheckNative();
            if (deferred->status != 0) ThrowRefusedFrame();
        }

        /// <summary>Dispose: every frame wait then reads as done (its GetResult throws canceled).</summary>
        void SaturateRunCounters()
        {
            for (int i = 0; i < runs.Length; i++) runs[i] = ulong.MaxValue;
        }
    }
}
