using System;
using System.Collections.Generic;
using System.Threading;
using Onity.Unity;
using UnityEngine;

namespace Onity.UnityTests
{
    /// <summary>Issue 31 #2.2: main-thread-only engine API throws UnityException off the main
    /// thread, as in Unity; code resumed by Onity after work on other threads may use it.</summary>
    public class MainThreadApiTests
    {
        static Exception OnWorker(Action a)
        {
            Exception caught = null;
            var t = new Thread(() => { try { a(); } catch (Exception e) { caught = e; } });
            t.Start();
            t.Join();
            return caught;
        }

        [Test]
        public void EngineApi_ThrowsUnityExceptionOffTheMainThread()
        {
            Sim.EnterPlayMode();
            var go = new GameObject("g");
            var probe = go.AddComponent<Probe>();
            var calls = new Dictionary<string, Action>
            {
                { "get_frameCount", () => { var _ = Time.frameCount; } },
                { "get_deltaTime", () => { var _ = Time.deltaTime; } },
                { "get_realtimeSinceStartupAsDouble", () => { var _ = Time.realtimeSinceStartupAsDouble; } },
                { "Internal_CreateGameObject", () => new GameObject("worker") },
                { "Internal_AddComponentWithType", () => go.AddComponent<Probe>() },
                { "GetComponentFastPath", () => go.GetComponent<Probe>() },
                { "get_gameObject", () => { var _ = probe.gameObject; } },
                { "get_enabled", () => { var _ = probe.enabled; } },
                { "Destroy", () => UnityEngine.Object.Destroy(go) },
            };
            foreach (var kv in calls)
            {
                var e = OnWorker(kv.Value);
                Assert.True(e is UnityException, kv.Key + " threw UnityException on a worker, got " + (e == null ? "nothing" : e.GetType().Name));
                Assert.Contains(kv.Key + " can only be called from the main thread", e.Message, kv.Key + ": Unity's message");
                kv.Value(); // and works on the main thread
            }
        }

        static async OnityTask UseEngineAfter(OnityTask<int> fromWorker, List<string> log)
        {
            int v = await fromWorker;
            var go = new GameObject("made after " + v);
            go.AddComponent<Probe>();
            log.Add(go.name + " at frame " + (Time.frameCount > 0));
            await OnityTask.SwitchToThreadPool();
            await OnityTask.SwitchToMainThread();
            UnityEngine.Object.Destroy(go);
            log.Add("destroyed");
        }

        /// <summary>A binding that resumed a continuation on the completing worker (or left
        /// SwitchToMainThread on the pool) would make this game code throw UnityException.</summary>
        [Test]
        public void ContinuationsAfterWorkerCompletion_MayUseMainThreadApi()
        {
            Sim.EnterPlayMode();
            var src = new OnityCompletionSource<int>();
            var log = new List<string>();
            UseEngineAfter(src.Task, log).Forget();
            Sim.RunFrames(1);
            var w = new Thread(() => src.TrySetResult(5));
            w.Start();
            w.Join();
            for (int i = 0; i < 2000 && log.Count < 2; i++) { Sim.RunFrame(); Thread.Sleep(1); }
            Assert.Equal("made after 5 at frame True,destroyed", string.Join(",", log), "ran to the end");
            Assert.Equal(0, Debug.Exceptions.Count, "no UnityException");
        }
    }
}
