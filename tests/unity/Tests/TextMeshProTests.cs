using System;
using System.Collections.Generic;
using System.Threading;
using Onity.Unity;
using TMPro;
using UnityEngine;

namespace Onity.UnityTests
{
    /// <summary>TextMeshPro's TMP_InputField events as awaitables, streams (with two tokens) and
    /// reusable handlers, and BindTo on a TMP_Text (Onity.Unity.TextMeshPro), frame by frame
    /// against the TMP stand-in.</summary>
    public class TextMeshProTests
    {
        sealed class Field : TMP_InputField { }
        sealed class Label : TMP_Text { }

        static Field NewField() { return new GameObject("field").AddComponent<Field>(); }

        static void Enter()
        {
            Sim.EnterPlayMode();
            Sim.RunFrames(2);
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
        public void EveryInputFieldEvent_OnceWithItsArgument_AndAsAStream()
        {
            Enter();
            var f = NewField();
            var once = new List<string>();
            Record(f.OnValueChangedAsync(), once).Forget();
            Record(f.OnEndEditAsync(), once).Forget();
            Record(f.OnSubmitAsync(), once).Forget();
            Record(f.OnSelectAsync(), once).Forget();
            Record(f.OnDeselectAsync(), once).Forget();
            Record(f.OnTextSelectionAsync(), once).Forget();
            Record(f.OnEndTextSelectionAsync(), once).Forget();
            var streams = new List<string>[7];
            for (int i = 0; i < 7; i++) streams[i] = new List<string>();
            Collect(f.OnValueChangedAsAsyncEnumerable(), streams[0]).Forget();
            Collect(f.OnEndEditAsAsyncEnumerable(), streams[1]).Forget();
            Collect(f.OnSubmitAsAsyncEnumerable(), streams[2]).Forget();
            Collect(f.OnSelectAsAsyncEnumerable(), streams[3]).Forget();
            Collect(f.OnDeselectAsAsyncEnumerable(), streams[4]).Forget();
            Collect(f.OnTextSelectionAsAsyncEnumerable(), streams[5]).Forget();
            Collect(f.OnEndTextSelectionAsAsyncEnumerable(), streams[6]).Forget();
            Assert.Equal(1, f.onTextSelection.ListenerCount, "one relay listener serves the wait and the stream");
            Assert.Equal(1, f.onSubmit.ListenerCount, "one listener per event");
            f.text = "abc";                        // onValueChanged, as TMP raises it
            f.onEndEdit.Invoke("abc.");
            f.onSubmit.Invoke("abc!");
            f.onSelect.Invoke("sel");
            f.onDeselect.Invoke("desel");
            f.onTextSelection.Invoke("abc", 0, 2);
            f.onEndTextSelection.Invoke("abc", 1, 3);
            Assert.Equal("abc,abc.,abc!,sel,desel,(abc, 0, 2),(abc, 1, 3)", string.Join(",", once), "each wait at its own event, with its argument");
            f.text = "abcd";
            f.onTextSelection.Invoke("abcd", 2, 4);
            Assert.Equal("abc,abcd", string.Join(",", streams[0]), "value changes streamed");
            Assert.Equal("(abc, 0, 2),(abcd, 2, 4)", string.Join(",", streams[5]), "selections streamed as tuples");
            Assert.Equal("abc!", string.Join(",", streams[2]), "submit streamed (not end-edit)");
            UnityEngine.Object.Destroy(f.gameObject);
            Sim.RunFrame();
            for (int i = 0; i < 7; i++) Assert.Equal("end", streams[i][streams[i].Count - 1], "destroying the field ends stream " + i);
            Assert.Equal(0, f.onTextSelection.ListenerCount, "the relay stopped listening");
            Assert.Equal(0, f.onSubmit.ListenerCount, "the listener was removed");
            Assert.Equal(OnityTaskStatus.Canceled, f.OnTextSelectionAsync().Status, "a destroyed field: canceled at once");
            Assert.Equal(OnityTaskStatus.Canceled, f.OnSubmitAsync().Status, "a destroyed field: canceled at once");
            var late = new List<string>();
            Collect(f.OnEndTextSelectionAsAsyncEnumerable(), late).Forget();
            Assert.Equal("end", string.Join(",", late), "a destroyed field's stream ends at once");
            Assert.Throws<ArgumentNullException>(() => ((TMP_InputField)null).OnSubmitAsync(), "null field");
        }

        [Test]
        public void Waits_DestroyCancelsAtOnce_TokensAtTheNextUpdate_AtEveryPoint()
        {
            Enter();
            for (int cancelAt = 0; cancelAt < 3; cancelAt++)
            {
                var f = NewField();
                var got = new List<string>();
                var cts = new CancellationTokenSource();
                Record(f.OnEndTextSelectionAsync(cts.Token), got).Forget();
                Record(f.OnSubmitAsync(cts.Token), got).Forget();
                Record(f.OnSubmitAsync(), got).Forget();
                Sim.RunFrames(cancelAt);
                cts.Cancel();
                Assert.Equal(0, got.Count, "seen at the next Update (" + cancelAt + ")");
                Sim.RunFrame();
                Assert.Equal("canceled,canceled", string.Join(",", got), "the token's waits");
                UnityEngine.Object.Destroy(f.gameObject);
                Sim.ProcessDestroys();
                Assert.Equal("canceled,canceled,canceled", string.Join(",", got), "destroy cancels at once");
            }
        }

        /// <summary>The token of the OperationCanceledException that ended the stream ("end" when
        /// it ended without one), after the values it gave.</summary>
        static async OnityTask CollectToken<T>(IOnityAsyncEnumerable<T> stream, List<string> into, CancellationToken[] endedBy, CancellationToken ct)
        {
            var e = stream.GetAsyncEnumerator(ct);
            try
            {
                while (await e.MoveNextAsync()) into.Add("" + e.Current);
                into.Add("end");
            }
            catch (OperationCanceledException x)
            {
                into.Add("canceled");
                endedBy[0] = x.CancellationToken;
            }
            finally { await e.DisposeAsync(); }
        }

        [Test]
        public void StreamsWithTwoTokens_EitherEndsThem_TheExceptionCarriesTheCanceledOne()
        {
            Enter();
            var f = NewField();
            for (int which = 0; which < 2; which++)
            {
                for (int cancelAt = 0; cancelAt < 2; cancelAt++)
                {
                    var own = new CancellationTokenSource();
                    var consumer = new CancellationTokenSource();
                    var a = new List<string>();
                    var b = new List<string>();
                    var aBy = new CancellationToken[1];
                    var bBy = new CancellationToken[1];
                    CollectToken(f.OnSubmitAsAsyncEnumerable(own.Token), a, aBy, consumer.Token).Forget();
                    CollectToken(f.OnTextSelectionAsAsyncEnumerable(own.Token), b, bBy, consumer.Token).Forget();
                    f.onSubmit.Invoke("x");
                    f.onTextSelection.Invoke("x", 0, 1);
                    Sim.RunFrames(cancelAt);
                    var canceled = which == 0 ? own : consumer;
                    var other = which == 0 ? consumer : own;
                    canceled.Cancel();
                    Assert.Equal("x", string.Join(",", a), "seen at the next Update");
                    Sim.RunFrame();
                    string what = (which == 0 ? "the stream's own token" : "the consumer's token") + " (after " + cancelAt + " frames)";
                    Assert.Equal("x,canceled", string.Join(",", a), what + " ends the stream");
                    Assert.Equal("(x, 0, 1),canceled", string.Join(",", b), what + " ends the tuple stream");
                    Assert.True(aBy[0] == canceled.Token && bBy[0] == canceled.Token, what + ": the exception carries the canceled token");
                    Assert.False(aBy[0] == other.Token, what + ": not the other one");
                    other.Cancel();
                }
            }
            // Nothing linked: an enumeration with two tokens costs what one with one token costs.
            var t1 = new CancellationTokenSource().Token;
            var t2 = new CancellationTokenSource().Token;
            var twoTokens = f.OnSubmitAsAsyncEnumerable(t1);
            var oneToken = f.OnSubmitAsAsyncEnumerable();
            twoTokens.GetAsyncEnumerator(t2).DisposeAsync().Forget();
            oneToken.GetAsyncEnumerator(t2).DisposeAsync().Forget();
            long b0 = GC.GetAllocatedBytesForCurrentThread();
            var e2 = twoTokens.GetAsyncEnumerator(t2);
            long two = GC.GetAllocatedBytesForCurrentThread() - b0;
            b0 = GC.GetAllocatedBytesForCurrentThread();
            var e1 = oneToken.GetAsyncEnumerator(t2);
            long one = GC.GetAllocatedBytesForCurrentThread() - b0;
            e2.DisposeAsync().Forget();
            e1.DisposeAsync().Forget();
            Assert.True(one > 0, "the enumerator's allocation is seen");
            Assert.Equal(one, two, "bytes for an enumeration with two tokens (no linked source)");
            UnityEngine.Object.Destroy(f.gameObject);
            Sim.RunFrame();
            var late = new List<string>();
            CollectToken(f.OnSubmitAsAsyncEnumerable(t1), late, new CancellationToken[1], t2).Forget();
            Assert.Equal("end", string.Join(",", late), "a destroyed field's stream with tokens ends at once");
        }

        /// <summary>One TMP_InputField event's handler: got with or without a token, awaited
        /// through its own interface, the event invoked with an argument.</summary>
        sealed class HandlerCase
        {
            public string Name;
            public Func<TMP_InputField, CancellationToken?, IDisposable> Get;
            public Func<IDisposable, OnityTask<string>> Next;
            public Action<TMP_InputField, string> Fire;
            public Func<TMP_InputField, int> Listeners;
        }

        static async OnityTask<string> AsText<T>(OnityTask<T> t) { return "" + await t; }

        static HandlerCase[] HandlerCases()
        {
            return new[]
            {
                new HandlerCase { Name = "ValueChanged", Get = (f, ct) => ct.HasValue ? f.GetAsyncValueChangedEventHandler(ct.Value) : f.GetAsyncValueChangedEventHandler(),
                    Next = h => ((IOnityValueChangedEventHandler<string>)h).OnValueChangedAsync(), Fire = (f, v) => f.onValueChanged.Invoke(v), Listeners = f => f.onValueChanged.ListenerCount },
                new HandlerCase { Name = "EndEdit", Get = (f, ct) => ct.HasValue ? f.GetAsyncEndEditEventHandler(ct.Value) : f.GetAsyncEndEditEventHandler(),
                    Next = h => ((IOnityEndEditEventHandler<string>)h).OnEndEditAsync(), Fire = (f, v) => f.onEndEdit.Invoke(v), Listeners = f => f.onEndEdit.ListenerCount },
                new HandlerCase { Name = "EndTextSelection", Get = (f, ct) => ct.HasValue ? f.GetAsyncEndTextSelectionEventHandler(ct.Value) : f.GetAsyncEndTextSelectionEventHandler(),
                    Next = h => AsText((h as IOnityEndTextSelectionEventHandler<(string, int, int)>).OnEndTextSelectionAsync()), Fire = (f, v) => f.onEndTextSelection.Invoke(v, 1, 2),
                    Listeners = f => f.onEndTextSelection.ListenerCount },
                new HandlerCase { Name = "TextSelection", Get = (f, ct) => ct.HasValue ? f.GetAsyncTextSelectionEventHandler(ct.Value) : f.GetAsyncTextSelectionEventHandler(),
                    Next = h => AsText((h as IOnityTextSelectionEventHandler<(string, int, int)>).OnTextSelectionAsync()), Fire = (f, v) => f.onTextSelection.Invoke(v, 1, 2),
                    Listeners = f => f.onTextSelection.ListenerCount },
                new HandlerCase { Name = "Deselect", Get = (f, ct) => ct.HasValue ? f.GetAsyncDeselectEventHandler(ct.Value) : f.GetAsyncDeselectEventHandler(),
                    Next = h => ((IOnityDeselectEventHandler<string>)h).OnDeselectAsync(), Fire = (f, v) => f.onDeselect.Invoke(v), Listeners = f => f.onDeselect.ListenerCount },
                new HandlerCase { Name = "Select", Get = (f, ct) => ct.HasValue ? f.GetAsyncSelectEventHandler(ct.Value) : f.GetAsyncSelectEventHandler(),
                    Next = h => ((IOnitySelectEventHandler<string>)h).OnSelectAsync(), Fire = (f, v) => f.onSelect.Invoke(v), Listeners = f => f.onSelect.ListenerCount },
                new HandlerCase { Name = "Submit", Get = (f, ct) => ct.HasValue ? f.GetAsyncSubmitEventHandler(ct.Value) : f.GetAsyncSubmitEventHandler(),
                    Next = h => ((IOnitySubmitEventHandler<string>)h).OnSubmitAsync(), Fire = (f, v) => f.onSubmit.Invoke(v), Listeners = f => f.onSubmit.ListenerCount },
            };
        }

        static string Outcome(OnityTask<string> t)
        {
            if (t.Status == OnityTaskStatus.Pending) return "pending";
            try { return t.GetAwaiter().GetResult(); }
            catch (OperationCanceledException) { return "canceled"; }
        }

        [Test]
        public void EveryInputFieldHandler_AwaitsRepeatedly_DropsUnawaited_DisposeTokenAndDestroyEndIt()
        {
            Enter();
            foreach (var c in HandlerCases())
            {
                bool tuple = c.Name.EndsWith("TextSelection");
                Func<string, string> arg = v => tuple ? "(" + v + ", 1, 2)" : v;
                for (int cancelAt = 0; cancelAt < 2; cancelAt++)
                {
                    var f = NewField();
                    var cts = new CancellationTokenSource();
                    var h = c.Get(f, null);
                    var hc = c.Get(f, cts.Token);
                    var disposed = c.Get(f, CancellationToken.None);
                    Assert.Equal(1, c.Listeners(f), c.Name + ": one listener serves every handler");
                    for (int i = 0; i < 3; i++)
                    {
                        var t = c.Next(h);
                        var tc = c.Next(hc);
                        Assert.Equal("pending", Outcome(t), c.Name + ": waits for the event");
                        Assert.Throws<InvalidOperationException>(() => c.Next(h), c.Name + ": one wait at a time");
                        c.Fire(f, "v" + i);
                        Assert.Equal(arg("v" + i), Outcome(t), c.Name + ": wait " + i + " gets its argument");
                        Assert.Equal(arg("v" + i), Outcome(tc), c.Name + ": the token's handler too");
                        c.Fire(f, "dropped");
                    }
                    var d = c.Next(disposed);
                    disposed.Dispose();
                    Assert.Equal("canceled", Outcome(d), c.Name + ": Dispose cancels the pending wait");
                    Assert.Equal("canceled", Outcome(c.Next(disposed)), c.Name + ": a disposed handler cancels at once");
                    var w = c.Next(hc);
                    Sim.RunFrames(cancelAt);
                    cts.Cancel();
                    Assert.Equal("pending", Outcome(w), c.Name + ": the token is seen at the next Update");
                    Sim.RunFrame();
                    Assert.Equal("canceled", Outcome(w), c.Name + ": the token cancels the wait (after " + cancelAt + " frames)");
                    Assert.Equal("canceled", Outcome(c.Next(hc)), c.Name + ": then at once");
                    Assert.Equal("canceled", Outcome(c.Next(c.Get(f, cts.Token))), c.Name + ": a handler with a canceled token");
                    var last = c.Next(h);
                    UnityEngine.Object.Destroy(f.gameObject);
                    Sim.ProcessDestroys();
                    Assert.Equal("canceled", Outcome(last), c.Name + ": destroying the field cancels at once");
                    Assert.Equal("canceled", Outcome(c.Next(h)), c.Name + ": and every later wait");
                    Assert.Equal(0, c.Listeners(f), c.Name + ": the listener was removed");
                    Assert.Equal("canceled", Outcome(c.Next(c.Get(f, null))), c.Name + ": a destroyed field's handler has ended");
                    Assert.Equal("canceled", Outcome(c.Next(c.Get(f, new CancellationTokenSource().Token))), c.Name + ": with a token too");
                    Assert.Throws<ArgumentNullException>(() => c.Get(null, null), c.Name + ": null field");
                    Assert.Throws<ArgumentNullException>(() => c.Get(null, CancellationToken.None), c.Name + ": null field (token overload)");
                }
            }
            // callOnce (the handlers' constructor; UniTask's field handlers pass false) on a TMP event.
            var g = NewField();
            var once = new OnityUnityEventHandler<string>(g.onSubmit, g, CancellationToken.None, true);
            var first = once.OnInvokeAsync();
            g.onSubmit.Invoke("one");
            Assert.Equal("one", first.GetAwaiter().GetResult(), "callOnce: the first invocation");
            Assert.True(once.IsDisposed, "callOnce: disposed after it");
            Assert.Equal(OnityTaskStatus.Canceled, once.OnInvokeAsync().Status, "callOnce: later waits canceled at once");
            UnityEngine.Object.Destroy(g.gameObject);
            Sim.RunFrame();
        }

        sealed class FailsFirst : IOnityAsyncEnumerable<string>
        {
            readonly IOnityAsyncEnumerable<string> then;
            public int Enumerations;
            public FailsFirst(IOnityAsyncEnumerable<string> then) { this.then = then; }

            public IOnityAsyncEnumerator<string> GetAsyncEnumerator(CancellationToken ct = default(CancellationToken))
            {
                return Enumerations++ == 0 ? OnityAsyncEnumerable.Throw<string>(new InvalidOperationException("first")).GetAsyncEnumerator(ct) : then.GetAsyncEnumerator(ct);
            }
        }

        [Test]
        public void BindTo_SetsTheText_RebindsOnceOnError_EndsAtDestroy()
        {
            Enter();
            var reports = new List<string>();
            Action<Exception> onUnobserved = e => reports.Add(e.Message);
            OnityTask.UnobservedTaskException += onUnobserved;
            try
            {
                var label = new GameObject("label").AddComponent<Label>();
                var prop = new OnityAsyncReactiveProperty<string>("hello");
                var flaky = new FailsFirst(prop);
                flaky.BindTo(label);
                Assert.Equal(2, flaky.Enumerations, "the failure rebinds once");
                Assert.Equal("hello", label.text, "the property's current value");
                prop.Value = "world";
                Assert.Equal("world", label.text, "each value");
                Assert.Equal(0, reports.Count, "a rebind that works reports nothing");

                var count = new OnityAsyncReactiveProperty<int>(1);
                var other = new GameObject("count").AddComponent<Label>();
                count.BindTo(other);
                count.Value = 42;
                Assert.Equal("42", other.text, "ToString of each value");

                var broken = new GameObject("broken").AddComponent<Label>();
                OnityAsyncEnumerable.Throw<string>(new InvalidOperationException("always")).BindTo(broken);
                OnityAsyncEnumerable.Throw<string>(new InvalidOperationException("no rebind")).BindTo(broken, false);
                Sim.RunFrame();
                Assert.Equal("always,no rebind", string.Join(",", reports), "a second failure in a row, or one without rebinding, is reported");

                var cts = new CancellationTokenSource();
                var third = new GameObject("third").AddComponent<Label>();
                prop.BindTo(third, cts.Token);
                Assert.Equal("world", third.text, "bound");
                cts.Cancel();
                Sim.RunFrame(); // the stream sees its token at the next Update
                prop.Value = "after cancel";
                Assert.Equal("world", third.text, "the token ended the binding");

                UnityEngine.Object.Destroy(label.gameObject);
                Sim.RunFrames(2); // destroyed at the end of the frame, seen by the stream at the next Update
                int sets = label.m_TextSets;
                prop.Value = "after destroy";
                Assert.Equal(sets, label.m_TextSets, "destroying the text component ended its binding");
                Assert.Equal(0, reports.Count - 2, "cancellations are not reported");
                Assert.Throws<ArgumentNullException>(() => prop.BindTo((TMP_Text)null), "null text");
            }
            finally { OnityTask.UnobservedTaskException -= onUnobserved; }
        }

        [Test]
        public void Misuse_OffTheMainThreadOrNulls_ThrowsAndTouchesNothing()
        {
            Enter();
            var f = NewField();
            Exception error = null;
            var worker = new Thread(() =>
            {
                try { f.OnTextSelectionAsync(); }
                catch (Exception e) { error = e; }
            });
            worker.Start();
            worker.Join();
            Assert.True(error is InvalidOperationException, "off the main thread: InvalidOperationException, got " + error);
            Assert.Equal(0, f.onTextSelection.ListenerCount, "no relay listener added from the worker");
            var label = new GameObject("label").AddComponent<Label>();
            Assert.Throws<ArgumentNullException>(() => ((IOnityAsyncEnumerable<string>)null).BindTo(label), "null source");
            Assert.Throws<ArgumentNullException>(() => ((TMP_InputField)null).OnTextSelectionAsAsyncEnumerable(), "null field");
            UnityEngine.Object.Destroy(f.gameObject);
            UnityEngine.Object.Destroy(label.gameObject);
            Sim.RunFrame();
        }

        static async OnityTask<int> SubmitWaits(TMP_InputField f, int n, CancellationToken ct)
        {
            for (int i = 0; i < n; i++) await f.OnSubmitAsync(ct);
            return n;
        }

        static async OnityTask<int> SelectionWaits(TMP_InputField f, int n)
        {
            int sum = 0;
            for (int i = 0; i < n; i++) sum += (await f.OnTextSelectionAsync()).Item2;
            return sum;
        }

        static async OnityTask<int> SubmitHandlerWaits(IOnitySubmitEventHandler<string> h, int n)
        {
            for (int i = 0; i < n; i++) await h.OnSubmitAsync();
            return n;
        }

        static async OnityTask<int> SelectionHandlerWaits(IOnityTextSelectionEventHandler<(string, int, int)> h, int n)
        {
            int sum = 0;
            for (int i = 0; i < n; i++) sum += (await h.OnTextSelectionAsync()).Item3;
            return sum;
        }

        static async OnityTask<int> Drain(IOnityAsyncEnumerator<string> e, int n)
        {
            int got = 0;
            while (got < n && await e.MoveNextAsync()) got++;
            return got;
        }

        [Test]
        public void RepeatedWaitsAndBindingsAllocateNothing()
        {
            CleanContext.Run(() =>
            {
                Enter();
                var f = NewField();
                var label = new GameObject("label").AddComponent<Label>();
                var prop = new OnityAsyncReactiveProperty<string>("");
                prop.BindTo(label);
                var values = new[] { "a", "b" };
                var rt = OnityPlayerLoop.Runtime;
                ulong frame = 100000;
                var cts = new CancellationTokenSource();
                var warm = SubmitWaits(f, 200, cts.Token);
                var warmSel = SelectionWaits(f, 200);
                var submitHandler = f.GetAsyncSubmitEventHandler(cts.Token);
                var selectionHandler = f.GetAsyncTextSelectionEventHandler(cts.Token);
                var warmH = SubmitHandlerWaits(submitHandler, 200);
                var warmHs = SelectionHandlerWaits(selectionHandler, 200);
                var consumer = new CancellationTokenSource();
                var stream = f.OnSubmitAsAsyncEnumerable(cts.Token).GetAsyncEnumerator(consumer.Token); // two tokens
                var warmStream = Drain(stream, 200);
                for (int i = 0; i < 200; i++)
                {
                    f.onSubmit.Invoke("s");
                    f.onTextSelection.Invoke("s", 1, 1);
                    prop.Value = values[i & 1];
                    rt.BeginFrame(++frame, 0.016, 0.016, frame);
                    rt.Tick(OnityTiming.Update);
                }
                warm.GetAwaiter().GetResult();
                warmSel.GetAwaiter().GetResult();
                warmH.GetAwaiter().GetResult();
                warmHs.GetAwaiter().GetResult();
                warmStream.GetAwaiter().GetResult();
                var t = SubmitWaits(f, 3000, cts.Token);
                var s = SelectionWaits(f, 3000);
                var th = SubmitHandlerWaits(submitHandler, 3000);
                var ths = SelectionHandlerWaits(selectionHandler, 3000);
                var ts = Drain(stream, 3000);
                long b0 = GC.GetAllocatedBytesForCurrentThread();
                for (int i = 0; i < 3000; i++)
                {
                    f.onSubmit.Invoke("s");
                    f.onTextSelection.Invoke("s", 1, 1);
                    prop.Value = values[i & 1];
                    rt.BeginFrame(++frame, 0.016, 0.016, frame);
                    rt.Tick(OnityTiming.Update);
                }
                long d = GC.GetAllocatedBytesForCurrentThread() - b0;
                Assert.Equal(3000, t.GetAwaiter().GetResult(), "all submits");
                Assert.Equal(3000, s.GetAwaiter().GetResult(), "all selections");
                Assert.Equal(3000, th.GetAwaiter().GetResult(), "all submits through the handler");
                Assert.Equal(3000, ths.GetAwaiter().GetResult(), "all selections through the handler");
                Assert.Equal(3000, ts.GetAwaiter().GetResult(), "all submits through the two-token stream");
                Assert.Equal("b", label.text, "the binding followed");
                Assert.Equal(0L, d, "bytes over 3,000 submit waits, 3,000 selection waits, 3,000 waits on each of two handlers, 3,000 two-token stream values and 3,000 bound values");
                submitHandler.Dispose();
                selectionHandler.Dispose();
                stream.DisposeAsync().Forget();
                // Control: a fresh field's first wait adds its listener (Unity allocates for it).
                var g = NewField();
                b0 = GC.GetAllocatedBytesForCurrentThread();
                g.OnTextSelectionAsync().Forget();
                Assert.True(GC.GetAllocatedBytesForCurrentThread() - b0 > 0, "allocations are seen");
                Sim.ExitPlayMode();
            });
        }
    }
}
