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
        /// faults the task; a canceled token cancels it at the next run of the timing. Owner
        /// thread.</summary>
        public static OnityTask WaitUntil(Func<bool> predicate, OnityTiming timing = OnityTiming.Update, CancellationToken cancellationToken = default(CancellationToken))
        {
            CheckCondition(predicate, timing);
            return ConditionLoop(predicate, true, timing, cancellationToken);
        }

        /// <summary>Completes at the first run of <paramref name="timing"/> (from the next one on)
        /// at which <paramref name="predicate"/> returns false. Otherwise as
        /// <see cref="WaitUntil"/>.</summary>
        public static OnityTask WaitWhile(Func<bool> predicate, OnityTiming timing = OnityTiming.Update, CancellationToken cancellationToken = default(CancellationToken))
        {
            CheckCondition(predicate, timing);
            return ConditionLoop(predicate, false, timing, cancellationToken);
        }

        static void CheckCondition(Func<bool> predicate, OnityTiming timing)
        {
            if (predicate == null) throw new ArgumentNullException("predicate");
            if ((uint)timing >= 16) throw new ArgumentOutOfRangeException("timing", "Onity: timing must be an OnityTiming value (0-15).");
            // The owner-thread and live-runtime errors at the call, not in the task.
            OnityRuntime.Require().CheckOwner("WaitUntil/WaitWhile");
        }

        static async OnityTask ConditionLoop(Func<bool> predicate, bool until, OnityTiming timing, CancellationToken cancellationToken)
        {
            if (cancellationToken.CanBeCanceled)
            {
                do
                {
                    await Yield(timing, cancellationToken);
                } while (predicate() != until);
            }
            else
            {
                do
                {
                    await Yield(timing);
                } while (predicate() != until);
            }
        }
    }
}
