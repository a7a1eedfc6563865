using System;
using System.Collections.Generic;
using System.Reflection;
using System.Text;
using System.Threading;
using Onity.Native;

namespace Onity.Tests
{
    // RandomScheduleTests, the run: leak accounting of the pools, one seed driven event
    // by event and compared with the model, several seeds.
    public partial class RandomScheduleTests
    {
        // ---------------------------------------------------------------- leak accounting

        static OnityObjectPool<T> PoolOf<T>(Type owner, string field) where T : class
        {
            var f = owner.GetField(field, BindingFlags.NonPublic | BindingFlags.Static);
            return f == null ? null : (OnityObjectPool<T>)f.GetValue(null);
        }

        /// <summary>rents - returns - drops of the binding's managed pools: objects out of their
        /// pool (a per-type count: a leak shows as a positive delta).</summary>
        static long[] PoolOutstanding()
        {
            var pools = new object[]
            {
                AutoResetOnityCompletionSource.Pool,
                PoolOf<AutoResetOnityCompletionSource<int>>(typeof(AutoResetOnityCompletionSource<int>), "pool"),
                WhenPromise<OnityTask, int, WhenAnyPromise.Ops>.Pool16,
                WhenPromise<OnityTask, int, WhenAnyPromise.Ops>.Pool32,
                WhenPromise<OnityTask<int>, WhenAnyResult<int>, WhenAnyPromise<int>.Ops>.Pool16,
                WhenPromise<OnityTask<int>, WhenAnyResult<int>, WhenAnyPromise<int>.Ops>.Pool32,
                WhenPromise<OnityTask, AsyncUnit, WhenAllPromise.Ops>.Pool16,
                WhenPromise<OnityTask, AsyncUnit, WhenAllPromise.Ops>.Pool32,
            };
            var r = new long[pools.Length + 1];
            for (int i = 0; i < pools.Length; i++)
            {
                r[i] = Outstanding(pools[i]);
            }
            r[pools.Length] = CompilerServices.OnityRunnerStats.Live;
            return r;
        }

        static long Outstanding(object pool)
        {
            var t = pool.GetType();
            long rents = (long)t.GetProperty("Rents").GetValue(pool, null);
            long returns = (long)t.GetProperty("Returns").GetValue(pool, null);
            long drops = (long)t.GetProperty("Drops").GetValue(pool, null);
            return rents - returns - drops;
        }

        static readonly string[] PoolNames = { "AutoReset", "AutoReset<int>", "WhenAny16", "WhenAny32", "WhenAny<int>16", "WhenAny<int>32", "WhenAll16", "WhenAll32", "async runners live" };

        // ---------------------------------------------------------------- the run

        sealed class RunStats { public int events, plans, ops, observations, frames; }

        static void Count(SortedDictionary<string, int> cover, string key)
        {
            int n;
            cover.TryGetValue(key, out n);
            cover[key] = n + 1;
        }

        static RunStats RunSeed(int seed, int mainFrames, int topMethods, List<string> failures, SortedDictionary<string, int> cover)
        {
            var wd = Generate(seed, mainFrames, topMethods, 8);
            var st = new RunStats { events = wd.evs.Count, plans = wd.plans.Count, frames = wd.frames };
            long[] poolsBefore = PoolOutstanding();
            using (var h = new TestHost())
            using (var worker = new Worker())
            {
                var rt = h.Runtime;
                var c = new Ctx { owner = Thread.CurrentThread, cts = new CancellationTokenSource[wd.ctsCancel.Length] };
                for (int i = 0; i < c.cts.Length; i++) c.cts[i] = new CancellationTokenSource();
                var topTyped = new Dictionary<Plan, OnityTask<int>>();
                var topUntyped = new Dictionary<Plan, OnityTask>();
                for (int k = 0; k < wd.evs.Count; k++)
                {
                    c.curEv = k;
                    var blk = wd.blocks[k];
                    for (int s = 0; s < blk.Count; s++)
                    {
                        c.curStep = s;
                        var act = blk[s];
                        try
                        {
                            if (act.kind == 0)
                            {
                                if (act.plan.typed) topTyped[act.plan] = RunTyped(c, act.plan);
                                else topUntyped[act.plan] = RunUntyped(c, act.plan);
                            }
                            else if (act.kind == 1)
                            {
                                object so;
                                if (!c.sources.TryGetValue(act.srcId, out so))
                                {
                                    c.errors.Add("event " + k + " step " + s + ": source #" + act.srcId + " was not created (model diverged)");
                                    continue;
                                }
                                c.sources.Remove(act.srcId);
                                bool ok = false;
                                if (act.worker) worker.Run(() => ok = Complete(so, act.outcome));
                                else ok = Complete(so, act.outcome);
                                if (!ok) c.errors.Add("event " + k + " step " + s + ": completion of source #" + act.srcId + " refused");
                            }
                            else
                            {
                                var cts = c.cts[act.cts];
                                if (act.worker) worker.Run(() => cts.Cancel());
                                else cts.Cancel();
                            }
                        }
                        catch (Exception e) { c.errors.Add("event " + k + " step " + s + ": host action threw " + e); }
                    }
                    c.curStep = -1;
                    var ev = wd.evs[k];
                    if (ev.kind == EK.Begin) rt.BeginFrame((ulong)ev.frame, wd.dt[ev.frame], wd.udt[ev.frame], wd.real[ev.frame]);
                    else if (ev.kind == EK.Tick) rt.Tick(ev.t);
                    else rt.Drain();
                }
                // Three more frames: idle token entries are swept two frames after their last use.
                int frame = wd.frames;
                for (int f = 0; f < 3; f++)
                {
                    c.curEv = -1;
                    frame++;
                    rt.BeginFrame((ulong)frame, 1.0 / 64, 1.0 / 64, wd.real[wd.frames] + (f + 1) / 64.0);
                    for (int t = 0; t < 16; t++) rt.Tick((OnityTiming)t);
                }

                // ---- observations against the model
                foreach (var p in wd.plans)
                {
                    string where = "seed " + seed + " plan " + p.id + (p.typed ? " (typed" : " (untyped") + ", depth " + p.depth + ", started " + TmText(p.start) + ")";
                    if (p.finished != 1) failures.Add(where + ": finished " + p.finished + " times (expected once, ending at " + TmText(p.endTime) + " with " + p.expEnd + ")");
                    if (p.offThreadFinish) failures.Add(where + ": finished off the owner thread");
                    for (int i = 0; i < p.ops.Count; i++)
                    {
                        var op = p.ops[i];
                        st.ops++;
                        if (!op.observes) continue;
                        st.observations++;
                        string kind = op.k == K.Wait || op.k == K.EarlyAwait ? op.k + " " + op.item.w + " " + op.item.path : op.k == K.Src ? "Src " + op.item.src + (op.item.preComplete ? " pre" : op.item.worker ? " worker" : " owner") : op.k == K.Any || op.k == K.All ? op.k + (op.typed ? " typed" : op.framesArray ? " frames[]" : " untyped") + (op.cts >= 0 ? " token" : "") : op.k.ToString();
                        Count(cover, "await " + kind);
                        Count(cover, "outcome " + (op.alts[0].kind == OK ? "ok" : op.alts[0].kind == FAULT ? "fault" : "canceled"));
                        Count(cover, "resumes in phase " + PhOf(op.expAt) + (PhOf(op.expAt) == 2 ? " (timing run)" : PhOf(op.expAt) == 1 ? " (posted, " + EvText(wd, EvOf(op.expAt)).Split(' ')[0] + ")" : " (host step / synchronous)"));
                        if (op.alts.Count > 1) Count(cover, "combinator ties (several accepted outcomes)");
                        string ow = where + " op " + i + " " + op;
                        if (op.count != 1) { failures.Add(ow + ": observed " + op.count + " times, expected once at " + TmText(op.expAt) + " " + Alts(op)); continue; }
                        int expStep = PhOf(op.expAt) == 0 ? SeqOf(op.expAt) : -1;
                        if (op.obsEv != EvOf(op.expAt) || op.obsStep != expStep)
                            failures.Add(ow + ": resumed at event " + op.obsEv + " (" + EvText(wd, op.obsEv) + ") step " + op.obsStep + ", expected " + TmText(op.expAt) + " (" + EvText(wd, EvOf(op.expAt)) + ")");
                        bool match = false;
                        foreach (var o in op.alts) if (o.Same(op.obs)) match = true;
                        if (!match) failures.Add(ow + ": observed " + op.obs + (op.unexpected != null ? " " + op.unexpected : "") + ", expected " + Alts(op));
                        if (op.offThread) failures.Add(ow + ": resumed off the owner thread");
                    }
                }
                foreach (var e in c.errors) failures.Add("seed " + seed + ": " + e);
                foreach (var kv in topTyped) CheckTop(seed, kv.Key, kv.Value.Status, () => kv.Value.GetAwaiter().GetResult(), failures);
                foreach (var kv in topUntyped) CheckTop(seed, kv.Key, kv.Value.Status, () => { kv.Value.GetAwaiter().GetResult(); return 0; }, failures);
                if (c.sources.Count != 0) failures.Add("seed " + seed + ": " + c.sources.Count + " sources never completed");

                // ---- nothing leaked
                var m = rt.GetManagedStats();
                if (m.PendingWaits != 0 || m.CompletedUnconsumedWaits != 0 || m.PostedContinuations != 0 || m.CancellationTokensMapped != 0 || rt.PendingWaitCount != 0)
                    failures.Add("seed " + seed + ": managed stats after the run: " + m);
                var pending = new List<OnityPendingWait>();
                if (rt.GetPendingWaits(pending) != 0) failures.Add("seed " + seed + ": pending waits listed: " + string.Join(" | ", pending));
                var live = new List<ulong>();
                if (rt.GetNativeLiveTasks(live) != 0) failures.Add("seed " + seed + ": native live tasks: " + live.Count);
                var ns = rt.GetNativeStats();
                for (int i = 0; i < (int)ns.pool_count; i++)
                    if (ns.Get_pools(i).live != 0) failures.Add("seed " + seed + ": native pool " + OnityRuntime.PoolName((OnityPool)i) + " live " + ns.Get_pools(i).live);
                for (int i = 0; i < OnityNative.ONITY_WAIT_KIND_COUNT; i++)
                {
                    var w = ns.Get_waits(i);
                    if (w.pending != 0 || w.scheduled != w.completed + w.canceled)
                        failures.Add("seed " + seed + ": native wait kind " + (OnityWaitKind)i + ": pending " + w.pending + ", scheduled " + w.scheduled + ", completed " + w.completed + ", canceled " + w.canceled);
                }
                if (ns.live_tasks != 0) failures.Add("seed " + seed + ": native live_tasks " + ns.live_tasks);
                long[] poolsAfter = PoolOutstanding();
                for (int i = 0; i < poolsAfter.Length; i++)
                    if (poolsAfter[i] != poolsBefore[i]) failures.Add("seed " + seed + ": " + PoolNames[i] + " outstanding changed by " + (poolsAfter[i] - poolsBefore[i]));
                lock (h.Unobserved)
                    foreach (var e in h.Unobserved) failures.Add("seed " + seed + ": unobserved exception " + e);
                foreach (var cts in c.cts) cts.Dispose();
            }
            return st;
        }

        static string Alts(Op op)
        {
            var parts = new List<string>();
            foreach (var o in op.alts) parts.Add(o.ToString());
            return "{" + string.Join(" | ", parts) + "}";
        }

        static string EvText(World wd, int k)
        {
            if (k < 0 || k >= wd.evs.Count) return "after the timeline";
            var e = wd.evs[k];
            return (e.kind == EK.Begin ? "BeginFrame" : e.kind == EK.Drain ? "Drain" : "Tick " + e.t) + " of frame " + e.frame;
        }

        static void CheckTop(int seed, Plan p, OnityTaskStatus status, Func<int> getResult, List<string> failures)
        {
            string where = "seed " + seed + " top plan " + p.id;
            var expStatus = p.expEnd.kind == OK ? OnityTaskStatus.Succeeded : p.expEnd.kind == FAULT ? OnityTaskStatus.Faulted : OnityTaskStatus.Canceled;
            if (status != expStatus) failures.Add(where + ": status " + status + ", expected " + expStatus);
            Exception err = null;
            int v = 0;
            try { v = getResult(); } catch (Exception e) { err = e; }
            Outcome o = err == null ? new Outcome(OK, v, 0) : err is TestFault ? new Outcome(FAULT, ((TestFault)err).Id, 0) : err is OperationCanceledException ? new Outcome(CANCEL, 0, 0) : new Outcome(FAULT, -1, 0);
            if (!o.Same(p.expEnd)) failures.Add(where + ": result " + o + (err != null && o.a == -1 ? " " + err : "") + ", expected " + p.expEnd);
        }

        static void RunSeeds(int[] seeds, int mainFrames, int topMethods)
        {
            var failures = new List<string>();
            int events = 0, plans = 0, obs = 0;
            var cover = new SortedDictionary<string, int>();
            foreach (int seed in seeds)
            {
                var st = RunSeed(seed, mainFrames, topMethods, failures, cover);
                events += st.events; plans += st.plans; obs += st.observations;
            }
            if (failures.Count > 0)
            {
                var sb = new StringBuilder();
                sb.Append(failures.Count).Append(" mismatches (").Append(plans).Append(" methods, ").Append(obs).Append(" awaits, ").Append(events).Append(" events):\n");
                for (int i = 0; i < Math.Min(25, failures.Count); i++) sb.Append("  ").Append(failures[i]).Append('\n');
                throw new AssertionException(sb.ToString());
            }
            if (Environment.GetEnvironmentVariable("ONITY_RANDOM_VERBOSE") != null)
            {
                Console.WriteLine("random schedule: " + seeds.Length + " seeds, " + plans + " methods, " + obs + " awaits, " + events + " events");
                foreach (var kv in cover) Console.WriteLine("  " + kv.Key + ": " + kv.Value);
            }
            Assert.True(obs > 1000, "the schedules awaited something: " + obs + " awaits over " + plans + " methods");
        }
    }
}
