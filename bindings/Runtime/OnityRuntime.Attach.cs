using System;
using Onity.Native;

namespace Onity
{
    // Sharing a runtime another plugin created (C, C++, an engine layer): Attach wraps it without
    // owning it, AwaitNative awaits any of its native task handles.
    public sealed unsafe partial class OnityRuntime
    {
        readonly bool owns;   // Dispose destroys the native runtime (created here)
        readonly bool drives; // BeginFrame / Tick allowed (false: its creator ticks it, C# drains)

        /// <summary>Wraps a native runtime another plugin created (its <c>OnityRuntime*</c>), on its
        /// owner thread. <see cref="Dispose"/> then releases only what C# made on it (its batch,
        /// cancellation sources, the native tasks it was awaiting) and leaves the runtime to its
        /// creator, which destroys it after this Dispose. <paramref name="drive"/>: true, C# begins
        /// its frames and ticks it (<see cref="BeginFrame"/>, <see cref="Tick"/>, as for a runtime it
        /// created; the creator must not tick it too); false, the creator does
        /// (<c>onity_runtime_frame_begin</c> / <c>onity_runtime_tick</c>) and C# calls
        /// <see cref="Drain"/> to run its continuations (BeginFrame and Tick then throw; C# frame
        /// waits need C#'s ticks, so only awaits of native tasks and completions from other
        /// threads resume). Errors: <see cref="ArgumentNullException"/> (zero),
        /// <see cref="InvalidOperationException"/> (already wrapped by a live OnityRuntime, or a
        /// live runtime has another owner thread), <see cref="OnityException"/> with
        /// <c>InvalidRuntime</c> (not a live runtime) or <c>WrongThread</c> (not its owner
        /// thread).</summary>
        public static OnityRuntime Attach(IntPtr native, bool drive, int submitCapacity = 65536)
        {
            if (native == IntPtr.Zero) throw new ArgumentNullException("native");
            CheckAbi();
            lock (live)
            {
                ThrowIfOtherOwnerLive();
                for (int i = 0; i < live.Count; i++)
                    if (live[i].rt == native) throw new InvalidOperationException("Onity: this native runtime is already wrapped by a live OnityRuntime; use that one (OnityRuntime.Current).");
            }
            return new OnityRuntime(native, false, drive, submitCapacity);
        }

        /// <summary>True when Dispose destroys the native runtime (created by this object), false
        /// when it was attached.</summary>
        public bool OwnsNative { get { return owns; } }

        /// <summary>True when C# begins the frames and ticks (false: attached with drive: false).</summary>
        public bool Drives { get { return drives; } }

        /// <summary>Awaits a native task handle of this runtime made by anyone (a C/C++ wait, a
        /// manual task, a coroutine's <c>native()</c>, a WhenAny): the task completes with its value;
        /// faults with an <see cref="OnityException"/> carrying its error code; cancels with an
        /// <see cref="OperationCanceledException"/>. C# takes the handle: it consumes it when it
        /// completes (or cancels and consumes it at Dispose of an attached runtime); nobody else
        /// may consume or await it. Owner thread. Resumes at the next <see cref="Tick"/> or
        /// <see cref="Drain"/>. Errors: <see cref="OnityException"/> with the status of
        /// <c>onity_task_state</c> (<c>InvalidHandle</c>, <c>StaleHandle</c>) at once; a handle
        /// already awaited faults the task with <c>AlreadyAwaited</c>. No GC allocation after
        /// warm-up.</summary>
        public OnityTask<ulong> AwaitNative(ulong handle)
        {
            CheckOwner("AwaitNative");
            uint state;
            var st = OnityNativeCalls.onity_task_state(rt, handle, &state);
            if (st != OnityStatus.Ok) throw new OnityException(st, "AwaitNative");
            return WatchNative(handle);
        }

        static void ThrowNotDriver(string what)
        {
            throw new InvalidOperationException("Onity: " + what + " on a runtime attached with drive: false; the plugin that created it begins its frames and ticks it. Call Drain() to run C#'s continuations.");
        }

        /// <summary>The constructor failed: undoes what it made on the native runtime.</summary>
        void AbandonNative()
        {
            if (owns)
                OnityNativeCalls.onity_runtime_destroy(rt);
            else if (batch != null)
                OnityNativeCalls.onity_batch_destroy(rt, batch);
        }

        /// <summary>The native runtime is gone (abandoned or released): drops the pointers into it.</summary>
        void ForgetNative()
        {
            rt = IntPtr.Zero;
            batch = null;
            deferred = null;
            frameClock = null;
            idleTimings = null;
            crossThreadHead = null;
            frameMemory = null;
        }

        /// <summary>Dispose: destroys the native runtime it owns; of an attached one, destroys its
        /// batch, then cancels and consumes the native tasks C# was still awaiting (its handles:
        /// the batch only watched them).</summary>
        void ReleaseNative()
        {
            if (owns)
            {
                Check(OnityNativeCalls.onity_runtime_destroy(rt), "onity_runtime_destroy");
                return;
            }
            Check(OnityNativeCalls.onity_batch_destroy(rt, batch), "onity_batch_destroy");
            for (int i = 0; i < slots.Length; i++)
            {
                ref Slot s = ref slots[i];
                if (s.kind != KindNative || s.state != 0) continue;
                OnityNativeCalls.onity_task_cancel(rt, s.value); // AlreadyCompleted: completed meanwhile
                OnityOutcome o;
                OnityNativeCalls.onity_task_consume(rt, s.value, &o);
            }
        }
    }
}
