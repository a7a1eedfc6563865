using System;
using System.Collections.Generic;
using System.Threading;
using Onity.Linq;

namespace Onity.Tests
{
    /// <summary>OnityTriggerEvent (UniTask's TriggerEvent) and the reactive properties, frame by
    /// frame, with cancellation at every point and allocations counted.</summary>
    public class ReactiveTests
    {
        static long Bytes() { return GC.GetAllocatedBytesForCurrentThread(); }

        sealed class Handler : IOnityTriggerHandler<int>
        {
            readonly string name;
            readonly List<string> log;
            public Action<int> onNext;
            public Handler(string name, List<string> log) { this.name = name; this.log = log; }
            public IOnityTriggerHandler<int> Prev { get; set; }
            public IOnityTriggerHandler<int> Next { get; set; }
            public void OnNext(int value)
            {
                if (log != null) log.Add(name + value);
                if (onNext != null) onNext(value);
            }
            public void OnError(Exception ex) { log.Add(name + ":error:" + ex.Message); }
            public void OnCompleted() { log.Add(name + ":completed"); }
            public void OnCanceled(CancellationToken ct) { log.Add(name + ":canceled:" + ct.IsCancellationRequested); }
        }

        sealed class Holder { public OnityTriggerEvent<int> ev; }

        [Test]
        public void TriggerEventCallsInOrderAndTerminalsEndTheCurrentHandlersOnly()
        {
            using (var h = new TestHost())
            {
                var log = new List<string>();
                var x = new Holder();
                Handler a = new Handler("a", log), b = new Handler("b", log), c = new Handler("c", log);
                Assert.False(x.ev.HasHandlers, "empty");
                x.ev.SetResult(0); // nobody: nothing
                x.ev.Add(a);
                x.ev.Add(b);
                x.ev.Add(c);
                Assert.Throws<InvalidOperationException>(() => x.ev.Add(b), "added twice");
                x.ev.SetResult(1);
                Assert.Equal("a1,b1,c1", string.Join(",", log), "in order");
                log.Clear();
                x.ev.Remove(b);
                x.ev.Remove(b); // not added: nothing
                x.ev.SetResult(2);
                Assert.Equal("a2,c2", string.Join(",", log), "b removed");
                log.Clear();

                // SetCompleted ends the current handlers; the event stays usable.
                x.ev.SetCompleted();
                Assert.Equal("a:completed,c:completed", string.Join(",", log), "terminal to each");
                Assert.False(x.ev.HasHandlers, "all removed");
                log.Clear();
                x.ev.SetResult(3);
                Assert.Equal("", string.Join(",", log), "ended handlers get nothing more");
                x.ev.Add(b);
                x.ev.Add(a);
                x.ev.SetResult(4);
                Assert.Equal("b4,a4", string.Join(",", log), "usable after SetCompleted, new order");
                log.Clear();
                x.ev.SetError(new FormatException("e"));
                Assert.Equal("b:error:e,a:error:e", string.Join(",", log), "SetError");
                log.Clear();
                x.ev.Add(c);
                using (var cts = new CancellationTokenSource())
                {
                    cts.Cancel();
                    x.ev.SetCanceled(cts.Token);
                }
                Assert.Equal("c:canceled:True", string.Join(",", log), "SetCanceled carries the token");
                Assert.Throws<ArgumentNullException>(() => x.ev.Add(null), "null handler");
            }
        }

        [Test]
        public void TriggerEventHandlersChangingTheListDuringSetResult()
        {
            using (var h = new TestHost())
            {
                var log = new List<string>();
                var x = new Holder();
                Handler a = new Handler("a", log), b = new Handler("b", log), c = new Handler("c", log), d = new Handler("d", log);
                x.ev.Add(a);
                x.ev.Add(b);
                x.ev.Add(c);
                // a removes itself and the next one (b), and adds d: b is not called, d from the next value.
                a.onNext = v => { x.ev.Remove(a); x.ev.Remove(b); x.ev.Add(d); };
                x.ev.SetResult(1);
                Assert.Equal("a1,c1", string.Join(",", log), "self and next removed, added not called");
                log.Clear();
                x.ev.SetResult(2);
                Assert.Equal("c2,d2", string.Join(",", log), "the added one from the next value");
                log.Clear();
                // d removes itself while it was added during a SetResult; c throws: the others still run.
                c.onNext = v => { throw new FormatException("c threw"); };
                d.onNext = v => x.ev.Remove(d);
                x.ev.Add(a);
                a.onNext = null;
                x.ev.SetResult(3);
                Assert.Equal("c3,d3,a3", string.Join(",", log), "a handler's exception does not stop the others");
                Assert.Equal(1, h.Unobserved.Count, "the exception is reported");
                log.Clear();
                // A terminal from inside SetResult: the rest of that value is not delivered.
                c.onNext = v => x.ev.SetCompleted();
                x.ev.SetResult(4);
                Assert.Equal("c4,c:completed,a:completed", string.Join(",", log), "SetCompleted inside SetResult ends the pass");
                Assert.False(x.ev.HasHandlers, "none left");
            }
        }

        [Test]
        public void TriggerEventAllocatesNothing()
        {
            FreshThread.Run(() =>
            {
                using (var h = new TestHost())
                {
                    var x = new Holder();
                    var hs = new Handler[8];
                    int sum = 0;
                    for (int i = 0; i < hs.Length; i++) { hs[i] = new Handler("h", null); hs[i].onNext = v => sum += v; }
                    long b0 = 0;
                    for (int round = 0; round < 1100; round++)
                    {
                        if (round == 100) b0 = Bytes();
                        for (int i = 0; i < hs.Length; i++) x.ev.Add(hs[i]);
                        x.ev.SetResult(1);
                        x.ev.Remove(hs[3]);
                        x.ev.SetResult(1);
                        for (int i = 0; i < hs.Length; i++) x.ev.Remove(hs[i]);
                    }
                    Assert.Equal(0L, Bytes() - b0, "bytes over 1000 rounds of adds, results and removes");
                    Assert.Equal(1100 * 15, sum, "every delivery");
                    b0 = Bytes();
                    x.ev.Add(new Handler("control", null));
                    Assert.True(Bytes() - b0 > 0, "a new handler is seen by the measurement (control)");
                }
            });
        }

        static async OnityTask Collect(IOnityAsyncEnumerable<int> s, List<int> into, CancellationToken ct)
        {
            var e = s.GetAsyncEnumerator(ct);
            try
            {
                while (await e.MoveNextAsync()) into.Add(e.Current);
                into.Add(-1); // ended
            }
            finally { await e.DisposeAsync(); }
        }

        [Test]
        public void ReactivePropertyGivesTheCurrentValueThenEachSetAndEndsOnDispose()
        {
            using (var h = new TestHost())
            {
                var p = new OnityAsyncReactiveProperty<int>(5);
                Assert.Equal(5, p.Value, "initial");
                Assert.Equal(5, (int)p, "implicit conversion");
                Assert.Equal("5", p.ToString(), "ToString");
                var withCurrent = new List<int>();
                var without = new List<int>();
                var t1 = Collect(p, withCurrent, default(CancellationToken));
                var t2 = Collect(p.WithoutCurrent(), without, default(CancellationToken));
                Assert.Equal("5", string.Join(",", withCurrent), "the current value first");
                Assert.Equal("", string.Join(",", without), "WithoutCurrent: nothing yet");
                var wait = p.WaitAsync();
                Assert.Equal(OnityTaskStatus.Pending, wait.Status, "WaitAsync waits for a set");
                p.Value = 6;
                Assert.Equal(6, wait.GetAwaiter().GetResult(), "WaitAsync: the value set");
                h.RunFrame();
                p.Value = 6; // equal: delivered too (UniTask's rule)
                p.Value = 7;
                Assert.Equal("5,6,6,7", string.Join(",", withCurrent), "each set");
                Assert.Equal("6,6,7", string.Join(",", without), "each set, without the current");
                p.Dispose();
                Assert.Equal("5,6,6,7,-1", string.Join(",", withCurrent), "Dispose ends it");
                Assert.Equal(OnityTaskStatus.Succeeded, t1.Status, "ended");
                Assert.Equal(OnityTaskStatus.Succeeded, t2.Status, "ended");
                Assert.Equal(OnityTaskStatus.Canceled, p.WaitAsync().Status, "a wait after Dispose is canceled");
            }
        }

        [Test]
        public void ReactivePropertyWaitsAreCanceledByTheirTokenAtEveryPoint()
        {
            using (var h = new TestHost())
            {
                for (int k = 0; k < 4; k++)
                {
                    var p = new OnityAsyncReactiveProperty<int>(0);
                    using (var cts = new CancellationTokenSource())
                    {
                        var got = new List<int>();
                        var stream = Collect(p, got, cts.Token);
                        var wait = p.WaitAsync(cts.Token);
                        for (int i = 1; i <= k; i++)
                        {
                            p.Value = i;
                            h.RunFrame();
                            if (i == 1) Assert.Equal(1, wait.GetAwaiter().GetResult(), "the wait got the first set");
                        }
                        if (k == 0)
                        {
                            cts.Cancel();
                            Assert.Equal(OnityTaskStatus.Pending, wait.Status, "polled at the next Update");
                            h.RunFrame();
                            Assert.Equal(OnityTaskStatus.Canceled, wait.Status, "canceled");
                        }
                        else cts.Cancel();
                        Assert.Equal(k, got.Count - 1, "values before the cancellation (k=" + k + ")");
                        h.RunFrame();
                        Assert.Equal(OnityTaskStatus.Canceled, stream.Status, "the stream is canceled (k=" + k + ")");
                        p.Value = 99;
                        Assert.Equal(k + 1, got.Count, "nothing after the cancellation");
                    }
                }
                using (var cts = new CancellationTokenSource())
                {
                    cts.Cancel();
                    var p = new OnityAsyncReactiveProperty<int>(1);
                    Assert.Equal(OnityTaskStatus.Canceled, p.WaitAsync(cts.Token).Status, "already canceled");
                    var got = new List<int>();
                    Assert.Equal(OnityTaskStatus.Canceled, Collect(p, got, cts.Token).Status, "an enumeration with a canceled token");
                    Assert.Equal(0, got.Count, "not even the current value");
                }
            }
        }

        [Test]
        public void ReadOnlyReactivePropertyFollowsItsSource()
        {
            using (var h = new TestHost())
            {
                var source = new OnityAsyncReactiveProperty<int>(1);
                var ro = source.WithoutCurrent().ToReadOnlyAsyncReactiveProperty(10, CancellationToken.None);
                Assert.Equal(10, ro.Value, "the initial value until the source's first element");
                var got = new List<int>();
                var t = Collect(ro, got, default(CancellationToken));
                source.Value = 2;
                source.Value = 3;
                Assert.Equal(3, ro.Value, "follows");
                Assert.Equal("10,2,3", string.Join(",", got), "its stream: current, then each");
                var w = ro.WaitAsync();
                source.Value = 4;
                Assert.Equal(4, w.GetAwaiter().GetResult(), "WaitAsync");
                ro.Dispose();
                Assert.Equal(OnityTaskStatus.Succeeded, t.Status, "Dispose ends its streams");
                source.Value = 5;
                Assert.Equal(4, ro.Value, "no longer follows after Dispose");
                Assert.True(ReferenceEquals(source.WithoutCurrent(), source.WithoutCurrent()), "WithoutCurrent is made once");

                using (var cts = new CancellationTokenSource())
                {
                    var src2 = new OnityAsyncReactiveProperty<int>(0);
                    var ro2 = src2.ToReadOnlyAsyncReactiveProperty(cts.Token);
                    Assert.Equal(0, ro2.Value, "the source's current value at once");
                    src2.Value = 1;
                    cts.Cancel();
                    h.RunFrame();
                    src2.Value = 2;
                    Assert.Equal(1, ro2.Value, "the token stops the following");
                }
                Assert.Throws<ArgumentNullException>(() => new OnityReadOnlyAsyncReactiveProperty<int>(null, CancellationToken.None), "null source");
            }
        }

        [Test]
        public void ReactivePropertySetsWaitsAndElementsAllocateNothingAfterWarmUp()
        {
            FreshThread.Run(() =>
            {
                using (var h = new TestHost())
                {
                    var p = new OnityAsyncReactiveProperty<int>(0);
                    var e = p.GetAsyncEnumerator();
                    e.MoveNextAsync().GetAwaiter().GetResult(); // the current value
                    long b0 = 0, sum = 0;
                    for (int i = 0; i < 1100; i++)
                    {
                        if (i == 100) b0 = Bytes();
                        var move = e.MoveNextAsync();
                        var wait = p.WaitAsync();
                        p.Value = i;
                        if (!move.GetAwaiter().GetResult()) throw new AssertionException("ended");
                        sum += e.Current + wait.GetAwaiter().GetResult();
                    }
                    Assert.Equal(0L, Bytes() - b0, "bytes over 1000 sets, each to a stream and a WaitAsync");
                    Assert.Equal(2L * 1099 * 1100 / 2, sum, "every value");
                    b0 = Bytes();
                    p.GetAsyncEnumerator().DisposeAsync();
                    Assert.True(Bytes() - b0 > 0, "an enumerator is allocated (the measurement sees it)");
                    e.DisposeAsync();
                }
            });
        }
    }
}
