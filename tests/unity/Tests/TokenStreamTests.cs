using System;
using System.Collections.Generic;
using System.Threading;
using Onity.Unity;
using UnityEngine;
using UnityEngine.Events;
using UnityEngine.Rendering;
using UnityEngine.UI;

namespace Onity.UnityTests
{
    /// <summary>UniTask's token overloads of the event streams (uGUI controls'
    /// <c>XxxAsAsyncEnumerable(ct)</c>, <c>UnityEvent.OnInvokeAsAsyncEnumerable(ct)</c>) and of
    /// <c>WithCancellation</c> (AssetBundleRequest, AsyncGPUReadbackRequest with cancelImmediately),
    /// frame by frame in the stand-in host.</summary>
    public class TokenStreamTests
    {
        static void Enter()
        {
            Sim.EnterPlayMode();
            Sim.RunFrames(2);
        }

        static async OnityTask CollectToken<T>(IOnityAsyncEnumerable<T> stream, List<string> into, CancellationToken[] by, CancellationToken consumer)
        {
            var e = stream.GetAsyncEnumerator(consumer);
            try
            {
                while (await e.MoveNextAsync()) into.Add("" + e.Current);
                into.Add("end");
            }
            catch (OperationCanceledException ex)
            {
                by[0] = ex.CancellationToken;
                into.Add("canceled");
            }
            finally { await e.DisposeAsync(); }
        }

        /// <summary>One event stream with a token: its component (null: a bare UnityEvent), how to
        /// start collecting it and how to fire it once (the value it then yields).</summary>
        sealed class StreamCase
        {
            public string Name;
            public Component Owner;
            public Func<CancellationToken, List<string>, CancellationToken[], CancellationToken, OnityTask> Start;
            public Action Fire;
            public string Value;
            public Func<int> Listeners;
        }

        static StreamCase[] Cases()
        {
            var button = new GameObject("b").AddComponent<Button>();
            var toggle = new GameObject("t").AddComponent<Toggle>();
            var slider = new GameObject("s").AddComponent<Slider>();
            var scrollbar = new GameObject("sb").AddComponent<Scrollbar>();
            var scrollRect = new GameObject("sr").AddComponent<ScrollRect>();
            var dropdown = new GameObject("d").AddComponent<Dropdown>();
            var input = new GameObject("i").AddComponent<InputField>();
            var input2 = new GameObject("i2").AddComponent<InputField>();
            var unit = new UnityEvent();
            var typed = new UnityEvent<int>();
            return new[]
            {
                new StreamCase { Name = "Button.OnClick", Owner = button, Start = (ct, l, by, c) => CollectToken(button.OnClickAsAsyncEnumerable(ct), l, by, c),
                    Fire = () => button.onClick.Invoke(), Value = "()", Listeners = () => button.onClick.ListenerCount },
                new StreamCase { Name = "Toggle.OnValueChanged", Owner = toggle, Start = (ct, l, by, c) => CollectToken(toggle.OnValueChangedAsAsyncEnumerable(ct), l, by, c),
                    Fire = () => toggle.onValueChanged.Invoke(true), Value = "True", Listeners = () => toggle.onValueChanged.ListenerCount },
                new StreamCase { Name = "Slider.OnValueChanged", Owner = slider, Start = (ct, l, by, c) => CollectToken(slider.OnValueChangedAsAsyncEnumerable(ct), l, by, c),
                    Fire = () => slider.onValueChanged.Invoke(0.5f), Value = "0.5", Listeners = () => slider.onValueChanged.ListenerCount },
                new StreamCase { Name = "Scrollbar.OnValueChanged", Owner = scrollbar, Start = (ct, l, by, c) => CollectToken(scrollbar.OnValueChangedAsAsyncEnumerable(ct), l, by, c),
                    Fire = () => scrollbar.onValueChanged.Invoke(0.25f), Value = "0.25", Listeners = () => scrollbar.onValueChanged.ListenerCount },
                new StreamCase { Name = "ScrollRect.OnValueChanged", Owner = scrollRect, Start = (ct, l, by, c) => CollectToken(scrollRect.OnValueChangedAsAsyncEnumerable(ct), l, by, c),
                    Fire = () => scrollRect.onValueChanged.Invoke(new Vector2(1, 2)), Value = new Vector2(1, 2).ToString(), Listeners = () => scrollRect.onValueChanged.ListenerCount },
                new StreamCase { Name = "Dropdown.OnValueChanged", Owner = dropdown, Start = (ct, l, by, c) => CollectToken(dropdown.OnValueChangedAsAsyncEnumerable(ct), l, by, c),
                    Fire = () => dropdown.onValueChanged.Invoke(3), Value = "3", Listeners = () => dropdown.onValueChanged.ListenerCount },
                new StreamCase { Name = "InputField.OnValueChanged", Owner = input, Start = (ct, l, by, c) => CollectToken(input.OnValueChangedAsAsyncEnumerable(ct), l, by, c),
                    Fire = () => input.onValueChanged.Invoke("v"), Value = "v", Listeners = () => input.onValueChanged.ListenerCount },
                new StreamCase { Name = "InputField.OnEndEdit", Owner = input2, Start = (ct, l, by, c) => CollectToken(input2.OnEndEditAsAsyncEnumerable(ct), l, by, c),
                    Fire = () => input2.onEndEdit.Invoke("e"), Value = "e", Listeners = () => input2.onEndEdit.ListenerCount },
                new StreamCase { Name = "UnityEvent.OnInvoke", Start = (ct, l, by, c) => CollectToken(unit.OnInvokeAsAsyncEnumerable(ct), l, by, c),
                    Fire = () => unit.Invoke(), Value = "()", Listeners = () => unit.ListenerCount },
                new StreamCase { Name = "UnityEvent<int>.OnInvoke", Start = (ct, l, by, c) => CollectToken(typed.OnInvokeAsAsyncEnumerable(ct), l, by, c),
                    Fire = () => typed.Invoke(7), Value = "7", Listeners = () => typed.ListenerCount },
            };
        }

        [Test]
        public void TokenStreams_EitherTokenEndsThem_AtZeroOrOneFrames_CarryingTheCanceledOne()
        {
            Enter();
            var cases = Cases();
            foreach (var k in cases)
            {
                for (int which = 0; which < 2; which++)
                {
                    for (int cancelAt = 0; cancelAt < 2; cancelAt++)
                    {
                        var own = new CancellationTokenSource();
                        var consumer = new CancellationTokenSource();
                        var got = new List<string>();
                        var by = new CancellationToken[1];
                        k.Start(own.Token, got, by, consumer.Token).Forget();
                        k.Fire();
                        Sim.RunFrames(cancelAt);
                        var canceled = which == 0 ? own : consumer;
                        var other = which == 0 ? consumer : own;
                        canceled.Cancel();
                        string what = k.Name + ": " + (which == 0 ? "the stream's own token" : "the consumer's token") + " (after " + cancelAt + " frames)";
                        Assert.Equal(k.Value, string.Join(",", got), what + ": seen at the next Update");
                        Sim.RunFrame();
                        Assert.Equal(k.Value + ",canceled", string.Join(",", got), what + " ends the stream");
                        Assert.True(by[0] == canceled.Token, what + ": the exception carries the canceled token");
                        Assert.False(by[0] == other.Token, what + ": not the other one");
                        other.Cancel();
                    }
                }
            }
            // A bare UnityEvent has no owner: its listener goes with the last enumeration.
            Assert.Equal(0, cases[8].Listeners(), "UnityEvent: no listener left");
            Assert.Equal(0, cases[9].Listeners(), "UnityEvent<int>: no listener left");
            Sim.ExitPlayMode();
        }

        [Test]
        public void TokenStreams_EndWhenTheControlIsDestroyed_AtOnceOrAlreadyDestroyed()
        {
            Enter();
            foreach (var k in Cases())
            {
                if (k.Owner == null) continue;
                var cts = new CancellationTokenSource();
                var got = new List<string>();
                var by = new CancellationToken[1];
                k.Start(cts.Token, got, by, CancellationToken.None).Forget();
                k.Fire();
                UnityEngine.Object.Destroy(k.Owner.gameObject);
                Sim.ProcessDestroys();
                Assert.Equal(k.Value + ",end", string.Join(",", got), k.Name + ": the control's destruction ends the stream (MoveNextAsync false)");
                Assert.Equal(0, k.Listeners(), k.Name + ": its listener is removed");
                var late = new List<string>();
                k.Start(cts.Token, late, by, CancellationToken.None).Forget();
                Assert.Equal("end", string.Join(",", late), k.Name + ": a destroyed control's stream ends at once");
                Assert.False(cts.IsCancellationRequested, k.Name + ": the token is untouched");
            }
            Assert.Throws<ArgumentNullException>(() => ((UnityEvent)null).OnInvokeAsAsyncEnumerable(CancellationToken.None), "a null UnityEvent");
            Assert.Throws<ArgumentNullException>(() => ((UnityEvent<int>)null).OnInvokeAsAsyncEnumerable(CancellationToken.None), "a null UnityEvent<T>");
            Sim.ExitPlayMode();
        }

        static async OnityTask<int> Drain<T>(IOnityAsyncEnumerator<T> e, int n)
        {
            for (int i = 0; i < n; i++)
                if (!await e.MoveNextAsync()) return i;
            return n;
        }

        [Test]
        public void TokenStreams_AllocateNothingPerElementAfterWarmUp()
        {
            CleanContext.Run(() =>
            {
                Enter();
                var rt = OnityPlayerLoop.Runtime;
                ulong frame = 300000;
                var slider = new GameObject("s").AddComponent<Slider>();
                var button = new GameObject("b").AddComponent<Button>();
                var ev = new UnityEvent<int>();
                var cts = new CancellationTokenSource();
                var consumer = new CancellationTokenSource();
                var es = slider.OnValueChangedAsAsyncEnumerable(cts.Token).GetAsyncEnumerator(consumer.Token);
                var eb = button.OnClickAsAsyncEnumerable(cts.Token).GetAsyncEnumerator(consumer.Token);
                var ee = ev.OnInvokeAsAsyncEnumerable(cts.Token).GetAsyncEnumerator(consumer.Token);
                var ws = Drain(es, 200);
                var wb = Drain(eb, 200);
                var we = Drain(ee, 200);
                for (int i = 0; i < 200; i++)
                {
                    slider.onValueChanged.Invoke(i);
                    button.onClick.Invoke();
                    ev.Invoke(i);
                    rt.BeginFrame(++frame, 0.016, 0.016, frame);
                    rt.Tick(OnityTiming.Update);
                }
                Assert.Equal(200, ws.GetAwaiter().GetResult(), "warm-up: every value change");
                wb.GetAwaiter().GetResult();
                we.GetAwaiter().GetResult();
                var ts = Drain(es, 3000);
                var tb = Drain(eb, 3000);
                var te = Drain(ee, 3000);
                long b0 = GC.GetAllocatedBytesForCurrentThread();
                for (int i = 0; i < 3000; i++)
                {
                    slider.onValueChanged.Invoke(i);
                    button.onClick.Invoke();
                    ev.Invoke(i);
                    rt.BeginFrame(++frame, 0.016, 0.016, frame);
                    rt.Tick(OnityTiming.Update); // the tokens poll
                }
                long d = GC.GetAllocatedBytesForCurrentThread() - b0;
                Assert.Equal(3000, ts.GetAwaiter().GetResult(), "every value change");
                Assert.Equal(3000, tb.GetAwaiter().GetResult(), "every click");
                Assert.Equal(3000, te.GetAwaiter().GetResult(), "every invocation");
                Assert.Equal(0L, d, "bytes over 3,000 elements of each of three two-token streams");
                es.DisposeAsync().Forget();
                eb.DisposeAsync().Forget();
                ee.DisposeAsync().Forget();
                // Control: a new enumeration is an allocation, and the measurement sees it.
                b0 = GC.GetAllocatedBytesForCurrentThread();
                var fresh = slider.OnValueChangedAsAsyncEnumerable(cts.Token).GetAsyncEnumerator(consumer.Token);
                Assert.True(GC.GetAllocatedBytesForCurrentThread() - b0 > 0, "allocations are seen");
                fresh.DisposeAsync().Forget();
                Sim.ExitPlayMode();
            });
        }

        [Test]
        public void WithCancellation_AssetBundleRequest_AndGpuReadbackCancelImmediately()
        {
            Enter();
            var asset = new GameObject("asset");
            var ok = StandInAsync.Start(new AssetBundleRequest { m_Asset = asset }, 1).WithCancellation(CancellationToken.None);
            var okNow = StandInAsync.Start(new AssetBundleRequest { m_Asset = asset }, 1).WithCancellation(CancellationToken.None, true);
            var polled = new CancellationTokenSource();
            var atNext = StandInAsync.Start(new AssetBundleRequest { m_Asset = asset }, 5).WithCancellation(polled.Token);
            var immediate = new CancellationTokenSource();
            var atCancel = StandInAsync.Start(new AssetBundleRequest { m_Asset = asset }, 5).WithCancellation(immediate.Token, true);
            polled.Cancel();
            immediate.Cancel();
            Assert.Equal(OnityTaskStatus.Pending, atNext.Status, "AssetBundleRequest: polled cancellation waits for the next Update");
            Assert.Equal(OnityTaskStatus.Canceled, atCancel.Status, "AssetBundleRequest: cancelImmediately cancels at the Cancel call");
            Sim.RunFrame();
            Assert.Equal(OnityTaskStatus.Canceled, atNext.Status, "AssetBundleRequest: canceled at the next Update");
            Sim.RunFrame();
            Assert.True(ReferenceEquals(asset, ok.GetAwaiter().GetResult()), "AssetBundleRequest.WithCancellation: the asset");
            Assert.True(ReferenceEquals(asset, okNow.GetAwaiter().GetResult()), "with cancelImmediately: the asset");

            var gpuImmediate = new CancellationTokenSource();
            var gpu = AsyncGPUReadbackRequest.StandInStart(5).WithCancellation(gpuImmediate.Token, true);
            var gpuPolled = new CancellationTokenSource();
            var gpuNext = AsyncGPUReadbackRequest.StandInStart(5).WithCancellation(gpuPolled.Token, false);
            var gpuOk = AsyncGPUReadbackRequest.StandInStart(1).WithCancellation(new CancellationTokenSource().Token, true);
            gpuImmediate.Cancel();
            gpuPolled.Cancel();
            Assert.Equal(OnityTaskStatus.Canceled, gpu.Status, "readback: cancelImmediately cancels at the Cancel call");
            Assert.Equal(OnityTaskStatus.Pending, gpuNext.Status, "readback: without it, pending until the next Update");
            try { gpu.GetAwaiter().GetResult(); Assert.True(false, "canceled"); }
            catch (OperationCanceledException ex) { Assert.True(ex.CancellationToken == gpuImmediate.Token, "the exception carries the token"); }
            Sim.RunFrame();
            Assert.Equal(OnityTaskStatus.Canceled, gpuNext.Status, "readback: canceled at the next Update");
            Sim.RunFrame();
            Assert.True(gpuOk.GetAwaiter().GetResult().done, "readback with cancelImmediately and no cancel: done");
            var already = new CancellationTokenSource();
            already.Cancel();
            Assert.Equal(OnityTaskStatus.Canceled, AsyncGPUReadbackRequest.StandInStart(1).WithCancellation(already.Token, true).Status, "an already-canceled token: canceled at once");
            Sim.ExitPlayMode();
        }
    }
}
