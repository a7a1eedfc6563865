using System;
using System.Threading;
using Onity.Native;

namespace Onity
{
    /// <summary>A native task handle that native code completes (any thread, through
    /// <c>onity_task_set_result</c> / <c>onity_task_set_error</c> / <c>onity_task_cancel</c>) and C#
    /// awaits through <see cref="Task"/>; the continuation runs on the runtime's owner thread at
    /// its next <see cref="OnityRuntime.Tick"/> or <see cref="OnityRuntime.Drain"/>.</summary>
    public struct OnityNativeCompletionSource
    {
        /// <summary>The native task handle to hand to native code.</summary>
        public readonly ulong Handle;
        /// <summary>Completes with the value passed to <c>onity_task_set_result</c>; faults with an
        /// <see cref="OnityException"/> carrying the error code; cancels with an
        /// <see cref="OperationCanceledException"/>.</summary>
        public readonly OnityTask<ulong> Task;

        internal OnityNativeCompletionSource(ulong handle, OnityTask<ulong> task)
        {
            Handle = handle;
            Task = task;
        }
    }

    // Native completion: native tasks awaited through a wait slot (an ONITY_BATCH_TASK record
    // watches the task; the batch reports it completed; the slot then consumes it), and the
    // any-thread calls that complete them from C#.
    public sealed unsafe partial class OnityRuntime
    {
        /// <summary>Creates a native task that native code completes, and awaits it through the
        /// batch (an <c>ONITY_BATCH_TASK</c> record): owner thread; one crossing to create, one to
        /// consume when it completes.</summary>
        public OnityNativeCompletionSource CreateNativeCompletionSource()
        {
            CheckOwner("CreateNativeCompletionSource");
            ulong h;
            Check(OnityNativeCalls.onity_task_create(rt, &h), "onity_task_create");
            return new OnityNativeCompletionSource(h, WatchNative(h));
        }

        /// <summary>A wait slot that watches native task <paramref name="h"/> (an
        /// <c>ONITY_BATCH_TASK</c> record) and consumes it when it completes.</summary>
        OnityTask<ulong> WatchNative(ulong h)
        {
            int idx = AllocSlot();
            ref Slot s = ref slots[idx];
            s.kind = KindNative;
            s.timing = 0;
            s.state = 0;
            s.frame = frame;
            s.value = h;
            ulong id = ((ulong)s.version << 32) | (uint)idx;
            SubmitRecord(id, 0, h, OnityNative.ONITY_BATCH_TASK);
            return new OnityTask<ulong>(this, (long)id);
        }

        /// <summary>A native task's slot was reported completed (<paramref name="status"/> OK):
        /// consumes the task <paramref name="value"/> holds; on success <paramref name="value"/>,
        /// <paramref name="error"/> and <paramref name="state"/> become its outcome, otherwise the
        /// slot faults with the consume's status.</summary>
        void ConsumeNative(ref ulong value, ref int error, ref uint state, ref uint status)
        {
            OnityOutcome o;
            var cs = OnityNativeCalls.onity_task_consume(rt, value, &o);
            if (cs == OnityStatus.Ok)
            {
                value = o.value;
                error = o.error;
                state = o.state;
            }
            else
            {
                status = (uint)cs;
                state = (uint)OnityTaskState.Faulted;
            }
        }

        // The any-thread calls below and Dispose exclude each other: a caller counts itself in, then
        // checks `closing`; Dispose sets `closing`, then waits for the count to drain before it
        // destroys the native runtime (both sides use full fences, so one of them sees the other).
        int nativeCallers;
        int closing;

        /// <summary>Completes a native task with a value through the C ABI. Any thread;
        /// <see cref="OnityStatus.InvalidRuntime"/> once the runtime is disposed (or disposing).</summary>
        public OnityStatus NativeSetResult(ulong handle, ulong value)
        {
            Interlocked.Increment(ref nativeCallers);
            try { return Volatile.Read(ref closing) != 0 ? OnityStatus.InvalidRuntime : OnityNativeCalls.onity_task_set_result(rt, handle, value); }
            finally { Interlocked.Decrement(ref nativeCallers); }
        }

        /// <summary>Completes a native task with an error code. Any thread (as <see cref="NativeSetResult"/>).</summary>
        public OnityStatus NativeSetError(ulong handle, int error)
        {
            Interlocked.Increment(ref nativeCallers);
            try { return Volatile.Read(ref closing) != 0 ? OnityStatus.InvalidRuntime : OnityNativeCalls.onity_task_set_error(rt, handle, error); }
            finally { Interlocked.Decrement(ref nativeCallers); }
        }

        /// <summary>Cancels a native manual task. Any thread (as <see cref="NativeSetResult"/>).</summary>
        public OnityStatus NativeCancel(ulong handle)
        {
            Interlocked.Increment(ref nativeCallers);
            try { return Volatile.Read(ref closing) != 0 ? OnityStatus.InvalidRuntime : OnityNativeCalls.onity_task_cancel(rt, handle); }
            finally { Interlocked.Decrement(ref nativeCallers); }
        }

        /// <summary>Dispose: refuses further NativeSet*/NativeCancel calls and waits for the ones
        /// inside the native runtime to return.</summary>
        void CloseNativeCalls()
        {
            Interlocked.Exchange(ref closing, 1);
            var wait = new SpinWait();
            while (Volatile.Read(ref nativeCallers) != 0) wait.SpinOnce();
        }
    }
}
