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
        /// through. Consumes the task. Owner thread; allocates a token source for the delay.</summary>
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
            if ((await OnityTimeoutRace.Race(AsUnit(task), timeout, delayType, timing, taskCts)).Item1)
                throw new TimeoutException("Onity: the task did not complete within " + timeout + ".");
        }

        /// <summary>UniTask's <c>TimeoutWithoutException</c>: true when the timeout came first (the
        /// task then goes on, <paramref name="taskCancellationTokenSource"/> is canceled), false when
        /// the task completed first; its failure passes through. As <see cref="Timeout"/> otherwise.</summary>
        public OnityTask<bool> TimeoutWithoutException(TimeSpan timeout, DelayType delayType = DelayType.DeltaTime, OnityTiming timeoutCheckTiming = OnityTiming.Update, CancellationTokenSource taskCancellationTokenSource = null)
        {
            CheckTimeout(timeout, timeoutCheckTiming);
            return TimedOut(AsUnit(this), timeout, delayType, timeoutCheckTiming, taskCancellationTokenSource);
        }

        static async OnityTask<bool> TimedOut(OnityTask<AsyncUnit> task, TimeSpan timeout, DelayType delayType, OnityTiming timing, CancellationTokenSource taskCts)
        {
            return (await OnityTimeoutRace.Race(task, timeout, delayType, timing, taskCts)).Item1;
        }
    }

    // The typed forms are extension methods, not members of OnityTask<T>: a member of
    // OnityTask<T> returning OnityTask<(bool, T)> makes every OnityTask<X> bring
    // OnityTask<(bool, X)>, then OnityTask<(bool, (bool, X))>, ..., which Mono's full AOT compiles
    // up to its depth limit (docs/full-aot.md; the guard: GenericExpansionTests). The call syntax
    // (task.Timeout(...)) is the same, as in UniTask (UniTaskExtensions.Timeout<T>).
    public static partial class OnityTaskExtensions
    {
        /// <summary>As <see cref="OnityTask.Timeout"/>, with the task's result.</summary>
        public static OnityTask<T> Timeout<T>(this OnityTask<T> task, TimeSpan timeout, DelayType delayType = DelayType.DeltaTime, OnityTiming timeoutCheckTiming = OnityTiming.Update, CancellationTokenSource taskCancellationTokenSource = null)
        {
            OnityTask.CheckTimeout(timeout, timeoutCheckTiming);
            return TimeoutCore(task, timeout, delayType, timeoutCheckTiming, taskCancellationTokenSource);
        }

        static async OnityTask<T> TimeoutCore<T>(OnityTask<T> task, TimeSpan timeout, DelayType delayType, OnityTiming timing, CancellationTokenSource taskCts)
        {
            var r = await OnityTimeoutRace.Race(task, timeout, delayType, timing, taskCts);
            if (r.Item1) throw new TimeoutException("Onity: the task did not complete within " + timeout + ".");
            return r.Item2;
        }

        /// <summary>As <see cref="OnityTask.TimeoutWithoutException"/>: (true, default) on a
        /// timeout, (false, the result) when the task came first.</summary>
        public static OnityTask<ValueTuple<bool, T>> TimeoutWithoutException<T>(this OnityTask<T> task, TimeSpan timeout, DelayType delayType = DelayType.DeltaTime, OnityTiming timeoutCheckTiming = OnityTiming.Update, CancellationTokenSource taskCancellationTokenSource = null)
        {
            OnityTask.CheckTimeout(timeout, timeoutCheckTiming);
            return OnityTimeoutRace.Race(task, timeout, delayType, timeoutCheckTiming, taskCancellationTokenSource);
        }
    }

    static class OnityTimeoutRace
    {
        /// <summary>The task against a delay: (true, default) when the delay ended first (the task's
        /// token source canceled), (false, result) when the task did; its failure passes through and
        /// stops the delay.</summary>
        internal static async OnityTask<ValueTuple<bool, T>> Race<T>(OnityTask<T> task, TimeSpan timeout, DelayType delayType, OnityTiming timing, CancellationTokenSource taskCts)
        {
            var delayCts = new CancellationTokenSource();
            ValueTuple<bool, T> any; // (the task came first, its result)
            try
            {
                any = await OnityTask.WhenAny(task, OnityTask.Delay(timeout, delayType, timing, delayCts.Token));
            }
            catch
            {
                delayCts.Cancel(); // the task failed or was canceled first: stop the delay
                throw;
            }
            if (!any.Item1)
            {
                if (taskCts != null) taskCts.Cancel();
                return new ValueTuple<bool, T>(true, default(T));
            }
            delayCts.Cancel();
            return new ValueTuple<bool, T>(false, any.Item2);
        }
    }
}
