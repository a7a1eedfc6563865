using System;
using System.Collections;
using System.Runtime.ExceptionServices;

namespace Onity
{
    public partial struct OnityTask
    {
        /// <summary>The task as a coroutine (an <see cref="IEnumerator"/> that yields null until
        /// the task completes), for <c>StartCoroutine</c> and Unity Test Framework's
        /// <c>[UnityTest]</c>. The first <c>MoveNext</c> awaits the task, which is consumed as soon as
        /// it completes (also when the coroutine was stopped meanwhile); then the enumerator ends,
        /// or throws the task's exception (original stack trace; an
        /// <see cref="OperationCanceledException"/> when canceled) from <c>MoveNext</c>, or hands it
        /// to <paramref name="exceptionHandler"/> when one is given. A stale or already awaited
        /// task throws <see cref="InvalidOperationException"/> from the first <c>MoveNext</c>.
        /// Allocates the enumerator and a delegate.</summary>
        public IEnumerator ToCoroutine(Action<Exception> exceptionHandler = null)
        {
            return new OnityCoroutine<AsyncUnit>(this, null, exceptionHandler);
        }

        /// <summary><c>taskFactory().ToCoroutine()</c>, the form Unity Test Framework tests use:
        /// <c>[UnityTest] public IEnumerator Test() { return OnityTask.ToCoroutine(async () =&gt; { ... }); }</c>.</summary>
        public static IEnumerator ToCoroutine(Func<OnityTask> taskFactory)
        {
            if (taskFactory == null) throw new ArgumentNullException("taskFactory");
            return taskFactory().ToCoroutine();
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
        const byte Untyped = 0, Typed = 1, FrameWait = 2;
        OnityTask<T>.Awaiter typed;
        OnityTask.Awaiter untyped;
        OnityFrameWait wait;
        readonly byte kind;
        readonly Action<T> resultHandler;
        readonly Action<Exception> exceptionHandler;
        readonly Action onCompleted;
        int state; // 0 not started, 1 waiting, 2 ended
        volatile bool completed;
        T result;
        ExceptionDispatchInfo error;

        public OnityCoroutine(OnityTask task, Action<T> resultHandler, Action<Exception> exceptionHandler)
        {
            untyped = task.GetAwaiter();
            kind = Untyped;
            this.resultHandler = resultHandler;
            this.exceptionHandler = exceptionHandler;
            onCompleted = OnCompleted;
        }

        public OnityCoroutine(OnityTask<T> task, Action<T> resultHandler, Action<Exception> exceptionHandler)
        {
            typed = task.GetAwaiter();
            kind = Typed;
            this.resultHandler = resultHandler;
            this.exceptionHandler = exceptionHandler;
            onCompleted = OnCompleted;
        }

        /// <summary>A frame wait is polled (it is a description: no wait slot to release if the
        /// coroutine is stopped).</summary>
        public OnityCoroutine(OnityFrameWait wait, Action<Exception> exceptionHandler)
        {
            this.wait = wait;
            kind = FrameWait;
            this.exceptionHandler = exceptionHandler;
        }

        // The task is consumed as soon as it completes, by the continuation on the owner thread:
        // a coroutine that is stopped (StopCoroutine, a destroyed GameObject) leaves nothing behind.
        void OnCompleted()
        {
            Consume();
            completed = true;
        }

        void Consume()
        {
            try
            {
                if (kind == Typed) result = typed.GetResult();
                else if (kind == Untyped) untyped.GetResult();
                else wait.GetResult();
            }
            catch (Exception ex)
            {
                error = ExceptionDispatchInfo.Capture(ex);
            }
        }

        public object Current { get { return null; } }

        public bool MoveNext()
        {
            if (state == 2) return false;
            try
            {
                if (state == 0)
                {
                    state = 1;
                    if (kind == FrameWait)
                    {
                        if (!wait.IsCompleted) return true;
                        Consume();
                        completed = true;
                    }
                    else if (kind == Typed ? typed.IsCompleted : untyped.IsCompleted)
                    {
                        Consume();
                        completed = true;
                    }
                    else if (kind == Typed)
                    {
                        typed.UnsafeOnCompleted(onCompleted); // throws for a stale or awaited task
                    }
                    else
                    {
                        untyped.UnsafeOnCompleted(onCompleted);
                    }
                }
                else if (kind == FrameWait && !completed && wait.IsCompleted)
                {
                    Consume();
                    completed = true;
                }
            }
            catch (Exception)
            {
                state = 2;
                throw;
            }
            if (!completed) return true;
            state = 2;
            if (error != null)
            {
                if (exceptionHandler == null) error.Throw();
                exceptionHandler(error.SourceException);
                return false;
            }
            if (resultHandler != null) resultHandler(result);
            return false;
        }

        public void Reset() { throw new NotSupportedException("Onity: a task's coroutine cannot be reset."); }
    }
}
