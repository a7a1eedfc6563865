using System;
using System.Runtime.CompilerServices;
using System.Threading;

namespace Onity
{
    public partial struct OnityTask
    {
        // Condition waits (UniTask's WaitUntil / WaitWhile): the predicate is evaluated at each run
        // of the timing, starting with the next one (never synchronously, as in UniTask), on the
        // owner thread. Built on the frame waits: without a token each check is a fast-lane Yield,
        // so a wait allocates nothing after warm-up but the predicate delegate the caller passes.

#if !ONITY_SITES // else OnityTask.Sites.cs, with the caller's file and line
        /// <summary>Completes at the first run of <paramref name="timing"/> (from the next one on)
        /// at which <paramref name="predicate"/> returns true. An exception from the predicate
        /// faults the task (an <see cref="OperationCanceledException"/> cancels it); a canceled
        /// token cancels it at the next run of the timing, and so does disposing the runtime that
        /// was current at the call. Owner thread.</summary>
        public static OnityTask WaitUntil(Func<bool> predicate, OnityTiming timing = OnityTiming.Update, CancellationToken cancellationToken = default(CancellationToken), [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            return ConditionLoop(CheckCondition(predicate, timing), new FuncCondition(predicate), true, timing, cancellationToken);
        }

        /// <summary>Completes at the first run of <paramref name="timing"/> (from the next one on)
        /// at which <paramref name="predicate"/> returns false. Otherwise as
        /// <see cref="WaitUntil"/>.</summary>
        public static OnityTask WaitWhile(Func<bool> predicate, OnityTiming timing = OnityTiming.Update, CancellationToken cancellationToken = default(CancellationToken), [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            return ConditionLoop(CheckCondition(predicate, timing), new FuncCondition(predicate), false, timing, cancellationToken);
        }

#endif

        /// <summary>As <see cref="WaitUntil(Func{bool}, OnityTiming, CancellationToken, string, int)"/>
        /// with a state passed to the predicate (a static lambda then allocates nothing).</summary>
        public static OnityTask WaitUntil<T>(T state, Func<T, bool> predicate, OnityTiming timing = OnityTiming.Update, CancellationToken cancellationToken = default(CancellationToken), bool cancelImmediately = false)
        {
            return Immediately(StateLoop(state, predicate, true, timing, cancellationToken), cancellationToken, cancelImmediately);
        }

        /// <summary>As <see cref="WaitWhile(Func{bool}, OnityTiming, CancellationToken, string, int)"/>
        /// with a state passed to the predicate.</summary>
        public static OnityTask WaitWhile<T>(T state, Func<T, bool> predicate, OnityTiming timing = OnityTiming.Update, CancellationToken cancellationToken = default(CancellationToken), bool cancelImmediately = false)
        {
            return Immediately(StateLoop(state, predicate, false, timing, cancellationToken), cancellationToken, cancelImmediately);
        }

        /// <summary>Completes (successfully) at the first run of <paramref name="timing"/> at which
        /// <paramref name="cancellationToken"/> is canceled (UniTask's <c>WaitUntilCanceled</c>);
        /// with <paramref name="completeImmediately"/>, at the <c>Cancel</c> call itself (a
        /// registration: allocates it). Never completes with a token that cannot be canceled.</summary>
        public static OnityTask WaitUntilCanceled(CancellationToken cancellationToken, OnityTiming timing = OnityTiming.Update, bool completeImmediately = false)
        {
            if (cancellationToken.IsCancellationRequested) return CompletedTask;
            if (completeImmediately)
            {
                var src = AutoResetOnityCompletionSource.Create();
                var task = src.Task;
                OnityCancellationExtensions.RegisterWithoutCaptureExecutionContext(cancellationToken, completeSource, src);
                return task;
            }
            return WaitUntil(cancellationToken, tokenCanceled, timing);
        }

        static readonly Func<CancellationToken, bool> tokenCanceled = t => t.IsCancellationRequested;
        static readonly Action<object> completeSource = s => ((AutoResetOnityCompletionSource)s).TrySetResult();

        interface ICondition { bool Check(); }

        struct FuncCondition : ICondition
        {
            readonly Func<bool> predicate;
            public FuncCondition(Func<bool> predicate) { this.predicate = predicate; }
            public bool Check() { return predicate(); }
        }

        struct StateCondition<T> : ICondition
        {
            readonly T state;
            readonly Func<T, bool> predicate;
            public StateCondition(T state, Func<T, bool> predicate) { this.state = state; this.predicate = predicate; }
            public bool Check() { return predicate(state); }
        }

        // A class-typed state goes through one non-generic condition (RefStateCondition), so that
        // the loop is compiled for it once. ConditionLoop<StateCondition<T>> over a class T is
        // code shared over value types where there is no JIT (Mono's full AOT; IL2CPP's generic
        // sharing): 48 B per wait there (HelperParityTests.WaitUntilWithAStateAllocatesNothing...).
        static OnityTask StateLoop<T>(T state, Func<T, bool> predicate, bool until, OnityTiming timing, CancellationToken cancellationToken)
        {
            var r = CheckCondition(predicate, timing);
            if (typeof(T).IsValueType)
                return ConditionLoop(r, new StateCondition<T>(state, predicate), until, timing, cancellationToken, 0);
            return ConditionLoop(r, new RefStateCondition(state, predicate, RefState<T>.Check), until, timing, cancellationToken, 0);
        }

        struct RefStateCondition : ICondition
        {
            readonly object state;
            readonly Delegate predicate;
            readonly Func<object, Delegate, bool> check;
            public RefStateCondition(object state, Delegate predicate, Func<object, Delegate, bool> check) { this.state = state; this.predicate = predicate; this.check = check; }
            public bool Check() { return check(state, predicate); }
        }

        static class RefState<T>
        {
            internal static readonly Func<object, Delegate, bool> Check = (s, p) => ((Func<T, bool>)p)((T)s);
        }

        static OnityRuntime CheckCondition(Delegate predicate, OnityTiming timing)
        {
            if (predicate == null) throw new ArgumentNullException("predicate");
            if ((uint)timing >= Native.OnityNative.ONITY_TIMING_COUNT) OnityRuntime.ThrowTiming();
            // The owner-thread and live-runtime errors at the call, not in the task.
            var r = OnityRuntime.Require();
            r.CheckOwner("WaitUntil/WaitWhile");
            return r;
        }

        // Bound to the runtime current at the call: a newer runtime does not take the loop over,
        // and disposing this one cancels it.
        // ONITY_SITES: each check's wait carries the WaitUntil/WaitWhile caller's site (0: none).
#if !ONITY_SITES
        static OnityTask ConditionLoop<TC>(OnityRuntime r, TC condition, bool until, OnityTiming timing, CancellationToken cancellationToken) where TC : struct, ICondition
        {
            return ConditionLoop(r, condition, until, timing, cancellationToken, 0);
        }
#endif

        static async OnityTask ConditionLoop<TC>(OnityRuntime r, TC condition, bool until, OnityTiming timing, CancellationToken cancellationToken, int site) where TC : struct, ICondition
        {
            if (cancellationToken.CanBeCanceled)
            {
                do
                {
#if ONITY_SITES
                    var t = r.Schedule(OnityRuntime.KindYield, timing, 0, 0, cancellationToken);
                    if (site != 0) r.TagTask(t, site, null, 0);
                    await t;
#else
                    await r.Schedule(OnityRuntime.KindYield, timing, 0, 0, cancellationToken);
#endif
                } while (condition.Check() != until);
            }
            else
            {
                do
                {
#if ONITY_SITES
                    await (site != 0 ? r.FrameWait(0, timing).WithSite(site) : r.FrameWait(0, timing));
#else
                    await r.FrameWait(0, timing);
#endif
                } while (condition.Check() != until);
            }
        }
    }
}
