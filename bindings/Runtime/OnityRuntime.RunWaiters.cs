using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;

namespace Onity
{
    /// <summary>Something resumed at the next run of a timing, kept in a managed list of the runtime
    /// rather than filed as a frame wait (UniTask's PlayerLoopRunner items): the frame streams'
    /// enumerators (<c>OnityAsyncEnumerable.EveryUpdate</c>), which wait for every run of their
    /// timing. Per element: an append to an array, and one virtual call at the run.</summary>
    internal abstract class OnityRunWaiter
    {
        /// <summary>The run came (or the runtime was disposed: the waiter reads its state).</summary>
        internal abstract void OnRun();
        /// <summary>OnRun as a delegate (the frame-wait fallback, and Dispose).</summary>
        internal Action onRun;
    }

    // Run waiters: per timing, the waiters for its next run. Tick(t) takes the list after the
    // posted continuations ran (so that one registered there resumes in this run, as a Yield made
    // there would), and runs it right after the run's fast-lane waits and before its slot waits;
    // those registered during the run wait for the next one.
    public sealed partial class OnityRuntime
    {
        sealed class RunList
        {
            // Items wrapped in a struct: a store into an array of a non-sealed class costs Mono a
            // covariant array-store check; a struct array does not (as OnityObjectPool's).
            internal struct Item { public OnityRunWaiter waiter; }
            internal Item[] items = new Item[16];
            internal int count;
        }

        readonly RunList[] runLists = new RunList[Native.OnityNative.ONITY_TIMING_COUNT];

        /// <summary>True on the thread that owns this runtime as its newest (the owner thread, not
        /// disposed): where run waiters run.</summary>
        internal bool IsOwnedHere
        {
            [MethodImpl(MethodImplOptions.AggressiveInlining)]
            get { return ownedHere == this; }
        }
        RunList spareRunList;

        /// <summary>Resumes <paramref name="w"/> at the next run of <paramref name="timing"/> (a
        /// Yield): in the timing's list on the owner thread; as a frame wait elsewhere (posted to
        /// the owner, counted from its filing).</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal void AddRunWaiter(OnityRunWaiter w, OnityTiming timing)
        {
            if (ownedHere != this)
            {
                FrameWait(0, timing).UnsafeOnCompleted(w.onRun);
                return;
            }
            var rl = runLists[(int)timing] ?? NewRunList((int)timing);
            int n = rl.count;
            if (n == rl.items.Length) Array.Resize(ref rl.items, n * 2);
            rl.items[n].waiter = w;
            rl.count = n + 1;
        }

        RunList NewRunList(int timing)
        {
            var rl = spareRunList ?? new RunList();
            spareRunList = null;
            return runLists[timing] = rl;
        }

        /// <summary>Tick: the waiters due in this run (null: none), replaced by an empty list.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        RunList TakeRunWaiters(int timing)
        {
            var rl = runLists[timing];
            if (rl == null || rl.count == 0) return null;
            runLists[timing] = spareRunList;
            spareRunList = null;
            return rl;
        }

        void RunRunWaiters(RunList due)
        {
            int i = 0;
            while (i < due.count)
            {
                // (The loop in a method without exception handling, as ProcessFast's.)
                try { RunRunWaiters(due, ref i); }
                catch (Exception ex) { OnityTask.PublishUnobserved(ex); }
            }
            due.count = 0;
            if (spareRunList == null) spareRunList = due;
        }

        static void RunRunWaiters(RunList due, ref int next)
        {
            var items = due.items;
            int n = due.count;
            for (int i = next; i < n; )
            {
                var w = items[i].waiter;
                items[i++].waiter = null;
                next = i;
                w.OnRun();
            }
            next = n;
        }

        /// <summary>Run waiters pending (diagnostics).</summary>
        int RunWaiterCount
        {
            get
            {
                int n = 0;
                foreach (var rl in runLists) if (rl != null) n += rl.count;
                return n;
            }
        }

        /// <summary>Dispose: every run waiter's OnRun goes to <paramref name="conts"/> (it sees
        /// the disposal).</summary>
        void CancelRunWaiters(List<Action> conts)
        {
            for (int t = 0; t < runLists.Length; t++)
            {
                var rl = runLists[t];
                if (rl == null) continue;
                for (int i = 0; i < rl.count; i++)
                {
                    conts.Add(rl.items[i].waiter.onRun);
                    rl.items[i].waiter = null;
                }
                rl.count = 0;
            }
        }
    }
}
