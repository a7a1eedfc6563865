using System;
using System.Collections.Generic;
using System.Threading;
using Onity.Unity;
using UnityEngine;

namespace Onity.UnityTests
{
    /// <summary>Async streams, channels, worker-thread frame waits and unobserved reports in the
    /// simulated PlayerLoop: everything resumes on the main thread inside Onity's systems.</summary>
    public class StreamTests
    {
        static void RunUntil(Func<bool> done, int maxFrames = 2000)
        {
            for (int i = 0; i < maxFrames && !done(); i++)
            {
                Sim.RunFrame();
                Thread.Sleep(1);
            }
            Assert.True(done(), "completed within " + maxFrames + " frames");
        }

        static async OnityTask WorkerWaits(List<Stamp> into)
        {
            await OnityTask.SwitchToThreadPool();
            into.Add(Stamp.Now());
            await OnityTask.Yield(); // UniTask's everyday way back to the main thread
            into.Add(Stamp.Now());
            await OnityTask.SwitchToThreadPool();
            await OnityTask.Delay(TimeSpan.FromMilliseconds(30), DelayType.DeltaTime, OnityTiming.PreLateUpdate);
            into.Add(Stamp.Now());
        }

        [Test]
        public void FrameWaitsAwaitedOnAWorker_ResumeOnTheMainThreadInTheirTimingsSystem()
        {
            int main = Thread.CurrentThread.ManagedThreadId;
            Sim.EnterPlayMode();
            var probe = Probe.Create();
            Sim.RunFrames(2);
            var stamps = new List<Stamp>();
            probe.OnUpdate.Enqueue(p => WorkerWaits(stamps).Forget());
            RunUntil(() => stamps.Count == 3);
            Assert.True(stamps[0].ThreadId != main, "on a worker");
            Assert.Equal(main, stamps[1].ThreadId, "Yield came back to the main thread");
            Assert.Equal(Sys.Of(OnityTiming.Update), stamps[1].System, "inside Onity's Update system");
            Assert.Equal(main, stamps[2].ThreadId, "Delay came back to the main thread");
            Assert.Equal(Sys.Of(OnityTiming.PreLateUpdate), stamps[2].System, "inside Onity's PreLateUpdate system");
        }

        [Test]
        public void EveryUpdateAndEveryValueChanged_RunInTheLoop_AndEndWhenTheTargetIsDestroyed()
        {
            Sim.EnterPlayMode();
            var probe = Probe.Create("watched");
            Sim.RunFrames(2);
            var frames = new List<Stamp>();
            var values = new List<int>();
            OnityTask every = default(OnityTask), changed = default(OnityTask);
            probe.OnUpdate.Enqueue(p =>
            {
                every = OnityAsyncEnumerable.EveryUpdate().Take(3).ForEachAsync(_ => frames.Add(Stamp.Now()));
                changed = OnityAsyncEnumerable.EveryValueChanged(p, x => x.Updates / 2).ForEachAsync(v => values.Add(v));
            });
            Sim.RunFrames(6);
            Assert.Equal(3, frames.Count, "three elements");
            for (int i = 0; i < 3; i++)
            {
                Assert.Equal(Sys.Of(OnityTiming.Update), frames[i].System, "in Onity's Update system");
                if (i > 0) Assert.Equal(frames[i - 1].Frame + 1, frames[i].Frame, "one per frame");
            }
            Assert.Equal(OnityTaskStatus.Succeeded, every.Status, "Take(3) ended it");
            Assert.True(values.Count >= 3, "the value and its changes: " + string.Join(",", values));
            Assert.Equal(OnityTaskStatus.Pending, changed.Status, "watching");
            UnityEngine.Object.Destroy(probe.gameObject);
            Sim.RunFrames(2);
            Assert.Equal(OnityTaskStatus.Succeeded, changed.Status, "ended once the component was destroyed");
            changed.GetAwaiter().GetResult();
        }

        static async OnityTask ReadAll(OnityChannelReader<int> r, List<Stamp> into, List<int> values)
        {
            var e = r.ReadAllAsync().GetAsyncEnumerator();
            try
            {
                while (await e.MoveNextAsync())
                {
                    values.Add(e.Current);
                    into.Add(Stamp.Now());
                }
            }
            finally { await e.DisposeAsync(); }
        }

        [Test]
        public void AChannelWrittenFromWorkers_IsReadOnTheMainThreadInOnitySystems()
        {
            int main = Thread.CurrentThread.ManagedThreadId;
            Sim.EnterPlayMode();
            Sim.RunFrames(2);
            var ch = OnityChannel.CreateSingleConsumerUnbounded<int>();
            var stamps = new List<Stamp>();
            var values = new List<int>();
            var reader = ReadAll(ch.Reader, stamps, values);
            var workers = new List<Thread>();
            for (int w = 0; w < 3; w++)
            {
                int id = w;
                var th = new Thread(() => { for (int i = 0; i < 50; i++) { ch.Writer.TryWrite(id * 1000 + i); if (i % 10 == 0) Thread.Sleep(1); } });
                workers.Add(th);
                th.Start();
            }
            foreach (var th in workers) th.Join();
            ch.Writer.TryComplete();
            RunUntil(() => reader.Status != OnityTaskStatus.Pending);
            reader.GetAwaiter().GetResult();
            Assert.Equal(150, values.Count, "every item once");
            foreach (var s in stamps)
            {
                Assert.Equal(main, s.ThreadId, "read on the main thread");
                Assert.True(s.System == null || OnityLoopRunners.IsOnitySystem(s.System), "inside an Onity system or synchronously: " + s);
            }
        }

        static async OnityTask<int> Faults()
        {
            await OnityTask.Yield();
            throw new FormatException("dropped fault");
        }

        [Test]
        public void ADroppedFaultedTask_IsReportedOnTheMainThreadOnceCollected()
        {
            int main = Thread.CurrentThread.ManagedThreadId;
            Sim.EnterPlayMode();
            var probe = Probe.Create();
            Sim.RunFrames(2);
            var reports = new List<Stamp>();
            Action<Exception> onEvent = e => { if (e.Message == "dropped fault") lock (reports) reports.Add(Stamp.Now()); };
            OnityTask.UnobservedTaskException += onEvent;
            try
            {
                probe.OnUpdate.Enqueue(p => Faults());
                Sim.RunFrames(3);
                for (int i = 0; i < 20 && reports.Count == 0; i++)
                {
                    GC.Collect();
                    GC.WaitForPendingFinalizers();
                    Sim.RunFrame();
                }
                Assert.Equal(1, reports.Count, "reported once");
                Assert.Equal(main, reports[0].ThreadId, "on the main thread");
                Assert.True(OnityLoopRunners.IsOnitySystem(reports[0].System), "inside an Onity system: " + reports[0]);
            }
            finally { OnityTask.UnobservedTaskException -= onEvent; }
        }
    }
}
