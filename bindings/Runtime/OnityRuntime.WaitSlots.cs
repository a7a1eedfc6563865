using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Threading;
using Onity.Native;

namespace Onity
{
    // Wait slots: the managed side of every wait that is an OnityTask (token-less frame waits
    // converted to a task, waits with a token, Delay, native tasks). A slot holds the continuation
    // and the outcome; its index and version are the task's token, and the id of its batch record.
    // The runtime is the tasks' IOnityTaskSource.
    public sealed unsafe partial class OnityRuntime
    {
        // Record kinds of OnityBatchRecord.kind (the native wait kinds, and ONITY_BATCH_TASK for a
        // native task), which are also what a slot holds; KindFree marks a free slot.
        internal const byte KindYield = (byte)OnityWaitKind.Yield;
        internal const byte KindNextFrame = (byte)OnityWaitKind.NextFrame;
        internal const byte KindDelayFrame = (byte)OnityWaitKind.DelayFrame;
        internal const byte KindDelay = (byte)OnityWaitKind.Delay;
        internal const byte KindNative = (byte)OnityNative.ONITY_BATCH_TASK;
        const byte KindFree = 255;

        struct Slot
        {
            public Action cont;
            public OnityTokenMap.Entry tokenEntry;
            public CancellationToken ct;
            public ulong value;   // native task handle until consumed, then its value
            public ulong frame;   // frame when created
            public uint version;
            public int error;     // native error code
            public uint status;   // OnityStatus of a rejected record
            public byte state;    // OnityTaskStatus
            public byte kind;
            public byte timing;
        }

        Slot[] slots;
        int[] freeList;
        int freeCount;
        int liveSlots;

        void InitSlots()
        {
            slots = new Slot[1024];
            freeList = new int[1024];
            for (int i = slots.Length - 1; i >= 0; i--)
            {
                slots[i].version = 1;
                slots[i].kind = KindFree;
                freeList[freeCount++] = i;
            }
        }

        int AllocSlot()
        {
            if (freeCount == 0) GrowSlots();
            liveSlots++;
            return freeList[--freeCount];
        }

        void GrowSlots()
        {
            int old = slots.Length;
            int n = old * 2;
            Array.Resize(ref slots, n);
            Array.Resize(ref freeList, n);
            for (int i = n - 1; i >= old; i--)
            {
                slots[i].version = 1;
                slots[i].kind = KindFree;
                freeList[freeCount++] = i;
            }
        }

        void ReleaseSlot(int idx)
        {
            ref Slot s = ref slots[idx];
            if (s.tokenEntry != null)
            {
                tokens.Release(s.tokenEntry, frame);
                s.tokenEntry = null;
            }
            if (s.ct.CanBeCanceled) s.ct = default(CancellationToken);
            s.kind = KindFree;
            s.state = 0;
            unchecked { s.version++; }
            if (s.version == 0) s.version = 1;
            freeList[freeCount++] = idx;
            liveSlots--;
        }

        internal OnityTask Schedule(byte kind, OnityTiming timing, ulong arg, byte clock, CancellationToken ct)
        {
            if (!ct.CanBeCanceled) return Schedule(kind, timing, arg, clock);
            if (ownedHere != this && OffOwner("NextFrame/Yield/DelayFrame/Delay")) return OffOwnerWait.Create(this, kind, timing, arg, clock, ct);
            if ((uint)timing >= OnityNative.ONITY_TIMING_COUNT) throw new ArgumentOutOfRangeException("timing");
            if (ct.IsCancellationRequested) return OnityTask.FromCanceled(ct);
            OnityTokenMap.Entry te;
            ulong ntok = tokens.Acquire(ct, out te);
            int idx = AllocSlot();
            ref Slot s = ref slots[idx];
            s.kind = kind;
            s.timing = (byte)timing;
            s.state = 0;
            s.frame = frame;
            s.tokenEntry = te;
            s.ct = ct;
            ulong id = ((ulong)s.version << 32) | (uint)idx;
            SubmitRecord(id, ntok, arg, kind | ((uint)timing << 8) | ((uint)clock << 16));
            return new OnityTask(this, (long)id);
        }

        /// <summary>The hot path: a wait without cancellation token.</summary>
        internal OnityTask Schedule(byte kind, OnityTiming timing, ulong arg, byte clock)
        {
            // ownedHere == this implies not disposed (Dispose, on the owner thread, moves ownedHere).
            if (ownedHere != this && OffOwner("NextFrame/Yield/DelayFrame/Delay")) return OffOwnerWait.Create(this, kind, timing, arg, clock, default(CancellationToken));
            if ((uint)timing >= OnityNative.ONITY_TIMING_COUNT) throw new ArgumentOutOfRangeException("timing");
            if (freeCount == 0) GrowSlots();
            liveSlots++;
            int idx = freeList[--freeCount];
            var arr = slots;
            ulong id = ((ulong)arr[idx].version << 32) | (uint)idx;
            arr[idx].kind = kind;
            arr[idx].timing = (byte)timing;
            arr[idx].state = 0;
            arr[idx].frame = frame;
            SubmitRecord(id, 0, arg, kind | ((uint)timing << 8) | ((uint)clock << 16));
            return new OnityTask(this, (long)id);
        }

        /// <summary>A resumption from the batch: completes the slot (stale ids, already completed
        /// slots and freed slots are ignored) and runs its continuation.</summary>
        void ResumeSlot(ulong id, uint state, uint status)
        {
            uint idx = (uint)id;
            var arr = slots;
            if (idx >= (uint)arr.Length) return;
            ref Slot s = ref arr[idx];
            if (s.version != (uint)(id >> 32) || s.kind == KindFree || s.state != 0) return;
            if (s.tokenEntry != null)
            {
                tokens.Release(s.tokenEntry, frame);
                s.tokenEntry = null;
            }
            if (s.kind == KindNative && status == 0) ConsumeNative(ref s.value, ref s.error, ref state, ref status);
            s.status = status;
            s.state = (byte)(state == (uint)OnityTaskState.Pending ? OnityTaskStatus.Faulted : (OnityTaskStatus)state);
            var c = s.cont;
            if (c != null)
            {
                s.cont = null;
                try { c(); }
                catch (Exception ex) { OnityTask.PublishUnobserved(ex); }
            }
        }

        /// <summary>Dispose: every pending slot completes canceled; their continuations go to
        /// <paramref name="conts"/> (run by Dispose once the native runtime is gone).</summary>
        void CancelPendingSlots(List<Action> conts)
        {
            for (int i = 0; i < slots.Length; i++)
            {
                ref Slot s = ref slots[i];
                if (s.kind == KindFree || s.state != 0) continue;
                s.tokenEntry = null;
                s.state = (byte)OnityTaskStatus.Canceled;
                if (s.cont != null)
                {
                    conts.Add(s.cont);
                    s.cont = null;
                }
            }
        }

        // ---- IOnityTaskSource over the slots ----------------------------------------------

        ref Slot SlotFor(long token)
        {
            uint idx = (uint)token;
            var arr = slots;
            if (idx >= (uint)arr.Length) throw OnityErrors.Stale();
            ref Slot s = ref arr[idx];
            if (s.version != (uint)((ulong)token >> 32) || s.kind == KindFree) throw OnityErrors.Stale();
            return ref s;
        }

        public OnityTaskStatus GetStatus(long token)
        {
            return (OnityTaskStatus)SlotFor(token).state;
        }

        public void OnCompleted(Action continuation, long token)
        {
            if (ownedHere != this) CheckOwner("awaiting a frame wait");
            ref Slot s = ref SlotFor(token);
            if (s.state != 0)
            {
                continuation();
                return;
            }
            if (s.cont != null) throw OnityErrors.Twice();
            s.cont = continuation;
        }

        /// <summary>True when <paramref name="token"/> is a live, completed wait; false when pending
        /// or stale (the await then goes to OnCompleted, which reports a stale token).</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal bool IsCompletedFast(long token)
        {
            uint idx = (uint)token;
            var arr = slots;
            return idx < (uint)arr.Length && arr[idx].state != 0 && arr[idx].version == (uint)((ulong)token >> 32);
        }

        void IOnityTaskSource.GetResult(long token) { GetResult(token); }

        public ulong GetResult(long token)
        {
            // Consuming frees the slot: owner thread only, even when the task is complete (the slot
            // table is not thread-safe). Not CheckOwner: continuations that Dispose runs must still
            // reach their OperationCanceledException.
            if (ownedHere != this && Thread.CurrentThread != owner) ThrowWrongThread("consuming a wait or native task (await, GetResult)");
            ref Slot s = ref SlotFor(token);
            byte st = s.state;
            if (st == (byte)OnityTaskStatus.Succeeded)
            {
                ulong v = s.kind == KindNative ? s.value : 0;
                ReleaseSlot((int)(uint)token);
                return v;
            }
            if (st == 0) throw OnityErrors.Pending();
            return Throw(ref s, (int)(uint)token);
        }

        ulong Throw(ref Slot s, int idx)
        {
            var ct = s.ct;
            uint status = s.status;
            int error = s.error;
            byte st = s.state;
            byte kind = s.kind;
            ReleaseSlot(idx);
            if (st == (byte)OnityTaskStatus.Canceled) throw new OperationCanceledException(ct);
            if (status != 0) throw new OnityException((OnityStatus)status, kind == KindNative ? "native task" : "frame wait rejected");
            throw new OnityException(error);
        }
    }
}
