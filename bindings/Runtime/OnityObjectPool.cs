using System;
using System.Threading;

namespace Onity
{
    /// <summary>A bounded LIFO of reusable objects guarded by a try-lock (as UniTask's pools): under
    /// contention a rent returns null (the caller allocates) and a return drops the object.</summary>
    public sealed class OnityObjectPool<T> where T : class
    {
        // Items wrapped in a struct: storing into a T[] of a generic reference type costs Mono a
        // covariant array-store check (stelemref) per store; a struct array does not.
        struct Item { public T value; }
        Item[] items;
        readonly int capacity;
        int count;
        int gate;
        long rents, returns, misses, drops;

        /// <summary>A pool keeping at most <paramref name="capacity"/> idle objects (its storage
        /// grows on demand up to that).</summary>
        public OnityObjectPool(int capacity)
        {
            this.capacity = capacity;
            items = new Item[Math.Min(capacity, 16)];
        }

        public int Capacity { get { return capacity; } }
        public int Idle { get { return Volatile.Read(ref count); } }
        public long Rents { get { return rents; } }
        public long Returns { get { return returns; } }
        /// <summary>Rents that found nothing idle (the caller allocated): cold allocations.</summary>
        public long Misses { get { return misses; } }
        /// <summary>Returns dropped because the pool was full or contended.</summary>
        public long Drops { get { return drops; } }

        public T TryRent()
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
            if (Interlocked.CompareExchange(ref gate, 1, 0) == 0)
            {
                int c = count;
                if (c == items.Length && c < capacity)
                {
                    Array.Resize(ref items, Math.Min(capacity, c * 2));
                }
                if (c < items.Length)
                {
                    items[c].value = item;
                    count = c + 1;
                    returns++;
                }
                else drops++;
                Volatile.Write(ref gate, 0);
            }
        }
    }
}
