using System;
using System.Collections.Generic;
using Onity.Native;

namespace Onity.Tests
{
    // RandomScheduleTests, generation and model: random waits, sources, children and
    // combinators, each with the host event at which the model says it resumes.
    public partial class RandomScheduleTests
    {
        // ---------------------------------------------------------------- generation + model

        static void ModelWait(World wd, Item it, long T)
        {
            if (it.cts >= 0)
            {
                long ct = wd.ctsCancel[it.cts];
                if (T >= ct)
                {
                    it.done = it.resume = T;
                    it.outcome = new Outcome(CANCEL, 0, 0);
                    return;
                }
                int e = wd.FirstTick(T, it, false);
                if (ct != Never && e >= EvOf(ct))
                {
                    int e2 = wd.FirstTick(Tm(EvOf(ct), 0, 0), it, true);
                    it.done = it.resume = Tm(e2, 2, 0);
                    it.outcome = new Outcome(CANCEL, 0, 0);
                    return;
                }
                it.done = it.resume = Tm(e, 2, 0);
                it.outcome = new Outcome(OK, 0, 0);
                return;
            }
            int e1 = wd.FirstTick(T, it, false);
            it.done = it.resume = Tm(e1, 2, 0);
            it.outcome = new Outcome(OK, 0, 0);
        }

        static Item GenWait(World wd, long T, bool allowFast, bool allowDelay)
        {
            var r = wd.r;
            var it = new Item { what = 0 };
            int wk = r.Next(allowDelay ? 4 : 3);
            it.w = (W)wk;
            int tr = r.Next(100);
            it.timing = tr < 40 ? OnityTiming.Update : tr < 55 ? OnityTiming.FixedUpdate : (OnityTiming)r.Next(16);
            it.n = r.Next(0, 5);
            if (it.w == W.Delay)
            {
                it.path = r.Next(3) == 0 ? P.Token : P.Converted;
                int m = r.Next(0, 10);
                it.delayTicks = r.Next(8) == 0 ? 0 : m * 156250L + 78125L; // (m + 0.5) / 64 s: never equal to a clock sum
                it.clk = (DelayType)r.Next(3);
            }
            else
            {
                int pr = r.Next(100);
                it.path = allowFast && pr < 45 ? P.Fast : pr < 70 ? P.Converted : P.Token;
            }
            if (it.path == P.Token) it.cts = r.Next(wd.ctsCancel.Length);
            it.defaultOverload = it.timing == OnityTiming.Update && r.Next(3) == 0;
            ModelWait(wd, it, T);
            return it;
        }

        static Outcome RandomOutcome(World wd, bool typed)
        {
            int x = wd.r.Next(100);
            if (x < 65) return new Outcome(OK, typed ? wd.r.Next(1, 1000) : 0, 0);
            if (x < 85) return new Outcome(FAULT, wd.nextFault++, 0);
            return new Outcome(CANCEL, 0, wd.r.Next(2)); // b: 1 = through TrySetException(OperationCanceledException)
        }

        static Item GenSource(World wd, long T, bool typedOnly)
        {
            var r = wd.r;
            var it = new Item { what = 1 };
            it.src = typedOnly ? (r.Next(2) == 0 ? S.AutoTyped : S.PlainTyped) : (S)r.Next(4);
            it.typed = it.src == S.AutoTyped || it.src == S.PlainTyped;
            it.srcId = ++wd.nextSrc;
            it.srcOutcome = RandomOutcome(wd, it.typed);
            it.outcome = it.srcOutcome;
            if (r.Next(100) < 10)
            {
                it.preComplete = true;
                it.done = it.resume = T;
                return it;
            }
            it.worker = r.Next(100) < 40;
            int B = EvOf(T) + 1 + r.Next(0, 4);
            wd.EnsureEvents(B + 1);
            int seq = wd.blocks[B].Count;
            wd.blocks[B].Add(new Act { kind = 1, worker = it.worker, srcId = it.srcId, outcome = it.srcOutcome });
            it.done = Tm(B, 0, seq);
            it.resume = it.worker ? Tm(B, 1, seq) : it.done;
            return it;
        }

        static Item GenChild(World wd, long T, int depth, bool typed)
        {
            var it = new Item { what = 2, typed = typed };
            it.child = GenPlan(wd, T, depth + 1, typed);
            it.done = it.resume = it.child.endTime;
            it.outcome = it.child.expEnd;
            return it;
        }

        static Item GenDone(World wd, long T, bool typed)
        {
            var it = new Item { what = 3, typed = typed };
            it.doneOutcome = RandomOutcome(wd, typed);
            it.doneOutcome.b = 0;
            it.outcome = it.doneOutcome;
            it.done = it.resume = T;
            return it;
        }

        static long AwaitAt(Item it, long T) { return it.done <= T ? T : it.resume; }

        static void Expect(Op op, long at, Outcome o)
        {
            op.observes = true;
            op.expAt = at;
            op.alts.Add(o);
        }

        static Item GenInput(World wd, long T, int depth, bool typed, bool framesOnly)
        {
            var r = wd.r;
            if (framesOnly)
            {
                var w = GenWait(wd, T, false, false);
                while (w.path == P.Token) w = GenWait(wd, T, false, false); // (re-rolled; the extra draws are part of the seed's schedule)
                return w;
            }
            int x = r.Next(100);
            if (typed)
            {
                if (x < 60) return GenSource(wd, T, true);
                if (x < 80 && depth < 2) return GenChild(wd, T, depth, true);
                return GenDone(wd, T, true);
            }
            if (x < 40) return GenWait(wd, T, false, true);
            if (x < 75) return GenSource(wd, T, false);
            if (x < 88 && depth < 2) return GenChild(wd, T, depth, r.Next(2) == 0);
            return GenDone(wd, T, r.Next(2) == 0);
        }

        /// <summary>WhenAny / WhenAll: the model of README "Combinators" and the XML docs:
        /// WhenAny completes like the first input to complete (already completed ones: the first in
        /// array order), WhenAll once every input has, like the first failed input in completion
        /// order; either completes canceled when its token is canceled first.</summary>
        static long ModelCombinator(World wd, Op op, long T)
        {
            bool any = op.k == K.Any;
            long cancelAt = op.cts >= 0 ? wd.ctsCancel[op.cts] : Never;
            if (T >= cancelAt)
            {
                Expect(op, T, new Outcome(CANCEL, 0, 0));
                return T;
            }
            int n = op.inputs.Length;
            var dec = new long[n];
            for (int i = 0; i < n; i++) dec[i] = op.inputs[i].done <= T ? T : op.inputs[i].resume;
            long cancelResume = cancelAt == Never ? Never : op.cts >= 0 && wd.ctsWorker[op.cts] ? Tm(EvOf(cancelAt), 1, SeqOf(cancelAt)) : cancelAt;
            if (any)
            {
                long min = Never;
                for (int i = 0; i < n; i++) min = Math.Min(min, dec[i]);
                if (cancelAt < min)
                {
                    Expect(op, cancelResume, new Outcome(CANCEL, 0, 0));
                    return cancelResume;
                }
                op.expAt = min;
                op.observes = true;
                if (cancelAt == min) op.alts.Add(new Outcome(CANCEL, 0, 0));
                for (int i = 0; i < n; i++)
                {
                    if (dec[i] != min) continue;
                    var o = op.inputs[i].outcome;
                    if (o.kind == OK) op.alts.Add(new Outcome(OK, i, op.typed ? o.a : 0));
                    else op.alts.Add(o);
                    if (min == T) break; // completed at creation: the first in array order wins
                }
                return min;
            }
            long max = T;
            for (int i = 0; i < n; i++) max = Math.Max(max, dec[i]);
            if (cancelAt < max)
            {
                Expect(op, cancelResume, new Outcome(CANCEL, 0, 0));
                return cancelResume;
            }
            op.expAt = max;
            op.observes = true;
            if (cancelAt == max) op.alts.Add(new Outcome(CANCEL, 0, 0));
            long firstFail = Never;
            for (int i = 0; i < n; i++) if (op.inputs[i].outcome.kind != OK) firstFail = Math.Min(firstFail, dec[i]);
            if (firstFail == Never)
            {
                long hash = 0;
                if (op.typed) for (int i = 0; i < n; i++) hash += (i + 1) * op.inputs[i].outcome.a;
                op.alts.Add(new Outcome(OK, hash, 0));
            }
            else
            {
                for (int i = 0; i < n; i++)
                {
                    if (op.inputs[i].outcome.kind == OK || dec[i] != firstFail) continue;
                    op.alts.Add(op.inputs[i].outcome);
                    if (firstFail == T) break; // failed at creation: array order
                }
            }
            return max;
        }

        static Plan GenPlan(World wd, long T, int depth, bool typed)
        {
            var r = wd.r;
            var p = new Plan { id = ++wd.nextPlan, depth = depth, typed = typed, start = T };
            wd.plans.Add(p);
            int nOps = r.Next(1, depth == 0 ? 8 : 5);
            var pendingEarly = new List<Op>();
            for (int i = 0; i < nOps; i++)
            {
                if (pendingEarly.Count > 0 && r.Next(100) < 45)
                {
                    int j = r.Next(pendingEarly.Count);
                    T = GenEarlyAwait(p, pendingEarly[j], T);
                    pendingEarly.RemoveAt(j);
                }
                var op = new Op();
                int x = r.Next(100);
                if (x < 32)
                {
                    op.k = K.Wait;
                    op.item = GenWait(wd, T, true, true);
                    T = AwaitAt(op.item, T);
                    Expect(op, T, op.item.outcome);
                }
                else if (x < 52)
                {
                    op.k = K.Src;
                    op.item = GenSource(wd, T, false);
                    T = AwaitAt(op.item, T);
                    Expect(op, T, op.item.outcome);
                }
                else if (x < 60 && depth < 2)
                {
                    op.k = K.Child;
                    op.item = GenChild(wd, T, depth, r.Next(2) == 0);
                    T = AwaitAt(op.item, T);
                    Expect(op, T, op.item.outcome);
                }
                else if (x < 82)
                {
                    op.k = r.Next(100) < 55 ? K.Any : K.All;
                    int y = r.Next(100);
                    op.framesArray = y < 10;
                    op.typed = !op.framesArray && y < 40;
                    int n = r.Next(100) < 5 ? r.Next(17, 21) : r.Next(1, 6);
                    if (op.k == K.Any && op.typed == false && !op.framesArray && r.Next(100) < 3) n = r.Next(33, 36); // unpooled coordinator
                    op.inputs = new Item[n];
                    for (int k = 0; k < n; k++) op.inputs[k] = GenInput(wd, T, depth, op.typed, op.framesArray);
                    if (r.Next(100) < 35) op.cts = r.Next(wd.ctsCancel.Length);
                    T = ModelCombinator(wd, op, T);
                }
                else
                {
                    op.k = K.EarlyMake;
                    op.slot = p.slots++;
                    op.item = GenWait(wd, T, true, true);
                    op.earlyConvert = op.item.path == P.Fast && r.Next(3) == 0;
                    pendingEarly.Add(op);
                }
                p.ops.Add(op);
            }
            foreach (var e in pendingEarly) T = GenEarlyAwait(p, e, T);
            int th = r.Next(100);
            if (th < 12)
            {
                var op = new Op { k = K.Throw, thrown = th < 8 ? new Outcome(FAULT, wd.nextFault++, 0) : new Outcome(CANCEL, 0, 0) };
                p.ops.Add(op);
                p.expEnd = op.thrown;
            }
            else p.expEnd = new Outcome(OK, typed ? p.id * 1000L + p.ops.Count : 0, 0);
            p.endTime = T;
            return p;
        }

        static long GenEarlyAwait(Plan p, Op make, long T)
        {
            var op = new Op { k = K.EarlyAwait, slot = make.slot, item = make.item, earlyConvert = make.earlyConvert };
            T = AwaitAt(make.item, T);
            Expect(op, T, make.item.outcome);
            p.ops.Add(op);
            return T;
        }

        static World Generate(int seed, int mainFrames, int topMethods, int tokenSources)
        {
            var wd = new World { r = new Random(seed) };
            var r = wd.r;
            for (int f = 0; f < mainFrames; f++) wd.AddFrame(false);
            int mainEvents = wd.evs.Count;
            wd.ctsCancel = new long[tokenSources];
            wd.ctsWorker = new bool[tokenSources];
            for (int i = 0; i < tokenSources; i++)
            {
                if (r.Next(100) < 25) { wd.ctsCancel[i] = Never; continue; }
                int B = r.Next(2, mainEvents);
                wd.ctsWorker[i] = r.Next(2) == 0;
                wd.ctsCancel[i] = Tm(B, 0, wd.blocks[B].Count);
                wd.blocks[B].Add(new Act { kind = 2, cts = i, worker = wd.ctsWorker[i] });
            }
            // Starts in event order, so a start's host step exists before the model of anything
            // it schedules later in the same block.
            var starts = new int[topMethods];
            for (int i = 0; i < topMethods; i++) starts[i] = i < topMethods / 8 ? 1 : r.Next(1, mainEvents);
            Array.Sort(starts);
            foreach (int B in starts)
            {
                long T = Tm(B, 0, wd.blocks[B].Count);
                var act = new Act { kind = 0 };
                wd.blocks[B].Add(act);
                act.plan = GenPlan(wd, T, 0, r.Next(2) == 0);
                wd.top.Add(act.plan);
            }
            return wd;
        }
    }
}
