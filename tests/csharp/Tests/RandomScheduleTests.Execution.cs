using System;
using System.Collections.Generic;
using System.Threading;

namespace Onity.Tests
{
    // RandomScheduleTests, execution: workers, the context, the awaitables built from
    // the plan, and the interpreter (typed and untyped async methods).
    public partial class RandomScheduleTests
    {
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
    }
}
