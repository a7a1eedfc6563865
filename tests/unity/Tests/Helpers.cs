using System;
using System.Collections.Generic;
using System.Threading;
using Onity.Unity;
using UnityEngine;

namespace Onity.UnityTests
{
    /// <summary>Where and when a continuation ran.</summary>
    public struct Stamp
    {
        public int Frame;
        public Type System;
        public bool InFixedStep;
        public int ThreadId;
        public bool Canceled;

        public static Stamp Now()
        {
            // Time is main-thread API (UnityException elsewhere): off it only the thread is known.
            if (Thread.CurrentThread != Sim.MainThread) return new Stamp { Frame = -1, ThreadId = Thread.CurrentThread.ManagedThreadId };
            return new Stamp { Frame = Time.frameCount, System = Sim.CurrentSystem, InFixedStep = Time.inFixedTimeStep, ThreadId = Thread.CurrentThread.ManagedThreadId };
        }

        /// <summary>Awaits <paramref name="task"/> and adds where and when it resumed (canceled
        /// marked) to <paramref name="into"/>.</summary>
        public static async OnityTask Record(OnityTask task, List<Stamp> into)
        {
            var s = default(Stamp);
            try
            {
                await task;
                s = Now();
            }
            catch (OperationCanceledException)
            {
                s = Now();
                s.Canceled = true;
            }
            into.Add(s);
        }

        public override string ToString()
        {
            return "frame " + Frame + " in " + (System == null ? "<between frames>" : System.Name) + (Canceled ? " (canceled)" : "");
        }
    }

    /// <summary>A MonoBehaviour that runs queued actions from its Update (ScriptRunBehaviourUpdate),
    /// so tests start work inside the frame the way game code does.</summary>
    public sealed class Probe : MonoBehaviour
    {
        public readonly Queue<Action<Probe>> OnUpdate = new Queue<Action<Probe>>();
        public int Updates;

        void Update()
        {
            Updates++;
            // Only what was queued before this Update: actions may queue more for the next one.
            for (int n = OnUpdate.Count; n > 0; n--) OnUpdate.Dequeue()(this);
        }

        public static Probe Create(string name = "probe")
        {
            return new GameObject(name).AddComponent<Probe>();
        }

        /// <summary>Enters play mode, makes a probe and runs two frames (the loop is then warm).</summary>
        public static Probe EnterPlayMode()
        {
            Sim.EnterPlayMode();
            var probe = Create();
            Sim.RunFrames(2);
            return probe;
        }
    }

    public static class Sys
    {
        public static Type Of(OnityTiming t) { return OnityLoopRunners.ForTiming(t); }
    }
}
