using System;
using System.Collections.Generic;
using System.Linq;
using System.Reflection;
using System.Threading;
using Onity.Triggers;
using UnityEngine;

namespace Onity.UnityTests
{
    /// <summary>The generated MonoBehaviour message triggers (scripts/gen_csharp_triggers.py), each
    /// driven through its message method: one-shot wait, stream, token, destruction; frame by frame
    /// for the messages the simulated player loop sends; allocations counted.</summary>
    public class MessageTriggerTests
    {
        static long Bytes() { return GC.GetAllocatedBytesForCurrentThread(); }

        static void Enter()
        {
            Sim.EnterPlayMode();
            Sim.RunFrames(2);
        }

        // The messages the simulated loop sends each frame (their waits complete in the next frame).
        internal static readonly string[] perFrame = { "FixedUpdate", "Update", "LateUpdate", "OnGUI" };

        internal static List<Type> Generated()
        {
            return typeof(OnityTriggerExtensions).Assembly.GetTypes()
                .Where(t => t.Namespace == "Onity.Triggers" && t.IsSealed && t.BaseType != null && t.BaseType.IsGenericType
                    && t.BaseType.GetGenericTypeDefinition() == typeof(OnityTriggerBase<>)
                    && t != typeof(OnityDestroyTrigger) && t != typeof(OnityAwakeTrigger) && t != typeof(OnityStartTrigger))
                .OrderBy(t => t.Name).ToList();
        }

        internal static object Sample(Type t)
        {
            if (t == typeof(int)) return 3;
            if (t == typeof(bool)) return true;
            if (t == typeof(float)) return 2.5f;
            if (t == typeof(GameObject)) return new GameObject("sample");
            if (typeof(Component).IsAssignableFrom(t))
                return typeof(GameObject).GetMethod("AddComponent", Type.EmptyTypes).MakeGenericMethod(t).Invoke(new GameObject("sample " + t.Name), null);
            var ctor = t.GetConstructor(Type.EmptyTypes);
            if (ctor != null) return ctor.Invoke(null);
            return t.GetConstructors().Single(c => c.GetParameters().Length == 1).Invoke(new object[] { null }); // event data (EventSystem)
        }

        internal static MethodInfo Getter(Type trigger, Type receiver)
        {
            foreach (var ext in new[] { typeof(OnityTriggerExtensions), typeof(OnityEventSystemTriggerExtensions) })
            {
                var m = ext.GetMethod("Get" + trigger.Name, new[] { receiver });
                if (m != null) return m;
            }
            throw new AssertionException("no Get" + trigger.Name + "(" + receiver.Name + ") extension");
        }

        internal static OnityTaskStatus StatusOf(object task) { return (OnityTaskStatus)task.GetType().GetProperty("Status").GetValue(task); }

        internal static object ResultOf(object task)
        {
            var awaiter = task.GetType().GetMethod("GetAwaiter").Invoke(task, null);
            try { return awaiter.GetType().GetMethod("GetResult").Invoke(awaiter, null); }
            catch (TargetInvocationException e) { throw e.InnerException; }
        }

        [Test]
        public void EveryGeneratedTrigger_AwaitsItsMessage_IsCanceled_AndEndsWhenDestroyed()
        {
            Enter();
            var types = Generated();
            Assert.True(types.Count >= 72, "the generated triggers are found (" + types.Count + ": 55 messages, 17 EventSystems handlers)");
            foreach (var type in types)
            {
                var go = new GameObject(type.Name);
                var trigger = (Component)Getter(type, typeof(GameObject)).Invoke(null, new object[] { go });
                var again = Getter(type, typeof(Component)).Invoke(null, new object[] { go.AddComponent<Probe>() });
                Assert.True(ReferenceEquals(trigger, again), type.Name + ": one per GameObject");
                var message = type.GetMethods(BindingFlags.Instance | BindingFlags.NonPublic | BindingFlags.DeclaredOnly).Single();
                var wait = type.GetMethods(BindingFlags.Instance | BindingFlags.Public | BindingFlags.DeclaredOnly).Single(m => m.Name.EndsWith("Async"));
                var args = message.GetParameters().Select(p => Sample(p.ParameterType)).ToArray();
                bool sentEachFrame = perFrame.Contains(message.Name);

                // A wait completes with the message's value (frame by frame for a per-frame message).
                var t = wait.Invoke(trigger, new object[] { CancellationToken.None });
                Assert.Equal(OnityTaskStatus.Pending, StatusOf(t), type.Name + ": pending");
                if (sentEachFrame) Sim.RunFrame();
                else message.Invoke(trigger, args);
                Assert.Equal(OnityTaskStatus.Succeeded, StatusOf(t), type.Name + ": completed by " + message.Name);
                var value = ResultOf(t);
                if (args.Length == 1) Assert.True(Equals(args[0], value), type.Name + ": the message's argument (" + value + ")");
                if (args.Length == 2) Assert.Equal("(" + args[0] + ", " + args[1] + ")", "" + value, type.Name + ": both arguments");

                // A token canceled before the message: canceled at the next run of Update.
                if (!sentEachFrame)
                {
                    var cts = new CancellationTokenSource();
                    var canceled = wait.Invoke(trigger, new object[] { cts.Token });
                    cts.Cancel();
                    Sim.RunFrame();
                    Assert.Equal(OnityTaskStatus.Canceled, StatusOf(canceled), type.Name + ": canceled by its token");
                }

                // The stream gets each message, and ends (as waits are canceled) when destroyed.
                // (A per-frame message, and OnDisable, come in the destroying frame before OnDestroy.)
                var got = new List<string>();
                var stream = Collect(trigger, got);
                var last = wait.Invoke(trigger, new object[] { CancellationToken.None });
                UnityEngine.Object.Destroy(go);
                Sim.RunFrame();
                if (!sentEachFrame && message.Name != "OnDisable")
                    Assert.Equal(OnityTaskStatus.Canceled, StatusOf(last), type.Name + ": a wait is canceled by the destruction");
                if (StatusOf(stream) == OnityTaskStatus.Faulted) stream.GetAwaiter().GetResult(); // its exception, if any
                Assert.True(got.Count > 0 && got[got.Count - 1] == "end", type.Name + ": the stream ends (" + string.Join(",", got) + ")");
                stream.GetAwaiter().GetResult();
                Assert.Equal(OnityTaskStatus.Canceled, StatusOf(wait.Invoke(trigger, new object[] { CancellationToken.None })), type.Name + ": a wait after the destruction is canceled at once");
            }
        }

        // The stream of any trigger, through its GetAsyncEnumerator (reflection: T varies).
        static async OnityTask Collect(Component trigger, List<string> into)
        {
            var e = trigger.GetType().GetMethod("GetAsyncEnumerator").Invoke(trigger, new object[] { CancellationToken.None });
            var move = e.GetType().GetMethod("MoveNextAsync");
            var dispose = e.GetType().GetMethod("DisposeAsync");
            // The getter through MethodInfo.Invoke: Mono's PropertyInfo.GetValue makes a delegate
            // over a struct enumerator's getter, which needs a JIT (mono --full-aot).
            var current = e.GetType().GetProperty("Current").GetGetMethod();
            while (await (OnityTask<bool>)move.Invoke(e, null)) into.Add("" + current.Invoke(e, null));
            into.Add("end");
            await (OnityTask)dispose.Invoke(e, null);
        }

        [Test]
        public void AwakeAndStartTriggers_CompleteOnceAtTheirMessage()
        {
            Enter();
            var active = new GameObject("active");
            Assert.Equal(OnityTaskStatus.Succeeded, active.AwakeAsync().Status, "added to an active GameObject: Awake already came");
            var start = active.StartAsync();
            Assert.Equal(OnityTaskStatus.Pending, start.Status, "Start comes before the first Update");
            Sim.RunFrame();
            Assert.Equal(OnityTaskStatus.Succeeded, start.Status, "at Start");
            Assert.Equal(OnityTaskStatus.Succeeded, active.GetComponent<OnityStartTrigger>().StartAsync().Status, "after Start: at once");

            var inactive = new GameObject("inactive");
            inactive.SetActive(false);
            var awake = inactive.AwakeAsync();
            var cts = new CancellationTokenSource();
            var canceled = inactive.GetOnityAwakeTrigger().AwakeAsync(cts.Token);
            Sim.RunFrame();
            Assert.Equal(OnityTaskStatus.Pending, awake.Status, "no Awake while inactive");
            cts.Cancel();
            Sim.RunFrame();
            Assert.Equal(OnityTaskStatus.Canceled, canceled.Status, "a token cancels it at the next Update");
            inactive.SetActive(true);
            Assert.Equal(OnityTaskStatus.Succeeded, awake.Status, "at the activation's Awake");
            Assert.True(ReferenceEquals(inactive.GetOnityAwakeTrigger(), inactive.GetComponent<OnityAwakeTrigger>()), "one per GameObject");
            var destroyed = inactive.OnDestroyAsync();
            UnityEngine.Object.Destroy(active);
            UnityEngine.Object.Destroy(inactive);
            Assert.Equal(OnityTaskStatus.Pending, destroyed.Status, "GameObject.OnDestroyAsync: alive until the frame's destruction");
            Sim.RunFrame();
            Assert.Equal(OnityTaskStatus.Succeeded, destroyed.Status, "GameObject.OnDestroyAsync: at the destroy");
        }

        [Test]
        public void UpdateTrigger_EachFrame_AndWaitsAllocateNothingAfterWarmUp()
        {
            Enter();
            var go = new GameObject("ticker");
            var update = go.GetOnityUpdateTrigger();
            var late = go.GetOnityLateUpdateTrigger();
            int frames = 0;
            for (int i = 0; i < 3; i++)
            {
                var u = update.UpdateAsync();
                var l = late.LateUpdateAsync();
                Sim.RunFrame();
                if (u.Status == OnityTaskStatus.Succeeded && l.Status == OnityTaskStatus.Succeeded) frames++;
                u.GetAwaiter().GetResult();
                l.GetAwaiter().GetResult();
            }
            Assert.Equal(3, frames, "Update and LateUpdate waits complete in the next frame, each frame");

            // Allocations: waits completed by the message (a direct delegate: no reflection per call).
            var jointBreak = go.GetOnityJointBreakTrigger();
            var send = (Action<float>)Delegate.CreateDelegate(typeof(Action<float>), jointBreak,
                typeof(OnityJointBreakTrigger).GetMethod("OnJointBreak", BindingFlags.Instance | BindingFlags.NonPublic));
            long b0 = 0;
            float sum = 0;
            for (int i = 0; i < 1100; i++)
            {
                if (i == 100) b0 = Bytes();
                var w = jointBreak.OnJointBreakAsync();
                send(1f);
                sum += w.GetAwaiter().GetResult();
            }
            Assert.Equal(0L, Bytes() - b0, "bytes over 1000 OnJointBreakAsync waits and messages");
            Assert.Equal(1100f, sum, "every message");
            b0 = Bytes();
            jointBreak.GetAsyncEnumerator().DisposeAsync();
            Assert.True(Bytes() - b0 > 0, "a stream's enumerator is allocated (the measurement sees it)");
            UnityEngine.Object.Destroy(go);
            Sim.RunFrame();
        }
    }
}
