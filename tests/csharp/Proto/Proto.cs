using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using Onity;
using Onity.Native;

// Where the NextFrame cycle's time goes, measured in one process (scripts/proto-csharp.sh).
// P0 is issue #3's prototype rebuilt on this binding: a real async method (the same OnityTask
// builder) awaiting a bare NextFrame awaiter that appends an 8-byte record to the batch's fast lane
// with a counter id (no owner/disposal checks, no free list, no diagnostics), one onity_batch_tick
// per frame, continuations resumed from fast_resumed. P1..P4 add one feature of the binding each
// to P0; Q rebuilds the binding's awaiter path (OnityFrameWait + OnityRuntime's fast lane) on P0's
// tick, QF is Q with the factory building the wait directly, and the other Q* variants take one
// feature out of QF; B is the binding itself. Q differs from the binding in details: its Require
// is not inlined, it throws inline where the binding calls throw helpers, it has no GrowFast or
// flush path, and its tables are statics. 4096 tasks each awaiting in a loop; best of 6 batches,
// ns per task-frame; every batch validated.
// Some variants carry fields they never read: that is their point (the cost of carrying them).
#pragma warning disable 0414
namespace Onity.Proto
{
    public struct ProtoNextFrame : ICriticalNotifyCompletion
    {
        public ProtoNextFrame GetAwaiter() { return this; }
        public bool IsCompleted { get { return false; } }
        public void GetResult() { }
        public void OnCompleted(Action c) { Proto.Add(c); }
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void UnsafeOnCompleted(Action c) { Proto.Add(c); }
    }

    // P1: created through a non-inlined factory returning a 24-byte struct with a reference field
    // (the shape of OnityFrameWait); otherwise as the prototype.
    public struct P1Wait : ICriticalNotifyCompletion
    {
        readonly object owner; readonly ulong mark; readonly uint info;
        P1Wait(object owner, ulong mark, uint info) { this.owner = owner; this.mark = mark; this.info = info; }
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static P1Wait Make() { return new P1Wait(Proto.owner, Proto.frameNo, 24); }
        public P1Wait GetAwaiter() { return this; }
        public bool IsCompleted { get { return false; } }
        public void GetResult() { }
        public void OnCompleted(Action c) { Proto.Add(c); }
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void UnsafeOnCompleted(Action c) { Proto.Add(c); }
    }

    // P1a: non-inlined factory, 16-byte struct without a reference field.
    public struct P1aWait : ICriticalNotifyCompletion
    {
        readonly ulong mark; readonly uint info; readonly uint rid;
        P1aWait(uint rid, ulong mark, uint info) { this.rid = rid; this.mark = mark; this.info = info; }
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static P1aWait Make() { return new P1aWait(7, Proto.frameNo, 24); }
        public P1aWait GetAwaiter() { return this; }
        public bool IsCompleted { get { return false; } }
        public void GetResult() { }
        public void OnCompleted(Action c) { Proto.Add(c); }
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void UnsafeOnCompleted(Action c) { Proto.Add(c); }
    }

    // P1d: non-inlined factory, 24-byte struct without a reference field (same size as P1).
    public struct P1dWait : ICriticalNotifyCompletion
    {
        readonly ulong owner; readonly ulong mark; readonly uint info;
        P1dWait(ulong owner, ulong mark, uint info) { this.owner = owner; this.mark = mark; this.info = info; }
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static P1dWait Make() { return new P1dWait(7, Proto.frameNo, 24); }
        public P1dWait GetAwaiter() { return this; }
        public bool IsCompleted { get { return false; } }
        public void GetResult() { }
        public void OnCompleted(Action c) { Proto.Add(c); }
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void UnsafeOnCompleted(Action c) { Proto.Add(c); }
    }

    // P1b: inlined factory, 24-byte struct with a reference field.
    public struct P1bWait : ICriticalNotifyCompletion
    {
        readonly object owner; readonly ulong mark; readonly uint info;
        P1bWait(object owner, ulong mark, uint info) { this.owner = owner; this.mark = mark; this.info = info; }
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public static P1bWait Make() { return new P1bWait(Proto.owner, Proto.frameNo, 24); }
        public P1bWait GetAwaiter() { return this; }
        public bool IsCompleted { get { return false; } }
        public void GetResult() { }
        public void OnCompleted(Action c) { Proto.Add(c); }
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void UnsafeOnCompleted(Action c) { Proto.Add(c); }
    }

    // Q-series: the binding's frame-wait path rebuilt step by step (cumulative).
    public sealed unsafe class Mini
    {
        internal static Mini current;
        [ThreadStatic] internal static Mini ownedHere;
        internal bool disposed;
        internal ulong fcount = 1;
        internal readonly ulong[] runs = new ulong[32];
        internal static Mini Require() { var r = current; if (r == null) throw new InvalidOperationException(); return r; }
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal QWait FrameWait(int delay, int timing)
        {
            if (ownedHere != this) throw new InvalidOperationException("owner");
            if ((uint)timing >= 16) throw new ArgumentOutOfRangeException();
            return new QWait(this, delay == 0 ? runs[timing] : fcount, (uint)timing | ((uint)delay << 4));
        }
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal bool FrameWaitDone(ulong mark, uint info)
        {
            var rc = runs;
            uint d = info >> 4;
            if (d == 0) return rc[info & 15] != mark;
            return rc[16 + (info & 15)] >= mark + d;
        }
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal uint FramesLeftPub(ulong mark, uint info) { return FramesLeft(mark, info); }
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        uint FramesLeft(ulong mark, uint info)
        {
            uint delay = info >> 4;
            if (delay == 0) return 0;
            long rem = (long)(mark + delay - fcount);
            return rem > 0 ? (uint)rem : 0;
        }
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal void Enqueue(Action continuation, ulong mark, uint info)
        {
            if (ownedHere != this || disposed) throw new InvalidOperationException("owner");
            Proto.AddFreeRec(continuation, (ulong)(info & 15) << 32 | ((ulong)FramesLeft(mark, info) << 36));
        }
    }

    public readonly struct QWait : ICriticalNotifyCompletion
    {
        readonly Mini runtime; readonly ulong mark; readonly uint info;
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal QWait(Mini runtime, ulong mark, uint info) { this.runtime = runtime; this.mark = mark; this.info = info; }
        public static QWait NextFrame() { return Mini.Require().FrameWait(1, 8); }
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public QWait GetAwaiter() { return this; }
        public bool IsCompleted { [MethodImpl(MethodImplOptions.AggressiveInlining)] get { var r = runtime; return r == null || r.FrameWaitDone(mark, info); } }
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void GetResult() { var r = runtime; if (r == null || r.disposed) throw new OperationCanceledException(); }
        public void OnCompleted(Action c) { UnsafeOnCompleted(c); }
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void UnsafeOnCompleted(Action c) { var r = runtime; if (r == null) throw new InvalidOperationException(); r.Enqueue(c, mark, info); }
    }


    public readonly struct QF : ICriticalNotifyCompletion
    {
        readonly Mini runtime; readonly ulong mark; readonly uint info;
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal QF(Mini runtime, ulong mark, uint info) { this.runtime = runtime; this.mark = mark; this.info = info; }
        public static QF NextFrame() { var r = Mini.Require(); if (Mini.ownedHere != r) throw new InvalidOperationException("owner"); return new QF(r, r.fcount, 24); }
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public QF GetAwaiter() { return this; }
        public bool IsCompleted { [MethodImpl(MethodImplOptions.AggressiveInlining)] get { var r = runtime; return r == null || r.FrameWaitDone(mark, info); } }
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void GetResult() { var r = runtime; if (r == null || r.disposed) throw new OperationCanceledException(); }
        public void OnCompleted(Action c) { UnsafeOnCompleted(c); }
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void UnsafeOnCompleted(Action c) { var r = runtime; if (r == null) throw new InvalidOperationException(); if (Mini.ownedHere != r || r.disposed) throw new InvalidOperationException("owner"); Proto.AddFreeRec(c, (8UL << 32) | ((ulong)r.FramesLeftPub(mark, info) << 36)); }
    }

    public readonly struct QnoIsC : ICriticalNotifyCompletion
    {
        readonly Mini runtime; readonly ulong mark; readonly uint info;
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal QnoIsC(Mini runtime, ulong mark, uint info) { this.runtime = runtime; this.mark = mark; this.info = info; }
        public static QnoIsC NextFrame() { var r = Mini.Require(); if (Mini.ownedHere != r) throw new InvalidOperationException("owner"); return new QnoIsC(r, r.fcount, 24); }
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public QnoIsC GetAwaiter() { return this; }
        public bool IsCompleted { [MethodImpl(MethodImplOptions.AggressiveInlining)] get { return false; } }
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void GetResult() { var r = runtime; if (r == null || r.disposed) throw new OperationCanceledException(); }
        public void OnCompleted(Action c) { UnsafeOnCompleted(c); }
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void UnsafeOnCompleted(Action c) { var r = runtime; if (r == null) throw new InvalidOperationException(); if (Mini.ownedHere != r || r.disposed) throw new InvalidOperationException("owner"); Proto.AddFreeRec(c, (8UL << 32) | ((ulong)r.FramesLeftPub(mark, info) << 36)); }
    }

    public readonly struct QnoGR : ICriticalNotifyCompletion
    {
        readonly Mini runtime; readonly ulong mark; readonly uint info;
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal QnoGR(Mini runtime, ulong mark, uint info) { this.runtime = runtime; this.mark = mark; this.info = info; }
        public static QnoGR NextFrame() { var r = Mini.Require(); if (Mini.ownedHere != r) throw new InvalidOperationException("owner"); return new QnoGR(r, r.fcount, 24); }
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public QnoGR GetAwaiter() { return this; }
        public bool IsCompleted { [MethodImpl(MethodImplOptions.AggressiveInlining)] get { var r = runtime; return r == null || r.FrameWaitDone(mark, info); } }
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void GetResult() {  }
        public void OnCompleted(Action c) { UnsafeOnCompleted(c); }
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void UnsafeOnCompleted(Action c) { var r = runtime; if (r == null) throw new InvalidOperationException(); if (Mini.ownedHere != r || r.disposed) throw new InvalidOperationException("owner"); Proto.AddFreeRec(c, (8UL << 32) | ((ulong)r.FramesLeftPub(mark, info) << 36)); }
    }

    public readonly struct QnoOwner : ICriticalNotifyCompletion
    {
        readonly Mini runtime; readonly ulong mark; readonly uint info;
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal QnoOwner(Mini runtime, ulong mark, uint info) { this.runtime = runtime; this.mark = mark; this.info = info; }
        public static QnoOwner NextFrame() { var r = Mini.Require(); return new QnoOwner(r, r.fcount, 24); }
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public QnoOwner GetAwaiter() { return this; }
        public bool IsCompleted { [MethodImpl(MethodImplOptions.AggressiveInlining)] get { var r = runtime; return r == null || r.FrameWaitDone(mark, info); } }
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void GetResult() { var r = runtime; if (r == null || r.disposed) throw new OperationCanceledException(); }
        public void OnCompleted(Action c) { UnsafeOnCompleted(c); }
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void UnsafeOnCompleted(Action c) { var r = runtime; if (r == null) throw new InvalidOperationException(); Proto.AddFreeRec(c, (8UL << 32) | ((ulong)r.FramesLeftPub(mark, info) << 36)); }
    }

    public readonly struct QnoFree : ICriticalNotifyCompletion
    {
        readonly Mini runtime; readonly ulong mark; readonly uint info;
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal QnoFree(Mini runtime, ulong mark, uint info) { this.runtime = runtime; this.mark = mark; this.info = info; }
        public static QnoFree NextFrame() { var r = Mini.Require(); if (Mini.ownedHere != r) throw new InvalidOperationException("owner"); return new QnoFree(r, r.fcount, 24); }
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public QnoFree GetAwaiter() { return this; }
        public bool IsCompleted { [MethodImpl(MethodImplOptions.AggressiveInlining)] get { var r = runtime; return r == null || r.FrameWaitDone(mark, info); } }
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void GetResult() { var r = runtime; if (r == null || r.disposed) throw new OperationCanceledException(); }
        public void OnCompleted(Action c) { UnsafeOnCompleted(c); }
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void UnsafeOnCompleted(Action c) { var r = runtime; if (r == null) throw new InvalidOperationException(); if (Mini.ownedHere != r || r.disposed) throw new InvalidOperationException("owner"); Proto.Add(c); }
    }


    // QS: no reference in the struct: the runtime's serial; IsCompleted/GetResult against statics
    // of the current runtime; owner check through the [ThreadStatic] owned runtime.
    public static class MiniStatics
    {
        internal static uint serial = 1;
        internal static ulong[] runs;
        internal static bool disposed;
    }
    public readonly struct QS : ICriticalNotifyCompletion
    {
        readonly ulong due; readonly uint info; readonly uint rid;
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal QS(uint rid, ulong due, uint info) { this.rid = rid; this.due = due; this.info = info; }
        public static QS NextFrame() { var r = Mini.Require(); if (Mini.ownedHere != r) throw new InvalidOperationException("owner"); return new QS(1, r.fcount + 1, 24); }
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public QS GetAwaiter() { return this; }
        public bool IsCompleted { [MethodImpl(MethodImplOptions.AggressiveInlining)] get { return rid != MiniStatics.serial || MiniStatics.runs[16 + (info & 15)] >= due; } }
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void GetResult() { if (rid != MiniStatics.serial || MiniStatics.disposed) throw new OperationCanceledException(); }
        public void OnCompleted(Action c) { UnsafeOnCompleted(c); }
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void UnsafeOnCompleted(Action c) { var r = Mini.ownedHere; if (r == null || rid != 1) throw new InvalidOperationException("owner"); Proto.AddFreeRec(c, (8UL << 32) | ((ulong)r.FramesLeftPub(due - 1, info) << 36)); }
    }


    // QD: Q with a precomputed IsCompleted: the struct holds the counter slot (timing, +16 for a
    // frame wait) and the due value, so IsCompleted is one load and one compare.
    public readonly struct QD : ICriticalNotifyCompletion
    {
        readonly Mini runtime; readonly ulong due; readonly uint info; // slot (bits 0-4) | delay << 5
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal QD(Mini runtime, ulong due, uint info) { this.runtime = runtime; this.due = due; this.info = info; }
        public static QD NextFrame() { var r = Mini.Require(); if (Mini.ownedHere != r) throw new InvalidOperationException("owner"); return new QD(r, r.fcount + 1, 16 + 8 | 1 << 5); }
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public QD GetAwaiter() { return this; }
        public bool IsCompleted { [MethodImpl(MethodImplOptions.AggressiveInlining)] get { var r = runtime; return r == null || r.runs[info & 31] >= due; } }
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void GetResult() { var r = runtime; if (r == null || r.disposed) throw new OperationCanceledException(); }
        public void OnCompleted(Action c) { UnsafeOnCompleted(c); }
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void UnsafeOnCompleted(Action c) { var r = runtime; if (r == null) throw new InvalidOperationException(); if (Mini.ownedHere != r || r.disposed) throw new InvalidOperationException("owner"); Proto.AddFreeRec(c, (8UL << 32) | ((ulong)r.FramesLeftPub(due - 1, 16) << 36)); }
    }

    // P2: the prototype plus a real IsCompleted (a run counter read from a static array).
    public struct P2Wait : ICriticalNotifyCompletion
    {
        public P2Wait GetAwaiter() { return this; }
        public bool IsCompleted { get { var r = Proto.counters; return r[16 + 8] >= Proto.frameNo + 1; } }
        public void GetResult() { }
        public void OnCompleted(Action c) { Proto.Add(c); }
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void UnsafeOnCompleted(Action c) { Proto.Add(c); }
    }

    // P3: the prototype with free-list ids and a 24-byte FastWait entry (cont, record, frame).
    public struct P3Wait : ICriticalNotifyCompletion
    {
        public P3Wait GetAwaiter() { return this; }
        public bool IsCompleted { get { return false; } }
        public void GetResult() { }
        public void OnCompleted(Action c) { Proto.AddFree(c); }
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void UnsafeOnCompleted(Action c) { Proto.AddFree(c); }
    }

    // P4: the prototype plus the owner-thread check ([ThreadStatic] read) per await.
    public struct P4Wait : ICriticalNotifyCompletion
    {
        public P4Wait GetAwaiter() { return this; }
        public bool IsCompleted { get { return false; } }
        public void GetResult() { }
        public void OnCompleted(Action c) { Proto.AddOwned(c); }
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void UnsafeOnCompleted(Action c) { Proto.AddOwned(c); }
    }

    public static unsafe class Proto
    {
        internal static object owner = new object();
        internal static ulong frameNo;
        internal static ulong[] counters = new ulong[32];
        [ThreadStatic] internal static object ownedHere;
        struct FastWait { public Action cont; public ulong record; public ulong frame; }
        static FastWait[] fast = new FastWait[1 << 17];
        static int[] fastFree = new int[1 << 17];
        static int fastFreeCount;
        static bool freeMode;
        internal static void Init() { for (int i = fast.Length - 1; i >= 0; i--) fastFree[fastFreeCount++] = i; ownedHere = owner; }

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public static void AddOwned(Action c)
        {
            if (ownedHere != owner) throw new InvalidOperationException("owner");
            Add(c);
        }

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public static void AddFreeRec(Action c, ulong recHigh)
        {
            freeMode = true;
            int id = fastFree[--fastFreeCount];
            ulong rec = (uint)id | recHigh;
            ref FastWait w = ref fast[id];
            w.cont = c;
            w.record = rec;
            w.frame = frameNo;
            var bb = b;
            uint n = bb->fast_count;
            if (n >= bb->fast_capacity) throw new InvalidOperationException("full");
            bb->fast_submit[n] = rec;
            bb->fast_count = n + 1;
        }

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public static void AddFree(Action c)
        {
            freeMode = true;
            int id = fastFree[--fastFreeCount];
            ulong rec = (uint)id | (8UL << 32) | (1UL << 36);
            ref FastWait w = ref fast[id];
            w.cont = c;
            w.record = rec;
            w.frame = frameNo;
            var bb = b;
            uint n = bb->fast_count;
            bb->fast_submit[n] = rec;
            bb->fast_count = n + 1;
        }

        const int Mask = (1 << 17) - 1;
        static readonly Action[] conts = new Action[1 << 17];
        static uint next;
        internal static OnityBatch* b;
        internal static IntPtr rt;

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public static void Add(Action c)
        {
            uint id = next++ & Mask;
            conts[id] = c;
            var bb = b;
            uint n = bb->fast_count;
            bb->fast_submit[n] = id | (8UL << 32) | (1UL << 36); // Update, one frame
            bb->fast_count = n + 1;
        }

        public static void Tick()
        {
            frameNo++;
            counters[16 + 8] = frameNo;
            var m0 = Mini.current; m0.fcount = frameNo + 1; m0.runs[8]++; m0.runs[16 + 8] = m0.fcount;
            OnityNativeCalls.onity_batch_tick(rt, b, 8);
            if (freeMode)
            {
                freeMode = false;
                uint m2 = b->fast_resumed_count;
                uint* ids2 = b->fast_resumed;
                for (uint i = 0; i < m2; i++)
                {
                    uint id = ids2[i];
                    ref FastWait w = ref fast[id];
                    var c = w.cont;
                    w.cont = null;
                    fastFree[fastFreeCount++] = (int)id;
                    c();
                }
                return;
            }
            uint m = b->fast_resumed_count;
            uint* ids = b->fast_resumed;
            var arr = conts;
            for (uint i = 0; i < m; i++)
            {
                uint id = ids[i];
                var c = arr[id];
                arr[id] = null;
                c();
            }
        }
    }

    public static class Program
    {
        static long resumed; static bool stop;
        static async OnityTask ProtoLoop() { while (!stop) { await new ProtoNextFrame(); resumed++; } }
        static async OnityTask P1Loop() { while (!stop) { await P1Wait.Make(); resumed++; } }
        static async OnityTask QFLoop() { while (!stop) { await QF.NextFrame(); resumed++; } }
        static async OnityTask QnoIsCLoop() { while (!stop) { await QnoIsC.NextFrame(); resumed++; } }
        static async OnityTask QnoGRLoop() { while (!stop) { await QnoGR.NextFrame(); resumed++; } }
        static async OnityTask QnoOwnerLoop() { while (!stop) { await QnoOwner.NextFrame(); resumed++; } }
        static async OnityTask QnoFreeLoop() { while (!stop) { await QnoFree.NextFrame(); resumed++; } }
        static async OnityTask QSLoop() { while (!stop) { await QS.NextFrame(); resumed++; } }
        static async OnityTask QDLoop() { while (!stop) { await QD.NextFrame(); resumed++; } }
        static async OnityTask QLoop() { while (!stop) { await QWait.NextFrame(); resumed++; } }
        static async OnityTask P1aLoop() { while (!stop) { await P1aWait.Make(); resumed++; } }
        static async OnityTask P1dLoop() { while (!stop) { await P1dWait.Make(); resumed++; } }
        static async OnityTask P1bLoop() { while (!stop) { await P1bWait.Make(); resumed++; } }
        static async OnityTask P2Loop() { while (!stop) { await new P2Wait(); resumed++; } }
        static async OnityTask P3Loop() { while (!stop) { await new P3Wait(); resumed++; } }
        static async OnityTask P4Loop() { while (!stop) { await new P4Wait(); resumed++; } }
        static async OnityTask RealLoop() { while (!stop) { await OnityTask.NextFrame(); resumed++; } }
        static OnityRuntime rt; static ulong frame;
        static void Begin() { frame++; rt.BeginFrame(frame, 1.0 / 60, 1.0 / 60, frame / 60.0); }
        static void ProtoFrame() { Begin(); Proto.Tick(); }
        static void RealFrame() { Begin(); rt.Tick(Onity.OnityTiming.Update); }

        static double Run(Func<OnityTask> start, Action tick, int n)
        {
            stop = false;
            for (int i = 0; i < n; i++) start().Forget();
            int frames = 3000000 / n;
            for (int f = 0; f < 20; f++) tick();
            double best = 1e9;
            for (int rep = 0; rep < 6; rep++)
            {
                long r0 = resumed;
                var sw = Stopwatch.StartNew();
                for (int f = 0; f < frames; f++) tick();
                double ns = sw.Elapsed.TotalMilliseconds * 1e6 / ((double)frames * n);
                if (resumed - r0 != (long)frames * n) throw new Exception("validation: resumed " + (resumed - r0));
                best = Math.Min(best, ns);
            }
            stop = true; tick(); tick();
            return best;
        }

        public static unsafe void Main(string[] args)
        {
            rt = new OnityRuntime(65536);
            Proto.b = rt.batch; Proto.rt = rt.rt; Proto.Init();
            Mini.current = Mini.ownedHere = new Mini();
            MiniStatics.runs = Mini.current.runs;
            OnityContextFlow.Enabled = Array.IndexOf(args, "flow") >= 0;
            const int n = 4096;
            var variants = new[]
            {
                Tuple.Create("P0 prototype", (Func<OnityTask>)ProtoLoop, (Action)ProtoFrame),
                Tuple.Create("P1 P0 + factory call returning a 24-byte struct with a reference", (Func<OnityTask>)P1Loop, (Action)ProtoFrame),
                Tuple.Create("P1a P0 + factory call, 16-byte struct, no reference", (Func<OnityTask>)P1aLoop, (Action)ProtoFrame),
                Tuple.Create("P1d P0 + factory call, 24-byte struct, no reference", (Func<OnityTask>)P1dLoop, (Action)ProtoFrame),
                Tuple.Create("P1b P0 + inlined factory, struct with a reference", (Func<OnityTask>)P1bLoop, (Action)ProtoFrame),
                Tuple.Create("P2 P0 + IsCompleted reading a run counter", (Func<OnityTask>)P2Loop, (Action)ProtoFrame),
                Tuple.Create("P3 P0 + free-list ids and a FastWait entry", (Func<OnityTask>)P3Loop, (Action)ProtoFrame),
                Tuple.Create("P4 P0 + owner check ([ThreadStatic])", (Func<OnityTask>)P4Loop, (Action)ProtoFrame),
                Tuple.Create("Q the binding's awaiter path (P0's tick)", (Func<OnityTask>)QLoop, (Action)ProtoFrame),
                Tuple.Create("QF Q with the factory building the wait directly (Update, no timing check): the base of the rows below", (Func<OnityTask>)QFLoop, (Action)ProtoFrame),
                Tuple.Create("QnoIsC QF without the IsCompleted check", (Func<OnityTask>)QnoIsCLoop, (Action)ProtoFrame),
                Tuple.Create("QnoGR QF without the GetResult check", (Func<OnityTask>)QnoGRLoop, (Action)ProtoFrame),
                Tuple.Create("QnoOwner QF without the owner checks", (Func<OnityTask>)QnoOwnerLoop, (Action)ProtoFrame),
                Tuple.Create("QnoFree QF with P0's enqueue (counter ids; no free list, FastWait entry or FramesLeft)", (Func<OnityTask>)QnoFreeLoop, (Action)ProtoFrame),
                Tuple.Create("QD QF with IsCompleted precomputed (slot, due): one load, one compare", (Func<OnityTask>)QDLoop, (Action)ProtoFrame),
                Tuple.Create("QS QF with no reference in the struct (runtime serial, statics)", (Func<OnityTask>)QSLoop, (Action)ProtoFrame),
                Tuple.Create("B the binding: await OnityTask.NextFrame(), OnityRuntime.Tick", (Func<OnityTask>)RealLoop, (Action)RealFrame),
            };
            for (int round = 0; round < 3; round++)
                foreach (var v in variants)
                    Console.WriteLine("RESULT\t" + v.Item1 + "\t" + Run(v.Item2, v.Item3, n).ToString("F1"));
        }
    }
}
