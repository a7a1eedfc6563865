using System;
using System.Threading;

namespace Onity.Tests
{
    /// <summary>UniTask's completion-source helpers: AutoReset Create* of completed sources,
    /// UnsafeGetStatus, the plain sources' constructors.</summary>
    public class CompletionSourceParityTests
    {
        static bool Resolve<T>(IOnityPromise<T> p, T value) { return p.TrySetResult(value); }

        [Test]
        public void CompletedAutoResetSourcesAndUnsafeGetStatus()
        {
            using (var h = new TestHost())
            {
                long token;
                var r = AutoResetOnityCompletionSource<int>.CreateFromResult(4, out token);
                Assert.Equal(OnityTaskStatus.Succeeded, r.UnsafeGetStatus(), "succeeded");
                Assert.Equal(OnityTaskStatus.Succeeded, r.GetStatus(token), "the token is the task's");
                Assert.Equal(4, r.GetResult(token), "result (then back to the pool)");
                var f = AutoResetOnityCompletionSource<int>.CreateFromException(new FormatException("x"), out token);
                Assert.Equal(OnityTaskStatus.Faulted, f.GetStatus(token), "faulted");
                Assert.Throws<FormatException>(() => f.GetResult(token), "its exception");
                var cts = new CancellationTokenSource();
                cts.Cancel();
                var c = AutoResetOnityCompletionSource<int>.CreateFromCanceled(cts.Token, out token);
                Assert.Equal(OnityTaskStatus.Canceled, c.GetStatus(token), "canceled");
                Assert.Throws<OperationCanceledException>(() => c.GetResult(token), "canceled result");

                var u = AutoResetOnityCompletionSource.CreateCompleted(out token);
                Assert.Equal(OnityTaskStatus.Succeeded, u.UnsafeGetStatus(), "untyped succeeded");
                u.GetResult(token);
                var uf = AutoResetOnityCompletionSource.CreateFromException(new FormatException("y"), out token);
                Assert.Throws<FormatException>(() => uf.GetResult(token), "untyped faulted");
                var uc = AutoResetOnityCompletionSource.CreateFromCanceled(cts.Token, out token);
                Assert.Throws<OperationCanceledException>(() => uc.GetResult(token), "untyped canceled");
                var pending = AutoResetOnityCompletionSource.Create();
                Assert.Equal(OnityTaskStatus.Pending, pending.UnsafeGetStatus(), "pending");
                pending.TrySetResult();
                pending.Task.GetAwaiter().GetResult();

                var plain = new OnityCompletionSource<string>();
                Assert.Equal(OnityTaskStatus.Pending, plain.UnsafeGetStatus(), "plain pending");
                plain.TrySetException(new FormatException("z"));
                Assert.Equal(OnityTaskStatus.Faulted, plain.UnsafeGetStatus(), "plain faulted");
                var untyped = new OnityCompletionSource();
                untyped.TrySetCanceled();
                Assert.Equal(OnityTaskStatus.Canceled, untyped.UnsafeGetStatus(), "plain canceled");
                var ok = new OnityCompletionSource<int>();
                ok.TrySetResult(1);
                Assert.Equal(OnityTaskStatus.Succeeded, ok.UnsafeGetStatus(), "plain succeeded");

                // The promise interfaces: one completing helper for every source.
                var typed = new OnityCompletionSource<int>();
                Assert.True(Resolve(typed, 3), "resolved through IOnityPromise<T>");
                Assert.False(Resolve(typed, 4), "once");
                Assert.Equal(3, typed.Task.GetAwaiter().GetResult(), "its value");
                var auto = AutoResetOnityCompletionSource<int>.Create();
                var autoTask = auto.Task;
                Assert.True(((IOnityRejectPromise)auto).TrySetException(new FormatException("p")), "rejected through IOnityRejectPromise");
                Assert.Throws<FormatException>(() => autoTask.GetAwaiter().GetResult(), "faulted");
                IOnityPromise[] untypedSources = { new OnityCompletionSource(), AutoResetOnityCompletionSource.Create() };
                foreach (var p in untypedSources)
                {
                    Assert.True(p.TrySetCanceled(), "canceled through IOnityCancelPromise");
                    Assert.False(p.TrySetResult(), "already completed");
                }
            }
        }
    
        static async OnityTask NextFrameTask() { await OnityTask.NextFrame(); }

        [Test]
        public void AsAsyncUnitOnityTaskKeepsTheOutcome()
        {
            using (var h = new TestHost())
            {
                h.RunFrame();
                Assert.Equal(OnityTaskStatus.Succeeded, OnityTask.CompletedTask.AsAsyncUnitOnityTask().Status, "completed at once");
                var later = NextFrameTask().AsAsyncUnitOnityTask();
                Assert.Equal(OnityTaskStatus.Pending, later.Status, "pending while the task is");
                h.RunFrame();
                Assert.Equal(AsyncUnit.Default, later.GetAwaiter().GetResult(), "AsyncUnit");
                var failed = OnityTask.FromException(new FormatException("x")).AsAsyncUnitOnityTask();
                Assert.Throws<FormatException>(() => failed.GetAwaiter().GetResult(), "the exception kept");
            }
        }
}
}
