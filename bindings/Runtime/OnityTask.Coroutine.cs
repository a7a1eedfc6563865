using System;
using System.Collections;

namespace Onity
{
    public partial struct OnityTask
    {
        /// <summary>The task as a coroutine (an <see cref="IEnumerator"/> that yields null until
        /// the task completes), for <c>StartCoroutine</c> and Unity Test Framework's
        /// <c>[UnityTest]</c>. It consumes the task: when it completes, the enumerator ends, or
        /// throws the task's exception (original stack trace; an
        /// <see cref="OperationCanceledException"/> when canceled) from <c>MoveNext</c>, or hands it
        /// to <paramref name="exceptionHandler"/> when one is given. A stale or already awaited
        /// task throws <see cref="InvalidOperationException"/> from the first <c>MoveNext</c>.
        /// Allocates the enumerator.</summary>
        public IEnumerator ToCoroutine(Action<Exception> exceptionHandler = null)
        {
            return new OnityCoroutine<AsyncUnit>(this, null, exceptionHandler);
        }
    }

    public partial struct OnityTask<T>
    {
        /// <summary>As <see cref="OnityTask.ToCoroutine"/>; <paramref name="resultHandler"/>
        /// receives the result when the task succeeds.</summary>
        public IEnumerator ToCoroutine(Action<T> resultHandler = null, Action<Exception> exceptionHandler = null)
        {
            return new OnityCoroutine<T>(this, resultHandler, exceptionHandler);
        }
    }

    sealed class OnityCoroutine<T> : IEnumerator
    {
        OnityTask<T>.Awaiter typed;
        OnityTask.Awaiter untyped;
        readonly bool isTyped;
        readonly Action<T> resultHandler;
        readonly Action<Exception> exceptionHandler;
        readonly Action onCompleted;
        int state; // 0 not started, 1 waiting, 2 ended
        volatile bool completed;

        public OnityCoroutine(OnityTask task, Action<T> resultHandler, Action<Exception> exceptionHandler)
        {
            untyped = task.GetAwaiter();
            this.resultHandler = resultHandler;
            this.exceptionHandler = exceptionHandler;
            onCompleted = OnCompleted;
        }

        public OnityCoroutine(OnityTask<T> task, Action<T> resultHandler, Action<Exception> exceptionHandler)
        {
            typed = task.GetAwaiter();
            isTyped = true;
            this.resultHandler = resultHandler;
            this.exceptionHandler = exceptionHandler;
            onCompleted = OnCompleted;
        }

        void OnCompleted() { completed = true; }

        public object Current { get { return null; } }

        public bool MoveNext()
        {
            if (state == 2) return false;
            if (state == 0)
            {
                state = 1;
                bool done = isTyped ? typed.IsCompleted : untyped.IsCompleted;
                if (!done)
                {
                    // Registers the continuation: throws at once for a stale or awaited task.
                    try
                    {
                        if (isTyped) typed.UnsafeOnCompleted(onCompleted);
                        else untyped.UnsafeOnCompleted(onCompleted);
                    }
                    catch (Exception)
                    {
                        state = 2;
                        throw;
                    }
                    if (!completed) return true;
                }
            }
            else if (!completed)
            {
                return true;
            }
            state = 2;
            T result = default(T);
            try
            {
                if (isTyped) result = typed.GetResult();
                else untyped.GetResult();
            }
            catch (Exception ex)
            {
                if (exceptionHandler == null) throw;
                exceptionHandler(ex);
                return false;
            }
            if (resultHandler != null) resultHandler(result);
            return false;
        }

        public void Reset() { throw new NotSupportedException("Onity: a task's coroutine cannot be reset."); }
    }
}
