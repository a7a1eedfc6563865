// Frame-protocol rows (docs/frame-protocol-measured.md): a whole frame as the Unity integration
// runs it (BeginFrame, then a Tick of each of the 16 timings), side by side with UniTask's whole
// player-loop frame (Time.frameCount advanced, then every system UniTask injected: a yield queue
// and a runner per PlayerLoopTiming, 14 timings in the 2.2.5 build here, 28 systems).
// "idleframe": that frame with nothing pending (runs by default). "frameproto" (named explicitly)
// adds NextFrame and Yield loops of 1, 64 and 4096 tasks on Update under those whole frames
// (Bench.cs FrameScenario, whole: true).
// Compiled with ONITY_FRAME_VARIANTS (the throwaway patch docs/frame-protocol-variants.patch
// applied), every row also measures the variants of the frame protocol's C# read side:
// onity-noskip (SkipIdleTicks off: every Tick calls), onity-callframe (BeginFrame always calls
// onity_runtime_frame_begin), onity-askcore (a frame wait's IsCompleted makes one native call),
// with their ratios to onity.
using System;
using System.Collections.Generic;
#if ONITY_BENCH_UNITASK
using UnityEngine.LowLevel;
#endif

namespace Onity.Bench
{
    public static partial class Program
    {
        const int TimingCount = 16;

        /// <summary>One whole frame: BeginFrame, then a Tick of every timing in order.</summary>
        static void WholeFrame()
        {
            frame++;
            rt.BeginFrame(frame, 1.0 / 60, 1.0 / 60, frame / 60.0);
            for (int t = 0; t < TimingCount; t++) rt.Tick((OnityTiming)t);
        }

        /// <summary>The implementation under the switches of the frame-protocol variants (none
        /// unless compiled with ONITY_FRAME_VARIANTS).</summary>
        static List<Impl> WithFrameVariants(Impl onity)
        {
            var list = new List<Impl> { onity };
#if ONITY_FRAME_VARIANTS
            var set = onity.Set;
            list.Add(new Impl("onity-noskip", () =>
            {
                rt.SkipIdleTicks = false;
                try { return set(); }
                finally { rt.SkipIdleTicks = true; }
            }));
            foreach (var v in new[] { OnityRuntime.FrameVariantCallFrame, OnityRuntime.FrameVariantAskCore })
            {
                int variant = v;
                list.Add(new Impl(variant == OnityRuntime.FrameVariantCallFrame ? "onity-callframe" : "onity-askcore", () =>
                {
                    OnityRuntime.FrameVariant = variant;
                    try { return set(); }
                    finally { OnityRuntime.FrameVariant = OnityRuntime.FrameVariantMain; }
                }));
            }
#endif
            return list;
        }

        static void CompareToMain(string scenario, Impl onity, Impl ut)
        {
            var list = WithFrameVariants(onity);
            list.Add(ut);
            variantRatios = true;
            try { Compare(scenario, list.ToArray()); }
            finally { variantRatios = false; }
        }

        /// <summary>A whole frame with nothing pending, per frame.</summary>
        static void IdleFrameScenario()
        {
            const int frames = 1000;
            var m = rt.GetManagedStats();
            Check(m.PendingWaits == 0 && m.FastLaneWaits == 0, "idle frame: nothing pending before it");
            WholeFrame();
            string skipped = "idle frame: every Tick skipped its call (or none, with SkipIdleTicks off)";
            var onity = new Impl("onity", () =>
            {
                long s0 = rt.SkippedTicks;
                for (int f = 0; f < frames; f++) WholeFrame();
                Check(rt.SkippedTicks - s0 == (rt.SkipIdleTicks ? (long)TimingCount * frames : 0), skipped);
                return frames;
            });
            CompareToMain("idle frame: BeginFrame + 16 Ticks, nothing pending (ns per frame)", onity, UtIdleFrames(frames));
        }

        static void FrameProtocolScenarios(Func<string, bool> on, bool frameproto)
        {
            if (on("idleframe") || frameproto) IdleFrameScenario();
            if (!frameproto) return;
            foreach (var kind in new[] { "nextframe", "yield" })
                foreach (int n in new[] { 1, 64, 4096 })
                    FrameScenario(kind, n, n == 1 ? 1000 : n == 64 ? 100 : 4, false, true); // Bench.cs
        }

#if ONITY_BENCH_UNITASK
        static PlayerLoopSystem.UpdateFunction[] utAllUpdates;

        /// <summary>UniTask's whole frame: Time.frameCount advanced, then every system it
        /// injected into the player loop, in player-loop order.</summary>
        static void UtWholeFrame()
        {
            if (utAllUpdates == null)
            {
                var all = new List<PlayerLoopSystem.UpdateFunction>();
                foreach (var phase in PlayerLoop.GetCurrentPlayerLoop().subSystemList)
                    foreach (var s in phase.subSystemList ?? new PlayerLoopSystem[0])
                        if (s.type != null && s.type.DeclaringType == typeof(Cysharp.Threading.Tasks.UniTaskLoopRunners)) all.Add(s.updateDelegate);
                if (all.Count < 28) throw new Exception("UniTask: expected a yield queue and a runner per timing, found " + all.Count + " systems");
                utAllUpdates = all.ToArray();
            }
            UnityEngine.Time.s_frameCount = ++utFrameCount;
            var u = utAllUpdates;
            for (int i = 0; i < u.Length; i++) u[i]();
        }

        static Impl UtIdleFrames(int frames)
        {
            UtWholeFrame();
            return new Impl("unitask", () =>
            {
                for (int f = 0; f < frames; f++) UtWholeFrame();
                return frames;
            });
        }
#else
        static Impl UtIdleFrames(int frames) { return null; }
#endif
    }
}
