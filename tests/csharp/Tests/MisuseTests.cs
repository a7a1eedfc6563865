using System;
using System.Collections.Generic;
using System.Threading;

namespace Onity.Tests
{
    public class MisuseTests
    {
        [Test]
        public void AwaitingAFrameWaitTwiceThrows()
        {
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update);
                OnityTask t = OnityTask.NextFrame();
                h.RunFrame(OnityTiming.Update);
                t.GetAwaiter().GetResult();
                var ex = Assert.Throws<InvalidOperationException>(() => t.GetAwaiter().GetResult());
                Assert.Contains("can not await twice", ex.Message);
                Assert.Throws<InvalidOperationException>(() => { var s = t.Status; });
            }
        }

        [Test]
        public void TwoContinuationsOnOnePendingTaskThrow()
        {
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update);
                OnityTask t = OnityTask.NextFrame();
                t.GetAwaiter().UnsafeOnCompleted(() => { });
                var ex = Assert.Throws<InvalidOperationException>(() => t.GetAwaiter().UnsafeOnCompleted(() => { }));
                Assert.Contains("already has a continuation", ex.Message);
                var s = AutoResetOnityCompletionSource.Create();
                var st = s.Task;
                st.GetAwaiter().UnsafeOnCompleted(() => { });
                Assert.Throws<InvalidOperationException>(() => st.GetAwaiter().UnsafeOnCompleted(() => { }));
                s.TrySetResult();
                st.GetAwaiter().GetResult();
                h.RunFrame(OnityTiming.Update);
                t.GetAwaiter().GetResult();
            }
        }

        [Test]
        public void StaleTaskOfARecycledSourceThrows()
        {
            using (var h = new TestHost())
            {
                var s = AutoResetOnityCompletionSource.Create();
                var t = s.Task;
                s.TrySetResult();
                t.GetAwaiter().GetResult();
                var s2 = AutoResetOnityCompletionSource.Create(); // likely the same object, next version
                var ex = Assert.Throws<InvalidOperationException>(() => t.GetAwaiter().GetResult());
                Assert.Contains("stale", ex.Message);
                Assert.Throws<InvalidOperationException>(() => { bool c = t.GetAwaiter().IsCompleted; });
                s2.TrySetResult();
                s2.Task.GetAwaiter().GetResult();
            }
        }

        [Test]
        public void GetResultBeforeCompletionThrows()
        {
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update);
                OnityTask t = OnityTask.NextFrame();
                var ex = Assert.Throws<InvalidOperationException>(() => t.GetAwaiter().GetResult());
                Assert.Contains("before the task completed", ex.Message);
                h.RunFrame(OnityTiming.Update);
                t.GetAwaiter().GetResult(); // still usable afterwards
            }
        }

        [Test]
        public void WrongThreadTickAndBeginFrameThrow()
        {
            using (var h = new TestHost())
            {
                Exception tick = null, wait = null, begin = null;
                var th = new Thread(() =>
                {
                    try { h.Runtime.Tick(OnityTiming.Update); } catch (Exception e) { tick = e; }
                    try { OnityTask.NextFrame(); } catch (Exception e) { wait = e; }
                    try { h.Runtime.BeginFrame(100, 0, 0, 0); } catch (Exception e) { begin = e; }
                });
                th.Start();
                th.Join();
                Assert.True(tick is InvalidOperationException, "Tick: " + tick);
                Assert.Contains("owner thread", tick.Message);
                Assert.True(wait == null, "NextFrame on another thread is a wait for the owner's loop (OffThreadWaitTests): " + wait);
                Assert.True(begin is InvalidOperationException, "BeginFrame: " + begin);
                h.RunFrame(OnityTiming.Update); // the runtime is fine
            }
        }

        [Test]
        public void ReentrantTickFromAContinuationThrows()
        {
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update);
                Exception inner = null;
                OnityTask.NextFrame().GetAwaiter().UnsafeOnCompleted(() =>
                {
                    try { h.Runtime.Tick(OnityTiming.LastUpdate); } catch (Exception e) { inner = e; }
                });
                h.RunFrame(OnityTiming.Update);
                Assert.True(inner is InvalidOperationException, "re-entrant tick: " + inner);
                Assert.Contains("re-entrant", inner.Message);
            }
        }

        [Test]
        public void ExceptionsFromContinuationsReachTheEventAndOthersStillRun()
        {
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update);
                var ran = new List<int>();
                for (int i = 0; i < 3; i++)
                {
                    int k = i;
                    OnityTask.NextFrame().GetAwaiter().UnsafeOnCompleted(() =>
                    {
                        ran.Add(k);
                        if (k == 1) throw new ArithmeticException("from continuation");
                    });
                }
                h.RunFrame(OnityTiming.Update);
                Assert.Equal("0,1,2", string.Join(",", ran));
                Assert.Equal(1, h.Unobserved.Count, "unobserved");
                Assert.True(h.Unobserved[0] is ArithmeticException, "type");
            }
        }

        static async OnityTask FailAfterAFrame()
        {
            await OnityTask.NextFrame();
            throw new TimeoutException("forgotten failure");
        }

        [Test]
        public void ForgottenFaultedTaskReachesTheEvent()
        {
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update);
                FailAfterAFrame().Forget();
                Assert.Equal(0, h.Unobserved.Count);
                h.RunFrame(OnityTiming.Update);
                Assert.Equal(1, h.Unobserved.Count);
                Assert.True(h.Unobserved[0] is TimeoutException, "type");
            }
        }

        [Test]
        public void ExceptionInAsyncMethodKeepsStackTrace()
        {
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update);
                var t = FailAfterAFrame();
                h.RunFrame(OnityTiming.Update);
                var ex = Assert.Throws<TimeoutException>(() => t.GetAwaiter().GetResult());
                Assert.Contains("FailAfterAFrame", ex.StackTrace, "original frame in the stack trace");
            }
        }

        [Test]
        public void WhenAnyRejectsAnInputAwaitedElsewhere()
        {
            using (var h = new TestHost())
            {
                var s = AutoResetOnityCompletionSource.Create();
                var t = s.Task;
                t.GetAwaiter().UnsafeOnCompleted(() => { });
                var any = OnityTask.WhenAny(t);
                Assert.Equal(OnityTaskStatus.Faulted, any.Status);
                Assert.Throws<InvalidOperationException>(() => any.GetAwaiter().GetResult());
                s.TrySetResult();
                t.GetAwaiter().GetResult();
            }
        }
    }
}
