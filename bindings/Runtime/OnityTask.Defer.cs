using System;

namespace Onity
{
    public partial struct OnityTask
    {
        /// <summary>A task that calls <paramref name="factory"/> only when it is first awaited (or
        /// its status read) and then is that task (UniTask's <c>Defer</c>). An exception the factory
        /// throws becomes the task's failure. Pooled: nothing allocated after warm-up but the
        /// caller's delegate. Await it once.</summary>
        public static OnityTask Defer(Func<OnityTask> factory)
        {
            if (factory == null) throw new ArgumentNullException("factory");
            return DeferSource<AsyncUnit>.Create(factory, null);
        }

        /// <summary>As <see cref="Defer(Func{OnityTask})"/>, with the result.</summary>
        public static OnityTask<T> Defer<T>(Func<OnityTask<T>> factory)
        {
            if (factory == null) throw new ArgumentNullException("factory");
            return DeferSource<T>.Create(null, factory);
        }
    }

    internal sealed class DeferSource<T> : IOnityTaskSource<T>
    {
        static readonly OnityObjectPool<DeferSource<T>> pool = new OnityObjectPool<DeferSource<T>>(256);
        Func<OnityTask> untypedFactory;
        Func<OnityTask<T>> typedFactory;
        OnityTask untyped;
        OnityTask<T> typed;
        bool started;
        uint version = 1;

        internal static OnityTask<T> Create(Func<OnityTask> untypedFactory, Func<OnityTask<T>> typedFactory)
        {
            var s = pool.TryRent() ?? new DeferSource<T>();
            s.untypedFactory = untypedFactory;
            s.typedFactory = typedFactory;
            return new OnityTask<T>(s, s.version);
        }

        void Start(long token)
        {
            if ((uint)token != version) throw OnityErrors.Stale();
            if (started) return;
            started = true;
            try
            {
                if (typedFactory != null) typed = typedFactory();
                else untyped = untypedFactory();
            }
            catch (Exception ex)
            {
                if (typedFactory != null) typed = OnityTask.FromException<T>(ex);
                else untyped = OnityTask.FromException(ex);
            }
            untypedFactory = null;
            typedFactory = null;
        }

        public OnityTaskStatus GetStatus(long token)
        {
            Start(token);
            return typed.source != null ? typed.Status : untyped.Status;
        }

        public void OnCompleted(Action continuation, long token)
        {
            Start(token);
            if (typed.source != null) typed.GetAwaiter().UnsafeOnCompleted(continuation);
            else untyped.GetAwaiter().UnsafeOnCompleted(continuation);
        }

        void IOnityTaskSource.GetResult(long token) { GetResult(token); }

        public T GetResult(long token)
        {
            Start(token);
            if (GetStatus(token) == OnityTaskStatus.Pending) throw OnityErrors.Pending();
            try
            {
                if (typed.source != null) return typed.GetAwaiter().GetResult();
                untyped.GetAwaiter().GetResult();
                return typed.result; // a typed factory's completed task (no source) keeps its result here
            }
            finally
            {
                unchecked { version++; }
                if (version == 0) version = 1;
                started = false;
                typed = default(OnityTask<T>);
                untyped = default(OnityTask);
                pool.Return(this);
            }
        }
    }
}
