using System;
using System.Threading;

namespace Onity.Bench
{
    // Issue 27's side-by-side rows (UniTaskParity.cs has the UniTask column): an async reactive
    // property's write resuming an awaiting reader, Where().Select().Take() over EveryUpdate,
    // ToArrayAsync over Range, and a player-loop timer's Restart.
    public static partial class Program
    {
        static long rxSum;

        static async OnityTask ReactiveReader(IOnityAsyncEnumerable<int> s)
        {
            var e = s.GetAsyncEnumerator();
            try
            {
                while (await e.MoveNextAsync()) rxSum += e.Current;
            }
            finally
            {
                await e.DisposeAsync();
            }
        }

        /// <summary>A reader awaits MoveNextAsync on WithoutCurrent(); each write of Value resumes it.</summary>
        static void ReactivePropertyScenario()
        {
            const int n = 10000;
            var prop = new OnityAsyncReactiveProperty<int>(0);
            var reader = ReactiveReader(prop.WithoutCurrent());
            string each = "AsyncReactiveProperty: the reader sees every write";
            var onity = new Impl("onity", () =>
            {
                long s0 = rxSum;
                for (int i = 0; i < n; i++) prop.Value = 1;
                Check(rxSum - s0 == n, each);
                return n;
            });
            Action utStop;
            var ut = UtReactiveProperty(n, out utStop);
            Compare("AsyncReactiveProperty write -> awaiting reader (ns per write)", onity, FlowOff(onity), ut);
            prop.Dispose();
            Check(reader.Status == OnityTaskStatus.Succeeded, "AsyncReactiveProperty: the reader ends at Dispose");
            utStop();
        }

        /// <summary>One ForEachAsync over EveryUpdate().Where().Select().Take(frames) per set (the
        /// chain built once, enumerated anew each set), run until it completes.</summary>
        static void TakeChainScenario()
        {
            const int frames = 4096;
            var chain = OnityAsyncEnumerable.EveryUpdate().Where(_ => streamValue > 0).Select(_ => streamValue).Take(frames);
            string done = "Where.Select.Take: completes after its elements";
            var onity = new Impl("onity", () =>
            {
                long e0 = streamElements;
                var t = chain.ForEachAsync(countInt);
                for (int f = 0; f <= frames + 1 && t.Status == OnityTaskStatus.Pending; f++) Frame();
                Check(t.Status == OnityTaskStatus.Succeeded && streamElements - e0 == frames, done);
                t.GetAwaiter().GetResult();
                return frames;
            });
            Compare("EveryUpdate.Where.Select.Take(4096), ForEachAsync to completion (ns per element)", onity, UtTakeChain(frames));
        }

        /// <summary>ToArrayAsync over Range(0, 1000), 20 times a set; the result arrays are the
        /// only allocation (4 B per element plus the array header).</summary>
        static void ToArrayScenario()
        {
            const int count = 1000, reps = 20;
            var range = OnityAsyncEnumerable.Range(0, count);
            string whole = "ToArrayAsync(Range): every element in order";
            var onity = new Impl("onity", () =>
            {
                for (int r = 0; r < reps; r++)
                {
                    var a = range.ToArrayAsync().GetAwaiter().GetResult();
                    Check(a.Length == count && a[count - 1] == count - 1, whole);
                }
                return count * reps;
            });
            Compare("ToArrayAsync over Range(0, 1000) (ns per element)", onity, UtToArray(count, reps));
        }

        static long timerFired;
        static readonly Action<object> timerTick = _ => timerFired++;

        /// <summary>A one-shot timer of interval 0 restarted, then one frame in which it fires.</summary>
        static void TimerRestartScenario()
        {
            const int n = 1000;
            var timer = OnityPlayerLoopTimer.Create(TimeSpan.Zero, false, DelayType.DeltaTime, OnityTiming.Update, CancellationToken.None, timerTick, null);
            string fires = "PlayerLoopTimer: fires once per restart";
            var onity = new Impl("onity", () =>
            {
                long f0 = timerFired;
                for (int i = 0; i < n; i++)
                {
                    timer.Restart();
                    Frame();
                }
                Check(timerFired - f0 == n, fires);
                return n;
            });
            Compare("PlayerLoopTimer Restart, fires in the next frame (ns per restart)", onity, UtTimerRestart(n));
            timer.Dispose();
            Frame();
        }

        /// <summary>Groups: parity-rx, parity-take, parity-toarray, parity-timer.</summary>
        static void ParityScenarios(Func<string, bool> on)
        {
            if (on("parity-rx")) ReactivePropertyScenario();
            if (on("parity-take")) TakeChainScenario();
            if (on("parity-toarray")) ToArrayScenario();
            if (on("parity-timer")) TimerRestartScenario();
        }
    }
}
