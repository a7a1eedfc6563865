#if ONITY_SITES
using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Threading;

namespace Onity
{
    // Creation sites (docs/observability.md): compiled only with the scripting define ONITY_SITES
    // (Unity: Player Settings > Scripting Define Symbols). Each public wait then records its caller's
    // file and line ([CallerFilePath], [CallerLineNumber]: a string literal and a constant the
    // compiler passes, no allocation) while OnityRuntime.SiteCapture is on.
    // Without the define OnityTask.Frames.cs's bodies are compiled instead: the same signatures
    // (scripts/check-csharp-api-parity.sh), the caller info ignored.
    public partial struct OnityTask
    {
        /// <summary>A frame wait of the current runtime, with its creation site while SiteCapture is on.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        static OnityFrameWait SitedFrameWait(int delay, OnityTiming timing, string callerFile, int callerLine)
        {
            var r = OnityRuntime.Require();
            return r.siteCapture ? r.FrameWaitAt(delay, timing, callerFile, callerLine) : r.FrameWait(delay, timing);
        }

        /// <summary>Completes at the next run of Update (possibly later in this frame).</summary>
        public static OnityFrameWait Yield([CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            return SitedFrameWait(0, OnityTiming.Update, callerFile, callerLine);
        }

        /// <summary>Completes at the next run of <paramref name="timing"/> (possibly later in this frame).</summary>
        public static OnityFrameWait Yield(OnityTiming timing, [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            return SitedFrameWait(0, timing, callerFile, callerLine);
        }

        /// <summary>Completes at the first run of Update in a later frame.</summary>
        public static OnityFrameWait NextFrame([CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            return SitedFrameWait(1, OnityTiming.Update, callerFile, callerLine);
        }

        /// <summary>Completes at the first run of <paramref name="timing"/> in a later frame.</summary>
        public static OnityFrameWait NextFrame(OnityTiming timing, [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            return SitedFrameWait(1, timing, callerFile, callerLine);
        }

        /// <summary>Completes at the first run of Update in a frame at least
        /// <paramref name="delayFrameCount"/> frames after the current one (0 behaves as Yield).</summary>
        public static OnityFrameWait DelayFrame(int delayFrameCount, [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            return DelayFrame(delayFrameCount, OnityTiming.Update, callerFile, callerLine);
        }

        /// <summary>As <see cref="DelayFrame(int, string, int)"/> on <paramref name="timing"/>.</summary>
        public static OnityFrameWait DelayFrame(int delayFrameCount, OnityTiming timing, [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            int n = OnityFrameWait.CheckDelay(delayFrameCount);
            return SitedFrameWait(n, timing, callerFile, callerLine);
        }

        /// <summary>Completes at the next run of <paramref name="timing"/> (possibly later in the
        /// same frame). Cancellation completes it canceled at the next run of its timing.</summary>
        public static OnityTask Yield(OnityTiming timing, CancellationToken cancellationToken, [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            var r = OnityRuntime.Require();
            return r.At(r.Schedule(OnityRuntime.KindYield, timing, 0, 0, cancellationToken), callerFile, callerLine);
        }

        public static OnityTask Yield(CancellationToken cancellationToken, [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            return Yield(OnityTiming.Update, cancellationToken, callerFile, callerLine);
        }

        /// <summary>Completes at the first run of <paramref name="timing"/> in a later frame.</summary>
        public static OnityTask NextFrame(OnityTiming timing, CancellationToken cancellationToken, [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            var r = OnityRuntime.Require();
            return r.At(r.Schedule(OnityRuntime.KindNextFrame, timing, 0, 0, cancellationToken), callerFile, callerLine);
        }

        public static OnityTask NextFrame(CancellationToken cancellationToken, [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            return NextFrame(OnityTiming.Update, cancellationToken, callerFile, callerLine);
        }

        /// <summary>Completes at the first run of <paramref name="timing"/> in a frame at least
        /// <paramref name="delayFrameCount"/> frames after the current one (0 behaves as Yield).</summary>
        public static OnityTask DelayFrame(int delayFrameCount, OnityTiming timing, CancellationToken cancellationToken, [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            ulong n = CheckDelayCount(delayFrameCount);
            var r = OnityRuntime.Require();
            return r.At(r.Schedule(OnityRuntime.KindDelayFrame, timing, n, 0, cancellationToken), callerFile, callerLine);
        }

        /// <summary>As <see cref="DelayFrame(int, OnityTiming, CancellationToken, string, int)"/> on Update.</summary>
        public static OnityTask DelayFrame(int delayFrameCount, CancellationToken cancellationToken, [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            return DelayFrame(delayFrameCount, OnityTiming.Update, cancellationToken, callerFile, callerLine);
        }

        /// <summary>Completes at the first run of <paramref name="timing"/>, in a later frame, at which
        /// the chosen clock (the frame times given to <see cref="OnityRuntime.BeginFrame"/>) has
        /// advanced by at least <paramref name="delay"/>.</summary>
        public static OnityTask Delay(TimeSpan delay, DelayType delayType = DelayType.DeltaTime, OnityTiming timing = OnityTiming.Update, CancellationToken cancellationToken = default(CancellationToken),
            [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            ulong bits = DelayBits(delay);
            var r = OnityRuntime.Require();
            return r.At(r.Schedule(OnityRuntime.KindDelay, timing, bits, (byte)delayType, cancellationToken), callerFile, callerLine);
        }

        public static OnityTask Delay(int millisecondsDelay, DelayType delayType = DelayType.DeltaTime, OnityTiming timing = OnityTiming.Update, CancellationToken cancellationToken = default(CancellationToken),
            [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            return Delay(TimeSpan.FromMilliseconds(millisecondsDelay), delayType, timing, cancellationToken, callerFile, callerLine);
        }

        public static OnityTask Delay(TimeSpan delay, bool ignoreTimeScale, OnityTiming timing = OnityTiming.Update, CancellationToken cancellationToken = default(CancellationToken),
            [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            return Delay(delay, ignoreTimeScale ? DelayType.UnscaledDeltaTime : DelayType.DeltaTime, timing, cancellationToken, callerFile, callerLine);
        }

        // Condition waits: each check's wait carries this site (OnityTask.WaitUntil.cs).

        /// <summary>Completes at the first run of <paramref name="timing"/> (from the next one on)
        /// at which <paramref name="predicate"/> returns true (OnityTask.WaitUntil.cs).</summary>
        public static OnityTask WaitUntil(Func<bool> predicate, OnityTiming timing = OnityTiming.Update, CancellationToken cancellationToken = default(CancellationToken),
            [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            return ConditionLoop(CheckCondition(predicate, timing), new FuncCondition(predicate), true, timing, cancellationToken, OnityRuntime.LoopSite(callerFile, callerLine));
        }

        /// <summary>Completes at the first run of <paramref name="timing"/> (from the next one on)
        /// at which <paramref name="predicate"/> returns false.</summary>
        public static OnityTask WaitWhile(Func<bool> predicate, OnityTiming timing = OnityTiming.Update, CancellationToken cancellationToken = default(CancellationToken),
            [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            return ConditionLoop(CheckCondition(predicate, timing), new FuncCondition(predicate), false, timing, cancellationToken, OnityRuntime.LoopSite(callerFile, callerLine));
        }

        /// <summary>Completes with the new value when <paramref name="monitorFunction"/>(target)
        /// differs from its value at the call (OnityTask.WaitUntilValueChanged.cs).</summary>
        public static OnityTask<U> WaitUntilValueChanged<T, U>(T target, Func<T, U> monitorFunction, OnityTiming monitorTiming = OnityTiming.Update, IEqualityComparer<U> equalityComparer = null,
            CancellationToken cancellationToken = default(CancellationToken), [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
            where T : class
        {
            CheckValueChanged(target, monitorFunction, monitorTiming);
            if (cancellationToken.IsCancellationRequested) return FromCanceled<U>(cancellationToken);
            var t = ValueChangedSource<T, U>.Start(target, monitorFunction, monitorTiming, equalityComparer ?? EqualityComparer<U>.Default, cancellationToken);
            return OnityRuntime.TrackAt(t, "WaitUntilValueChanged", callerFile, callerLine);
        }

        // Combinators: the forms with a token carry the site (pass CancellationToken.None for
        // none); a params argument list can not be followed by caller-info parameters, so the
        // params forms carry none.

        public static OnityTask<int> WhenAny(OnityTask[] tasks, CancellationToken cancellationToken, [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            return OnityRuntime.TrackAt(WhenAnyPromise.Create(tasks, cancellationToken), "WhenAny", callerFile, callerLine);
        }

        public static OnityTask<int> WhenAny(OnityFrameWait[] waits, CancellationToken cancellationToken, [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            return WhenAny(OnityFrameWait.ToTasks(waits), cancellationToken, callerFile, callerLine);
        }

        public static OnityTask<WhenAnyResult<T>> WhenAny<T>(OnityTask<T>[] tasks, CancellationToken cancellationToken, [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            return OnityRuntime.TrackAt(WhenAnyPromise<T>.Create(tasks, cancellationToken), "WhenAny", callerFile, callerLine);
        }

        public static OnityTask WhenAll(OnityTask[] tasks, CancellationToken cancellationToken, [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            return OnityRuntime.TrackAt(WhenAllPromise.Create(tasks, cancellationToken), "WhenAll", callerFile, callerLine);
        }

        public static OnityTask WhenAll(OnityFrameWait[] waits, CancellationToken cancellationToken, [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            return WhenAll(OnityFrameWait.ToTasks(waits), cancellationToken, callerFile, callerLine);
        }

        public static OnityTask<T[]> WhenAll<T>(OnityTask<T>[] tasks, CancellationToken cancellationToken, [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            return OnityRuntime.TrackAt(WhenAllPromise<T>.Create(tasks, cancellationToken), "WhenAll", callerFile, callerLine);
        }
    }
}
#endif
