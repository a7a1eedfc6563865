using System;
using System.Threading;
using Onity.Native;

namespace Onity.Tests
{
    public class FrameAllocatorTests
    {
        [Test]
        public void AllocatesFromAnyThreadAndIsRewoundByTheFrame()
        {
            using (var h = new TestHost())
            {
                h.RunFrame();
                FrameMemory a = OnityFrameAllocator.Allocate(h.Runtime, 256, 64);
                Assert.Equal(0L, a.Pointer.ToInt64() % 64, "alignment");
                Span<byte> span = a.AsSpan();
                for (int i = 0; i < span.Length; i++) span[i] = (byte)i;
                Assert.Equal((byte)255, span[255], "written");
                Span<int> ints = OnityFrameAllocator.Allocate(h.Runtime, 64, 4).AsSpan<int>();
                Assert.Equal(16, ints.Length, "int view");

                FrameMemory fromWorker = default(FrameMemory);
                var t = new Thread(() => { fromWorker = OnityFrameAllocator.Allocate(h.Runtime, 1024, 16); });
                t.Start();
                t.Join();
                Assert.True(fromWorker.Pointer != IntPtr.Zero, "worker allocation");
                Assert.True(fromWorker.Pointer != a.Pointer, "distinct memory");

                var before = h.Runtime.GetNativeStats().frame_alloc;
                Assert.True(before.bytes_in_use >= 256 + 64 + 1024, "bytes in use");
                h.RunFrame(); // Initialization rewinds
                var after = h.Runtime.GetNativeStats().frame_alloc;
                Assert.Equal(before.rewinds + 1, after.rewinds, "one rewind per frame");
                Assert.Equal(0UL, after.bytes_in_use, "frame memory released");
            }
        }

        [Test]
        public void BadInputsThrowOrReturnStatus()
        {
            using (var h = new TestHost())
            {
                FrameMemory m;
                Assert.Equal(OnityStatus.InvalidArgument,
                    OnityFrameAllocator.TryAllocate(h.Runtime, 0, 8, OnityLifetime.Frame, out m), "zero size");
                Assert.Equal(OnityStatus.InvalidAlignment,
                    OnityFrameAllocator.TryAllocate(h.Runtime, 8, 3, OnityLifetime.Frame, out m), "alignment 3");
                Assert.Equal(OnityStatus.InvalidArgument,
                    OnityFrameAllocator.TryAllocate(h.Runtime, 8, 8, (OnityLifetime)7, out m), "lifetime");
                Assert.Throws<ArgumentException>(() => OnityFrameAllocator.Allocate(h.Runtime, 8, 8192), "alignment 8192");
                Assert.Throws<ArgumentNullException>(() => OnityFrameAllocator.Allocate(null, 8), "null runtime");
                Assert.Throws<InvalidOperationException>(() =>
                {
                    Exception err = null;
                    var t = new Thread(() =>
                    {
                        try { OnityFrameAllocator.Rewind(h.Runtime); } catch (Exception e) { err = e; }
                    });
                    t.Start();
                    t.Join();
                    if (err != null) throw err;
                }, "rewind off the owner thread");
                Assert.Equal(OnityStatus.InvalidAlignment,
                    OnityFrameAllocator.TryAllocate(h.Runtime, 8, -8, OnityLifetime.Frame, out m), "negative alignment");
                Assert.Throws<ArgumentNullException>(() => OnityFrameAllocator.Rewind(null), "rewind, null runtime");
                h.Dispose();
                Assert.Equal(OnityStatus.InvalidRuntime,
                    OnityFrameAllocator.TryAllocate(h.Runtime, 8, 8, OnityLifetime.Frame, out m), "after dispose");
                Assert.Throws<ObjectDisposedException>(() => OnityFrameAllocator.Allocate(h.Runtime, 8), "allocate after dispose");
                Assert.Throws<ObjectDisposedException>(() => OnityFrameAllocator.Rewind(h.Runtime), "rewind after dispose");
            }
        }
    }
}
