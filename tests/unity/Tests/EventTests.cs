using System;
using System.Collections.Generic;
using System.Reflection;
using System.Threading;
using Onity.Triggers;
using Onity.Unity;
using UnityEngine;
using UnityEngine.Events;
using UnityEngine.UI;
using PL = UnityEngine.PlayerLoop;

namespace Onity.UnityTests
{
    /// <summary>uGUI events, UnityEvents and MonoBehaviour message triggers as awaitables, once
    /// and as streams, frame by frame: destroy ends them, tokens cancel them at every point.</summary>
    public class EventTests
    {
        static T Control<T>(string name) where T : Component
        {
            return new GameObject(name).AddComponent<T>();
        }

        static void Enter()
        {
            Sim.EnterPlayMode();
            Sim.RunFrames(2);
        }

        static async OnityTask Record(OnityTask t, List<string> into, string what)
        {
            try
            {
                await t;
                into.Add(what);
            }
            catch (OperationCanceledException) { into.Add(what + " canceled"); }
        }

        static async OnityTask Record<T>(OnityTask<T> t, List<string> into)
        {
            try { into.Add("" + await t); }
            catch (OperationCanceledException) { into.Add("canceled"); }
        }

        static async OnityTask Collect<T>(IOnityAsyncEnumerable<T> stream, List<string> into, CancellationToken ct = default(CancellationToken))
        {
            var e = stream.GetAsyncEnumerator(ct);
            try
            {
                while (await e.MoveNextAsync()) into.Add("" + e.Current);
                into.Add("end");
            }
            catch (OperationCanceledException) { into.Add("canceled"); }
            finally { await e.DisposeAsync(); }
        }

        [Test]
        public void UGuiControls_OnceAndAsStreams()
        {
            Enter();
            var button = Control<Button>("button");
            var toggle = Control<Toggle>("toggle");
            var slider = Control<Slider>("slider");
            var input = Control<InputField>("input");
            var got = new List<string>();
            Record(button.OnClickAsync(), got, "click").Forget();
            Record(toggle.OnValueChangedAsync(), got).Forget();
            Record(slider.OnValueChangedAsync(), got).Forget();
            Record(input.OnEndEditAsync(), got).Forget();
            var clicks = new List<string>();
            Collect(button.OnClickAsAsyncEnumerable(), clicks).Forget();
            var values = new List<string>();
            Collect(slider.OnValueChangedAsAsyncEnumerable(), values).Forget();
            var toggles = new List<string>();
            Collect(toggle.OnValueChangedAsAsyncEnumerable(), toggles).Forget();
            var edits = new List<string>();
            Collect(input.OnEndEditAsAsyncEnumerable(), edits).Forget();
            Assert.Equal(1, button.onClick.ListenerCount, "one listener serves the wait and the stream");
            button.onClick.Invoke();
            toggle.isOn = true;
            slider.value = 0.25f;
            input.onEndEdit.Invoke("name");
            Assert.Equal("click,True,0.25,name", string.Join(",", got), "each one-shot wait, at the invocation");
            button.onClick.Invoke();
            slider.value = 0.5f;
            toggle.isOn = false;
            input.onEndEdit.Invoke("again");
            Assert.Equal("(),()", string.Join(",", clicks), "two clicks streamed (AsyncUnit prints as UniTask's: ())");
            Assert.Equal("0.25,0.5", string.Join(",", values), "two values streamed");
            Assert.Equal("True,False", string.Join(",", toggles), "toggles streamed");
            Assert.Equal("name,again", string.Join(",", edits), "edits streamed");
            Assert.Equal(1, button.onClick.ListenerCount, "still one listener");
            UnityEngine.Object.Destroy(button.gameObject);
            UnityEngine.Object.Destroy(slider);
            Sim.RunFrame();
            Assert.Equal("(),(),end", string.Join(",", clicks), "destroying the button ends its stream");
            Assert.Equal("0.25,0.5,end", string.Join(",", values), "destroying the slider component ends its stream");
            Assert.Equal(0, button.onClick.ListenerCount, "the listener was removed");
            Assert.Equal(OnityTaskStatus.Canceled, button.OnClickAsync().Status, "a destroyed button: canceled at once");
            var destroyedStream = new List<string>();
            Collect(slider.OnValueChangedAsAsyncEnumerable(), destroyedStream).Forget();
            Assert.Equal("end", string.Join(",", destroyedStream), "a destroyed control's stream ends at once");
        }

        [Test]
        public void InputFieldEndEdit_ListensToOnEndEdit_NotOnSubmit()
        {
            // uGUI 2022.3: onEndEdit is an InputField.EndEditEvent, a different event from onSubmit.
            Enter();
            var input = Control<InputField>("input");
            InputField.EndEditEvent endEdit = input.onEndEdit;
            InputField.SubmitEvent submit = input.onSubmit;
            var got = new List<string>();
            Record(input.OnEndEditAsync(), got).Forget();
            submit.Invoke("submitted");
            Assert.Equal("", string.Join(",", got), "a submit alone is not the end of the edit");
            endEdit.Invoke("edited");
            Assert.Equal("edited", string.Join(",", got), "the end of the edit");
            UnityEngine.Object.Destroy(input.gameObject);
            Sim.RunFrame();
        }

        [Test]
        public void AwaitingAControlOffTheMainThreadThrowsAndTouchesNothing()
        {
            Enter();
            var button = Control<Button>("button");
            int hubs = OnityUnityEventHub<AsyncUnit>.Count;
            Exception error = null;
            var worker = new Thread(() =>
            {
                try { button.OnClickAsync(); }
                catch (Exception e) { error = e; }
            });
            worker.Start();
            worker.Join();
            Assert.True(error is InvalidOperationException, "InvalidOperationException on a worker thread, got " + error);
            Assert.Equal(0, button.onClick.ListenerCount, "no listener added from the worker");
            Assert.Equal(hubs, OnityUnityEventHub<AsyncUnit>.Count, "no hub created from the worker");
            UnityEngine.Object.Destroy(button.gameObject);
            Sim.RunFrame();
        }

        [Test]
        public void UGuiWaits_DestroyCancelsAtOnce_TokensAtTheNextUpdate_AtEveryPoint()
        {
            Enter();
            for (int cancelAt = 0; cancelAt < 3; cancelAt++)
            {
                var button = Control<Button>("button");
                var got = new List<string>();
                var cts = new CancellationTokenSource();
                Record(button.OnClickAsync(cts.Token), got, "a").Forget();
                Record(button.OnClickAsync(), got, "b").Forget();
                Sim.RunFrames(cancelAt);
                cts.Cancel();
                Sim.RunFrame();
                Assert.Equal("a canceled", string.Join(",", got), "the token's wait, at the next Update (" + cancelAt + ")");
                UnityEngine.Object.Destroy(button.gameObject);
                Sim.ProcessDestroys();
                Assert.Equal("a canceled,b canceled", string.Join(",", got), "destroy cancels at once");
            }
        }

        static async OnityTask ClickLoop(Button b, int n, List<int> into)
        {
            for (int i = 0; i < n; i++)
            {
                await b.OnClickAsync();
                into.Add(i);
            }
        }

        static async OnityTask<int> ClickWaits(Button b, int n, CancellationToken ct)
        {
            for (int i = 0; i < n; i++) await b.OnClickAsync(ct);
            return n;
        }

        [Test]
        public void RepeatedWaitsAddNoListenerAndAllocateNothing()
        {
            CleanContext.Run(() =>
            {
                Enter();
                var button = Control<Button>("button");
                var rt = OnityPlayerLoop.Runtime;
                ulong frame = 100000;
                var cts = new CancellationTokenSource();
                var warm = ClickWaits(button, 200, cts.Token);
                for (int i = 0; i < 200; i++) { button.onClick.Invoke(); rt.BeginFrame(++frame, 0.016, 0.016, frame); rt.Tick(OnityTiming.Update); }
                warm.GetAwaiter().GetResult();
                var t = ClickWaits(button, 3000, cts.Token);
                long b0 = GC.GetAllocatedBytesForCurrentThread();
                for (int i = 0; i < 3000; i++)
                {
                    button.onClick.Invoke();
                    rt.BeginFrame(++frame, 0.016, 0.016, frame);
                    rt.Tick(OnityTiming.Update); // each wait's token poll ends
                }
                long d = GC.GetAllocatedBytesForCurrentThread() - b0;
                Assert.Equal(3000, t.GetAwaiter().GetResult(), "all clicks");
                Assert.Equal(0L, d, "bytes over 3,000 OnClickAsync waits with a token");
                Assert.Equal(1, button.onClick.ListenerCount, "one listener throughout");
                // Control: a UnityEvent without an owner adds a listener for a lone waiter, which Unity
                // allocates: the measurement sees it.
                var raw = new UnityEvent();
                b0 = GC.GetAllocatedBytesForCurrentThread();
                var r = raw.OnInvokeAsync();
                raw.Invoke();
                r.GetAwaiter().GetResult();
                Assert.True(GC.GetAllocatedBytesForCurrentThread() - b0 > 0, "allocations are seen");
                Assert.Equal(0, raw.ListenerCount, "its listener is removed after its last waiter");
                Sim.ExitPlayMode();
            });
        }

        [Test]
        public void RawUnityEvents_ListenOnlyWhileAwaited()
        {
            Enter();
            var ev = new UnityEvent<int>();
            var got = new List<string>();
            Record(ev.OnInvokeAsync(), got).Forget();
            var stream = new List<string>();
            var cts = new CancellationTokenSource();
            Collect(ev.OnInvokeAsAsyncEnumerable(), stream, cts.Token).Forget();
            Assert.Equal(1, ev.ListenerCount, "one listener while awaited");
            ev.Invoke(3);
            Assert.Equal("3", string.Join(",", got), "the wait");
            Assert.Equal(1, ev.ListenerCount, "the stream still listens");
            ev.Invoke(4);
            cts.Cancel();
            Sim.RunFrame();
            Assert.Equal("3,4,canceled", string.Join(",", stream), "the stream, canceled at the next Update");
            Assert.Equal(0, ev.ListenerCount, "no listener left");
        }

        [Test]
        public void ARawWaitThenAnOwnedWaitOnTheSameEvent_TheOwnerStillEndsThem()
        {
            Enter();
            var button = Control<Button>("button");
            var got = new List<string>();
            Record(button.onClick.OnInvokeAsync(), got, "raw").Forget();
            Record(button.OnClickAsync(), got, "owned").Forget();
            Assert.Equal(1, button.onClick.ListenerCount, "one listener for both");
            button.onClick.Invoke();
            Assert.Equal("raw,owned", string.Join(",", got), "both");
            Assert.Equal(1, button.onClick.ListenerCount, "owned now: the listener stays");
            Record(button.onClick.OnInvokeAsync(), got, "raw again").Forget();
            UnityEngine.Object.Destroy(button);
            Sim.ProcessDestroys();
            Assert.Equal("raw,owned,raw again canceled", string.Join(",", got), "the owner's destroy cancels a raw wait on its event too");
            Assert.Equal(0, button.onClick.ListenerCount, "and removes the listener");
        }

        [Test]
        public void UnityActionWrapperReportsFailures()
        {
            Enter();
            var button = Control<Button>("button");
            int ran = 0;
            button.onClick.AddListener(OnityUnityTask.UnityAction(() => { ran++; return OnityTask.FromException(new FormatException("handler")); }));
            button.onClick.Invoke();
            Assert.Equal(1, ran, "ran");
            Assert.Equal(1, Debug.Exceptions.Count, "its failure reached Debug.LogException");
            Assert.Contains("handler", Debug.Exceptions[0].Message, "the handler's exception");
            var slider = Control<Slider>("slider");
            float seen = 0;
            slider.onValueChanged.AddListener(OnityUnityTask.UnityAction<float>(v => { seen = v; return OnityTask.CompletedTask; }));
            slider.value = 0.75f;
            Assert.Equal(0.75f, seen, "the argument");
            Debug.Exceptions.Clear();
        }

        [Test]
        public void ValueChangedOfScrollbarScrollRectDropdownAndInputField_OnceAndAsStreams()
        {
            Enter();
            var scrollbar = Control<Scrollbar>("scrollbar");
            var scrollRect = Control<ScrollRect>("scroll rect");
            var dropdown = Control<Dropdown>("dropdown");
            var input = Control<InputField>("input");
            var got = new List<string>();
            Record(scrollbar.OnValueChangedAsync(), got).Forget();
            Record(dropdown.OnValueChangedAsync(), got).Forget();
            Record(input.OnValueChangedAsync(), got).Forget();
            var scrolled = scrollRect.OnValueChangedAsync();
            var streams = new List<string>();
            Collect(dropdown.OnValueChangedAsAsyncEnumerable(), streams).Forget();
            Collect(scrollbar.OnValueChangedAsAsyncEnumerable(), streams).Forget();
            Collect(input.OnValueChangedAsAsyncEnumerable(), streams).Forget();
            Collect(scrollRect.OnValueChangedAsAsyncEnumerable(), new List<string>()).Forget();
            scrollbar.value = 0.5f;
            dropdown.value = 2;
            input.text = "ab";
            scrollRect.normalizedPosition = new Vector2(0.25f, 1f);
            Assert.Equal("0.5,2,ab", string.Join(",", got), "each once, with the new value");
            Assert.Equal(0.25f, scrolled.GetAwaiter().GetResult().x, "the scroll position");
            dropdown.value = 3;
            input.text = "abc";
            Assert.Equal("0.5,2,ab,3,abc", string.Join(",", streams), "the streams get each change");
            var cts = new CancellationTokenSource();
            var canceled = new List<string>();
            Record(dropdown.OnValueChangedAsync(cts.Token), canceled).Forget();
            cts.Cancel();
            Sim.RunFrame();
            Assert.Equal("canceled", string.Join(",", canceled), "a token cancels a wait at the next Update");
            UnityEngine.Object.Destroy(dropdown.gameObject);
            Sim.RunFrame();
            Assert.Equal("0.5,2,ab,3,abc,end", string.Join(",", streams), "a destroyed control ends its stream");
        }

        [Test]
        public void UnityActionOverloadsPassTheirArgumentsStateAndToken()
        {
            Enter();
            var log = new List<string>();
            var cts = new CancellationTokenSource();
            OnityUnityTask.UnityAction(7, s => { log.Add("state" + s); return OnityTask.CompletedTask; })();
            OnityUnityTask.UnityAction<int, string>((a, b) => { log.Add(a + b); return OnityTask.CompletedTask; })(1, "a");
            OnityUnityTask.UnityAction<int, int, int>((a, b, c) => { log.Add("" + (a + b + c)); return OnityTask.CompletedTask; })(1, 2, 3);
            OnityUnityTask.UnityAction<int, int, int, int>((a, b, c, d) => { log.Add("" + (a * b * c * d)); return OnityTask.CompletedTask; })(1, 2, 3, 4);
            OnityUnityTask.UnityAction<int>((a, ct) => { log.Add(a + ":" + (ct == cts.Token)); return OnityTask.CompletedTask; }, cts.Token)(5);
            OnityUnityTask.UnityAction<int, int>((a, b, ct) => { log.Add((a + b) + ":" + (ct == cts.Token)); return OnityTask.CompletedTask; }, cts.Token)(1, 1);
            OnityUnityTask.UnityAction<int, int, int>((a, b, c, ct) => { log.Add((a + b + c) + ":" + (ct == cts.Token)); return OnityTask.CompletedTask; }, cts.Token)(1, 1, 1);
            OnityUnityTask.UnityAction<int, int, int, int>((a, b, c, d, ct) => OnityTask.FromException(new FormatException("four")), cts.Token)(1, 1, 1, 1);
            Assert.Equal("state7,1a,6,24,5:True,2:True,3:True", string.Join(",", log), "each overload");
            Assert.Equal(1, Debug.Exceptions.Count, "a handler's failure reaches Debug.LogException");
            Debug.Exceptions.Clear();
            Assert.Throws<ArgumentNullException>(() => OnityUnityTask.UnityAction<int, int>((Func<int, int, OnityTask>)null), "null handler");
        }

        [Test]
        public void GetCancellationTokenOnDestroy_IsCanceledByTheDestroy()
        {
            Enter();
            var go = new GameObject("owner");
            var probe = go.AddComponent<Probe>();
            var fromMono = probe.GetCancellationTokenOnDestroy();
            var fromGo = go.GetCancellationTokenOnDestroy();
            var fromComponent = ((Component)probe).GetCancellationTokenOnDestroy();
            Assert.True(fromGo == fromComponent, "one source per GameObject");
            Sim.RunFrame();
            Assert.False(fromMono.IsCancellationRequested || fromGo.IsCancellationRequested, "alive");
            UnityEngine.Object.Destroy(go);
            Sim.RunFrame();
            Assert.True(fromMono.IsCancellationRequested, "destroyCancellationToken");
            Assert.True(fromGo.IsCancellationRequested, "the GameObject's token");
            Assert.Throws<ArgumentNullException>(() => ((MonoBehaviour)null).GetCancellationTokenOnDestroy(), "null");
        }

        [Test]
        public void RegisterRaiseCancelOnDestroy_CancelsTheSourceAtTheDestroy()
        {
            Enter();
            var go = new GameObject("owner");
            var probe = go.AddComponent<Probe>();
            var byGo = new CancellationTokenSource();
            var byComponent = new CancellationTokenSource();
            byGo.RegisterRaiseCancelOnDestroy(go);
            byComponent.RegisterRaiseCancelOnDestroy(probe);
            Sim.RunFrame();
            Assert.False(byGo.IsCancellationRequested || byComponent.IsCancellationRequested, "alive");
            UnityEngine.Object.Destroy(go);
            Sim.RunFrame();
            Assert.True(byGo.IsCancellationRequested, "canceled by the GameObject's destroy");
            Assert.True(byComponent.IsCancellationRequested, "canceled through the component");
            Assert.Throws<ArgumentNullException>(() => ((CancellationTokenSource)null).RegisterRaiseCancelOnDestroy(go), "null source");
            Assert.Throws<ArgumentNullException>(() => new CancellationTokenSource().RegisterRaiseCancelOnDestroy((Component)null), "null component");
        }

        // ---- MonoBehaviour message triggers -----------------------------------------------

        [Test]
        public void DestroyTrigger_CompletesWhenTheGameObjectIsDestroyed()
        {
            Enter();
            var go = new GameObject("victim");
            var probe = go.AddComponent<Probe>();
            var got = new List<string>();
            Record(probe.OnDestroyAsync(), got, "destroyed").Forget();
            var cts = new CancellationTokenSource();
            Record(go.GetOnityDestroyTrigger().OnDestroyAsync(cts.Token), got, "with token").Forget();
            var stream = new List<string>();
            Collect(go.GetOnityDestroyTrigger(), stream).Forget();
            Assert.True(ReferenceEquals(go.GetOnityDestroyTrigger(), probe.GetOnityDestroyTrigger()), "one trigger per GameObject");
            Sim.RunFrame();
            Assert.Equal(0, got.Count, "alive");
            UnityEngine.Object.Destroy(go);
            Sim.RunFrame();
            Assert.Equal("destroyed,with token", string.Join(",", got), "both completed at the destroy");
            Assert.Equal("(),end", string.Join(",", stream), "the stream yields once and ends");
            var trigger = go.GetComponent<OnityDestroyTrigger>();
            Assert.True(trigger == null, "the trigger went with it");
        }

        [Test]
        public void TriggersOfANeverActiveGameObject_EndWhenItIsDestroyed_OrWorkOnceActivated()
        {
            // Unity sends no OnDestroy to a component that never had Awake (its GameObject was
            // never active since it was added): the trigger watches for that at Update.
            Enter();
            var go = new GameObject("never active");
            go.SetActive(false);
            var got = new List<string>();
            Record(go.GetOnityDestroyTrigger().OnDestroyAsync(), got, "destroyed").Forget();
            Record(go.GetOnityEnableTrigger().OnEnableAsync(), got, "enabled").Forget();
            var stream = new List<string>();
            Collect(go.GetOnityDisableTrigger(), stream).Forget();
            Sim.RunFrame();
            Assert.Equal(0, got.Count, "alive, inactive");
            UnityEngine.Object.Destroy(go);
            Sim.RunFrames(2);
            Assert.Equal("destroyed,enabled canceled", string.Join(",", got), "ended at the next Update after the destroy");
            Assert.Equal("end", string.Join(",", stream), "the stream ended");

            // Activated later: Awake comes, the triggers work as on any object.
            var late = new GameObject("activated later");
            late.SetActive(false);
            var lateGot = new List<string>();
            Record(late.GetOnityEnableTrigger().OnEnableAsync(), lateGot, "enabled").Forget();
            Record(late.GetOnityDestroyTrigger().OnDestroyAsync(), lateGot, "destroyed").Forget();
            Sim.RunFrame();
            late.SetActive(true);
            Assert.Equal("enabled", string.Join(",", lateGot), "OnEnable at the activation");
            Sim.RunFrames(2);
            UnityEngine.Object.Destroy(late);
            Sim.RunFrame();
            Assert.Equal("enabled,destroyed", string.Join(",", lateGot), "OnDestroy, from Unity");
        }

        [Test]
        public void EnableDisableAndVisibilityTriggers()
        {
            Enter();
            var go = new GameObject("actor");
            var mb = go.AddComponent<Probe>();
            var got = new List<string>();
            var enable = go.GetOnityEnableTrigger();
            var disable = go.GetOnityDisableTrigger();
            var visible = go.GetOnityBecameVisibleTrigger();
            Record(disable.OnDisableAsync(), got, "disabled").Forget();
            Record(enable.OnEnableAsync(), got, "enabled").Forget();
            Record(visible.OnBecameVisibleAsync(), got, "visible").Forget();
            disable.enabled = false;
            enable.enabled = false;
            enable.enabled = true;
            Assert.Equal("disabled,enabled", string.Join(",", got), "the messages, at once");
            Sim.QueueMessage(Sim.MessageTime.Rendering, go, "OnBecameVisible");
            Sim.RunFrame();
            Assert.Equal("disabled,enabled,visible", string.Join(",", got), "visible at rendering");
            Assert.True(mb != null, "probe alive");
        }

        [Test]
        public void PhysicsTriggers_StreamsAndWaits_EndWhenDestroyed_TokensAtEveryPoint()
        {
            Enter();
            Sim.FrameTime = 0.025f; // one fixed step per frame
            var go = new GameObject("sensor");
            var other = new GameObject("other").AddComponent<Collider>();
            var trigger = go.GetOnityTriggerEnterTrigger();
            var entered = new List<string>();
            Collect(trigger, entered).Forget();
            var hit = new List<string>();
            Record(go.GetOnityCollisionEnterTrigger().OnCollisionEnterAsync(), hit).Forget();
            Sim.QueueMessage(Sim.MessageTime.Physics, go, "OnTriggerEnter", typeof(Collider), other);
            Sim.QueueMessage(Sim.MessageTime.Physics, go, "OnCollisionEnter", typeof(Collision), new Collision());
            Sim.RunFrame();
            Assert.Equal("other", string.Join(",", entered), "the other collider, in the fixed step");
            Assert.Equal("UnityEngine.Collision", string.Join(",", hit), "the collision");
            for (int cancelAt = 0; cancelAt < 3; cancelAt++)
            {
                var cts = new CancellationTokenSource();
                var once = new List<string>();
                Record(trigger.OnTriggerEnterAsync(cts.Token), once).Forget();
                Sim.RunFrames(cancelAt);
                cts.Cancel();
                Sim.RunFrame();
                Assert.Equal("canceled", string.Join(",", once), "canceled at the next Update (" + cancelAt + ")");
            }
            UnityEngine.Object.Destroy(go);
            Sim.RunFrame();
            Assert.Equal("other,end", string.Join(",", entered), "destroy ends the stream");
        }

        [Test]
        public void TriggerMessagesAllocateNothingAfterWarmUp()
        {
            CleanContext.Run(() =>
            {
                Enter();
                var go = new GameObject("sensor");
                var trigger = go.GetOnityTriggerEnterTrigger();
                var collider = new GameObject("c").AddComponent<Collider>();
                // The message as Unity sends it: a call of the private method (a delegate made once).
                var method = typeof(OnityTriggerEnterTrigger).GetMethod("OnTriggerEnter", BindingFlags.Instance | BindingFlags.NonPublic);
                var send = (Action<Collider>)Delegate.CreateDelegate(typeof(Action<Collider>), trigger, method);
                var t = Count(trigger, 3000);
                long b0 = 0;
                for (int i = 0; i < 3000; i++)
                {
                    if (i == 1000) b0 = GC.GetAllocatedBytesForCurrentThread();
                    send(collider);
                }
                long d = GC.GetAllocatedBytesForCurrentThread() - b0;
                Assert.Equal(3000, t.GetAwaiter().GetResult(), "all");
                Assert.Equal(0L, d, "bytes over 2,000 OnTriggerEnterAsync waits");
            });
        }

        static async OnityTask<int> Count(OnityTriggerEnterTrigger trigger, int n)
        {
            for (int i = 0; i < n; i++) await trigger.OnTriggerEnterAsync();
            return n;
        }
    }
}
