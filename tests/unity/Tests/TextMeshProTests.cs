using System;
using System.Collections.Generic;
using System.Threading;
using Onity.Unity;
using TMPro;
using UnityEngine;

namespace Onity.UnityTests
{
    /// <summary>TextMeshPro's TMP_InputField events as awaitables and streams, and BindTo on a
    /// TMP_Text (Onity.Unity.TextMeshPro), frame by frame against the TMP stand-in.</summary>
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

        [Test]
        public void StreamsWithAToken_ThrowOnceItIsCanceled_TheConsumersTokenToo()
        {
            Enter();
            var f = NewField();
            var own = new CancellationTokenSource();
            var a = new List<string>();
            Collect(f.OnSubmitAsAsyncEnumerable(own.Token), a).Forget();
            var consumer = new CancellationTokenSource();
            var b = new List<string>();
            Collect(f.OnTextSelectionAsAsyncEnumerable(new CancellationTokenSource().Token), b, consumer.Token).Forget();
            f.onSubmit.Invoke("x");
            f.onTextSelection.Invoke("x", 0, 1);
            own.Cancel();
            consumer.Cancel();
            Sim.RunFrame();
            Assert.Equal("x,canceled", string.Join(",", a), "the stream's own token");
            Assert.Equal("(x, 0, 1),canceled", string.Join(",", b), "the consumer's token (both tokens given)");
            Assert.True(ReferenceEquals(f.OnSubmitAsAsyncEnumerable(CancellationToken.None).GetType(), f.OnSubmitAsAsyncEnumerable().GetType()), "no token: the plain stream");
            UnityEngine.Object.Destroy(f.gameObject);
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
                var t = SubmitWaits(f, 3000, cts.Token);
                var s = SelectionWaits(f, 3000);
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
                Assert.Equal("b", label.text, "the binding followed");
                Assert.Equal(0L, d, "bytes over 3,000 submit waits, 3,000 selection waits and 3,000 bound values");
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
