using System;
using System.Threading;

namespace Onity.Tests
{
    public class PoolTests
    {
        sealed class Thing { public int inUse; }

        [Test]
        public void OwnerLaneAndSharedStackNeverHandOutAnObjectTwice()
        {
            using (var h = new TestHost())
            {
                var pool = new OnityObjectPool<Thing>(64);
                // The owner thread: LIFO through its lane, counted.
                var a = new Thing();
                var b = new Thing();
                pool.Return(a);
                pool.Return(b);
                Assert.Equal(2, pool.Idle, "idle");
                Assert.True(ReferenceEquals(b, pool.TryRent()), "LIFO b");
                Assert.True(ReferenceEquals(a, pool.TryRent()), "LIFO a");
                Assert.True(pool.TryRent() == null, "empty");
                Assert.Equal(3L, pool.Rents, "rents");
                Assert.Equal(2L, pool.Returns, "returns");
                Assert.Equal(1L, pool.Misses, "misses");

                // Four workers and the owner rent and return concurrently.
                const int rounds = 20000;
                int doubleRents = 0;
                ThreadStart work = () =>
                {
                    for (int i = 0; i < rounds; i++)
                    {
                        var t = pool.TryRent() ?? new Thing();
                        if (Interlocked.Exchange(ref t.inUse, 1) != 0) Interlocked.Increment(ref doubleRents);
                        if ((i & 7) == 0) Thread.Yield();
                        Volatile.Write(ref t.inUse, 0);
                        pool.Return(t);
                    }
                };
                var threads = new Thread[4];
                for (int i = 0; i < threads.Length; i++) { threads[i] = new Thread(work); threads[i].Start(); }
                work();
                foreach (var t in threads) t.Join();
                Assert.Equal(0, doubleRents, "an object was rented by two threads at once");
                Assert.True(pool.Idle <= 2 * pool.Capacity, "bounded");
                Assert.True(pool.Rents >= rounds, "owner rents counted");
            }
        }
    }
}
