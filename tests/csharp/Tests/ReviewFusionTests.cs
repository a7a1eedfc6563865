using System;
using System.Collections.Generic;
using System.Threading;

namespace Onity.Tests
{
    /// <summary>Second-reader findings on the fused operator chains (issue 28) and the new
    /// issue-27 types: each test failed before its fix.</summary>
    public class ReviewFusionTests
    {
        sealed class ThrowingSource : IOnityAsyncEnumerable<int>
        {
            public IOnityAsyncEnumerator<int> GetAsyncEnumerator(CancellationToken ct = default(CancellationToken))
            {
                throw new FormatException("no enumerator");
            }
        }

        [Test]
        public void FailedOpenReturnsEachStageToItsPoolOnce()
        {
            using (new TestHost())
            {
                // A source whose GetAsyncEnumerator throws under a two-operator chain: the stages
                // go back to their pools once each (a stage returned twice would later be rented
                // by two enumerations at once, one's elements landing in the other's sink).
                var bad = new ThrowingSource().Where(x => true).Select(x => x);
                Assert.Throws<FormatException>(() => bad.GetAsyncEnumerator(), "GetAsyncEnumerator");
                // ForEachAsync faults its task (as its async form, taken when an ExecutionContext
                // flows, and UniTask's async method do) instead of throwing at the call.
                var f = bad.ForEachAsync(x => { });
                Assert.Equal(OnityTaskStatus.Faulted, f.Status, "ForEachAsync faults");
                Assert.Throws<FormatException>(() => f.GetAwaiter().GetResult(), "with the source's exception");
                var a = OnityAsyncEnumerable.Range(10, 3).Where(x => true).Select(x => x);
                var b = OnityAsyncEnumerable.Range(100, 3).Where(x => true).Select(x => x);
                var e1 = a.GetAsyncEnumerator();
                var e2 = b.GetAsyncEnumerator();
                Assert.True(e1.MoveNextAsync().GetAwaiter().GetResult(), "e1 has an element");
                Assert.Equal(10, e1.Current, "e1's first element is its own");
                Assert.True(e2.MoveNextAsync().GetAwaiter().GetResult(), "e2 has an element");
                Assert.Equal(100, e2.Current, "e2's first element is its own");
                Assert.True(e1.MoveNextAsync().GetAwaiter().GetResult(), "e1 again");
                Assert.Equal(11, e1.Current, "e1's second element");
                e1.DisposeAsync().GetAwaiter().GetResult();
                e2.DisposeAsync().GetAwaiter().GetResult();
            }
        }
            sealed class LogHandler : IOnityTriggerHandler<int>
        {
            readonly string name;
            readonly List<string> log;
            public Action<int> onNext;
            public LogHandler(string name, List<string> log) { this.name = name; this.log = log; }
            public IOnityTriggerHandler<int> Prev { get; set; }
            public IOnityTriggerHandler<int> Next { get; set; }
            public void OnNext(int value)
            {
                log.Add(name + value);
                if (onNext != null) onNext(value);
            }
            public void OnError(Exception ex) { log.Add(name + ":error"); }
            public void OnCompleted() { log.Add(name + ":completed"); }
            public void OnCanceled(CancellationToken ct) { log.Add(name + ":canceled"); }
        }

        sealed class EventHolder { public OnityTriggerEvent<int> ev; }

        [Test]
        public void NestedSetResultDoesNotResumeTheOuterPassAtARemovedHandler()
        {
            using (new TestHost())
            {
                var log = new List<string>();
                var x = new EventHolder();
                LogHandler a = new LogHandler("a", log), b = new LogHandler("b", log), c = new LogHandler("c", log);
                x.ev.Add(a);
                x.ev.Add(b);
                x.ev.Add(c);
                // a sets a value from its OnNext (nested pass), in which b removes itself: the outer
                // pass must not call the removed b, and still reaches c.
                a.onNext = v => { if (v == 1) x.ev.SetResult(2); };
                b.onNext = v => x.ev.Remove(b);
                x.ev.SetResult(1);
                Assert.Equal("a1,a2,b2,c2,c1", string.Join(",", log), "b removed in the nested pass is not called by the outer one");
                log.Clear();
                // A terminal inside a nested pass: no handler gets OnNext after its OnCompleted.
                x.ev.Add(b);
                a.onNext = v => { if (v == 1) x.ev.SetResult(2); };
                b.onNext = v => { if (v == 2) x.ev.SetCompleted(); };
                x.ev.SetResult(1);
                Assert.Equal("a1,a2,c2,b2,a:completed,c:completed,b:completed", string.Join(",", log), "the outer pass ends with the terminal");
                Assert.False(x.ev.HasHandlers, "none left");
                // Every handler removed in a nested pass: the outer pass calls none of them.
                log.Clear();
                x.ev.Add(a);
                x.ev.Add(b);
                a.onNext = v => { if (v == 1) x.ev.SetResult(2); };
                b.onNext = v => { x.ev.Remove(a); x.ev.Remove(b); };
                x.ev.SetResult(1);
                Assert.Equal("a1,a2,b2", string.Join(",", log), "all removed in the nested pass");
                Assert.False(x.ev.HasHandlers, "all removed");
            }
        }
            /// <summary>A source whose MoveNextAsync waits until its token is canceled; counts disposals.</summary>
        sealed class PendingSource : IOnityAsyncEnumerable<int>
        {
            public int disposed, canceled;
            public IOnityAsyncEnumerator<int> GetAsyncEnumerator(CancellationToken ct = default(CancellationToken))
            {
                return new E(this, ct);
            }
            sealed class E : IOnityAsyncEnumerator<int>
            {
                readonly PendingSource owner;
                readonly CancellationToken ct;
                public E(PendingSource owner, CancellationToken ct) { this.owner = owner; this.ct = ct; }
                public int Current { get { return 0; } }
                public OnityTask<bool> MoveNextAsync()
                {
                    var src = new OnityCompletionSource<bool>();
                    ct.Register(() => { owner.canceled++; src.TrySetCanceled(ct); });
                    return src.Task;
                }
                public OnityTask DisposeAsync()
                {
                    owner.disposed++;
                    return OnityTask.CompletedTask;
                }
            }
        }

        [Test]
        public void ReadOnlyReactivePropertyDisposeStopsItsSourceAtOnce()
        {
            using (var h = new TestHost())
            {
                // UniTask disposes the source's enumerator at Dispose; a source that gives nothing
                // more must not stay enumerated for ever.
                var src = new PendingSource();
                var ro = src.ToReadOnlyAsyncReactiveProperty(7, CancellationToken.None);
                h.RunFrame();
                Assert.Equal(0, src.disposed, "enumerated while alive");
                ro.Dispose();
                h.RunFrame();
                Assert.Equal(1, src.canceled, "its pending MoveNextAsync is canceled");
                Assert.Equal(1, src.disposed, "its enumerator is disposed");
                Assert.Equal(7, ro.Value, "the value stays");
                ro.Dispose();
                Assert.Equal(1, src.disposed, "a second Dispose does nothing more");
            }
        }
            [Test]
        public void ForEachOverTakeZeroWithACanceledTokenIsCanceledAsTheEnumeratingForm()
        {
            using (new TestHost())
            using (var cts = new CancellationTokenSource())
            {
                cts.Cancel();
                var calls = 0;
                Assert.Equal(OnityTaskStatus.Canceled, OnityAsyncEnumerable.Range(0, 3).Take(0).ToListAsync(cts.Token).Status, "enumerating form");
                Assert.Equal(OnityTaskStatus.Canceled, OnityAsyncEnumerable.Range(0, 3).Take(0).ForEachAsync(x => calls++, cts.Token).Status, "ForEachAsync");
                Assert.Equal(OnityTaskStatus.Canceled, OnityAsyncEnumerable.Range(0, 3).Where(x => true).Take(0).ForEachAsync((x, i) => calls++, cts.Token).Status, "indexed ForEachAsync");
                Assert.Equal(0, calls, "no element");
            }
        }
    }
}
