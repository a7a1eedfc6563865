// Coroutines (IEnumerator) as awaitables: run on the player loop by Onity, not by StartCoroutine.
#if UNITY_5_3_OR_NEWER || ONITY_UNITY_STANDIN
using System;
using System.Collections;
using System.Reflection;
using System.Threading;
using UnityEngine;

namespace Onity
{
    public static partial class OnityUnityAsyncExtensions
    {
        /// <summary><c>await enumerator</c>: <see cref="ToOnityTask(IEnumerator, OnityTiming, CancellationToken)"/> on Update.</summary>
        public static OnityTask.Awaiter GetAwaiter(this IEnumerator enumerator)
        {
            return ToOnityTask(enumerator).GetAwaiter();
        }

        public static OnityTask WithCancellation(this IEnumerator enumerator, CancellationToken cancellationToken)
        {
            return ToOnityTask(enumerator, OnityTiming.Update, cancellationToken);
        }

        /// <summary>Runs <paramref name="enumerator"/> as a coroutine on Onity's player loop. Its
        /// first step runs at the call (as <c>StartCoroutine</c>'s); after that each step runs at the
        /// first run of <paramref name="timing"/> in a later frame, once per frame. What it yields:
        /// <list type="bullet">
        /// <item><c>null</c> (or any object not listed here): the next frame, as in a coroutine.</item>
        /// <item>an <see cref="IEnumerator"/> (a nested coroutine, or a
        /// <see cref="CustomYieldInstruction"/> such as <c>WaitUntil</c>, <c>WaitWhile</c>,
        /// <c>WaitForSecondsRealtime</c>): run in place, its first step at once; the outer one goes
        /// on in the step where it ends.</item>
        /// <item><see cref="AsyncOperation"/>: until <c>isDone</c> (at once when it already is).</item>
        /// <item><see cref="WaitForSeconds"/>: until <c>Time.timeAsDouble</c> has advanced by its
        /// seconds (scaled time, checked once per frame; its duration is read by reflection, which
        /// allocates a few bytes per yield).</item>
        /// <item><see cref="WaitForFixedUpdate"/>: the next run of LastFixedUpdate (after the fixed
        /// step's scripts), then back to <paramref name="timing"/>.</item>
        /// <item>refused with <see cref="NotSupportedException"/> (the task faults):
        /// <see cref="WaitForEndOfFrame"/> (it runs after rendering, outside the player loop: use
        /// <c>StartCoroutine</c>, or <c>OnityTask.Yield(OnityTiming.LastPostLateUpdate)</c> where the
        /// difference does not matter), a <see cref="Coroutine"/> from <c>StartCoroutine</c> (its end
        /// cannot be observed: yield the IEnumerator itself), any other
        /// <see cref="YieldInstruction"/>.</item>
        /// </list>
        /// An exception from the enumerator faults the task. When
        /// <paramref name="cancellationToken"/> is canceled (seen at the next step) or the runtime is
        /// disposed, the task is canceled and the enumerators are disposed (their <c>finally</c>
        /// blocks run, which Unity's StopCoroutine does not do). Pooled: after warm-up nothing is
        /// allocated but the caller's enumerators. Owner thread.</summary>
        public static OnityTask ToOnityTask(this IEnumerator enumerator, OnityTiming timing = OnityTiming.Update, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (enumerator == null) throw new ArgumentNullException("enumerator");
            if ((uint)timing >= Native.OnityNative.ONITY_TIMING_COUNT) throw new ArgumentOutOfRangeException("timing", "Onity: timing must be an OnityTiming value (0-15).");
            if (cancellationToken.IsCancellationRequested) return OnityTask.FromCanceled(cancellationToken);
            return EnumeratorSource.Start(enumerator, timing, cancellationToken);
        }

        sealed class EnumeratorSource : OnityLoopSource<AsyncUnit>
        {
            const byte WaitNone = 0, WaitSeconds = 1, WaitOperation = 2, WaitFixedUpdate = 3;
            static readonly OnityObjectPool<EnumeratorSource> pool = new OnityObjectPool<EnumeratorSource>(256);
            static FieldInfo waitForSecondsField;

            IEnumerator[] stack = new IEnumerator[4];
            int depth;
            OnityTiming timing;
            CancellationToken ct;
            byte wait;
            double waitUntil;
            AsyncOperation waitOp;

            internal static OnityTask Start(IEnumerator enumerator, OnityTiming timing, CancellationToken ct)
            {
                CheckCanStartLoop("running an IEnumerator (await / ToOnityTask)");
                var s = pool.TryRent() ?? new EnumeratorSource();
                s.timing = timing;
                s.ct = ct;
                s.stack[0] = enumerator;
                s.depth = 1;
                var task = s.UntypedTask;
                // The first step runs now (StartCoroutine's behaviour); the loop only if it yielded.
                if (s.Advance())
                {
                    if (s.wait == WaitFixedUpdate) s.StartLoop(OnityTiming.LastFixedUpdate, false);
                    else s.StartLoop(timing, true);
                }
                return task;
            }

            void Push(IEnumerator e)
            {
                if (depth == stack.Length) Array.Resize(ref stack, depth * 2);
                stack[depth++] = e;
            }

            /// <summary>Steps the enumerators until one waits (true) or all ended (false, the task
            /// completed).</summary>
            bool Advance()
            {
                while (depth > 0)
                {
                    var top = stack[depth - 1];
                    object current;
                    try
                    {
                        if (!top.MoveNext())
                        {
                            stack[--depth] = null;
                            continue;
                        }
                        current = top.Current;
                        if (current == null) return true;
                        var nested = current as IEnumerator;
                        if (nested != null)
                        {
                            Push(nested);
                            continue;
                        }
                        if (!(current is YieldInstruction)) return true; // Unity waits a frame for any other object
                        var op = current as AsyncOperation;
                        if (op != null)
                        {
                            if (op.isDone) continue;
                            wait = WaitOperation;
                            waitOp = op;
                            return true;
                        }
                        var seconds = current as WaitForSeconds;
                        if (seconds != null)
                        {
                            wait = WaitSeconds;
                            waitUntil = Time.timeAsDouble + SecondsOf(seconds);
                            return true;
                        }
                        if (current is WaitForFixedUpdate)
                        {
                            wait = WaitFixedUpdate;
                            return true;
                        }
                        throw Unsupported(current);
                    }
                    catch (Exception ex)
                    {
                        DisposeStack();
                        TrySetException(ex);
                        return false;
                    }
                }
                TrySetResult(default(AsyncUnit));
                return false;
            }

            static Exception Unsupported(object yielded)
            {
                if (yielded is WaitForEndOfFrame)
                    return new NotSupportedException("Onity: an awaited IEnumerator yielded WaitForEndOfFrame, which runs after rendering, outside the player loop Onity runs on. Run that coroutine with StartCoroutine, or await OnityTask.Yield(OnityTiming.LastPostLateUpdate) where the difference does not matter.");
                if (yielded is Coroutine)
                    return new NotSupportedException("Onity: an awaited IEnumerator yielded a Coroutine (from StartCoroutine), whose end Onity cannot observe. Yield the IEnumerator itself instead.");
                return new NotSupportedException("Onity: an awaited IEnumerator yielded " + yielded.GetType().Name + ", a YieldInstruction Onity does not support (supported: null, IEnumerator and CustomYieldInstruction, AsyncOperation, WaitForSeconds, WaitForFixedUpdate).");
            }

            static float SecondsOf(WaitForSeconds w)
            {
                var f = waitForSecondsField;
                if (f == null)
                {
                    f = typeof(WaitForSeconds).GetField("m_Seconds", BindingFlags.Instance | BindingFlags.NonPublic);
                    if (f == null) throw new NotSupportedException("Onity: WaitForSeconds.m_Seconds was not found (stripped?); use OnityTask.Delay instead of yielding WaitForSeconds.");
                    waitForSecondsField = f;
                }
                return (float)f.GetValue(w);
            }

            protected override bool MoveNext()
            {
                if (ct.IsCancellationRequested)
                {
                    DisposeStack();
                    TrySetCanceled(ct);
                    return false;
                }
                switch (wait)
                {
                    case WaitSeconds:
                        if (Time.timeAsDouble < waitUntil) return true;
                        break;
                    case WaitOperation:
                        if (!waitOp.isDone) return true;
                        waitOp = null;
                        break;
                    case WaitFixedUpdate:
                        SetLoopTiming(timing, true);
                        break;
                }
                wait = WaitNone;
                if (!Advance()) return false;
                if (wait == WaitFixedUpdate) SetLoopTiming(OnityTiming.LastFixedUpdate, false);
                return true;
            }

            protected override void OnLoopCanceled()
            {
                DisposeStack();
                TrySetCanceled();
            }

            void DisposeStack()
            {
                while (depth > 0)
                {
                    var d = stack[--depth] as IDisposable;
                    stack[depth] = null;
                    if (d == null) continue;
                    try { d.Dispose(); }
                    catch (Exception ex) { Debug.LogException(ex); }
                }
            }

            protected override void Release()
            {
                while (depth > 0) stack[--depth] = null;
                ct = default(CancellationToken);
                wait = WaitNone;
                waitOp = null;
                pool.Return(this);
            }
        }
    }
}
#endif
