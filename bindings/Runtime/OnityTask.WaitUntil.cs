using System;
using System.Runtime.CompilerServices;
using System.Threading;

namespace Onity
{
    public partial struct OnityTask
    {
        // Condition waits (UniTask's WaitUntil / WaitWhile): the predicate is evaluated at each run
        // of the timing, starting with the next one (never synchronously, as in UniTask), on the
        // owner thread. Built on the frame waits: without a token each check is a fast-lane Yield,
        // so a wait allocates nothing after warm-up but the predicate delegate the caller passes.

#if !ONITY_SITES // else OnityTask.Sites.cs, with the caller's file and line
        /// <summary>Completes at the first run of <paramref name="timing"/> (from the next one on)
        /// at which <paramref name="predicate"/> returns true. An exception from the predicate
        /// faults the task (an <see cref="OperationCanceledException"/> cancels it); a canceled
        /// token cancels it at the next run of the timing, and so does disposing the runtime that
        /// was current at the call. Owner thread.</summary>
        public static OnityTask WaitUntil(Func<bool> predicate, OnityTiming timing = OnityTiming.Update, CancellationToken cancellationToken = default(CancellationToken), [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            return ConditionLoop(CheckCondition(predicate, timing), predicate, true, timing, cancellationToken);
        }

        /// <summary>Completes at the first run of <paramref name="timing"/> (from the next one on)
        /// at which <paramref name="predicate"/> returns false. Otherwise as
        /// <see cref="WaitUntil"/>.</summary>
        public static OnityTask WaitWhile(Func<bool> predicate, OnityTiming timing = OnityTiming.Update, CancellationToken cancellationToken = default(CancellationToken), [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            return ConditionLoop(CheckCondition(predicate, timing), predicate, false, timing, cancellationToken);
        }

#endif

        static OnityRuntime CheckCondition(Func<bool> predicate, OnityTiming timing)
        {
            if (predicate == null) throw new ArgumentNullException("predicate");
            if ((uint)timing >= Native.OnityNative.ONITY_TIMING_COUNT) OnityRuntime.ThrowTiming();
            // The owner-thread and live-runtime errors at the call, not in the task.
            var r = OnityRuntime.Require();
            r.CheckOwner("WaitUntil/WaitWhile");
            return r;
        }

        // Bound to the runtime current at the call: a newer runtime does not take the loop over,
        // and disposing this one cancels it.
        // ONITY_SITES: each check's wait carries the WaitUntil/WaitWhile caller's site (0: none).
#if ONITY_SITES
        static async OnityTask ConditionLoop(OnityRuntime r, Func<bool> predicate, bool until, OnityTiming timing, CancellationToken cancellationToken, int site)
#else
        static async OnityTask ConditionLoop(OnityRuntime r, Func<bool> predicate, bool until, OnityTiming timing, CancellationToken cancellationToken)
#endif
        {
            if (cancellationToken.CanBeCanceled)
            {
                do
                {
#if ONITY_SITES
                    var t = r.Schedule(OnityRuntime.KindYield, timing, 0, 0, cancellationToken);
                    if (site != 0) r.TagTask(t, site, null, 0);
                    await t;
#else
                    await r.Schedule(OnityRuntime.KindYield, timing, 0, 0, cancellationToken);
#endif
                } while (predicate() != until);
            }
            else
            {
                do
                {
#if ONITY_SITES
                    await (site != 0 ? r.FrameWait(0, timing).WithSite(site) : r.FrameWait(0, timing));
#else
                    await r.FrameWait(0, timing);
#endif
                } while (predicate() != until);
            }
        }
    }
}
