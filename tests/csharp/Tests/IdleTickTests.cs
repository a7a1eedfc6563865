using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using System.Threading;
using Onity.Native;

namespace Onity.Tests
{
    /// <summary>Tick skips its native call when the timing is idle (ABI 1.4, OnityTickIdle), and the
    /// frames begun meanwhile wait in the native frame ring. Each test fails without the part of the
    /// mechanism it names: a skip that ignored it would resume late (or never).</summary>
    public class IdleTickTests
    {
        const string Helper = "onity_test_helper";

        [DllImport(Helper, CallingConvention = CallingConvention.Cdecl)]
        static extern ulong helper_c_frame(IntPtr rt);

        [DllImport(Helper, CallingConvention = CallingConvention.Cdecl)]
        static extern unsafe uint helper_c_next_frame(IntPtr rt, ulong* task);

        [DllImport(Helper, CallingConvention = CallingConvention.Cdecl)]
        static extern uint helper_c_task_state(IntPtr rt, ulong task);

        [DllImport(Helper, CallingConvention = CallingConvention.Cdecl)]
        static extern unsafe uint helper_c_batch_delay_frame(IntPtr rt, uint frames, ulong id, IntPtr* batch);

        [DllImport(Helper, CallingConvention = CallingConvention.Cdecl)]
        static extern ulong helper_c_batch_take(IntPtr batch);

        [DllImport(Helper, CallingConvention = CallingConvention.Cdecl)]
        static extern uint helper_c_consume(IntPtr rt, ulong task);

        [DllImport(Helper, CallingConvention = CallingConvention.Cdecl)]
        static extern int helper_complete_later(IntPtr rt, ulong task, ulong value, int mode, int delayMs);

        [DllImport(Helper, CallingConvention = CallingConvention.Cdecl)]
        static extern int helper_running();

        [Test]
        public void AnIdleTimingsTickMakesNoCallAndTheFramesWaitInTheRing()
        {
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update); // the first tick publishes Update as idle
                long c0 = OnityNativeCalls.Crossings, s0 = h.Runtime.SkippedTicks;
                int ring = (int)OnityNative.ONITY_FRAME_RING_CAPACITY;
                for (int i = 0; i < ring; i++) h.RunFrame(OnityTiming.Update);
                Assert.Equal(0L, OnityNativeCalls.Crossings - c0, "crossings of a ring of idle frames");
                Assert.Equal((long)ring, h.Runtime.SkippedTicks - s0, "skipped ticks");
                h.RunFrame(OnityTiming.Update);
                Assert.Equal(1L, OnityNativeCalls.Crossings - c0, "the ring full: the begin calls");
                h.RunFrame(OnityTiming.Update);
                // C code reading the frame applies the ring: the newest frame.
                Assert.Equal(h.Frame, helper_c_frame(h.Runtime.rt), "native frame after the ring");
                // Skipping off: every tick calls.
                h.Runtime.SkipIdleTicks = false;
                c0 = OnityNativeCalls.Crossings;
                h.RunFrame(OnityTiming.Update);
                Assert.Equal(1L, OnityNativeCalls.Crossings - c0, "a tick with skipping off");
            }
        }

        [Test]
        public void FramesWhoseDeltasSumToInfinityAllApply()
        {
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update);
                h.RunFrame(OnityTiming.Update); // skipped: Update is idle
                // Each delta is accepted alone; their sum is not finite (refused by the native side).
                h.Dt = double.MaxValue; h.UnscaledDt = 1.0 / 60;
                h.RunFrame(OnityTiming.Update);
                h.RunFrame(OnityTiming.Update);
                h.RunFrame(OnityTiming.Update);
                Assert.Equal(h.Frame, helper_c_frame(h.Runtime.rt), "every frame applied");
            }
        }

        [Test]
        public unsafe void AWaitFiledFromCInAnIdleTimingRunsInItsFrame()
        {
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update);
                h.RunFrame(OnityTiming.Update); // skipped: Update is idle
                ulong task;
                Assert.Equal(0u, helper_c_next_frame(h.Runtime.rt, &task), "onity_next_frame (Update) from C");
                long c0 = OnityNativeCalls.Crossings;
                h.RunFrame(OnityTiming.Update);
                Assert.Equal(1L, OnityNativeCalls.Crossings - c0, "the wait cleared Update's idle byte");
                Assert.Equal((uint)OnityTaskState.Succeeded, helper_c_task_state(h.Runtime.rt, task), "C NextFrame done in the next frame");
                Assert.Equal(0u, helper_c_consume(h.Runtime.rt, task), "consume");
                h.RunFrame(OnityTiming.Update); // publishes idle again
                c0 = OnityNativeCalls.Crossings;
                h.RunFrame(OnityTiming.Update);
                Assert.Equal(0L, OnityNativeCalls.Crossings - c0, "idle again");
            }
        }

        /// <summary>C code makes a batch of its own in frame 2, after Update's tick (skipped when
        /// skipping: frame 2 is still in the ring), and writes a DelayFrame(2) into it: the frame it
        /// resumes in, as the host saw it at each Update tick.</summary>
        static unsafe string SecondBatchSchedule(bool skip)
        {
            using (var h = new TestHost())
            {
                h.Runtime.SkipIdleTicks = skip;
                IntPtr b2 = IntPtr.Zero;
                string seen = "";
                for (int f = 1; f <= 6; f++)
                {
                    h.RunFrame(OnityTiming.Update);
                    if (b2 != IntPtr.Zero)
                        for (ulong id; (id = helper_c_batch_take(b2)) != 0;) seen += id + "@" + h.Frame + " ";
                    if (f == 2) Assert.Equal(0u, helper_c_batch_delay_frame(h.Runtime.rt, 2, 100, &b2), "C batch");
                }
                return seen;
            }
        }

        [Test]
        public void ABatchCMakesWhileTicksAreSkippedFilesWithItsOwnFrame()
        {
            // Written in frame 2: a DelayFrame(2) resumes in frame 4, skipping or not.
            Assert.Equal("100@4 ", SecondBatchSchedule(false), "skipping off");
            Assert.Equal("100@4 ", SecondBatchSchedule(true), "skipping on");
        }

        [Test]
        public void ACrossThreadCompletionToAnIdleRuntimeIsDeliveredAtTheNextTick()
        {
            using (var h = new TestHost())
            {
                var log = new List<string>();
                h.RunFrame(OnityTiming.Update);
                var src = h.Runtime.CreateNativeCompletionSource();
                var t = Watch(src.Task, log);
                h.RunFrame(OnityTiming.Update); // files the watch
                h.RunFrame(OnityTiming.Update); // idle: skipped
                Assert.Equal(0, helper_complete_later(h.Runtime.NativeRuntime, src.Handle, 7, 0, 0), "thread started");
                var deadline = DateTime.UtcNow.AddSeconds(10);
                while (helper_running() != 0 && DateTime.UtcNow < deadline) Thread.Sleep(1);
                Assert.Equal(0, log.Count, "not before a tick");
                long c0 = OnityNativeCalls.Crossings;
                h.RunFrame(OnityTiming.Update);
                Assert.True(OnityNativeCalls.Crossings - c0 >= 1, "the queued completion made the tick call");
                Assert.Equal("7", string.Join(",", log), "delivered at the next tick");
                t.GetAwaiter().GetResult();
            }
        }

        static async OnityTask Watch(OnityTask<ulong> t, List<string> log)
        {
            log.Add((await t).ToString());
        }

        static async OnityTask LogAt(OnityTask wait, OnityRuntime rt, List<string> log, string name)
        {
            try { await wait; log.Add(name + "@" + rt.Frame); }
            catch (OperationCanceledException) { log.Add(name + " canceled@" + rt.Frame); }
        }

        /// <summary>The same schedule with skipping on and off, frame by frame: frame waits on every
        /// clock, a token cancel, WhenAny / WhenAll, in timings ticked every frame and in one ticked
        /// every third frame only, over stretches where every tick is idle.</summary>
        static List<string> Schedule(bool skip, out long skipped)
        {
            var log = new List<string>();
            using (var h = new TestHost())
            {
                h.Runtime.SkipIdleTicks = skip;
                h.Dt = 0.01; h.UnscaledDt = 0.02;
                h.RunFrame(OnityTiming.Update);
                var pending = new List<OnityTask>();
                var cts = new CancellationTokenSource();
                for (int f = 2; f < 60; f++)
                {
                    if (f % 3 == 0) h.RunFrame(OnityTiming.Update, OnityTiming.PreLateUpdate);
                    else h.RunFrame(OnityTiming.Update);
                    if (f == 5)
                    {
                        pending.Add(LogAt(OnityTask.DelayFrame(7), h.Runtime, log, "delayframe7"));
                        pending.Add(LogAt(OnityTask.Delay(TimeSpan.FromSeconds(0.1), DelayType.DeltaTime), h.Runtime, log, "scaled0.1"));
                        pending.Add(LogAt(OnityTask.Delay(TimeSpan.FromSeconds(0.1), DelayType.UnscaledDeltaTime), h.Runtime, log, "unscaled0.1"));
                        pending.Add(LogAt(OnityTask.Delay(TimeSpan.FromSeconds(0.15), DelayType.Realtime), h.Runtime, log, "realtime0.15"));
                        pending.Add(LogAt(OnityTask.Delay(TimeSpan.FromSeconds(0.1), DelayType.DeltaTime, OnityTiming.PreLateUpdate), h.Runtime, log, "scaled0.1-prelate"));
                        pending.Add(LogAt(OnityTask.DelayFrame(100, OnityTiming.Update, cts.Token), h.Runtime, log, "canceled-later"));
                    }
                    if (f == 30)
                    {
                        pending.Add(LogAt(OnityTask.WhenAny(OnityTask.DelayFrame(4), OnityTask.DelayFrame(9)), h.Runtime, log, "whenany"));
                        pending.Add(LogAt(OnityTask.WhenAll(OnityTask.DelayFrame(2), OnityTask.NextFrame(OnityTiming.PreLateUpdate)), h.Runtime, log, "whenall"));
                    }
                    if (f == 20) cts.Cancel();
                    if (f == 40) pending.Add(LogAt(OnityTask.Yield(OnityTiming.PreLateUpdate), h.Runtime, log, "yield-prelate"));
                }
                foreach (var p in pending) p.GetAwaiter().GetResult();
                skipped = h.Runtime.SkippedTicks;
            }
            return log;
        }

        /// <summary>Waits made before the first frame count from the first frame the native side
        /// applies (it rebases them by its frame number and realtime), also when it waits in the
        /// ring with the next ones.</summary>
        static List<string> FirstFrameSchedule(bool skip)
        {
            var log = new List<string>();
            using (var h = new TestHost())
            {
                h.Runtime.SkipIdleTicks = skip;
                h.Dt = 0.01; h.UnscaledDt = 0.01;
                var pending = new List<OnityTask>();
                pending.Add(LogAt(OnityTask.DelayFrame(2, OnityTiming.FixedUpdate), h.Runtime, log, "delayframe2"));
                pending.Add(LogAt(OnityTask.Delay(TimeSpan.FromSeconds(0.025), DelayType.Realtime, OnityTiming.FixedUpdate), h.Runtime, log, "realtime0.025"));
                h.Runtime.Tick(OnityTiming.FixedUpdate); // files them before the first frame
                h.Runtime.Tick(OnityTiming.Update); // publishes Update idle before the first frame
                h.RunFrame(OnityTiming.Update); // frame 1: Update idle (skipped)
                h.RunFrame(OnityTiming.Update); // frame 2: skipped
                h.Runtime.Tick(OnityTiming.FixedUpdate);
                for (int f = 3; f < 8; f++) h.RunFrame(OnityTiming.Update, OnityTiming.FixedUpdate);
                foreach (var p in pending) p.GetAwaiter().GetResult();
            }
            return log;
        }

        [Test]
        public void WaitsMadeBeforeTheFirstFrameCountFromItWithSkipping()
        {
            var off = FirstFrameSchedule(false);
            Assert.Equal("delayframe2@2,realtime0.025@4", string.Join(",", off), "skipping off");
            Assert.Equal(string.Join(",", off), string.Join(",", FirstFrameSchedule(true)), "skipping on vs off");
        }

        /// <summary>Delays of k tenths of a second on both delta clocks, made in frame 3 with frames of
        /// 0.1 s (inexact in binary), in a timing ticked every fourth frame: between its runs every
        /// tick is idle and the frames wait in the ring.</summary>
        static List<string> TenthsSchedule(bool skip)
        {
            var log = new List<string>();
            using (var h = new TestHost())
            {
                h.Runtime.SkipIdleTicks = skip;
                h.Dt = 0.1; h.UnscaledDt = 0.1;
                var pending = new List<OnityTask>();
                for (int f = 1; f <= 80; f++)
                {
                    h.Begin();
                    if (f == 3)
                        for (int k = 1; k < 60; k++)
                        {
                            pending.Add(LogAt(OnityTask.Delay(TimeSpan.FromTicks(k * 1000000L), DelayType.DeltaTime, OnityTiming.PreLateUpdate), h.Runtime, log, "scaled" + k));
                            pending.Add(LogAt(OnityTask.Delay(TimeSpan.FromTicks(k * 1000000L), DelayType.UnscaledDeltaTime, OnityTiming.PreLateUpdate), h.Runtime, log, "unscaled" + k));
                        }
                    h.Runtime.Tick(OnityTiming.Update);
                    if (f % 4 == 0 || f == 3) h.Runtime.Tick(OnityTiming.PreLateUpdate);
                }
                foreach (var p in pending) p.GetAwaiter().GetResult();
            }
            return log;
        }

        [Test]
        public void RingFramesMoveTheClocksAsFramesAppliedOneByOne()
        {
            var off = TenthsSchedule(false);
            Assert.Equal(118, off.Count, "delays completed");
            Assert.Equal(string.Join(",", off), string.Join(",", TenthsSchedule(true)), "skipping on vs off");
        }

        [Test]
        public void FrameWaitsCompleteInTheSameFramesWithAndWithoutSkipping()
        {
            long skippedOn, skippedOff;
            var on = Schedule(true, out skippedOn);
            var off = Schedule(false, out skippedOff);
            Assert.Equal(string.Join(",", off), string.Join(",", on), "completion frames, skipping on vs off");
            Assert.Equal(0L, skippedOff, "no skip when off");
            Assert.True(skippedOn > 20, "ticks skipped when on: " + skippedOn);
        }

        /// <summary>The default config rewinds the frame allocator at Initialization: with every
        /// timing ticked (as the Unity driver does), idle frames make no crossing at all until
        /// something is allocated; an allocation (owner thread or a worker) makes the next frame's
        /// Initialization tick cross, and that tick rewinds.</summary>
        [Test]
        public void TheDefaultRewindTimingIsIdleUntilSomethingIsAllocated()
        {
            using (var h = new TestHost())
            {
                h.RunFrame(); // every timing publishes its byte
                long c0 = OnityNativeCalls.Crossings, s0 = h.Runtime.SkippedTicks;
                int ring = (int)OnityNative.ONITY_FRAME_RING_CAPACITY;
                for (int i = 0; i < ring - 1; i++) h.RunFrame(); // the ring keeps room for the next frame
                Assert.Equal(0L, OnityNativeCalls.Crossings - c0, "crossings of idle frames, 16 timings each");
                Assert.Equal(16L * (ring - 1), h.Runtime.SkippedTicks - s0, "every tick skipped");
                ulong rewinds = h.Runtime.GetNativeStats().frame_alloc.rewinds;
                for (int round = 0; round < 2; round++)
                {
                    FrameMemory m = default(FrameMemory);
                    if (round == 0) m = OnityFrameAllocator.Allocate(h.Runtime, 256);
                    else
                    {
                        var t = new Thread(() => { m = OnityFrameAllocator.Allocate(h.Runtime, 256); });
                        t.Start();
                        t.Join();
                    }
                    m.AsSpan().Fill(1);
                    Assert.True(h.Runtime.GetNativeStats().frame_alloc.bytes_in_use >= 256, "round " + round + ": in use");
                    c0 = OnityNativeCalls.Crossings;
                    h.RunFrame();
                    Assert.Equal(1L, OnityNativeCalls.Crossings - c0, "round " + round + ": the Initialization tick crossed");
                    var after = h.Runtime.GetNativeStats().frame_alloc;
                    Assert.Equal(rewinds + 1, after.rewinds, "round " + round + ": and rewound");
                    Assert.Equal(0UL, after.bytes_in_use, "round " + round + ": released");
                    rewinds = after.rewinds;
                    c0 = OnityNativeCalls.Crossings;
                    h.RunFrame();
                    Assert.Equal(0L, OnityNativeCalls.Crossings - c0, "round " + round + ": idle again");
                }
            }
        }
    }
}
