using System;
using System.Collections.Generic;
using System.Text;
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
    // The class is split by topic: this file (outcomes, plans, the host timeline, the tests of
    // order within a run and the randomized run), .Model.cs (generation and the model),
    // .Execution.cs (the interpreter), .Run.cs (a seed's run and leak accounting),
    // .Steady.cs (the steady random schedule: 0 bytes).
    public partial class RandomScheduleTests
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
