using System;
using System.Collections.Generic;
using System.Threading;
using Onity.Unity;
using UnityEngine;
using UnityEngine.Events;
using UnityEngine.UI;

namespace Onity.UnityTests
{
    /// <summary>Issue 31 #2.4: destroyCancellationToken of a destroyed MonoBehaviour throws from
    /// 2022.3.40f1 on; 2022.3.0f1-39f1 (the sample pins 20f1) return a token that is never canceled.
    /// The binding's owner-bound waits end at once for a destroyed owner under both.</summary>
    public class DestroyTokenTests
    {
        static readonly int[] Patches = { 20, 40 };

        static async OnityTask Record(OnityTask t, List<string> into, string what)
        {
            try { await t; into.Add(what); }
            catch (OperationCanceledException) { into.Add(what + " canceled"); }
        }

        static async OnityTask Drain(IOnityAsyncEnumerable<AsyncUnit> stream, List<string> into, string what)
        {
            int n = 0;
            var e = stream.GetAsyncEnumerator();
            try { while (await e.MoveNextAsync()) n++; }
            finally { await e.DisposeAsync(); }
            into.Add(what + " ended after " + n);
        }

        [Test]
        public void StandIn_DestroyedObjectsToken_ThrowsFrom40f1_NeverCanceledBefore()
        {
            foreach (int patch in Patches)
            {
                Sim.ResetEngine();
                StandInVersion.Patch = patch;
                Sim.EnterPlayMode();
                var late = Probe.Create("late");
                UnityEngine.Object.Destroy(late.gameObject);
                Sim.ProcessDestroys();
                if (patch >= 40)
                {
                    Assert.Throws<MissingReferenceException>(() => { var t = late.destroyCancellationToken; }, "2022.3." + patch + "f1 throws");
                    continue;
                }
                var ct = late.destroyCancellationToken;
                Sim.RunFrames(3);
                Assert.False(ct.IsCancellationRequested, "2022.3." + patch + "f1: a token nothing cancels");
                Assert.True(ct.CanBeCanceled, "from a real source");
            }
        }

        /// <summary>A binding that asked a destroyed owner for its token would throw (40f1+) or wait
        /// forever (before 40f1); both versions must end the wait at once.</summary>
        [Test]
        public void OwnerDestroyedBeforeTheFirstWait_WaitsEndAtOnce_BothPatchRanges()
        {
            foreach (int patch in Patches)
            {
                string v = "2022.3." + patch + "f1: ";
                Sim.ResetEngine();
                StandInVersion.Patch = patch;
                Sim.EnterPlayMode();
                Sim.RunFrames(2);
                var button = new GameObject("button").AddComponent<Button>();
                var owner = Probe.Create("owner");
                var ev = new UnityEvent();
                UnityEngine.Object.Destroy(button.gameObject);
                UnityEngine.Object.Destroy(owner.gameObject);
                Sim.ProcessDestroys();
                var got = new List<string>();
                Record(button.OnClickAsync(), got, "click").Forget();
                Record(ev.OnInvokeAsync(owner), got, "event").Forget();
                Drain(ev.OnInvokeAsAsyncEnumerable(owner), got, "stream").Forget();
                Sim.RunFrames(2);
                Assert.Equal("click canceled,event canceled,stream ended after 0", string.Join(",", got), v + "ended at once");
                Assert.Equal(0, button.onClick.ListenerCount + ev.ListenerCount, v + "no listener left");
                Assert.Equal(0, Debug.Exceptions.Count, v + "nothing thrown");
                // An owner destroyed while waited: canceled by its token under both.
                var owner2 = Probe.Create("owner2");
                var ev2 = new UnityEvent();
                Record(ev2.OnInvokeAsync(owner2), got, "live").Forget();
                UnityEngine.Object.Destroy(owner2.gameObject);
                Sim.ProcessDestroys();
                Assert.Equal("live canceled", got[got.Count - 1], v + "destroyed while waited");
                Sim.ExitPlayMode();
            }
        }
    }
}
