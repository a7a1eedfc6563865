using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;

namespace Onity.Tests
{
    /// <summary>UniTask's overloads the parity map names (state arguments, Forget with a handler,
    /// Timer with ignoreTimeScale, index / result-selector operators, async OnityTaskVoid
    /// subscribers, ChannelClosedException's message constructors).</summary>
    public class ParityOverloadTests
    {
        static T Drive<T>(TestHost h, OnityTask<T> t)
        {
            for (int i = 0; i < 200 && t.Status == OnityTaskStatus.Pending; i++) { Thread.Sleep(i > 100 ? 1 : 0); h.RunFrame(); }
            return t.GetAwaiter().GetResult();
        }

        static async OnityTask<int> After(int v) { await OnityTask.NextFrame(); return v; }

        [Test]
        public void StateOverloadsPassTheState()
        {
            using (var h = new TestHost())
            {
                int called = 0;
                var d = OnityTask.Defer(5, s => { called++; return After(s); });
                Assert.Equal(0, called, "deferred until awaited");
                Assert.Equal(5, Drive(h, d), "the state reached the factory");
                var du = OnityTask.Defer("x", s => { called += s.Length; return OnityTask.CompletedTask; });
                du.GetAwaiter().GetResult();
                Assert.Equal(2, called, "untyped Defer with state");
                Assert.Equal(7, Drive(h, OnityTask.Run<int>(s => (int)s + 1, (object)6)), "Run(Func<object, T>, state) on the pool");
                Assert.Equal(9, Drive(h, OnityTask.RunOnThreadPool<int>(s => OnityTask.FromResult((int)s), (object)9)), "RunOnThreadPool(Func<object, OnityTask<T>>, state)");
                int seen = 0;
                Drive(h, OnityTask.Run(s => { seen = (int)s; return OnityTask.CompletedTask; }, (object)4).ContinueWith(() => 0));
                Assert.Equal(4, seen, "Run(Func<object, OnityTask>, state)");
                var act = OnityTask.Action(3, s => { seen = s; return OnityTask.CompletedTask; });
                act();
                Assert.Equal(3, seen, "Action(state, func)");
                Assert.Throws<ArgumentNullException>(() => OnityTask.Defer(1, (Func<int, OnityTask>)null), "null factory");
            }
        }

        [Test]
        public void ForgetWithAHandlerGetsFailuresAndCancellationsOnTheOwner()
        {
            using (var h = new TestHost())
            {
                int owner = Thread.CurrentThread.ManagedThreadId;
                var got = new List<Exception>();
                int handledOn = 0;
                var src = new OnityCompletionSource();
                src.Task.Forget(e => { got.Add(e); handledOn = Thread.CurrentThread.ManagedThreadId; });
                Assert.True(Task.Run(() => src.TrySetException(new InvalidOperationException("x"))).Wait(10000), "faulted on a worker");
                for (int i = 0; i < 5 && got.Count == 0; i++) h.RunFrame();
                Assert.Equal(1, got.Count, "the handler got the failure");
                Assert.Equal(owner, handledOn, "on the owner thread");
                var cts = new CancellationTokenSource();
                OnityTask.Delay(1000, cancellationToken: cts.Token).Forget(e => got.Add(e), false);
                cts.Cancel();
                h.RunFrame();
                Assert.True(got.Count == 2 && got[1] is OperationCanceledException, "a cancellation goes to the handler too");
                After(1).Forget(e => got.Add(e));
                h.RunFrame();
                Assert.Equal(2, got.Count, "success: no call");
                OnityTask.FromException<int>(new InvalidOperationException("y")).Forget(e => { throw new Exception("handler"); });
                h.RunFrame();
                Assert.True(h.Unobserved.Any(e => e.Message == "handler"), "the handler's exception is unobserved");
            }
        }

        [Test]
        public void LinqOverloadsBehaveAsTheirUniTaskForms()
        {
            using (var h = new TestHost())
            {
                var src = OnityAsyncEnumerable.Range(1, 5);
                Assert.Equal("1:0,2:1", string.Join(",", Drive(h, src.Take(2).SelectMany((x, i) => OnityAsyncEnumerable.Return(x + ":" + i)).ToArrayAsync())), "SelectMany with the index");
                Assert.Equal("10,21", string.Join(",", Drive(h, src.Take(2).SelectMany((x, i) => OnityAsyncEnumerable.Range(i, 1), (x, c) => x * 10 + c).ToArrayAsync())), "SelectMany with index and result selector");
                Assert.Equal("1:3,0:2", string.Join(",", Drive(h, src.GroupBy(x => x % 2, (k, xs) => k + ":" + xs.Count()).ToArrayAsync())), "GroupBy with a result selector");
                Assert.Equal("1:10,0:20", string.Join(",", Drive(h, src.GroupBy(x => x % 2, x => x * 10, (k, xs) => k + ":" + xs.First(), EqualityComparer<int>.Default).ToArrayAsync())), "GroupBy with element and result selectors");
                Assert.True(Drive(h, src.SequenceEqualAsync(OnityAsyncEnumerable.Range(1, 5), CancellationToken.None)), "SequenceEqualAsync(first, second, token)");
                var seen = new List<string>();
                indexed = seen;
                // (a delegate, not a lambda: mcs binds an async lambda to the Action<T> overload; Roslyn, as in Unity, to this one)
                Drive(h, src.Take(2).ForEachAsync(new Func<int, OnityTask>(AddAwaited)).ContinueWith(() => 0));
                Drive(h, src.Take(2).ForEachAwaitAsync(new Func<int, int, OnityTask>(AddIndexed)).ContinueWith(() => 0));
                Assert.Equal("a1,a2,1@0,2@1", string.Join(",", seen), "async ForEachAsync awaits each; ForEachAwaitAsync passes the index");
                var t = OnityAsyncEnumerable.Timer(TimeSpan.FromSeconds(0.5), OnityTiming.Update, true).ToArrayAsync();
                h.Dt = 0;  // time scale 0: only the unscaled clock advances
                int frames = 0;
                while (t.Status == OnityTaskStatus.Pending && frames < 100) { h.RunFrame(); frames++; }
                Assert.Equal(1, t.GetAwaiter().GetResult().Length, "Timer(ignoreTimeScale) fires on the unscaled clock");
                Assert.True(frames >= 29 && frames <= 32, "after about 30 unscaled frames: " + frames);
            }
        }

        static List<string> indexed;

        static async OnityTask AddAwaited(int x)
        {
            await OnityTask.NextFrame();
            indexed.Add("a" + x);
        }

        static async OnityTask AddIndexed(int x, int i)
        {
            await OnityTask.Yield();
            indexed.Add(x + "@" + i);
        }

        [Test]
        public void CombineLatestOfManySourcesGivesTheLatestOfEach()
        {
            using (var h = new TestHost())
            {
                var a = OnityChannel.CreateSingleConsumerUnbounded<int>();
                var b = OnityChannel.CreateSingleConsumerUnbounded<string>();
                var c = OnityChannel.CreateSingleConsumerUnbounded<char>();
                var got = new List<string>();
                var t = a.Reader.ReadAllAsync().CombineLatest(b.Reader.ReadAllAsync(), c.Reader.ReadAllAsync(), (x, y, z) => x + y + z).ForEachAsync(v => got.Add(v));
                a.Writer.TryWrite(1);
                b.Writer.TryWrite("b");
                h.RunFrame();
                Assert.Equal(0, got.Count, "nothing before every source has a value");
                c.Writer.TryWrite('c');
                h.RunFrame();
                a.Writer.TryWrite(2);
                h.RunFrame();
                c.Writer.TryWrite('d');
                h.RunFrame();
                Assert.Equal("1bc,2bc,2bd", string.Join(",", got), "the latest of each, at every change");
                a.Writer.TryComplete();
                b.Writer.TryComplete();
                c.Writer.TryComplete();
                for (int f = 0; f < 3 && t.Status == OnityTaskStatus.Pending; f++) h.RunFrame();
                Assert.Equal(OnityTaskStatus.Succeeded, t.Status, "ends when every source ended");
                var r = OnityAsyncEnumerable.Return(1);
                var all15 = r.CombineLatest(r, r, r, r, r, r, r, r, r, r, r, r, r, OnityAsyncEnumerable.Return(15),
                    (x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13, x14, x15) => x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15).ToArrayAsync();
                Assert.Equal("29", string.Join(",", Drive(h, all15)), "15 sources: each value in its place");
                Assert.Throws<ArgumentNullException>(() => r.CombineLatest(r, (IOnityAsyncEnumerable<int>)null, (x, y, z) => x), "null source");
            }
        }

        static int subscribed;

        static async OnityTaskVoid OnItem(int x)
        {
            await OnityTask.NextFrame();
            subscribed += x;
        }

        [Test]
        public void SubscribeWithAnAsyncVoidHandlerStartsItPerElement()
        {
            using (var h = new TestHost())
            {
                subscribed = 0;
                var ch = OnityChannel.CreateSingleConsumerUnbounded<int>();
                var sub = ch.Reader.ReadAllAsync().Subscribe(OnItem);
                ch.Writer.TryWrite(1);
                ch.Writer.TryWrite(2);
                h.RunFrame();
                h.RunFrame();
                Assert.Equal(3, subscribed, "each element ran the handler");
                CancellationToken handed = default(CancellationToken);
                var sub2 = OnityAsyncEnumerable.Return(5).Concat(OnityAsyncEnumerable.Never<int>()).Subscribe((x, ct) => { handed = ct; return OnItem(x); });
                h.RunFrame();
                h.RunFrame();
                Assert.False(handed.IsCancellationRequested, "subscription live");
                sub2.Dispose();
                Assert.True(handed.IsCancellationRequested, "the handler's token is canceled at Dispose");
                sub.Dispose();
                var e = new OnityChannelClosedException("m", new Exception("inner"));
                Assert.True(e.Message == "m" && e.InnerException.Message == "inner" && new OnityChannelClosedException("n").Message == "n", "message constructors");
            }
        }
    }
}
