// Awaiting Unity AsyncOperations, side by side with UniTask: the operations are the test stand-in's
// (tests/unity/StandIn), completed by the benchmark as the engine would (isDone, then the
// completed event). Compiled when the benchmark is built against the stand-in (ONITY_UNITY_STANDIN,
// scripts/build-csharp-bench.sh); the UniTask side also needs ONITY_BENCH_UNITASK.
using System;
#if ONITY_UNITY_STANDIN
using UnityEngine;
#endif

namespace Onity.Bench
{
    public static partial class Program
    {
#if !ONITY_UNITY_STANDIN
        static void AsyncOperationScenarios() { Console.WriteLine("# AsyncOperation scenarios skipped: not built against the UnityEngine stand-in"); }
#else
        static AsyncOperation[] NewOps(int n)
        {
            var ops = new AsyncOperation[n];
            for (int i = 0; i < n; i++) ops[i] = new AsyncOperation();
            return ops;
        }

        /// <summary>The engine starting the operations again (isDone false).</summary>
        static void Restart(AsyncOperation[] ops)
        {
            for (int i = 0; i < ops.Length; i++) { ops[i].m_IsDone = false; ops[i].m_Progress = 0f; }
        }

        static void Finish(AsyncOperation[] ops)
        {
            for (int i = 0; i < ops.Length; i++) ops[i].StandInFinish();
        }

        static async OnityTask<long> AwaitEach(AsyncOperation[] ops)
        {
            long n = 0;
            for (int i = 0; i < ops.Length; i++) { await ops[i]; n++; }
            return n;
        }

        static long polledResumes;
        static bool polledStop;

        static async OnityTask PolledLoop(AsyncOperation op)
        {
            while (!polledStop)
            {
                op.m_IsDone = false;
                await op.ToOnityTask();
                polledResumes++;
            }
        }

        static void AsyncOperationScenarios()
        {
            const int n = 20000;
            var done = NewOps(n);
            Finish(done);
            Compare("await a completed AsyncOperation",
                new Impl("onity", () =>
                {
                    Check(AwaitEach(done).GetAwaiter().GetResult() == n, "completed ops");
                    return n;
                }),
                UtAwaitCompletedOps(done));

            var pending = NewOps(n);
            Compare("await a pending AsyncOperation (completed event)",
                new Impl("onity", () =>
                {
                    Restart(pending);
                    var t = AwaitEach(pending);
                    Finish(pending);
                    Check(t.GetAwaiter().GetResult() == n, "pending ops");
                    return n;
                }),
                UtAwaitPendingOps(pending));

            // Polled: 1024 loops, each awaiting its op's ToOnityTask (Update); a frame finishes every
            // op, the Update run completes each task and the loop awaits its restarted op again.
            const int loops = 1024, frames = 10;
            var ops = NewOps(loops);
            polledStop = false;
            polledResumes = 0;
            var tasks = new OnityTask[loops];
            for (int i = 0; i < loops; i++) tasks[i] = PolledLoop(ops[i]);
            string everyOnce = "polled: every op awaited once per frame";
            Action stopUt;
            var ut = UtPolledOps(loops, frames, out stopUt);
            Compare("await op.ToOnityTask() of a pending AsyncOperation (polled, ns per op-frame), " + loops + " ops",
                new Impl("onity", () =>
                {
                    long r0 = polledResumes;
                    for (int f = 0; f < frames; f++)
                    {
                        Finish(ops);
                        Frame();
                    }
                    Check(polledResumes - r0 == (long)frames * loops, everyOnce);
                    return (long)frames * loops;
                }),
                ut);
            polledStop = true;
            Finish(ops);
            Frame();
            foreach (var t in tasks) { Check(t.Status == OnityTaskStatus.Succeeded, "polled loop ended"); t.GetAwaiter().GetResult(); }
            stopUt();
        }

#if ONITY_BENCH_UNITASK
        static Impl UtAwaitCompletedOps(AsyncOperation[] done)
        {
            int n = done.Length;
            return new Impl("unitask", () =>
            {
                Check(UniTaskBenchSide.UniTaskOps.AwaitEach(done).GetAwaiter().GetResult() == n, "UniTask completed ops");
                return n;
            });
        }

        static Impl UtAwaitPendingOps(AsyncOperation[] pending)
        {
            int n = pending.Length;
            return new Impl("unitask", () =>
            {
                Restart(pending);
                var t = UniTaskBenchSide.UniTaskOps.AwaitEach(pending);
                Finish(pending);
                Check(t.GetAwaiter().GetResult() == n, "UniTask pending ops");
                return n;
            });
        }

        static Impl UtPolledOps(int loops, int frames, out Action stop)
        {
            var ops = NewOps(loops);
            UniTaskBenchSide.UniTaskOps.Stop = false;
            UniTaskBenchSide.UniTaskOps.Resumes = 0;
            var tasks = new Cysharp.Threading.Tasks.UniTask[loops];
            for (int i = 0; i < loops; i++) tasks[i] = UniTaskBenchSide.UniTaskOps.PolledLoop(ops[i]);
            string everyOnce = "UniTask polled: every op awaited once per frame";
            stop = () =>
            {
                UniTaskBenchSide.UniTaskOps.Stop = true;
                Finish(ops);
                UtFrame();
                foreach (var t in tasks)
                {
                    Check(t.Status == Cysharp.Threading.Tasks.UniTaskStatus.Succeeded, "UniTask polled loop ended");
                    t.GetAwaiter().GetResult();
                }
            };
            return new Impl("unitask", () =>
            {
                long r0 = UniTaskBenchSide.UniTaskOps.Resumes;
                for (int f = 0; f < frames; f++)
                {
                    Finish(ops);
                    UtFrame();
                }
                Check(UniTaskBenchSide.UniTaskOps.Resumes - r0 == (long)frames * loops, everyOnce);
                return (long)frames * loops;
            });
        }
#else
        static Impl UtAwaitCompletedOps(AsyncOperation[] done) { return null; }
        static Impl UtAwaitPendingOps(AsyncOperation[] pending) { return null; }
        static Impl UtPolledOps(int loops, int frames, out Action stop) { stop = () => { }; return null; }
#endif
#endif
    }
}

#if ONITY_UNITY_STANDIN && ONITY_BENCH_UNITASK
// Outside the Onity namespace: there `await op` binds to Onity's GetAwaiter extension first.
namespace UniTaskBenchSide
{
    using Cysharp.Threading.Tasks;

    static class UniTaskOps
    {
        internal static bool Stop;
        internal static long Resumes;

        internal static async UniTask<long> AwaitEach(AsyncOperation[] ops)
        {
            long n = 0;
            for (int i = 0; i < ops.Length; i++) { await ops[i]; n++; }
            return n;
        }

        internal static async UniTask PolledLoop(AsyncOperation op)
        {
            while (!Stop)
            {
                op.m_IsDone = false;
                await op.ToUniTask();
                Resumes++;
            }
        }
    }
}
#endif
