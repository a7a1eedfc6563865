using System;
using System.Collections.Generic;
using System.Threading;
using Onity.Native;

namespace Onity
{
    /// <summary>The native runtime, its batch and the frame driver. Create it on the thread that
    /// will drive frames (the owner, "main thread"); the host then calls, every frame,
    /// <see cref="BeginFrame"/> and <see cref="Tick"/> for each timing it runs (a Unity
    /// integration does this from the PlayerLoop). The most recently created runtime is
    /// <see cref="Current"/>, which <c>OnityTask.NextFrame</c> etc. use.
    ///
    /// Frame waits never cross the boundary one by one: each is a 32-byte record written
    /// straight into the batch's native submit buffer; one <c>onity_batch_tick</c> per timing files
    /// them and reports the due ones by id; ids index a managed array of pending
    /// continuations.</summary>
    /// <remarks>One concern per file (as UniTask splits PlayerLoopHelper / PlayerLoopRunner /
    /// ContinuationQueue):
    /// <list type="bullet">
    /// <item><c>OnityRuntime.cs</c>: creation, the owner thread, <see cref="Current"/>, disposal.</item>
    /// <item><c>OnityRuntime.Attach.cs</c>: wrapping a runtime another plugin created, awaiting
    /// its native task handles.</item>
    /// <item><c>OnityRuntime.FrameDriver.cs</c>: <see cref="BeginFrame"/>, <see cref="Tick"/>,
    /// <see cref="Drain"/> and the frame counters frame waits read.</item>
    /// <item><c>OnityRuntime.Batch.cs</c>: the batch transport (records written into native
    /// memory, resumptions read back).</item>
    /// <item><c>OnityRuntime.WaitSlots.cs</c>: wait slots, the tasks they back
    /// (<see cref="IOnityTaskSource{T}"/>).</item>
    /// <item><c>OnityRuntime.FastLane.cs</c>: frame waits awaited directly
    /// (<see cref="OnityFrameWait"/>).</item>
    /// <item><c>OnityTokenMap.cs</c>: cancellation tokens mapped to native cancellation sources.</item>
    /// <item><c>OnityRuntime.Continuations.cs</c>: continuations posted from other threads.</item>
    /// <item><c>OnityRuntime.NativeCompletion.cs</c>: native tasks completed by native code.</item>
    /// <item><c>OnityRuntime.Diagnostics.cs</c>: statistics and live lists.</item>
    /// </list></remarks>
    public sealed unsafe partial class OnityRuntime : IDisposable, IOnityTaskSource<ulong>
    {
        static OnityRuntime current;
        // The runtime this thread owns (cheaper than Thread.CurrentThread). Invariant the hot paths
        // rely on: ownedHere == r implies !r.disposed (Dispose runs on the owner and moves it).
        [ThreadStatic] static OnityRuntime ownedHere;
        // Runtimes not disposed, in creation order (lock it). All share one owner thread: the static
        // helpers and off-thread completions route to Current, so a runtime on a second thread
        // would receive the first thread's continuations.
        static readonly List<OnityRuntime> live = new List<OnityRuntime>();

        internal IntPtr rt;     // internal: tests/csharp/Proto
        internal OnityBatch* batch;
        OnityDeferredFrame* deferred; // the frame ring: frames written instead of begun by a call (FrameDriver.cs)
        uint ringSize;
        OnityFrameClock* frameClock; // the frame state the native side publishes (ABI 1.7, FrameDriver.cs)
        // The native runtime's live word (ABI 1.5, onity_runtime_live_word): static, holds liveId
        // while the native runtime lives. Checked before the memory it shares (batch, deferred
        // frame, idle bytes) is touched without a call: native code may have destroyed it.
        ulong* liveWord;
        ulong liveId;
        readonly Thread owner;
        bool inTick;
        internal bool disposed;
        ulong frame;
        readonly OnityTokenMap tokens; // cancellation tokens awaited with, and their native sources

        /// <summary>True on a thread that owns a (not disposed) runtime.</summary>
        internal static bool OnAnOwnerThread { get { return ownedHere != null; } }
        /// <summary>The quick half of <see cref="IsOwnerThread"/> (one thread-static read, inlined):
        /// true when this thread is <paramref name="r"/>'s owner as recorded at its creation.</summary>
        [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
        internal static bool OwnedHere(OnityRuntime r) { return ownedHere == r; }

        /// <summary>The runtime static helpers use: the most recently created one not yet disposed
        /// (when it is disposed, the previous live one becomes current again).</summary>
        public static OnityRuntime Current { get { return current; } }

        /// <summary>True when <see cref="Current"/> is null because the last current runtime was
        /// disposed (rather than never created).</summary>
        public static bool LastDisposed { get { return lastDisposed; } }
        static bool lastDisposed;
        static OnityRuntime disposingNow; // set while Dispose runs the continuations it completes

        /// <summary>Creates a runtime owned by the calling thread, with the native defaults. Several
        /// runtimes may be alive at once only on the same owner thread: creating one on another
        /// thread while a runtime is alive throws <see cref="InvalidOperationException"/>.</summary>
        /// <param name="submitCapacity">Records the batch's submit buffer holds before a flush
        /// crossing is needed (32 bytes each). Size it for the waits created in one timing.</param>
        public OnityRuntime(int submitCapacity = 65536) : this(DefaultConfig(), submitCapacity) { }

        public OnityRuntime(OnityRuntimeConfig config, int submitCapacity = 65536)
            : this(CreateNative(config), true, true, submitCapacity) { }

        static IntPtr CreateNative(OnityRuntimeConfig config)
        {
            CheckAbi();
            config.size = (uint)sizeof(OnityRuntimeConfig);
            lock (live) ThrowIfOtherOwnerLive();
            IntPtr p;
            Check(OnityNativeCalls.onity_runtime_create(&config, &p), "onity_runtime_create");
            return p;
        }

        static void CheckAbi()
        {
            uint abi = OnityNativeCalls.onity_abi_version();
            if (abi >> 16 != OnityNative.ONITY_ABI_VERSION >> 16 || (abi & 0xFFFF) < (OnityNative.ONITY_ABI_VERSION & 0xFFFF))
                throw new InvalidOperationException("libonity ABI " + (abi >> 16) + "." + (abi & 0xFFFF) + " does not match the binding's " + (OnityNative.ONITY_ABI_VERSION >> 16) + "." + (OnityNative.ONITY_ABI_VERSION & 0xFFFF));
        }

        /// <summary>Over the native runtime <paramref name="p"/>: created here (<paramref name="owns"/>:
        /// Dispose destroys it) or another plugin's (<see cref="Attach"/>).</summary>
        OnityRuntime(IntPtr p, bool owns, bool drives, int submitCapacity)
        {
            this.owns = owns;
            this.drives = drives;
            rt = p;
            OnityBatch* b;
            var st = OnityNativeCalls.onity_batch_create(rt, (uint)submitCapacity, &b);
            if (st != OnityStatus.Ok)
            {
                AbandonNative();
                throw new OnityException(st, "onity_batch_create");
            }
            batch = b;
            OnityDeferredFrame* d;
            uint ringCapacity;
            st = OnityNativeCalls.onity_batch_frame_ring(rt, b, &d, &ringCapacity);
            if (st != OnityStatus.Ok)
            {
                AbandonNative();
                throw new OnityException(st, "onity_batch_frame_ring");
            }
            deferred = d;
            ringSize = ringCapacity;
            OnityFrameClock* fc;
            st = OnityNativeCalls.onity_runtime_frame_clock(rt, &fc);
            if (st != OnityStatus.Ok)
            {
                AbandonNative();
                throw new OnityException(st, "onity_runtime_frame_clock");
            }
            frameClock = fc;
            SyncFrame(); // attached to a runtime whose host began frames: count as it does
            ulong* word;
            ulong id;
            st = OnityNativeCalls.onity_runtime_live_word(rt, &word, &id);
            if (st != OnityStatus.Ok)
            {
                AbandonNative(); // (an attached runtime is its creator's: not destroyed here)
                throw new OnityException(st, "onity_runtime_live_word");
            }
            liveWord = word;
            liveId = id;
            OnityTickIdle idle;
            st = OnityNativeCalls.onity_batch_idle(rt, b, &idle);
            if (st != OnityStatus.Ok)
            {
                AbandonNative();
                throw new OnityException(st, "onity_batch_idle");
            }
            idleTimings = idle.timings;
            idleStride = (int)idle.timing_stride;
            crossThreadHead = idle.cross_thread;
            frameMemory = idle.frame_memory;
            rewindTiming = (int)idle.rewind_timing;
            owner = Thread.CurrentThread;
            tokens = new OnityTokenMap(rt);
            InitSlots();
            InitFastLane();
            lock (live)
            {
                try { ThrowIfOtherOwnerLive(); } // again: another thread may have created one meanwhile
                catch
                {
                    AbandonNative();
                    ForgetNative();
                    disposed = true;
                    throw;
                }
                live.Add(this);
                ownedHere = this;
                current = this;
                lastDisposed = false;
            }
        }

        static void ThrowIfOtherOwnerLive()
        {
            var me = Thread.CurrentThread;
            for (int i = 0; i < live.Count; i++)
            {
                if (live[i].owner != me)
                    throw new InvalidOperationException("Onity: an OnityRuntime owned by thread " + live[i].owner.ManagedThreadId + " is alive; every live runtime must have the same owner thread (static helpers and off-thread completions go to OnityRuntime.Current). Dispose it first, or create this runtime on that thread.");
            }
        }

        static OnityRuntimeConfig DefaultConfig()
        {
            OnityRuntimeConfig c;
            Check(OnityNativeCalls.onity_runtime_config_init(&c, (uint)sizeof(OnityRuntimeConfig)), "onity_runtime_config_init");
            return c;
        }

        /// <summary>The native runtime pointer (for native code that completes tasks).</summary>
        public IntPtr NativeRuntime { get { return rt; } }
        public Thread OwnerThread { get { return owner; } }
        public bool IsOwnerThread { get { return ownedHere == this || Thread.CurrentThread == owner; } }
        /// <summary>The frame number last passed to <see cref="BeginFrame"/>.</summary>
        public ulong Frame { get { return frame; } }
        public bool IsDisposed { get { return disposed; } }

        internal static void Check(OnityStatus s, string what)
        {
            if (s != OnityStatus.Ok) throw new OnityException(s, what);
        }

        internal void CheckOwner(string what)
        {
            if (ownedHere != this && Thread.CurrentThread != owner) ThrowWrongThread(what);
            if (disposed) throw new ObjectDisposedException("OnityRuntime");
        }

        /// <summary>True while the native runtime lives: false once native code destroyed it
        /// (<c>onity_runtime_destroy</c> on <see cref="NativeRuntime"/>), or Dispose did.</summary>
        public bool IsNativeAlive { get { return *liveWord == liveId; } }

        /// <summary>Throws when the native runtime is gone, before memory it shared is touched.</summary>
        [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
        void CheckNative()
        {
            if (*liveWord != liveId) ThrowNativeDestroyed();
        }

        void ThrowNativeDestroyed()
        {
            if (disposed) throw new ObjectDisposedException("OnityRuntime");
            throw new ObjectDisposedException("OnityRuntime", "Onity: the native runtime was destroyed by native code (onity_runtime_destroy on OnityRuntime.NativeRuntime) while this OnityRuntime still used it. Dispose the OnityRuntime instead; call Dispose now to cancel its waits.");
        }

        static void ThrowWrongThread(string what)
        {
            throw new InvalidOperationException("Onity: " + what + " must be called on the runtime's owner thread (the thread that created it); this is thread " + Thread.CurrentThread.ManagedThreadId + ". Use 'await OnityTask.SwitchToMainThread()' first.");
        }

        [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
        internal static OnityRuntime Require()
        {
            var r = current;
            if (r == null) ThrowNoRuntime();
            return r;
        }

        static string unavailableReason;

        /// <summary>Why no runtime exists (e.g. its creation failed at startup), or null: when set,
        /// a wait started without a runtime throws <see cref="InvalidOperationException"/> with this
        /// message. A host that owns the runtime (<c>OnityPlayerLoop</c>) sets it when creation fails
        /// and clears it when a runtime is created.</summary>
        public static string UnavailableReason
        {
            get { return Volatile.Read(ref unavailableReason); }
            set { Volatile.Write(ref unavailableReason, value); }
        }

        static void ThrowNoRuntime()
        {
            // A continuation that Dispose runs (a canceled wait's, or one posted from another thread)
            // and starts a new wait: the runtime is going away, as for the waits it cancels.
            if (Volatile.Read(ref disposingNow) != null) throw new OperationCanceledException("Onity: the runtime is being disposed; no new wait can start.");
            // The host could not create its runtime (OnityPlayerLoop logged why at startup).
            var why = Volatile.Read(ref unavailableReason);
            if (why != null) throw new InvalidOperationException(why);
            // After the current runtime was disposed (e.g. Unity leaving Play Mode before OnDisable/
            // OnDestroy run): a wait started now is canceled, as the ones Dispose canceled.
            if (lastDisposed) throw new OperationCanceledException("Onity: the runtime was disposed; no new wait can start.");
            throw new InvalidOperationException("Onity: no OnityRuntime. Create one ('new OnityRuntime()') on the main thread and drive it with BeginFrame/Tick.");
        }

        /// <summary>Destroys the native runtime (owner thread, not during a tick); an attached one
        /// (<see cref="Attach"/>) is left to its creator. Every pending wait completes canceled and
        /// its continuation runs.</summary>
        public void Dispose()
        {
            if (disposed) return;
            CheckOwner("Dispose");
            if (inTick) throw new InvalidOperationException("Onity: Dispose called during a tick.");
            lock (live)
            {
                live.Remove(this);
                // The previous live runtime (same owner thread) takes over, if any.
                var next = live.Count != 0 ? live[live.Count - 1] : null;
                if (ownedHere == this) ownedHere = next;
                disposed = true;
                if (current == this)
                {
                    current = next;
                    lastDisposed = next == null;
                }
            }
            tokens.DestroyAll();
            // No NativeSet*/NativeCancel from another thread may still be inside the native runtime.
            CloseNativeCalls();
            // Native code may have destroyed it already (IsNativeAlive): then only the managed side
            // is left to cancel.
            if (IsNativeAlive) ReleaseNative();
            ForgetNative();
            var conts = new List<Action>();
            CancelPendingSlots(conts);
            CancelFastWaits(conts);
            CancelRunWaiters(conts);
            SaturateRunCounters();
            Volatile.Write(ref disposingNow, this);
            try
            {
                foreach (var c in conts)
                {
                    try { c(); }
                    catch (Exception ex) { OnityTask.PublishUnobserved(ex); }
                }
                posted.CloseAndRun();
            }
            finally { Volatile.Write(ref disposingNow, null); }
        }
    }
}
