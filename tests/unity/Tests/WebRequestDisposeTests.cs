using System;
using System.Collections.Generic;
using System.Threading;
using Onity.Unity;
using UnityEngine;
using UnityEngine.Networking;

namespace Onity.UnityTests
{
    /// <summary>Issue 31 #2.3: a UnityWebRequest the user disposed has no native request left; in
    /// Unity 2022.3 its members throw ArgumentNullException ("_unity_self"). The binding's cancel
    /// path (Abort) and completion path (result) must survive it.</summary>
    public class WebRequestDisposeTests
    {
        static async OnityTask Await(OnityTask<UnityWebRequest> t, List<Exception> into)
        {
            try { await t; into.Add(null); }
            catch (Exception e) { into.Add(e); }
        }

        static async OnityTask AwaitDirect(UnityWebRequestAsyncOperation op, List<Exception> into)
        {
            try { await op; into.Add(null); }
            catch (Exception e) { into.Add(e); }
        }

        [Test]
        public void DisposedRequest_MembersThrowAsInUnity()
        {
            var req = new UnityWebRequest("http://example.invalid/").StandInScript(3);
            req.Dispose();
            req.Dispose(); // idempotent
            var members = new Dictionary<string, Action>
            {
                { "result", () => { var _ = req.result; } },
                { "error", () => { var _ = req.error; } },
                { "responseCode", () => { var _ = req.responseCode; } },
                { "Abort", () => req.Abort() },
                { "SendWebRequest", () => req.SendWebRequest() },
            };
            foreach (var kv in members)
            {
                var e = Assert.Throws<ArgumentNullException>(kv.Value, kv.Key);
                Assert.Equal("_unity_self", e.ParamName, kv.Key + ": the bindings' parameter name");
            }
        }

        /// <summary>The user disposes the request (its `using` block ended) and then cancels: the
        /// binding's Abort must not throw out of the player loop; the await is canceled.</summary>
        [Test]
        public void CancelAfterUserDisposed_Canceled_NothingEscapes()
        {
            Sim.EnterPlayMode();
            var req = new UnityWebRequest("http://example.invalid/").StandInScript(-1);
            var cts = new CancellationTokenSource();
            var got = new List<Exception>();
            Await(req.SendWebRequest().ToOnityTask(null, OnityTiming.Update, cts.Token), got).Forget();
            Sim.RunFrames(2);
            // A disposed in-flight request ends (aborted) at the next UnityWebRequestUpdate; the
            // cancel comes first.
            req.Dispose();
            cts.Cancel();
            Sim.RunFrames(2);
            Assert.Equal(1, got.Count, "completed");
            Assert.True(got[0] is OperationCanceledException, "canceled, got " + got[0]);
            Assert.Equal(0, Debug.Exceptions.Count, "nothing escaped the player loop");
            // An already-canceled token with a disposed request: canceled at once.
            var req2 = new UnityWebRequest("http://example.invalid/").StandInScript(-1);
            var op2 = req2.SendWebRequest();
            req2.Dispose();
            var t = op2.ToOnityTask(null, OnityTiming.Update, cts.Token);
            Assert.Equal(OnityTaskStatus.Canceled, t.Status, "canceled at once");
            // Play Mode exit cancels (and aborts) a third one the user disposed.
            var req3 = new UnityWebRequest("http://example.invalid/").StandInScript(-1);
            var got3 = new List<Exception>();
            Await(req3.SendWebRequest().ToOnityTask(), got3).Forget();
            Sim.RunFrame();
            req3.Dispose();
            Sim.ExitPlayMode();
            Assert.Equal(1, got3.Count, "completed by the exit");
            Assert.True(got3[0] is OperationCanceledException, "canceled, got " + got3[0]);
            Assert.Equal(0, Debug.Exceptions.Count, "nothing escaped the exit");
        }

        /// <summary>Disposed while awaited (no cancel): the await fails with an
        /// ObjectDisposedException that says what happened, not Unity's "_unity_self".</summary>
        [Test]
        public void DisposedWhileAwaited_FailsWithAClearObjectDisposedException()
        {
            Sim.EnterPlayMode();
            var a = new UnityWebRequest("http://example.invalid/a").StandInScript(-1);
            var b = new UnityWebRequest("http://example.invalid/b").StandInScript(-1);
            var got = new List<Exception>();
            Await(a.SendWebRequest().ToOnityTask(), got).Forget();
            AwaitDirect(b.SendWebRequest(), got).Forget();
            Sim.RunFrame();
            a.Dispose();
            b.Dispose();
            Sim.RunFrames(3);
            Assert.Equal(2, got.Count, "both completed");
            foreach (var e in got)
            {
                Assert.True(e is ObjectDisposedException, "ObjectDisposedException, got " + e);
                Assert.Contains("disposed before its awaited operation completed", e.Message, "says what happened");
            }
            Assert.Equal(0, Debug.Exceptions.Count, "nothing escaped");
        }
    }
}
