using System;
using System.Collections.Generic;
using System.Threading;
using Onity.Unity;
using UnityEngine;

namespace Onity.UnityTests
{
    /// <summary>Work completed on other threads resumes on the main thread, inside an Onity
    /// PlayerLoop system.</summary>
    public class ThreadTests
    {
        static int mainThread;

        static async OnityTask AwaitManaged(OnityCompletionSource<int> src, List<Stamp> into, List<int> values)
        {
            values.Add(await src.Task);
            into.Add(Stamp.Now());
        }

        static async OnityTask AwaitNative(OnityNativeCompletionSource src, List<Stamp> into, List<int> values)
        {
            values.Add((int)await src.Task);
            into.Add(Stamp.Now());
        }

        static async OnityTask HopThreads(List<Stamp> into)
        {
            await OnityTask.SwitchToThreadPool();
            into.Add(Stamp.Now());
            Thread.Sleep(2);
            await OnityTask.SwitchToMainThread();
            into.Add(Stamp.Now());
        }

        static void RunUntil(Func<bool> done, int maxFrames = 2000)
        {
            for (int i = 0; i < maxFrames && !done(); i++)
            {
                Sim.RunFrame();
                Thread.Sleep(1);
            }
            Assert.True(done(), "completed within " + maxFrames + " frames");
        }

        [Test]
        public void WorkerThreadCompletions_ResumeOnMainThreadInOnitySystems()
        {
            mainThread = Thread.CurrentThread.ManagedThreadId;
            Sim.EnterPlayMode();
            var probe = Probe.Create();
            Sim.RunFrames(2);
            var got = new List<Stamp>();
            var values = new List<int>();
            var hops = new List<Stamp>();
            var workers = new List<Thread>();
            probe.OnUpdate.Enqueue(p =>
            {
                for (int i = 0; i < 8; i++)
                {
                    var src = new OnityCompletionSource<int>();
                    AwaitManaged(src, got, values).Forget();
                    int v = i;
                    var th = new Thread(() => { Thread.Sleep(3 + v); src.TrySetResult(100 + v); });
                    workers.Add(th);
                    th.Start();
                }
                var rt = OnityPlayerLoop.Runtime;
                for (int i = 0; i < 4; i++)
                {
                    var ns = rt.CreateNativeCompletionSource();
                    AwaitNative(ns, got, values).Forget();
                    ulong h = ns.Handle;
                    int v = i;
                    var th = new Thread(() => { Thread.Sleep(2 + v); rt.NativeSetResult(h, (ulong)(200 + v)); });
                    workers.Add(th);
                    th.Start();
                }
                HopThreads(hops).Forget();
            });
            RunUntil(() => got.Count == 12 && hops.Count == 2);
            foreach (var w in workers) w.Join();
            foreach (var s in got)
            {
                Assert.Equal(mainThread, s.ThreadId, "resumed on the main thread");
                Assert.True(OnityLoopRunners.IsOnitySystem(s.System), "resumed inside an Onity system, got " + s);
            }
            values.Sort();
            Assert.Equal("100,101,102,103,104,105,106,107,200,201,202,203", string.Join(",", values), "values");
            Assert.True(hops[0].ThreadId != mainThread, "SwitchToThreadPool left the main thread");
            Assert.Equal(mainThread, hops[1].ThreadId, "SwitchToMainThread came back");
            Assert.True(OnityLoopRunners.IsOnitySystem(hops[1].System), "SwitchToMainThread resumed inside an Onity system");
            Assert.Equal((ulong)0, OnityPlayerLoop.Runtime.GetNativeStats().live_tasks, "native tasks consumed");
        }
    }
}
