using System;
using System.Runtime.CompilerServices;
using System.Runtime.ExceptionServices;
using System.Threading;

namespace Onity
{
    /// <summary>A lightweight awaitable: a source and a token, like UniTask. A null source means
    /// "already completed successfully" (the allocation-free path). Await it once.</summary>
    [AsyncMethodBuilder(typeof(CompilerServices.OnityTaskMethodBuilder))]
    public readonly partial struct OnityTask
    {
        internal readonly IOnityTaskSource source;
        internal readonly long token;

        [MethodImpl(MethodImplOptions.AggressiveInlining)] // > Mono's 20-byte inline limit otherwise
        public OnityTask(IOnityTaskSource source, long token)
        {
            this.source = source;
            this.token = token;
        }

        public static OnityTask CompletedTask { get { return default(OnityTask); } }

        public OnityTaskStatus Status
        {
            get { return source == null ? OnityTaskStatus.Succeeded : source.GetStatus(token); }
        }

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public Awaiter GetAwaiter() { return new Awaiter(this); }

        public static OnityTask<T> FromResult<T>(T value) { return new OnityTask<T>(value); }

        public static OnityTask FromException(Exception ex)
        {
            if (ex is OperationCanceledException) return FromCanceled(((OperationCanceledException)ex).CancellationToken);
            return new OnityTask(new ExceptionSource<AsyncUnit>(ExceptionDispatchInfo.Capture(ex), false), 0);
        }

        public static OnityTask<T> FromException<T>(Exception ex)
        {
            if (ex is OperationCanceledException) return FromCanceled<T>(((OperationCanceledException)ex).CancellationToken);
            return new OnityTask<T>(new ExceptionSource<T>(ExceptionDispatchInfo.Capture(ex), false), 0);
        }

        public static OnityTask FromCanceled(CancellationToken token = default(CancellationToken))
        {
            return new OnityTask(new ExceptionSource<AsyncUnit>(ExceptionDispatchInfo.Capture(new OperationCanceledException(token)), true), 0);
        }

        public static OnityTask<T> FromCanceled<T>(CancellationToken token = default(CancellationToken))
        {
            return new OnityTask<T>(new ExceptionSource<T>(ExceptionDispatchInfo.Capture(new OperationCanceledException(token)), true), 0);
        }

        /// <summary>Raised for exceptions nobody observes: faults of forgotten tasks
        /// (<see cref="Forget"/>), exceptions thrown by continuations while the runtime ticks, and
        /// faults of tasks dropped without being awaited or forgotten, once the collector reclaims
        /// them (raised then on the owner thread at its next BeginFrame/Tick/Drain).
        /// Cancellations are never reported. Without a handler they are written to stderr.</summary>
        public static event Action<Exception> UnobservedTaskException;

        /// <summary>When true, cancellations of forgotten tasks (<see cref="Forget"/>,
        /// <c>async OnityTaskVoid</c>) go to <see cref="UnobservedTaskException"/> too (UniTask's
        /// UniTaskScheduler.PropagateOperationCanceledException; default false).</summary>
        public static bool PropagateOperationCanceledException;

        internal static void PublishUnobserved(Exception ex)
        {
            var h = UnobservedTaskException;
            if (h != null)
            {
                try { h(ex); } catch (Exception) { }
            }
            else
            {
                Console.Error.WriteLine("Onity: unobserved exception: " + ex);
            }
        }

        /// <summary>Fire and forget: observes the task's outcome and sends a failure (other than
        /// cancellation) to <see cref="UnobservedTaskException"/>.</summary>
        public void Forget()
        {
            var aw = GetAwaiter();
            if (aw.IsCompleted)
            {
                try { aw.GetResult(); }
                catch (OperationCanceledException ex) { if (PropagateOperationCanceledException) PublishUnobserved(ex); }
                catch (Exception ex) { PublishUnobserved(ex); }
            }
            else
            {
                var f = ForgetObserver.Rent(this);
                aw.UnsafeOnCompleted(f.callback);
            }
        }

        public override string ToString()
        {
            return source == null ? "Succeeded" : "(" + source.GetType().Name + ", " + token + ")";
        }

        public struct Awaiter : ICriticalNotifyCompletion
        {
            OnityTask task; // not readonly: mcs copies a readonly struct field per member access

            [MethodImpl(MethodImplOptions.AggressiveInlining)]
            public Awaiter(OnityTask task) { this.task = task; }

            // Frame waits (the hot path) are sourced by the sealed OnityRuntime: a type check and
            // direct calls avoid Mono's interface dispatch.
            public bool IsCompleted
            {
                [MethodImpl(MethodImplOptions.AggressiveInlining)]
                get
                {
                    var s = task.source;
                    if (s == null) return true;
                    var r = s as OnityRuntime;
                    // Pending or stale: false (a stale token then throws from OnCompleted).
                    if (r != null) return r.IsCompletedFast(task.token);
                    return s.GetStatus(task.token) != OnityTaskStatus.Pending;
                }
            }

            [MethodImpl(MethodImplOptions.AggressiveInlining)]
            public void GetResult()
            {
                var s = task.source;
                if (s == null) return;
                var r = s as OnityRuntime;
                if (r != null) r.GetResult(task.token);
                else s.GetResult(task.token);
            }

            public void OnCompleted(Action continuation) { UnsafeOnCompleted(continuation); }

            /// <summary>Runs <paramref name="continuation"/>(<paramref name="state"/>) when the task
            /// completes (UniTask's SourceOnCompleted): no closure; the pair rides a pooled box.</summary>
            public void SourceOnCompleted(Action<object> continuation, object state)
            {
                UnsafeOnCompleted(OnityStateContinuation.Rent(continuation, state));
            }

            [MethodImpl(MethodImplOptions.AggressiveInlining)]
            public void UnsafeOnCompleted(Action continuation)
            {
                var s = task.source;
                if (s == null) { continuation(); return; }
                var r = s as OnityRuntime;
                if (r != null) r.OnCompleted(continuation, task.token);
                else s.OnCompleted(continuation, task.token);
            }
        }
    }

    /// <summary>A lightweight awaitable with a result. Await it once.</summary>
    [AsyncMethodBuilder(typeof(CompilerServices.OnityTaskMethodBuilder<>))]
    public readonly partial struct OnityTask<T>
    {
        internal readonly IOnityTaskSource<T> source;
        internal readonly T result;
        internal readonly long token;

        [MethodImpl(MethodImplOptions.AggressiveInlining)] // > Mono's 20-byte inline limit otherwise
        public OnityTask(T result)
        {
            this.source = null;
            this.result = result;
            this.token = 0;
        }

        [MethodImpl(MethodImplOptions.AggressiveInlining)] // > Mono's 20-byte inline limit otherwise
        public OnityTask(IOnityTaskSource<T> source, long token)
        {
            // Whole-word zeroing first, not `result = default(T)`: Mono copies the struct word by
            // word right after, and a word read back over a narrower store (an int result) stalls
            // store-to-load forwarding (measured: ~6 ns per await of a pooled source).
            this = default(OnityTask<T>);
            this.source = source;
            this.token = token;
        }

        public OnityTaskStatus Status
        {
            get { return source == null ? OnityTaskStatus.Succeeded : source.GetStatus(token); }
        }

        // Not `new Awaiter(this)`: without a JIT this runs as code shared over T, where a call to
        // the constructor is not inlined (docs/full-aot.md).
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public Awaiter GetAwaiter() { Awaiter a; a.task = this; return a; }

        /// <summary>The untyped task (same source and token).</summary>
        public OnityTask AsOnityTask()
        {
            return source == null ? OnityTask.CompletedTask : new OnityTask(source, token);
        }

        public static implicit operator OnityTask(OnityTask<T> t) { return t.AsOnityTask(); }

        public void Forget() { AsOnityTask().Forget(); }

        public override string ToString()
        {
            return source == null ? "Succeeded(" + result + ")" : "(" + source.GetType().Name + ", " + token + ")";
        }

        public struct Awaiter : ICriticalNotifyCompletion
        {
            internal OnityTask<T> task; // not readonly: mcs copies a readonly struct field per member access

            [MethodImpl(MethodImplOptions.AggressiveInlining)]
            public Awaiter(OnityTask<T> task) { this.task = task; }

            public bool IsCompleted
            {
                [MethodImpl(MethodImplOptions.AggressiveInlining)]
                get { return task.source == null || task.source.GetStatus(task.token) != OnityTaskStatus.Pending; }
            }

            [MethodImpl(MethodImplOptions.AggressiveInlining)]
            public T GetResult()
            {
                return task.source == null ? task.result : task.source.GetResult(task.token);
            }

            public void OnCompleted(Action continuation) { UnsafeOnCompleted(continuation); }

            /// <summary>Runs <paramref name="continuation"/>(<paramref name="state"/>) when the task
            /// completes (UniTask's SourceOnCompleted): no closure; the pair rides a pooled box.</summary>
            public void SourceOnCompleted(Action<object> continuation, object state)
            {
                UnsafeOnCompleted(OnityStateContinuation.Rent(continuation, state));
            }

            [MethodImpl(MethodImplOptions.AggressiveInlining)]
            public void UnsafeOnCompleted(Action continuation)
            {
                if (task.source == null) continuation();
                else task.source.OnCompleted(continuation, task.token);
            }
        }
    }

    /// <summary>The result type of untyped sources.</summary>
    public struct AsyncUnit : IEquatable<AsyncUnit>
    {
        public static readonly AsyncUnit Default = default(AsyncUnit);

        public override int GetHashCode() { return 0; }
        public bool Equals(AsyncUnit other) { return true; }
        public override bool Equals(object obj) { return obj is AsyncUnit; }
        public override string ToString() { return "()"; }
    }

    /// <summary>An already faulted or canceled task (not pooled: failures are the slow path).</summary>
    internal sealed class ExceptionSource<T> : IOnityTaskSource<T>
    {
        readonly ExceptionDispatchInfo error;
        readonly bool canceled;
        int observed;

        public ExceptionSource(ExceptionDispatchInfo error, bool canceled)
        {
            this.error = error;
            this.canceled = canceled;
            if (canceled) GC.SuppressFinalize(this);
        }

        // A fault nobody observed (FromException, an async method that threw before suspending).
        ~ExceptionSource()
        {
            if (Volatile.Read(ref observed) == 0) OnityUnobserved.ReportCollected(error.SourceException);
        }

        public OnityTaskStatus GetStatus(long token) { return canceled ? OnityTaskStatus.Canceled : OnityTaskStatus.Faulted; }
        public void OnCompleted(Action continuation, long token) { continuation(); }
        void IOnityTaskSource.GetResult(long token) { GetResult(token); }

        public T GetResult(long token)
        {
            if (Interlocked.Exchange(ref observed, 1) == 0 && !canceled) GC.SuppressFinalize(this);
            error.Throw();
            return default(T);
        }
    }

    /// <summary>A continuation with its state, pooled (Awaiter.SourceOnCompleted: an
    /// Action&lt;object&gt;; OnitySynchronizationContext.Post: a SendOrPostCallback).</summary>
    internal sealed class OnityStateContinuation
    {
        static readonly OnityObjectPool<OnityStateContinuation> pool = new OnityObjectPool<OnityStateContinuation>(1024);
        readonly Action run;
        Delegate callback;
        object state;

        OnityStateContinuation() { run = Run; }

        internal static Action Rent(Action<object> continuation, object state)
        {
            if (continuation == null) throw new ArgumentNullException("continuation");
            return Rent((Delegate)continuation, state);
        }

        internal static Action Rent(SendOrPostCallback post, object state)
        {
            if (post == null) throw new ArgumentNullException("d");
            return Rent((Delegate)post, state);
        }

        static Action Rent(Delegate callback, object state)
        {
            var c = pool.TryRent() ?? new OnityStateContinuation();
            c.callback = callback;
            c.state = state;
            return c.run;
        }

        void Run()
        {
            var d = callback;
            var s = state;
            callback = null;
            state = null;
            pool.Return(this);
            var k = d as Action<object>;
            if (k != null) k(s);
            else ((SendOrPostCallback)d)(s);
        }
    }

    /// <summary>Observes a forgotten task (pooled).</summary>
    internal sealed class ForgetObserver
    {
        static readonly OnityObjectPool<ForgetObserver> pool = new OnityObjectPool<ForgetObserver>(256);
        OnityTask task;
        internal readonly Action callback;

        ForgetObserver() { callback = Run; }

        internal static ForgetObserver Rent(OnityTask t)
        {
            var f = pool.TryRent() ?? new ForgetObserver();
            f.task = t;
            return f;
        }

        void Run()
        {
            var t = task;
            task = default(OnityTask);
            pool.Return(this);
            try { t.GetAwaiter().GetResult(); }
            catch (OperationCanceledException ex) { if (OnityTask.PropagateOperationCanceledException) OnityTask.PublishUnobserved(ex); }
            catch (Exception ex) { OnityTask.PublishUnobserved(ex); }
        }
    }
}
