using System;
using System.Collections.Generic;
using System.Threading;
using UnityEngine;
using UnityEngine.UI;

namespace Onity.UnityTests
{
    /// <summary>BindTo (UniTask's UnityBindingExtensions) frame by frame: values written to the
    /// control, the control's destruction or a token ends the binding, a failing stream is bound
    /// again once; StartAsyncCoroutine's destroy token.</summary>
    public class BindingTests
    {
        static void Enter()
        {
            Sim.EnterPlayMode();
            Sim.RunFrames(2);
        }

        [Test]
        public void BindTo_Text_WritesEachValue_UntilTheTextIsDestroyed()
        {
            Enter();
            var text = new GameObject("text").AddComponent<Text>();
            var prop = new OnityAsyncReactiveProperty<string>("a");
            prop.BindTo(text);
            Assert.Equal("a", text.text, "the current value at once");
            prop.Value = "b";
            Assert.Equal("b", text.text, "each new value");
            var counter = new OnityAsyncReactiveProperty<int>(1);
            var other = new GameObject("other").AddComponent<Text>();
            counter.BindTo(other);
            counter.Value = 42;
            Assert.Equal("42", other.text, "a non-string value's ToString");
            UnityEngine.Object.Destroy(text.gameObject);
            Sim.RunFrames(2); // destroyed at the frame's end; its token is seen at the next Update
            prop.Value = "after";
            Assert.Equal("b", text.text, "nothing after the destruction");
            counter.Value = 7;
            Assert.Equal("7", other.text, "the other binding goes on");
        }

        [Test]
        public void BindTo_SelectableAndAction_EndWithTheirToken_AtEveryPoint()
        {
            Enter();
            for (int cancelAt = 0; cancelAt < 3; cancelAt++)
            {
                var button = new GameObject("b").AddComponent<Button>();
                var ev = new OnityAsyncEvent<bool>();
                var cts = new CancellationTokenSource();
                ev.BindTo(button, cts.Token);
                var got = new List<int>();
                var ints = new OnityAsyncEvent<int>();
                ints.BindTo(got, (list, v) => list.Add(v), cts.Token);
                for (int i = 0; i < cancelAt; i++)
                {
                    ev.Raise(i % 2 == 1);
                    ints.Raise(i);
                    Sim.RunFrame();
                }
                Assert.Equal(cancelAt == 0 || (cancelAt - 1) % 2 == 1, button.interactable, "the last value (" + cancelAt + ")");
                Assert.Equal(cancelAt, got.Count, "every value (" + cancelAt + ")");
                cts.Cancel();
                Sim.RunFrame();
                ev.Raise(cancelAt % 2 == 0 ? false : true);
                ints.Raise(99);
                Assert.False(got.Contains(99), "nothing after the token (" + cancelAt + ")");
                Assert.Equal(0, ev.SubscriberCount + ints.SubscriberCount, "the bindings unsubscribed (" + cancelAt + ")");
            }
            Assert.Throws<ArgumentNullException>(() => new OnityAsyncEvent<string>().BindTo((Text)null), "a null text");
        }

        /// <summary>A stream whose first enumeration fails at once; later ones are an event's.</summary>
        sealed class FailsFirst : IOnityAsyncEnumerable<string>
        {
            internal readonly OnityAsyncEvent<string> Event = new OnityAsyncEvent<string>();
            internal int Enumerations;
            internal bool AlwaysFail;

            public IOnityAsyncEnumerator<string> GetAsyncEnumerator(CancellationToken cancellationToken = default(CancellationToken))
            {
                Enumerations++;
                if (Enumerations == 1 || AlwaysFail)
                    return OnityAsyncEnumerable.Throw<string>(new FormatException("stream " + Enumerations)).GetAsyncEnumerator(cancellationToken);
                return Event.GetAsyncEnumerator(cancellationToken);
            }
        }

        [Test]
        public void BindTo_RebindsOnceAfterAFailure_ASecondFailureIsReported()
        {
            Enter();
            var text = new GameObject("text").AddComponent<Text>();
            var s = new FailsFirst();
            var unobserved = new List<Exception>();
            Action<Exception> h = e => unobserved.Add(e);
            OnityTask.UnobservedTaskException += h;
            try
            {
                s.BindTo(text);
                Assert.Equal(2, s.Enumerations, "bound again after the failure");
                s.Event.Raise("x");
                Assert.Equal("x", text.text, "the second binding works");
                Assert.Equal(0, unobserved.Count, "the first failure is not reported");

                var noRebind = new FailsFirst();
                noRebind.BindTo(new GameObject("t2").AddComponent<Text>(), false);
                Assert.Equal(1, noRebind.Enumerations, "rebindOnError false: no second enumeration");
                var always = new FailsFirst { AlwaysFail = true };
                always.BindTo(new GameObject("t3").AddComponent<Text>());
                Assert.Equal(2, always.Enumerations, "one rebind, not more");
                Assert.Equal(2, unobserved.Count, "the unrebound failures are reported (" + unobserved.Count + ")");
            }
            finally { OnityTask.UnobservedTaskException -= h; }
        }

        [Test]
        public void StartAsyncCoroutine_PassesTheDestroyToken()
        {
            Enter();
            var probe = Probe.Create();
            CancellationToken seen = default(CancellationToken);
            var t = probe.StartAsyncCoroutine(ct => { seen = ct; return OnityTask.Never(ct); });
            Assert.True(seen == probe.destroyCancellationToken, "the MonoBehaviour's destroy token");
            Assert.Equal(OnityTaskStatus.Pending, t.Status, "running");
            UnityEngine.Object.Destroy(probe.gameObject);
            Sim.RunFrames(2);
            Assert.Equal(OnityTaskStatus.Canceled, t.Status, "canceled by the destruction");
            Assert.Throws<ArgumentNullException>(() => probe.StartAsyncCoroutine(null), "a null coroutine");
        }
    }
}
