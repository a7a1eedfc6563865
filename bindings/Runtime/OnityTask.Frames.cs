using System;
using System.Runtime.CompilerServices;
using System.Threading;

namespace Onity
{
    public partial struct OnityTask
    {
        // Frame waits: a 32-byte record written into the batch's native submit buffer (no
        // P/Invoke); the runtime's tick reports the wait due by id. Owner thread only.

        // (Not AggressiveInlining: inlined into a large async MoveNext they measured ~15 ns slower
        // per await on Mono, although they execute fewer instructions.)
        // Overloads without a token return an OnityFrameWait: awaited directly, it takes the
        // batch's fast lane (an 8-byte record, no wait slot); converted to OnityTask (implicitly)
        // it becomes an ordinary wait task with the same timing.

        // Creation sites: compiled with the scripting define ONITY_SITES, these waits record their
        // caller's file and line (OnityTask.Sites.cs); without it (the default) they are the code
        // below, which ignores them. Both builds declare the same caller-info parameters, so that
        // switching the define changes no call, method-group conversion or named argument
        // (scripts/check-csharp-api-parity.sh); the default build pays only for passing them.
#if !ONITY_SITES
        /// <summary>Completes at the next run of Update (possibly later in this frame).</summary>
        public static OnityFrameWait Yield([CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0) { return OnityRuntime.Require().FrameWait(0, OnityTiming.Update); }
        /// <summary>Completes at the next run of <paramref name="timing"/> (possibly later in this frame).</summary>
        public static OnityFrameWait Yield(OnityTiming timing, [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0) { return OnityRuntime.Require().FrameWait(0, timing); }
        /// <summary>Completes at the first run of Update in a later frame.</summary>
        public static OnityFrameWait NextFrame([CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0) { return OnityRuntime.Require().FrameWait(1, OnityTiming.Update); }
        /// <summary>Completes at the first run of <paramref name="timing"/> in a later frame.</summary>
        public static OnityFrameWait NextFrame(OnityTiming timing, [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0) { return OnityRuntime.Require().FrameWait(1, timing); }

        /// <summary>Completes at the first run of Update in a frame at least
        /// <paramref name="delayFrameCount"/> frames after the current one (0 behaves as Yield).</summary>
        public static OnityFrameWait DelayFrame(int delayFrameCount, [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            return OnityRuntime.Require().FrameWait(OnityFrameWait.CheckDelay(delayFrameCount), OnityTiming.Update);
        }

        /// <summary>As <see cref="DelayFrame(int)"/> on <paramref name="timing"/>.</summary>
        public static OnityFrameWait DelayFrame(int delayFrameCount, OnityTiming timing, [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            return OnityRuntime.Require().FrameWait(OnityFrameWait.CheckDelay(delayFrameCount), timing);
        }

        /// <summary>Completes at the next run of <paramref name="timing"/> (possibly later in the
        /// same frame). Cancellation completes it canceled at the next run of its timing.</summary>
        public static OnityTask Yield(OnityTiming timing, CancellationToken cancellationToken, [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            return OnityRuntime.Require().Schedule(OnityRuntime.KindYield, timing, 0, 0, cancellationToken);
        }

        public static OnityTask Yield(CancellationToken cancellationToken, [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            return OnityRuntime.Require().Schedule(OnityRuntime.KindYield, OnityTiming.Update, 0, 0, cancellationToken);
        }

        /// <summary>Completes at the first run of <paramref name="timing"/> in a later frame.</summary>
        public static OnityTask NextFrame(OnityTiming timing, CancellationToken cancellationToken, [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            return OnityRuntime.Require().Schedule(OnityRuntime.KindNextFrame, timing, 0, 0, cancellationToken);
        }

        public static OnityTask NextFrame(CancellationToken cancellationToken, [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            return OnityRuntime.Require().Schedule(OnityRuntime.KindNextFrame, OnityTiming.Update, 0, 0, cancellationToken);
        }

        /// <summary>Completes at the first run of <paramref name="timing"/> in a frame at least
        /// <paramref name="delayFrameCount"/> frames after the current one (0 behaves as Yield).
        /// (No optional timing: with ONITY_SITES's caller-info parameters, DelayFrame(n, timing)
        /// would be ambiguous with the frame-wait overload; both builds keep one API.)</summary>
        public static OnityTask DelayFrame(int delayFrameCount, OnityTiming timing, CancellationToken cancellationToken, [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            ulong n = CheckDelayCount(delayFrameCount);
            return OnityRuntime.Require().Schedule(OnityRuntime.KindDelayFrame, timing, n, 0, cancellationToken);
        }

        /// <summary>As <see cref="DelayFrame(int, OnityTiming, CancellationToken)"/> on Update.</summary>
        public static OnityTask DelayFrame(int delayFrameCount, CancellationToken cancellationToken, [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            return DelayFrame(delayFrameCount, OnityTiming.Update, cancellationToken);
        }

        /// <summary>Completes at the first run of <paramref name="timing"/>, in a later frame, at which
        /// the chosen clock (the frame times given to <see cref="OnityRuntime.BeginFrame"/>) has
        /// advanced by at least <paramref name="delay"/>.</summary>
        public static OnityTask Delay(TimeSpan delay, DelayType delayType = DelayType.DeltaTime, OnityTiming timing = OnityTiming.Update, CancellationToken cancellationToken = default(CancellationToken), [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            ulong bits = DelayBits(delay);
            return OnityRuntime.Require().Schedule(OnityRuntime.KindDelay, timing, bits, (byte)delayType, cancellationToken);
        }

        public static OnityTask Delay(int millisecondsDelay, DelayType delayType = DelayType.DeltaTime, OnityTiming timing = OnityTiming.Update, CancellationToken cancellationToken = default(CancellationToken), [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            return Delay(TimeSpan.FromMilliseconds(millisecondsDelay), delayType, timing, cancellationToken);
        }

        public static OnityTask Delay(TimeSpan delay, bool ignoreTimeScale, OnityTiming timing = OnityTiming.Update, CancellationToken cancellationToken = default(CancellationToken), [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            return Delay(delay, ignoreTimeScale ? DelayType.UnscaledDeltaTime : DelayType.DeltaTime, timing, cancellationToken);
        }
#endif

        internal static ulong CheckDelayCount(int delayFrameCount)
        {
            if (delayFrameCount < 0) throw new ArgumentOutOfRangeException("delayFrameCount", "Delay frame count must be >= 0.");
            return (ulong)delayFrameCount;
        }

        static ulong DelayBits(TimeSpan delay)
        {
            double seconds = delay.TotalSeconds;
            if (!(seconds >= 0) || double.IsInfinity(seconds)) throw new ArgumentOutOfRangeException("delay", "Delay must be finite and >= 0.");
            return (ulong)BitConverter.DoubleToInt64Bits(seconds);
        }

        /// <summary>Continues on the runtime's owner thread: at once if already there, else at the
        /// owner's next BeginFrame/Tick/Drain.</summary>
        public static SwitchToMainThreadAwaitable SwitchToMainThread(CancellationToken cancellationToken = default(CancellationToken))
        {
            return new SwitchToMainThreadAwaitable(cancellationToken);
        }

        /// <summary>As <see cref="SwitchToMainThread(CancellationToken)"/>; from another thread it
        /// resumes at <paramref name="timing"/>'s next run on the owner.</summary>
        public static SwitchToMainThreadAwaitable SwitchToMainThread(OnityTiming timing, CancellationToken cancellationToken = default(CancellationToken))
        {
            return new SwitchToMainThreadAwaitable(timing, cancellationToken);
        }

        /// <summary>Continues on a thread-pool thread.</summary>
        public static SwitchToThreadPoolAwaitable SwitchToThreadPool()
        {
            return default(SwitchToThreadPoolAwaitable);
        }
    }

    public struct SwitchToMainThreadAwaitable
    {
        readonly CancellationToken cancellationToken;
        readonly int timing; // OnityTiming + 1; 0: the owner's next BeginFrame/Tick/Drain

        public SwitchToMainThreadAwaitable(CancellationToken cancellationToken) { this.cancellationToken = cancellationToken; timing = 0; }

        /// <summary>From another thread, resumes at <paramref name="playerLoopTiming"/>'s next run.</summary>
        public SwitchToMainThreadAwaitable(OnityTiming playerLoopTiming, CancellationToken cancellationToken)
        {
            this.cancellationToken = cancellationToken;
            timing = (int)OnityRuntime.CheckTiming(playerLoopTiming) + 1;
        }

        public Awaiter GetAwaiter() { return new Awaiter(cancellationToken, timing); }

        public struct Awaiter : System.Runtime.CompilerServices.ICriticalNotifyCompletion
        {
            readonly CancellationToken cancellationToken;
            readonly int timing;

            public Awaiter(CancellationToken cancellationToken) { this.cancellationToken = cancellationToken; timing = 0; }

            public Awaiter(OnityTiming playerLoopTiming, CancellationToken cancellationToken)
            {
                this.cancellationToken = cancellationToken;
                timing = (int)OnityRuntime.CheckTiming(playerLoopTiming) + 1;
            }

            internal Awaiter(CancellationToken cancellationToken, int timing) { this.cancellationToken = cancellationToken; this.timing = timing; }
            /// <summary>True on the owner thread, and when the runtime was disposed (GetResult
            /// then throws <see cref="OperationCanceledException"/>).</summary>
            public bool IsCompleted
            {
                get
                {
                    var r = OnityRuntime.Current;
                    if (r == null) return OnityRuntime.LastDisposed || OnityRuntime.Require() == null;
                    return r.IsOwnerThread || r.IsDisposed;
                }
            }

            /// <summary>Throws <see cref="OperationCanceledException"/> when the token was canceled
            /// or the runtime was disposed before the switch happened.</summary>
            public void GetResult()
            {
                cancellationToken.ThrowIfCancellationRequested();
                var r = OnityRuntime.Current;
                if (r == null || r.IsDisposed)
                {
                    if (OnityRuntime.LastDisposed || r != null)
                        throw new OperationCanceledException("Onity: the runtime was disposed; there is no main thread to switch to.", cancellationToken);
                    OnityRuntime.Require(); // throws: no runtime was ever created
                }
            }

            public void OnCompleted(Action continuation) { UnsafeOnCompleted(continuation); }

            public void UnsafeOnCompleted(Action continuation)
            {
                var r = OnityRuntime.Current;
                if (r == null && OnityRuntime.LastDisposed) OnityRuntime.RunWithoutRuntime(continuation); // GetResult throws canceled
                else if (timing == 0 || r == null || r.IsDisposed) OnityRuntime.Require().Post(continuation);
                else r.FrameWait(0, (OnityTiming)(timing - 1)).UnsafeOnCompleted(continuation); // a worker's Yield: filed at the owner
            }
        }
    }

    public struct SwitchToThreadPoolAwaitable : System.Runtime.CompilerServices.ICriticalNotifyCompletion
    {
        static readonly WaitCallback run = o => ((Action)o)();

        public SwitchToThreadPoolAwaitable GetAwaiter() { return this; }
        public bool IsCompleted { get { return false; } }
        public void GetResult() { }

        public void OnCompleted(Action continuation) { ThreadPool.UnsafeQueueUserWorkItem(run, continuation); }
        public void UnsafeOnCompleted(Action continuation) { ThreadPool.UnsafeQueueUserWorkItem(run, continuation); }
    }
}
