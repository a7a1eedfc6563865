// Test-only stand-in of the UnityEngine API surface the Onity package and sample use.
// Signatures follow Unity's C# reference source (Unity-Technologies/UnityCsReference,
// Runtime/Export/PlayerLoop/PlayerLoop.bindings.cs). Never shipped.
using System;
using System.Collections.Generic;

namespace UnityEngine.PlayerLoop
{
    // The phase types and the subset of their native subsystems the simulated default loop
    // contains (names as in Unity 2022.3).
    public struct TimeUpdate
    {
        public struct WaitForLastPresentationAndUpdateTime {}
    }

    public struct Initialization
    {
        public struct ProfilerStartFrame {}
        // [Obsolete(error)] in 2022.3, as in Unity: code naming it does not compile.
        [Obsolete("PlayerUpdateTime player loop component has been moved to its own category called TimeUpdate. (UnityUpgradable) -> UnityEngine.PlayerLoop.TimeUpdate/WaitForLastPresentationAndUpdateTime", true)]
        public struct PlayerUpdateTime {}
        public struct UpdateCameraMotionVectors {}
        public struct DirectorSampleTime {}
        public struct AsyncUploadTimeSlicedUpdate {}
        public struct SynchronizeState {}
        public struct SynchronizeInputs {}
        public struct XREarlyUpdate {}
    }

    public struct EarlyUpdate
    {
        public struct PollPlayerConnection {}
        // Moved to Initialization; [Obsolete(error)] here in 2022.3.
        [Obsolete("ProfilerStartFrame player loop component has been moved to the Initialization category. (UnityUpgradable) -> UnityEngine.PlayerLoop.Initialization/ProfilerStartFrame", true)]
        public struct ProfilerStartFrame {}
        public struct UnityWebRequestUpdate {}
        public struct ExecuteMainThreadJobs {}
        public struct UpdateAsyncReadbackManager {}
        public struct UpdatePreloading {}
        public struct UpdateInputManager {}
        public struct ScriptRunDelayedStartupFrame {}
        public struct PerformanceAnalyticsUpdate {}
    }

    public struct FixedUpdate
    {
        public struct ClearLines {}
        public struct DirectorFixedSampleTime {}
        public struct AudioFixedUpdate {}
        public struct ScriptRunBehaviourFixedUpdate {}
        public struct DirectorFixedUpdate {}
        public struct LegacyFixedAnimationUpdate {}
        public struct XRFixedUpdate {}
        public struct PhysicsFixedUpdate {}
        public struct Physics2DFixedUpdate {}
        public struct DirectorFixedUpdatePostPhysics {}
        public struct ScriptRunDelayedFixedFrameRate {}
    }

    public struct PreUpdate
    {
        public struct PhysicsUpdate {}
        public struct Physics2DUpdate {}
        public struct CheckTexFieldInput {}
        public struct IMGUISendQueuedEvents {}
        public struct SendMouseEvents {}
        public struct AIUpdate {}
        public struct WindUpdate {}
        public struct UpdateVideo {}
    }

    public struct Update
    {
        public struct ScriptRunBehaviourUpdate {}
        public struct DirectorUpdate {}
        public struct ScriptRunDelayedDynamicFrameRate {}
        public struct ScriptRunDelayedTasks {}
    }

    public struct PreLateUpdate
    {
        public struct AIUpdatePostScript {}
        public struct DirectorUpdateAnimationBegin {}
        public struct LegacyAnimationUpdate {}
        public struct DirectorUpdateAnimationEnd {}
        public struct DirectorDeferredEvaluate {}
        public struct EndGraphicsJobsAfterScriptUpdate {}
        public struct ConstraintManagerUpdate {}
        public struct ParticleSystemBeginUpdateAll {}
        public struct ScriptRunBehaviourLateUpdate {}
    }

    public struct PostLateUpdate
    {
        public struct PlayerSendFrameStarted {}
        public struct DirectorLateUpdate {}
        public struct ScriptRunDelayedDynamicFrameRate {}
        public struct UpdateRectTransform {}
        public struct PlayerUpdateCanvases {}
        public struct UpdateAudio {}
        public struct ParticleSystemEndUpdateAll {}
        public struct UpdateAllRenderers {}
        public struct FinishFrameRendering {}
        public struct PresentAfterDraw {}
        public struct ProfilerEndFrame {}
        public struct TriggerEndOfFrameCallbacks {}
        public struct MemoryFrameMaintenance {}
    }
}

namespace UnityEngine.LowLevel
{
    public struct PlayerLoopSystem
    {
        public Type type;
        public PlayerLoopSystem[] subSystemList;
        public UpdateFunction updateDelegate;
        public IntPtr updateFunction;
        public IntPtr loopConditionFunction;

        public delegate void UpdateFunction();

        public override string ToString() { return type.Name; }
    }

    public class PlayerLoop
    {
        static PlayerLoopSystem current = RoundTrip(BuildDefault());
        internal static int SetCount;

        // Unity keeps the loop natively as a flat array (each entry with its number of
        // descendants) and converts on every get and set: callers always get a fresh copy, and a
        // system with no subsystems, a leaf or a list set empty, comes back with
        // subSystemList == null (PlayerLoop.bindings.cs, InternalToPlayerLoopSystem).
        public static PlayerLoopSystem GetDefaultPlayerLoop() { return RoundTrip(BuildDefault()); }

        public static PlayerLoopSystem GetCurrentPlayerLoop() { return RoundTrip(current); }

        public static void SetPlayerLoop(PlayerLoopSystem loop)
        {
            current = RoundTrip(loop);
            SetCount++;
        }

        internal static void ResetToDefault() { current = RoundTrip(BuildDefault()); }

        internal static PlayerLoopSystem Peek() { return current; }

        struct Flat
        {
            public PlayerLoopSystem System; // subSystemList unused
            public int Descendants;
        }

        static PlayerLoopSystem RoundTrip(PlayerLoopSystem loop)
        {
            var flat = new List<Flat>();
            Flatten(loop, flat);
            int at = 0;
            return Rebuild(flat, ref at);
        }

        static int Flatten(PlayerLoopSystem s, List<Flat> into)
        {
            int me = into.Count;
            into.Add(new Flat { System = s });
            int n = 0;
            if (s.subSystemList != null)
                for (int i = 0; i < s.subSystemList.Length; i++) n += Flatten(s.subSystemList[i], into);
            into[me] = new Flat { System = s, Descendants = n };
            return n + 1;
        }

        static PlayerLoopSystem Rebuild(List<Flat> flat, ref int at)
        {
            int me = at++;
            var s = flat[me].System;
            s.subSystemList = null;
            if (flat[me].Descendants > 0)
            {
                var subs = new List<PlayerLoopSystem>();
                while (at <= me + flat[me].Descendants) subs.Add(Rebuild(flat, ref at));
                s.subSystemList = subs.ToArray();
            }
            return s;
        }

        static PlayerLoopSystem Native(Type t) { return new PlayerLoopSystem { type = t, updateFunction = new IntPtr(1) }; }

        static PlayerLoopSystem Phase(Type t, params Type[] subs)
        {
            var list = new PlayerLoopSystem[subs.Length];
            for (int i = 0; i < subs.Length; i++) list[i] = Native(subs[i]);
            return new PlayerLoopSystem { type = t, subSystemList = list };
        }

        // Unity 2022.3's phase order: TimeUpdate runs first, then Initialization ... PostLateUpdate.
        static PlayerLoopSystem BuildDefault()
        {
            return new PlayerLoopSystem
            {
                type = null,
                subSystemList = new[]
                {
                    Phase(typeof(UnityEngine.PlayerLoop.TimeUpdate), typeof(UnityEngine.PlayerLoop.TimeUpdate.WaitForLastPresentationAndUpdateTime)),
                    Phase(typeof(UnityEngine.PlayerLoop.Initialization),
                        typeof(UnityEngine.PlayerLoop.Initialization.ProfilerStartFrame), typeof(UnityEngine.PlayerLoop.Initialization.UpdateCameraMotionVectors),
                        typeof(UnityEngine.PlayerLoop.Initialization.DirectorSampleTime), typeof(UnityEngine.PlayerLoop.Initialization.AsyncUploadTimeSlicedUpdate),
                        typeof(UnityEngine.PlayerLoop.Initialization.SynchronizeState), typeof(UnityEngine.PlayerLoop.Initialization.SynchronizeInputs),
                        typeof(UnityEngine.PlayerLoop.Initialization.XREarlyUpdate)),
                    Phase(typeof(UnityEngine.PlayerLoop.EarlyUpdate),
                        typeof(UnityEngine.PlayerLoop.EarlyUpdate.PollPlayerConnection),
                        typeof(UnityEngine.PlayerLoop.EarlyUpdate.UnityWebRequestUpdate), typeof(UnityEngine.PlayerLoop.EarlyUpdate.ExecuteMainThreadJobs),
                        typeof(UnityEngine.PlayerLoop.EarlyUpdate.UpdateAsyncReadbackManager), typeof(UnityEngine.PlayerLoop.EarlyUpdate.UpdatePreloading),
                        typeof(UnityEngine.PlayerLoop.EarlyUpdate.UpdateInputManager), typeof(UnityEngine.PlayerLoop.EarlyUpdate.ScriptRunDelayedStartupFrame),
                        typeof(UnityEngine.PlayerLoop.EarlyUpdate.PerformanceAnalyticsUpdate)),
                    Phase(typeof(UnityEngine.PlayerLoop.FixedUpdate),
                        typeof(UnityEngine.PlayerLoop.FixedUpdate.ClearLines), typeof(UnityEngine.PlayerLoop.FixedUpdate.DirectorFixedSampleTime),
                        typeof(UnityEngine.PlayerLoop.FixedUpdate.AudioFixedUpdate), typeof(UnityEngine.PlayerLoop.FixedUpdate.ScriptRunBehaviourFixedUpdate),
                        typeof(UnityEngine.PlayerLoop.FixedUpdate.DirectorFixedUpdate), typeof(UnityEngine.PlayerLoop.FixedUpdate.LegacyFixedAnimationUpdate),
                        typeof(UnityEngine.PlayerLoop.FixedUpdate.XRFixedUpdate), typeof(UnityEngine.PlayerLoop.FixedUpdate.PhysicsFixedUpdate),
                        typeof(UnityEngine.PlayerLoop.FixedUpdate.Physics2DFixedUpdate), typeof(UnityEngine.PlayerLoop.FixedUpdate.DirectorFixedUpdatePostPhysics),
                        typeof(UnityEngine.PlayerLoop.FixedUpdate.ScriptRunDelayedFixedFrameRate)),
                    Phase(typeof(UnityEngine.PlayerLoop.PreUpdate),
                        typeof(UnityEngine.PlayerLoop.PreUpdate.PhysicsUpdate), typeof(UnityEngine.PlayerLoop.PreUpdate.Physics2DUpdate),
                        typeof(UnityEngine.PlayerLoop.PreUpdate.CheckTexFieldInput), typeof(UnityEngine.PlayerLoop.PreUpdate.IMGUISendQueuedEvents),
                        typeof(UnityEngine.PlayerLoop.PreUpdate.SendMouseEvents), typeof(UnityEngine.PlayerLoop.PreUpdate.AIUpdate),
                        typeof(UnityEngine.PlayerLoop.PreUpdate.WindUpdate), typeof(UnityEngine.PlayerLoop.PreUpdate.UpdateVideo)),
                    Phase(typeof(UnityEngine.PlayerLoop.Update),
                        typeof(UnityEngine.PlayerLoop.Update.ScriptRunBehaviourUpdate), typeof(UnityEngine.PlayerLoop.Update.DirectorUpdate),
                        typeof(UnityEngine.PlayerLoop.Update.ScriptRunDelayedDynamicFrameRate), typeof(UnityEngine.PlayerLoop.Update.ScriptRunDelayedTasks)),
                    Phase(typeof(UnityEngine.PlayerLoop.PreLateUpdate),
                        typeof(UnityEngine.PlayerLoop.PreLateUpdate.AIUpdatePostScript), typeof(UnityEngine.PlayerLoop.PreLateUpdate.DirectorUpdateAnimationBegin),
                        typeof(UnityEngine.PlayerLoop.PreLateUpdate.LegacyAnimationUpdate), typeof(UnityEngine.PlayerLoop.PreLateUpdate.DirectorUpdateAnimationEnd),
                        typeof(UnityEngine.PlayerLoop.PreLateUpdate.DirectorDeferredEvaluate), typeof(UnityEngine.PlayerLoop.PreLateUpdate.EndGraphicsJobsAfterScriptUpdate),
                        typeof(UnityEngine.PlayerLoop.PreLateUpdate.ConstraintManagerUpdate), typeof(UnityEngine.PlayerLoop.PreLateUpdate.ParticleSystemBeginUpdateAll),
                        typeof(UnityEngine.PlayerLoop.PreLateUpdate.ScriptRunBehaviourLateUpdate)),
                    Phase(typeof(UnityEngine.PlayerLoop.PostLateUpdate),
                        typeof(UnityEngine.PlayerLoop.PostLateUpdate.PlayerSendFrameStarted), typeof(UnityEngine.PlayerLoop.PostLateUpdate.DirectorLateUpdate),
                        typeof(UnityEngine.PlayerLoop.PostLateUpdate.ScriptRunDelayedDynamicFrameRate), typeof(UnityEngine.PlayerLoop.PostLateUpdate.UpdateRectTransform),
                        typeof(UnityEngine.PlayerLoop.PostLateUpdate.PlayerUpdateCanvases), typeof(UnityEngine.PlayerLoop.PostLateUpdate.UpdateAudio),
                        typeof(UnityEngine.PlayerLoop.PostLateUpdate.ParticleSystemEndUpdateAll), typeof(UnityEngine.PlayerLoop.PostLateUpdate.UpdateAllRenderers),
                        typeof(UnityEngine.PlayerLoop.PostLateUpdate.FinishFrameRendering), typeof(UnityEngine.PlayerLoop.PostLateUpdate.PresentAfterDraw),
                        typeof(UnityEngine.PlayerLoop.PostLateUpdate.ProfilerEndFrame), typeof(UnityEngine.PlayerLoop.PostLateUpdate.TriggerEndOfFrameCallbacks),
                        typeof(UnityEngine.PlayerLoop.PostLateUpdate.MemoryFrameMaintenance)),
                },
            };
        }
    }
}
