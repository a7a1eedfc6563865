using System;
using System.Runtime.CompilerServices;
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

        // Frames counted from the first one (1; 0 before it): frame number - the origin the native
        // side publishes (OnityFrameClock), so that frame waits made before the first frame count
        // from the frame before it, as the native side rebases its waits. Only differences of it
        // cross to native.
        ulong fcount;
        // [t]: runs of timing t (batch ticks); [16 + t]: fcount at t's last run. After Dispose
        // every entry is ulong.MaxValue, so every frame wait reads as done (and GetResult throws).
        readonly ulong[] runs = new ulong[32];
        const ulong MaxFrameNumber = 1UL << 59; // frame numbers from it are refused (onity_runtime_frame_begin)

        /// <summary>Begins a frame: frame number (strictly increasing), scaled and unscaled delta
        /// times and the absolute realtime clock, in seconds. Owner thread.
        /// <para>Once the native side has begun a frame, no call: the frame is written into the
        /// runtime's frame ring (native memory, <c>onity_batch_frame_ring</c>), unchecked, and the
        /// native runtime applies the frames written there, in order, at the next call on this
        /// thread whose result depends on the frame — a <see cref="Tick"/> that has work, or C/C++
        /// code scheduling a wait or reading the frame before that, which sees the new frame as with
        /// a call. Waits written before this begin are filed with the previous frame. The first
        /// frame, and a begin while the ring is full, take the call (<c>onity_runtime_frame_begin</c>,
        /// which applies the ring first), so a bad first frame is thrown here. A later frame the
        /// native side refuses (frame number not increasing or from 2^59, negative or non-finite
        /// delta, non-finite realtime) is dropped and thrown by the next call that applies the
        /// ring: a Tick that calls (after running its continuations), <see cref="Drain"/>, or the
        /// BeginFrame that finds the ring full. Until then a frame refused by another host's frames
        /// (C code began a later one) is counted here (frame waits made or polled meanwhile count
        /// it); one refused for itself (number not above the last or from 2^59, a negative or
        /// non-finite delta, a non-finite realtime) leaves the frame, frame counter and clocks as
        /// they were. When it is thrown, the frame, frame counter
        /// and clocks are first reset to the native side's (<c>OnityFrameClock</c>).</para></summary>
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
            OnityFrameClock* c = frameClock;
            uint n = d->pending;
            if (n < ringSize && c->frames_begun != 0)
            {
                OnityBatch* b = batch;
                OnityDeferredFrame* e = d + n;
                e->info = info;
                e->submit_split = b->submit_count;
                e->fast_split = b->fast_count;
                d->pending = n + 1; // read by the native side only in later calls on this thread
                // Counted only when this side's counters can take it (a number above the last and
                // below 2^59, finite non-negative deltas, a finite realtime): the core refuses any
                // other (reported later, then resynced), and counting it would wrap the frame
                // counter (every frame wait done) or make the clocks NaN or infinite (every timer
                // fired, a periodic one restarted from it never again or every frame).
                if (frameNumber > frame && frameNumber < MaxFrameNumber && deltaTime >= 0 && deltaTime <= double.MaxValue
                    && unscaledDeltaTime >= 0 && unscaledDeltaTime <= double.MaxValue
                    && realtime >= -double.MaxValue && realtime <= double.MaxValue)
                {
                    scaledClock += deltaTime;
                    unscaledClock += unscaledDeltaTime;
                    realtimeClock = realtime;
                    frame = frameNumber;
                    fcount = frameNumber - c->origin;
                }
            }
            else
                BeginFrameByCall(&info);
            if (tokens.HasIdle) tokens.Sweep(frame);
            inTick = true;
            try
            {
                posted.RunPending();
                ProcessResumed();
            }
            finally { inTick = false; }
        }

        /// <summary>The first frame, or a begin with the ring full: <c>onity_runtime_frame_begin</c>
        /// (it applies the ring first), then the frame state as the native side published it.</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        void BeginFrameByCall(OnityFrameInfo* info)
        {
            var st = OnityNativeCalls.onity_runtime_frame_begin(rt, info);
            if (st != OnityStatus.Ok || deferred->status != 0) ThrowRefusedFrame(st);
            SyncFrame();
        }

        /// <summary>Frames written into the native frame ring and not applied yet.</summary>
        internal uint FramesInRing { get { return deferred->pending; } }

        /// <summary>Takes the frame, frame counter and clocks from the native side's published state
        /// (after a call applied every frame written).</summary>
        void SyncFrame()
        {
            OnityFrameClock* c = frameClock;
            frame = c->frame;
            fcount = c->frame - c->origin;
            scaledClock = c->scaled_time;
            unscaledClock = c->unscaled_time;
            realtimeClock = c->realtime;
        }

        /// <summary>Throws what the native side reported for a frame it refused (the frame was dropped;
        /// the first refusal in frame order: a ring frame's, else <paramref name="call"/>'s), after
        /// taking its frame state: the frames this side counted are replaced by the ones the native
        /// side began, and run marks counted past them are brought back to its frame.</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        void ThrowRefusedFrame(OnityStatus call)
        {
            OnityFrameClock* c;
            // Frames written after the ring was applied by C code (a Tick that skipped its call):
            // this call applies them too, so that the state taken is the native side's last word.
            if (deferred->pending != 0) OnityNativeCalls.onity_runtime_frame_clock(rt, &c);
            var st = (OnityStatus)deferred->status;
            deferred->status = 0;
            SyncFrame();
            var rc = runs;
            for (int t = 16; t < 32; t++)
                if (rc[t] > fcount) rc[t] = fcount;
            if (st != OnityStatus.Ok) throw new OnityException(st, "BeginFrame (applied by a later call)");
            throw new OnityException(call, "BeginFrame");
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
            if (deferred->status != 0) ThrowRefusedFrame(OnityStatus.Ok);
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
            if (deferred->status != 0) ThrowRefusedFrame(OnityStatus.Ok);
        }

        /// <summary>Dispose: every frame wait then reads as done (its GetResult throws canceled).</summary>
        void SaturateRunCounters()
        {
            for (int i = 0; i < runs.Length; i++) runs[i] = ulong.MaxValue;
        }
    }
}
