using System;
using System.Collections.Generic;
using System.Linq;
using System.Reflection;
using System.Threading;
using Onity.Triggers;
using Onity.Unity;
using UnityEngine;
using UnityEngine.Events;
using UnityEngine.UI;

namespace Onity.UnityTests
{
    /// <summary>The reusable handlers (UniTask's AsyncTriggerHandler / AsyncUnityEventHandler):
    /// every generated trigger's GetXxxAsyncHandler awaited again and again, Dispose, callOnce,
    /// tokens at every point, destruction; uGUI controls' handlers; the two-token UnityEvent
    /// enumerables; allocations counted.</summary>
    public class HandlerTests
    {
        static long Bytes() { return GC.GetAllocatedBytesForCurrentThread(); }

        static void Enter()
        {
            Sim.EnterPlayMode();
            Sim.RunFrames(2);
        }

        static OnityTaskStatus StatusOf(object task) { return MessageTriggerTests.StatusOf(task); }

        static string Outcome(OnityTask t)
        {
            try { t.GetAwaiter().GetResult(); return "ok"; }
            catch (OperationCanceledException e) { return "canceled" + (e.CancellationToken.CanBeCanceled ? " by its token" : ""); }
        }

        [Test]
        public void EveryGeneratedTrigger_HandlerAwaitsRepeatedly_DropsUnawaitedMessages_DisposeAndTokenAndDestroyEndIt()
        {
            Enter();
            var types = MessageTriggerTests.Generated();
            Assert.True(types.Count >= 72, "the generated triggers are found (" + types.Count + ")");
            foreach (var type in types)
            {
                var go = new GameObject(type.Name);
                var trigger = (Component)MessageTriggerTests.Getter(type, typeof(GameObject)).Invoke(null, new object[] { go });
                var message = type.GetMethods(BindingFlags.Instance | BindingFlags.NonPublic | BindingFlags.DeclaredOnly).Single();
                var getHandler = type.GetMethods().Single(m => m.Name.EndsWith("AsyncHandler") && m.GetParameters().Length == 0);
                var getHandlerCt = type.GetMethod(getHandler.Name, new[] { typeof(CancellationToken) });
                Assert.True(getHandler.ReturnType.IsInterface && getHandler.ReturnType.Name == "IOnity" + getHandler.Name.Substring(3, getHandler.Name.Length - 3 - "AsyncHandler".Length) + "Handler",
                    type.Name + ": Get...AsyncHandler returns the message's handler interface (" + getHandler.ReturnType.Name + ")");
                var wait = getHandler.ReturnType.GetMethods().Single();
                var args = message.GetParameters().Select(p => MessageTriggerTests.Sample(p.ParameterType)).ToArray();
                bool sentEachFrame = MessageTriggerTests.perFrame.Contains(message.Name);
                // (FixedUpdate: a frame may have no fixed step; the next one has.)
                Action<object> send = t =>
                {
                    if (!sentEachFrame) message.Invoke(trigger, args);
                    else for (int k = 0; k < 4 && (t == null || StatusOf(t) == OnityTaskStatus.Pending); k++) Sim.RunFrame();
                };

                // One handler, awaited three times: each wait completes with the next message.
                var handler = (IDisposable)getHandler.Invoke(trigger, null);
                for (int i = 0; i < 3; i++)
                {
                    var t = wait.Invoke(handler, null);
                    Assert.Equal(OnityTaskStatus.Pending, StatusOf(t), type.Name + ": pending (" + i + ")");
                    send(t);
                    Assert.Equal(OnityTaskStatus.Succeeded, StatusOf(t), type.Name + ": completed by " + message.Name + " (" + i + ")");
                    var value = MessageTriggerTests.ResultOf(t);
                    if (args.Length == 1) Assert.True(Equals(args[0], value), type.Name + ": the message's argument");
                }
                if (!sentEachFrame)
                {
                    // A message while nobody awaits is not kept; a second wait while one is pending throws.
                    send(null);
                    var t = wait.Invoke(handler, null);
                    Assert.Equal(OnityTaskStatus.Pending, StatusOf(t), type.Name + ": the unawaited message is dropped");
                    var twice = Assert.Throws<TargetInvocationException>(() => wait.Invoke(handler, null), type.Name + ": one wait at a time");
                    Assert.True(twice.InnerException is InvalidOperationException, type.Name + ": InvalidOperationException");
                    handler.Dispose();
                    Assert.Equal(OnityTaskStatus.Canceled, StatusOf(t), type.Name + ": Dispose cancels the pending wait");
                    Assert.Equal(OnityTaskStatus.Canceled, StatusOf(wait.Invoke(handler, null)), type.Name + ": a wait after Dispose is canceled at once");
                }
                else handler.Dispose();

                // A token: canceled at the next run of Update (a per-frame message could come first in
                // that frame: canceled before the wait, at once), then the handler has ended.
                var cts = new CancellationTokenSource();
                var tokened = getHandlerCt.Invoke(trigger, new object[] { cts.Token });
                if (sentEachFrame) cts.Cancel();
                var w = wait.Invoke(tokened, null);
                if (!sentEachFrame)
                {
                    cts.Cancel();
                    Assert.Equal(OnityTaskStatus.Pending, StatusOf(w), type.Name + ": the token is seen at the next Update");
                    Sim.RunFrame();
                }
                Assert.Equal(OnityTaskStatus.Canceled, StatusOf(w), type.Name + ": canceled by its token");
                Assert.Equal(OnityTaskStatus.Canceled, StatusOf(wait.Invoke(tokened, null)), type.Name + ": later waits canceled at once");

                // Destruction ends the handler (its pending wait, and later ones).
                var last = (IDisposable)getHandler.Invoke(trigger, null);
                var lw = wait.Invoke(last, null);
                UnityEngine.Object.Destroy(go);
                Sim.RunFrame();
                if (!sentEachFrame && message.Name != "OnDisable")
                    Assert.Equal(OnityTaskStatus.Canceled, StatusOf(lw), type.Name + ": the destruction cancels the pending wait");
                Assert.Equal(OnityTaskStatus.Canceled, StatusOf(wait.Invoke(last, null)), type.Name + ": a wait after the destruction is canceled at once");
                Assert.Equal(OnityTaskStatus.Canceled, StatusOf(wait.Invoke(getHandler.Invoke(trigger, null), null)), type.Name + ": a handler made after it too");
            }
        }

        static async OnityTask<int> Updates(IOnityUpdateHandler h, List<int> frames)
        {
            int n = 0;
            try
            {
                while (true)
                {
                    await h.UpdateAsync();
                    frames.Add(Time.frameCount);
                    n++;
                }
            }
            catch (OperationCanceledException) { return n; }
        }

        [Test]
        public void UpdateHandler_FrameByFrame_TokenCanceledAtEveryPoint()
        {
            Enter();
            for (int cancelAt = 0; cancelAt < 4; cancelAt++)
            {
                var go = new GameObject("ticker");
                var cts = new CancellationTokenSource();
                var h = go.GetOnityUpdateTrigger().GetUpdateAsyncHandler(cts.Token);
                var frames = new List<int>();
                var loop = Updates(h, frames);
                int start = Time.frameCount;
                Sim.RunFrames(cancelAt);
                Assert.Equal(cancelAt, frames.Count, "one completion per frame (" + cancelAt + ")");
                for (int i = 0; i < frames.Count; i++) Assert.Equal(start + 1 + i, frames[i], "completed in frame " + (start + 1 + i));
                cts.Cancel();
                Sim.RunFrame();
                Assert.Equal(OnityTaskStatus.Succeeded, loop.Status, "the loop ended at the next Update after Cancel (" + cancelAt + ")");
                Assert.Equal(cancelAt, loop.GetAwaiter().GetResult(), "no completion after Cancel");
                Assert.True(((OnityAsyncEventHandler<AsyncUnit>)h).IsDisposed, "the token ended the handler");
                UnityEngine.Object.Destroy(go);
                Sim.RunFrame();
            }
        }

        [Test]
        public void UnityEventHandler_Repeats_CallOnce_Dispose_Token_AndOneShotInterface()
        {
            Enter();
            var ev = new UnityEvent<int>();
            var h = ev.GetAsyncEventHandler(CancellationToken.None);
            Assert.Equal(1, ev.ListenerCount, "one listener while the handler lives");
            for (int i = 0; i < 3; i++)
            {
                var t = h.OnInvokeAsync();
                ev.Invoke(10 + i);
                Assert.Equal(10 + i, t.GetAwaiter().GetResult(), "the invocation's argument (" + i + ")");
            }
            var viaInterface = ((IOnityValueChangedEventHandler<int>)h).OnValueChangedAsync();
            ev.Invoke(7);
            Assert.Equal(7, viaInterface.GetAwaiter().GetResult(), "through IOnityValueChangedEventHandler");
            var pending = h.OnInvokeAsync();
            h.Dispose();
            Assert.Equal(OnityTaskStatus.Canceled, pending.Status, "Dispose cancels the pending wait");
            Assert.Equal(0, ev.ListenerCount, "Dispose removes the listener");

            var raw = new UnityEvent();
            var once = new OnityUnityEventHandler(raw, CancellationToken.None, true);
            var first = once.OnInvokeAsync();
            raw.Invoke();
            Assert.Equal("ok", Outcome(first), "callOnce: the first invocation");
            Assert.True(once.IsDisposed, "callOnce: disposed after it");
            Assert.Equal(0, raw.ListenerCount, "callOnce: its listener is gone");
            Assert.Equal("canceled", Outcome(once.OnInvokeAsync()), "callOnce: later waits canceled at once");

            var cts = new CancellationTokenSource();
            var tokened = raw.GetAsyncEventHandler(cts.Token);
            var w = ((IOnityClickEventHandler)tokened).OnClickAsync();
            cts.Cancel();
            Assert.Equal(OnityTaskStatus.Pending, w.Status, "the token is polled at Update");
            Sim.RunFrame();
            Assert.Equal("canceled by its token", Outcome(w), "canceled with its token");
            Assert.Equal("canceled by its token", Outcome(tokened.OnInvokeAsync()), "the handler ended with its token");
            Assert.Equal(0, raw.ListenerCount, "no listener left");

            var trigger = new GameObject("t").GetOnityJointBreakTrigger();
            var shot = (IOnityAsyncOneShotTrigger)trigger.GetOnJointBreakAsyncHandler();
            var s = shot.OneShotAsync();
            typeof(OnityJointBreakTrigger).GetMethod("OnJointBreak", BindingFlags.Instance | BindingFlags.NonPublic).Invoke(trigger, new object[] { 1f });
            Assert.Equal("ok", Outcome(s), "IOnityAsyncOneShotTrigger.OneShotAsync");
            Assert.Throws<ArgumentNullException>(() => new OnityUnityEventHandler(null, CancellationToken.None, false), "a null event");
        }

        [Test]
        public void UGuiHandlers_AwaitRepeatedly_AndEndWhenTheControlIsDestroyed()
        {
            Enter();
            var button = new GameObject("b").AddComponent<Button>();
            var click = button.GetAsyncClickEventHandler();
            for (int i = 0; i < 2; i++)
            {
                var c = click.OnClickAsync();
                Assert.Equal(OnityTaskStatus.Pending, c.Status, "pending until the click");
                button.onClick.Invoke();
                Assert.Equal("ok", Outcome(c), "the click (" + i + ")");
            }
            var toggle = new GameObject("t").AddComponent<Toggle>();
            var changed = toggle.GetAsyncValueChangedEventHandler(CancellationToken.None);
            var v = changed.OnValueChangedAsync();
            toggle.onValueChanged.Invoke(true);
            Assert.True(v.GetAwaiter().GetResult(), "the toggle's value");
            var input = new GameObject("i").AddComponent<InputField>();
            var endEdit = input.GetAsyncEndEditEventHandler();
            var e = endEdit.OnEndEditAsync();
            input.onEndEdit.Invoke("done");
            Assert.Equal("done", e.GetAwaiter().GetResult(), "the input field's end of edit");

            var last = click.OnClickAsync();
            UnityEngine.Object.Destroy(button.gameObject);
            Sim.ProcessDestroys();
            Assert.Equal("canceled", Outcome(last), "the button's destruction cancels the pending wait at once");
            Assert.Equal("canceled", Outcome(click.OnClickAsync()), "and later ones");
            Assert.Equal("canceled", Outcome(button.GetAsyncClickEventHandler().OnClickAsync()), "a handler of a destroyed button has ended");
        }

        static async OnityTask<string> Drain<T>(IOnityAsyncEnumerable<T> source, CancellationToken consumer, CancellationToken expected)
        {
            var e = source.GetAsyncEnumerator(consumer);
            var got = new List<string>();
            try
            {
                while (await e.MoveNextAsync()) got.Add("" + e.Current);
                return "end";
            }
            catch (OperationCanceledException ex)
            {
                return string.Join(",", got) + (ex.CancellationToken == expected ? " canceled by that token" : " canceled by another token");
            }
            finally { await e.DisposeAsync(); }
        }

        [Test]
        public void UnityEventAsyncEnumerable_EitherTokenEndsIt_CarryingTheCanceledOne()
        {
            Enter();
            for (int which = 0; which < 2; which++)
            {
                var ev = new UnityEvent<int>();
                var own = new CancellationTokenSource();
                var consumer = new CancellationTokenSource();
                var cancel = which == 0 ? own : consumer;
                var r = Drain(new OnityUnityEventAsyncEnumerable<int>(ev, own.Token), consumer.Token, cancel.Token);
                ev.Invoke(1);
                ev.Invoke(2);
                cancel.Cancel();
                Sim.RunFrame();
                Assert.Equal("1,2 canceled by that token", r.GetAwaiter().GetResult(), (which == 0 ? "the enumerable's" : "the consumer's") + " token");
                Assert.Equal(0, ev.ListenerCount, "its listener is gone");
            }
            var unit = new UnityEvent();
            var u = Drain(new OnityUnityEventAsyncEnumerable(unit, CancellationToken.None), CancellationToken.None, CancellationToken.None);
            unit.Invoke();
            Assert.Equal(OnityTaskStatus.Pending, u.Status, "the stream goes on");
        }

        static async OnityTask<int> HandlerWaits(IOnityOnJointBreakHandler h, int n)
        {
            for (int i = 0; i < n; i++) await h.OnJointBreakAsync();
            return n;
        }

        static async OnityTask<int> EventWaits(OnityUnityEventHandler<int> h, int n)
        {
            int sum = 0;
            for (int i = 0; i < n; i++) sum += await h.OnInvokeAsync();
            return sum;
        }

        [Test]
        public void TokenCanceledWhileNobodyWaits_EndsTheHandler_AndRemovesItsListener()
        {
            // UniTask's handlers dispose themselves when their token is canceled (registration),
            // awaited or not: the listener must not stay until the next wait or Dispose.
            Enter();
            var ev = new UnityEvent<int>();
            var cts = new CancellationTokenSource();
            var h = ev.GetAsyncEventHandler(cts.Token);
            var t = h.OnInvokeAsync();
            ev.Invoke(3);
            Assert.Equal(3, t.GetAwaiter().GetResult(), "a first wait");
            Assert.Equal(1, ev.ListenerCount, "listening while it lives");
            cts.Cancel();
            Sim.RunFrame();
            Assert.True(h.IsDisposed, "ended by its token at the next Update, though nobody waits");
            Assert.Equal(0, ev.ListenerCount, "its listener is gone");
            Assert.Equal("canceled by its token", Outcome(h.OnInvokeAsync()), "later waits canceled with the token");

            // Never awaited at all, and a trigger's handler.
            var cts2 = new CancellationTokenSource();
            var raw = new UnityEvent();
            var idle = raw.GetAsyncEventHandler(cts2.Token);
            var trigger = new GameObject("c").GetOnityJointBreakTrigger();
            var th = (OnityAsyncEventHandler<float>)trigger.GetOnJointBreakAsyncHandler(cts2.Token);
            Assert.Equal(1, raw.ListenerCount, "the handler listens from creation");
            cts2.Cancel();
            Sim.RunFrame();
            Assert.True(idle.IsDisposed, "a never-awaited handler is ended by its token");
            Assert.Equal(0, raw.ListenerCount, "and its listener removed");
            Assert.True(th.IsDisposed, "a trigger's handler too");
            Sim.ExitPlayMode();
        }

        [Test]
        public void HandlerWaits_AllocateNothingAfterWarmUp()
        {
            CleanContext.Run(() =>
            {
                Enter();
                var rt = OnityPlayerLoop.Runtime;
                ulong frame = 200000;
                var trigger = new GameObject("j").GetOnityJointBreakTrigger();
                var send = (Action<float>)Delegate.CreateDelegate(typeof(Action<float>), trigger,
                    typeof(OnityJointBreakTrigger).GetMethod("OnJointBreak", BindingFlags.Instance | BindingFlags.NonPublic));
                var cts = new CancellationTokenSource();
                var h = trigger.GetOnJointBreakAsyncHandler(cts.Token);
                var ev = new UnityEvent<int>();
                var eh = ev.GetAsyncEventHandler(cts.Token);
                var warm = HandlerWaits(h, 200);
                var warmE = EventWaits(eh, 200);
                for (int i = 0; i < 200; i++) { send(1f); ev.Invoke(1); rt.BeginFrame(++frame, 0.016, 0.016, frame); rt.Tick(OnityTiming.Update); }
                warm.GetAwaiter().GetResult();
                warmE.GetAwaiter().GetResult();
                var t = HandlerWaits(h, 3000);
                var te = EventWaits(eh, 3000);
                long b0 = Bytes();
                for (int i = 0; i < 3000; i++)
                {
                    send(1f);
                    ev.Invoke(1);
                    rt.BeginFrame(++frame, 0.016, 0.016, frame);
                    rt.Tick(OnityTiming.Update); // the token polls
                }
                long d = Bytes() - b0;
                Assert.Equal(3000, t.GetAwaiter().GetResult(), "every message");
                Assert.Equal(3000, te.GetAwaiter().GetResult(), "every invocation");
                Assert.Equal(0L, d, "bytes over 3,000 trigger-handler and UnityEvent-handler waits with a token");
                // Control: a new handler is an allocation, and the measurement sees it.
                b0 = Bytes();
                trigger.GetOnJointBreakAsyncHandler().Dispose();
                Assert.True(Bytes() - b0 > 0, "allocations are seen");
                h.Dispose();
                eh.Dispose();
                Sim.ExitPlayMode();
            });
        }
    }
}
