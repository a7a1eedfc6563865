using System;
using System.Collections.Generic;
using System.Threading;
using Onity.Native;

namespace Onity
{
    /// <summary>A failure reported by the native runtime.</summary>
    public class OnityException : Exception
    {
        public OnityStatus Status { get; private set; }
        /// <summary>The error code a native task was completed with (faulted native tasks).</summary>
        public int ErrorCode { get; private set; }

        public OnityException(OnityStatus status, string what)
            : base(what + ": " + OnityRuntime.StatusText(status) + " (" + status + ")")
        {
            Status = status;
        }

        public OnityException(int errorCode)
            : base("native task faulted with error code " + errorCode)
        {
            Status = OnityStatus.Ok;
            ErrorCode = errorCode;
        }
    }

    /// <summary>A native task handle that native code completes (any thread, through
    /// <c>onity_task_set_result</c> / <c>onity_task_set_error</c> / <c>onity_task_cancel</c>) and C#
    /// awaits through <see cref="Task"/>; the continuation runs on the runtime's owner thread at
    /// its next <see cref="OnityRuntime.Tick"/> or <see cref="OnityRuntime.Drain"/>.</summary>
    public struct OnityNativeCompletionSource
    {
        /// <summary>The native task handle to hand to native code.</summary>
        public readonly ulong Handle;
        /// <summary>Completes with the value passed to <c>onity_task_set_result</c>; faults with an
        /// <see cref="OnityException"/> carrying the error code; cancels with an
        /// <see cref="OperationCanceledException"/>.</summary>
        public readonly OnityTask<ulong> Task;

        internal OnityNativeCompletionSource(ulong handle, OnityTask<ulong> task)
        {
            Handle = handle;
            Task = task;
        }
    }

    /// <summary>A pending wait or native task, for leak diagnosis.</summary>
    public struct OnityPendingWait
    {
        public string Kind;
        public OnityTiming Timing;
        public ulong CreatedFrame;
        public bool Awaited;
        /// <summary>Type of the awaiting continuation's target (e.g. the async state machine's runner).</summary>
        public string Awaiter;
        public long Token;

        public override string ToString()
        {
            return Kind + " @" + Timing + " created in frame " + CreatedFrame + (Awaited ? " awaited by " + Awaiter : " (not awaited)");
        }
    }

    /// <summary>Managed-side counters.</summary>
    public struct OnityManagedStats
    {
        public int WaitSlotCapacity;
        public int PendingWaits;
        public int CompletedUnconsumedWaits;
        public int CancellationTokensMapped;
        public int PostedContinuations;
        public long RunnersLive;
        public long RunnersCreated;
        public long Crossings;
        /// <summary>Pending waits of the fast lane (frame waits awaited directly; included in
        /// <see cref="PendingWaits"/>).</summary>
        public int FastLaneWaits;

        public override string ToString()
        {
            return string.Format("waits: {0} pending ({8} in the fast lane), {1} completed-unconsumed, {2} slots; tokens mapped {3}; posted {4}; runners live {5}, created {6}; crossings {7}",
                PendingWaits, CompletedUnconsumedWaits, WaitSlotCapacity, CancellationTokensMapped, PostedContinuations, RunnersLive, RunnersCreated, Crossings, FastLaneWaits);
        }
    }

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
    public sealed unsafe class OnityRuntime : IDisposable, IOnityTaskSource<ulong>
    {
        const byte KindYield = 0, KindNextFrame = 1, KindDelayFrame = 2, KindDelay = 3, KindNative = 4, KindFree = 255;

        struct Slot
        {
            public Action cont;
            public TokenEntry tokenEntry;
            public CancellationToken ct;
            public ulong value;   // native task handle until consumed, then its value
            public ulong frame;   // frame when created
            public uint version;
            public int error;     // native error code
            public uint status;   // OnityStatus of a rejected record
            public byte state;    // OnityTaskStatus
            public byte kind;
            public byte timing;
        }

        sealed class TokenEntry
        {
            public OnityRuntime runtime;
            public ulong source;
            public CancellationToken ct;
            public CancellationTokenRegistration registration;
            public int refs;
            public bool idle;
            public bool listed; // in idleTokens (once: an entry reused and released again is not re-added)
            public bool destroyed;
            public ulong idleFrame;
        }

        static OnityRuntime current;
        [ThreadStatic] static OnityRuntime ownedHere; // the runtime this thread owns (cheaper than Thread.CurrentThread)
        // Runtimes not disposed, in creation order (lock it). All share one owner thread: the static
        // helpers and off-thread completions route to Current, so a runtime on a second thread
        // would receive the first thread's continuations.
        static readonly List<OnityRuntime> live = new List<OnityRuntime>();

        internal IntPtr rt;     // internal: tests/csharp/Proto
        internal OnityBatch* batch;
        readonly Thread owner;
        bool inTick;
        internal bool disposed;
        ulong frame;

        Slot[] slots;
        int[] freeList;
        int freeCount;
        int liveSlots;

        // The fast lane: frame waits awaited directly (OnityFrameWait), by 8-byte record id.
        struct FastWait
        {
            public Action cont;
            public ulong record;  // as written to the fast lane (timing, delay)
            public ulong frame;   // frame when awaited (diagnostics)
        }

        FastWait[] fast = new FastWait[1024];
        int[] fastFree = new int[1024];
        int fastFreeCount;
        // Frames counted from the first one (1; 0 before it): frame waits made before the first
        // frame count from the frame before it, whatever the host's first frame number (the
        // native side rebases its waits the same way). Only differences of it cross to native.
        internal ulong fcount;
        ulong fbase;
        // [t]: runs of timing t (batch ticks); [16 + t]: fcount at t's last run. After Dispose
        // every entry is ulong.MaxValue, so every frame wait reads as done (and GetResult throws).
        internal readonly ulong[] runs = new ulong[32];

        readonly object postGate = new object();
        List<Action> posted = new List<Action>();
        List<Action> postedRunning = new List<Action>();
        int postedCount;

        readonly Dictionary<CancellationToken, TokenEntry> tokens = new Dictionary<CancellationToken, TokenEntry>(TokenComparer.Instance);

        /// <summary>Mono's CancellationToken is not IEquatable: the default comparer would box it on
        /// every lookup (24 bytes per wait with a token).</summary>
        sealed class TokenComparer : IEqualityComparer<CancellationToken>
        {
            internal static readonly TokenComparer Instance = new TokenComparer();
            public bool Equals(CancellationToken x, CancellationToken y) { return x.Equals(y); }
            public int GetHashCode(CancellationToken t) { return t.GetHashCode(); }
        }
        readonly List<TokenEntry> idleTokens = new List<TokenEntry>();
        static readonly Action<object> cancelNative = CancelNative;

        /// <summary>True on a thread that owns a (not disposed) runtime.</summary>
        internal static bool OnAnOwnerThread { get { return ownedHere != null; } }

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
        {
            uint abi = OnityNativeCalls.onity_abi_version();
            if (abi >> 16 != OnityNative.ONITY_ABI_VERSION >> 16 || (abi & 0xFFFF) < (OnityNative.ONITY_ABI_VERSION & 0xFFFF))
                throw new InvalidOperationException("libonity ABI " + (abi >> 16) + "." + (abi & 0xFFFF) + " does not match the binding's " + (OnityNative.ONITY_ABI_VERSION >> 16) + "." + (OnityNative.ONITY_ABI_VERSION & 0xFFFF));
            config.size = (uint)sizeof(OnityRuntimeConfig);
            lock (live) ThrowIfOtherOwnerLive();
            IntPtr p;
            Check(OnityNativeCalls.onity_runtime_create(&config, &p), "onity_runtime_create");
            rt = p;
            OnityBatch* b;
            var st = OnityNativeCalls.onity_batch_create(rt, (uint)submitCapacity, &b);
            if (st != OnityStatus.Ok)
            {
                OnityNativeCalls.onity_runtime_destroy(rt);
                throw new OnityException(st, "onity_batch_create");
            }
            batch = b;
            owner = Thread.CurrentThread;
            slots = new Slot[1024];
            freeList = new int[1024];
            for (int i = slots.Length - 1; i >= 0; i--)
            {
                slots[i].version = 1;
                slots[i].kind = KindFree;
                freeList[freeCount++] = i;
            }
            for (int i = fast.Length - 1; i >= 0; i--) fastFree[fastFreeCount++] = i;
            lock (live)
            {
                try { ThrowIfOtherOwnerLive(); } // again: another thread may have created one meanwhile
                catch
                {
                    OnityNativeCalls.onity_runtime_destroy(rt);
                    rt = IntPtr.Zero;
                    batch = null;
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

        public static string StatusText(OnityStatus s)
        {
            return System.Runtime.InteropServices.Marshal.PtrToStringAnsi(OnityNativeCalls.onity_status_text((uint)s));
        }

        static string[] poolNames;

        /// <summary>The native name of a pool (<c>onity_pool_name</c>: "Tasks", "WaitRecords", ...),
        /// read once and cached; "invalid" for values out of range.</summary>
        public static string PoolName(OnityPool pool)
        {
            var names = poolNames;
            if (names == null)
            {
                names = new string[OnityNative.ONITY_POOL_COUNT];
                for (int i = 0; i < names.Length; i++)
                    names[i] = System.Runtime.InteropServices.Marshal.PtrToStringAnsi(OnityNativeCalls.onity_pool_name((uint)i));
                poolNames = names;
            }
            return (uint)pool < (uint)names.Length ? names[(int)pool] : "invalid";
        }

        /// <summary>Waits not yet consumed, managed side (wait slots in use plus fast-lane waits), in
        /// O(1): what <see cref="GetManagedStats"/> adds up by scanning, for a per-frame display.
        /// Owner thread.</summary>
        public int PendingWaitCount { get { return liveSlots + (fast.Length - fastFreeCount); } }

        static void Check(OnityStatus s, string what)
        {
            if (s != OnityStatus.Ok) throw new OnityException(s, what);
        }

        internal void CheckOwner(string what)
        {
            if (ownedHere != this && Thread.CurrentThread != owner) ThrowWrongThread(what);
            if (disposed) throw new ObjectDisposedException("OnityRuntime");
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

        static void ThrowNoRuntime()
        {
            // A continuation that Dispose runs (a canceled wait's, or one posted from another thread)
            // and starts a new wait: the runtime is going away, as for the waits it cancels.
            if (Volatile.Read(ref disposingNow) != null) throw new OperationCanceledException("Onity: the runtime is being disposed; no new wait can start.");
            // After the current runtime was disposed (e.g. Unity leaving Play Mode before OnDisable/
            // OnDestroy run): a wait started now is canceled, as the ones Dispose canceled.
            if (lastDisposed) throw new OperationCanceledException("Onity: the runtime was disposed; no new wait can start.");
            throw new InvalidOperationException("Onity: no OnityRuntime. Create one ('new OnityRuntime()') on the main thread and drive it with BeginFrame/Tick.");
        }

        // ---- the frame driver ------------------------------------------------------------

        /// <summary>Begins a frame: frame number (strictly increasing), scaled and unscaled delta
        /// times and the absolute realtime clock, in seconds. Owner thread.</summary>
        public void BeginFrame(ulong frameNumber, double deltaTime, double unscaledDeltaTime, double realtime)
        {
            CheckOwner("BeginFrame");
            if (inTick) throw new InvalidOperationException("Onity: BeginFrame called from a continuation during a tick.");
            OnityFrameInfo info;
            info.size = (uint)sizeof(OnityFrameInfo);
            info.reserved = 0;
            info.frame = frameNumber;
            info.delta_time = deltaTime;
            info.unscaled_delta_time = unscaledDeltaTime;
            info.realtime = realtime;
            Check(OnityNativeCalls.onity_runtime_frame_begin(rt, &info), "BeginFrame");
            frame = frameNumber;
            if (fcount == 0) fbase = frameNumber;
            fcount = frameNumber + 1 - fbase;
            if (idleTokens.Count != 0) SweepTokens();
            inTick = true;
            try
            {
                RunPosted();
                ProcessResumed();
            }
            finally { inTick = false; }
        }

        /// <summary>Runs one timing: continuations posted from other threads, then one
        /// <c>onity_batch_tick</c> (files this frame's new waits, runs the timing's queue), then the
        /// continuations of every wait reported due, in the order the waits were scheduled.
        /// Owner thread; not re-entrant.</summary>
        public void Tick(OnityTiming timing)
        {
            CheckOwner("Tick");
            if (inTick) throw new InvalidOperationException("Onity: Tick called re-entrantly (from a continuation running inside a tick).");
            inTick = true;
            try
            {
                RunPosted();
                Check(OnityNativeCalls.onity_batch_tick(rt, batch, (uint)timing), "Tick");
                int t = (int)timing & 15;
                var rc = runs;
                rc[t]++;
                rc[16 + t] = fcount;
                if (batch->fast_resumed_count != 0) ProcessFast();
                ProcessResumed();
            }
            finally { inTick = false; }
        }

        /// <summary>Runs continuations completed from other threads (managed and native) without
        /// running a timing. Owner thread.</summary>
        public void Drain()
        {
            CheckOwner("Drain");
            if (inTick) throw new InvalidOperationException("Onity: Drain called re-entrantly.");
            inTick = true;
            try
            {
                RunPosted();
                Check(OnityNativeCalls.onity_batch_drain(rt, batch), "Drain");
                ProcessResumed();
            }
            finally { inTick = false; }
        }

        void ProcessResumed()
        {
            OnityBatch* b = batch;
            // `resumed` may move while continuations run (a continuation's native call can append
            // to it), so it is re-read for every entry.
            for (uint i = b->resumed_consumed; i < b->resumed_count; i = b->resumed_consumed)
            {
                OnityResume r = b->resumed[i];
                b->resumed_consumed = i + 1;
                Resume(r.id, r.state, r.status);
            }
        }

        /// <summary>Resumes the fast-lane waits the last batch tick reported due, in its order.</summary>
        void ProcessFast()
        {
            OnityBatch* b = batch;
            uint n = b->fast_resumed_count;
            uint* ids = b->fast_resumed; // stable until the next batch tick/drain (refused while ticking)
            uint i = 0;
            while (i < n)
            {
                // The loop lives in a method without exception handling: Mono keeps the locals of
                // a try block in memory.
                try { ResumeFast(ids, n, ref i); }
                catch (Exception ex) { OnityTask.PublishUnobserved(ex); }
            }
        }

        void ResumeFast(uint* ids, uint n, ref uint next)
        {
            for (uint i = next; i < n; )
            {
                uint id = ids[i++];
                var arr = fast; // re-read: a continuation may grow it
                if (id >= (uint)arr.Length) continue;
                ref FastWait w = ref arr[id];
                var c = w.cont;
                if (c == null) continue;
                w.cont = null;
                fastFree[fastFreeCount++] = (int)id;
                next = i;
                c();
            }
            next = n;
        }

        void Resume(ulong id, uint state, uint status)
        {
            uint idx = (uint)id;
            var arr = slots;
            if (idx >= (uint)arr.Length) return;
            ref Slot s = ref arr[idx];
            if (s.version != (uint)(id >> 32) || s.kind == KindFree || s.state != 0) return;
            if (s.tokenEntry != null)
            {
                ReleaseToken(s.tokenEntry);
                s.tokenEntry = null;
            }
            if (s.kind == KindNative && status == 0)
            {
                OnityOutcome o;
                var cs = OnityNativeCalls.onity_task_consume(rt, s.value, &o);
                if (cs == OnityStatus.Ok)
                {
                    s.value = o.value;
                    s.error = o.error;
                    state = o.state;
                }
                else
                {
                    status = (uint)cs;
                    state = 2;
                }
            }
            s.status = status;
            s.state = (byte)(state == 0 ? 2 : state);
            var c = s.cont;
            if (c != null)
            {
                s.cont = null;
                try { c(); }
                catch (Exception ex) { OnityTask.PublishUnobserved(ex); }
            }
        }

        // ---- cross-thread continuations -------------------------------------------------

        /// <summary>Runs <paramref name="continuation"/> on the current runtime's owner thread: now if
        /// this is it, else at the owner's next BeginFrame/Tick/Drain. With no live runtime: see
        /// <see cref="NoRuntimeContext"/>.</summary>
        [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
        internal static void Dispatch(Action continuation)
        {
            var r = current;
            if (r != null && ownedHere == r) continuation();
            else if (r == null || r.disposed) RunWithoutRuntime(continuation);
            else r.Post(continuation);
        }

        static SynchronizationContext noRuntimeContext;
        static readonly SendOrPostCallback runAction = RunAction;
        static void RunAction(object continuation) { ((Action)continuation)(); }

        /// <summary>Where a continuation goes when it must reach the owner thread but no runtime is
        /// alive (a completion source completed on a worker after the runtime was disposed, or a
        /// <c>SwitchToMainThread</c> then): posted to this context, or run on the calling thread
        /// when it is null (the default) or is the calling thread's current context.
        /// <c>OnityPlayerLoop</c> sets it to Unity's main-thread context, so such continuations
        /// still run on Unity's main thread (in Edit Mode, after Play Mode ended).</summary>
        public static SynchronizationContext NoRuntimeContext
        {
            get { return Volatile.Read(ref noRuntimeContext); }
            set { Volatile.Write(ref noRuntimeContext, value); }
        }

        internal static void RunWithoutRuntime(Action continuation)
        {
            var sc = Volatile.Read(ref noRuntimeContext);
            if (sc == null || SynchronizationContext.Current == sc) continuation();
            else sc.Post(runAction, continuation);
        }

        /// <summary>Queues <paramref name="continuation"/> for the owner's next BeginFrame, Tick or Drain
        /// (each runs the queued continuations first). Any thread.</summary>
        public void Post(Action continuation)
        {
            lock (postGate)
            {
                if (!postClosed)
                {
                    posted.Add(continuation);
                    Volatile.Write(ref postedCount, posted.Count);
                    return;
                }
            }
            // Disposed, and its last posted continuations already ran: run it now (it observes
            // the disposal, e.g. SwitchToMainThread completes canceled) rather than leaving it in
            // a list nobody reads; through NoRuntimeContext when one is set.
            RunWithoutRuntime(continuation);
        }

        bool postClosed; // under postGate: set once Dispose has taken the last posted list

        void RunPosted()
        {
            if (Volatile.Read(ref postedCount) == 0) return;
            List<Action> list;
            lock (postGate)
            {
                list = posted;
                posted = postedRunning;
                postedRunning = list;
                Volatile.Write(ref postedCount, 0);
            }
            for (int i = 0; i < list.Count; i++)
            {
                try { list[i](); }
                catch (Exception ex) { OnityTask.PublishUnobserved(ex); }
            }
            list.Clear();
        }

        // ---- wait slots -------------------------------------------------------------------

        int AllocSlot()
        {
            if (freeCount == 0) GrowSlots();
            liveSlots++;
            return freeList[--freeCount];
        }

        void GrowSlots()
        {
            int old = slots.Length;
            int n = old * 2;
            Array.Resize(ref slots, n);
            Array.Resize(ref freeList, n);
            for (int i = n - 1; i >= old; i--)
            {
                slots[i].version = 1;
                slots[i].kind = KindFree;
                freeList[freeCount++] = i;
            }
        }

        void ReleaseSlot(int idx)
        {
            ref Slot s = ref slots[idx];
            if (s.tokenEntry != null)
            {
                ReleaseToken(s.tokenEntry);
                s.tokenEntry = null;
            }
            if (s.ct.CanBeCanceled) s.ct = default(CancellationToken);
            s.kind = KindFree;
            s.state = 0;
            unchecked { s.version++; }
            if (s.version == 0) s.version = 1;
            freeList[freeCount++] = idx;
            liveSlots--;
        }

        void WriteRecord(ulong id, ulong token, ulong arg, uint kind, uint timing, uint clock)
        {
            OnityBatch* b = batch;
            uint n = b->submit_count;
            if (n >= b->submit_capacity)
            {
                Check(OnityNativeCalls.onity_batch_flush(rt, b), "onity_batch_flush");
                n = b->submit_count;
            }
            OnityBatchRecord* r = b->submit + n;
            r->id = id;
            r->token = token;
            r->arg = arg;
            *(ulong*)&r->kind = kind | (timing << 8) | (clock << 16);
            b->submit_count = n + 1;
        }

        internal OnityTask Schedule(byte kind, OnityTiming timing, ulong arg, byte clock, CancellationToken ct)
        {
            if (!ct.CanBeCanceled) return Schedule(kind, timing, arg, clock);
            if (ownedHere != this || disposed) CheckOwner("NextFrame/Yield/DelayFrame/Delay");
            if ((uint)timing >= OnityNative.ONITY_TIMING_COUNT) throw new ArgumentOutOfRangeException("timing");
            if (ct.IsCancellationRequested) return OnityTask.FromCanceled(ct);
            TokenEntry te;
            ulong ntok = NativeToken(ct, out te);
            int idx = AllocSlot();
            ref Slot s = ref slots[idx];
            s.kind = kind;
            s.timing = (byte)timing;
            s.state = 0;
            s.frame = frame;
            s.tokenEntry = te;
            s.ct = ct;
            ulong id = ((ulong)s.version << 32) | (uint)idx;
            WriteRecord(id, ntok, arg, kind, (uint)timing, clock);
            return new OnityTask(this, (long)id);
        }

        /// <summary>The hot path: a wait without cancellation token.</summary>
        internal OnityTask Schedule(byte kind, OnityTiming timing, ulong arg, byte clock)
        {
            if (ownedHere != this || disposed) CheckOwner("NextFrame/Yield/DelayFrame/Delay");
            if ((uint)timing >= OnityNative.ONITY_TIMING_COUNT) throw new ArgumentOutOfRangeException("timing");
            if (freeCount == 0) GrowSlots();
            liveSlots++;
            int idx = freeList[--freeCount];
            var arr = slots;
            ulong id = ((ulong)arr[idx].version << 32) | (uint)idx;
            arr[idx].kind = kind;
            arr[idx].timing = (byte)timing;
            arr[idx].state = 0;
            arr[idx].frame = frame;
            OnityBatch* b = batch;
            uint n = b->submit_count;
            if (n >= b->submit_capacity)
            {
                Check(OnityNativeCalls.onity_batch_flush(rt, b), "onity_batch_flush");
                n = b->submit_count;
            }
            OnityBatchRecord* r = b->submit + n;
            r->id = id;
            r->token = 0;
            r->arg = arg;
            *(ulong*)&r->kind = kind | ((uint)timing << 8) | ((uint)clock << 16);
            b->submit_count = n + 1;
            return new OnityTask(this, (long)id);
        }

        // ---- frame waits awaited directly (OnityFrameWait): the fast lane ----------------------

        /// <summary>A frame wait measured from now. Owner thread (checked again when awaited).</summary>
        [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
        internal OnityFrameWait FrameWait(int delay, OnityTiming timing)
        {
            if (ownedHere != this) CheckOwner("NextFrame/Yield/DelayFrame");
            if ((uint)timing >= 16) ThrowTiming();
            return new OnityFrameWait(this, delay == 0 ? runs[(int)timing] : fcount, (uint)timing | ((uint)delay << 4));
        }

        internal static void ThrowTiming(string paramName = "timing")
        {
            throw new ArgumentOutOfRangeException(paramName, "Onity: timing must be an OnityTiming value (0-15).");
        }

        /// <summary>IsCompleted of a frame wait: true once a run of its timing satisfies it, or when
        /// the runtime is disposed (every counter is then at its maximum; GetResult throws canceled).</summary>
        [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
        internal bool FrameWaitDone(ulong mark, uint info)
        {
            var rc = runs;
            uint d = info >> 4;
            if (d == 0) return rc[info & 15] != mark;
            return rc[16 + (info & 15)] >= mark + d;
        }

        /// <summary>Files a frame wait in the fast lane: the continuation by id, an 8-byte record
        /// (id, timing, frames still to wait) in the batch's native buffer. No call.</summary>
        [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
        internal void EnqueueFrameWait(Action continuation, ulong mark, uint info)
        {
            if (ownedHere != this || disposed) CheckOwner("awaiting a frame wait");
            if (fastFreeCount == 0) GrowFast();
            int id = fastFree[--fastFreeCount];
            ulong rec = (uint)id | ((ulong)(info & 15) << 32) | ((ulong)FramesLeft(mark, info) << 36);
            ref FastWait w = ref fast[id];
            w.cont = continuation;
            w.record = rec;
            w.frame = frame;
            OnityBatch* b = batch;
            uint n = b->fast_count;
            if (n >= b->fast_capacity)
            {
                Check(OnityNativeCalls.onity_batch_flush(rt, b), "onity_batch_flush");
                n = b->fast_count;
            }
            b->fast_submit[n] = rec;
            b->fast_count = n + 1;
        }

        /// <summary>Frames a frame wait still has to wait, counted from now: 0 for a Yield or a
        /// NextFrame/DelayFrame whose frame has come (it is then due at the next run of its timing).</summary>
        [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
        uint FramesLeft(ulong mark, uint info)
        {
            uint delay = info >> 4;
            if (delay == 0) return 0;
            long rem = (long)(mark + delay - fcount);
            return rem > 0 ? (uint)rem : 0;
        }

        void GrowFast()
        {
            int old = fast.Length;
            int n = old * 2;
            Array.Resize(ref fast, n);
            Array.Resize(ref fastFree, n);
            for (int i = n - 1; i >= old; i--) fastFree[fastFreeCount++] = i;
        }

        /// <summary>The frame wait as a slot-based task (what converting an OnityFrameWait gives).</summary>
        internal OnityTask FrameWaitTask(ulong mark, uint info)
        {
            if (disposed) return OnityTask.FromCanceled();
            if (FrameWaitDone(mark, info)) return OnityTask.CompletedTask;
            var timing = (OnityTiming)(info & 15);
            uint left = FramesLeft(mark, info);
            if (left == 0) return Schedule(0, timing, 0, 0);
            if (left == 1 && (info >> 4) == 1) return Schedule(1, timing, 0, 0);
            return Schedule(2, timing, left, 0);
        }

        /// <summary>Creates a native task that native code completes, and awaits it through the
        /// batch (an <c>ONITY_BATCH_TASK</c> record): owner thread; one crossing to create, one to
        /// consume when it completes.</summary>
        public OnityNativeCompletionSource CreateNativeCompletionSource()
        {
            CheckOwner("CreateNativeCompletionSource");
            ulong h;
            Check(OnityNativeCalls.onity_task_create(rt, &h), "onity_task_create");
            int idx = AllocSlot();
            ref Slot s = ref slots[idx];
            s.kind = KindNative;
            s.timing = 0;
            s.state = 0;
            s.frame = frame;
            s.value = h;
            ulong id = ((ulong)s.version << 32) | (uint)idx;
            WriteRecord(id, 0, h, OnityNative.ONITY_BATCH_TASK, 0, 0);
            return new OnityNativeCompletionSource(h, new OnityTask<ulong>(this, (long)id));
        }

        // The any-thread calls below and Dispose exclude each other: a caller counts itself in, then
        // checks `closing`; Dispose sets `closing`, then waits for the count to drain before it
        // destroys the native runtime (both sides use full fences, so one of them sees the other).
        int nativeCallers;
        int closing;

        /// <summary>Completes a native task with a value through the C ABI. Any thread;
        /// <see cref="OnityStatus.InvalidRuntime"/> once the runtime is disposed (or disposing).</summary>
        public OnityStatus NativeSetResult(ulong handle, ulong value)
        {
            Interlocked.Increment(ref nativeCallers);
            try { return Volatile.Read(ref closing) != 0 ? OnityStatus.InvalidRuntime : OnityNativeCalls.onity_task_set_result(rt, handle, value); }
            finally { Interlocked.Decrement(ref nativeCallers); }
        }

        /// <summary>Completes a native task with an error code. Any thread (as <see cref="NativeSetResult"/>).</summary>
        public OnityStatus NativeSetError(ulong handle, int error)
        {
            Interlocked.Increment(ref nativeCallers);
            try { return Volatile.Read(ref closing) != 0 ? OnityStatus.InvalidRuntime : OnityNativeCalls.onity_task_set_error(rt, handle, error); }
            finally { Interlocked.Decrement(ref nativeCallers); }
        }

        /// <summary>Cancels a native manual task. Any thread (as <see cref="NativeSetResult"/>).</summary>
        public OnityStatus NativeCancel(ulong handle)
        {
            Interlocked.Increment(ref nativeCallers);
            try { return Volatile.Read(ref closing) != 0 ? OnityStatus.InvalidRuntime : OnityNativeCalls.onity_task_cancel(rt, handle); }
            finally { Interlocked.Decrement(ref nativeCallers); }
        }

        // ---- IOnityTaskSource over the slots ----------------------------------------------

        ref Slot SlotFor(long token)
        {
            uint idx = (uint)token;
            var arr = slots;
            if (idx >= (uint)arr.Length) throw OnityErrors.Stale();
            ref Slot s = ref arr[idx];
            if (s.version != (uint)((ulong)token >> 32) || s.kind == KindFree) throw OnityErrors.Stale();
            return ref s;
        }

        public OnityTaskStatus GetStatus(long token)
        {
            return (OnityTaskStatus)SlotFor(token).state;
        }

        public void OnCompleted(Action continuation, long token)
        {
            if (ownedHere != this) CheckOwner("awaiting a frame wait");
            ref Slot s = ref SlotFor(token);
            if (s.state != 0)
            {
                continuation();
                return;
            }
            if (s.cont != null) throw OnityErrors.Twice();
            s.cont = continuation;
        }

        /// <summary>True when <paramref name="token"/> is a live, completed wait; false when pending
        /// or stale (the await then goes to OnCompleted, which reports a stale token).</summary>
        [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
        internal bool IsCompletedFast(long token)
        {
            uint idx = (uint)token;
            var arr = slots;
            return idx < (uint)arr.Length && arr[idx].state != 0 && arr[idx].version == (uint)((ulong)token >> 32);
        }

        void IOnityTaskSource.GetResult(long token) { GetResult(token); }

        public ulong GetResult(long token)
        {
            // Consuming frees the slot: owner thread only, even when the task is complete (the slot
            // table is not thread-safe). Not CheckOwner: continuations that Dispose runs must still
            // reach their OperationCanceledException.
            if (ownedHere != this && Thread.CurrentThread != owner) ThrowWrongThread("consuming a wait or native task (await, GetResult)");
            ref Slot s = ref SlotFor(token);
            byte st = s.state;
            if (st == (byte)OnityTaskStatus.Succeeded)
            {
                ulong v = s.kind == KindNative ? s.value : 0;
                ReleaseSlot((int)(uint)token);
                return v;
            }
            if (st == 0) throw OnityErrors.Pending();
            return Throw(ref s, (int)(uint)token);
        }

        ulong Throw(ref Slot s, int idx)
        {
            var ct = s.ct;
            uint status = s.status;
            int error = s.error;
            byte st = s.state;
            byte kind = s.kind;
            ReleaseSlot(idx);
            if (st == (byte)OnityTaskStatus.Canceled) throw new OperationCanceledException(ct);
            if (status != 0) throw new OnityException((OnityStatus)status, kind == KindNative ? "native task" : "frame wait rejected");
            throw new OnityException(error);
        }

        // ---- cancellation tokens ------------------------------------------------------------

        ulong NativeToken(CancellationToken ct, out TokenEntry e)
        {
            if (!tokens.TryGetValue(ct, out e))
            {
                ulong src;
                Check(OnityNativeCalls.onity_cancel_source_create(rt, &src), "onity_cancel_source_create");
                e = new TokenEntry { runtime = this, source = src, ct = ct };
                try { e.registration = ct.Register(cancelNative, e); }
                catch
                {
                    // Register may throw (ObjectDisposedException for a disposed source on .NET
                    // Framework; Mono 6.8 does not): keep nothing, so the same token fails the
                    // same way next time instead of leaving an entry nobody sweeps.
                    OnityNativeCalls.onity_cancel_source_destroy(rt, src);
                    e = null;
                    throw;
                }
                tokens.Add(ct, e);
            }
            e.refs++;
            e.idle = false;
            return e.source;
        }

        static void CancelNative(object o)
        {
            var e = (TokenEntry)o;
            lock (e)
            {
                if (!e.destroyed) OnityNativeCalls.onity_cancel_source_cancel(e.runtime.rt, e.source);
            }
        }

        void ReleaseToken(TokenEntry e)
        {
            if (--e.refs == 0 && !e.idle)
            {
                e.idle = true;
                e.idleFrame = frame;
                if (!e.listed)
                {
                    e.listed = true;
                    idleTokens.Add(e);
                }
            }
        }

        /// <summary>Entries in the idle-token list (tests: it holds each entry once).</summary>
        internal int IdleTokenListCount { get { return idleTokens.Count; } }

        void SweepTokens()
        {
            for (int i = idleTokens.Count - 1; i >= 0; i--)
            {
                var e = idleTokens[i];
                if (!e.idle || e.refs != 0)
                {
                    e.idle = false;
                    e.listed = false;
                    idleTokens.RemoveAt(i);
                    continue;
                }
                if (frame < e.idleFrame + 2) continue; // keep it warm for loops awaiting with the same token
                e.listed = false;
                idleTokens.RemoveAt(i);
                DestroyToken(e);
                tokens.Remove(e.ct);
            }
        }

        void DestroyToken(TokenEntry e)
        {
            lock (e) { e.destroyed = true; }
            e.registration.Dispose();
            if (!disposed) OnityNativeCalls.onity_cancel_source_destroy(rt, e.source);
        }

        // ---- diagnostics -------------------------------------------------------------------

        /// <summary>The native runtime's pool and wait statistics (<c>onity_runtime_stats</c>).</summary>
        public OnityStats GetNativeStats()
        {
            CheckOwner("GetNativeStats");
            OnityStats s = default(OnityStats);
            s.size = (uint)sizeof(OnityStats);
            Check(OnityNativeCalls.onity_runtime_stats(rt, &s), "onity_runtime_stats");
            return s;
        }

        public OnityManagedStats GetManagedStats()
        {
            var m = new OnityManagedStats();
            m.WaitSlotCapacity = slots.Length;
            for (int i = 0; i < slots.Length; i++)
            {
                if (slots[i].kind == KindFree) continue;
                if (slots[i].state == 0) m.PendingWaits++;
                else m.CompletedUnconsumedWaits++;
            }
            int fastLive = fast.Length - fastFreeCount;
            m.PendingWaits += fastLive;
            m.FastLaneWaits = fastLive;
            m.CancellationTokensMapped = tokens.Count;
            m.PostedContinuations = Volatile.Read(ref postedCount);
            m.RunnersLive = CompilerServices.OnityRunnerStats.Live;
            m.RunnersCreated = CompilerServices.OnityRunnerStats.Created;
            m.Crossings = OnityNativeCalls.Crossings;
            return m;
        }

        /// <summary>Appends every pending (or completed but never awaited) frame wait and native
        /// task to <paramref name="into"/>: the managed live-task list. Returns the count.</summary>
        public int GetPendingWaits(List<OnityPendingWait> into)
        {
            CheckOwner("GetPendingWaits");
            int n = 0;
            for (int i = 0; i < slots.Length; i++)
            {
                ref Slot s = ref slots[i];
                if (s.kind == KindFree) continue;
                var w = new OnityPendingWait();
                w.Kind = s.kind == KindNative ? "NativeTask" : s.kind == KindYield ? "Yield" : s.kind == KindNextFrame ? "NextFrame" : s.kind == KindDelayFrame ? "DelayFrame" : "Delay";
                w.Timing = (OnityTiming)s.timing;
                w.CreatedFrame = s.frame;
                w.Awaited = s.cont != null;
                w.Awaiter = s.cont != null && s.cont.Target != null ? s.cont.Target.GetType().FullName : null;
                w.Token = (long)(((ulong)s.version << 32) | (uint)i);
                into.Add(w);
                n++;
            }
            for (int i = 0; i < fast.Length; i++)
            {
                ref FastWait f = ref fast[i];
                if (f.cont == null) continue;
                ulong d = f.record >> 36;
                var w = new OnityPendingWait();
                w.Kind = d == 0 ? "Yield" : d == 1 ? "NextFrame" : "DelayFrame";
                w.Timing = (OnityTiming)((f.record >> 32) & 15);
                w.CreatedFrame = f.frame;
                w.Awaited = true;
                w.Awaiter = f.cont.Target != null ? f.cont.Target.GetType().FullName : null;
                w.Token = -1 - i;
                into.Add(w);
                n++;
            }
            return n;
        }

        /// <summary>Appends the handles of the native runtime's live (created, not consumed) tasks
        /// (<c>onity_runtime_live_tasks</c>). Returns the count.</summary>
        public int GetNativeLiveTasks(List<ulong> into)
        {
            CheckOwner("GetNativeLiveTasks");
            uint count;
            Check(OnityNativeCalls.onity_runtime_live_tasks(rt, null, 0, &count), "onity_runtime_live_tasks");
            if (count == 0) return 0;
            var buf = new ulong[count];
            fixed (ulong* p = buf)
            {
                Check(OnityNativeCalls.onity_runtime_live_tasks(rt, p, count, &count), "onity_runtime_live_tasks");
            }
            int n = (int)Math.Min(count, (uint)buf.Length);
            for (int i = 0; i < n; i++) into.Add(buf[i]);
            return n;
        }

        // ---- lifetime ----------------------------------------------------------------------

        /// <summary>Destroys the native runtime (owner thread, not during a tick). Every pending
        /// wait completes canceled and its continuation runs.</summary>
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
            foreach (var e in tokens.Values) DestroyToken(e);
            tokens.Clear();
            idleTokens.Clear();
            // No NativeSet*/NativeCancel from another thread may still be inside the native runtime.
            Interlocked.Exchange(ref closing, 1);
            var wait = new SpinWait();
            while (Volatile.Read(ref nativeCallers) != 0) wait.SpinOnce();
            Check(OnityNativeCalls.onity_runtime_destroy(rt), "onity_runtime_destroy");
            rt = IntPtr.Zero;
            batch = null;
            var conts = new List<Action>();
            for (int i = 0; i < slots.Length; i++)
            {
                ref Slot s = ref slots[i];
                if (s.kind == KindFree || s.state != 0) continue;
                s.tokenEntry = null;
                s.state = (byte)OnityTaskStatus.Canceled;
                if (s.cont != null)
                {
                    conts.Add(s.cont);
                    s.cont = null;
                }
            }
            for (int i = 0; i < fast.Length; i++)
            {
                if (fast[i].cont == null) continue;
                conts.Add(fast[i].cont);
                fast[i].cont = null;
                fastFree[fastFreeCount++] = i;
            }
            for (int i = 0; i < runs.Length; i++) runs[i] = ulong.MaxValue;
            Volatile.Write(ref disposingNow, this);
            try
            {
                foreach (var c in conts)
                {
                    try { c(); }
                    catch (Exception ex) { OnityTask.PublishUnobserved(ex); }
                }
                RunPostedAfterDispose();
            }
            finally { Volatile.Write(ref disposingNow, null); }
        }

        void RunPostedAfterDispose()
        {
            List<Action> list;
            lock (postGate)
            {
                list = posted;
                posted = new List<Action>();
                Volatile.Write(ref postedCount, 0);
                postClosed = true;
            }
            foreach (var c in list)
            {
                try { c(); }
                catch (Exception ex) { OnityTask.PublishUnobserved(ex); }
            }
        }
    }
}
