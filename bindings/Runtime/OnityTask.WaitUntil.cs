using System;
using System.Threading;

namespace Onity
{
    public partial struct OnityTask
    {
        // Condition waits (UniTask's WaitUntil / WaitWhile): the predicate is evaluated at each run
        // of the timing, starting with the next one (never synchronously, as in UniTask), on the
        // owner thread. Built on the frame waits: without a token each check is a fast-lane Yield,
        // so a wait allocates nothing after warm-up but the predicate delegate the caller passes.

        /// <summary>Completes at the first run of <paramref name="timing"/> (from the next one on)
        /// at which <paramref name="predicate"/> returns true. An exception from the predicate
        /// faults the task (an <see cref="OperationCanceledException"/> cancels it); a canceled
        /// token cancels it at the next run of the timing, and so does disposing the runtime that
        /// was current at the call. Owner thread.</summary>
        public static OnityTask WaitUntil(Func<bool> predicate, OnityTiming timing = OnityTiming.Update, CancellationToken cancellationToken = default(CancellationToken))
        {
            return ConditionLoop(CheckCondition(predicate, timing), predicate, true, timing, cancellationToken);
        }

        /// <summary>Completes at the first run of <paramref name="timing"/> (from the next one on)
        /// at which <paramref name="predicate"/> returns false. Otherwise as
        /// <see cref="WaitUntil"/>.</summary>
        public static OnityTask WaitWhile(Func<bool> predicate, OnityTiming timing = OnityTiming.Update, CancellationToken cancellationToken = default(CancellationToken))
        {
            return ConditionLoop(CheckCondition(predicate, timing), predicate, false, timing, cancellationToken);
        }

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
        static async OnityTask ConditionLoop(OnityRuntime r, Func<bool> predicate, bool until, OnityTiming timing, CancellationToken cancellationToken)
        {
            if (cancellationToken.CanBeCanceled)
            {
                do
                {
                    await r.Schedule(OnityRuntime.KindYield, timing, 0, 0, cancellationToken);
                } while (predicate() != until);
            }
            else
            {
                do
                {
                    await r.FrameWait(0, timing);
                } while (predicate() != until);
            }
        }
    }
}
