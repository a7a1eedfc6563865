using System;
using System.Threading;

namespace Onity
{
    public partial struct OnityTask
    {
        /// <summary>This task, or a <see cref="TimeoutException"/> when it has not completed after
        /// <paramref name="timeout"/> on the chosen clock (a <see cref="Delay(TimeSpan, DelayType,
        /// OnityTiming, CancellationToken)"/> checked at <paramref name="timeoutCheckTiming"/>), as
        /// UniTask's <c>Timeout</c>. The task cannot be stopped from outside: on a timeout it keeps
        /// running and is observed when it ends (its failure ignored), and
        /// <paramref name="taskCancellationTokenSource"/>, when given, is canceled so that the
        /// work can stop itself. A failure or cancellation of the task before the timeout passes
        /// through. Consumes the task. Owner thread; allocates (a token source for the delay and
        /// the combinator's input array).</summary>
        public OnityTask Timeout(TimeSpan timeout, DelayType delayType = DelayType.DeltaTime, OnityTiming timeoutCheckTiming = OnityTiming.Update, CancellationTokenSource taskCancellationTokenSource = null)
        {
            CheckTimeout(timeout, timeoutCheckTiming);
            return TimeoutCore(this, timeout, delayType, timeoutCheckTiming, taskCancellationTokenSource);
        }

        internal static void CheckTimeout(TimeSpan timeout, OnityTiming timing)
        {
            double seconds = timeout.TotalSeconds;
            if (!(seconds >= 0) || double.IsInfinity(seconds)) throw new ArgumentOutOfRangeException("timeout", "Onity: timeout must be finite and >= 0.");
            if ((uint)timing >= Native.OnityNative.ONITY_TIMING_COUNT) OnityRuntime.ThrowTiming("timeoutCheckTiming");
            // The owner-thread and live-runtime errors at the call, before the task is consumed.
            OnityRuntime.Require().CheckOwner("Timeout");
        }

        static async OnityTask TimeoutCore(OnityTask task, TimeSpan timeout, DelayType delayType, OnityTiming timing, CancellationTokenSource taskCts)
        {
            var delayCts = new CancellationTokenSource();
            int winner;
            try
            {
                winner = await WhenAny(task, Delay(timeout, delayType, timing, delayCts.Token));
            }
            catch
            {
                // The task failed or was canceled first: stop the delay.
                delayCts.Cancel();
                throw;
            }
            if (winner == 1)
            {
                if (taskCts != null) taskCts.Cancel();
                throw new TimeoutException("Onity: the task did not complete within " + timeout + ".");
            }
            delayCts.Cancel();
        }
    }

    public partial struct OnityTask<T>
    {
        /// <summary>As <see cref="OnityTask.Timeout"/>, with the task's result.</summary>
        public OnityTask<T> Timeout(TimeSpan timeout, DelayType delayType = DelayType.DeltaTime, OnityTiming timeoutCheckTiming = OnityTiming.Update, CancellationTokenSource taskCancellationTokenSource = null)
        {
            OnityTask.CheckTimeout(timeout, timeoutCheckTiming);
            return TimeoutCore(this, timeout, delayType, timeoutCheckTiming, taskCancellationTokenSource);
        }

        static async OnityTask<T> TimeoutCore(OnityTask<T> task, TimeSpan timeout, DelayType delayType, OnityTiming timing, CancellationTokenSource taskCts)
        {
            var delayCts = new CancellationTokenSource();
            ValueTuple<bool, T> any; // (the task came first, its result)
            try
            {
                any = await OnityTask.WhenAny(task, OnityTask.Delay(timeout, delayType, timing, delayCts.Token));
            }
            catch
            {
                delayCts.Cancel();
                throw;
            }
            if (!any.Item1)
            {
                if (taskCts != null) taskCts.Cancel();
                throw new TimeoutException("Onity: the task did not complete within " + timeout + ".");
            }
            delayCts.Cancel();
            return any.Item2;
        }
    }
}
