using System;
using System.Collections.Generic;
using System.Threading;
using Onity.Linq;

namespace Onity
{
    public partial struct OnityTask
    {
        /// <summary>The tasks' outcomes as a stream, in completion order (UniTask's <c>WhenEach</c>):
        /// each element holds the result or the exception (a canceled task's
        /// <see cref="OperationCanceledException"/>); the stream ends after the last task. Every task is
        /// awaited once, by the first enumeration (enumerate once). The token cancels a waiting
        /// <c>MoveNextAsync</c> at once (as UniTask's). Allocates the stream per call; its enumerator and watchers are pooled.</summary>
        public static IOnityAsyncEnumerable<WhenEachResult<T>> WhenEach<T>(params OnityTask<T>[] tasks)
        {
            if (tasks == null) throw new ArgumentNullException("tasks");
            return new WhenEachStream<T>(tasks);
        }

        /// <summary>As <see cref="WhenEach{T}(OnityTask{T}[])"/> (copies the sequence into an array).</summary>
        public static IOnityAsyncEnumerable<WhenEachResult<T>> WhenEach<T>(IEnumerable<OnityTask<T>> tasks)
        {
            if (tasks == null) throw new ArgumentNullException("tasks");
            return new WhenEachStream<T>(new List<OnityTask<T>>(tasks).ToArray());
        }
    }

    /// <summary>One outcome of <see cref="OnityTask.WhenEach{T}(OnityTask{T}[])"/>: a result or an exception.</summary>
    public readonly struct WhenEachResult<T>
    {
        public T Result { get; }
        public Exception Exception { get; }
        public bool IsCompletedSuccessfully { get { return Exception == null; } }
        public bool IsFaulted { get { return Exception != null; } }

        public WhenEachResult(T result)
        {
            Result = result;
            Exception = null;
        }

        public WhenEachResult(Exception exception)
        {
            if (exception == null) throw new ArgumentNullException("exception");
            Result = default(T);
            Exception = exception;
        }

        /// <summary>Throws the exception, if any.</summary>
        public void TryThrow()
        {
            if (Exception != null) System.Runtime.ExceptionServices.ExceptionDispatchInfo.Capture(Exception).Throw();
        }

        /// <summary>The result, or throws the exception.</summary>
        public T GetResult()
        {
            TryThrow();
            return Result;
        }

        public override string ToString()
        {
            return Exception != null ? "Exception{" + Exception.Message + "}" : "Result{" + Result + "}";
        }
    }

    internal sealed class WhenEachStream<T> : IOnityAsyncEnumerable<WhenEachResult<T>>
    {
        readonly OnityTask<T>[] tasks;
        int started;

        internal WhenEachStream(OnityTask<T>[] tasks) { this.tasks = tasks; }

        public IOnityAsyncEnumerator<WhenEachResult<T>> GetAsyncEnumerator(CancellationToken cancellationToken = default(CancellationToken))
        {
            if (Interlocked.Exchange(ref started, 1) != 0)
                throw new InvalidOperationException("Onity: a WhenEach stream is enumerated once (its tasks are awaited by that enumeration).");
            return WhenEachEnumerator<T>.Rent(tasks, cancellationToken);
        }
    }

    /// <summary>WhenEach's enumerator: a watcher per task queues its outcome; MoveNextAsync takes
    /// the next one or waits for it. Recycled once disposed and every watcher has fired.</summary>
    internal sealed class WhenEachEnumerator<T> : OnityAsyncEnumeratorBase<WhenEachResult<T>>
    {
        static readonly OnityObjectPool<WhenEachEnumerator<T>> pool = new OnityObjectPool<WhenEachEnumerator<T>>(32);

        sealed class Watcher
        {
            internal WhenEachEnumerator<T> owner;
            internal OnityTask<T> task;
            internal readonly Action callback;
            internal Watcher() { callback = Run; }
            void Run() { owner.OnTask(this); }
        }

        readonly object gate = new object();
        Watcher[] watchers = new Watcher[0];
        WhenEachResult<T>[] queue = new WhenEachResult<T>[0];
        int head, count;     // under gate: the queued outcomes
        int yielded, total;  // consumer side: outcomes given; tasks
        int references;      // watchers not fired + 1 for the consumer
        bool waiting;        // under gate: a MoveNext waits for an outcome
        CancellationTokenRegistration registration; // the token cancels a waiting MoveNext (UniTask's)
        static readonly Action<object> onCanceled = s => ((WhenEachEnumerator<T>)s).OnCanceled();

        internal static WhenEachEnumerator<T> Rent(OnityTask<T>[] tasks, CancellationToken ct)
        {
            var e = pool.TryRent() ?? new WhenEachEnumerator<T>();
            int n = tasks.Length;
            if (e.watchers.Length < n)
            {
                var w = new Watcher[n];
                Array.Copy(e.watchers, w, e.watchers.Length);
                for (int i = e.watchers.Length; i < n; i++) w[i] = new Watcher { owner = e };
                e.watchers = w;
                e.queue = new WhenEachResult<T>[n];
            }
            e.head = e.count = e.yielded = 0;
            e.total = n;
            e.references = n + 1;
            e.waiting = false;
            e.Begin(ct);
            if (ct.CanBeCanceled) e.registration = ct.Register(onCanceled, e);
            for (int i = 0; i < n; i++)
            {
                var w = e.watchers[i];
                w.task = tasks[i];
                TupleInputs.Watch(tasks[i], w.callback);
            }
            return e;
        }

        void OnTask(Watcher w)
        {
            T value;
            var error = TupleInputs.Take(ref w.task, out value);
            var outcome = error == null ? new WhenEachResult<T>(value) : new WhenEachResult<T>(error);
            bool deliver;
            lock (gate)
            {
                deliver = waiting;
                waiting = false;
                if (!deliver) queue[(head + count++) % queue.Length] = outcome;
            }
            if (deliver)
            {
                yielded++;
                Yield(outcome);
            }
            Release();
        }

        protected override void MoveNextCore()
        {
            if (yielded == total)
            {
                Finish();
                return;
            }
            WhenEachResult<T> next;
            lock (gate)
            {
                if (count == 0)
                {
                    waiting = true;
                    return;
                }
                next = queue[head];
                queue[head] = default(WhenEachResult<T>);
                head = (head + 1) % queue.Length;
                count--;
            }
            yielded++;
            Yield(next);
        }

        void OnCanceled()
        {
            lock (gate)
            {
                if (!waiting) return;
                waiting = false;
            }
            Cancel();
        }

        protected override OnityTask OnDispose()
        {
            registration.Dispose();
            registration = default(CancellationTokenRegistration);
            bool wasWaiting;
            lock (gate)
            {
                wasWaiting = waiting;
                waiting = false;
            }
            if (wasWaiting) Finish(); // a waiting MoveNext ends with false
            return OnityTask.CompletedTask;
        }

        protected override void ReturnToPool() { Release(); }

        void Release()
        {
            if (Interlocked.Decrement(ref references) != 0) return;
            lock (gate)
            {
                for (int i = 0; i < count; i++) queue[(head + i) % queue.Length] = default(WhenEachResult<T>);
                head = count = 0;
            }
            pool.Return(this);
        }
    }
}
