using System;
using System.Threading;

namespace Onity.Bench
{
    // Async streams and channels (issue 19, item 4), side by side with UniTask's
    // UniTaskAsyncEnumerable.EveryUpdate and Channel (UniTaskStreams.cs) in the same process.
    public static partial class Program
    {
        static long streamElements;
        static readonly Action<AsyncUnit> countElement = _ => streamElements++;
        static readonly Action<int> countInt = _ => streamElements++;
        static int streamValue = 1;

        /// <summary>EveryUpdate with the operators of a row: ops 2 = Where+Select, 4 =
        /// Select+Where+Select+TakeWhile (every element passes, so each frame gives one).</summary>
        static IOnityAsyncEnumerable<int> EveryUpdateChain(int ops)
        {
            var s = OnityAsyncEnumerable.EveryUpdate();
            if (ops == 2) return s.Where(_ => streamValue > 0).Select(_ => streamValue);
            return s.Select(_ => streamValue).Where(x => x > 0).Select(x => x + 1).TakeWhile(x => x > 1);
        }

        // The floor of the operator rows: the plain stream whose action invokes the chain's
        // delegates itself (no operator) and counts as countInt does: what an element costs with
        // only the delegate invokes.
        static readonly Func<AsyncUnit, bool> floorWhere = _ => streamValue > 0;
        static readonly Func<AsyncUnit, int> floorSelect = _ => streamValue;
        static readonly Func<int, int> floorSelect1 = x => x + 1;
        static readonly Func<int, bool> floorPositive = x => x > 0, floorAboveOne = x => x > 1;
        static readonly Action<AsyncUnit> floor2 = u =>
        {
            if (floorWhere(u) && floorSelect(u) != 0) streamElements++;
        };
        static readonly Action<AsyncUnit> floor4 = u =>
        {
            int v = floorSelect(u);
            if (!floorPositive(v)) return;
            v = floorSelect1(v);
            if (floorAboveOne(v)) streamElements++;
        };

        /// <summary>What `await foreach (var _ in EveryUpdate())` compiles to (mcs has no await
        /// foreach): GetAsyncEnumerator, MoveNextAsync in a loop, DisposeAsync in a finally.</summary>
        static async OnityTask EveryUpdateAwaitForeach(CancellationToken ct)
        {
            var e = OnityAsyncEnumerable.EveryUpdate().GetAsyncEnumerator(ct);
            try
            {
                while (await e.MoveNextAsync()) streamElements++;
            }
            finally
            {
                await e.DisposeAsync();
            }
        }

        /// <summary>n EveryUpdate streams consumed with ForEachAsync (or the await-foreach pattern);
        /// a set runs <paramref name="frames"/> frames: one element per stream per frame.</summary>
        static void EveryUpdateScenario(int n, int frames, bool pattern, int ops = 0, bool floor = false)
        {
            string opsName = ops == 0 ? "" : ops == 2 ? ".Where.Select" : ".Select.Where.Select.TakeWhile";
            if (floor) opsName = " (floor: the action invokes the " + ops + " delegates of " + opsName.Substring(1) + ")";
            string name = "EveryUpdate" + opsName + " stream, " + (pattern ? "await-foreach pattern" : "ForEachAsync") + " (ns per element), " + n + (n == 1 ? " stream x " : " streams x ") + frames + " frames";
            var cts = new CancellationTokenSource();
            var tasks = new OnityTask[n];
            for (int i = 0; i < n; i++)
                tasks[i] = pattern ? EveryUpdateAwaitForeach(cts.Token)
                    : floor ? OnityAsyncEnumerable.EveryUpdate().ForEachAsync(ops == 2 ? floor2 : floor4, cts.Token)
                    : ops == 0 ? OnityAsyncEnumerable.EveryUpdate().ForEachAsync(countElement, cts.Token)
                    : EveryUpdateChain(ops).ForEachAsync(countInt, cts.Token);
            Frame();
            string every = name + ": one element per stream per frame";
            var onity = new Impl("onity", () =>
            {
                long e0 = streamElements;
                for (int f = 0; f < frames; f++) Frame();
                Check(streamElements - e0 == (long)n * frames, every);
                return (long)n * frames;
            });
            Action utStop = () => { };
            var ut = floor ? null : UtEveryUpdate(n, frames, pattern, ops, out utStop);
            Compare(name, onity, ut);
            cts.Cancel();
            Frame();
            foreach (var t in tasks)
            {
                Check(t.Status == OnityTaskStatus.Canceled, name + ": canceled at the end");
                try { t.GetAwaiter().GetResult(); } catch (OperationCanceledException) { }
            }
            utStop();
        }

        static OnityChannel<int> benchChannel;
        static long channelSum;

        static async OnityTask ChannelReadN(int n)
        {
            var r = benchChannel.Reader;
            long s = 0;
            for (int i = 0; i < n; i++) s += await r.ReadAsync();
            channelSum += s;
        }

        static async OnityTask ChannelReadAllN(int n)
        {
            var e = benchChannel.Reader.ReadAllAsync().GetAsyncEnumerator();
            long s = 0;
            try
            {
                for (int i = 0; i < n && await e.MoveNextAsync(); i++) s += e.Current;
            }
            finally
            {
                await e.DisposeAsync();
            }
            channelSum += s;
        }

        /// <summary>Channel write -> read on the owner thread: "waiting" = the consumer awaits
        /// ReadAsync before each write (the write hands the item over and resumes it inline);
        /// "burst" = 128 writes, then the consumer drains them with ReadAllAsync.</summary>
        static void ChannelScenarios(Func<string, bool> on)
        {
            benchChannel = OnityChannel.CreateSingleConsumerUnbounded<int>();
            const int n = 10000, burst = 128, bursts = 80;
            if (on("channel-waiting"))
            Compare("Channel write -> waiting ReadAsync (ns per item)",
                new Impl("onity", () =>
                {
                    long s0 = channelSum;
                    var t = ChannelReadN(n);
                    var w = benchChannel.Writer;
                    for (int i = 0; i < n; i++) w.TryWrite(1);
                    t.GetAwaiter().GetResult();
                    Check(channelSum - s0 == n, "channel sum");
                    return n;
                }),
                UtChannelWaiting(n));
            if (on("channel-burst"))
            Compare("Channel 128 writes, then ReadAllAsync drains them (ns per item)",
                new Impl("onity", () =>
                {
                    long s0 = channelSum;
                    var w = benchChannel.Writer;
                    for (int b = 0; b < bursts; b++)
                    {
                        for (int i = 0; i < burst; i++) w.TryWrite(1);
                        ChannelReadAllN(burst).GetAwaiter().GetResult();
                    }
                    Check(channelSum - s0 == burst * bursts, "channel burst sum");
                    return burst * bursts;
                }),
                UtChannelBurst(burst, bursts));
        }

        /// <summary>Groups (a bench argument selects those it is a substring of): stream-foreach-1x,
        /// stream-pattern-1x, stream-foreach-64x, stream-foreach-4096x, stream-pattern-4096x,
        /// stream-ws-1x, stream-ws-64x (Where+Select), stream-chain4-1x, stream-chain4-64x (4
        /// operators: issue 28's rows), stream-floor2-64x, stream-floor4-64x (their floor: the
        /// plain stream invoking the delegates in its action, Onity only); channel-waiting,
        /// channel-burst (ChannelScenarios).</summary>
        static void StreamScenarios(Func<string, bool> on)
        {
            if (on("stream-foreach-1x")) EveryUpdateScenario(1, 4096, false);
            if (on("stream-pattern-1x")) EveryUpdateScenario(1, 4096, true);
            if (on("stream-foreach-64x")) EveryUpdateScenario(64, 256, false);
            if (on("stream-foreach-4096x")) EveryUpdateScenario(4096, 10, false);
            if (on("stream-pattern-4096x")) EveryUpdateScenario(4096, 10, true);
            if (on("stream-ws-1x")) EveryUpdateScenario(1, 4096, false, 2);
            if (on("stream-ws-64x")) EveryUpdateScenario(64, 256, false, 2);
            if (on("stream-chain4-1x")) EveryUpdateScenario(1, 4096, false, 4);
            if (on("stream-chain4-64x")) EveryUpdateScenario(64, 256, false, 4);
            if (on("stream-floor2-64x")) EveryUpdateScenario(64, 256, false, 2, true);
            if (on("stream-floor4-64x")) EveryUpdateScenario(64, 256, false, 4, true);
        }
    }
}
