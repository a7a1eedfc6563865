using System;
using System.Collections.Generic;
using Onity.Unity;
using UnityEngine;

namespace Onity.UnityTests
{
    /// <summary>OnityPlayerLoop.AddAction (UniTask's PlayerLoopHelper.AddAction).</summary>
    public class PlayerLoopActionTests
    {
        sealed class Steps : IOnityPlayerLoopItem
        {
            public int Left, Runs;
            public Type LastSystem;
            public bool Throw;

            public bool MoveNext()
            {
                Runs++;
                LastSystem = Sim.CurrentSystem;
                if (Throw) throw new InvalidOperationException("step failed");
                return --Left > 0;
            }
        }

        [Test]
        public void UnobservedExceptionOfAWorker_LoggedOnTheMainThread()
        {
            Sim.EnterPlayMode();
            var e = new InvalidOperationException("worker failure");
            System.Threading.Tasks.Task.Run(() => OnityTask.FromException(e).Forget()).Wait();
            Assert.False(Debug.Exceptions.Contains(e), "posted to the main thread, not logged on the worker");
            Sim.RunFrame();
            Assert.True(Debug.Exceptions.Contains(e), "logged at the main context's next pump");
            OnityPlayerLoop.DispatchUnityMainThread = false;
            try
            {
                var e2 = new InvalidOperationException("worker failure 2");
                System.Threading.Tasks.Task.Run(() => OnityTask.FromException(e2).Forget()).Wait();
                Assert.True(Debug.Exceptions.Contains(e2), "DispatchUnityMainThread = false: logged on the worker at once");
            }
            finally { OnityPlayerLoop.DispatchUnityMainThread = true; }
        }

        [Test]
        public void AddAction_StepsAtTheTimingUntilFalse_Pooled()
        {
            Sim.EnterPlayMode();
            var s = new Steps { Left = 3 };
            OnityPlayerLoop.AddAction(OnityTiming.PreLateUpdate, s);
            Assert.Equal(0, s.Runs, "from the timing's next run");
            Sim.RunFrames(5);
            Assert.Equal(3, s.Runs, "until MoveNext returned false");
            Assert.Equal(Sys.Of(OnityTiming.PreLateUpdate), s.LastSystem, "in Onity's PreLateUpdate system");
            var failing = new Steps { Left = 5, Throw = true };
            OnityPlayerLoop.AddAction(OnityTiming.Update, failing);
            Sim.RunFrames(2);
            Assert.Equal(1, failing.Runs, "an exception ends it");
            Assert.True(Debug.Exceptions.Exists(e => e.Message == "step failed"), "and is logged");
            Assert.Throws<ArgumentNullException>(() => OnityPlayerLoop.AddAction(OnityTiming.Update, null), "null item");
            Assert.Throws<ArgumentOutOfRangeException>(() => OnityPlayerLoop.AddAction((OnityTiming)16, s), "bad timing");
            // Steady state: starting an action (the runner from the pool) allocates nothing; the
            // steps themselves run in the frames (OnityLoopItem's own tests count those).
            var one = new Steps();
            for (int i = 0; i < 50; i++) { one.Left = 1; OnityPlayerLoop.AddAction(OnityTiming.Update, one); Sim.RunFrame(); }
            long bytes = 0;
            for (int i = 0; i < 200; i++)
            {
                one.Left = 1;
                long b0 = GC.GetAllocatedBytesForCurrentThread();
                OnityPlayerLoop.AddAction(OnityTiming.Update, one);
                bytes += GC.GetAllocatedBytesForCurrentThread() - b0;
                Sim.RunFrame();
            }
            Assert.Equal(250, one.Runs, "every action ran once");
            Assert.Equal(0L, bytes, "bytes of 200 AddAction calls after warm-up");
            long c0 = GC.GetAllocatedBytesForCurrentThread();
            OnityPlayerLoop.AddAction(OnityTiming.Update, new Steps { Left = 1 });
            Assert.True(GC.GetAllocatedBytesForCurrentThread() - c0 > 0, "control: a new item is seen by the measurement");
            Sim.RunFrame();
        }
    }
}
