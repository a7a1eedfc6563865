using System;
using System.Threading;
using Onity.Linq;

namespace Onity
{
    public static partial class OnityAsyncEnumerable
    {
        // Consumers: async OnityTask methods (pooled runners), each enumerating once and disposing
        // the enumerator in a finally, as `await foreach` does. ForEachAsync runs its action as the
        // last stage of the source's chain instead (Linq/OnityFusedForEach.cs: no state machine
        // per element), unless the caller has an ExecutionContext to flow (AsyncLocal values, with
        // OnityContextFlow on): then the async method, whose continuations restore it. Arguments
        // are checked at the call.

        static bool FlowsContext() { return OnityContextFlow.Enabled && OnityContextFlow.Capture() != null; }

        /// <summary>Runs <paramref name="action"/> for each element, in order, as it arrives; completes
        /// when the stream ends, faults with the stream's or the action's exception, and is canceled
        /// by <paramref name="cancellationToken"/> (given to GetAsyncEnumerator). C# 7.2's form of
        /// <c>await foreach</c>.</summary>
        public static OnityTask ForEachAsync<T>(this IOnityAsyncEnumerable<T> source, Action<T> action, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (source == null) throw new ArgumentNullException("source");
            if (action == null) throw new ArgumentNullException("action");
            if (FlowsContext()) return ForEachCore(source, action, cancellationToken);
            return FusedForEach<T>.Start(source, action, null, cancellationToken);
        }

        /// <summary>As <see cref="ForEachAsync{T}(IOnityAsyncEnumerable{T}, Action{T}, CancellationToken)"/>,
        /// with the element's index.</summary>
        public static OnityTask ForEachAsync<T>(this IOnityAsyncEnumerable<T> source, Action<T, int> action, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (source == null) throw new ArgumentNullException("source");
            if (action == null) throw new ArgumentNullException("action");
            if (FlowsContext()) return ForEachIndexCore(source, action, cancellationToken);
            return FusedForEach<T>.Start(source, null, action, cancellationToken);
        }

        /// <summary>Awaits <paramref name="action"/> for each element before asking for the next one.</summary>
        public static OnityTask ForEachAwaitAsync<T>(this IOnityAsyncEnumerable<T> source, Func<T, OnityTask> action, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (source == null) throw new ArgumentNullException("source");
            if (action == null) throw new ArgumentNullException("action");
            return ForEachAwaitCore(source, action, cancellationToken);
        }

        /// <summary>As ForEachAwaitAsync, handing <paramref name="cancellationToken"/> to the action.</summary>
        public static OnityTask ForEachAwaitAsync<T>(this IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask> action, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (source == null) throw new ArgumentNullException("source");
            if (action == null) throw new ArgumentNullException("action");
            return ForEachAwaitTokenCore(source, action, cancellationToken);
        }

        /// <summary>Every element until the stream ends, as a new array (the only allocation after
        /// warm-up: elements are gathered in a pooled buffer).</summary>
        public static OnityTask<T[]> ToArrayAsync<T>(this IOnityAsyncEnumerable<T> source, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (source == null) throw new ArgumentNullException("source");
            return ToArrayCore(source, cancellationToken);
        }

        static async OnityTask ForEachCore<T>(IOnityAsyncEnumerable<T> source, Action<T> action, CancellationToken ct)
        {
            var e = source.GetAsyncEnumerator(ct);
            try
            {
                while (await e.MoveNextAsync()) action(e.Current);
            }
            finally
            {
                await e.DisposeAsync();
            }
        }

        static async OnityTask ForEachIndexCore<T>(IOnityAsyncEnumerable<T> source, Action<T, int> action, CancellationToken ct)
        {
            var e = source.GetAsyncEnumerator(ct);
            try
            {
                int i = 0;
                while (await e.MoveNextAsync()) action(e.Current, checked(i++));
            }
            finally
            {
                await e.DisposeAsync();
            }
        }

        static async OnityTask ForEachAwaitCore<T>(IOnityAsyncEnumerable<T> source, Func<T, OnityTask> action, CancellationToken ct)
        {
            var e = source.GetAsyncEnumerator(ct);
            try
            {
                while (await e.MoveNextAsync()) await action(e.Current);
            }
            finally
            {
                await e.DisposeAsync();
            }
        }

        static async OnityTask ForEachAwaitTokenCore<T>(IOnityAsyncEnumerable<T> source, Func<T, CancellationToken, OnityTask> action, CancellationToken ct)
        {
            var e = source.GetAsyncEnumerator(ct);
            try
            {
                while (await e.MoveNextAsync()) await action(e.Current, ct);
            }
            finally
            {
                await e.DisposeAsync();
            }
        }

        static async OnityTask<T> FirstCore<T>(IOnityAsyncEnumerable<T> source, Func<T, bool> predicate, bool throwIfNone, CancellationToken ct)
        {
            var e = source.GetAsyncEnumerator(ct);
            bool found = false;
            T value = default(T);
            try
            {
                while (await e.MoveNextAsync())
                {
                    var v = e.Current;
                    if (predicate == null || predicate(v))
                    {
                        value = v;
                        found = true;
                        break;
                    }
                }
            }
            finally
            {
                await e.DisposeAsync();
            }
            if (!found && throwIfNone)
                throw new InvalidOperationException(predicate == null ? "Onity: the stream ended without an element." : "Onity: the stream ended without an element matching the predicate.");
            return value;
        }

        /// <summary>Takes the elements given synchronously in a plain loop (no await per element),
        /// then hands the first pending, ending or failed MoveNextAsync to the async part.</summary>
        static OnityTask<T[]> ToArrayCore<T>(IOnityAsyncEnumerable<T> source, CancellationToken ct)
        {
            var buffer = ArrayBuffer<T>.Rent();
            IOnityAsyncEnumerator<T> e;
            try { e = source.GetAsyncEnumerator(ct); }
            catch (Exception ex)
            {
                ArrayBuffer<T>.Return(buffer);
                return OnityTask.FromException<T[]>(ex);
            }
            OnityTask<bool> next;
            var b = e as OnityAsyncEnumeratorBase<T>;
            if (b != null)
            {
                // This package's enumerators: no task per synchronous element.
                int r;
                try
                {
                    while ((r = b.TryMoveNextSync()) == OnityAsyncEnumeratorBase<T>.SyncElement) buffer.Add(b.Current);
                }
                catch (Exception ex)
                {
                    return ToArrayRest(buffer, e, OnityTask.FromException<bool>(ex));
                }
                if (r == OnityAsyncEnumeratorBase<T>.SyncEnd) return ToArrayRest(buffer, e, new OnityTask<bool>(false));
                if (r == OnityAsyncEnumeratorBase<T>.SyncPending) return ToArrayRest(buffer, e, b.PendingTask());
            }
            while (true)
            {
                try { next = e.MoveNextAsync(); }
                catch (Exception ex)
                {
                    next = OnityTask.FromException<bool>(ex);
                    break;
                }
                if (next.source != null || !next.result) break;
                buffer.Add(e.Current);
            }
            return ToArrayRest(buffer, e, next);
        }

        static async OnityTask<T[]> ToArrayRest<T>(ArrayBuffer<T> buffer, IOnityAsyncEnumerator<T> e, OnityTask<bool> next)
        {
            try
            {
                try
                {
                    while (await next)
                    {
                        buffer.Add(e.Current);
                        next = e.MoveNextAsync();
                    }
                }
                finally
                {
                    await e.DisposeAsync();
                }
                return buffer.ToArray();
            }
            finally
            {
                ArrayBuffer<T>.Return(buffer);
            }
        }

        /// <summary>A growable buffer of ToArrayAsync (pooled, so only the result is allocated).</summary>
        sealed class ArrayBuffer<T>
        {
            static readonly OnityObjectPool<ArrayBuffer<T>> pool = new OnityObjectPool<ArrayBuffer<T>>(16);
            T[] items = new T[16];
            int count;

            internal static ArrayBuffer<T> Rent() { return pool.TryRent() ?? new ArrayBuffer<T>(); }

            internal static void Return(ArrayBuffer<T> b)
            {
                Array.Clear(b.items, 0, b.count);
                b.count = 0;
                if (b.items.Length <= 4096) pool.Return(b); // a huge one goes to the collector
            }

            internal void Add(T item)
            {
                if (count == items.Length) Array.Resize(ref items, count * 2);
                items[count++] = item;
            }

            internal T[] ToArray()
            {
                if (count == 0) return EmptyArray<T>.Value;
                var r = new T[count];
                Array.Copy(items, r, count);
                return r;
            }
        }

        static class EmptyArray<T>
        {
            internal static readonly T[] Value = new T[0];
        }
    }
}
