using System;
using System.Threading;
using Onity.Native;

namespace Onity.Tests
{
    // RandomScheduleTests, steady schedule: long-lived random awaits that allocate
    // nothing after warm-up (0 bytes, counted).
    public partial class RandomScheduleTests
    {
        // ---------------------------------------------------------------- steady schedule: 0 bytes

        /// <summary>A long-lived async method doing random awaits from the operations the README
        /// says allocate nothing after warm-up ("frame waits, with or without a token, completed
        /// async methods, manual sources, WhenAny ≤ 32 without a token"): fast-lane NextFrame /
        /// Yield / DelayFrame, converted frame waits, token waits on a long-lived token, Delay,
        /// pooled auto-reset sources completed later by the host, WhenAny over a reused array,
        /// completed and suspending child async methods.</summary>
        sealed class SteadyLoop
        {
            public Random r;
            public AutoResetOnityCompletionSource<int> pendingTyped;
            public AutoResetOnityCompletionSource pendingUntyped;
            public AutoResetOnityCompletionSource pendingLoser;
            public readonly OnityTask[] any2 = new OnityTask[2], any3 = new OnityTask[3];
            public readonly OnityTask[] all2 = new OnityTask[2];
            public long ops;
            public bool useWhenAll;
        }

        static volatile bool steadyStop;

#pragma warning disable 1998
        static async OnityTask<int> CompletedChild(int x) { return x + 1; }
#pragma warning restore 1998

        static async OnityTask<int> SuspendingChild(int x)
        {
            await OnityTask.NextFrame();
            return x + 1;
        }

        static async OnityTask SteadyRun(SteadyLoop s, CancellationToken ct)
        {
            var r = s.r;
            while (!steadyStop)
            {
                var t = r.Next(3) == 0 ? OnityTiming.FixedUpdate : OnityTiming.Update;
                int k = r.Next(s.useWhenAll ? 14 : 13);
                switch (k)
                {
                    case 0: await OnityTask.NextFrame(t); break;
                    case 1: await OnityTask.Yield(t); break;
                    case 2: await OnityTask.DelayFrame(r.Next(0, 4), t); break;
                    case 3: await OnityTask.NextFrame(t, ct); break;
                    case 4: await OnityTask.DelayFrame(r.Next(0, 3), t, ct); break;
                    case 5: await (OnityTask)OnityTask.DelayFrame(r.Next(0, 3), t); break;
                    case 6: await OnityTask.Delay(TimeSpan.FromTicks(r.Next(0, 4) * 156250L + 78125L), (DelayType)r.Next(3), t); break;
                    case 7:
                        s.pendingTyped = AutoResetOnityCompletionSource<int>.Create();
                        await s.pendingTyped.Task;
                        break;
                    case 8:
                        s.pendingUntyped = AutoResetOnityCompletionSource.Create();
                        await s.pendingUntyped.Task;
                        break;
                    case 9:
                        await CompletedChild(k);
                        break;
                    case 10:
                        await SuspendingChild(k);
                        break;
                    case 11:
                        s.any2[0] = OnityTask.NextFrame(t);
                        s.any2[1] = OnityTask.DelayFrame(3, t);
                        await OnityTask.WhenAny(s.any2);
                        break;
                    case 12:
                        if (s.pendingLoser != null) { await OnityTask.Yield(t); break; }
                        s.pendingLoser = AutoResetOnityCompletionSource.Create();
                        s.any3[0] = s.pendingLoser.Task;
                        s.any3[1] = OnityTask.DelayFrame(2, t);
                        s.any3[2] = OnityTask.Yield(t, ct);
                        await OnityTask.WhenAny(s.any3);
                        break;
                    default:
                        s.all2[0] = OnityTask.NextFrame(t);
                        s.all2[1] = OnityTask.DelayFrame(2, t);
                        await OnityTask.WhenAll(s.all2);
                        break;
                }
                s.ops++;
            }
        }

        static void SteadyFrame(TestHost h, SteadyLoop[] loops, Random hr)
        {
            h.Begin();
            var rt = h.Runtime;
            rt.Tick(OnityTiming.Initialization);
            int fixedRuns = hr.Next(0, 3);
            for (int i = 0; i < fixedRuns; i++) rt.Tick(OnityTiming.FixedUpdate);
            rt.Tick(OnityTiming.Update);
            // Completions from the owner: inline continuations.
            for (int i = 0; i < loops.Length; i++)
            {
                var s = loops[i];
                if (s.pendingTyped != null && hr.Next(2) == 0) { var x = s.pendingTyped; s.pendingTyped = null; x.TrySetResult(i); }
                if (s.pendingUntyped != null && hr.Next(2) == 0) { var x = s.pendingUntyped; s.pendingUntyped = null; x.TrySetResult(); }
                if (s.pendingLoser != null && hr.Next(3) == 0) { var x = s.pendingLoser; s.pendingLoser = null; x.TrySetResult(); }
            }
            rt.Tick(OnityTiming.LastUpdate);
            rt.Tick(OnityTiming.PostLateUpdate);
        }

        /// <summary>Fills the pools a random schedule draws from beyond its peak concurrency: a
        /// random schedule keeps reaching new peaks now and then (each a pool miss, a cold
        /// allocation), so "after warm-up" has to include the peak.</summary>
        static void PrewarmPools(TestHost h, int n)
        {
            var typed = new AutoResetOnityCompletionSource<int>[n];
            var untyped = new AutoResetOnityCompletionSource[n];
            var anys = new OnityTask<int>[n];
            var alls = new OnityTask[n];
            var children = new OnityTask<int>[n];
            for (int i = 0; i < n; i++)
            {
                typed[i] = AutoResetOnityCompletionSource<int>.Create();
                untyped[i] = AutoResetOnityCompletionSource.Create();
            }
            for (int i = 0; i < n; i++) typed[i].TrySetResult(i);
            for (int i = 0; i < n; i++) typed[i].Task.GetAwaiter().GetResult();
            for (int i = 0; i < n; i++) untyped[i].TrySetResult();
            for (int i = 0; i < n; i++) untyped[i].Task.GetAwaiter().GetResult();
            for (int i = 0; i < n; i++)
            {
                untyped[i] = AutoResetOnityCompletionSource.Create();
                anys[i] = OnityTask.WhenAny(untyped[i].Task);
            }
            for (int i = 0; i < n; i++) untyped[i].TrySetResult();
            for (int i = 0; i < n; i++) anys[i].GetAwaiter().GetResult();
            for (int i = 0; i < n; i++)
            {
                untyped[i] = AutoResetOnityCompletionSource.Create();
                alls[i] = OnityTask.WhenAll(untyped[i].Task, OnityTask.CompletedTask);
            }
            for (int i = 0; i < n; i++) untyped[i].TrySetResult();
            for (int i = 0; i < n; i++) alls[i].GetAwaiter().GetResult();
            for (int i = 0; i < n; i++) children[i] = SuspendingChild(i);
            h.RunFrame(OnityTiming.Update);
            for (int i = 0; i < n; i++) children[i].GetAwaiter().GetResult();
        }

        static long SteadyBytes(bool useWhenAll, out long ops)
        {
            long bytes = 0, n = 0;
            FreshThread.Run(() =>
            {
                using (var h = new TestHost())
                using (var cts = new CancellationTokenSource())
                {
                    steadyStop = false;
                    h.Dt = 1.0 / 64; h.UnscaledDt = 1.0 / 64;
                    var hr = new Random(99);
                    var loops = new SteadyLoop[96];
                    var tasks = new OnityTask[loops.Length];
                    h.RunFrame(OnityTiming.Update);
                    PrewarmPools(h, 400);
                    for (int i = 0; i < loops.Length; i++)
                    {
                        loops[i] = new SteadyLoop { r = new Random(1000 + i), useWhenAll = useWhenAll };
                        tasks[i] = SteadyRun(loops[i], cts.Token);
                    }
                    for (int f = 0; f < 300; f++) SteadyFrame(h, loops, hr);
                    long ops0 = 0;
                    foreach (var s in loops) ops0 += s.ops;
                    long b0 = GC.GetAllocatedBytesForCurrentThread();
                    for (int f = 0; f < 600; f++) SteadyFrame(h, loops, hr);
                    bytes = GC.GetAllocatedBytesForCurrentThread() - b0;
                    foreach (var s in loops) n += s.ops;
                    n -= ops0;
                    steadyStop = true;
                    for (int f = 0; f < 10; f++)
                    {
                        SteadyFrame(h, loops, hr);
                        foreach (var s in loops)
                        {
                            if (s.pendingTyped != null) { s.pendingTyped.TrySetResult(0); s.pendingTyped = null; }
                            if (s.pendingUntyped != null) { s.pendingUntyped.TrySetResult(); s.pendingUntyped = null; }
                            if (s.pendingLoser != null) { s.pendingLoser.TrySetResult(); s.pendingLoser = null; }
                        }
                    }
                    foreach (var t in tasks)
                    {
                        Assert.Equal(OnityTaskStatus.Succeeded, t.Status, "loop ended");
                        t.GetAwaiter().GetResult();
                    }
                    for (int f = 0; f < 4; f++) h.RunFrame();
                    var m = h.Runtime.GetManagedStats();
                    Assert.Equal(0, m.PendingWaits + m.CompletedUnconsumedWaits, "waits left: " + m);
                    Assert.Equal(0, h.Unobserved.Count, "unobserved");
                }
            });
            ops = n;
            return bytes;
        }

        [Test]
        public void SteadyRandomScheduleAllocatesNothing()
        {
            long ops;
            long bytes = SteadyBytes(false, out ops);
            Assert.True(ops > 20000, "operations measured: " + ops);
            Assert.Equal(0L, bytes, "bytes over " + ops + " random awaits");
        }

        [Test]
        public void SteadyRandomScheduleWithWhenAllAllocatesNothing()
        {
            // Untyped WhenAll (<= 32 inputs, no token) is pooled like WhenAny; the README's list of
            // allocation-free paths does not name it.
            long ops;
            long bytes = SteadyBytes(true, out ops);
            Assert.True(ops > 20000, "operations measured: " + ops);
            Assert.Equal(0L, bytes, "bytes over " + ops + " random awaits");
        }
    }
}
