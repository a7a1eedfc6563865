using System;
using System.Collections.Generic;
using System.Threading;

namespace Onity
{
    internal interface IOnityPoolSize
    {
        int Idle { get; }
    }

    /// <summary>Settings and sizes of the package's object pools (UniTask's TaskPool).</summary>
    public static class OnityTaskPool
    {
        internal static volatile int maxPoolSize = int.MaxValue;
        // Made on first use and locked on the type: pools register from their own static
        // initializers, which may run before this class's. Weak references: a registration never
        // keeps a pool alive. Its content depends only on which pools exist (lazily initialised
        // statics), so it is state that needs no reset at a Play Mode entry without domain reload.
        sealed class Registry
        {
            internal readonly List<KeyValuePair<Type, WeakReference>> pools = new List<KeyValuePair<Type, WeakReference>>();
            internal readonly List<KeyValuePair<Type, Func<int>>> getters = new List<KeyValuePair<Type, Func<int>>>();
        }

        static Registry registry;

        static Registry Get()
        {
            if (registry == null) registry = new Registry();
            return registry;
        }

        /// <summary>The most idle objects any one pool keeps from now on (default
        /// <see cref="int.MaxValue"/>: each pool's own capacity); returns beyond it are dropped.
        /// Pools already holding more keep them until rented. Throws
        /// <see cref="ArgumentOutOfRangeException"/> when negative.</summary>
        public static void SetMaxPoolSize(int maxPoolSize)
        {
            if (maxPoolSize < 0) throw new ArgumentOutOfRangeException("maxPoolSize", "Onity: the pool size must be >= 0.");
            OnityTaskPool.maxPoolSize = maxPoolSize;
        }

        /// <summary>The current limit (<see cref="SetMaxPoolSize"/>).</summary>
        public static int MaxPoolSize { get { return maxPoolSize; } }

        /// <summary>Each pool's pooled type and idle count (the package's pools, then the getters
        /// of <see cref="RegisterSizeGetter"/>). A snapshot: allocates the list.</summary>
        public static IEnumerable<(Type, int)> GetCacheSizeInfo()
        {
            var result = new List<(Type, int)>();
            lock (typeof(OnityTaskPool))
            {
                var r = Get();
                foreach (var p in r.pools)
                {
                    var pool = p.Value.Target as IOnityPoolSize;
                    if (pool != null) result.Add((p.Key, pool.Idle));
                }
                foreach (var g in r.getters) result.Add((g.Key, g.Value()));
            }
            return result;
        }

        /// <summary>Adds a pool of your own to <see cref="GetCacheSizeInfo"/>.</summary>
        public static void RegisterSizeGetter(Type type, Func<int> getSize)
        {
            if (type == null) throw new ArgumentNullException("type");
            if (getSize == null) throw new ArgumentNullException("getSize");
            lock (typeof(OnityTaskPool)) Get().getters.Add(new KeyValuePair<Type, Func<int>>(type, getSize));
        }

        internal static void Register(Type type, IOnityPoolSize pool)
        {
            lock (typeof(OnityTaskPool))
            {
                var r = Get();
                r.pools.RemoveAll(p => !p.Value.IsAlive);
                r.pools.Add(new KeyValuePair<Type, WeakReference>(type, new WeakReference(pool)));
            }
        }
    }

    /// <summary>A node of an <see cref="OnityTaskPool{T}"/> (UniTask's ITaskPoolNode): the
    /// object's own link field, so pooling it allocates nothing.</summary>
    public interface IOnityTaskPoolNode<T>
    {
        ref T NextNode { get; }
    }

    /// <summary>An intrusive pool for your own task sources (UniTask's TaskPool&lt;T&gt;): a
    /// linked stack through each object's <see cref="IOnityTaskPoolNode{T}.NextNode"/>, guarded
    /// by a try-lock (under contention TryPop finds nothing and TryPush drops), bounded by
    /// <see cref="OnityTaskPool.SetMaxPoolSize"/>. Use it as a static field.</summary>
    public struct OnityTaskPool<T> where T : class, IOnityTaskPoolNode<T>
    {
        int gate;
        int size;
        T root;

        public int Size { get { return size; } }

        public bool TryPop(out T result)
        {
            if (Interlocked.CompareExchange(ref gate, 1, 0) == 0)
            {
                var v = root;
                if (v != null)
                {
                    // Through the interface, not a constrained call on T: Mono's full AOT cannot compile
                    // the latter in its any-value-type (gsharedvt) form (docs/full-aot.md).
                    ref var next = ref ((IOnityTaskPoolNode<T>)v).NextNode;
                    root = next;
                    next = null;
                    size--;
                    result = v;
                    Volatile.Write(ref gate, 0);
                    return true;
                }
                Volatile.Write(ref gate, 0);
            }
            result = default(T);
            return false;
        }

        public bool TryPush(T item)
        {
            if (item == null) throw new ArgumentNullException("item");
            if (Interlocked.CompareExchange(ref gate, 1, 0) == 0)
            {
                if (size < OnityTaskPool.maxPoolSize)
                {
                    ((IOnityTaskPoolNode<T>)item).NextNode = root;
                    root = item;
                    size++;
                    Volatile.Write(ref gate, 0);
                    return true;
                }
                Volatile.Write(ref gate, 0);
            }
            return false;
        }
    }
}
