using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using Onity.Native;

namespace Onity
{
    // The fast lane: frame waits awaited directly (OnityFrameWait), without a wait slot. IsCompleted
    // reads the frame driver's counters; an await files the continuation by id here and an 8-byte
    // record in the batch's fast buffer (no call); the timing's batch tick reports the due ids.
    public sealed unsafe partial class OnityRuntime
    {
        struct FastWait
        {
            public Action cont;
            public ulong record;  // as written to the fast lane (timing, delay)
            public ulong frame;   // frame when awaited (diagnostics)
        }

        FastWait[] fast = new FastWait[1024];
        int[] fastFree = new int[1024];
        int fastFreeCount;

        void InitFastLane()
        {
            for (int i = fast.Length - 1; i >= 0; i--) fastFree[fastFreeCount++] = i;
        }

        /// <summary>Fast-lane waits pending (awaited, not resumed).</summary>
        int FastLaneCount { get { return fast.Length - fastFreeCount; } }

        /// <summary>A frame wait measured from now. Owner thread (checked again when awaited).</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal OnityFrameWait FrameWait(int delay, OnityTiming timing)
        {
            if (ownedHere != this && OffOwner("NextFrame/Yield/DelayFrame")) return OffOwnerFrameWait(delay, timing);
            if ((uint)timing >= OnityNative.ONITY_TIMING_COUNT) ThrowTiming();
            return new OnityFrameWait(this, delay == 0 ? runs[(int)timing] : fcount, (uint)timing | ((uint)delay << 4));
        }

        /// <summary>The mark of a frame wait counted from now (what <see cref="FrameWait"/> stores,
        /// written out there on the hot path): a Yield's timing's run count, else the frame counter.</summary>
        internal ulong MarkNow(uint info)
        {
            return (info >> 4) == 0 ? runs[info & 15] : fcount;
        }

        internal static OnityTiming CheckTiming(OnityTiming timing)
        {
            if ((uint)timing >= OnityNative.ONITY_TIMING_COUNT) ThrowTiming();
            return timing;
        }

        internal static void ThrowTiming(string paramName = "timing")
        {
            throw new ArgumentOutOfRangeException(paramName, "Onity: timing must be an OnityTiming value (0-15).");
        }

        /// <summary>IsCompleted of a frame wait: true once a run of its timing satisfies it, or when
        /// the runtime is disposed (every counter is then at its maximum; GetResult throws canceled).
        /// A Yield is done once the run count passed its mark (`&gt;`, not `!=`: so that
        /// <see cref="OffOwnerMark"/> is never done before Dispose).</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal bool FrameWaitDone(ulong mark, uint info)
        {
            var rc = runs;
            uint d = info >> 4;
            if (d == 0) return rc[info & 15] > mark;
            return rc[16 + (info & 15)] >= mark + d;
        }

        /// <summary>Files a frame wait in the fast lane: the continuation by id, an 8-byte record
        /// (id, timing, frames still to wait) in the batch's native buffer. No call.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal void EnqueueFrameWait(Action continuation, ulong mark, uint info)
        {
            // ownedHere == this implies not disposed (Dispose, on the owner thread, moves ownedHere).
            if (ownedHere != this && PostFrameWait(continuation, mark, info)) return;
            if (fastFreeCount == 0) GrowFast();
            int id = fastFree[--fastFreeCount];
            ulong rec = (uint)id | ((ulong)(info & 15) << 32) | ((ulong)FramesLeft(mark, info) << 36);
            ref FastWait w = ref fast[id];
            w.cont = continuation;
            w.record = rec;
            w.frame = frame;
            SubmitFast(rec);
        }

        /// <summary>Frames a frame wait still has to wait, counted from now: 0 for a Yield or a
        /// NextFrame/DelayFrame whose frame has come (it is then due at the next run of its timing);
        /// the whole delay for one made off the owner thread (<see cref="OffOwnerMark"/>: its
        /// difference reads as negative, so the check sits on the overdue branch).</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        uint FramesLeft(ulong mark, uint info)
        {
            uint delay = info >> 4;
            if (delay == 0) return 0;
            long rem = (long)(mark + delay - fcount);
            if (rem > 0) return (uint)rem;
            return mark >= OffOwnerMark ? delay : 0;
        }

        void GrowFast()
        {
            int old = fast.Length;
            int n = old * 2;
            Array.Resize(ref fast, n);
            Array.Resize(ref fastFree, n);
            for (int i = n - 1; i >= old; i--) fastFree[fastFreeCount++] = i;
        }

        /// <summary>The frame wait as a slot-based task (what converting an OnityFrameWait gives).</summary>
        internal OnityTask FrameWaitTask(ulong mark, uint info)
        {
            if (disposed) return OnityTask.FromCanceled();
            if (FrameWaitDone(mark, info)) return OnityTask.CompletedTask;
            var timing = (OnityTiming)(info & 15);
            uint left = FramesLeft(mark, info);
            if (left == 0) return Schedule(KindYield, timing, 0, 0);
            if (left == 1 && (info >> 4) == 1) return Schedule(KindNextFrame, timing, 0, 0);
            return Schedule(KindDelayFrame, timing, left, 0);
        }

        /// <summary>Runs the continuations of the due ids <c>ids[next..n)</c>, advancing
        /// <paramref name="next"/> past each before running it (so that the caller, which catches
        /// a continuation's exception, resumes after it).</summary>
        void ResumeFast(uint* ids, uint n, ref uint next)
        {
            for (uint i = next; i < n; )
            {
                // `ids` is native memory: gone if a continuation's native code destroyed the
                // runtime (the next read of the batch throws, in Tick).
                if (*liveWord != liveId) break;
                uint id = ids[i++];
                var arr = fast; // re-read: a continuation may grow it
                if (id >= (uint)arr.Length) continue;
                ref FastWait w = ref arr[id];
                var c = w.cont;
                if (c == null) continue;
                w.cont = null;
                fastFree[fastFreeCount++] = (int)id;
                next = i;
                c();
            }
            next = n;
        }

        /// <summary>Dispose: every pending fast-lane wait is freed; its continuation goes to
        /// <paramref name="conts"/> (its GetResult then throws canceled).</summary>
        void CancelFastWaits(List<Action> conts)
        {
            for (int i = 0; i < fast.Length; i++)
            {
                if (fast[i].cont == null) continue;
                conts.Add(fast[i].cont);
                fast[i].cont = null;
                fastFree[fastFreeCount++] = i;
            }
        }
    }
}
