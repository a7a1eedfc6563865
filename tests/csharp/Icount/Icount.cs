using System;
using Onity;

namespace Onity.Icount
{
    /// <summary>Workloads for scripts/icount-csharp.sh, which runs this program twice under
    /// callgrind (a short and a long run) and divides the difference in executed instructions by
    /// the difference in operations: instructions per operation, free of the machine's noise.
    /// Arguments: flow (0|1) workload (nextframe|yield|nextframetask|nextframetoken|manual|completed|whenany32|reactive|
    /// idleframe|idleframenoskip) count.</summary>
    public static class Program
    {
        static long resumed;
        static OnityRuntime rt;
        static ulong frame;
        static AutoResetOnityCompletionSource<int> pending;

        static async OnityTask NextFrameLoop() { while (true) { await OnityTask.NextFrame(); resumed++; } }
        static async OnityTask YieldLoop() { while (true) { await OnityTask.Yield(); resumed++; } }
        // Wait slots and the batch's submit records: a frame wait converted to a task, and a
        // NextFrame with a cancellation token (mapped to one native source, shared by every loop).
        static async OnityTask NextFrameTaskLoop() { while (true) { await (OnityTask)OnityTask.NextFrame(); resumed++; } }
        static async OnityTask NextFrameTokenLoop(System.Threading.CancellationToken ct) { while (true) { await OnityTask.NextFrame(ct); resumed++; } }

        static async OnityTask<long> AwaitSources(int n)
        {
            long sum = 0;
            for (int i = 0; i < n; i++)
            {
                var s = AutoResetOnityCompletionSource<int>.Create();
                pending = s;
                sum += await s.Task;
            }
            return sum;
        }

        // An AsyncReactiveProperty's reader awaiting its stream (the parity-rx benchmark row).
        static async OnityTask ReactiveReader(IOnityAsyncEnumerable<int> s)
        {
            var e = s.GetAsyncEnumerator();
            while (await e.MoveNextAsync()) resumed += e.Current;
        }

#pragma warning disable 1998
        static async OnityTask<int> CompletedTyped(int i) { return i + 1; }
#pragma warning restore 1998

        static void Frame()
        {
            frame++;
            rt.BeginFrame(frame, 1.0 / 60, 1.0 / 60, frame / 60.0);
            rt.Tick(OnityTiming.Update);
        }

        public static int Main(string[] args)
        {
            if (args.Length != 3)
            {
                Console.Error.WriteLine("usage: Icount.exe flow(0|1) nextframe|yield|nextframetask|nextframetoken|manual|completed|whenany32|reactive|idleframe|idleframenoskip count");
                return 2;
            }
            OnityContextFlow.Enabled = args[0] == "1";
            int count = int.Parse(args[2]);
            rt = new OnityRuntime(65536);
            // scripts/icount-csharp.sh: capture on (a binding compiled with ONITY_SITES records sites).
            if (Environment.GetEnvironmentVariable("ONITY_ICOUNT_SITES") == "1") rt.SiteCapture = true;
            switch (args[1])
            {
                case "nextframe":
                case "yield":
                case "nextframetask":
                case "nextframetoken":
                    // count frames of 1024 tasks (+ 20 warm-up frames)
                    var cts = new System.Threading.CancellationTokenSource();
                    for (int i = 0; i < 1024; i++)
                    {
                        if (args[1] == "yield") YieldLoop().Forget();
                        else if (args[1] == "nextframetask") NextFrameTaskLoop().Forget();
                        else if (args[1] == "nextframetoken") NextFrameTokenLoop(cts.Token).Forget();
                        else NextFrameLoop().Forget();
                    }
                    for (int f = 0; f < 20 + count; f++) Frame();
                    if (resumed != 1024L * (20 + count)) throw new Exception("resumed " + resumed);
                    break;
                case "idleframe":
                case "idleframenoskip":
                    {
                        // count whole frames with nothing pending: BeginFrame, then a Tick of each
                        // of the 16 timings (idleframenoskip: SkipIdleTicks off, every Tick calls).
                        // (The first frame's ticks call: the native side has not published idle yet.)
                        rt.SkipIdleTicks = args[1] == "idleframe";
                        long s0 = 0;
                        for (int f = -1; f < count; f++)
                        {
                            frame++;
                            rt.BeginFrame(frame, 1.0 / 60, 1.0 / 60, frame / 60.0);
                            for (int t = 0; t < 16; t++) rt.Tick((OnityTiming)t);
                            if (f == -1) s0 = rt.SkippedTicks;
                        }
                        if (rt.SkippedTicks - s0 != (rt.SkipIdleTicks ? 16L * count : 0)) throw new Exception("skipped " + (rt.SkippedTicks - s0));
                        break;
                    }
                case "manual":
                    {
                        var t = AwaitSources(count);
                        for (int i = 0; i < count; i++) pending.TrySetResult(1);
                        if (t.GetAwaiter().GetResult() != count) throw new Exception("sum");
                        break;
                    }
                case "completed":
                    {
                        long acc = 0;
                        for (int i = 0; i < count; i++) acc += CompletedTyped(i).GetAwaiter().GetResult();
                        if (acc != (long)count * (count + 1) / 2) throw new Exception("acc");
                        break;
                    }
                case "reactive":
                    {
                        var prop = new OnityAsyncReactiveProperty<int>(0);
                        var reader = ReactiveReader(prop.WithoutCurrent());
                        for (int i = 0; i < count; i++) prop.Value = 1;
                        prop.Dispose();
                        if (resumed != count || reader.Status != OnityTaskStatus.Succeeded) throw new Exception("reader");
                        break;
                    }
                case "whenany32":
                    {
                        var srcs = new AutoResetOnityCompletionSource[32];
                        var tasks = new OnityTask[32];
                        for (int g = 0; g < count; g++)
                        {
                            for (int i = 0; i < 32; i++) { srcs[i] = AutoResetOnityCompletionSource.Create(); tasks[i] = srcs[i].Task; }
                            var any = OnityTask.WhenAny(tasks);
                            for (int i = 31; i >= 0; i--) srcs[i].TrySetResult();
                            if (any.GetAwaiter().GetResult() != 31) throw new Exception("winner");
                        }
                        break;
                    }
                default:
                    Console.Error.WriteLine("unknown workload " + args[1]);
                    return 2;
            }
            return 0;
        }
    }
}
