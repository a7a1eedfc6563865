using System;
using System.Threading;

namespace Onity
{
    public partial struct OnityTask
    {
        // Fire-and-forget entry points for event handlers (UniTask's Void / Action; the Unity
        // delegate UnityAction is in Onity.Unity: OnityUnityTask.UnityAction). The task is observed:
        // a failure (other than cancellation), including an exception the function throws before
        // returning its task, goes to UnobservedTaskException (Unity: Debug.LogException).

        /// <summary>Starts <paramref name="asyncAction"/> and observes its task (instead of
        /// <c>async void</c>).</summary>
        public static void Void(Func<OnityTask> asyncAction)
        {
            if (asyncAction == null) throw new ArgumentNullException("asyncAction");
            Observe(invoke, asyncAction);
        }

        /// <summary>As <see cref="Void(Func{OnityTask})"/>, passing <paramref name="cancellationToken"/>.</summary>
        public static void Void(Func<CancellationToken, OnityTask> asyncAction, CancellationToken cancellationToken)
        {
            if (asyncAction == null) throw new ArgumentNullException("asyncAction");
            Observe(asyncAction, cancellationToken);
        }

        /// <summary>As <see cref="Void(Func{OnityTask})"/>, passing <paramref name="state"/>
        /// (no closure).</summary>
        public static void Void<T>(Func<T, OnityTask> asyncAction, T state)
        {
            if (asyncAction == null) throw new ArgumentNullException("asyncAction");
            Observe(asyncAction, state);
        }

        static readonly Func<Func<OnityTask>, OnityTask> invoke = f => f();

        static void Observe<TState>(Func<TState, OnityTask> start, TState state)
        {
            OnityTask task;
            try { task = start(state); }
            catch (OperationCanceledException) { return; }
            catch (Exception ex)
            {
                PublishUnobserved(ex);
                return;
            }
            task.Forget();
        }

        /// <summary>An <see cref="System.Action"/> that runs <paramref name="asyncAction"/> as
        /// <see cref="Void(Func{OnityTask})"/> each time it is invoked (for <c>event +=</c>; allocates
        /// the delegate once).</summary>
        public static Action Action(Func<OnityTask> asyncAction)
        {
            if (asyncAction == null) throw new ArgumentNullException("asyncAction");
            return () => Void(asyncAction);
        }

        /// <summary>As <see cref="Action(Func{OnityTask})"/>, passing <paramref name="cancellationToken"/>.</summary>
        public static Action Action(Func<CancellationToken, OnityTask> asyncAction, CancellationToken cancellationToken)
        {
            if (asyncAction == null) throw new ArgumentNullException("asyncAction");
            return () => Void(asyncAction, cancellationToken);
        }
    }
}
