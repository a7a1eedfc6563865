// scripts/check-csharp-api-parity.sh: user code compiled against the binding built without and
// with ONITY_SITES. The unconditional part must compile in both, binding the same overloads (each
// result is assigned to its exact type: a frame wait is not silently a wait task); each CASE_ block
// must compile in both builds or in neither (switching the define never breaks or changes a call).
using System;
using System.Collections.Generic;
using System.Threading;
using Onity;

static class ApiParityCalls
{
    static void TakeWait(Func<OnityFrameWait> f) { }
    static void TakeTask(Func<OnityTask> f) { }

    static void Calls(CancellationToken ct, OnityTask[] ts, OnityTask<int>[] ti, OnityFrameWait[] fw)
    {
        OnityFrameWait w;
        OnityTask t;
        w = OnityTask.Yield();
        w = OnityTask.Yield(OnityTiming.FixedUpdate);
        w = OnityTask.Yield(0);
        w = OnityTask.Yield(timing: OnityTiming.Update);
        t = OnityTask.Yield(ct);
        t = OnityTask.Yield(OnityTiming.Update, ct);
        t = OnityTask.Yield(cancellationToken: ct);
        t = OnityTask.Yield(cancellationToken: ct, timing: OnityTiming.Update);
        w = OnityTask.NextFrame();
        w = OnityTask.NextFrame(OnityTiming.Update);
        t = OnityTask.NextFrame(ct);
        t = OnityTask.NextFrame(OnityTiming.Update, ct);
        t = OnityTask.NextFrame(cancellationToken: ct, timing: OnityTiming.Update);
        w = OnityTask.DelayFrame(1);
        w = OnityTask.DelayFrame(1, OnityTiming.Update);
        w = OnityTask.DelayFrame(1, 0);
        w = OnityTask.DelayFrame(delayFrameCount: 1, timing: OnityTiming.Update);
        t = OnityTask.DelayFrame(1, ct);
        t = OnityTask.DelayFrame(1, OnityTiming.Update, ct);
        t = OnityTask.DelayFrame(delayFrameCount: 1, cancellationToken: ct);
        t = OnityTask.DelayFrame(1, cancellationToken: ct, timing: OnityTiming.Update);
        t = OnityTask.Delay(1);
        t = OnityTask.Delay(TimeSpan.Zero);
        t = OnityTask.Delay(1, DelayType.Realtime);
        t = OnityTask.Delay(TimeSpan.Zero, true);
        t = OnityTask.Delay(TimeSpan.Zero, true, OnityTiming.Update, ct);
        t = OnityTask.Delay(1, cancellationToken: ct);
        t = OnityTask.Delay(TimeSpan.Zero, ignoreTimeScale: false, cancellationToken: ct);
        t = OnityTask.Delay(1, DelayType.DeltaTime, OnityTiming.Update, ct);
        t = OnityTask.Delay(millisecondsDelay: 1, timing: OnityTiming.Update);
        t = OnityTask.Delay(delay: TimeSpan.Zero, delayType: DelayType.Realtime);
        t = OnityTask.WaitUntil(() => true);
        t = OnityTask.WaitUntil(() => true, OnityTiming.Update);
        t = OnityTask.WaitUntil(() => true, OnityTiming.Update, ct);
        t = OnityTask.WaitUntil(() => true, cancellationToken: ct);
        t = OnityTask.WaitUntil(predicate: () => true, timing: OnityTiming.Update);
        t = OnityTask.WaitWhile(() => true);
        t = OnityTask.WaitWhile(() => true, cancellationToken: ct);
        OnityTask<int> i;
        i = OnityTask.WaitUntilValueChanged(new object(), o => o.GetHashCode());
        i = OnityTask.WaitUntilValueChanged(new object(), o => o.GetHashCode(), OnityTiming.Update, null, ct);
        i = OnityTask.WaitUntilValueChanged(new object(), o => o.GetHashCode(), cancellationToken: ct);
        i = OnityTask.WaitUntilValueChanged(target: new object(), monitorFunction: o => o.GetHashCode(), equalityComparer: EqualityComparer<int>.Default);
        i = OnityTask.WhenAny(ts);
        i = OnityTask.WhenAny(ts, ct);
        i = OnityTask.WhenAny(ts, cancellationToken: ct);
        i = OnityTask.WhenAny(tasks: ts, cancellationToken: ct);
        i = OnityTask.WhenAny(ts[0], ts[1]);
        i = OnityTask.WhenAny(fw);
        i = OnityTask.WhenAny(fw, ct);
        i = OnityTask.WhenAny(waits: fw, cancellationToken: ct);
        OnityTask<WhenAnyResult<int>> ai = OnityTask.WhenAny(ti);
        ai = OnityTask.WhenAny(ti, ct);
        t = OnityTask.WhenAll(ts);
        t = OnityTask.WhenAll(ts, ct);
        t = OnityTask.WhenAll(ts[0], ts[1]);
        t = OnityTask.WhenAll(tasks: ts, cancellationToken: ct);
        t = OnityTask.WhenAll(fw);
        t = OnityTask.WhenAll(fw, ct);
        OnityTask<int[]> ia = OnityTask.WhenAll(ti);
        ia = OnityTask.WhenAll(ti, ct);
        ia = OnityTask.WhenAll(new[] { ti[0], ti[1] });
        // Typed tasks as arguments bind the tuple WhenAll / WhenAny (UniTask's overloads).
        OnityTask<ValueTuple<int, int>> pair = OnityTask.WhenAll(ti[0], ti[1]);
        OnityTask<ValueTuple<int, int, int>> anyPair = OnityTask.WhenAny(ti[0], ti[1]);
        OnityTask<ValueTuple<bool, int>> leftRight = OnityTask.WhenAny(ti[0], t);
        AutoResetOnityCompletionSource s = AutoResetOnityCompletionSource.Create();
        AutoResetOnityCompletionSource<int> si = AutoResetOnityCompletionSource<int>.Create();
        TakeTask(() => OnityTask.NextFrame());
        TakeWait(() => OnityTask.NextFrame());
        w.GetAwaiter();
        t.GetAwaiter();

        // Method-group conversions and explicit caller-info arguments.
#if CASE_MethodGroupNextFrame
        Func<OnityFrameWait> a = OnityTask.NextFrame;
#endif
#if CASE_MethodGroupYieldTiming
        Func<OnityTiming, OnityFrameWait> b = OnityTask.Yield;
#endif
#if CASE_MethodGroupYieldToken
        Func<CancellationToken, OnityTask> b2 = OnityTask.Yield;
#endif
#if CASE_MethodGroupArgument
        TakeWait(OnityTask.Yield);
#endif
#if CASE_MethodGroupCreate
        Func<AutoResetOnityCompletionSource> c = AutoResetOnityCompletionSource.Create;
#endif
#if CASE_MethodGroupCreateT
        Func<AutoResetOnityCompletionSource<int>> c2 = AutoResetOnityCompletionSource<int>.Create;
#endif
#if CASE_MethodGroupWhenAnyToken
        Func<OnityTask[], CancellationToken, OnityTask<int>> d = OnityTask.WhenAny;
#endif
#if CASE_MethodGroupWaitUntil
        Func<Func<bool>, OnityTiming, CancellationToken, OnityTask> e = OnityTask.WaitUntil;
#endif
#if CASE_NamedCallerLine
        w = OnityTask.NextFrame(callerLine: 5);
#endif
#if CASE_NamedCallerFile
        s = AutoResetOnityCompletionSource.Create(callerFile: "x.cs");
#endif
    }
}
