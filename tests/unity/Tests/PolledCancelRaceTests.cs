using System;
using System.Threading;
using Onity.Unity;
using UnityEngine;
using UnityEngine.Rendering;

namespace Onity.UnityTests
{
    /// <summary>cancelImmediately on the polled forms of Unity async operations: the token canceled
    /// on a worker thread while the main thread runs the operation's steps. Exactly one side ends
    /// each use (the step's completion or the cancel callback), the awaiter resumes once, and no
    /// late callback reaches the pooled source's next use.</summary>
    public class PolledCancelRaceTests
    {
        /// <summary>A worker that cancels the given source after a given spin, once per Go.</summary>
        sealed class Canceler : IDisposable
        {
            readonly Thread thread;
            readonly AutoResetEvent go = new AutoResetEvent(false);
            CancellationTokenSource cts;
            int spin;
            volatile bool stop;
            int done;

            internal Canceler()
            {
                thread = new Thread(Run) { IsBackground = true };
                thread.Start();
            }

            internal bool Done { get { return Volatile.Read(ref done) != 0; } }

            internal void Go(CancellationTokenSource source, int spinIterations)
            {
                cts = source;
                spin = spinIterations;
                Volatile.Write(ref done, 0);
                go.Set();
            }

            void Run()
            {
                while (true)
                {
                    go.WaitOne();
                    if (stop) return;
                    Thread.SpinWait(spin);
                    cts.Cancel();
                    Volatile.Write(ref done, 1);
                }
            }

            public void Dispose()
            {
                stop = true;
                go.Set();
                thread.Join();
            }
        }

        sealed class Outcome
        {
            internal int Resumed;
            internal int Canceled;
            internal int Succeeded;
            internal int WrongToken;
            internal int OffMainThread;
        }

        static async OnityTaskVoid Watch(OnityTask task, CancellationToken ct, Outcome into, Action onSucceeded)
        {
            try
            {
                await task;
                into.Succeeded++;
                if (onSucceeded != null) onSucceeded();
            }
            catch (OperationCanceledException e)
            {
                into.Canceled++;
                if (e.CancellationToken != ct) into.WrongToken++;
            }
            if (Thread.CurrentThread != Sim.MainThread) into.OffMainThread++;
            into.Resumed++;
        }

        /// <summary>One kind of polled operation: a pending operation, its polled task with
        /// cancelImmediately, and the call that makes the operation done.</summary>
        interface IKind
        {
            OnityTask Start(CancellationToken ct, bool cancelImmediately, out Action finish);
        }

        sealed class OperationKind : IKind
        {
            public OnityTask Start(CancellationToken ct, bool cancelImmediately, out Action finish)
            {
                var op = StandInAsync.Start(new AsyncOperation(), -1);
                finish = op.StandInFinish;
                return op.ToOnityTask(null, OnityTiming.Update, ct, cancelImmediately);
            }
        }

        sealed class ReadbackKind : IKind
        {
            public OnityTask Start(CancellationToken ct, bool cancelImmediately, out Action finish)
            {
                var request = AsyncGPUReadbackRequest.StandInStart(int.MaxValue);
                var state = request.m_State;
                finish = () => state.m_Done = true;
                return request.ToOnityTask(OnityTiming.Update, ct, cancelImmediately);
            }
        }

        static void Race(IKind kind, int iterations)
        {
            Sim.EnterPlayMode();
            Sim.RunFrames(2);
            var rt = OnityPlayerLoop.Runtime;
            ulong frame = 1000000;
            Action tick = () => { rt.BeginFrame(++frame, 0.016, 0.016, frame); rt.Tick(OnityTiming.Update); };
            var outcome = new Outcome();
            int canceledExpected = 0;
            using (var canceler = new Canceler())
            {
                for (int i = 0; i < iterations; i++)
                {
                    var cts = new CancellationTokenSource();
                    Action finish;
                    var task = kind.Start(cts.Token, true, out finish);
                    int resumedBefore = outcome.Resumed;
                    // mode 0: never done (the cancellation must win); 1, 2: done before the first or
                    // second step, racing the cancellation; 3: done before the first step, and the
                    // whole cancellation runs on the worker while the continuation of that step's
                    // completion is running (the use is consumed, its source not yet released).
                    int mode = i % 4;
                    if (mode == 0) canceledExpected++;
                    Action cancelInside = null;
                    if (mode == 3)
                    {
                        cancelInside = () =>
                        {
                            canceler.Go(cts, 0);
                            for (int n = 0; n < 5000 && !canceler.Done; n++) Thread.Sleep(1);
                        };
                    }
                    Watch(task, cts.Token, outcome, cancelInside).Forget();
                    if (mode != 3) canceler.Go(cts, (i * 7) % 200);
                    for (int step = 0; step < 100000 && !(canceler.Done && outcome.Resumed > resumedBefore); step++)
                    {
                        if (mode != 0 && step == (mode == 2 ? 1 : 0)) finish();
                        tick();
                    }
                    Assert.True(canceler.Done, "the worker canceled (" + i + ")");
                    tick(); // a late second resumption would show here
                    tick();
                    Assert.Equal(resumedBefore + 1, outcome.Resumed, "resumed exactly once (" + i + ")");

                    // The source's next uses: not completed by anything of the use that ended, and two
                    // uses alive at once never share a source (one pooled object handed out twice).
                    Action finishA, finishB;
                    var a = kind.Start(default(CancellationToken), false, out finishA);
                    var b = kind.Start(default(CancellationToken), false, out finishB);
                    Assert.Equal(OnityTaskStatus.Pending, a.Status, "the next use is pending (" + i + ")");
                    Assert.Equal(OnityTaskStatus.Pending, b.Status, "the use after it is pending (" + i + ")");
                    Assert.False(ReferenceEquals(a.source, b.source), "two live uses, two sources (" + i + ")");
                    finishA();
                    finishB();
                    tick();
                    Assert.Equal(OnityTaskStatus.Succeeded, a.Status, "the next use succeeded (" + i + ")");
                    Assert.Equal(OnityTaskStatus.Succeeded, b.Status, "the use after it succeeded (" + i + ")");
                    a.GetAwaiter().GetResult();
                    b.GetAwaiter().GetResult();
                }
            }
            Assert.Equal(iterations, outcome.Succeeded + outcome.Canceled, "every wait ended once");
            Assert.Equal(0, outcome.WrongToken, "canceled with the token");
            Assert.Equal(0, outcome.OffMainThread, "resumed on the main thread (the runtime's owner)");
            Assert.True(outcome.Canceled >= canceledExpected, "the waits on operations never done were canceled");
            Sim.ExitPlayMode(); // the frame numbers given by hand are ahead of the loop's
        }

        [Test]
        public void CancelImmediately_FromAWorker_RacingSteps_AsyncOperation()
        {
            Race(new OperationKind(), 3000);
        }

        [Test]
        public void CancelImmediately_FromAWorker_RacingSteps_GpuReadback()
        {
            Race(new ReadbackKind(), 3000);
        }
    }
}
