using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;

namespace Onity.Tests
{
    /// <summary>UniTask's SynchronizationContext switches, ReturnToMainThread, UniTaskVoid,
    /// WaitForEndOfFrame (no runner), TaskPool, the WhenAll shorthands and the
    /// PropagateOperationCanceledException switch, as their Onity counterparts.</summary>
    public class ThreadingParityTests
    {
        static long Bytes() { return GC.GetAllocatedBytesForCurrentThread(); }

        /// <summary>A context that queues its posts until the test runs them (counts them).</summary>
        sealed class QueueContext : SynchronizationContext
        {
            public readonly Queue<KeyValuePair<SendOrPostCallback, object>> Posts = new Queue<KeyValuePair<SendOrPostCallback, object>>();
            public override void Post(SendOrPostCallback d, object state) { lock (Posts) Posts.Enqueue(new KeyValuePair<SendOrPostCallback, object>(d, state)); }
            public int RunAll()
            {
                int n = 0;
                while (true)
                {
                    KeyValuePair<SendOrPostCallback, object> p;
                    lock (Posts) { if (Posts.Count == 0) return n; p = Posts.Dequeue(); }
                    var prev = Current;
                    SetSynchronizationContext(this);
                    try { p.Key(p.Value); } finally { SetSynchronizationContext(prev); }
                    n++;
                }
            }
        }

        static async OnityTask<string> SwitchTo(SynchronizationContext sc, CancellationToken ct)
        {
            await OnityTask.SwitchToSynchronizationContext(sc, ct);
            return SynchronizationContext.Current == sc ? "on" : "off";
        }

        [Test]
        public void SwitchToSynchronizationContextPostsAndThrowsWhenCanceled()
        {
            using (var h = new TestHost())
            {
                var sc = new QueueContext();
                var t = SwitchTo(sc, CancellationToken.None);
                Assert.Equal(OnityTaskStatus.Pending, t.Status, "always posts");
                Assert.Equal(1, sc.RunAll(), "one post");
                Assert.Equal("on", t.GetAwaiter().GetResult(), "resumed inside the context's Post");
                var cts = new CancellationTokenSource();
                var t2 = SwitchTo(sc, cts.Token);
                cts.Cancel();
                sc.RunAll();
                Assert.Equal(OnityTaskStatus.Canceled, t2.Status, "canceled before resuming: throws");
                Assert.Throws<ArgumentNullException>(() => OnityTask.SwitchToSynchronizationContext(null), "null context");
            }
        }

        static async OnityTask<string> ReturnScope(ReturnToSynchronizationContext scope, SynchronizationContext sc)
        {
            await OnityTask.Yield();
            await scope.DisposeAsync();
            return SynchronizationContext.Current == sc ? "on" : "off";
        }

        [Test]
        public void ReturnToSynchronizationContextPostsAtDisposeAndSkipsThePostOnTheSameContext()
        {
            using (var h = new TestHost())
            {
                var sc = new QueueContext();
                var t = ReturnScope(OnityTask.ReturnToSynchronizationContext(sc), sc);
                h.RunFrame();
                Assert.Equal(OnityTaskStatus.Pending, t.Status, "disposed: posted to the context");
                Assert.Equal(1, sc.RunAll(), "one post");
                Assert.Equal("on", t.GetAwaiter().GetResult(), "back in the context");

                var prev = SynchronizationContext.Current;
                SynchronizationContext.SetSynchronizationContext(sc);
                try
                {
                    var same = OnityTask.ReturnToCurrentSynchronizationContext().DisposeAsync();
                    Assert.True(same.IsCompleted, "dontPostWhenSameContext: no post on the same context");
                    var posting = OnityTask.ReturnToCurrentSynchronizationContext(false).DisposeAsync();
                    Assert.False(posting.IsCompleted, "dontPostWhenSameContext false: posts");
                    SynchronizationContext.SetSynchronizationContext(null);
                    Assert.Throws<InvalidOperationException>(() => OnityTask.ReturnToCurrentSynchronizationContext(), "no current context");
                }
                finally { SynchronizationContext.SetSynchronizationContext(prev); }
            }
        }

        [Test]
        public void ReturnToMainThreadComesBackFromAWorkerAtTheTiming()
        {
            using (var h = new TestHost())
            {
                int owner = Thread.CurrentThread.ManagedThreadId;
                Assert.True(OnityTask.ReturnToMainThread().DisposeAsync().IsCompleted, "on the owner: at once");
                int resumedOn = 0;
                var worker = Task.Run(() =>
                {
                    var aw = OnityTask.ReturnToMainThread(OnityTiming.PreLateUpdate).DisposeAsync();
                    Assert.False(aw.IsCompleted, "on a worker: suspends");
                    aw.UnsafeOnCompleted(() => { aw.GetResult(); resumedOn = Thread.CurrentThread.ManagedThreadId; });
                });
                Assert.True(worker.Wait(10000), "worker ran");
                h.RunFrame(OnityTiming.Update);
                Assert.Equal(0, resumedOn, "not before PreLateUpdate");
                h.Runtime.Tick(OnityTiming.PreLateUpdate);
                Assert.Equal(owner, resumedOn, "resumed on the owner at PreLateUpdate");
                Assert.Throws<ArgumentOutOfRangeException>(() => OnityTask.ReturnToMainThread((OnityTiming)99), "bad timing");
            }
        }

        [Test]
        public void OnitySynchronizationContextRunsPostsOnTheOwnerWithoutAllocating()
        {
            FreshThread.Run(() =>
            {
                using (var h = new TestHost())
                {
                    var sc = new OnitySynchronizationContext();
                    int owner = Thread.CurrentThread.ManagedThreadId, ranOn = 0, runs = 0;
                    SendOrPostCallback cb = s => { runs++; ranOn = Thread.CurrentThread.ManagedThreadId; };
                    Assert.True(Task.Run(() => sc.Post(cb, null)).Wait(10000), "posted from a worker");
                    Assert.Equal(0, runs, "not before the owner's next frame");
                    h.RunFrame();
                    Assert.Equal(1, runs, "ran at the next frame");
                    Assert.Equal(owner, ranOn, "on the owner thread");
                    sc.Send(cb, null);
                    Assert.Equal(2, runs, "Send runs at once");
                    for (int i = 0; i < 100; i++) { sc.Post(cb, null); h.RunFrame(); }
                    long b0 = Bytes();
                    for (int i = 0; i < 1000; i++) { sc.Post(cb, null); h.RunFrame(); }
                    Assert.Equal(0L, Bytes() - b0, "bytes over 1000 posts");
                    Assert.Equal(1102, runs, "every post ran");
                    b0 = Bytes();
                    SendOrPostCallback fresh = s => runs++;
                    sc.Post(fresh, new object());
                    Assert.True(Bytes() - b0 > 0, "control: the measurement sees an allocation");
                    h.RunFrame();
                }
            });
        }

        static int voidSteps;

        static async OnityTaskVoid VoidMethod(int fail)
        {
            await OnityTask.NextFrame();
            voidSteps++;
            if (fail == 1) throw new InvalidOperationException("void failure");
            if (fail == 2) throw new OperationCanceledException();
        }

        [Test]
        public void OnityTaskVoidRunsForgottenReportsFailuresAndAllocatesNothing()
        {
            FreshThread.Run(() =>
            {
                using (var h = new TestHost())
                {
                    voidSteps = 0;
                    VoidMethod(0).Forget();
                    Assert.Equal(0, voidSteps, "suspended at NextFrame");
                    h.RunFrame();
                    Assert.Equal(1, voidSteps, "resumed");
                    VoidMethod(1);
                    h.RunFrame();
                    Assert.Equal(1, h.Unobserved.Count, "the failure went to UnobservedTaskException");
                    Assert.True(h.Unobserved[0] is InvalidOperationException, "the method's exception");
                    VoidMethod(2);
                    h.RunFrame();
                    Assert.Equal(1, h.Unobserved.Count, "a cancellation is not reported");
                    OnityTask.PropagateOperationCanceledException = true;
                    try
                    {
                        VoidMethod(2);
                        h.RunFrame();
                        Assert.Equal(2, h.Unobserved.Count, "PropagateOperationCanceledException reports it");
                    }
                    finally { OnityTask.PropagateOperationCanceledException = false; }
                    for (int i = 0; i < 100; i++) { VoidMethod(0); h.RunFrame(); }
                    long b0 = Bytes();
                    for (int i = 0; i < 1000; i++) { VoidMethod(0); h.RunFrame(); }
                    Assert.Equal(0L, Bytes() - b0, "bytes over 1000 async OnityTaskVoid calls");
                    Assert.Equal(1104, voidSteps, "every call ran");
                    b0 = Bytes();
                    VoidMethod(1);
                    h.RunFrame();
                    Assert.True(Bytes() - b0 > 0, "control: a thrown exception is seen by the measurement");
                }
            });
        }

        [Test]
        public void WaitForEndOfFrameResumesAtLastPostLateUpdate()
        {
            using (var h = new TestHost())
            {
                var w = OnityTask.WaitForEndOfFrame();
                Assert.Equal(OnityTiming.LastPostLateUpdate, w.Timing, "the frame's last timing");
                var cts = new CancellationTokenSource();
                var t = OnityTask.WaitForEndOfFrame(cts.Token);
                h.RunFrame(OnityTiming.Update, OnityTiming.PostLateUpdate);
                Assert.Equal(OnityTaskStatus.Pending, t.Status, "not before LastPostLateUpdate");
                h.Runtime.Tick(OnityTiming.LastPostLateUpdate);
                Assert.Equal(OnityTaskStatus.Succeeded, t.Status, "at LastPostLateUpdate");
                var t2 = OnityTask.WaitForEndOfFrame(cts.Token, true);
                cts.Cancel();
                Assert.Equal(OnityTaskStatus.Canceled, t2.Status, "cancelImmediately: at Cancel");
            }
        }

        static async OnityTask<string> AwaitCancel(CancellationToken ct)
        {
            await new OnityCancellationTokenAwaitable(ct);
            return "resumed";
        }

        [Test]
        public void CancellationTokenAwaitableResumesAtCancel()
        {
            FreshThread.Run(() =>
            {
                using (var h = new TestHost())
                {
                    Assert.True(new OnityCancellationTokenAwaitable(CancellationToken.None).GetAwaiter().IsCompleted, "a token that cannot be canceled: at once");
                    var cts = new CancellationTokenSource();
                    var t = AwaitCancel(cts.Token);
                    h.RunFrame();
                    Assert.Equal(OnityTaskStatus.Pending, t.Status, "until Cancel");
                    cts.Cancel();
                    Assert.Equal("resumed", t.GetAwaiter().GetResult(), "at the Cancel call, without an exception");
                    // Already canceled: the completed path allocates nothing (a suspension registers on
                    // the token, which allocates the registration, as UniTask's).
                    for (int i = 0; i < 10; i++) AwaitCancel(cts.Token).GetAwaiter().GetResult();
                    long b0 = Bytes();
                    for (int i = 0; i < 1000; i++) new OnityCancellationTokenAwaitable(cts.Token).GetAwaiter().GetResult();
                    Assert.Equal(0L, Bytes() - b0, "bytes over 1000 completed awaits");
                    var live = new CancellationTokenSource();
                    b0 = Bytes();
                    new OnityCancellationTokenAwaitable(live.Token).GetAwaiter().UnsafeOnCompleted(() => { });
                    Assert.True(Bytes() - b0 > 0, "control: a registration is seen by the measurement");
                }
            });
        }

        [Test]
        public void FrameWaitConstructorIsAYieldCountedFromNow()
        {
            using (var h = new TestHost())
            {
                var w = new OnityFrameWait(OnityTiming.PreUpdate);
                Assert.Equal(OnityTiming.PreUpdate, w.Timing, "its timing");
                Assert.False(w.IsCompleted, "pending until the timing runs");
                h.RunFrame(OnityTiming.Update);
                Assert.False(w.IsCompleted, "another timing does not complete it");
                h.Runtime.Tick(OnityTiming.PreUpdate);
                Assert.True(w.IsCompleted, "the next PreUpdate run");
                Assert.Throws<ArgumentOutOfRangeException>(() => new OnityFrameWait((OnityTiming)16), "bad timing");
            }
        }

        sealed class Node : IOnityTaskPoolNode<Node>
        {
            Node next;
            public ref Node NextNode { get { return ref next; } }
        }

        static OnityTaskPool<Node> nodes;

        [Test]
        public void TaskPoolKeepsNodesUpToTheMaxPoolSize()
        {
            var a = new Node();
            var b = new Node();
            Node got;
            Assert.False(nodes.TryPop(out got), "empty");
            OnityTaskPool.SetMaxPoolSize(1);
            try
            {
                Assert.True(nodes.TryPush(a), "first kept");
                Assert.False(nodes.TryPush(b), "beyond the max: dropped");
                Assert.Equal(1, nodes.Size, "size");
                Assert.True(nodes.TryPop(out got) && got == a, "popped the kept node");
                Assert.Equal(0, nodes.Size, "size after pop");
            }
            finally { OnityTaskPool.SetMaxPoolSize(int.MaxValue); }
            Assert.True(nodes.TryPush(a) && nodes.TryPush(b), "no limit");
            Assert.True(nodes.TryPop(out got) && got == b && nodes.TryPop(out got) && got == a, "LIFO");
            Assert.Throws<ArgumentOutOfRangeException>(() => OnityTaskPool.SetMaxPoolSize(-1), "negative");
            Assert.Throws<ArgumentNullException>(() => OnityTaskPool.RegisterSizeGetter(typeof(Node), null), "null getter");
            OnityTaskPool.RegisterSizeGetter(typeof(Node), () => nodes.Size + 42);
            bool seen = false, packageSeen = false;
            foreach (var info in OnityTaskPool.GetCacheSizeInfo())
            {
                if (info.Item1 == typeof(Node) && info.Item2 == 42) seen = true;
                if (info.Item1 != typeof(Node)) packageSeen = true;
            }
            Assert.True(seen, "the registered getter is listed");
            Assert.True(packageSeen, "the package's own pools are listed");
        }

        [Test]
        public void MaxPoolSizeBoundsThePackagePools()
        {
            var pool = new OnityObjectPool<object>(64);
            OnityTaskPool.SetMaxPoolSize(2);
            try
            {
                for (int i = 0; i < 5; i++) pool.Return(new object());
                Assert.Equal(2, pool.Idle, "kept up to the max");
            }
            finally { OnityTaskPool.SetMaxPoolSize(int.MaxValue); }
            for (int i = 0; i < 5; i++) pool.Return(new object());
            Assert.Equal(7, pool.Idle, "no limit again");
        }

        [Test]
        public void SourceOnCompletedPassesTheStateWithoutAllocating()
        {
            FreshThread.Run(() =>
            {
                using (var h = new TestHost())
                {
                    int sum = 0;
                    Action<object> add = o => sum += ((Box)o).V;
                    var box = new Box { V = 3 };
                    OnityTask.CompletedTask.GetAwaiter().SourceOnCompleted(add, box);
                    Assert.Equal(3, sum, "completed: at once");
                    OnityTask<int> typed = Value(1);
                    typed.GetAwaiter().SourceOnCompleted(add, box);
                    Assert.Equal(3, sum, "pending");
                    h.RunFrame();
                    Assert.Equal(6, sum, "ran with its state at completion");
                    // The continuation observes the task (GetResult returns its pooled source).
                    var held = new Held();
                    Action<object> observe = o => { var k = (Held)o; k.Task.GetAwaiter().GetResult(); sum += 3; };
                    for (int i = 0; i < 100; i++) { held.Task = After(); held.Task.GetAwaiter().SourceOnCompleted(observe, held); h.RunFrame(); }
                    long b0 = Bytes();
                    for (int i = 0; i < 1000; i++) { held.Task = After(); held.Task.GetAwaiter().SourceOnCompleted(observe, held); h.RunFrame(); }
                    Assert.Equal(0L, Bytes() - b0, "bytes over 1000 SourceOnCompleted");
                    Assert.Equal(6 + 3 * 1100, sum, "every one ran");
                    Assert.Throws<ArgumentNullException>(() => OnityTask.CompletedTask.GetAwaiter().SourceOnCompleted(null, null), "null continuation");
                    b0 = Bytes();
                    OnityTask.CompletedTask.GetAwaiter().SourceOnCompleted(o => sum++, new Box());
                    Assert.True(Bytes() - b0 > 0, "control: the measurement sees an allocation");
                }
            });
        }

        sealed class Box { public int V; }
        sealed class Held { public OnityTask Task; }

        static async OnityTask After() { await OnityTask.NextFrame(); }

        static OnityChannelReader<int> ReaderOf(OnityChannelReader<int> r) { return r; }
        static OnityChannelWriter<int> WriterOf(OnityChannelWriter<int> w) { return w; }

        [Test]
        public void AChannelConvertsToItsReaderAndWriter()
        {
            using (var h = new TestHost())
            {
                var ch = OnityChannel.CreateSingleConsumerUnbounded<int>();
                OnityChannel<int, int> both = ch;
                Assert.True(ReaderOf(both) == ch.Reader, "implicit reader");
                Assert.True(WriterOf(both) == ch.Writer, "implicit writer");
                WriterOf(ch).TryWrite(5);
                int v;
                Assert.True(ReaderOf(ch).TryRead(out v) && v == 5, "through the converted ends");
            }
        }

        static async OnityTask<int> Value(int v) { await OnityTask.NextFrame(); return v; }

        static async OnityTask<string> AwaitShorthands()
        {
            int[] both = await new[] { Value(1), Value(2) };
            var list = new List<OnityTask<int>> { Value(3), Value(4) };
            int[] fromList = await list;
            await new[] { OnityTask.Delay(0), OnityTask.CompletedTask };
            await (IEnumerable<OnityTask>)new List<OnityTask> { OnityTask.CompletedTask };
            int[] selected = await OnityTask.WhenAll(new[] { 5, 6 }.Select(x => Value(x)));
            int[] indexed = await OnityTask.WhenAll(new[] { 7 }.Select((x, i) => Value(x + i)));
            int any = await OnityTask.WhenAny((IEnumerable<OnityTask>)new List<OnityTask> { OnityTask.Never(CancellationToken.None), OnityTask.CompletedTask });
            return string.Join(",", both) + "|" + string.Join(",", fromList) + "|" + string.Join(",", selected) + "|" + string.Join(",", indexed) + "|" + any;
        }

        [Test]
        public void AwaitingArraysAndSequencesIsWhenAll()
        {
            using (var h = new TestHost())
            {
                var t = AwaitShorthands();
                for (int i = 0; i < 10 && t.Status == OnityTaskStatus.Pending; i++) h.RunFrame();
                Assert.Equal("1,2|3,4|5,6|7|1", t.GetAwaiter().GetResult(), "results in input order");
                Assert.Throws<ArgumentNullException>(() => OnityTask.WhenAll((IEnumerable<OnityTask>)null), "null sequence");
            }
        }
    }
}
