using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Threading;

namespace Onity
{
    // Cross-thread continuations: what completes on another thread resumes on the owner thread,
    // through the current runtime's continuation queue (run at its next BeginFrame/Tick/Drain).
    public sealed partial class OnityRuntime
    {
        readonly OnityContinuationQueue posted = new OnityContinuationQueue();

        /// <summary>Runs <paramref name="continuation"/> on the current runtime's owner thread: now if
        /// this is it, else at the owner's next BeginFrame/Tick/Drain. With no live runtime: see
        /// <see cref="NoRuntimeContext"/>.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal static void Dispatch(Action continuation)
        {
            var r = current;
            if (r != null && ownedHere == r) continuation();
            else if (r == null || r.disposed) RunWithoutRuntime(continuation);
            else r.Post(continuation);
        }

        static SynchronizationContext noRuntimeContext;
        static readonly SendOrPostCallback runAction = RunAction;
        static void RunAction(object continuation) { ((Action)continuation)(); }

        /// <summary>Where a continuation goes when it must reach the owner thread but no runtime is
        /// alive (a completion source completed on a worker after the runtime was disposed, or a
        /// <c>SwitchToMainThread</c> then): posted to this context, or run on the calling thread
        /// when it is null (the default) or is the calling thread's current context.
        /// <c>OnityPlayerLoop</c> sets it to Unity's main-thread context, so such continuations
        /// still run on Unity's main thread (in Edit Mode, after Play Mode ended).</summary>
        public static SynchronizationContext NoRuntimeContext
        {
            get { return Volatile.Read(ref noRuntimeContext); }
            set { Volatile.Write(ref noRuntimeContext, value); }
        }

        internal static void RunWithoutRuntime(Action continuation)
        {
            var sc = Volatile.Read(ref noRuntimeContext);
            if (sc == null || SynchronizationContext.Current == sc) continuation();
            else sc.Post(runAction, continuation);
        }

        /// <summary>Queues <paramref name="continuation"/> for the owner's next BeginFrame, Tick or Drain
        /// (each runs the queued continuations first). Any thread.</summary>
        public void Post(Action continuation)
        {
            if (posted.TryPost(continuation)) return;
            // Disposed, and its last posted continuations already ran: run it now (it observes
            // the disposal, e.g. SwitchToMainThread completes canceled) rather than leaving it in
            // a list nobody reads; through NoRuntimeContext when one is set.
            RunWithoutRuntime(continuation);
        }
    }

    /// <summary>Continuations posted from any thread for the owner thread (UniTask's
    /// ContinuationQueue): a locked list, swapped with a second one when the owner runs them, so
    /// a post never waits for continuations to run and running them allocates nothing. Closed
    /// when the runtime is disposed.</summary>
    internal sealed class OnityContinuationQueue
    {
        readonly object gate = new object();
        List<Action> posted = new List<Action>();
        List<Action> running = new List<Action>();
        int count;   // posted.Count, readable without the lock
        bool closed; // under gate: set once CloseAndRun has taken the last posted list

        /// <summary>Continuations waiting (any thread; a snapshot).</summary>
        internal int Count { get { return Volatile.Read(ref count); } }

        /// <summary>Queues <paramref name="continuation"/>; false once the queue is closed. Any thread.</summary>
        internal bool TryPost(Action continuation)
        {
            lock (gate)
            {
                if (closed) return false;
                posted.Add(continuation);
                Volatile.Write(ref count, posted.Count);
                return true;
            }
        }

        /// <summary>Runs the continuations queued so far (not the ones they post: those wait for
        /// the next call). An exception goes to <see cref="OnityTask.UnobservedTaskException"/>.
        /// Owner thread.</summary>
        internal void RunPending()
        {
            if (Volatile.Read(ref count) == 0) return;
            List<Action> list;
            lock (gate)
            {
                list = posted;
                posted = running;
                running = list;
                Volatile.Write(ref count, 0);
            }
            for (int i = 0; i < list.Count; i++)
            {
                try { list[i](); }
                catch (Exception ex) { OnityTask.PublishUnobserved(ex); }
            }
            list.Clear();
        }

        /// <summary>Closes the queue and runs what it held (runtime disposal). Later posts are
        /// refused (<see cref="TryPost"/> returns false).</summary>
        internal void CloseAndRun()
        {
            List<Action> list;
            lock (gate)
            {
                list = posted;
                posted = new List<Action>();
                Volatile.Write(ref count, 0);
                closed = true;
            }
            foreach (var c in list)
            {
                try { c(); }
                catch (Exception ex) { OnityTask.PublishUnobserved(ex); }
            }
        }
    }
}
