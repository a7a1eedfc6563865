using System;
using System.Collections.Generic;
using System.Threading;

namespace Onity.Tests
{
    /// <summary>ToObservable, ToOnityAsyncEnumerable(IObservable), ZipAwait, DistinctAwait.</summary>
    public class ObservableBridgeTests
    {
        sealed class Recorder : IObserver<int>
        {
            public readonly List<string> Log = new List<string>();
            public void OnNext(int v) { Log.Add(v.ToString()); }
            public void OnError(Exception e) { Log.Add("error " + e.Message); }
            public void OnCompleted() { Log.Add("done"); }
        }

        sealed class Subject : IObservable<int>
        {
            public readonly List<IObserver<int>> Observers = new List<IObserver<int>>();
            public IDisposable Subscribe(IObserver<int> o)
            {
                Observers.Add(o);
                return new Unsub(this, o);
            }
            sealed class Unsub : IDisposable
            {
                readonly Subject s; readonly IObserver<int> o;
                public Unsub(Subject s, IObserver<int> o) { this.s = s; this.o = o; }
                public void Dispose() { s.Observers.Remove(o); }
            }
            public void Next(int v) { foreach (var o in Observers.ToArray()) o.OnNext(v); }
        }

        static async OnityTask<int> Later(int x)
        {
            await OnityTask.NextFrame();
            return x;
        }

        static T Run<T>(TestHost h, OnityTask<T> t)
        {
            for (int i = 0; i < 100 && t.Status == OnityTaskStatus.Pending; i++) h.RunFrame();
            return t.GetAwaiter().GetResult();
        }

        [Test]
        public void ToObservablePushesEveryElementThenCompletesOrFails()
        {
            using (var h = new TestHost())
            {
                h.RunFrame();
                var r = new Recorder();
                OnityAsyncEnumerable.Range(1, 3).ToObservable().Subscribe(r);
                Assert.Equal("1,2,3,done", string.Join(",", r.Log), "elements then OnCompleted");
                var f = new Recorder();
                OnityAsyncEnumerable.Throw<int>(new FormatException("x")).ToObservable().Subscribe(f);
                Assert.Equal("error x", string.Join(",", f.Log), "OnError");
                var every = new Recorder();
                var sub = OnityAsyncEnumerable.EveryUpdate().Select(_ => 7).ToObservable().Subscribe(every);
                h.RunFrame();
                int n = every.Log.Count;
                Assert.True(n >= 1, "frame elements");
                sub.Dispose();
                h.RunFrame();
                h.RunFrame();
                Assert.Equal(n, every.Log.Count, "nothing after Dispose (no OnCompleted either)");
                Assert.Throws<ArgumentNullException>(() => OnityAsyncEnumerable.ToObservable<int>(null), "null source");
            }
        }

        [Test]
        public void AnObservableBecomesAStreamThatBuffersAndUnsubscribes()
        {
            using (var h = new TestHost())
            {
                h.RunFrame();
                var s = new Subject();
                var got = new List<int>();
                var e = s.ToOnityAsyncEnumerable().GetAsyncEnumerator();
                var m = e.MoveNextAsync();
                Assert.Equal(1, s.Observers.Count, "subscribed at the first MoveNextAsync");
                s.Next(1);
                s.Next(2); // buffered
                Assert.True(m.GetAwaiter().GetResult(), "first");
                got.Add(e.Current);
                Assert.True(Run(h, e.MoveNextAsync()), "second, from the buffer");
                got.Add(e.Current);
                Assert.Equal("1,2", string.Join(",", got), "in order");
                var d = e.DisposeAsync();
                for (int i = 0; i < 10 && d.Status == OnityTaskStatus.Pending; i++) h.RunFrame();
                d.GetAwaiter().GetResult();
                Assert.Equal(0, s.Observers.Count, "unsubscribed at disposal");

                // OnCompleted ends, OnError faults.
                var r = Run(h, new Ends(false).ToOnityAsyncEnumerable().ToArrayAsync());
                Assert.Equal("5", string.Join(",", r), "ends");
                Assert.Throws<FormatException>(() => Run(h, new Ends(true).ToOnityAsyncEnumerable().ToArrayAsync()), "faults");
                Assert.Throws<ArgumentNullException>(() => OnityAsyncEnumerable.ToOnityAsyncEnumerable((IObservable<int>)null), "null source");
            }
        }

        sealed class Ends : IObservable<int>
        {
            readonly bool fail;
            public Ends(bool fail) { this.fail = fail; }
            public IDisposable Subscribe(IObserver<int> o)
            {
                o.OnNext(5);
                if (fail) o.OnError(new FormatException("f"));
                else o.OnCompleted();
                return new Nothing();
            }
            sealed class Nothing : IDisposable { public void Dispose() { } }
        }

        [Test]
        public void ZipAwaitAndDistinctAwait()
        {
            using (var h = new TestHost())
            {
                h.RunFrame();
                var a = OnityAsyncEnumerable.Range(1, 3);
                var b = OnityAsyncEnumerable.Range(10, 5);
                Assert.Equal("11,13,15", string.Join(",", Run(h, a.ZipAwait(b, (x, y) => Later(x + y)).ToArrayAsync())), "ZipAwait: the shorter length");
                var cts = new CancellationTokenSource();
                Assert.Equal("11,13,15", string.Join(",", Run(h, a.ZipAwaitWithCancellation(b, (x, y, ct) => ct == cts.Token ? Later(x + y) : Later(-1)).ToArrayAsync(cts.Token))), "ZipAwaitWithCancellation");
                var src = new[] { 1, 2, 3, 4, 5, 6 }.ToOnityAsyncEnumerable();
                Assert.Equal("1,2,3", string.Join(",", Run(h, src.DistinctAwait(x => Later(x % 3)).ToArrayAsync())), "DistinctAwait: first per key");
                Assert.Equal("1,2", string.Join(",", Run(h, src.DistinctAwaitWithCancellation((x, ct) => Later(x % 2)).ToArrayAsync())), "DistinctAwaitWithCancellation");
                Assert.Throws<ArgumentNullException>(() => a.ZipAwait(b, (Func<int, int, OnityTask<int>>)null), "null selector");
                Assert.Throws<ArgumentNullException>(() => src.DistinctAwait((Func<int, OnityTask<int>>)null), "null key selector");
            }
        }
    }
}
