using System;
using Onity.Native;

namespace Onity
{
    /// <summary>
    /// Per-frame scratch memory from the native frame allocator: a pointer and a
    /// length, valid until the rewind that ends its lifetime
    /// (<see cref="OnityLifetime.Frame"/>: the next rewind;
    /// <see cref="OnityLifetime.TwoFrames"/>: the one after). The runtime rewinds at
    /// the first run in each frame of the configured timing (default
    /// Initialization); with <see cref="OnityRuntime.SkipIdleTicks"/> a frame with nothing to
    /// release skips it, so memory allocated after that skip lives a frame longer (never
    /// less). Any thread may allocate (one native call, no lock, no
    /// shared write); nothing is freed individually; no GC allocation.
    /// Using the memory after its rewind is a use-after-free: the native side
    /// can poison released memory (0xDD) to catch it in tests.
    /// </summary>
    public unsafe struct FrameMemory
    {
        /// <summary>Start of the block (aligned as requested).</summary>
        public readonly IntPtr Pointer;
        /// <summary>Length in bytes.</summary>
        public readonly int Length;

        public FrameMemory(IntPtr pointer, int length)
        {
            Pointer = pointer;
            Length = length;
        }

        /// <summary>The memory as a span (valid until the rewind that ends it).</summary>
        public Span<byte> AsSpan()
        {
            return new Span<byte>((void*)Pointer, Length);
        }

        /// <summary>The memory as a span of <typeparamref name="T"/>; T must be blittable.</summary>
        public Span<T> AsSpan<T>() where T : struct
        {
            return System.Runtime.InteropServices.MemoryMarshal.Cast<byte, T>(AsSpan());
        }
    }

    /// <summary>Allocation from the runtime's native frame allocator.</summary>
    public static unsafe class OnityFrameAllocator
    {
        /// <summary>
        /// Allocates <paramref name="length"/> bytes aligned to <paramref name="align"/>
        /// (a power of two up to 4096). Any thread, but not while the runtime is being disposed
        /// (as for <see cref="Rewind"/>, the owner must know no thread is allocating: the
        /// allocator shares nothing per allocation, so nothing can wait for them). Throws
        /// <see cref="ArgumentException"/> for a bad length, alignment or lifetime,
        /// <see cref="OutOfMemoryException"/> when the configured cap or the OS refuses and
        /// <see cref="ObjectDisposedException"/> after the runtime was disposed.
        /// </summary>
        public static FrameMemory Allocate(OnityRuntime runtime, int length, int align = 16,
            OnityLifetime lifetime = OnityLifetime.Frame)
        {
            FrameMemory m;
            OnityStatus s = TryAllocate(runtime, length, align, lifetime, out m);
            if (s == OnityStatus.Ok) return m;
            string what = "frame allocation of " + length + " bytes aligned to " + align + ": " + OnityRuntime.StatusText(s);
            if (s == OnityStatus.Exhausted || s == OnityStatus.OutOfMemory) throw new OutOfMemoryException(what);
            if (s == OnityStatus.InvalidRuntime) throw new ObjectDisposedException("OnityRuntime", what);
            throw new ArgumentException(what);
        }

        /// <summary>Like <see cref="Allocate"/> but returns the status instead of throwing
        /// (<see cref="OnityStatus.InvalidRuntime"/> after the runtime was disposed).</summary>
        public static OnityStatus TryAllocate(OnityRuntime runtime, int length, int align, OnityLifetime lifetime,
            out FrameMemory memory)
        {
            memory = default(FrameMemory);
            if (runtime == null) throw new ArgumentNullException("runtime");
            if (length < 0) return OnityStatus.InvalidArgument;
            if (align <= 0) return OnityStatus.InvalidAlignment;
            IntPtr rt = runtime.NativeRuntime;
            if (rt == IntPtr.Zero) return OnityStatus.InvalidRuntime;
            IntPtr p;
            OnityStatus s = OnityNativeCalls.onity_frame_alloc(rt, (ulong)length, (uint)align,
                (uint)lifetime, &p);
            if (s == OnityStatus.Ok) memory = new FrameMemory(p, length);
            return s;
        }

        /// <summary>Rewinds now (owner thread, outside a tick; no thread may be allocating).</summary>
        public static void Rewind(OnityRuntime runtime)
        {
            if (runtime == null) throw new ArgumentNullException("runtime");
            if (runtime.IsDisposed) throw new ObjectDisposedException("OnityRuntime", "frame allocator rewind: the runtime was disposed");
            OnityStatus s = OnityNativeCalls.onity_frame_alloc_rewind(runtime.NativeRuntime);
            if (s != OnityStatus.Ok)
                throw new InvalidOperationException("frame allocator rewind: " + OnityRuntime.StatusText(s));
        }
    }
}
