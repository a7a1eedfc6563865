using System;
using System.Collections.Generic;
using System.Threading;

namespace Onity.Tests
{
    /// <summary>Second-reader findings (review6) on the UniTask-parity surface: each test failed
    /// before its fix.</summary>
    public class StreamEndingTests
    {
        /// <summary>A source whose MoveNextAsync waits for Push / End / its token's cancellation;
        /// counts its enumerations and disposals.</summary>
        sealed class Probe : IOnityAsyncEnumerable<int>
        {
            public int Disposed, Enumerations;
            public OnityCompletionSource<bool> Pending;
            public int Value;

            public IOnityAsyncEnumerator<int> GetAsyncEnumerator(CancellationToken ct = default(CancellationToken))
            {
                Enumerations++;
                return new E(this, ct);
            }

            public void Push(int v)
            {
                var p = Pending;
                Pending = null;
                Value = v;
                p.TrySetResult(true);
            }

            sealed class E : IOnityAsyncEnumerator<int>
            {
                readonly Probe o;
                readonly CancellationToken ct;
                public E(Probe o, CancellationToken ct) { this.o = o; this.ct = ct; }
                public int Current { get { return o.Value; } }

                public OnityTask<bool> MoveNextAsync()
                {
                    if (o.Pending != null) throw new InvalidOperationException("probe: two MoveNextAsync at once");
                    if (ct.IsCancellationRequested) return OnityTask.FromCanceled<bool>(ct);
                    var p = o.Pending = new OnityCompletionSource<bool>();
                    ct.Register(() => { if (o.Pending == p) { o.Pending = null; p.TrySetCanceled(ct); } });
                    return p.Task;
                }

                public OnityTask DisposeAsync()
                {
                    o.Disposed++;
                    return OnityTask.CompletedTask;
                }
            }
        }

        static readonly KeyValuePair<string, Func<IOnityAsyncEnumerable<int>, IOnityAsyncEnumerable<int>>>[] createBased =
        {
            Op("Concat", s => s.Concat(OnityAsyncEnumerable.Range(0, 2))),
            Op("Zip", s => s.Zip(OnityAsyncEnumerable.Range(0, 5), (a, b) => a)),
            Op("Buffer", s => s.Buffer(2).Select(l => l[0])),
            Op("Distinct", s => s.Distinct()),
            Op("Pairwise", s => s.Pairwise().Select(p => p.Item2)),
            Op("Merge", s => s.Merge(OnityAsyncEnumerable.Never<int>())),
            Op("CombineLatest", s => s.CombineLatest(OnityAsyncEnumerable.Return(1), (a, b) => a)),
            Op("Queue", s => s.Queue()),
            Op("TakeLast", s => s.TakeLast(1)),
            Op("Join", s => s.Join(OnityAsyncEnumerable.Range(0, 5), x => x, y => y, (a, b) => a)),
        };

        static KeyValuePair<string, Func<IOnityAsyncEnumerable<int>, IOnityAsyncEnumerable<int>>> Op(string name, Func<IOnityAsyncEnumerable<int>, IOnityAsyncEnumerable<int>> f)
        {
            return new KeyValuePair<string, Func<IOnityAsyncEnumerable<int>, IOnityAsyncEnumerable<int>>>(name, f);
        }

        [Test]
        public void CreateBasedOperatorDisposedWhileMoveNextPendingReleasesItsSource()
        {
            using (var h = new TestHost())
            {
                foreach (var op in createBased)
                {
                    // DisposeAsync while a MoveNextAsync waits for the source (an abandoned wait,
                    // TakeUntil's signal, a timeout): as the fused operators do, the pending
                    // MoveNextAsync ends with false and the source's enumeration stops and is disposed.
                    var p = new Probe();
                    var e = op.Value(p).GetAsyncEnumerator();
                    var next = e.MoveNextAsync();
                    Assert.Equal(OnityTaskStatus.Pending, next.Status, op.Key + ": MoveNextAsync waits");
                    e.DisposeAsync().GetAwaiter().GetResult();
                    Assert.Equal(OnityTaskStatus.Succeeded, next.Status, op.Key + ": the pending MoveNextAsync ended");
                    Assert.False(next.GetAwaiter().GetResult(), op.Key + ": with false");
                    Assert.Equal(p.Enumerations, p.Disposed, op.Key + ": every source enumeration disposed");
                    Assert.True(p.Pending == null, op.Key + ": no source MoveNextAsync left waiting");
                    // With a token of the enumeration's, handed as it is to the producer (its
                    // selectors see that token): the MoveNextAsync ends at the disposal all the
                    // same, and canceling the token stops the sources.
                    p = new Probe();
                    var cts = new CancellationTokenSource();
                    e = op.Value(p).GetAsyncEnumerator(cts.Token);
                    next = e.MoveNextAsync();
                    e.DisposeAsync().GetAwaiter().GetResult();
                    Assert.Equal(OnityTaskStatus.Succeeded, next.Status, op.Key + " (token): the pending MoveNextAsync ended");
                    Assert.False(next.GetAwaiter().GetResult(), op.Key + " (token): with false");
                    cts.Cancel();
                    Assert.Equal(p.Enumerations, p.Disposed, op.Key + " (token): every source enumeration disposed once canceled");
                }
                Assert.Equal(0, h.Unobserved.Count, "nothing unobserved");
            }
        }

        [Test]
        public void ChannelUnderConcatIsReadableAgainAfterTakeUntilCanceledEndsTheStream()
        {
            using (var h = new TestHost())
            {
                // The game-side form of the above: a channel read through Concat, cut by
                // TakeUntilCanceled. The channel's single reader was left claimed by the orphaned
                // producer: a second ReadAllAsync threw "already being enumerated".
                var ch = OnityChannel.CreateSingleConsumerUnbounded<int>();
                var cts = new CancellationTokenSource();
                var stream = ch.Reader.ReadAllAsync().Concat(OnityAsyncEnumerable.Empty<int>()).TakeUntilCanceled(cts.Token);
                var got = new List<int>();
                var run = stream.ForEachAsync(x => got.Add(x));
                ch.Writer.TryWrite(1);
                cts.Cancel();
                Assert.Equal(OnityTaskStatus.Succeeded, run.Status, "TakeUntilCanceled ended the stream");
                var e = ch.Reader.ReadAllAsync().GetAsyncEnumerator();
                ch.Writer.TryWrite(2);
                Assert.True(e.MoveNextAsync().GetAwaiter().GetResult(), "the channel is read again");
                Assert.Equal(2, e.Current, "its next item");
                e.DisposeAsync().GetAwaiter().GetResult();
                Assert.Equal(1, got.Count, "one element before the cut");
                // The pending MoveNextAsync's continuation, run by the disposal, finds the channel
                // released already.
                var concat = ch.Reader.ReadAllAsync().Concat(OnityAsyncEnumerable.Empty<int>()).GetAsyncEnumerator();
                var pending = concat.MoveNextAsync();
                string reopened = null;
                pending.GetAwaiter().OnCompleted(() =>
                {
                    try
                    {
                        ch.Reader.ReadAllAsync().GetAsyncEnumerator().DisposeAsync();
                        reopened = "ok";
                    }
                    catch (Exception ex) { reopened = ex.Message; }
                });
                concat.DisposeAsync().GetAwaiter().GetResult();
                Assert.Equal("ok", reopened, "the channel read again from the continuation");
                Assert.Equal(0, h.Unobserved.Count, "nothing unobserved");
            }
        }

        [Test]
        public void CreateBasedOperatorWithATokenDisposedWhileMoveNextPendingReleasesItsSource()
        {
            using (var h = new TestHost())
            {
                foreach (var op in createBased)
                {
                    // As without a token (above): the enumeration's token is never canceled (a
                    // destroyCancellationToken), yet the disposal stops and disposes the sources.
                    var p = new Probe();
                    var cts = new CancellationTokenSource();
                    var e = op.Value(p).GetAsyncEnumerator(cts.Token);
                    var next = e.MoveNextAsync();
                    e.DisposeAsync().GetAwaiter().GetResult();
                    Assert.False(next.GetAwaiter().GetResult(), op.Key + ": the pending MoveNextAsync ended with false");
                    Assert.Equal(p.Enumerations, p.Disposed, op.Key + ": every source enumeration disposed at the disposal");
                    Assert.True(p.Pending == null, op.Key + ": no source MoveNextAsync left waiting");
                    Assert.False(cts.IsCancellationRequested, op.Key + ": the enumeration's token untouched");
                }
                Assert.Equal(0, h.Unobserved.Count, "nothing unobserved");
            }
        }

        [Test]
        public void ChannelUnderConcatIsReleasedWhenTakeUntilCanceledEndsAForEachWithAToken()
        {
            using (var h = new TestHost())
            {
                // ChannelUnderConcatIsReadableAgainAfterTakeUntilCanceledEndsTheStream with the
                // consumer's token (ForEachAsync(..., destroyCancellationToken)): the orphaned
                // producer kept the channel claimed and swallowed its next item.
                var ch = OnityChannel.CreateSingleConsumerUnbounded<int>();
                var cut = new CancellationTokenSource();
                var life = new CancellationTokenSource();
                var got = new List<int>();
                var run = ch.Reader.ReadAllAsync().Concat(OnityAsyncEnumerable.Empty<int>()).TakeUntilCanceled(cut.Token).ForEachAsync(x => got.Add(x), life.Token);
                ch.Writer.TryWrite(1);
                cut.Cancel();
                Assert.Equal(OnityTaskStatus.Succeeded, run.Status, "TakeUntilCanceled ended the stream");
                var e = ch.Reader.ReadAllAsync().GetAsyncEnumerator();
                ch.Writer.TryWrite(2);
                Assert.True(e.MoveNextAsync().GetAwaiter().GetResult(), "the channel is read again");
                Assert.Equal(2, e.Current, "its next item, not swallowed");
                e.DisposeAsync().GetAwaiter().GetResult();
                Assert.Equal(1, got.Count, "one element before the cut");
                Assert.Equal(0, h.Unobserved.Count, "nothing unobserved");
            }
        }

        [Test]
        public void CreateBasedOperatorCanceledCarriesTheEnumerationToken()
        {
            using (new TestHost())
            {
                foreach (var op in createBased)
                {
                    var p = new Probe();
                    var cts = new CancellationTokenSource();
                    var e = op.Value(p).GetAsyncEnumerator(cts.Token);
                    var next = e.MoveNextAsync();
                    cts.Cancel();
                    Assert.Equal(OnityTaskStatus.Canceled, next.Status, op.Key + ": canceled");
                    var oce = Assert.Throws<OperationCanceledException>(() => next.GetAwaiter().GetResult(), op.Key);
                    Assert.True(oce.CancellationToken == cts.Token, op.Key + ": the exception carries the enumeration's token");
                    e.DisposeAsync().GetAwaiter().GetResult();
                    Assert.Equal(p.Enumerations, p.Disposed, op.Key + ": every source enumeration disposed");
                }
            }
        }

        [Test]
        public void TimeoutControllerDisposeCancelsTheTokenItGave()
        {
            using (var h = new TestHost())
            {
                // UniTask's TimeoutController cancels its source at Dispose: work guarded by the
                // token of a controller disposed (OnDestroy) ends instead of waiting for ever on a
                // source nobody can cancel any more.
                var tc = new OnityTimeoutController();
                var ct = tc.Timeout(TimeSpan.FromSeconds(10));
                var wait = OnityTask.Delay(TimeSpan.FromSeconds(60), cancellationToken: ct);
                tc.Dispose();
                Assert.True(ct.IsCancellationRequested, "the token is canceled by Dispose");
                h.RunFrame();
                Assert.Equal(OnityTaskStatus.Canceled, wait.Status, "the guarded wait ends canceled");
                tc.Dispose(); // twice: nothing
                var link = new CancellationTokenSource();
                var tc2 = new OnityTimeoutController(link);
                var ct2 = tc2.Timeout(TimeSpan.FromSeconds(10));
                tc2.Dispose();
                Assert.True(ct2.IsCancellationRequested, "with a linked source too");
                Assert.False(link.IsCancellationRequested, "the linked source itself is not canceled");
            }
        }

        [Test]
        public void TimeoutControllerCanceledByItsLinkIsNoTimeoutWhenTheTimerComesLater()
        {
            using (var h = new TestHost())
            using (var link = new CancellationTokenSource())
            using (var tc = new OnityTimeoutController(link))
            {
                var ct = tc.Timeout(TimeSpan.FromSeconds(0.04));
                h.RunFrame();
                link.Cancel();
                Assert.True(ct.IsCancellationRequested, "canceled by the link");
                Assert.False(tc.IsTimeout(), "not a timeout");
                for (int i = 0; i < 5; i++) h.RunFrame(); // the timer's due time passes
                Assert.False(tc.IsTimeout(), "still not a timeout once the timer's time has passed");
            }
        }

        [Test]
        public void WhenEachPendingMoveNextIsCanceledByItsToken()
        {
            using (var h = new TestHost())
            {
                // UniTask's WhenEach reads a channel with the enumeration's token: a MoveNextAsync
                // waiting for the next task is canceled at once. It stayed pending until another
                // task completed (for ever with a task that never does).
                var never = AutoResetOnityCompletionSource<int>.Create();
                var cts = new CancellationTokenSource();
                var e = OnityTask.WhenEach(OnityTask.FromResult(1), never.Task).GetAsyncEnumerator(cts.Token);
                Assert.True(e.MoveNextAsync().GetAwaiter().GetResult(), "the completed task's outcome");
                var next = e.MoveNextAsync();
                Assert.Equal(OnityTaskStatus.Pending, next.Status, "waits for the other task");
                cts.Cancel();
                Assert.Equal(OnityTaskStatus.Canceled, next.Status, "canceled by the token");
                var oce = Assert.Throws<OperationCanceledException>(() => next.GetAwaiter().GetResult(), "GetResult");
                Assert.True(oce.CancellationToken == cts.Token, "the exception carries the token");
                Assert.False(e.MoveNextAsync().GetAwaiter().GetResult(), "ended");
                e.DisposeAsync().GetAwaiter().GetResult();
                never.TrySetResult(2); // late: goes nowhere
                // The same enumerator type again, without a token, after the late completion.
                var e2 = OnityTask.WhenEach(OnityTask.FromResult(7)).GetAsyncEnumerator();
                Assert.True(e2.MoveNextAsync().GetAwaiter().GetResult() && e2.Current.Result == 7, "a later enumeration");
                e2.DisposeAsync().GetAwaiter().GetResult();
                Assert.Equal(0, h.Unobserved.Count, "nothing unobserved");
            }
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
                readonly Subject s;
                readonly IObserver<int> o;
                public Unsub(Subject s, IObserver<int> o) { this.s = s; this.o = o; }
                public void Dispose() { s.Observers.Remove(o); }
            }
        }

        [Test]
        public void ObservableStreamDisposedWhileWaitingUnsubscribes()
        {
            using (var h = new TestHost())
            {
                // "Disposing the enumeration unsubscribes": also while a MoveNextAsync waits for the
                // next value (the subscription stayed until the observable pushed again).
                var subject = new Subject();
                var e = subject.ToOnityAsyncEnumerable().GetAsyncEnumerator();
                var next = e.MoveNextAsync();
                Assert.Equal(1, subject.Observers.Count, "subscribed at the first MoveNextAsync");
                e.DisposeAsync().GetAwaiter().GetResult();
                Assert.Equal(0, subject.Observers.Count, "unsubscribed by the disposal");
                Assert.Equal(OnityTaskStatus.Succeeded, next.Status, "the waiting MoveNextAsync ended");
                Assert.False(next.GetAwaiter().GetResult(), "with false");
                Assert.Equal(0, h.Unobserved.Count, "nothing unobserved");
            }
        }

        static async OnityTask FailNextFrame()
        {
            await OnityTask.NextFrame();
            throw new FormatException("other failed");
        }

        [Test]
        public void TakeUntilAndSkipUntilFaultWithTheirTasksException()
        {
            using (var h = new TestHost())
            {
                // UniTask's TakeUntil/SkipUntil await the other task: its exception faults the
                // stream. It was dropped: the stream ended as if the task had succeeded, and the
                // exception was observed nowhere (not even as unobserved).
                var ch = OnityChannel.CreateSingleConsumerUnbounded<int>();
                var take = ch.Reader.ReadAllAsync().TakeUntil(FailNextFrame()).ToArrayAsync();
                h.RunFrame();
                Assert.Equal(OnityTaskStatus.Faulted, take.Status, "TakeUntil: the waiting MoveNextAsync faults");
                Assert.Throws<FormatException>(() => take.GetAwaiter().GetResult(), "with the task's exception");
                var ch2 = OnityChannel.CreateSingleConsumerUnbounded<int>();
                var skip = ch2.Reader.ReadAllAsync().SkipUntil(ct => FailNextFrame()).ToArrayAsync();
                ch2.Writer.TryWrite(1);
                h.RunFrame();
                Assert.Equal(OnityTaskStatus.Faulted, skip.Status, "SkipUntil: faults too");
                Assert.Throws<FormatException>(() => skip.GetAwaiter().GetResult(), "with the task's exception");
                // A canceled task cancels the stream (UniTask awaits it: its OperationCanceledException).
                var src = new OnityCompletionSource();
                var ch3 = OnityChannel.CreateSingleConsumerUnbounded<int>();
                var canceled = ch3.Reader.ReadAllAsync().TakeUntil(src.Task).ToArrayAsync();
                src.TrySetCanceled();
                Assert.Equal(OnityTaskStatus.Canceled, canceled.Status, "TakeUntil a canceled task: canceled");
                // A task that succeeds still ends the stream quietly.
                var ok = new OnityCompletionSource();
                var ch4 = OnityChannel.CreateSingleConsumerUnbounded<int>();
                var ended = ch4.Reader.ReadAllAsync().TakeUntil(ok.Task).ToArrayAsync();
                ch4.Writer.TryWrite(5);
                ok.TrySetResult();
                Assert.Equal("5", string.Join(",", ended.GetAwaiter().GetResult()), "the elements before the signal");
                Assert.Equal(0, h.Unobserved.Count, "nothing unobserved");
            }
        }

        [Test]
        public void TakeUntilWhoseSignalFactoryThrowsReleasesTheSource()
        {
            using (var h = new TestHost())
            {
                // The factory of TakeUntil(Func<CancellationToken, OnityTask>) throws at
                // GetAsyncEnumerator: the source's enumerator, opened already, was left undisposed
                // (a channel under it stayed claimed for ever).
                var ch = OnityChannel.CreateSingleConsumerUnbounded<int>();
                var stream = ch.Reader.ReadAllAsync().TakeUntil(ct => { throw new FormatException("factory"); });
                Assert.Throws<FormatException>(() => stream.GetAsyncEnumerator(), "the factory's exception");
                var e = ch.Reader.ReadAllAsync().GetAsyncEnumerator();
                ch.Writer.TryWrite(3);
                Assert.True(e.MoveNextAsync().GetAwaiter().GetResult() && e.Current == 3, "the channel is read again");
                e.DisposeAsync().GetAwaiter().GetResult();
            }
        }
    }
}
