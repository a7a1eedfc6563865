using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Threading;
using Onity.CompilerServices;
using UnityEngine;

namespace Onity.UnityTests
{
    // Unity's editor compiles scripts with Roslyn in "Debug" code optimization by default, and
    // Roslyn then emits every async method as a *class* state machine (mcs, which builds these
    // tests, always emits structs). The state machines below are written by hand the way Roslyn
    // emits them in Debug: a sealed class implementing IAsyncStateMachine; the kickoff method
    // allocates it, sets the builder with Create(), the arguments and state -1, calls
    // builder.Start(ref sm) and returns builder.Task; MoveNext keeps the awaiter in a field, passes
    // a local copy of `this` by ref to AwaitUnsafeOnCompleted, ends with SetResult/SetException
    // and state -2; SetStateMachine is empty.

    /// <summary>Roslyn Debug form of
    /// <c>async OnityTask&lt;int&gt; AddLater(int a, int b) { await OnityTask.NextFrame(); int x = a;
    /// await OnityTask.DelayFrame(2); if (b &lt; 0) throw new ArgumentException("b"); return x + b; }</c>.</summary>
    [CompilerGenerated]
    sealed class AddLaterStateMachine : IAsyncStateMachine
    {
        public int state;
        public OnityTaskMethodBuilder<int> builder;
        public int a;
        public int b;
        int x;
        OnityFrameWait awaiter1;

        public static OnityTask<int> Start(int a, int b)
        {
            var sm = new AddLaterStateMachine();
            sm.builder = OnityTaskMethodBuilder<int>.Create();
            sm.a = a;
            sm.b = b;
            sm.state = -1;
            sm.builder.Start(ref sm);
            return sm.builder.Task;
        }

        void IAsyncStateMachine.MoveNext()
        {
            int num = state;
            int result;
            try
            {
                OnityFrameWait awaiter;
                if (num != 0)
                {
                    if (num == 1) goto Resume1;
                    awaiter = OnityTask.NextFrame().GetAwaiter();
                    if (!awaiter.IsCompleted)
                    {
                        num = state = 0;
                        awaiter1 = awaiter;
                        AddLaterStateMachine stateMachine = this;
                        builder.AwaitUnsafeOnCompleted(ref awaiter, ref stateMachine);
                        return;
                    }
                }
                else
                {
                    awaiter = awaiter1;
                    awaiter1 = default(OnityFrameWait);
                    num = state = -1;
                }
                awaiter.GetResult();
                x = a;
                awaiter = OnityTask.DelayFrame(2).GetAwaiter();
                if (!awaiter.IsCompleted)
                {
                    num = state = 1;
                    awaiter1 = awaiter;
                    AddLaterStateMachine stateMachine = this;
                    builder.AwaitUnsafeOnCompleted(ref awaiter, ref stateMachine);
                    return;
                }
                goto Continue1;
            Resume1:
                awaiter = awaiter1;
                awaiter1 = default(OnityFrameWait);
                num = state = -1;
            Continue1:
                awaiter.GetResult();
                if (b < 0) throw new ArgumentException("b");
                result = x + b;
            }
            catch (Exception exception)
            {
                state = -2;
                builder.SetException(exception);
                return;
            }
            state = -2;
            builder.SetResult(result);
        }

        [DebuggerHidden]
        void IAsyncStateMachine.SetStateMachine(IAsyncStateMachine stateMachine) { }
    }

    /// <summary>Roslyn Debug form of <c>async OnityTask Chain(List&lt;string&gt; log, int v,
    /// CancellationToken ct) { if (v == 0) throw new InvalidOperationException("sync"); log.Add("start");
    /// int r = await AddLater(v, v); log.Add("sum " + r); await OnityTask.NextFrame(ct); log.Add("end" + Ambient); }</c>:
    /// an untyped method awaiting a task (OnityTask&lt;int&gt;.Awaiter) and a cancelable wait.</summary>
    [CompilerGenerated]
    sealed class ChainStateMachine : IAsyncStateMachine
    {
        public int state;
        public OnityTaskMethodBuilder builder;
        public List<string> log;
        public int v;
        public CancellationToken ct;
        int r;
        OnityTask<int>.Awaiter awaiter1;
        OnityTask.Awaiter awaiter2;

        public static OnityTask Start(List<string> log, int v, CancellationToken ct)
        {
            var sm = new ChainStateMachine();
            sm.builder = OnityTaskMethodBuilder.Create();
            sm.log = log;
            sm.v = v;
            sm.ct = ct;
            sm.state = -1;
            sm.builder.Start(ref sm);
            return sm.builder.Task;
        }

        void IAsyncStateMachine.MoveNext()
        {
            int num = state;
            try
            {
                OnityTask<int>.Awaiter awaiter;
                OnityTask.Awaiter awaiterB;
                if (num != 0)
                {
                    if (num == 1) goto Resume1;
                    if (v == 0) throw new InvalidOperationException("sync");
                    log.Add("start");
                    awaiter = AddLaterStateMachine.Start(v, v).GetAwaiter();
                    if (!awaiter.IsCompleted)
                    {
                        num = state = 0;
                        awaiter1 = awaiter;
                        ChainStateMachine stateMachine = this;
                        builder.AwaitUnsafeOnCompleted(ref awaiter, ref stateMachine);
                        return;
                    }
                }
                else
                {
                    awaiter = awaiter1;
                    awaiter1 = default(OnityTask<int>.Awaiter);
                    num = state = -1;
                }
                r = awaiter.GetResult();
                log.Add("sum " + r);
                awaiterB = OnityTask.NextFrame(ct).GetAwaiter();
                if (!awaiterB.IsCompleted)
                {
                    num = state = 1;
                    awaiter2 = awaiterB;
                    ChainStateMachine stateMachine = this;
                    builder.AwaitUnsafeOnCompleted(ref awaiterB, ref stateMachine);
                    return;
                }
                goto Continue1;
            Resume1:
                awaiterB = awaiter2;
                awaiter2 = default(OnityTask.Awaiter);
                num = state = -1;
            Continue1:
                awaiterB.GetResult();
                log.Add("end" + (ClassStateMachineTests.Ambient.Value == null ? "" : " " + ClassStateMachineTests.Ambient.Value));
            }
            catch (Exception exception)
            {
                state = -2;
                builder.SetException(exception);
                return;
            }
            state = -2;
            builder.SetResult();
        }

        [DebuggerHidden]
        void IAsyncStateMachine.SetStateMachine(IAsyncStateMachine stateMachine) { }
    }

    sealed class DebuggerHiddenAttribute : Attribute { }

    public class ClassStateMachineTests
    {
        internal static readonly AsyncLocal<string> Ambient = new AsyncLocal<string>();

        static T Await<T>(OnityTask<T> t, int maxFrames)
        {
            var aw = t.GetAwaiter();
            for (int i = 0; i < maxFrames && !aw.IsCompleted; i++) Sim.RunFrame();
            Assert.True(aw.IsCompleted, "completed within " + maxFrames + " frames");
            return aw.GetResult();
        }

        static void Await(OnityTask t, int maxFrames)
        {
            var aw = t.GetAwaiter();
            for (int i = 0; i < maxFrames && !aw.IsCompleted; i++) Sim.RunFrame();
            Assert.True(aw.IsCompleted, "completed within " + maxFrames + " frames");
            aw.GetResult();
        }

        [Test]
        public void TypedMethod_SuspendsTwice_ResumesOnItsFrames_RunnerReturnedAfterAwait()
        {
            Sim.EnterPlayMode();
            Sim.RunFrames(2);
            long rented = OnityRunnerStats.Rented, live = OnityRunnerStats.Live;
            int start = Time.frameCount;
            var t = AddLaterStateMachine.Start(40, 2);
            Assert.Equal(rented + 1, OnityRunnerStats.Rented, "one runner for the method's first suspension");
            Assert.False(t.GetAwaiter().IsCompleted, "pending");
            int v = Await(t, 10);
            Assert.Equal(42, v, "result");
            Assert.True(Time.frameCount >= start + 3, "NextFrame then DelayFrame(2): at least 3 frames later, got " + (Time.frameCount - start));
            Assert.Equal(rented + 1, OnityRunnerStats.Rented, "still one runner: the second suspension reuses it");
            Assert.Equal(live, OnityRunnerStats.Live, "runner back in the pool once awaited");
        }

        [Test]
        public void ExceptionBeforeAndAfterSuspension_FaultTheTask_WithTheOriginalException()
        {
            Sim.EnterPlayMode();
            Sim.RunFrames(2);
            long live = OnityRunnerStats.Live, rented = OnityRunnerStats.Rented;
            var sync = ChainStateMachine.Start(new List<string>(), 0, CancellationToken.None);
            Assert.Equal(rented, OnityRunnerStats.Rented, "a throw before the first await takes no runner");
            Assert.Throws<InvalidOperationException>(() => sync.GetAwaiter().GetResult(), "synchronous throw");
            var late = AddLaterStateMachine.Start(1, -1);
            var e = Assert.Throws<ArgumentException>(() => Await(late, 10), "throw after two suspensions");
            Assert.Equal("b", e.Message, "the method's own exception");
            Assert.Equal(live, OnityRunnerStats.Live, "no runner left behind");
        }

        [Test]
        public void UntypedMethod_AwaitingAClassStateMachineTask_AndCanceled()
        {
            Sim.EnterPlayMode();
            Sim.RunFrames(2);
            long live = OnityRunnerStats.Live;
            var log = new List<string>();
            Await(ChainStateMachine.Start(log, 5, CancellationToken.None), 12);
            Assert.Equal("start,sum 10,end", string.Join(",", log), "steps (no AsyncLocal value here)");

            var cts = new CancellationTokenSource();
            var log2 = new List<string>();
            var t = ChainStateMachine.Start(log2, 3, cts.Token);
            for (int i = 0; i < 12 && !log2.Contains("sum 6"); i++) Sim.RunFrame();
            Assert.Equal("start,sum 6", string.Join(",", log2), "waiting on the cancelable NextFrame");
            cts.Cancel();
            Assert.Throws<OperationCanceledException>(() => Await(t, 3), "canceled through the class state machine");
            Assert.Equal(live, OnityRunnerStats.Live, "no runner left behind");
        }

        [Test]
        public void ManyInstancesOfOneStateMachineType_EachKeepsItsOwnState()
        {
            Sim.EnterPlayMode();
            Sim.RunFrames(2);
            long live = OnityRunnerStats.Live;
            var tasks = new OnityTask<int>[200];
            for (int i = 0; i < tasks.Length; i++) tasks[i] = AddLaterStateMachine.Start(i, 1000);
            Assert.Equal(live + tasks.Length, OnityRunnerStats.Live, "one runner per suspended instance");
            Sim.RunFrames(4);
            for (int i = 0; i < tasks.Length; i++) Assert.Equal(i + 1000, Await(tasks[i], 1), "instance " + i);
            Assert.Equal(live, OnityRunnerStats.Live, "all runners back");
            // The pooled runners serve a second round of new state machine objects.
            long created = OnityRunnerStats.Created;
            for (int i = 0; i < tasks.Length; i++) tasks[i] = AddLaterStateMachine.Start(i, 1);
            Sim.RunFrames(4);
            for (int i = 0; i < tasks.Length; i++) Assert.Equal(i + 1, Await(tasks[i], 1), "second round " + i);
            Assert.Equal(created, OnityRunnerStats.Created, "no new runner in the second round");
        }

        [Test]
        public void AsyncLocalFlowsThroughAClassStateMachine()
        {
            Sim.EnterPlayMode();
            Sim.RunFrames(2);
            var log = new List<string>();
            OnityTask t = default(OnityTask);
            ExecutionContext.Run(ExecutionContext.Capture(), _ =>
            {
                Ambient.Value = "mine";
                t = ChainStateMachine.Start(log, 2, CancellationToken.None);
            }, null);
            Ambient.Value = "host";
            Await(t, 12);
            Ambient.Value = null;
            Assert.Equal("start,sum 4,end mine", string.Join(",", log), "the method's AsyncLocal value after its awaits");
        }
    }
}
