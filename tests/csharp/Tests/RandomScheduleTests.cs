using System;
using System.Collections.Generic;
using System.Reflection;
using System.Text;
using System.Threading;
using Onity.Native;

namespace Onity.Tests
{
    /// <summary>Deterministic randomized schedules (fixed seeds): many async OnityTask /
    /// OnityTask&lt;T&gt; methods each run a random sequence of awaits (fast-lane, converted and
    /// token frame waits, Delay, pooled and plain completion sources completed later from the owner
    /// or a worker thread, WhenAny/WhenAll over mixes of those and of child methods, tokens
    /// canceled at random points, exceptions thrown by the methods). A model written from
    /// bindings/README.md predicts, for every await, the host event (BeginFrame / Tick(t) / Drain,
    /// or the host step between events) at which it resumes and what it observes; the host then
    /// drives the runtime event by event and every observation is compared with the model.
    ///
    /// Model time: (event k, phase, seq). Phase 0 = host code before event k (seq = step), phase 1
    /// = continuations posted from other threads, run at the start of event k (BeginFrame, Tick
    /// and Drain all run them; seq = post order), phase 2 = resumptions of event k's timing run
    /// (no order is modelled inside it: ties there are accepted either way).</summary>
    public class RandomScheduleTests
    {
        // ---------------------------------------------------------------- outcomes and time

        const int OK = 0, FAULT = 1, CANCEL = 2;

        struct Outcome
        {
            public int kind;
            public long a, b;
            public Outcome(int kind, long a, long b) { this.kind = kind; this.a = a; this.b = b; }
            public bool Same(Outcome o) { return kind == o.kind && (kind == CANCEL || (a == o.a && b == o.b)); }
            public override string ToString() { return kind == OK ? "ok(" + a + "," + b + ")" : kind == FAULT ? "fault(" + a + ")" : "canceled"; }
        }

        sealed class TestFault : Exception
        {
            public readonly long Id;
            public TestFault(long id) : base("test fault " + id) { Id = id; }
        }

        static long Tm(int ev, int ph, int seq) { return ((long)ev << 24) | ((long)ph << 20) | (long)seq; }
        static int EvOf(long t) { return (int)(t >> 24); }
        static int PhOf(long t) { return (int)((t >> 20) & 15); }
        static int SeqOf(long t) { return (int)(t & 0xFFFFF); }
        const long Never = long.MaxValue;
        static string TmText(long t) { return t == Never ? "never" : EvOf(t) + "/" + PhOf(t) + "/" + SeqOf(t); }

        // ---------------------------------------------------------------- plans

        enum K { Wait, Src, Child, Any, All, EarlyMake, EarlyAwait, Throw }
        enum W { Yield, NextFrame, DelayFrame, Delay }
        enum P { Fast, Converted, Token }
        enum S { AutoTyped, AutoUntyped, PlainTyped, PlainUntyped }

        /// <summary>Something awaitable: a frame wait / Delay (what 0), a completion source (1), a
        /// child method (2) or an already completed task (3).</summary>
        sealed class Item
        {
            public int what;
            public W w; public P path; public OnityTiming timing; public int n; public long delayTicks; public DelayType clk; public int cts = -1;
            public bool defaultOverload; // Update overloads without a timing argument
            public S src; public int srcId; public bool preComplete; public Outcome srcOutcome; public bool worker;
            public Plan child;
            public Outcome doneOutcome;
            public bool typed;
            // model
            public long done, resume;
            public Outcome outcome;

            public override string ToString()
            {
                switch (what)
                {
                    case 0:
                        return w + "(" + (w == W.Delay ? new TimeSpan(delayTicks).TotalMilliseconds + "ms " + clk : w == W.DelayFrame ? n.ToString() : "") + ")@" + timing + " " + path + (cts >= 0 ? " cts" + cts : "");
                    case 1: return src + " #" + srcId + (preComplete ? " pre " : worker ? " worker " : " owner ") + srcOutcome;
                    case 2: return "child " + child.id + (child.typed ? " typed" : " untyped");
                    default: return "done " + doneOutcome + (typed ? " typed" : "");
                }
            }
        }

        sealed class Op
        {
            public K k;
            public Item item;
            public Item[] inputs;
            public bool typed, framesArray;
            public int cts = -1;
            public int slot;
            public bool earlyConvert;
            public Outcome thrown;
            public bool observes;
            // expectation
            public long expAt;
            public List<Outcome> alts = new List<Outcome>();
            // observation
            public int count, obsEv, obsStep;
            public Outcome obs;
            public bool offThread;
            public string unexpected;

            public override string ToString()
            {
                var sb = new StringBuilder(k.ToString());
                if (item != null) sb.Append(" [").Append(item).Append("]");
                if (inputs != null)
                {
                    sb.Append(typed ? " typed" : "").Append(framesArray ? " frames[]" : "").Append(cts >= 0 ? " cts" + cts : "").Append(" {");
                    for (int i = 0; i < inputs.Length; i++) sb.Append(i == 0 ? "" : "; ").Append(inputs[i]).Append(" dec ").Append(TmText(inputs[i].done)).Append("->").Append(TmText(inputs[i].resume));
                    sb.Append("}");
                }
                if (k == K.EarlyMake || k == K.EarlyAwait) sb.Append(" slot ").Append(slot).Append(earlyConvert ? " converted" : "");
                return sb.ToString();
            }
        }

        sealed class Plan
        {
            public int id, depth;
            public bool typed;
            public List<Op> ops = new List<Op>();
            public int slots;
            public long start, endTime;
            public Outcome expEnd;
            public int finished;
            public bool offThreadFinish;
        }

        // ---------------------------------------------------------------- the host timeline

        enum EK { Begin, Tick, Drain }

        struct Ev
        {
            public EK kind;
            public OnityTiming t;
            public int frame;
        }

        sealed class Act
        {
            public int kind; // 0 start a method, 1 complete a source, 2 cancel a token source
            public bool worker;
            public Plan plan;
            public int srcId;
            public Outcome outcome;
            public int cts;
        }

        sealed class World
        {
            public Random r;
            public readonly List<Ev> evs = new List<Ev>();
            public readonly List<List<Act>> blocks = new List<List<Act>>();
            public readonly List<double> dt = new List<double> { 0 }, udt = new List<double> { 0 }, real = new List<double> { 0 };
            public readonly List<double> clkS = new List<double> { 0 }, clkU = new List<double> { 0 };
            public int frames;
            public long[] ctsCancel;
            public bool[] ctsWorker;
            public int nextPlan, nextSrc;
            public long nextFault = 1;
            public readonly List<Plan> plans = new List<Plan>();
            public readonly List<Plan> top = new List<Plan>();
            public int maxEvents = 200000;

            void AddEvent(EK kind, OnityTiming t)
            {
                evs.Add(new Ev { kind = kind, t = t, frame = frames });
                blocks.Add(new List<Act>());
            }

            /// <summary>A frame: BeginFrame, then a random subset of the timings in order
            /// (FixedUpdate 0-3 times, Update usually), Drains here and there; a full frame runs
            /// every timing once with dt = 1/64.</summary>
            public void AddFrame(bool full)
            {
                frames++;
                double d, u;
                if (full) { d = 1.0 / 64; u = 1.0 / 64; }
                else
                {
                    d = r.Next(100) < 15 ? 0 : r.Next(1, 4) / 64.0;
                    u = r.Next(1, 4) / 64.0;
                }
                dt.Add(d);
                udt.Add(u);
                clkS.Add(clkS[frames - 1] + d);
                clkU.Add(clkU[frames - 1] + u);
                real.Add(real[frames - 1] + u + (full ? 0 : r.Next(0, 3) / 64.0));
                AddEvent(EK.Begin, 0);
                for (int t = 0; t < 16; t++)
                {
                    int times = full ? 1 : t == (int)OnityTiming.FixedUpdate ? r.Next(0, 4) : t == (int)OnityTiming.Update ? (r.Next(100) < 85 ? 1 : 0) : (r.Next(100) < 50 ? 1 : 0);
                    for (int i = 0; i < times; i++)
                    {
                        AddEvent(EK.Tick, (OnityTiming)t);
                        if (!full && r.Next(100) < 6) AddEvent(EK.Drain, 0);
                    }
                }
            }

            public void EnsureEvents(int n)
            {
                while (evs.Count < n)
                {
                    if (evs.Count > maxEvents) throw new InvalidOperationException("model: timeline too long");
                    AddFrame(true);
                }
            }

            /// <summary>The frame current at time <paramref name="t"/>.</summary>
            public int FrameAt(long t)
            {
                int k = EvOf(t);
                return PhOf(t) == 0 ? evs[k - 1].frame : evs[k].frame;
            }

            double Clock(DelayType c, int f) { return c == DelayType.DeltaTime ? clkS[f] : c == DelayType.UnscaledDeltaTime ? clkU[f] : real[f]; }

            /// <summary>The first Tick(timing) run after <paramref name="from"/> whose frame
            /// satisfies the wait (Yield: any; NextFrame: a later frame; DelayFrame(n): n frames
            /// later; Delay: a later frame whose clock advanced by the delay).</summary>
            public int FirstTick(long from, Item it, bool anyFrame)
            {
                int e = PhOf(from) == 2 ? EvOf(from) + 1 : EvOf(from);
                int F = FrameAt(from);
                int t = (int)it.timing;
                double secs = it.delayTicks / 1e7;
                for (; ; e++)
                {
                    EnsureEvents(e + 1);
                    var ev = evs[e];
                    if (ev.kind != EK.Tick || (int)ev.t != t) continue;
                    int f = ev.frame;
                    if (anyFrame) return e;
                    switch (it.w)
                    {
                        case W.Yield: return e;
                        case W.NextFrame: if (f > F) return e; break;
                        case W.DelayFrame: if (it.n == 0 || f >= F + it.n) return e; break;
                        case W.Delay: if (f > F && Clock(it.clk, f) - Clock(it.clk, F) >= secs) return e; break;
                    }
                }
            }
        }

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

        // ---------------------------------------------------------------- execution

        sealed class Worker : IDisposable
        {
            readonly Thread thread;
            readonly AutoResetEvent go = new AutoResetEvent(false), done = new AutoResetEvent(false);
            Action job;
            Exception error;
            volatile bool stop;
            public int ThreadId;

            public Worker()
            {
                thread = new Thread(Loop) { IsBackground = true };
                thread.Start();
                Run(() => ThreadId = Thread.CurrentThread.ManagedThreadId);
            }

            void Loop()
            {
                while (true)
                {
                    go.WaitOne();
                    if (stop) return;
                    try { job(); } catch (Exception e) { error = e; }
                    done.Set();
                }
            }

            public void Run(Action a)
            {
                job = a;
                go.Set();
                done.WaitOne();
                job = null;
                if (error != null) { var e = error; error = null; throw e; }
            }

            public void Dispose() { stop = true; go.Set(); thread.Join(); }
        }

        sealed class Ctx
        {
            public Thread owner;
            public int curEv, curStep;
            public readonly Dictionary<int, object> sources = new Dictionary<int, object>();
            public CancellationTokenSource[] cts;
            public readonly List<string> errors = new List<string>();

            public CancellationToken Token(int i) { return cts[i].Token; }

            public void Observe(Op op, Exception err, long a, long b)
            {
                op.count++;
                op.obsEv = curEv;
                op.obsStep = curStep;
                if (Thread.CurrentThread != owner) op.offThread = true;
                if (err == null) op.obs = new Outcome(OK, a, b);
                else if (err is TestFault) op.obs = new Outcome(FAULT, ((TestFault)err).Id, 0);
                else if (err is OperationCanceledException) op.obs = new Outcome(CANCEL, 0, 0);
                else { op.obs = new Outcome(FAULT, -1, 0); op.unexpected = err.ToString(); }
            }

            public void Finish(Plan p)
            {
                p.finished++;
                if (Thread.CurrentThread != owner) p.offThreadFinish = true;
            }
        }

        static bool Complete(object so, Outcome o)
        {
            Exception ex = o.kind == FAULT ? (Exception)new TestFault(o.a) : o.kind == CANCEL && o.b == 1 ? new OperationCanceledException() : null;
            var at = so as AutoResetOnityCompletionSource<int>;
            if (at != null) return o.kind == OK ? at.TrySetResult((int)o.a) : ex != null ? at.TrySetException(ex) : at.TrySetCanceled();
            var au = so as AutoResetOnityCompletionSource;
            if (au != null) return o.kind == OK ? au.TrySetResult() : ex != null ? au.TrySetException(ex) : au.TrySetCanceled();
            var pu = so as OnityCompletionSource;
            if (pu != null) return o.kind == OK ? pu.TrySetResult() : ex != null ? pu.TrySetException(ex) : pu.TrySetCanceled();
            var pt = (OnityCompletionSource<int>)so;
            return o.kind == OK ? pt.TrySetResult((int)o.a) : ex != null ? pt.TrySetException(ex) : pt.TrySetCanceled();
        }

        static OnityFrameWait MakeFrameWait(Item it)
        {
            switch (it.w)
            {
                case W.Yield: return it.defaultOverload ? OnityTask.Yield() : OnityTask.Yield(it.timing);
                case W.NextFrame: return it.defaultOverload ? OnityTask.NextFrame() : OnityTask.NextFrame(it.timing);
                default: return it.defaultOverload ? OnityTask.DelayFrame(it.n) : OnityTask.DelayFrame(it.n, it.timing);
            }
        }

        static OnityTask MakeWaitTask(Ctx c, Item it)
        {
            if (it.w == W.Delay)
            {
                var ts = new TimeSpan(it.delayTicks);
                return it.path == P.Token ? OnityTask.Delay(ts, it.clk, it.timing, c.Token(it.cts)) : OnityTask.Delay(ts, it.clk, it.timing);
            }
            if (it.path == P.Token)
            {
                var ct = c.Token(it.cts);
                switch (it.w)
                {
                    case W.Yield: return it.defaultOverload ? OnityTask.Yield(ct) : OnityTask.Yield(it.timing, ct);
                    case W.NextFrame: return it.defaultOverload ? OnityTask.NextFrame(ct) : OnityTask.NextFrame(it.timing, ct);
                    default: return OnityTask.DelayFrame(it.n, it.timing, ct);
                }
            }
            var fw = MakeFrameWait(it);
            return it.n % 2 == 0 ? (OnityTask)fw : fw.ToOnityTask();
        }

        static object MakeSource(Ctx c, Item it)
        {
            object so;
            switch (it.src)
            {
                case S.AutoTyped: so = AutoResetOnityCompletionSource<int>.Create(); break;
                case S.AutoUntyped: so = AutoResetOnityCompletionSource.Create(); break;
                case S.PlainTyped: so = new OnityCompletionSource<int>(); break;
                default: so = new OnityCompletionSource(); break;
            }
            if (it.preComplete)
            {
                if (!Complete(so, it.srcOutcome)) c.errors.Add("pre-completion of source " + it.srcId + " refused");
            }
            else c.sources.Add(it.srcId, so);
            return so;
        }

        static OnityTask<int> SourceTyped(object so)
        {
            var at = so as AutoResetOnityCompletionSource<int>;
            return at != null ? at.Task : ((OnityCompletionSource<int>)so).Task;
        }

        static OnityTask SourceUntyped(object so)
        {
            var au = so as AutoResetOnityCompletionSource;
            if (au != null) return au.Task;
            var pu = so as OnityCompletionSource;
            if (pu != null) return pu.Task;
            return SourceTyped(so); // a typed source awaited as an untyped task
        }

        static OnityTask<int> MakeTyped(Ctx c, Item it)
        {
            switch (it.what)
            {
                case 1: return SourceTyped(MakeSource(c, it));
                case 2: return RunTyped(c, it.child);
                default:
                    var o = it.doneOutcome;
                    return o.kind == OK ? OnityTask.FromResult((int)o.a) : o.kind == FAULT ? OnityTask.FromException<int>(new TestFault(o.a)) : OnityTask.FromCanceled<int>();
            }
        }

        static OnityTask MakeUntyped(Ctx c, Item it)
        {
            switch (it.what)
            {
                case 0: return MakeWaitTask(c, it);
                case 1: return SourceUntyped(MakeSource(c, it));
                case 2: return it.typed ? (OnityTask)RunTyped(c, it.child) : RunUntyped(c, it.child);
                default:
                    if (it.typed) return MakeTyped(c, it);
                    var o = it.doneOutcome;
                    return o.kind == OK ? OnityTask.CompletedTask : o.kind == FAULT ? OnityTask.FromException(new TestFault(o.a)) : OnityTask.FromCanceled();
            }
        }

        static long Hash(int[] v)
        {
            long h = 0;
            for (int i = 0; i < v.Length; i++) h += (i + 1) * (long)v[i];
            return h;
        }

        // The interpreter, twice (an async OnityTask<int> and an async OnityTask method): each
        // await is in the method itself, so the fast lane and both builders are exercised.

        static async OnityTask<int> RunTyped(Ctx c, Plan p)
        {
            var fw = p.slots > 0 ? new OnityFrameWait[p.slots] : null;
            var ft = p.slots > 0 ? new OnityTask[p.slots] : null;
            for (int i = 0; i < p.ops.Count; i++)
            {
                var op = p.ops[i];
                var it = op.item;
                Exception err = null;
                long a = 0, b = 0;
                switch (op.k)
                {
                    case K.Wait:
                        try
                        {
                            if (it.path == P.Fast) await MakeFrameWait(it);
                            else await MakeWaitTask(c, it);
                        }
                        catch (Exception e) { err = e; }
                        break;
                    case K.Src:
                        try
                        {
                            var so = MakeSource(c, it);
                            if (it.typed) a = await SourceTyped(so);
                            else await SourceUntyped(so);
                        }
                        catch (Exception e) { err = e; }
                        break;
                    case K.Child:
                        try
                        {
                            if (it.typed) a = await RunTyped(c, it.child);
                            else await RunUntyped(c, it.child);
                        }
                        catch (Exception e) { err = e; }
                        break;
                    case K.Any:
                    case K.All:
                        try
                        {
                            int n = op.inputs.Length;
                            if (op.framesArray)
                            {
                                var ws = new OnityFrameWait[n];
                                for (int k = 0; k < n; k++) ws[k] = MakeFrameWait(op.inputs[k]);
                                if (op.k == K.Any) a = await (op.cts >= 0 ? OnityTask.WhenAny(ws, c.Token(op.cts)) : OnityTask.WhenAny(ws));
                                else await (op.cts >= 0 ? OnityTask.WhenAll(ws, c.Token(op.cts)) : OnityTask.WhenAll(ws));
                            }
                            else if (op.typed)
                            {
                                var ts = new OnityTask<int>[n];
                                for (int k = 0; k < n; k++) ts[k] = MakeTyped(c, op.inputs[k]);
                                if (op.k == K.Any)
                                {
                                    var res = await (op.cts >= 0 ? OnityTask.WhenAny(ts, c.Token(op.cts)) : OnityTask.WhenAny(ts));
                                    a = res.winArgumentIndex;
                                    b = res.result;
                                }
                                else a = Hash(await (op.cts >= 0 ? OnityTask.WhenAll(ts, c.Token(op.cts)) : OnityTask.WhenAll(ts)));
                            }
                            else
                            {
                                var ts = new OnityTask[n];
                                for (int k = 0; k < n; k++) ts[k] = MakeUntyped(c, op.inputs[k]);
                                if (op.k == K.Any) a = await (op.cts >= 0 ? OnityTask.WhenAny(ts, c.Token(op.cts)) : OnityTask.WhenAny(ts));
                                else await (op.cts >= 0 ? OnityTask.WhenAll(ts, c.Token(op.cts)) : OnityTask.WhenAll(ts));
                            }
                        }
                        catch (Exception e) { err = e; }
                        break;
                    case K.EarlyMake:
                        if (it.path == P.Fast && !op.earlyConvert) fw[op.slot] = MakeFrameWait(it);
                        else if (it.path == P.Fast) ft[op.slot] = MakeFrameWait(it);
                        else ft[op.slot] = MakeWaitTask(c, it);
                        continue;
                    case K.EarlyAwait:
                        try
                        {
                            if (it.path == P.Fast && !op.earlyConvert) await fw[op.slot];
                            else await ft[op.slot];
                        }
                        catch (Exception e) { err = e; }
                        break;
                    case K.Throw:
                        c.Finish(p);
                        if (op.thrown.kind == FAULT) throw new TestFault(op.thrown.a);
                        throw new OperationCanceledException();
                }
                c.Observe(op, err, a, b);
            }
            c.Finish(p);
            return p.id * 1000 + p.ops.Count;
        }

        static async OnityTask RunUntyped(Ctx c, Plan p)
        {
            var fw = p.slots > 0 ? new OnityFrameWait[p.slots] : null;
            var ft = p.slots > 0 ? new OnityTask[p.slots] : null;
            for (int i = 0; i < p.ops.Count; i++)
            {
                var op = p.ops[i];
                var it = op.item;
                Exception err = null;
                long a = 0, b = 0;
                switch (op.k)
                {
                    case K.Wait:
                        try
                        {
                            if (it.path == P.Fast) await MakeFrameWait(it);
                            else await MakeWaitTask(c, it);
                        }
                        catch (Exception e) { err = e; }
                        break;
                    case K.Src:
                        try
                        {
                            var so = MakeSource(c, it);
                            if (it.typed) a = await SourceTyped(so);
                            else await SourceUntyped(so);
                        }
                        catch (Exception e) { err = e; }
                        break;
                    case K.Child:
                        try
                        {
                            if (it.typed) a = await RunTyped(c, it.child);
                            else await RunUntyped(c, it.child);
                        }
                        catch (Exception e) { err = e; }
                        break;
                    case K.Any:
                    case K.All:
                        try
                        {
                            int n = op.inputs.Length;
                            if (op.framesArray)
                            {
                                var ws = new OnityFrameWait[n];
                                for (int k = 0; k < n; k++) ws[k] = MakeFrameWait(op.inputs[k]);
                                if (op.k == K.Any) a = await (op.cts >= 0 ? OnityTask.WhenAny(ws, c.Token(op.cts)) : OnityTask.WhenAny(ws));
                                else await (op.cts >= 0 ? OnityTask.WhenAll(ws, c.Token(op.cts)) : OnityTask.WhenAll(ws));
                            }
                            else if (op.typed)
                            {
                                var ts = new OnityTask<int>[n];
                                for (int k = 0; k < n; k++) ts[k] = MakeTyped(c, op.inputs[k]);
                                if (op.k == K.Any)
                                {
                                    var res = await (op.cts >= 0 ? OnityTask.WhenAny(ts, c.Token(op.cts)) : OnityTask.WhenAny(ts));
                                    a = res.winArgumentIndex;
                                    b = res.result;
                                }
                                else a = Hash(await (op.cts >= 0 ? OnityTask.WhenAll(ts, c.Token(op.cts)) : OnityTask.WhenAll(ts)));
                            }
                            else
                            {
                                var ts = new OnityTask[n];
                                for (int k = 0; k < n; k++) ts[k] = MakeUntyped(c, op.inputs[k]);
                                if (op.k == K.Any) a = await (op.cts >= 0 ? OnityTask.WhenAny(ts, c.Token(op.cts)) : OnityTask.WhenAny(ts));
                                else await (op.cts >= 0 ? OnityTask.WhenAll(ts, c.Token(op.cts)) : OnityTask.WhenAll(ts));
                            }
                        }
                        catch (Exception e) { err = e; }
                        break;
                    case K.EarlyMake:
                        if (it.path == P.Fast && !op.earlyConvert) fw[op.slot] = MakeFrameWait(it);
                        else if (it.path == P.Fast) ft[op.slot] = MakeFrameWait(it);
                        else ft[op.slot] = MakeWaitTask(c, it);
                        continue;
                    case K.EarlyAwait:
                        try
                        {
                            if (it.path == P.Fast && !op.earlyConvert) await fw[op.slot];
                            else await ft[op.slot];
                        }
                        catch (Exception e) { err = e; }
                        break;
                    case K.Throw:
                        c.Finish(p);
                        if (op.thrown.kind == FAULT) throw new TestFault(op.thrown.a);
                        throw new OperationCanceledException();
                }
                c.Observe(op, err, a, b);
            }
            c.Finish(p);
        }

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

        // ---------------------------------------------------------------- steady schedule: 0 bytes

        /// <summary>A long-lived async method doing random awaits from the operations the README
        /// says allocate nothing after warm-up ("frame waits, with or without a token, completed
        /// async methods, manual sources, WhenAny ≤ 32 without a token"): fast-lane NextFrame /
        /// Yield / DelayFrame, converted frame waits, token waits on a long-lived token, Delay,
        /// pooled auto-reset sources completed later by the host, WhenAny over a reused array,
        /// completed and suspending child async methods.</summary>
        sealed class SteadyLoop
        {
            public Random r;
            public AutoResetOnityCompletionSource<int> pendingTyped;
            public AutoResetOnityCompletionSource pendingUntyped;
            public AutoResetOnityCompletionSource pendingLoser;
            public readonly OnityTask[] any2 = new OnityTask[2], any3 = new OnityTask[3];
            public readonly OnityTask[] all2 = new OnityTask[2];
            public long ops;
            public bool useWhenAll;
        }

        static volatile bool steadyStop;

#pragma warning disable 1998
        static async OnityTask<int> CompletedChild(int x) { return x + 1; }
#pragma warning restore 1998

        static async OnityTask<int> SuspendingChild(int x)
        {
            await OnityTask.NextFrame();
            return x + 1;
        }

        static async OnityTask SteadyRun(SteadyLoop s, CancellationToken ct)
        {
            var r = s.r;
            while (!steadyStop)
            {
                var t = r.Next(3) == 0 ? OnityTiming.FixedUpdate : OnityTiming.Update;
                int k = r.Next(s.useWhenAll ? 14 : 13);
                switch (k)
                {
                    case 0: await OnityTask.NextFrame(t); break;
                    case 1: await OnityTask.Yield(t); break;
                    case 2: await OnityTask.DelayFrame(r.Next(0, 4), t); break;
                    case 3: await OnityTask.NextFrame(t, ct); break;
                    case 4: await OnityTask.DelayFrame(r.Next(0, 3), t, ct); break;
                    case 5: await (OnityTask)OnityTask.DelayFrame(r.Next(0, 3), t); break;
                    case 6: await OnityTask.Delay(TimeSpan.FromTicks(r.Next(0, 4) * 156250L + 78125L), (DelayType)r.Next(3), t); break;
                    case 7:
                        s.pendingTyped = AutoResetOnityCompletionSource<int>.Create();
                        await s.pendingTyped.Task;
                        break;
                    case 8:
                        s.pendingUntyped = AutoResetOnityCompletionSource.Create();
                        await s.pendingUntyped.Task;
                        break;
                    case 9:
                        await CompletedChild(k);
                        break;
                    case 10:
                        await SuspendingChild(k);
                        break;
                    case 11:
                        s.any2[0] = OnityTask.NextFrame(t);
                        s.any2[1] = OnityTask.DelayFrame(3, t);
                        await OnityTask.WhenAny(s.any2);
                        break;
                    case 12:
                        if (s.pendingLoser != null) { await OnityTask.Yield(t); break; }
                        s.pendingLoser = AutoResetOnityCompletionSource.Create();
                        s.any3[0] = s.pendingLoser.Task;
                        s.any3[1] = OnityTask.DelayFrame(2, t);
                        s.any3[2] = OnityTask.Yield(t, ct);
                        await OnityTask.WhenAny(s.any3);
                        break;
                    default:
                        s.all2[0] = OnityTask.NextFrame(t);
                        s.all2[1] = OnityTask.DelayFrame(2, t);
                        await OnityTask.WhenAll(s.all2);
                        break;
                }
                s.ops++;
            }
        }

        static void SteadyFrame(TestHost h, SteadyLoop[] loops, Random hr)
        {
            h.Begin();
            var rt = h.Runtime;
            rt.Tick(OnityTiming.Initialization);
            int fixedRuns = hr.Next(0, 3);
            for (int i = 0; i < fixedRuns; i++) rt.Tick(OnityTiming.FixedUpdate);
            rt.Tick(OnityTiming.Update);
            // Completions from the owner: inline continuations.
            for (int i = 0; i < loops.Length; i++)
            {
                var s = loops[i];
                if (s.pendingTyped != null && hr.Next(2) == 0) { var x = s.pendingTyped; s.pendingTyped = null; x.TrySetResult(i); }
                if (s.pendingUntyped != null && hr.Next(2) == 0) { var x = s.pendingUntyped; s.pendingUntyped = null; x.TrySetResult(); }
                if (s.pendingLoser != null && hr.Next(3) == 0) { var x = s.pendingLoser; s.pendingLoser = null; x.TrySetResult(); }
            }
            rt.Tick(OnityTiming.LastUpdate);
            rt.Tick(OnityTiming.PostLateUpdate);
        }

        /// <summary>Fills the pools a random schedule draws from beyond its peak concurrency: a
        /// random schedule keeps reaching new peaks now and then (each a pool miss, a cold
        /// allocation), so "after warm-up" has to include the peak.</summary>
        static void PrewarmPools(TestHost h, int n)
        {
            var typed = new AutoResetOnityCompletionSource<int>[n];
            var untyped = new AutoResetOnityCompletionSource[n];
            var anys = new OnityTask<int>[n];
            var alls = new OnityTask[n];
            var children = new OnityTask<int>[n];
            for (int i = 0; i < n; i++)
            {
                typed[i] = AutoResetOnityCompletionSource<int>.Create();
                untyped[i] = AutoResetOnityCompletionSource.Create();
            }
            for (int i = 0; i < n; i++) typed[i].TrySetResult(i);
            for (int i = 0; i < n; i++) typed[i].Task.GetAwaiter().GetResult();
            for (int i = 0; i < n; i++) untyped[i].TrySetResult();
            for (int i = 0; i < n; i++) untyped[i].Task.GetAwaiter().GetResult();
            for (int i = 0; i < n; i++)
            {
                untyped[i] = AutoResetOnityCompletionSource.Create();
                anys[i] = OnityTask.WhenAny(untyped[i].Task);
            }
            for (int i = 0; i < n; i++) untyped[i].TrySetResult();
            for (int i = 0; i < n; i++) anys[i].GetAwaiter().GetResult();
            for (int i = 0; i < n; i++)
            {
                untyped[i] = AutoResetOnityCompletionSource.Create();
                alls[i] = OnityTask.WhenAll(untyped[i].Task, OnityTask.CompletedTask);
            }
            for (int i = 0; i < n; i++) untyped[i].TrySetResult();
            for (int i = 0; i < n; i++) alls[i].GetAwaiter().GetResult();
            for (int i = 0; i < n; i++) children[i] = SuspendingChild(i);
            h.RunFrame(OnityTiming.Update);
            for (int i = 0; i < n; i++) children[i].GetAwaiter().GetResult();
        }

        static long SteadyBytes(bool useWhenAll, out long ops)
        {
            long bytes = 0, n = 0;
            FreshThread.Run(() =>
            {
                using (var h = new TestHost())
                using (var cts = new CancellationTokenSource())
                {
                    steadyStop = false;
                    h.Dt = 1.0 / 64; h.UnscaledDt = 1.0 / 64;
                    var hr = new Random(99);
                    var loops = new SteadyLoop[96];
                    var tasks = new OnityTask[loops.Length];
                    h.RunFrame(OnityTiming.Update);
                    PrewarmPools(h, 400);
                    for (int i = 0; i < loops.Length; i++)
                    {
                        loops[i] = new SteadyLoop { r = new Random(1000 + i), useWhenAll = useWhenAll };
                        tasks[i] = SteadyRun(loops[i], cts.Token);
                    }
                    for (int f = 0; f < 300; f++) SteadyFrame(h, loops, hr);
                    long ops0 = 0;
                    foreach (var s in loops) ops0 += s.ops;
                    long b0 = GC.GetAllocatedBytesForCurrentThread();
                    for (int f = 0; f < 600; f++) SteadyFrame(h, loops, hr);
                    bytes = GC.GetAllocatedBytesForCurrentThread() - b0;
                    foreach (var s in loops) n += s.ops;
                    n -= ops0;
                    steadyStop = true;
                    for (int f = 0; f < 10; f++)
                    {
                        SteadyFrame(h, loops, hr);
                        foreach (var s in loops)
                        {
                            if (s.pendingTyped != null) { s.pendingTyped.TrySetResult(0); s.pendingTyped = null; }
                            if (s.pendingUntyped != null) { s.pendingUntyped.TrySetResult(); s.pendingUntyped = null; }
                            if (s.pendingLoser != null) { s.pendingLoser.TrySetResult(); s.pendingLoser = null; }
                        }
                    }
                    foreach (var t in tasks)
                    {
                        Assert.Equal(OnityTaskStatus.Succeeded, t.Status, "loop ended");
                        t.GetAwaiter().GetResult();
                    }
                    for (int f = 0; f < 4; f++) h.RunFrame();
                    var m = h.Runtime.GetManagedStats();
                    Assert.Equal(0, m.PendingWaits + m.CompletedUnconsumedWaits, "waits left: " + m);
                    Assert.Equal(0, h.Unobserved.Count, "unobserved");
                }
            });
            ops = n;
            return bytes;
        }

        [Test]
        public void SteadyRandomScheduleAllocatesNothing()
        {
            long ops;
            long bytes = SteadyBytes(false, out ops);
            Assert.True(ops > 20000, "operations measured: " + ops);
            Assert.Equal(0L, bytes, "bytes over " + ops + " random awaits");
        }

        [Test]
        public void SteadyRandomScheduleWithWhenAllAllocatesNothing()
        {
            // Untyped WhenAll (<= 32 inputs, no token) is pooled like WhenAny; the README's list of
            // allocation-free paths does not name it.
            long ops;
            long bytes = SteadyBytes(true, out ops);
            Assert.True(ops > 20000, "operations measured: " + ops);
            Assert.Equal(0L, bytes, "bytes over " + ops + " random awaits");
        }

        // ---------------------------------------------------------------- order within a run (README)

        static async OnityTask LogAfter(OnityFrameWait w, List<string> log, string name)
        {
            await w;
            log.Add(name);
        }

        [Test]
        public void AFastLaneDelayFrameAwaitedTheFrameBeforeItIsDueRunsWithTheNextFramesInAwaitOrder()
        {
            // bindings/README.md: within one run of a timing, fast-lane Yields, then the waits filed
            // with one frame left (NextFrame, DelayFrame(1), a DelayFrame awaited the frame before
            // it is due) in await order. A DelayFrame(2) created in frame 1 and awaited in frame 2
            // resumes before a NextFrame awaited after it.
            using (var h = new TestHost())
            {
                var log = new List<string>();
                h.RunFrame(OnityTiming.Update);                    // frame 1
                var late = OnityTask.DelayFrame(2);                // due at Update of frame 3
                h.RunFrame(OnityTiming.Update);                    // frame 2
                var a = LogAfter(late, log, "DelayFrame(2) from frame 1");
                var b = LogAfter(OnityTask.NextFrame(), log, "NextFrame from frame 2");
                var c = LogAfter(OnityTask.DelayFrame(2), log, "DelayFrame(2) from frame 2");
                h.RunFrame(OnityTiming.Update);                    // frame 3: a and b due
                a.GetAwaiter().GetResult();
                b.GetAwaiter().GetResult();
                Assert.Equal("DelayFrame(2) from frame 1,NextFrame from frame 2", string.Join(",", log), "order in the Update run of frame 3");
                h.RunFrame(OnityTiming.Update);                    // frame 4: c
                c.GetAwaiter().GetResult();
                Assert.Equal(3, log.Count, "the DelayFrame(2) awaited in frame 2 resumes in frame 4");
            }
        }

        [Test]
        public void AFastLaneDelayFrameOfOneRunsWithTheNextFramesInAwaitOrder()
        {
            // DelayFrame(1) is filed as a NextFrame (one frame left): await order among them, and
            // longer DelayFrames due in the same run come after both.
            using (var h = new TestHost())
            {
                var log = new List<string>();
                h.RunFrame(OnityTiming.Update);                    // frame 1
                var d2 = OnityTask.DelayFrame(1);
                h.RunFrame(OnityTiming.Update);                    // frame 2
                var a = LogAfter(OnityTask.DelayFrame(2), log, "DelayFrame(2)");
                h.RunFrame(OnityTiming.Update);                    // frame 3
                var b = LogAfter(OnityTask.DelayFrame(1), log, "DelayFrame(1)");
                var c = LogAfter(OnityTask.NextFrame(), log, "NextFrame");
                h.RunFrame(OnityTiming.Update);                    // frame 4: all three due
                a.GetAwaiter().GetResult();
                b.GetAwaiter().GetResult();
                c.GetAwaiter().GetResult();
                Assert.Equal("DelayFrame(1),NextFrame,DelayFrame(2)", string.Join(",", log), "order in the Update run of frame 4");
                GC.KeepAlive(d2);
            }
        }

        [Test]
        public void RandomScheduleMatchesTheModel()
        {
            RunSeeds(new[] { 1, 2, 3, 4, 5, 6, 7, 8 }, 30, 120);
        }
    }
}
