using System;
using System.Threading;

namespace Onity
{
    /// <summary>A reusable task source polled on the player loop: an <see cref="OnityLoopItem"/>
    /// with a completion core. A derived class completes it (<see cref="TrySetResult"/>,
    /// <see cref="TrySetException"/>, <see cref="TrySetCanceled"/>), usually from
    /// <see cref="OnityLoopItem.MoveNext"/>; the task hands out <see cref="Task"/> /
    /// <see cref="UntypedTask"/> and is consumed once (await or <c>GetResult</c>). Consuming it
    /// ends this use (the version moves on: older tasks go stale) and calls
    /// <see cref="Release"/>, where a pooled source clears its fields and returns to its pool;
    /// when the loop is still registered at that moment, <see cref="Release"/> waits for the
    /// loop's last step, so a pooled source never reaches its pool with a step pending.</summary>
    public abstract class OnityLoopSource<T> : OnityLoopItem, IOnityTaskSource<T>, IOnitySiteSource
    {
        OnityCompletionSourceCore<T> core;
        bool releaseWhenLoopEnds;

        /// <summary>The task of the current use.</summary>
        protected OnityTask<T> Task { get { return new OnityTask<T>(this, core.Version); } }

        /// <summary>The current use as an untyped task (same source and token).</summary>
        protected OnityTask UntypedTask { get { return new OnityTask(this, core.Version); } }

        /// <summary>True once the current use has an outcome.</summary>
        protected bool IsCompleted { get { return core.UnsafeGetStatus() != OnityTaskStatus.Pending; } }

        protected bool TrySetResult(T value) { return core.TrySetResult(value); }
        protected bool TrySetException(Exception error) { return core.TrySetException(error); }
        protected bool TrySetCanceled(CancellationToken cancellationToken = default(CancellationToken)) { return core.TrySetCanceled(cancellationToken); }

        /// <summary>Ends a use: clear the fields and, for a pooled source, return it to its pool.
        /// Called once per use, on the thread that consumed the task, once the loop is not
        /// registered any more.</summary>
        protected abstract void Release();

        /// <summary>Starts the loop (<see cref="OnityLoopItem.StartLoop(OnityTiming, bool)"/>); if
        /// that throws (no runtime, wrong thread), the use is released before the exception goes on.</summary>
        protected void StartLoopOrRelease(OnityTiming timing)
        {
            try { StartLoop(timing); }
            catch
            {
                Release();
                throw;
            }
        }

        /// <summary>A step threw: the current use faults with the exception (its awaiter resumes
        /// and throws it). When the use already ended (completed and consumed inside that step),
        /// the exception goes to <see cref="OnityTask.UnobservedTaskException"/> instead: the core
        /// now belongs to the next use.</summary>
        protected override void OnLoopFaulted(Exception exception)
        {
            if (releaseWhenLoopEnds || !core.TrySetException(exception)) OnityTask.PublishUnobserved(exception);
        }

        protected override void OnLoopEnded()
        {
            if (!releaseWhenLoopEnds) return;
            releaseWhenLoopEnds = false;
            Release();
        }

        public OnityTaskStatus GetStatus(long token) { return core.GetStatus(token); }
        bool IOnitySiteSource.IsCurrent(long token) { return (uint)token == core.Version; }
        OnityTaskStatus IOnitySiteSource.UnsafeGetStatus() { return core.UnsafeGetStatus(); }
        public void OnCompleted(Action continuation, long token) { core.OnCompleted(continuation, token); }
        void IOnityTaskSource.GetResult(long token) { GetResult(token); }

        public T GetResult(long token)
        {
            T value;
            if (core.TryGetSucceeded(token, out value))
            {
                EndUse();
                return value;
            }
            core.ThrowIfNotCompleted(token); // stale or pending: nothing to end
            try { return core.GetResult(token); }
            finally { EndUse(); }
        }

        void EndUse()
        {
            core.Reset();
            if (LoopActive) releaseWhenLoopEnds = true;
            else Release();
        }
    }
}
