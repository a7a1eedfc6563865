// UniTask's coroutine-runner helpers: the real end of frame (after rendering, which only a
// coroutine's WaitForEndOfFrame reaches) and an IEnumerator run as a coroutine of a MonoBehaviour.
// Each starts a Unity coroutine (Unity allocates its Coroutine, as for UniTask's); if the runner is
// destroyed or deactivated first, Unity stops the coroutine and the task never completes (as
// UniTask's): pass a token (e.g. its destroyCancellationToken) with cancelImmediately.
#if UNITY_5_3_OR_NEWER || ONITY_UNITY_STANDIN
using System;
using System.Collections;
using System.Threading;
using UnityEngine;

namespace Onity
{
    public static partial class OnityUnityTask
    {
        /// <summary>Completes at the end of this frame, after rendering (a coroutine's
        /// <c>WaitForEndOfFrame</c> on <paramref name="coroutineRunner"/>). Main thread.</summary>
        public static OnityTask WaitForEndOfFrame(MonoBehaviour coroutineRunner)
        {
            return WaitForEndOfFrame(coroutineRunner, CancellationToken.None);
        }

        /// <summary>As <see cref="WaitForEndOfFrame(MonoBehaviour)"/>; canceled at the end of the
        /// frame when <paramref name="cancellationToken"/> was canceled by then, or at the Cancel
        /// call itself with <paramref name="cancelImmediately"/> (a token registration).</summary>
        public static OnityTask WaitForEndOfFrame(MonoBehaviour coroutineRunner, CancellationToken cancellationToken, bool cancelImmediately = false)
        {
            if (coroutineRunner == null) throw new ArgumentNullException("coroutineRunner");
            if (cancellationToken.IsCancellationRequested) return OnityTask.FromCanceled(cancellationToken);
            var routine = new EndOfFrameRoutine(cancellationToken);
            if (cancelImmediately && cancellationToken.CanBeCanceled) routine.registration = cancellationToken.Register(cancelNow, routine);
            coroutineRunner.StartCoroutine(routine);
            return routine.source.Task;
        }

        static readonly Action<object> cancelNow = o => { var r = (EndOfFrameRoutine)o; r.source.TrySetCanceled(r.cancellationToken); };

        sealed class EndOfFrameRoutine : IEnumerator
        {
            static readonly WaitForEndOfFrame endOfFrame = new WaitForEndOfFrame();
            internal readonly OnityCompletionSource source = new OnityCompletionSource();
            internal readonly CancellationToken cancellationToken;
            internal CancellationTokenRegistration registration;
            int step;

            internal EndOfFrameRoutine(CancellationToken cancellationToken) { this.cancellationToken = cancellationToken; }

            public object Current { get { return step == 1 ? endOfFrame : null; } }

            public bool MoveNext()
            {
                if (step++ == 0) return true; // StartCoroutine's first step: wait for the end of frame
                registration.Dispose();
                if (cancellationToken.IsCancellationRequested) source.TrySetCanceled(cancellationToken);
                else source.TrySetResult();
                return false;
            }

            public void Reset() { throw new NotSupportedException(); }
        }
    }

    public static partial class OnityUnityAsyncExtensions
    {
        /// <summary>Runs <paramref name="enumerator"/> as a coroutine of
        /// <paramref name="coroutineRunner"/> (Unity's scheduling of every yield instruction) and
        /// completes when it ends (UniTask's <c>ToUniTask(coroutineRunner)</c>). An exception in
        /// the coroutine is logged by Unity and stops it: the task then never completes.</summary>
        public static OnityTask ToOnityTask(this IEnumerator enumerator, MonoBehaviour coroutineRunner)
        {
            if (enumerator == null) throw new ArgumentNullException("enumerator");
            if (coroutineRunner == null) throw new ArgumentNullException("coroutineRunner");
            var source = new OnityCompletionSource();
            coroutineRunner.StartCoroutine(RunThenComplete(enumerator, source));
            return source.Task;
        }

        static IEnumerator RunThenComplete(IEnumerator enumerator, OnityCompletionSource source)
        {
            yield return enumerator;
            source.TrySetResult();
        }
    }
}
#endif
