using System;
using System.Threading;

namespace Onity
{
    public partial struct OnityTask
    {
        /// <summary>An <see cref="AsyncLazy"/>: <paramref name="factory"/> runs once, at the first
        /// await of it (or read of <see cref="AsyncLazy.Task"/>).</summary>
        public static AsyncLazy Lazy(Func<OnityTask> factory) { return new AsyncLazy(factory); }

        /// <summary>An <see cref="AsyncLazy{T}"/>.</summary>
        public static AsyncLazy<T> Lazy<T>(Func<OnityTask<T>> factory) { return new AsyncLazy<T>(factory); }
    }

    /// <summary>An asynchronous initialisation run once, on first use, and awaitable any number of
    /// times by any number of awaiters (UniTask's <c>AsyncLazy</c>; keep it in a field). The factory's
    /// task is consumed into a plain completion source; its failure is every awaiter's failure.
    /// Allocates once (the source and a continuation); awaiting allocates nothing more (but a
    /// second concurrent awaiter's list entry).</summary>
    public class AsyncLazy
    {
        readonly AsyncLazy<AsyncUnit> inner;

        public AsyncLazy(Func<OnityTask> factory)
        {
            if (factory == null) throw new ArgumentNullException("factory");
            inner = new AsyncLazy<AsyncUnit>(() => AsUnit(factory));
        }

        static async OnityTask<AsyncUnit> AsUnit(Func<OnityTask> factory)
        {
            await factory();
            return default(AsyncUnit);
        }

        /// <summary>True once the factory has been started.</summary>
        public bool IsStarted { get { return inner.IsStarted; } }

        /// <summary>The initialisation (starts it on first read). Awaitable many times.</summary>
        public OnityTask Task { get { return inner.Task; } }

        public OnityTask.Awaiter GetAwaiter() { return Task.GetAwaiter(); }
    }

    /// <summary>As <see cref="AsyncLazy"/>, with a result.</summary>
    public class AsyncLazy<T>
    {
        readonly object gate = new object();
        Func<OnityTask<T>> factory;
        OnityCompletionSource<T> memo;

        public AsyncLazy(Func<OnityTask<T>> factory)
        {
            if (factory == null) throw new ArgumentNullException("factory");
            this.factory = factory;
        }

        public bool IsStarted { get { return Volatile.Read(ref memo) != null; } }

        /// <summary>The initialisation (starts it on first read). Awaitable many times.</summary>
        public OnityTask<T> Task
        {
            get
            {
                var m = Volatile.Read(ref memo);
                if (m == null) m = Start();
                return m.Task;
            }
        }

        public OnityTask<T>.Awaiter GetAwaiter() { return Task.GetAwaiter(); }

        OnityCompletionSource<T> Start()
        {
            Func<OnityTask<T>> f;
            OnityCompletionSource<T> m;
            lock (gate)
            {
                if (memo != null) return memo;
                f = factory;
                factory = null;
                m = new OnityCompletionSource<T>();
                Volatile.Write(ref memo, m);
            }
            // Outside the lock: the factory may complete synchronously and run continuations.
            OnityTask<T> task;
            try { task = f(); }
            catch (Exception ex)
            {
                m.TrySetException(ex);
                return m;
            }
            var aw = task.GetAwaiter();
            if (aw.IsCompleted) Copy(aw, m);
            else aw.UnsafeOnCompleted(() => Copy(aw, m));
            return m;
        }

        static void Copy(OnityTask<T>.Awaiter aw, OnityCompletionSource<T> m)
        {
            try { m.TrySetResult(aw.GetResult()); }
            catch (Exception ex) { m.TrySetException(ex); }
        }
    }
}
