using System;
using System.Collections;
using System.Collections.Generic;
using System.Threading;
using Onity.Unity;
using UnityEngine;
using PL = UnityEngine.PlayerLoop;

namespace Onity.UnityTests
{
    /// <summary>await IEnumerator / ToOnityTask: coroutines run on Onity's player loop, frame by
    /// frame, with every yield kind, failures and cancellation at every point.</summary>
    public class EnumeratorAwaitTests
    {
        static readonly List<string> log = new List<string>();

        static void Log(string what) { log.Add(what + "@" + Time.frameCount); }

        static IEnumerator Inner()
        {
            Log("inner start");
            yield return null;
            Log("inner end");
        }

        static IEnumerator Outer()
        {
            Log("outer start");
            yield return Inner();
            Log("outer after inner");
            yield return null;
            Log("outer end");
        }

        sealed class WaitFlag : CustomYieldInstruction
        {
            public bool Go;
            public int Checks;
            public override bool keepWaiting { get { Checks++; return !Go; } }
        }

        static Probe Enter()
        {
            log.Clear();
            Sim.EnterPlayMode();
            var probe = Probe.Create();
            Sim.RunFrames(2);
            return probe;
        }

        static async OnityTask Run(IEnumerator e, List<Stamp> into)
        {
            await e;
            into.Add(Stamp.Now());
        }

        [Test]
        public void NestedEnumeratorsAndNull_FirstStepAtTheCall_ThenOncePerFrameInUpdate()
        {
            Enter();
            var got = new List<Stamp>();
            int f = Time.frameCount;
            Run(Outer(), got).Forget();
            Assert.Equal("outer start@" + f + ",inner start@" + f, string.Join(",", log), "first step at the call, nested run in place");
            Sim.RunFrame();
            Assert.Equal("outer start@" + f + ",inner start@" + f + ",inner end@" + (f + 1) + ",outer after inner@" + (f + 1), string.Join(",", log), "the outer goes on in the step the inner ends");
            Sim.RunFrame();
            Assert.Equal(1, got.Count, "done");
            Assert.Equal(f + 2, got[0].Frame, "frame");
            Assert.Equal(Sys.Of(OnityTiming.Update), got[0].System, "in Update");
        }

        static IEnumerator Yields(object[] values)
        {
            foreach (var v in values) yield return v;
        }

        [Test]
        public void CustomYieldInstructionAsyncOperationAndOtherObjects()
        {
            Enter();
            var flag = new WaitFlag();
            var op = StandInAsync.Start(new AsyncOperation(), 1);
            var got = new List<Stamp>();
            int f = Time.frameCount;
            Run(Yields(new object[] { flag, op, 42 }), got).Forget();
            Assert.Equal(1, flag.Checks, "keepWaiting checked at the first step");
            Sim.RunFrames(3);
            Assert.Equal(4, flag.Checks, "then once per frame");
            flag.Go = true;
            Sim.RunFrame();
            Assert.True(op.isDone, "the op finished meanwhile");
            Assert.Equal(0, got.Count, "the done op goes on at once, then 42 waits a frame");
            Sim.RunFrame();
            Assert.Equal(1, got.Count, "done after 42's frame");
        }

        static IEnumerator WaitSeconds(float s)
        {
            yield return new WaitForSeconds(s);
        }

        [Test]
        public void WaitForSecondsUsesScaledTime()
        {
            Enter();
            Sim.FrameTime = 0.1f;
            Time.timeScale = 0.5f;
            var got = new List<Stamp>();
            double t0 = Time.timeAsDouble;
            Run(WaitSeconds(0.17f), got).Forget();
            int frames = 0;
            while (got.Count == 0 && frames < 20) { Sim.RunFrame(); frames++; }
            Assert.True(got.Count == 1, "done");
            Assert.True(Time.timeAsDouble - t0 >= 0.17 - 1e-6, "scaled time advanced by 0.17: " + (Time.timeAsDouble - t0));
            Assert.Equal(4, frames, "0.05 scaled seconds per frame");
        }

        static IEnumerator FixedThenNull()
        {
            yield return new WaitForFixedUpdate();
            Log("after fixed " + (Time.inFixedTimeStep ? "in step" : "outside") + " " + (Sim.CurrentSystem == null ? "" : Sim.CurrentSystem.Name));
            yield return null;
            Log("after null " + (Sim.CurrentSystem == null ? "" : Sim.CurrentSystem.Name));
        }

        [Test]
        public void WaitForFixedUpdateResumesInLastFixedUpdate_ThenBackToItsTiming()
        {
            Enter();
            Sim.FrameTime = 0.025f; // one fixed step per frame
            var got = new List<Stamp>();
            int f = Time.frameCount;
            Run(FixedThenNull(), got).Forget();
            Sim.RunFrame();
            Assert.Equal("after fixed in step OnityLastFixedUpdate@" + (f + 1), string.Join(",", log), "after the fixed step's scripts");
            Sim.RunFrame();
            Assert.Equal("after null OnityUpdate@" + (f + 2), log[1], "then once per frame in Update");
            Assert.Equal(1, got.Count, "done");
        }

        static IEnumerator YieldOne(object o)
        {
            yield return o;
        }

        static IEnumerator Throws()
        {
            yield return null;
            throw new FormatException("in the coroutine");
        }

        [Test]
        public void UnsupportedYieldsAndExceptionsFaultTheTask()
        {
            Enter();
            var eof = YieldOne(new WaitForEndOfFrame()).ToOnityTask();
            var ex = Assert.Throws<NotSupportedException>(() => eof.GetAwaiter().GetResult(), "WaitForEndOfFrame refused");
            Assert.Contains("WaitForEndOfFrame", ex.Message, "says which");
            var c = YieldOne(Activator.CreateInstance(typeof(Coroutine), true)).ToOnityTask();
            Assert.Contains("Coroutine", Assert.Throws<NotSupportedException>(() => c.GetAwaiter().GetResult()).Message, "Coroutine refused");
            var t = Throws().ToOnityTask();
            Sim.RunFrame();
            Assert.Equal("in the coroutine", Assert.Throws<FormatException>(() => t.GetAwaiter().GetResult()).Message, "its exception");
            Assert.Throws<ArgumentNullException>(() => ((IEnumerator)null).ToOnityTask(), "null");
        }

        static IEnumerator Guarded(List<string> into)
        {
            try
            {
                while (true) yield return Inner();
            }
            finally { into.Add("outer finally"); }
        }

        [Test]
        public void CanceledAtEveryPoint_TheEnumeratorsAreDisposed()
        {
            Enter();
            for (int cancelAt = 0; cancelAt < 4; cancelAt++)
            {
                var finallies = new List<string>();
                var cts = new CancellationTokenSource();
                var t = Guarded(finallies).ToOnityTask(OnityTiming.Update, cts.Token);
                Sim.RunFrames(cancelAt);
                Assert.Equal(OnityTaskStatus.Pending, t.Status, "pending (" + cancelAt + ")");
                cts.Cancel();
                Sim.RunFrame();
                Assert.Equal(OnityTaskStatus.Canceled, t.Status, "canceled at the next step");
                Assert.Equal("outer finally", string.Join(",", finallies), "the outer enumerator's finally ran (disposed)");
                t.SuppressCancellationThrow().GetAwaiter().GetResult();
            }
            var stopped = new List<string>();
            var pending = Guarded(stopped).ToOnityTask();
            Sim.RunFrame();
            Sim.ExitPlayMode();
            Assert.Equal(OnityTaskStatus.Canceled, pending.Status, "leaving Play Mode cancels it");
            Assert.Equal("outer finally", string.Join(",", stopped), "and disposes it");
        }

        /// <summary>A reusable enumerator (no allocation per run): two null yields.</summary>
        sealed class TwoFrames : IEnumerator
        {
            int step;
            public object Current { get { return null; } }
            public bool MoveNext() { return ++step <= 2; }
            public void Reset() { step = 0; }
        }

        static async OnityTask<int> Loop(TwoFrames e, int n)
        {
            for (int i = 0; i < n; i++)
            {
                e.Reset();
                await e;
            }
            return n;
        }

        [Test]
        public void AwaitingACoroutineAllocatesNothingAfterWarmUp()
        {
            CleanContext.Run(() =>
            {
                Enter();
                var rt = OnityPlayerLoop.Runtime;
                ulong frame = 100000;
                var t = Loop(new TwoFrames(), 1500);
                long b0 = 0;
                for (int f = 0; f < 3000; f++)
                {
                    if (f == 1000) b0 = GC.GetAllocatedBytesForCurrentThread();
                    rt.BeginFrame(++frame, 0.016, 0.016, frame);
                    rt.Tick(OnityTiming.Update);
                }
                long d = GC.GetAllocatedBytesForCurrentThread() - b0;
                Assert.Equal(1500, t.GetAwaiter().GetResult(), "all ran");
                Assert.Equal(0L, d, "bytes over 1,000 coroutines");
                b0 = GC.GetAllocatedBytesForCurrentThread();
                var iterator = Inner(); // control: an iterator method allocates its enumerator
                Assert.True(GC.GetAllocatedBytesForCurrentThread() - b0 > 0 && iterator != null, "allocations are seen");
                Sim.ExitPlayMode();
            });
        }
    }
}
