using System;

namespace Onity
{
    public partial struct OnityTask
    {
        /// <summary>A task awaitable any number of times, by any number of awaiters, with the same
        /// outcome (UniTask's <c>Preserve</c>): this task is consumed once, into a plain
        /// <see cref="OnityCompletionSource"/>. Allocates the source and one continuation (keep the
        /// result in a field and await it where needed).</summary>
        public OnityTask Preserve()
        {
            if (source == null) return this;
            var memo = new OnityCompletionSource();
            var aw = GetAwaiter();
            if (aw.IsCompleted) Copy(aw, memo);
            else aw.UnsafeOnCompleted(() => Copy(aw, memo));
            return memo.Task;
        }

        static void Copy(Awaiter aw, OnityCompletionSource memo)
        {
            try
            {
                aw.GetResult();
                memo.TrySetResult();
            }
            catch (Exception ex) { memo.TrySetException(ex); }
        }
    }

    public partial struct OnityTask<T>
    {
        /// <summary>As <see cref="OnityTask.Preserve"/>, with the result.</summary>
        public OnityTask<T> Preserve()
        {
            if (source == null) return this;
            var memo = new OnityCompletionSource<T>();
            var aw = GetAwaiter();
            if (aw.IsCompleted) Copy(aw, memo);
            else aw.UnsafeOnCompleted(() => Copy(aw, memo));
            return memo.Task;
        }

        static void Copy(Awaiter aw, OnityCompletionSource<T> memo)
        {
            try { memo.TrySetResult(aw.GetResult()); }
            catch (Exception ex) { memo.TrySetException(ex); }
        }
    }
}
