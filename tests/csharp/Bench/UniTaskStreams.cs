// The UniTask column of the async-stream and channel scenarios (StreamBench.cs): the same
// workloads with UniTaskAsyncEnumerable.EveryUpdate, ForEachAsync and Channel from UniTask 2.2.5,
// driven by the same stand-in player loop as UniTaskSide.cs.
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
        static long utElements;
        static readonly Action<Cysharp.Threading.Tasks.AsyncUnit> utCountElement = _ => utElements++;

        static async UniTask UtEveryUpdateAwaitForeach(CancellationToken ct)
        {
            var e = UniTaskAsyncEnumerable.EveryUpdate().GetAsyncEnumerator(ct);
            try
            {
                while (await e.MoveNextAsync()) utElements++;
            }
            finally
            {
                await e.DisposeAsync();
            }
        }

        static readonly Action<int> utCountInt = _ => utElements++;
        static int utStreamValue = 1;

        static IUniTaskAsyncEnumerable<int> UtEveryUpdateChain(int ops)
        {
            var s = UniTaskAsyncEnumerable.EveryUpdate();
            if (ops == 2) return s.Where(_ => utStreamValue > 0).Select(_ => utStreamValue);
            return s.Select(_ => utStreamValue).Where(x => x > 0).Select(x => x + 1).TakeWhile(x => x > 1);
        }

        static Impl UtEveryUpdate(int n, int frames, bool pattern, int ops, out Action stop)
        {
            var cts = new CancellationTokenSource();
            var tasks = new UniTask[n];
            for (int i = 0; i < n; i++)
                tasks[i] = pattern ? UtEveryUpdateAwaitForeach(cts.Token)
                    : ops == 0 ? UniTaskAsyncEnumerable.EveryUpdate().ForEachAsync(utCountElement, cts.Token)
                    : UtEveryUpdateChain(ops).ForEachAsync(utCountInt, cts.Token);
            UtFrame();
            UtFrame();
            stop = () =>
            {
                // UniTask's EveryUpdate ends quietly (MoveNextAsync false) when its token is canceled.
                cts.Cancel();
                for (int f = 0; f < 3; f++) UtFrame();
                foreach (var t in tasks)
                {
                    Check(t.Status != UniTaskStatus.Pending, "UniTask EveryUpdate ended");
                    try { t.GetAwaiter().GetResult(); } catch (OperationCanceledException) { }
                }
            };
            string every = "UniTask EveryUpdate: one element per stream per frame";
            return new Impl("unitask", () =>
            {
                long e0 = utElements;
                for (int f = 0; f < frames; f++) UtFrame();
                Check(utElements - e0 == (long)n * frames, every);
                return (long)n * frames;
            });
        }

        static Channel<int> utChannel;
        static long utChannelSum;

        static async UniTask UtChannelReadN(int n)
        {
            var r = utChannel.Reader;
            long s = 0;
            for (int i = 0; i < n; i++) s += await r.ReadAsync();
            utChannelSum += s;
        }

        static async UniTask UtChannelReadAllN(int n)
        {
            var e = utChannel.Reader.ReadAllAsync().GetAsyncEnumerator();
            long s = 0;
            try
            {
                for (int i = 0; i < n && await e.MoveNextAsync(); i++) s += e.Current;
            }
            finally
            {
                await e.DisposeAsync();
            }
            utChannelSum += s;
        }

        static Impl UtChannelWaiting(int n)
        {
            utChannel = Channel.CreateSingleConsumerUnbounded<int>();
            return new Impl("unitask", () =>
            {
                long s0 = utChannelSum;
                var t = UtChannelReadN(n);
                var w = utChannel.Writer;
                for (int i = 0; i < n; i++) w.TryWrite(1);
                t.GetAwaiter().GetResult();
                Check(utChannelSum - s0 == n, "UniTask channel sum");
                return n;
            });
        }

        static Impl UtChannelBurst(int burst, int bursts)
        {
            var ch = Channel.CreateSingleConsumerUnbounded<int>();
            return new Impl("unitask", () =>
            {
                utChannel = ch;
                long s0 = utChannelSum;
                var w = ch.Writer;
                for (int b = 0; b < bursts; b++)
                {
                    for (int i = 0; i < burst; i++) w.TryWrite(1);
                    UtChannelReadAllN(burst).GetAwaiter().GetResult();
                }
                Check(utChannelSum - s0 == burst * bursts, "UniTask channel burst sum");
                return burst * bursts;
            });
        }
#else
        static Impl UtEveryUpdate(int n, int frames, bool pattern, int ops, out Action stop) { stop = () => { }; return null; }
        static Impl UtChannelWaiting(int n) { return null; }
        static Impl UtChannelBurst(int burst, int bursts) { return null; }
#endif
    }
}
