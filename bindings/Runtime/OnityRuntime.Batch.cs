using System;
using System.Runtime.CompilerServices;
using Onity.Native;

namespace Onity
{
    // The batch transport: the memory this runtime shares with its native batch (OnityBatch,
    // include/onity.h). Waits are written into it with plain stores (no call); the frame driver's
    // one onity_batch_tick per timing files them and leaves the resumptions in it, read here.
    // A call happens only when a buffer is full (onity_batch_flush).
    public sealed unsafe partial class OnityRuntime
    {
        /// <summary>Appends a 32-byte record (a wait slot's wait, or an ONITY_BATCH_TASK watch) to
        /// the submit buffer, flushing it first when full. <paramref name="kindTimingClock"/> is
        /// <c>kind | timing &lt;&lt; 8 | clock &lt;&lt; 16</c> (the record's bytes 24-26, written with its
        /// zero padding as one word). One argument rather than three: with kind, timing and clock
        /// apart a wait cost 4 instructions more on Mono (scripts/icount-csharp.sh nextframetask:
        /// 1105 against 1101 per task-frame).</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        void SubmitRecord(ulong id, ulong token, ulong arg, uint kindTimingClock)
        {
            CheckNative();
            OnityBatch* b = batch;
            uint n = b->submit_count;
            if (n >= b->submit_capacity)
            {
                Check(OnityNativeCalls.onity_batch_flush(rt, b), "onity_batch_flush");
                n = b->submit_count;
            }
            OnityBatchRecord* r = b->submit + n;
            r->id = id;
            r->token = token;
            r->arg = arg;
            *(ulong*)&r->kind = kindTimingClock;
            b->submit_count = n + 1;
        }

        /// <summary>Appends an 8-byte fast-lane record (see <c>onity_batch_fast_record</c> for its
        /// layout), flushing the buffer first when full.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        void SubmitFast(ulong rec)
        {
            CheckNative();
            OnityBatch* b = batch;
            uint n = b->fast_count;
            if (n >= b->fast_capacity)
            {
                Check(OnityNativeCalls.onity_batch_flush(rt, b), "onity_batch_flush");
                n = b->fast_count;
            }
            b->fast_submit[n] = rec;
            b->fast_count = n + 1;
        }

        /// <summary>Resumes the wait slots the last batch call reported (id, state, status), in its
        /// order.</summary>
        void ProcessResumed()
        {
            OnityBatch* b = batch;
            // `resumed` may move while continuations run (a continuation's native call can append
            // to it), so it is re-read for every entry.
            // A continuation may also destroy the native runtime (native code): checked before
            // every read.
            for (CheckNative(); b->resumed_consumed < b->resumed_count; CheckNative())
            {
                uint i = b->resumed_consumed;
                OnityResume r = b->resumed[i];
                b->resumed_consumed = i + 1;
                ResumeSlot(r.id, r.state, r.status);
            }
        }

        /// <summary>Resumes the fast-lane waits the last batch tick reported due, in its order.</summary>
        void ProcessFast()
        {
            OnityBatch* b = batch;
            uint n = b->fast_resumed_count;
            uint* ids = b->fast_resumed; // stable until the next batch tick/drain (refused while ticking)
            uint i = 0;
            while (i < n)
            {
                // The loop lives in a method without exception handling: Mono keeps the locals of
                // a try block in memory.
                try { ResumeFast(ids, n, ref i); }
                catch (Exception ex) { OnityTask.PublishUnobserved(ex); }
            }
        }
    }
}
