using System;
using System.Collections.Generic;
using System.Threading;

namespace Onity.Tests
{
    /// <summary>OnityPlayerLoopTimer (UniTask's PlayerLoopTimer) and OnityTimeoutController
    /// (UniTask's TimeoutController), frame by frame at 60 fps (TestHost), with allocations counted.</summary>
    public class TimerTests
    {
        static long Bytes() { return GC.GetAllocatedBytesForCurrentThread(); }

        static readonly Action<object> record = s => { var l = (List<ulong>)((object[])s)[0]; var h = (TestHost)((object[])s)[1]; l.Add(h.Frame); };

        static void Run(TestHost h, int frames)
        {
            for (int i = 0; i < frames; i++) h.RunFrame();
        }

        [Test]
        public void ATimerFiresWhenItsClockHasAdvancedByTheInterval()
        {
            using (var h = new TestHost())
            {
                // 0.04 s at 1/60 s per frame: frame 3 (0.05 s) is the first with the interval elapsed.
                var once = new List<ulong>();
                var t1 = OnityPlayerLoopTimer.StartNew(TimeSpan.FromSeconds(0.04), false, DelayType.DeltaTime, OnityTiming.Update, CancellationToken.None, record, new object[] { once, h });
                var periodic = new List<ulong>();
                var t2 = OnityPlayerLoopTimer.StartNew(TimeSpan.FromSeconds(0.04), true, DelayType.DeltaTime, OnityTiming.Update, CancellationToken.None, record, new object[] { periodic, h });
                var created = new List<ulong>();
                var t3 = OnityPlayerLoopTimer.Create(TimeSpan.FromSeconds(0.04), false, DelayType.DeltaTime, OnityTiming.Update, CancellationToken.None, record, new object[] { created, h });
                Run(h, 10);
                Assert.Equal("3", string.Join(",", once), "one-shot: once, at frame 3");
                Assert.Equal("3,6,9", string.Join(",", periodic), "periodic: from each firing");
                Assert.Equal("", string.Join(",", created), "Create does not start it");
                t3.Restart(); // at frame 10 (0.1667 s): due at 0.2067 s, frame 13
                t1.Restart(TimeSpan.FromSeconds(0.01)); // due at frame 11
                Run(h, 5);
                Assert.Equal("13", string.Join(",", created), "Restart starts it from now");
                Assert.Equal("3,11", string.Join(",", once), "Restart with a new interval");
                // Stop, then Restart: counts from the restart.
                t2.Stop();
                Run(h, 5);
                Assert.Equal("3,6,9,12,15", string.Join(",", periodic), "stopped at frame 15");
                t2.Restart(); // frame 20 (0.333 s): due at 0.3733 s, frame 23
                Run(h, 4);
                Assert.Equal("3,6,9,12,15,23", string.Join(",", periodic), "restarted after Stop");
                t2.Dispose();
                Run(h, 6);
                Assert.Equal("3,6,9,12,15,23", string.Join(",", periodic), "disposed: no more");
                Assert.Throws<ObjectDisposedException>(() => t2.Restart(), "Restart after Dispose");
            }
        }

        /// <summary>A later frame the native side refuses for its deltas or realtime (written into the
        /// frame ring unchecked, thrown by the next call that applies it) does not move the clocks
        /// timers read: a NaN or infinite clock fired every timer in that frame, and a periodic one
        /// restarted from it never fired again (infinity) or fired every frame (NaN).</summary>
        [Test]
        public void AFrameRefusedForItsClocksMovesNoTimer()
        {
            string[] kinds = { "NaN delta", "infinite delta", "negative delta", "NaN unscaled", "infinite realtime" };
            for (int kind = 0; kind < kinds.Length; kind++)
            {
                using (var h = new TestHost())
                {
                    var fired = new List<ulong>[3];
                    var types = new[] { DelayType.DeltaTime, DelayType.UnscaledDeltaTime, DelayType.Realtime };
                    var timers = new OnityPlayerLoopTimer[3];
                    for (int i = 0; i < 3; i++)
                    {
                        fired[i] = new List<ulong>();
                        timers[i] = OnityPlayerLoopTimer.StartNew(TimeSpan.FromSeconds(0.04), true, types[i], OnityTiming.Update, CancellationToken.None, record, new object[] { fired[i], h });
                    }
                    Run(h, 4); // fired at 3
                    double[] before = { h.Runtime.ClockSeconds(types[0]), h.Runtime.ClockSeconds(types[1]), h.Runtime.ClockSeconds(types[2]) };
                    double d = h.Dt, u = h.UnscaledDt, r = h.Realtime + u;
                    if (kind == 0) d = double.NaN;
                    else if (kind == 1) d = double.PositiveInfinity;
                    else if (kind == 2) d = -1;
                    else if (kind == 3) u = double.NaN;
                    else r = double.PositiveInfinity;
                    h.Runtime.BeginFrame(h.Frame + 1, d, u, r); // frame 5, refused
                    for (int i = 0; i < 3; i++)
                        Assert.Equal(before[i], h.Runtime.ClockSeconds(types[i]), kinds[kind] + ": clock " + types[i] + " in the window");
                    for (int t = 0; t < 16; t++) h.Runtime.Tick((OnityTiming)t); // idle: no call
                    var e = Assert.Throws<OnityException>(() => h.Runtime.Drain(), kinds[kind]);
                    Assert.Equal(Onity.Native.OnityStatus.InvalidArgument, e.Status, kinds[kind] + ": status");
                    Run(h, 6); // frames 5 to 10 (frame 5 again)
                    for (int i = 0; i < 3; i++)
                        Assert.Equal("3,6,9", string.Join(",", fired[i]), kinds[kind] + ": " + types[i] + " timer");
                    foreach (var t in timers) t.Dispose();
                }
            }
        }

        [Test]
        public void ATimersTokenStopsItAtEveryPoint()
        {
            using (var h = new TestHost())
            {
                for (int k = 0; k < 4; k++)
                {
                    using (var cts = new CancellationTokenSource())
                    {
                        var fired = new List<ulong>();
                        ulong start = h.Frame;
                        OnityPlayerLoopTimer.StartNew(TimeSpan.FromSeconds(0.04), true, DelayType.DeltaTime, OnityTiming.Update, cts.Token, record, new object[] { fired, h });
                        for (int i = 0; i < 10; i++)
                        {
                            if (i == k * 2) cts.Cancel();
                            h.RunFrame();
                        }
                        // Canceled before frame start+1, +3, +5, +7: the firings before the cancellation only.
                        int expected = k == 0 ? 0 : k == 1 ? 0 : k == 2 ? 1 : 2;
                        Assert.Equal(expected, fired.Count, "firings before the cancellation (k=" + k + ", frames from " + start + ": " + string.Join(",", fired) + ")");
                    }
                }
            }
        }

        [Test]
        public void TimerClocksAndCallbacksThatRestartOrThrow()
        {
            using (var h = new TestHost())
            {
                h.Dt = 0; // time scale 0: the scaled clock stands still
                var scaled = new List<ulong>();
                var unscaled = new List<ulong>();
                var real = new List<ulong>();
                OnityPlayerLoopTimer.StartNew(TimeSpan.FromSeconds(0.04), false, DelayType.DeltaTime, OnityTiming.Update, CancellationToken.None, record, new object[] { scaled, h });
                OnityPlayerLoopTimer.StartNew(TimeSpan.FromSeconds(0.04), false, DelayType.UnscaledDeltaTime, OnityTiming.Update, CancellationToken.None, record, new object[] { unscaled, h });
                OnityPlayerLoopTimer.StartNew(TimeSpan.FromSeconds(0.04), false, DelayType.Realtime, OnityTiming.Update, CancellationToken.None, record, new object[] { real, h });
                Run(h, 5);
                Assert.Equal("", string.Join(",", scaled), "DeltaTime: paused with the time scale");
                Assert.Equal("3", string.Join(",", unscaled), "UnscaledDeltaTime");
                Assert.Equal("3", string.Join(",", real), "Realtime");
                h.Dt = 1.0 / 60;

                // A one-shot timer restarted from its callback keeps going; one that throws stops.
                OnityPlayerLoopTimer self = null;
                int calls = 0;
                self = OnityPlayerLoopTimer.StartNew(TimeSpan.Zero, false, DelayType.DeltaTime, OnityTiming.Update, CancellationToken.None, s => { if (++calls < 3) self.Restart(); }, null);
                Run(h, 6);
                Assert.Equal(3, calls, "restarted twice from its callback, then done");
                int thrown = 0;
                OnityPlayerLoopTimer.StartNew(TimeSpan.Zero, true, DelayType.DeltaTime, OnityTiming.Update, CancellationToken.None, s => { thrown++; throw new FormatException("timer"); }, null);
                Run(h, 3);
                Assert.Equal(1, thrown, "a callback that throws stops the timer");
                Assert.True(h.Unobserved.Count == 1 && h.Unobserved[0] is FormatException, "its exception is reported");

                Assert.Throws<ArgumentNullException>(() => OnityPlayerLoopTimer.Create(TimeSpan.Zero, false, DelayType.DeltaTime, OnityTiming.Update, CancellationToken.None, null, null), "null callback");
                Assert.Throws<ArgumentOutOfRangeException>(() => OnityPlayerLoopTimer.Create(TimeSpan.FromSeconds(-1), false, DelayType.DeltaTime, OnityTiming.Update, CancellationToken.None, record, null), "negative interval");
                Assert.Throws<ArgumentOutOfRangeException>(() => OnityPlayerLoopTimer.Create(TimeSpan.Zero, false, DelayType.DeltaTime, (OnityTiming)16, CancellationToken.None, record, null), "bad timing");
                Assert.Throws<ArgumentOutOfRangeException>(() => OnityPlayerLoopTimer.Create(TimeSpan.Zero, false, (DelayType)9, OnityTiming.Update, CancellationToken.None, record, null), "bad delay type");
                var other = OnityPlayerLoopTimer.Create(TimeSpan.Zero, false, DelayType.DeltaTime, OnityTiming.Update, CancellationToken.None, record, null);
                Exception onWorker = null;
                var th = new Thread(() => { try { other.Restart(); } catch (Exception ex) { onWorker = ex; } });
                th.Start();
                th.Join();
                Assert.True(onWorker is InvalidOperationException, "Restart off the owner thread throws (" + onWorker + ")");
            }
        }

        [Test]
        public void TimeoutControllerCancelsAtTheTimeoutAndIsReusedAfterReset()
        {
            using (var h = new TestHost())
            using (var tc = new OnityTimeoutController())
            {
                var ct = tc.Timeout(TimeSpan.FromSeconds(0.04));
                Run(h, 2);
                Assert.False(ct.IsCancellationRequested, "not yet at frame 2");
                Assert.False(tc.IsTimeout(), "no timeout yet");
                Run(h, 1);
                Assert.True(ct.IsCancellationRequested, "canceled at frame 3");
                Assert.True(tc.IsTimeout(), "timed out");

                var ct2 = tc.Timeout(40);
                Assert.False(ct2.IsCancellationRequested, "a new token after a timeout");
                Assert.False(tc.IsTimeout(), "cleared");
                Run(h, 1);
                tc.Reset(); // the work finished in time
                Run(h, 10);
                Assert.False(ct2.IsCancellationRequested, "Reset: never canceled");
                var ct3 = tc.Timeout(TimeSpan.FromSeconds(0.04));
                Assert.True(ct3 == ct2, "the same source is reused after Reset");
                Run(h, 3);
                Assert.True(ct3.IsCancellationRequested && tc.IsTimeout(), "times out again");
            }
            using (var h = new TestHost())
            using (var link = new CancellationTokenSource())
            using (var tc = new OnityTimeoutController(link, DelayType.UnscaledDeltaTime, OnityTiming.PreUpdate))
            {
                var ct = tc.Timeout(TimeSpan.FromSeconds(10));
                link.Cancel();
                Assert.True(ct.IsCancellationRequested, "the linked source cancels the token");
                Assert.False(tc.IsTimeout(), "not a timeout");
                Assert.True(tc.Timeout(10) == link.Token, "after the link is canceled: its token");
                tc.Dispose();
                Assert.Throws<ObjectDisposedException>(() => tc.Timeout(10), "after Dispose");
            }
        }

        [Test]
        public void TimerRestartsAndTimeoutResetsAllocateNothingAfterWarmUp()
        {
            FreshThread.Run(() =>
            {
                using (var h = new TestHost())
                using (var tc = new OnityTimeoutController())
                {
                    int fired = 0;
                    var timer = OnityPlayerLoopTimer.StartNew(TimeSpan.Zero, true, DelayType.DeltaTime, OnityTiming.Update, CancellationToken.None, s => fired++, null);
                    var oneShot = OnityPlayerLoopTimer.Create(TimeSpan.FromSeconds(1), false, DelayType.DeltaTime, OnityTiming.Update, CancellationToken.None, s => fired += 1000, null);
                    long b0 = 0;
                    for (int i = 0; i < 1100; i++)
                    {
                        if (i == 100) b0 = Bytes();
                        var ct = tc.Timeout(TimeSpan.FromSeconds(1));
                        if (ct.IsCancellationRequested) throw new AssertionException("canceled");
                        oneShot.Restart();
                        h.RunFrame();
                        tc.Reset();
                        if ((i & 1) == 0) oneShot.Stop();
                    }
                    Assert.Equal(0L, Bytes() - b0, "bytes over 1000 frames of a periodic timer, restarts and timeout resets");
                    Assert.Equal(1100, fired, "the periodic timer fired each frame, the restarted one never");
                    timer.Dispose();
                    // Control: after a timeout fired, the next Timeout makes a new source.
                    tc.Timeout(TimeSpan.Zero);
                    h.RunFrame();
                    Assert.True(tc.IsTimeout(), "timed out");
                    b0 = Bytes();
                    tc.Timeout(TimeSpan.FromSeconds(1));
                    Assert.True(Bytes() - b0 > 0, "a new source after a timeout is seen by the measurement");
                }
            });
        }
    }
}
