// Test-only stand-in: Unity's coroutine scheduler, as far as the package uses it. StartCoroutine
// runs the routine to its first yield at once; `yield return null` (and any object Unity does not
// treat specially here) resumes in the next frame's Update.ScriptRunDelayedDynamicFrameRate,
// `WaitForEndOfFrame` at the end of the frame (after the player loop), a nested IEnumerator runs
// in place. A destroyed owner's coroutines stop; an exception is logged and stops the coroutine,
// as Unity does. Not Unity API. Never shipped.
using System;
using System.Collections;
using System.Collections.Generic;

namespace UnityEngine
{
    internal static class StandInCoroutines
    {
        sealed class Running
        {
            internal MonoBehaviour owner;
            internal IEnumerator routine;
            internal Coroutine handle;
            internal readonly Stack<IEnumerator> stack = new Stack<IEnumerator>();
            internal bool endOfFrame;
            internal int frame;   // Time.frameCount when it last yielded
        }

        static readonly List<Running> running = new List<Running>();

        internal static Coroutine Start(MonoBehaviour owner, IEnumerator routine)
        {
            var r = new Running { owner = owner, routine = routine, handle = Coroutine.StandInNew() };
            r.stack.Push(routine);
            if (Step(r)) running.Add(r);
            return r.handle;
        }

        internal static void Stop(MonoBehaviour owner, IEnumerator routine, Coroutine handle)
        {
            // Both null: StopAllCoroutines.
            running.RemoveAll(r => r.owner == (object)owner && (routine == null || r.routine == routine) && (handle == null || r.handle == handle));
        }

        /// <summary>Resumes the coroutines waiting for this point: the end of the frame, or the
        /// next frame's delayed Update.</summary>
        internal static void Run(bool endOfFrame)
        {
            var due = running.FindAll(r => r.endOfFrame == endOfFrame && (endOfFrame || r.frame < Time.s_frameCount));
            foreach (var r in due)
            {
                if (!running.Contains(r)) continue;
                if (r.owner == null) { running.Remove(r); continue; } // destroyed
                if (!Step(r)) running.Remove(r);
            }
        }

        internal static void Clear() { running.Clear(); }

        /// <summary>Steps until the routine yields (true) or ends (false).</summary>
        static bool Step(Running r)
        {
            while (r.stack.Count > 0)
            {
                var top = r.stack.Peek();
                bool more;
                try { more = top.MoveNext(); }
                catch (Exception e)
                {
                    Debug.LogException(e);
                    return false;
                }
                if (!more)
                {
                    r.stack.Pop();
                    continue;
                }
                var nested = top.Current as IEnumerator;
                if (nested != null)
                {
                    r.stack.Push(nested);
                    continue;
                }
                r.endOfFrame = top.Current is WaitForEndOfFrame;
                r.frame = Time.s_frameCount;
                return true;
            }
            return false;
        }
    }
}
