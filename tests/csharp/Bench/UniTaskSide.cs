// The UniTask column of the benchmark: the same workloads written with UniTask 2.2.5, compiled
// into this program from the npm package (scripts/fetch-unitask.sh) when ONITY_BENCH_UNITASK is
// defined, and driven through the test stand-in of UnityEngine's player loop: each frame
// advances Time.frameCount and runs UniTask's two Update systems (its yield queue, then its
// runner of frame-polled items), as Unity's PlayerLoop would. Without the define every factory
// returns null and the column is left out.
using System;
using System.Reflection;
#if ONITY_BENCH_UNITASK
using Cysharp.Threading.Tasks;
using UnityEngine.LowLevel;
#endif

namespace Onity.Bench
{
    public static partial class Program
    {
#if ONITY_BENCH_UNITASK
        static PlayerLoopSystem.UpdateFunction utYieldUpdate, utRunnerUpdate;
        static int utFrameCount;
        static bool utStop;
        static long utResumed;

        static string UniTaskInit()
        {
            // What Unity does at RuntimeInitializeOnLoadMethod(BeforeSceneLoad): records the main
            // thread and injects UniTask's systems into the current player loop.
            var init = typeof(PlayerLoopHelper).GetMethod("Init", BindingFlags.NonPublic | BindingFlags.Static);
            if (init == null) throw new Exception("UniTask: PlayerLoopHelper.Init not found");
            init.Invoke(null, null);
            foreach (var phase in PlayerLoop.GetCurrentPlayerLoop().subSystemList)
                foreach (var s in phase.subSystemList ?? new PlayerLoopSystem[0])
                {
                    if (s.type == typeof(UniTaskLoopRunners.UniTaskLoopRunnerYieldUpdate)) utYieldUpdate = s.updateDelegate;
                    if (s.type == typeof(UniTaskLoopRunners.UniTaskLoopRunnerUpdate)) utRunnerUpdate = s.updateDelegate;
                }
            if (utYieldUpdate == null || utRunnerUpdate == null) throw new Exception("UniTask: Update systems not injected");
            return "UniTask 2.2.5 (com.cysharp.unitask from npm, compiled into this program)";
        }

        static void UtFrame()
        {
            UnityEngine.Time.s_frameCount = ++utFrameCount;
            utYieldUpdate();
            utRunnerUpdate();
        }

        static void UtFrame(bool whole)
        {
            if (whole) UtWholeFrame();
            else UtFrame();
        }

        static async UniTask UtNextFrameLoop() { while (!utStop) { await UniTask.NextFrame(); utResumed++; } }
        static async UniTask UtYieldLoop() { while (!utStop) { await UniTask.Yield(); utResumed++; } }
        static async UniTask UtDelayFrameLoop() { while (!utStop) { await UniTask.DelayFrame(1); utResumed++; } }

        /// <summary>n UniTask loops of the given kind ("nextframe", "yield", "delayframe"), each
        /// resumed once per frame; a set runs <paramref name="frames"/> frames (whole: UniTask's
        /// whole player-loop frames, FrameProtocolBench.cs). The returned action ends the loops
        /// and checks that each finished.</summary>
        static Impl UtFrameLoops(string kind, int n, int frames, out Action stop, bool whole = false)
        {
            utStop = false;
            utResumed = 0;
            var tasks = new UniTask[n];
            for (int i = 0; i < n; i++)
                tasks[i] = kind == "nextframe" ? UtNextFrameLoop() : kind == "yield" ? UtYieldLoop() : UtDelayFrameLoop();
            UtFrame(whole); // first resumption of every loop
            UtFrame(whole);
            stop = () =>
            {
                utStop = true;
                for (int f = 0; f < 3; f++) UtFrame(whole);
                foreach (var t in tasks)
                {
                    Check(t.Status == UniTaskStatus.Succeeded, "UniTask " + kind + " loop ended");
                    t.GetAwaiter().GetResult();
                }
            };
            string everyOnce = "UniTask " + kind + (whole ? " (whole frames)" : "") + ": every task resumed once per frame"; // built once, not in a set
            return new Impl("unitask", () =>
            {
                long r0 = utResumed;
                if (whole) for (int f = 0; f < frames; f++) UtWholeFrame();
                else for (int f = 0; f < frames; f++) UtFrame();
                Check(utResumed - r0 == (long)frames * n, everyOnce);
                return (long)frames * n;
            });
        }

#pragma warning disable 1998
        static async UniTask<int> UtCompletedTyped(int x) { return x + 1; }
        static async UniTask UtCompletedUntyped() { untypedRuns++; }
#pragma warning restore 1998

        static Impl UtCompleted(bool typed, int n)
        {
            if (typed)
                return new Impl("unitask", () =>
                {
                    long acc = 0;
                    for (int i = 0; i < n; i++) acc += UtCompletedTyped(i).GetAwaiter().GetResult();
                    Check(acc == (long)n * (n + 1) / 2, "UniTask completed typed sum");
                    return n;
                });
            return new Impl("unitask", () =>
            {
                long r0 = untypedRuns;
                for (int i = 0; i < n; i++) UtCompletedUntyped().GetAwaiter().GetResult();
                Check(untypedRuns - r0 == n, "UniTask untyped runs");
                return n;
            });
        }

        static AutoResetUniTaskCompletionSource<int> utPending;

        static async UniTask<long> UtAwaitSources(int n)
        {
            long sum = 0;
            for (int i = 0; i < n; i++)
            {
                var s = AutoResetUniTaskCompletionSource<int>.Create();
                utPending = s;
                sum += await s.Task;
            }
            return sum;
        }

        static Impl UtManual(int n)
        {
            return new Impl("unitask", () =>
            {
                var t = UtAwaitSources(n);
                for (int i = 0; i < n; i++) utPending.TrySetResult(1);
                Check(t.GetAwaiter().GetResult() == n, "UniTask manual sum");
                return n;
            });
        }

        static async UniTask<int> UtCycle(AutoResetUniTaskCompletionSource<int> s) { return await s.Task + 1; }

        static Impl UtBuilderCycle(int conc, int rounds)
        {
            var srcs = new AutoResetUniTaskCompletionSource<int>[conc];
            var tasks = new UniTask<int>[conc];
            return new Impl("unitask", () =>
            {
                long sum = 0;
                for (int r = 0; r < rounds; r++)
                {
                    for (int i = 0; i < conc; i++) { srcs[i] = AutoResetUniTaskCompletionSource<int>.Create(); tasks[i] = UtCycle(srcs[i]); }
                    for (int i = 0; i < conc; i++) srcs[i].TrySetResult(i);
                    for (int i = 0; i < conc; i++) sum += tasks[i].GetAwaiter().GetResult();
                }
                Check(sum == (long)rounds * conc * (conc + 1) / 2, "UniTask cycle sum");
                return (long)rounds * conc;
            });
        }

        static Impl UtWhenAny(int n, int groups)
        {
            var srcs = new AutoResetUniTaskCompletionSource[n];
            var tasks = new UniTask[n];
            return new Impl("unitask", () =>
            {
                for (int g = 0; g < groups; g++)
                {
                    for (int i = 0; i < n; i++) { srcs[i] = AutoResetUniTaskCompletionSource.Create(); tasks[i] = srcs[i].Task; }
                    var any = UniTask.WhenAny(tasks);
                    for (int i = n - 1; i >= 0; i--) srcs[i].TrySetResult();
                    if (any.GetAwaiter().GetResult() != n - 1) Check(false, "UniTask.WhenAny winner");
                }
                return groups;
            });
        }
#else
        static string UniTaskInit() { return null; }
        static Impl UtFrameLoops(string kind, int n, int frames, out Action stop, bool whole = false) { stop = () => { }; return null; }
        static Impl UtCompleted(bool typed, int n) { return null; }
        static Impl UtManual(int n) { return null; }
        static Impl UtBuilderCycle(int conc, int rounds) { return null; }
        static Impl UtWhenAny(int n, int groups) { return null; }
#endif
    }
}
