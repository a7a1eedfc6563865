// The UniTask column of issue 27's rows (ParityBench.cs): the same workloads with UniTask 2.2.5's
// AsyncReactiveProperty, UniTaskAsyncEnumerable and PlayerLoopTimer.
using System;
using System.Threading;
#if ONITY_BENCH_UNITASK
using Cysharp.Threading.Tasks;
using Cysharp.Threading.Tasks.Linq;
#endif

namespace Onity.Bench
{
    public static partial class Program
    {
#if ONITY_BENCH_UNITASK
        static long utRxSum;

        static async UniTask UtReactiveReader(IUniTaskAsyncEnumerable<int> s)
        {
            var e = s.GetAsyncEnumerator();
            try
            {
                while (await e.MoveNextAsync()) utRxSum += e.Current;
            }
            finally
            {
                await e.DisposeAsync();
            }
        }

        static Impl UtReactiveProperty(int n, out Action stop)
        {
            var prop = new AsyncReactiveProperty<int>(0);
            var reader = UtReactiveReader(prop.WithoutCurrent());
            stop = () =>
            {
                prop.Dispose();
                Check(reader.Status == UniTaskStatus.Succeeded, "UniTask AsyncReactiveProperty: the reader ends at Dispose");
            };
            string each = "UniTask AsyncReactiveProperty: the reader sees every write";
            return new Impl("unitask", () =>
            {
                long s0 = utRxSum;
                for (int i = 0; i < n; i++) prop.Value = 1;
                Check(utRxSum - s0 == n, each);
                return n;
            });
        }

        static Impl UtTakeChain(int frames)
        {
            var chain = UniTaskAsyncEnumerable.EveryUpdate().Where(_ => utStreamValue > 0).Select(_ => utStreamValue).Take(frames);
            string done = "UniTask Where.Select.Take: completes after its elements";
            return new Impl("unitask", () =>
            {
                long e0 = utElements;
                var t = chain.ForEachAsync(utCountInt);
                for (int f = 0; f <= frames + 1 && t.Status == UniTaskStatus.Pending; f++) UtFrame();
                Check(t.Status == UniTaskStatus.Succeeded && utElements - e0 == frames, done);
                t.GetAwaiter().GetResult();
                return frames;
            });
        }

        static Impl UtToArray(int count, int reps)
        {
            var range = UniTaskAsyncEnumerable.Range(0, count);
            string whole = "UniTask ToArrayAsync(Range): every element in order";
            return new Impl("unitask", () =>
            {
                for (int r = 0; r < reps; r++)
                {
                    var a = range.ToArrayAsync().GetAwaiter().GetResult();
                    Check(a.Length == count && a[count - 1] == count - 1, whole);
                }
                return count * reps;
            });
        }

        static long utTimerFired;
        static readonly Action<object> utTimerTick = _ => utTimerFired++;

        static Impl UtTimerRestart(int n)
        {
            var timer = PlayerLoopTimer.Create(TimeSpan.Zero, false, Cysharp.Threading.Tasks.DelayType.DeltaTime, PlayerLoopTiming.Update, CancellationToken.None, utTimerTick, null);
            string fires = "UniTask PlayerLoopTimer: fires once per restart";
            return new Impl("unitask", () =>
            {
                long f0 = utTimerFired;
                for (int i = 0; i < n; i++)
                {
                    timer.Restart();
                    UtFrame();
                }
                Check(utTimerFired - f0 == n, fires);
                return n;
            });
        }
#else
        static Impl UtReactiveProperty(int n, out Action stop) { stop = () => { }; return null; }
        static Impl UtTakeChain(int frames) { return null; }
        static Impl UtToArray(int count, int reps) { return null; }
        static Impl UtTimerRestart(int n) { return null; }
#endif
    }
}
