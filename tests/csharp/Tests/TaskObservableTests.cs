using System;
using System.Collections.Generic;
using System.Threading;

namespace Onity.Tests
{
    /// <summary>OnityTaskObservableExtensions: ToOnityTask(IObservable), ToObservable(OnityTask).</summary>
    public class TaskObservableTests
    {
        sealed class Subject : IObservable<int>
        {
            public readonly List<IObserver<int>> Observers = new List<IObserver<int>>();
            public IDisposable Subscribe(IObserver<int> o) { Observers.Add(o); return new Unsub(this, o); }
            sealed class Unsub : IDisposable
            {
                readonly Subject s; readonly IObserver<int> o;
                public Unsub(Subject s, IObserver<int> o) { this.s = s; this.o = o; }
                public void Dispose() { s.Observers.Remove(o); }
            }
            public void Next(int v) { foreach (var o in Observers.ToArray()) o.OnNext(v); }
            public void Done() { foreach (var o in Observers.ToArray()) o.OnCompleted(); }
            public void Fail(Exception e) { foreach (var o in Observers.ToArray()) o.OnError(e); }
        }

        sealed class Recorder<T> : IObserver<T>
        {
            public readonly List<string> Log = new List<string>();
            public void OnNext(T v) { Log.Add(v.ToString()); }
            public void OnError(Exception e) { Log.Add("error " + e.Message); }
            public void OnCompleted() { Log.Add("done"); }
        }

        [Test]
        public void ToOnityTaskTakesTheLastOrFirstValueAndUnsubscribes()
        {
            using (var h = new TestHost())
            {
                var s = new Subject();
                var last = s.ToOnityTask();
                s.Next(1);
                s.Next(2);
                Assert.Equal(OnityTaskStatus.Pending, last.Status, "waits for OnCompleted");
                s.Done();
                Assert.Equal(2, last.GetAwaiter().GetResult(), "the last value");
                Assert.Equal(0, s.Observers.Count, "unsubscribed");
                var first = s.ToOnityTask(true);
                s.Next(7);
                Assert.Equal(7, first.GetAwaiter().GetResult(), "the first value");
                Assert.Equal(0, s.Observers.Count, "unsubscribed at the first value");
                var none = s.ToOnityTask();
                s.Done();
                Assert.Throws<InvalidOperationException>(() => none.GetAwaiter().GetResult(), "completed without a value");
                var failed = s.ToOnityTask();
                s.Fail(new FormatException("x"));
                Assert.Throws<FormatException>(() => failed.GetAwaiter().GetResult(), "OnError");
                var cts = new CancellationTokenSource();
                var canceled = s.ToOnityTask(false, cts.Token);
                cts.Cancel();
                Assert.Equal(OnityTaskStatus.Canceled, canceled.Status, "canceled");
                Assert.Equal(0, s.Observers.Count, "unsubscribed at the cancellation");
                Assert.Throws<ArgumentNullException>(() => OnityTaskObservableExtensions.ToOnityTask<int>(null), "null source");
            }
        }

        static async OnityTask<int> Later(int x)
        {
            await OnityTask.NextFrame();
            return x;
        }

        static async OnityTask FailLater()
        {
            await OnityTask.NextFrame();
            throw new FormatException("f");
        }

        [Test]
        public void ToObservableAwaitsOnceAndReplaysToLateObservers()
        {
            using (var h = new TestHost())
            {
                h.RunFrame();
                var o = Later(5).ToObservable();
                var early = new Recorder<int>();
                o.Subscribe(early);
                Assert.Equal(0, early.Log.Count, "nothing before the task ends");
                h.RunFrame();
                Assert.Equal("5,done", string.Join(",", early.Log), "value then OnCompleted");
                var late = new Recorder<int>();
                o.Subscribe(late);
                Assert.Equal("5,done", string.Join(",", late.Log), "a late observer gets the outcome");
                var unit = new Recorder<AsyncUnit>();
                OnityTask.CompletedTask.ToObservable().Subscribe(unit);
                Assert.Equal(2, unit.Log.Count, "a completed task: at once");
                var failed = new Recorder<AsyncUnit>();
                var f = FailLater().ToObservable();
                var unsubscribed = new Recorder<AsyncUnit>();
                f.Subscribe(failed);
                f.Subscribe(unsubscribed).Dispose();
                h.RunFrame();
                Assert.Equal("error f", string.Join(",", failed.Log), "OnError");
                Assert.Equal(0, unsubscribed.Log.Count, "an unsubscribed observer gets nothing");
            }
        }
    }
}
