using System;
using System.Collections.Generic;
using System.Threading;
using Onity.Unity;
using UnityEngine;

namespace Onity.UnityTests
{
    /// <summary>Issue 31 #2.1: the stand-in's main-thread SynchronizationContext is as strict as
    /// Unity 2022.3's UnitySynchronizationContext (snapshot per frame, a throwing item defers the
    /// rest, Send from another thread blocks until the main thread ran it), and the binding's
    /// continuations that go through it (worker completions after Play Mode ended) still arrive.</summary>
    public class StrictContextTests
    {
        [Test]
        public void PostDuringExec_WaitsForTheNextFrame()
        {
            var log = new List<string>();
            var sc = Sim.MainContext;
            sc.Post(_ => { log.Add("a"); sc.Post(__ => log.Add("c"), null); }, null);
            sc.Post(_ => log.Add("b"), null);
            Sim.RunEditorUpdate();
            Assert.Equal("a,b", string.Join(",", log), "only the snapshot ran");
            Assert.Equal(1, sc.Pending, "the new post waits");
            Sim.RunEditorUpdate();
            Assert.Equal("a,b,c", string.Join(",", log), "next frame");
        }

        [Test]
        public void ThrowingItem_DefersTheRestToTheNextFrame_BeforeNewerPosts()
        {
            var log = new List<string>();
            var sc = Sim.MainContext;
            sc.Post(_ => { log.Add("a"); throw new InvalidOperationException("boom"); }, null);
            sc.Post(_ => log.Add("b"), null);
            Sim.RunEditorUpdate();
            Assert.Equal("a", string.Join(",", log), "the rest waits");
            Assert.Equal(1, Debug.Exceptions.Count, "the engine logged it");
            sc.Post(_ => log.Add("c"), null);
            Sim.RunEditorUpdate();
            Assert.Equal("a,b,c", string.Join(",", log), "deferred item first");
            Debug.Clear();
        }

        [Test]
        public void SendFromAWorker_BlocksUntilTheMainThreadRunsIt()
        {
            var sc = Sim.MainContext;
            int ranOn = -1;
            var returned = new ManualResetEvent(false);
            var worker = new Thread(() =>
            {
                sc.Send(_ => ranOn = Thread.CurrentThread.ManagedThreadId, null);
                returned.Set();
            });
            worker.Start();
            Assert.False(returned.WaitOne(50), "Send waits for the main thread");
            Assert.Equal(-1, ranOn, "not run on the worker");
            for (int i = 0; i < 200 && sc.Pending == 0; i++) Thread.Sleep(1);
            Sim.RunEditorUpdate();
            Assert.True(returned.WaitOne(5000), "Send returned after the main thread's Exec");
            worker.Join();
            Assert.Equal(Sim.MainThread.ManagedThreadId, ranOn, "ran on the main thread");
            int inline = -1;
            sc.Send(_ => inline = Thread.CurrentThread.ManagedThreadId, null);
            Assert.Equal(Sim.MainThread.ManagedThreadId, inline, "inline on the main thread");
        }

        static async OnityTask Chain(OnityTask<int> first, OnityTask<int> second, List<string> log)
        {
            log.Add("first " + await first + (Thread.CurrentThread == Sim.MainThread ? " main" : " worker"));
            log.Add("second " + await second + (Thread.CurrentThread == Sim.MainThread ? " main" : " worker"));
        }

        /// <summary>After Play Mode ended, worker completions reach the main thread through the
        /// context: a continuation that another worker completion follows gets its own later frame,
        /// and every step runs on the main thread.</summary>
        [Test]
        public void WorkerCompletionsAfterExit_EachResumesOnTheMainThread()
        {
            Sim.EnterPlayMode();
            var a = new OnityCompletionSource<int>();
            var b = new OnityCompletionSource<int>();
            var log = new List<string>();
            Chain(a.Task, b.Task, log).Forget();
            Sim.RunFrames(2);
            Sim.ExitPlayMode();
            var w = new Thread(() => { a.TrySetResult(1); b.TrySetResult(2); });
            w.Start();
            w.Join();
            Assert.Equal(0, log.Count, "nothing ran on the worker");
            for (int i = 0; i < 3 && log.Count < 2; i++) Sim.RunEditorUpdate();
            Assert.Equal("first 1 main,second 2 main", string.Join(",", log), "both on the main thread");
            Assert.Equal(0, Debug.Exceptions.Count, "no exceptions");
        }
    }
}
