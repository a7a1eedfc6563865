using System;
using System.Collections;
using System.Collections.Generic;
using System.Threading;
using Onity.Unity;
using UnityEngine;

namespace Onity.UnityTests
{
    /// <summary>UniTask's coroutine-runner helpers: WaitForEndOfFrame(MonoBehaviour) completes at
    /// the end of the frame, after the player loop (LastPostLateUpdate included); ToOnityTask(runner)
    /// runs an IEnumerator as the runner's coroutine.</summary>
    public class CoroutineRunnerTests
    {
        [Test]
        public void WaitForEndOfFrame_CompletesAfterThePlayerLoopOfTheSameFrame()
        {
            Sim.EnterPlayMode();
            var probe = Probe.Create();
            Sim.RunFrame();
            var order = new List<string>();
            OnityTask t = default(OnityTask);
            int frame = 0;
            probe.OnUpdate.Enqueue(p =>
            {
                frame = Time.frameCount;
                t = OnityUnityTask.WaitForEndOfFrame(p);
                OnityTask.Post(() => order.Add("LastPostLateUpdate"), OnityTiming.LastPostLateUpdate);
                t.GetAwaiter().UnsafeOnCompleted(() => order.Add("end of frame " + Time.frameCount));
            });
            Sim.RunFrame();
            Assert.Equal(OnityTaskStatus.Succeeded, t.Status, "completed within the frame it was made in");
            Assert.Equal("LastPostLateUpdate,end of frame " + frame, string.Join(",", order), "after the player loop's last timing");
        }

        [Test]
        public void WaitForEndOfFrame_Cancellation()
        {
            Sim.EnterPlayMode();
            var probe = Probe.Create();
            var cts = new CancellationTokenSource();
            var late = OnityUnityTask.WaitForEndOfFrame(probe, cts.Token);
            var now = OnityUnityTask.WaitForEndOfFrame(probe, cts.Token, true);
            cts.Cancel();
            Assert.Equal(OnityTaskStatus.Pending, late.Status, "without cancelImmediately: at the end of the frame");
            Assert.Equal(OnityTaskStatus.Canceled, now.Status, "cancelImmediately: at Cancel");
            Sim.RunFrame();
            Assert.Equal(OnityTaskStatus.Canceled, late.Status, "canceled at the end of the frame");
            Assert.Equal(OnityTaskStatus.Canceled, OnityUnityTask.WaitForEndOfFrame(probe, cts.Token).Status, "already canceled: at once");
            Assert.Throws<ArgumentNullException>(() => OnityUnityTask.WaitForEndOfFrame(null), "null runner");
        }

        static IEnumerator TwoFrames(List<int> frames)
        {
            frames.Add(Time.frameCount);
            yield return null;
            frames.Add(Time.frameCount);
            yield return new WaitForEndOfFrame();
            frames.Add(Time.frameCount);
        }

        [Test]
        public void ToOnityTaskWithARunner_RunsTheEnumeratorAsItsCoroutine()
        {
            Sim.EnterPlayMode();
            var probe = Probe.Create();
            Sim.RunFrame();
            var frames = new List<int>();
            int start = Time.frameCount;
            var t = TwoFrames(frames).ToOnityTask(probe);
            Assert.Equal(1, frames.Count, "started at once (StartCoroutine)");
            Assert.Equal(OnityTaskStatus.Pending, t.Status, "yielded");
            Sim.RunFrame();
            Assert.Equal(OnityTaskStatus.Succeeded, t.Status, "null: next frame; WaitForEndOfFrame: its end");
            Assert.Equal(start + "," + (start + 1) + "," + (start + 1), string.Join(",", frames), "frames of each step");
            var stopped = TwoFrames(new List<int>()).ToOnityTask(probe);
            UnityEngine.Object.Destroy(probe.gameObject);
            Sim.RunFrames(3);
            Assert.Equal(OnityTaskStatus.Pending, stopped.Status, "the runner destroyed: Unity stops the coroutine, the task never completes (as UniTask's)");
            Assert.Throws<ArgumentNullException>(() => TwoFrames(frames).ToOnityTask((MonoBehaviour)null), "null runner");
        }
    }
}
