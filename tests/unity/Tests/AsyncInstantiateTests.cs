using System;
using System.Collections.Generic;
using System.Threading;
using UnityEngine;

namespace Onity.UnityTests
{
    /// <summary>Object.InstantiateAsync's operation awaited (UniTask's
    /// AsyncInstantiateOperationExtensions), frame by frame: the instances, progress, tokens at
    /// every point, cancelImmediately, the untyped operation.</summary>
    public class AsyncInstantiateTests
    {
        sealed class Progress : IProgress<float>
        {
            internal readonly List<float> Values = new List<float>();
            public void Report(float value) { Values.Add(value); }
        }

        [Test]
        public void InstantiateAsync_CompletesWithTheInstances_ReportingProgress()
        {
            Sim.EnterPlayMode();
            Sim.RunFrames(2);
            var original = new GameObject("enemy");
            var progress = new Progress();
            var t = UnityEngine.Object.InstantiateAsync(original, 3).ToOnityTask(progress);
            Assert.Equal(OnityTaskStatus.Pending, t.Status, "pending while the operation runs");
            for (int i = 0; i < 6 && t.Status == OnityTaskStatus.Pending; i++) Sim.RunFrame();
            var clones = t.GetAwaiter().GetResult();
            Assert.Equal(3, clones.Length, "three instances");
            Assert.Equal("enemy(Clone)", clones[0].name, "the clones");
            Assert.True(progress.Values.Count > 0, "progress reported");

            AsyncInstantiateOperation untyped = UnityEngine.Object.InstantiateAsync(original);
            var u = untyped.WithCancellation(CancellationToken.None);
            for (int i = 0; i < 6 && u.Status == OnityTaskStatus.Pending; i++) Sim.RunFrame();
            Assert.Equal(1, u.GetAwaiter().GetResult().Length, "the untyped operation: Object[]");
            Assert.Throws<ArgumentNullException>(() => ((AsyncInstantiateOperation<GameObject>)null).ToOnityTask(), "a null operation");
        }

        [Test]
        public void InstantiateAsync_TokenAtTheNextUpdateAtEveryPoint_OrAtOnceWithCancelImmediately()
        {
            Sim.EnterPlayMode();
            Sim.RunFrames(2);
            var original = new GameObject("enemy");
            for (int cancelAt = 0; cancelAt < 2; cancelAt++)
            {
                var op = UnityEngine.Object.InstantiateAsync(original, 1);
                var cts = new CancellationTokenSource();
                var t = op.WithCancellation(cts.Token);
                var now = UnityEngine.Object.InstantiateAsync(original, 1).WithCancellation(cts.Token, true);
                Sim.RunFrames(cancelAt);
                cts.Cancel();
                Assert.Equal(OnityTaskStatus.Canceled, now.Status, "cancelImmediately: at Cancel (" + cancelAt + ")");
                Assert.Equal(OnityTaskStatus.Pending, t.Status, "the polled token: not yet (" + cancelAt + ")");
                Sim.RunFrame();
                Assert.Equal(OnityTaskStatus.Canceled, t.Status, "the polled token: at the next Update (" + cancelAt + ")");
                try { t.GetAwaiter().GetResult(); Assert.True(false, "throws"); }
                catch (OperationCanceledException e) { Assert.True(e.CancellationToken == cts.Token, "carries the token"); }
                Assert.Equal(OnityTaskStatus.Canceled, now.Status, "consumed below");
                try { now.GetAwaiter().GetResult(); } catch (OperationCanceledException) { }
            }
            var pre = new CancellationTokenSource();
            pre.Cancel();
            Assert.Equal(OnityTaskStatus.Canceled, UnityEngine.Object.InstantiateAsync(original).WithCancellation(pre.Token).Status, "a canceled token: at once");
        }
    }
}
