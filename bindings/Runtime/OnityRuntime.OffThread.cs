using System;
using System.Threading;

namespace Onity
{
    // Frame waits created or awaited off the owner thread (UniTask's everyday way back to the main
    // thread: `await UniTask.Yield()` on a worker). The owner-thread paths are unchanged: each
    // check here sits behind the owner test those paths already made (which used to throw).
    //
    // * A token-less NextFrame/Yield/DelayFrame made on a worker is an OnityFrameWait whose mark is
    //   OffOwnerMark: never complete (until the runtime is disposed), so its await always
    //   suspends. The await posts a filer to the owner's continuation queue; the owner files the
    //   wait at its next BeginFrame/Tick/Drain, counting from there (a Yield(t) filed at Tick(t)
    //   resumes in that run; a NextFrame at the first run of its timing in a later frame).
    // * A frame wait made on the owner and awaited on a worker keeps its mark: it completes at
    //   once if its frame has come (as a completed task would), else it is filed the same way.
    // * Waits that take a slot (a token, Delay, a converted frame wait) made on a worker are an
    //   OffOwnerWait: a pooled source that schedules the real wait on the owner at its next
    //   BeginFrame/Tick/Drain and completes with its outcome there.
    // Either way the continuation runs on the owner thread, inside its player loop.
    public sealed partial class OnityRuntime
    {
        /// <summary>The mark of a frame wait created off the owner thread: 3 &lt;&lt; 62, above every
        /// real mark (frame and run counters stay far below 2^62). With it
        /// <see cref="FrameWaitDone"/> is false until Dispose saturates the counters (mark + delay
        /// does not overflow), and in <see cref="FramesLeft"/> mark + delay - fcount is at least
        /// 2^63, negative as a long, so the whole delay is counted from the moment it is filed.</summary>
        internal const ulong OffOwnerMark = 3UL << 62;

        /// <summary>True when the caller is on another thread than the owner (and the runtime is
        /// alive): the off-thread path applies. On the owner thread (a runtime older than the
        /// thread's newest) false; disposed: throws as CheckOwner does.</summary>
        bool OffOwner(string what)
        {
            if (!disposed && !IsOwnerThread) return true;
            CheckOwner(what);
            return false;
        }

        /// <summary>A token-less frame wait made on another thread: counted from its filing.</summary>
        OnityFrameWait OffOwnerFrameWait(int delay, OnityTiming timing)
        {
            if ((uint)timing >= Native.OnityNative.ONITY_TIMING_COUNT) ThrowTiming();
            return new OnityFrameWait(this, OffOwnerMark, (uint)timing | ((uint)delay << 4));
        }

        /// <summary>The await of a frame wait off the owner thread: true when posted to the owner.</summary>
        bool PostFrameWait(Action continuation, ulong mark, uint info)
        {
            if (!OffOwner("awaiting a frame wait")) return false;
            OffOwnerFiler.Post(this, continuation, mark, info);
            return true;
        }

        /// <summary>Runs on the owner (from its continuation queue): files the wait, or runs the
        /// continuation at once when the wait is due already or the runtime is gone.</summary>
        void FileFrameWait(Action continuation, ulong mark, uint info)
        {
            if (disposed || !IsOwnerThread)
            {
                continuation(); // disposed (its GetResult throws canceled)
                return;
            }
            if (mark == OffOwnerMark) mark = MarkNow(info);
            if (FrameWaitDone(mark, info)) continuation();
            else EnqueueFrameWait(continuation, mark, info);
        }

        /// <summary>A frame wait awaited off the owner thread, on its way to the owner (pooled).</summary>
        sealed class OffOwnerFiler
        {
            static readonly OnityObjectPool<OffOwnerFiler> pool = new OnityObjectPool<OffOwnerFiler>(256);
            OnityRuntime runtime;
            Action continuation;
            ulong mark;
            uint info;
            readonly Action run;

            OffOwnerFiler() { run = Run; }

            internal static void Post(OnityRuntime r, Action continuation, ulong mark, uint info)
            {
                var f = pool.TryRent() ?? new OffOwnerFiler();
                f.runtime = r;
                f.continuation = continuation;
                f.mark = mark;
                f.info = info;
                r.Post(f.run);
            }

            void Run()
            {
                var r = runtime;
                var c = continuation;
                ulong m = mark;
                uint i = info;
                runtime = null;
                continuation = null;
                // Rented on workers, returned here: the shared stack (not the owner's lane), so the
                // workers find it again.
                pool.ReturnShared(this);
                r.FileFrameWait(c, m, i);
            }
        }
    }

    /// <summary>A wait with a slot (a token, <c>Delay</c>, a converted frame wait) created off the
    /// owner thread: scheduled on the owner at its next BeginFrame/Tick/Drain, completed there with
    /// the wait's outcome (pooled). Its continuation always runs on the owner thread, even when
    /// the wait completed before the worker awaited it (a worker descheduled for a frame): off the
    /// owner its status reads Pending, so an await there always suspends, and the continuation is
    /// dispatched to the owner.</summary>
    internal sealed class OffOwnerWait : IOnityTaskSource
    {
        static readonly OnityObjectPool<OffOwnerWait> pool = new OnityObjectPool<OffOwnerWait>(256);
        OnityCompletionSourceCore<AsyncUnit> core;
        OnityRuntime runtime;
        CancellationToken cancellationToken;
        ulong arg;
        OnityTiming timing;
        byte kind, clock;
        OnityTask inner;
        Action continuation;
        readonly Action start, onInner, onDone;

        OffOwnerWait()
        {
            start = Start;
            onInner = OnInner;
            onDone = OnDone;
        }

        internal static OnityTask Create(OnityRuntime r, byte kind, OnityTiming timing, ulong arg, byte clock, CancellationToken ct)
        {
            if ((uint)timing >= Native.OnityNative.ONITY_TIMING_COUNT) throw new ArgumentOutOfRangeException("timing");
            if (ct.IsCancellationRequested) return OnityTask.FromCanceled(ct);
            var w = pool.TryRent() ?? new OffOwnerWait();
            w.runtime = r;
            w.kind = kind;
            w.timing = timing;
            w.arg = arg;
            w.clock = clock;
            w.cancellationToken = ct;
            var task = new OnityTask(w, w.core.Version);
            r.Post(w.start);
            return task;
        }

        void Start()
        {
            var r = runtime;
            var ct = cancellationToken;
            cancellationToken = default(CancellationToken);
            if (r.disposed || !r.IsOwnerThread)
            {
                core.TrySetException(new OperationCanceledException("Onity: the runtime was disposed before this wait reached its owner thread."));
                return;
            }
            OnityTask t;
            try { t = r.Schedule(kind, timing, arg, clock, ct); }
            catch (Exception ex)
            {
                core.TrySetException(ex);
                return;
            }
            inner = t;
            var aw = t.GetAwaiter();
            if (aw.IsCompleted) OnInner();
            else aw.UnsafeOnCompleted(onInner);
        }

        void OnInner()
        {
            var t = inner;
            inner = default(OnityTask);
            try { t.GetAwaiter().GetResult(); }
            catch (Exception ex)
            {
                core.TrySetException(ex); // an OperationCanceledException cancels
                return;
            }
            core.TrySetResult(default(AsyncUnit));
        }

        public OnityTaskStatus GetStatus(long token)
        {
            var st = core.GetStatus(token); // checks the token
            return runtime.IsOwnerThread ? st : OnityTaskStatus.Pending;
        }

        /// <summary>The continuation goes through <see cref="OnDone"/>, which the core calls inline
        /// when already completed (here, maybe on a worker) or from the completion (on the owner):
        /// either way it is dispatched to the owner.</summary>
        public void OnCompleted(Action continuation, long token)
        {
            if ((uint)token != core.Version) throw OnityErrors.Stale();
            if ((object)Interlocked.CompareExchange(ref this.continuation, continuation, null) != null) throw OnityErrors.Twice();
            core.OnCompleted(onDone, token);
        }

        /// <summary>A continuation is registered (tests wait for it to make their steps exact).</summary>
        internal bool Awaited { get { return (object)Volatile.Read(ref continuation) != null; } }

        void OnDone()
        {
            var c = continuation;
            continuation = null;
            OnityRuntime.Dispatch(c);
        }

        /// <summary>Consumes the outcome and recycles (not a hot path: a plain try/finally).</summary>
        public void GetResult(long token)
        {
            core.ThrowIfNotCompleted(token); // stale or pending: throws, nothing recycled
            try { core.GetResult(token); }
            finally { Recycle(); }
        }

        void Recycle()
        {
            runtime = null;
            continuation = null;
            core.Reset();
            pool.ReturnShared(this); // rented on workers: see OffOwnerFiler.Run
        }
    }
}
