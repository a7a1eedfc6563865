using System;
using System.Threading;

namespace Onity
{
    /// <summary>A small unique number per thread (1, 2, ...), read without a call.</summary>
    internal static class OnityThreadId
    {
        [ThreadStatic] static int id;
        static int next;

        internal static int Current
        {
            [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
            get
            {
                int i = id;
                if (i == 0) id = i = Interlocked.Increment(ref next);
                return i;
            }
        }
    }

    /// <summary>A bounded LIFO of reusable objects in two parts. The lane belongs to one thread
    /// (the first runtime owner thread that returns an object here: in a game, the main thread)
    /// and is used without any atomic operation. Every other thread, and the owner when its lane
    /// is empty or full, uses the shared stack guarded by a try-lock (as UniTask's pools): under
    /// contention a rent returns null (the caller allocates) and a return drops the object.</summary>
    public sealed class OnityObjectPool<T> : IOnityPoolSize where T : class
    {
        // Items wrapped in a struct: storing into a T[] of a generic reference type costs Mono a
        // covariant array-store check (stelemref) per store; a struct array does not.
        struct Item { public T value; }
        Item[] items;
        readonly int capacity;
        int count;
        int gate;
        long rents, returns, misses, drops;

        Item[] lane;
        int laneCount;
        int laneThread; // OnityThreadId of the lane's thread; 0 until claimed
        long laneRents, laneReturns;

        /// <summary>A pool keeping at most <paramref name="capacity"/> idle objects in its shared
        /// stack and at most as many in its owner-thread lane (storage grows on demand).</summary>
        public OnityObjectPool(int capacity)
        {
            this.capacity = capacity;
            items = new Item[Math.Min(capacity, 16)];
            lane = new Item[Math.Min(capacity, 16)];
            OnityTaskPool.Register(typeof(T), this);
        }

        public int Capacity { get { return capacity; } }
        public int Idle { get { return Volatile.Read(ref count) + Volatile.Read(ref laneCount); } }
        public long Rents { get { return Volatile.Read(ref rents) + Volatile.Read(ref laneRents); } }
        public long Returns { get { return Volatile.Read(ref returns) + Volatile.Read(ref laneReturns); } }
        /// <summary>Rents that found nothing idle (the caller allocated): cold allocations.</summary>
        public long Misses { get { return Volatile.Read(ref misses); } }
        /// <summary>Returns dropped because the pool was full or contended.</summary>
        public long Drops { get { return Volatile.Read(ref drops); } }

        public T TryRent()
        {
            if (laneThread == OnityThreadId.Current)
            {
                int c = laneCount;
                if (c > 0)
                {
                    c--;
                    var arr = lane;
                    T item = arr[c].value;
                    arr[c].value = null;
                    laneCount = c;
                    laneRents++;
                    return item;
                }
            }
            return TryRentShared();
        }

        T TryRentShared()
        {
            if (Interlocked.CompareExchange(ref gate, 1, 0) == 0)
            {
                T item = null;
                int c = count;
                if (c > 0)
                {
                    c--;
                    item = items[c].value;
                    items[c].value = null;
                    count = c;
                }
                rents++;
                if (item == null) misses++;
                Volatile.Write(ref gate, 0);
                return item;
            }
            return null;
        }

        public void Return(T item)
        {
            int me = OnityThreadId.Current;
            int lt = laneThread;
            if (lt == 0 && OnityRuntime.OnAnOwnerThread)
            {
                Interlocked.CompareExchange(ref laneThread, me, 0);
                lt = laneThread;
            }
            if (lt == me)
            {
                int c = laneCount;
                if (c == lane.Length && c < capacity) Array.Resize(ref lane, Math.Min(capacity, c * 2));
                if (c < lane.Length && c + count < OnityTaskPool.maxPoolSize)
                {
                    lane[c].value = item;
                    laneCount = c + 1;
                    laneReturns++;
                    return;
                }
            }
            ReturnShared(item);
        }

        /// <summary>Returns to the shared stack, never to the lane: for objects rented on other
        /// threads and returned on the lane's thread (the lane would keep them from those threads).</summary>
        internal void ReturnShared(T item)
        {
            if (Interlocked.CompareExchange(ref gate, 1, 0) == 0)
            {
                int c = count;
                if (c == items.Length && c < capacity)
                {
                    Array.Resize(ref items, Math.Min(capacity, c * 2));
                }
                if (c < items.Length && c + laneCount < OnityTaskPool.maxPoolSize)
                {
                    items[c].value = item;
                    count = c + 1;
                    returns++;
                }
                else Interlocked.Increment(ref drops);
                Volatile.Write(ref gate, 0);
            }
            else Interlocked.Increment(ref drops);
        }
    }
}
