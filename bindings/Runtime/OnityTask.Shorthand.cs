using System;
using System.Collections.Generic;
using System.Linq;

namespace Onity
{
    // UniTask's shorthands: WhenAll / WhenAny over any IEnumerable, `await tasks` for WhenAll, and
    // IEnumerable.Select to tasks (EnumerableAsyncExtensions). The sequence is read once, into an
    // array (as UniTask's); an array argument binds the params overloads instead.
    public partial struct OnityTask
    {
        public static OnityTask WhenAll(IEnumerable<OnityTask> tasks) { return WhenAll(ToArray(tasks)); }

        public static OnityTask<T[]> WhenAll<T>(IEnumerable<OnityTask<T>> tasks) { return WhenAll(ToArray(tasks)); }

        public static OnityTask<int> WhenAny(IEnumerable<OnityTask> tasks) { return WhenAny(ToArray(tasks)); }

        public static OnityTask<WhenAnyResult<T>> WhenAny<T>(IEnumerable<OnityTask<T>> tasks) { return WhenAny(ToArray(tasks)); }

        internal static TTask[] ToArray<TTask>(IEnumerable<TTask> tasks)
        {
            if (tasks == null) throw new ArgumentNullException("tasks");
            return tasks as TTask[] ?? tasks.ToArray();
        }
    }

    public static partial class OnityTaskExtensions
    {
        /// <summary><c>await tasks</c>: <see cref="OnityTask.WhenAll(OnityTask[])"/>.</summary>
        public static OnityTask.Awaiter GetAwaiter(this OnityTask[] tasks) { return OnityTask.WhenAll(tasks).GetAwaiter(); }

        public static OnityTask.Awaiter GetAwaiter(this IEnumerable<OnityTask> tasks) { return OnityTask.WhenAll(tasks).GetAwaiter(); }

        /// <summary><c>var results = await tasks</c>: <see cref="OnityTask.WhenAll{T}(OnityTask{T}[])"/>.</summary>
        public static OnityTask<T[]>.Awaiter GetAwaiter<T>(this OnityTask<T>[] tasks) { return OnityTask.WhenAll(tasks).GetAwaiter(); }

        public static OnityTask<T[]>.Awaiter GetAwaiter<T>(this IEnumerable<OnityTask<T>> tasks) { return OnityTask.WhenAll(tasks).GetAwaiter(); }
    }

    /// <summary>UniTask's EnumerableAsyncExtensions: <c>items.Select(x =&gt; LoadAsync(x))</c>
    /// gives a lazy sequence of started tasks, for <c>await OnityTask.WhenAll(...)</c>.</summary>
    public static class OnityEnumerableAsyncExtensions
    {
        public static IEnumerable<OnityTask> Select<T>(this IEnumerable<T> source, Func<T, OnityTask> selector)
        {
            return Enumerable.Select(source, selector);
        }

        public static IEnumerable<OnityTask<TR>> Select<T, TR>(this IEnumerable<T> source, Func<T, OnityTask<TR>> selector)
        {
            return Enumerable.Select(source, selector);
        }

        public static IEnumerable<OnityTask> Select<T>(this IEnumerable<T> source, Func<T, int, OnityTask> selector)
        {
            return Enumerable.Select(source, selector);
        }

        public static IEnumerable<OnityTask<TR>> Select<T, TR>(this IEnumerable<T> source, Func<T, int, OnityTask<TR>> selector)
        {
            return Enumerable.Select(source, selector);
        }
    }
}
