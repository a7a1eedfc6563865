using System;
using System.Runtime.CompilerServices;

namespace Onity
{
    /// <summary>Work polled on the player loop (UniTask's <c>IPlayerLoopItem</c>):
    /// <see cref="MoveNext"/> runs on the runtime's owner thread at each run of a timing, from the
    /// next one on, until it returns false. Each step is a fast-lane frame wait of the runtime
    /// (an 8-byte record, no wait slot, no call, no allocation), so polling N items costs the
    /// timing's one batch call plus N managed calls. The base of every polled awaitable of the
    /// package (Unity async operations, coroutines, <c>WaitUntilValueChanged</c>,
    /// <c>CancelAfterSlim</c>, the cancellation polling of event waits).</summary>
    /// <remarks>One loop at a time per item: <see cref="StartLoop(OnityTiming, bool)"/> while
    /// <see cref="LoopActive"/> throws. The loop is bound to the runtime current when it started:
    /// disposing that runtime ends it with <see cref="OnLoopCanceled"/>.</remarks>
    public abstract class OnityLoopItem
    {
        readonly Action step;
        OnityRuntime runtime;
        uint info;       // timing (bits 0-3) | 1 << 4 when once per frame (OnityFrameWait's layout)
        bool loopActive;

        protected OnityLoopItem() { step = Step; }

        /// <summary>True from <see cref="StartLoop(OnityTiming, bool)"/> until the step at which
        /// <see cref="MoveNext"/> returned false or the runtime was found disposed (included: a
        /// completion made from inside that step still sees it true).</summary>
        protected bool LoopActive { get { return loopActive; } }

        /// <summary>The runtime the loop runs (or last ran) on.</summary>
        protected OnityRuntime LoopRuntime { get { return runtime; } }

        /// <summary>Starts the loop on <see cref="OnityRuntime.Current"/>: the first
        /// <see cref="MoveNext"/> runs at the next run of <paramref name="timing"/> (possibly later
        /// in this frame), or, with <paramref name="oncePerFrame"/>, at its first run in a later frame
        /// (one step per frame even for FixedUpdate). Owner thread.</summary>
        protected void StartLoop(OnityTiming timing, bool oncePerFrame = false)
        {
            var r = OnityRuntime.Require();
            r.CheckOwner("starting a player-loop item");
            StartLoop(r, timing, oncePerFrame);
        }

        /// <summary>Throws what <see cref="StartLoop(OnityTiming, bool)"/> would throw for want of a
        /// runtime or on the wrong thread (to check before doing anything that cannot be undone).</summary>
        protected static void CheckCanStartLoop(string what)
        {
            OnityRuntime.Require().CheckOwner(what);
        }

        internal void StartLoop(OnityRuntime r, OnityTiming timing, bool oncePerFrame)
        {
            if ((uint)timing >= Native.OnityNative.ONITY_TIMING_COUNT) OnityRuntime.ThrowTiming();
            if (loopActive) throw new InvalidOperationException("Onity: this player-loop item is already running.");
            runtime = r;
            info = (uint)timing | (oncePerFrame ? 1u << 4 : 0u);
            loopActive = true;
            Enqueue(r);
        }

        /// <summary>Changes the timing and cadence of the steps after the current one (call it from
        /// <see cref="MoveNext"/>).</summary>
        protected void SetLoopTiming(OnityTiming timing, bool oncePerFrame)
        {
            if ((uint)timing >= Native.OnityNative.ONITY_TIMING_COUNT) OnityRuntime.ThrowTiming();
            info = (uint)timing | (oncePerFrame ? 1u << 4 : 0u);
        }

        /// <summary>One step, on the owner thread. Return true to run again at the next run of the
        /// timing. Returning false ends the loop; a completion that may run other code (a task's
        /// continuation) should be the last thing it does. An exception ends the loop and goes to
        /// <see cref="OnLoopFaulted"/>.</summary>
        protected abstract bool MoveNext();

        /// <summary>The runtime was disposed while a step was pending: the loop has ended (complete
        /// the work canceled). Runs on the owner thread, inside <see cref="OnityRuntime.Dispose"/>.</summary>
        protected abstract void OnLoopCanceled();

        /// <summary><see cref="MoveNext"/> or <see cref="OnLoopCanceled"/> threw
        /// <paramref name="exception"/>: the loop has ended (<see cref="OnLoopEnded"/> follows). The
        /// default sends it to <see cref="OnityTask.UnobservedTaskException"/>; a task source
        /// (<see cref="OnityLoopSource{T}"/>) faults its task with it, so its awaiter is not left
        /// waiting.</summary>
        protected virtual void OnLoopFaulted(Exception exception)
        {
            OnityTask.PublishUnobserved(exception);
        }

        /// <summary>Called once the loop has ended (after the last <see cref="MoveNext"/> or
        /// <see cref="OnLoopCanceled"/>, <see cref="LoopActive"/> now false).</summary>
        protected virtual void OnLoopEnded() { }

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        void Enqueue(OnityRuntime r)
        {
            // Each run on the owner thread: a run waiter (a managed list, as UniTask's runner
            // array), so that an Update with only loop items needs no native tick. Once per frame,
            // or elsewhere: a frame wait.
            if ((info >> 4) == 0 && r.IsOwnedHere)
                r.AddRunWaiter(runWaiter ?? (runWaiter = new StepWaiter(step)), (OnityTiming)(info & 15));
            else r.EnqueueFrameWait(step, r.MarkNow(info), info);
        }

        StepWaiter runWaiter;

        sealed class StepWaiter : OnityRunWaiter
        {
            readonly Action step;
            internal StepWaiter(Action step) { this.step = step; onRun = step; }
            internal override void OnRun() { step(); }
        }

        void Step()
        {
            var r = runtime;
            try
            {
                if (r.disposed) OnLoopCanceled();
                else if (MoveNext())
                {
                    if (!r.disposed)
                    {
                        Enqueue(r);
                        return;
                    }
                    OnLoopCanceled(); // MoveNext disposed the runtime
                }
            }
            catch (Exception ex)
            {
                try { OnLoopFaulted(ex); }
                catch (Exception inner) { OnityTask.PublishUnobserved(inner); }
            }
            loopActive = false;
            OnLoopEnded();
        }
    }
}
