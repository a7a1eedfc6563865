using System;
using System.Runtime.CompilerServices;
using System.Threading;

namespace Onity
{
    /// <summary>What <c>OnityTask.Yield()</c>, <c>NextFrame()</c> and <c>DelayFrame(n)</c> return
    /// when no cancellation token is given: a point in the frame loop to wait for, measured from
    /// the moment it was created (as with an <see cref="OnityTask"/>: a NextFrame created in frame 5
    /// and awaited in frame 7 after Update already ran there is complete). It belongs to the
    /// runtime that was <see cref="OnityRuntime.Current"/> when it was created.
    ///
    /// Awaited directly (<c>await OnityTask.NextFrame()</c>) it costs no wait slot and no call
    /// into the native runtime: the await appends an 8-byte record to the batch's fast lane and
    /// the timing's one <c>onity_batch_tick</c> reports it due. Converted to an
    /// <see cref="OnityTask"/> (implicitly, or with <see cref="ToOnityTask"/>) it becomes an
    /// ordinary wait task, for WhenAll/WhenAny, Status and storing.
    ///
    /// Unlike a task it is a description, not a handle: awaiting the same value again after it
    /// completed completes at once (UniTask throws; checking costs about 9 % of an await, so it is
    /// refused: BENCHMARKS.md). If its runtime is disposed before the wait completes, the
    /// await throws <see cref="OperationCanceledException"/>. Created or awaited on another thread,
    /// it resumes on the owner thread: the await is posted to the owner and filed at its next
    /// BeginFrame/Tick/Drain; one created on another thread counts from that filing (its
    /// <see cref="IsCompleted"/> stays false until then).</summary>
    public readonly struct OnityFrameWait : ICriticalNotifyCompletion
    {
        /// <summary>Largest frame count of <c>DelayFrame</c> (2^28 - 1: about 52 days at 60 fps).</summary>
        public const int MaxDelayFrames = (1 << 28) - 1;

        readonly OnityRuntime runtime;
        readonly ulong mark;   // Yield: the timing's run count at creation; else the frame counter at creation
        // timing (bits 0-3) | delay frames (bits 4-31): 0 = Yield, n = NextFrame (1) / DelayFrame(n).
        // A uint's value in a ulong field: every field is then written with a whole-word store, so
        // the word-by-word copies Mono makes of the struct right after it is built do not stall on
        // store-to-load forwarding (measured: about 9 % of a NextFrame await with a uint field).
        // Bits 32-63: the creation site's id while site capture is on (ONITY_SITES builds,
        // OnityRuntime.Sites.cs), else 0.
        readonly ulong info;

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal OnityFrameWait(OnityRuntime runtime, ulong mark, uint info)
        {
            this.runtime = runtime;
            this.mark = mark;
            this.info = info;
        }

        /// <summary>A Yield to <paramref name="timing"/>, counted from now (UniTask's
        /// <c>new YieldAwaitable(timing)</c>): the same as <c>OnityTask.Yield(timing)</c>.</summary>
        public OnityFrameWait(OnityTiming timing)
        {
            this = OnityRuntime.Require().FrameWait(0, timing);
        }

        OnityFrameWait(OnityRuntime runtime, ulong mark, ulong info)
        {
            this.runtime = runtime;
            this.mark = mark;
            this.info = info;
        }

        /// <summary>This wait, made at creation site <paramref name="site"/>.</summary>
        internal OnityFrameWait WithSite(int site)
        {
            return new OnityFrameWait(runtime, mark, (uint)info | ((ulong)(uint)site << 32));
        }

        internal static int CheckDelay(int delayFrameCount)
        {
            if (delayFrameCount < 0) throw new ArgumentOutOfRangeException("delayFrameCount", "Onity: delay frame count must be >= 0.");
            if (delayFrameCount > MaxDelayFrames) throw new ArgumentOutOfRangeException("delayFrameCount", "Onity: delay frame count must be <= " + MaxDelayFrames + " (use Delay with a TimeSpan for longer waits).");
            return delayFrameCount;
        }

        /// <summary>The timing it resumes on.</summary>
        public OnityTiming Timing { get { return (OnityTiming)(info & 15); } }

        /// <summary>0 for Yield, 1 for NextFrame, n for DelayFrame(n).</summary>
        public int DelayFrames { get { return (int)((uint)info >> 4); } }

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public OnityFrameWait GetAwaiter() { return this; }

        /// <summary>True once a run of the timing satisfying the wait has happened.</summary>
        public bool IsCompleted
        {
            [MethodImpl(MethodImplOptions.AggressiveInlining)]
            get
            {
                var r = runtime;
                return r == null || r.FrameWaitDone(mark, (uint)info); // default(OnityFrameWait): GetResult explains
            }
        }

        /// <summary>Returns, or throws <see cref="OperationCanceledException"/> when the runtime
        /// was disposed.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void GetResult()
        {
            var r = runtime;
            if (r == null || r.disposed) ThrowDisposed(r == null);
        }

        static void ThrowDisposed(bool isDefault)
        {
            if (isDefault) throw new InvalidOperationException("Onity: default(OnityFrameWait) is not a wait; create one with OnityTask.NextFrame(), Yield() or DelayFrame().");
            throw new OperationCanceledException("Onity: the runtime was disposed while this frame wait was pending.");
        }

        public void OnCompleted(Action continuation) { UnsafeOnCompleted(continuation); }

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void UnsafeOnCompleted(Action continuation)
        {
            var r = runtime;
            if (r == null) ThrowDisposed(true);
#if ONITY_SITES
            if (info <= uint.MaxValue) r.EnqueueFrameWait(continuation, mark, (uint)info);
            else r.EnqueueFrameWaitAt(continuation, mark, info); // carries a site
#else
            r.EnqueueFrameWait(continuation, mark, (uint)info);
#endif
        }

        /// <summary>The same wait as an <see cref="OnityTask"/> (a wait slot: status, WhenAll/WhenAny,
        /// await once). Owner thread.</summary>
        public OnityTask ToOnityTask()
        {
            var r = runtime;
            if (r == null) ThrowDisposed(true);
            var t = r.FrameWaitTask(mark, (uint)info);
#if ONITY_SITES
            if (info > uint.MaxValue) r.TagTask(t, (int)(info >> 32), null, 0);
#endif
            return t;
        }

        public static implicit operator OnityTask(OnityFrameWait w) { return w.ToOnityTask(); }

        /// <summary>The wait as a coroutine (see <see cref="OnityTask.ToCoroutine"/>), polled at
        /// each <c>MoveNext</c>: no wait slot, nothing left behind if the coroutine is stopped.</summary>
        public System.Collections.IEnumerator ToCoroutine(Action<Exception> exceptionHandler = null)
        {
            if (runtime == null) ThrowDisposed(true);
            // One made off the owner thread counts from now (a coroutine polls IsCompleted).
            var w = mark == OnityRuntime.OffOwnerMark && runtime.IsOwnerThread ? runtime.FrameWait(DelayFrames, Timing) : this;
            return new OnityCoroutine<AsyncUnit>(w, exceptionHandler);
        }

        internal static OnityTask[] ToTasks(OnityFrameWait[] waits)
        {
            if (waits == null) return null; // the combinator reports the null argument
            for (int i = 0; i < waits.Length; i++)
            {
                // Checked before any conversion: a conversion takes a wait slot.
                if (waits[i].runtime == null) throw new ArgumentException("Onity: default(OnityFrameWait) at index " + i + " is not a wait.", "waits");
            }
            var tasks = new OnityTask[waits.Length];
            for (int i = 0; i < waits.Length; i++) tasks[i] = waits[i].ToOnityTask();
            return tasks;
        }

        /// <summary>As <c>ToOnityTask().Forget()</c>: the wait is scheduled and shows in the
        /// statistics until it completes (code written for tasks keeps its meaning).</summary>
        public void Forget() { ToOnityTask().Forget(); }

        public override string ToString()
        {
            uint delay = (uint)info >> 4;
            return (delay == 0 ? "Yield" : delay == 1 ? "NextFrame" : "DelayFrame(" + delay + ")") + " @" + Timing;
        }
    }
}
