using System;
using System.Runtime.CompilerServices;
using System.Collections.Generic;
using System.Threading;

namespace Onity
{
    public partial struct OnityTask
    {
#if !ONITY_SITES // else OnityTask.Sites.cs, with the caller's file and line
        /// <summary>Completes with the new value when <paramref name="monitorFunction"/>(target)
        /// differs from its value at the call (UniTask's <c>WaitUntilValueChanged</c>). Checked at
        /// each run of <paramref name="monitorTiming"/> from the next one on, on the owner thread; an
        /// exception from the function faults the task; a canceled token cancels it at the next run;
        /// so does a target that has become equal to null (a destroyed <c>UnityEngine.Object</c>).
        /// Pooled: nothing allocated after warm-up but the caller's delegate. The target is held
        /// strongly until the task completes.</summary>
        public static OnityTask<U> WaitUntilValueChanged<T, U>(T target, Func<T, U> monitorFunction, OnityTiming monitorTiming = OnityTiming.Update, IEqualityComparer<U> equalityComparer = null, CancellationToken cancellationToken = default(CancellationToken), [CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
            where T : class
        {
            CheckValueChanged(target, monitorFunction, monitorTiming);
            if (cancellationToken.IsCancellationRequested) return FromCanceled<U>(cancellationToken);
            return ValueChangedSource<T, U>.Start(target, monitorFunction, monitorTiming, equalityComparer ?? EqualityComparer<U>.Default, cancellationToken);
        }
#endif

        static void CheckValueChanged(object target, object monitorFunction, OnityTiming monitorTiming)
        {
            if (target == null) throw new ArgumentNullException("target");
            if (monitorFunction == null) throw new ArgumentNullException("monitorFunction");
            if ((uint)monitorTiming >= Native.OnityNative.ONITY_TIMING_COUNT) OnityRuntime.ThrowTiming("monitorTiming");
            OnityRuntime.Require().CheckOwner("WaitUntilValueChanged");
        }
    }

    internal sealed class ValueChangedSource<T, U> : OnityLoopSource<U> where T : class
    {
        static readonly OnityObjectPool<ValueChangedSource<T, U>> pool = new OnityObjectPool<ValueChangedSource<T, U>>(256);
        T target;
        Func<T, U> monitor;
        IEqualityComparer<U> comparer;
        U current;
        CancellationToken ct;

        internal static OnityTask<U> Start(T target, Func<T, U> monitor, OnityTiming timing, IEqualityComparer<U> comparer, CancellationToken ct)
        {
            U first = monitor(target); // throws at the call, as UniTask's
            var s = pool.TryRent() ?? new ValueChangedSource<T, U>();
            s.target = target;
            s.monitor = monitor;
            s.comparer = comparer;
            s.current = first;
            s.ct = ct;
            var task = s.Task;
            s.StartLoop(timing);
            return task;
        }

        protected override bool MoveNext()
        {
            if (ct.IsCancellationRequested)
            {
                TrySetCanceled(ct);
                return false;
            }
            // Through object, not T: without a JIT (Mono's full AOT, IL2CPP) this method may run as
            // code shared over value types too, where `target.Equals` is a constrained call whose
            // bool result comes back boxed (24 bytes a check on Mono); a T : class converts to
            // object without boxing.
            if (((object)target).Equals(null))
            {
                TrySetCanceled();
                return false;
            }
            U next;
            try { next = monitor(target); }
            catch (Exception ex)
            {
                TrySetException(ex);
                return false;
            }
            if (comparer.Equals(current, next)) return true;
            TrySetResult(next);
            return false;
        }

        protected override void OnLoopCanceled() { TrySetCanceled(); }

        protected override void Release()
        {
            target = null;
            monitor = null;
            comparer = null;
            current = default(U);
            ct = default(CancellationToken);
            pool.Return(this);
        }
    }
}
