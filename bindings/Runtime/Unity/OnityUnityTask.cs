// UnityAction wrappers for async handlers (UniTask's UniTask.UnityAction): the Unity counterpart of
// OnityTask.Action, in this assembly because the engine-free Onity.Runtime cannot name UnityAction.
#if UNITY_5_3_OR_NEWER || ONITY_UNITY_STANDIN
using System;
using System.Threading;
using UnityEngine.Events;

namespace Onity
{
    public static partial class OnityUnityTask
    {
        /// <summary>A <see cref="UnityAction"/> that starts <paramref name="asyncAction"/> each time
        /// it is invoked and observes its task (<see cref="OnityTask.Void(Func{OnityTask})"/>: a
        /// failure goes to <c>Debug.LogException</c> through
        /// <see cref="OnityTask.UnobservedTaskException"/>), for
        /// <c>button.onClick.AddListener(OnityUnityTask.UnityAction(OnClickAsync))</c> instead of an
        /// <c>async void</c> lambda. Allocates the delegate once.</summary>
        public static UnityAction UnityAction(Func<OnityTask> asyncAction)
        {
            if (asyncAction == null) throw new ArgumentNullException("asyncAction");
            return () => OnityTask.Void(asyncAction);
        }

        /// <summary>As <see cref="UnityAction(Func{OnityTask})"/>, passing <paramref name="cancellationToken"/>.</summary>
        public static UnityAction UnityAction(Func<CancellationToken, OnityTask> asyncAction, CancellationToken cancellationToken)
        {
            if (asyncAction == null) throw new ArgumentNullException("asyncAction");
            return () => OnityTask.Void(asyncAction, cancellationToken);
        }

        /// <summary>A <see cref="UnityAction{T0}"/> (a UnityEvent&lt;T0&gt; listener) that starts
        /// <paramref name="asyncAction"/> with the event's argument.</summary>
        public static UnityEngine.Events.UnityAction<T> UnityAction<T>(Func<T, OnityTask> asyncAction)
        {
            if (asyncAction == null) throw new ArgumentNullException("asyncAction");
            return arg => OnityTask.Void(asyncAction, arg);
        }

        // UniTask's other UnityAction overloads: each invocation starts the function and forgets
        // its task (a failure goes to OnityTask.UnobservedTaskException).

        /// <summary>A <see cref="UnityAction"/> passing <paramref name="state"/> to the function.</summary>
        public static UnityAction UnityAction<T>(T state, Func<T, OnityTask> asyncAction)
        {
            Check(asyncAction);
            return () => asyncAction(state).Forget();
        }

        public static UnityEngine.Events.UnityAction<T0, T1> UnityAction<T0, T1>(Func<T0, T1, OnityTask> asyncAction)
        {
            Check(asyncAction);
            return (a, b) => asyncAction(a, b).Forget();
        }

        public static UnityEngine.Events.UnityAction<T0, T1, T2> UnityAction<T0, T1, T2>(Func<T0, T1, T2, OnityTask> asyncAction)
        {
            Check(asyncAction);
            return (a, b, c) => asyncAction(a, b, c).Forget();
        }

        public static UnityEngine.Events.UnityAction<T0, T1, T2, T3> UnityAction<T0, T1, T2, T3>(Func<T0, T1, T2, T3, OnityTask> asyncAction)
        {
            Check(asyncAction);
            return (a, b, c, d) => asyncAction(a, b, c, d).Forget();
        }

        public static UnityEngine.Events.UnityAction<T> UnityAction<T>(Func<T, CancellationToken, OnityTask> asyncAction, CancellationToken cancellationToken)
        {
            Check(asyncAction);
            return a => asyncAction(a, cancellationToken).Forget();
        }

        public static UnityEngine.Events.UnityAction<T0, T1> UnityAction<T0, T1>(Func<T0, T1, CancellationToken, OnityTask> asyncAction, CancellationToken cancellationToken)
        {
            Check(asyncAction);
            return (a, b) => asyncAction(a, b, cancellationToken).Forget();
        }

        public static UnityEngine.Events.UnityAction<T0, T1, T2> UnityAction<T0, T1, T2>(Func<T0, T1, T2, CancellationToken, OnityTask> asyncAction, CancellationToken cancellationToken)
        {
            Check(asyncAction);
            return (a, b, c) => asyncAction(a, b, c, cancellationToken).Forget();
        }

        public static UnityEngine.Events.UnityAction<T0, T1, T2, T3> UnityAction<T0, T1, T2, T3>(Func<T0, T1, T2, T3, CancellationToken, OnityTask> asyncAction, CancellationToken cancellationToken)
        {
            Check(asyncAction);
            return (a, b, c, d) => asyncAction(a, b, c, d, cancellationToken).Forget();
        }

        static void Check(Delegate asyncAction)
        {
            if (asyncAction == null) throw new ArgumentNullException("asyncAction");
        }
    }
}
#endif
