using System;
using System.Collections.Generic;
using System.Threading;
using Onity.Linq;

namespace Onity
{
    /// <summary>Async streams over the frame loop and LINQ operators over
    /// <see cref="IOnityAsyncEnumerable{T}"/> (UniTask's UniTaskAsyncEnumerable). Each stream is
    /// bound to <see cref="OnityRuntime.Current"/> when enumerated (GetAsyncEnumerator); its
    /// elements are produced on the owner thread, inside the timing's run. Enumerators are pooled:
    /// after warm-up an element costs no allocation. A token given to GetAsyncEnumerator (or to
    /// ForEachAsync) completes a pending MoveNextAsync canceled at the next run of the stream's
    /// timing (an <see cref="OperationCanceledException"/>, where UniTask's frame streams end
    /// quietly); disposing the runtime completes it canceled at once.</summary>
    public static partial class OnityAsyncEnumerable
    {
        static readonly EveryUpdateStream[] everyUpdate = new EveryUpdateStream[Native.OnityNative.ONITY_TIMING_COUNT];

        /// <summary>One element (<see cref="AsyncUnit"/>) at each run of <paramref name="timing"/>,
        /// from the next one on (possibly later in this frame), as <c>Yield(timing)</c> in a loop:
        /// runs that happen while the consumer is busy (awaiting something else) are skipped, not
        /// queued. Allocates nothing (the stream object is shared per timing).</summary>
        public static IOnityAsyncEnumerable<AsyncUnit> EveryUpdate(OnityTiming timing = OnityTiming.Update)
        {
            if ((uint)timing >= Native.OnityNative.ONITY_TIMING_COUNT) OnityRuntime.ThrowTiming();
            return everyUpdate[(int)timing] ?? (everyUpdate[(int)timing] = new EveryUpdateStream(timing));
        }

        /// <summary>An element every <paramref name="period"/>: each MoveNextAsync is a
        /// <c>Delay(period, delayType, timing)</c> (the first run of the timing, in a later frame, at
        /// which the clock advanced by the period, counted from the MoveNextAsync call, as UniTask's
        /// Interval counts from it). A period of zero gives one element per frame.</summary>
        public static IOnityAsyncEnumerable<AsyncUnit> Interval(TimeSpan period, DelayType delayType = DelayType.DeltaTime, OnityTiming timing = OnityTiming.Update)
        {
            return new TimerStream(CheckTime(period, "period"), CheckTime(period, "period"), delayType, CheckTiming(timing));
        }

        /// <summary>One element after <paramref name="dueTime"/> (a <c>Delay</c>), then the end.</summary>
        public static IOnityAsyncEnumerable<AsyncUnit> Timer(TimeSpan dueTime, DelayType delayType = DelayType.DeltaTime, OnityTiming timing = OnityTiming.Update)
        {
            return new TimerStream(CheckTime(dueTime, "dueTime"), double.NaN, delayType, CheckTiming(timing));
        }

        /// <summary>An element after <paramref name="dueTime"/>, then one every <paramref name="period"/>.</summary>
        public static IOnityAsyncEnumerable<AsyncUnit> Timer(TimeSpan dueTime, TimeSpan period, DelayType delayType = DelayType.DeltaTime, OnityTiming timing = OnityTiming.Update)
        {
            return new TimerStream(CheckTime(dueTime, "dueTime"), CheckTime(period, "period"), delayType, CheckTiming(timing));
        }

        /// <summary>One element <paramref name="dueTimeFrameCount"/> frames after the MoveNextAsync
        /// (a <c>DelayFrame</c>: the first run of the timing in a frame at least that many frames
        /// later; 0 behaves as Yield), then the end.</summary>
        public static IOnityAsyncEnumerable<AsyncUnit> TimerFrame(int dueTimeFrameCount, OnityTiming timing = OnityTiming.Update)
        {
            return new TimerStream(OnityTask.CheckDelayCount(dueTimeFrameCount), double.NaN, DelayType.DeltaTime, CheckTiming(timing), true);
        }

        /// <summary>An element after <paramref name="dueTimeFrameCount"/> frames, then one every
        /// <paramref name="periodFrameCount"/> frames, each counted from its MoveNextAsync.</summary>
        public static IOnityAsyncEnumerable<AsyncUnit> TimerFrame(int dueTimeFrameCount, int periodFrameCount, OnityTiming timing = OnityTiming.Update)
        {
            return new TimerStream(OnityTask.CheckDelayCount(dueTimeFrameCount), OnityTask.CheckDelayCount(periodFrameCount), DelayType.DeltaTime, CheckTiming(timing), true);
        }

        /// <summary>An element every <paramref name="intervalFrameCount"/> frames (a DelayFrame per
        /// MoveNextAsync, counted from it).</summary>
        public static IOnityAsyncEnumerable<AsyncUnit> IntervalFrame(int intervalFrameCount, OnityTiming timing = OnityTiming.Update)
        {
            ulong n = OnityTask.CheckDelayCount(intervalFrameCount);
            return new TimerStream(n, n, DelayType.DeltaTime, CheckTiming(timing), true);
        }

        /// <summary>The value of <paramref name="propertySelector"/> on <paramref name="target"/>: the
        /// current one at the first MoveNextAsync, then each value that differs (by
        /// <paramref name="equalityComparer"/>, default: EqualityComparer.Default) from the last one
        /// given, checked at each run of <paramref name="timing"/> while a MoveNextAsync is pending
        /// (a change back and forth between two checks is not seen). The stream ends when the target
        /// is gone: a destroyed <c>UnityEngine.Object</c> (it equals null), or any other object once
        /// collected (it is held weakly, as UniTask does). An exception of the selector faults it.</summary>
        public static IOnityAsyncEnumerable<TProperty> EveryValueChanged<TTarget, TProperty>(TTarget target, Func<TTarget, TProperty> propertySelector, OnityTiming timing = OnityTiming.Update, IEqualityComparer<TProperty> equalityComparer = null)
            where TTarget : class
        {
            if (target == null) throw new ArgumentNullException("target");
            if (propertySelector == null) throw new ArgumentNullException("propertySelector");
            return new ValueChangedStream<TTarget, TProperty>(target, propertySelector, CheckTiming(timing), equalityComparer ?? EqualityComparer<TProperty>.Default);
        }

        static OnityTiming CheckTiming(OnityTiming timing)
        {
            if ((uint)timing >= Native.OnityNative.ONITY_TIMING_COUNT) OnityRuntime.ThrowTiming();
            return timing;
        }

        static double CheckTime(TimeSpan t, string name)
        {
            double s = t.TotalSeconds;
            if (!(s >= 0) || double.IsInfinity(s)) throw new ArgumentOutOfRangeException(name, "Onity: must be finite and >= 0.");
            return s;
        }
    }
}

namespace Onity.Linq
{
    sealed class EveryUpdateStream : IOnityAsyncEnumerable<AsyncUnit>
    {
        internal readonly OnityTiming timing;
        internal EveryUpdateStream(OnityTiming timing) { this.timing = timing; }

        public IOnityAsyncEnumerator<AsyncUnit> GetAsyncEnumerator(CancellationToken cancellationToken = default(CancellationToken))
        {
            return EveryUpdateEnumerator.Rent(OnityRuntime.Require(), timing, cancellationToken);
        }
    }

    /// <summary>Each MoveNextAsync registers the enumerator for the next run of the timing (a run
    /// waiter of the runtime: an array append, no slot, no record; on another thread a posted
    /// frame wait), whose run invokes the consumer's continuation directly: the enumerator is the MoveNext task's
    /// source without a completion core (nothing to signal, reset or dispatch per element). The
    /// outcome is decided when the consumer takes it (GetResult): true, or canceled when the token
    /// was canceled or the runtime disposed by then.</summary>
    sealed class EveryUpdateEnumerator : OnityRunWaiter, IOnityAsyncEnumerator<AsyncUnit>, IOnityTaskSource<bool>
    {
        const int Ready = 1, Pending = 2, Ended = 3, Disposed = 4;
        static readonly OnityObjectPool<EveryUpdateEnumerator> pool = new OnityObjectPool<EveryUpdateEnumerator>(1024);
        static readonly Action Fired = () => { };

        OnityRuntime runtime;
        OnityTiming timing;
        CancellationToken cancellationToken;
        bool cancelable; // the token can be canceled (IsCancellationRequested is a call into mscorlib)
        uint version;
        int state = Disposed;
        Action continuation; // the consumer's; Fired once the run came

        EveryUpdateEnumerator() { onRun = OnRun; }

        internal static EveryUpdateEnumerator Rent(OnityRuntime r, OnityTiming timing, CancellationToken ct)
        {
            var e = pool.TryRent() ?? new EveryUpdateEnumerator();
            e.runtime = r;
            e.timing = timing;
            e.cancellationToken = ct;
            e.cancelable = ct.CanBeCanceled;
            e.state = Ready;
            return e;
        }

        public AsyncUnit Current { get { return default(AsyncUnit); } }

        public OnityTask<bool> MoveNextAsync()
        {
            if (state != Ready) return NotReady();
            if (cancelable && cancellationToken.IsCancellationRequested)
            {
                state = Ended;
                return OnityTask.FromCanceled<bool>(cancellationToken);
            }
            var r = runtime;
            if (r.disposed)
            {
                state = Ended;
                return OnityTask.FromException<bool>(StreamErrors.RuntimeDisposed());
            }
            state = Pending;
            continuation = null;
            uint v = unchecked(++version);
            // Registered now: the element is the next run of the timing after this call (a Yield).
            r.AddRunWaiter(this, timing);
            return new OnityTask<bool>(this, v);
        }

        OnityTask<bool> NotReady()
        {
            if (state == Ended) return new OnityTask<bool>(false);
            if (state == Pending) throw new InvalidOperationException("Onity: MoveNextAsync was called before the previous MoveNextAsync's task was awaited (one at a time).");
            throw new ObjectDisposedException("EveryUpdate enumerator", "Onity: the enumerator was disposed (and went back to its pool); get a new one with GetAsyncEnumerator.");
        }

        internal override void OnRun()
        {
            // Owner thread. Registered already (the usual case): the consumer will not touch the
            // field again before this continuation runs, so a plain store does; otherwise an
            // exchange settles the race with an OnCompleted on another thread.
            var c = Volatile.Read(ref continuation);
            if ((object)c != null) continuation = Fired;
            else c = Interlocked.Exchange(ref continuation, Fired);
            if ((object)c != null) c();
        }

        public OnityTaskStatus GetStatus(long token)
        {
            if ((uint)token != version || state == Ready) throw OnityErrors.Stale();
            var c = Volatile.Read(ref continuation);
            if (!ReferenceEquals(c, Fired)) return OnityTaskStatus.Pending;
            // Off the owner thread a due element still reads as pending: the await then goes
            // through OnCompleted, which dispatches to the owner (a stream's consumer resumes there).
            if (!runtime.IsOwnerThread) return OnityTaskStatus.Pending;
            return cancellationToken.IsCancellationRequested || runtime.disposed ? OnityTaskStatus.Canceled : OnityTaskStatus.Succeeded;
        }

        public void OnCompleted(Action c, long token)
        {
            if ((uint)token != version || state == Ready) throw OnityErrors.Stale();
            Action prev;
            if (runtime.IsOwnedHere)
            {
                // On the owner thread, where OnRun runs: no race, no interlocked operation.
                prev = continuation;
                if ((object)prev == null)
                {
                    continuation = c;
                    return;
                }
            }
            else prev = Interlocked.CompareExchange(ref continuation, c, null);
            // (object) comparisons: a delegate's == compares methods, and costs a call per element.
            if ((object)prev == null) return;
            if (ReferenceEquals(prev, Fired)) OnityRuntime.Dispatch(c);
            else throw OnityErrors.Twice();
        }

        void IOnityTaskSource.GetResult(long token) { GetResult(token); }

        public bool GetResult(long token)
        {
            if ((uint)token != version || state == Ready) throw OnityErrors.Stale();
            if (!ReferenceEquals(Volatile.Read(ref continuation), Fired)) throw OnityErrors.Pending();
            if (state == Disposed) return false; // disposed while this MoveNext was pending
            if (state == Ended) return false;
            if (cancelable && cancellationToken.IsCancellationRequested)
            {
                state = Ended;
                throw new OperationCanceledException(cancellationToken);
            }
            if (runtime.disposed)
            {
                state = Ended;
                throw StreamErrors.RuntimeDisposed();
            }
            state = Ready;
            return true;
        }

        public OnityTask DisposeAsync()
        {
            int s = state;
            if (s == Disposed) return OnityTask.CompletedTask;
            state = Disposed;
            // Pending: the frame wait still holds onRun; the object is left to the collector.
            if (s != Pending)
            {
                runtime = null;
                cancellationToken = default(CancellationToken);
                cancelable = false;
                continuation = null;
                pool.Return(this);
            }
            return OnityTask.CompletedTask;
        }
    }

    /// <summary>The pump of a fused chain over EveryUpdate (Where, Select, ... on it): a run
    /// waiter itself, it pushes each run through the chain's stages and resumes the consumer only
    /// when an element passed (a skipped run waits for the next one, as the unfused chain's
    /// re-pull would): per element, one run-waiter call, the stages and one completion.</summary>
    sealed class EveryUpdatePump : OnityPump
    {
        static readonly OnityObjectPool<EveryUpdatePump> pool = new OnityObjectPool<EveryUpdatePump>(1024);
        OnityRuntime runtime;
        OnityTiming timing;
        CancellationToken cancellationToken;
        bool cancelable;
        bool disposed;
        OnityStage<AsyncUnit> head;

        EveryUpdatePump() { onRun = OnRun; }

        internal static EveryUpdatePump Rent(EveryUpdateStream stream, OnityStage<AsyncUnit> head, CancellationToken ct)
        {
            var r = OnityRuntime.Require();
            var p = pool.TryRent() ?? new EveryUpdatePump();
            p.runtime = r;
            p.timing = stream.timing;
            p.cancellationToken = ct;
            p.cancelable = ct.CanBeCanceled;
            p.disposed = false;
            p.head = head;
            return p;
        }

        internal override void Pull()
        {
            var r = runtime;
            if (r.disposed) owner.OnFault(StreamErrors.RuntimeDisposed());
            else r.AddRunWaiter(this, timing); // the next run of the timing after this call
        }

        internal override void OnRun()
        {
            if (disposed)
            {
                owner.OnEnd();
                return;
            }
            if (runtime.disposed)
            {
                owner.OnFault(StreamErrors.RuntimeDisposed());
                return;
            }
            if (cancelable && cancellationToken.IsCancellationRequested)
            {
                owner.OnFault(new OperationCanceledException(cancellationToken));
                return;
            }
            int r;
            try { r = head.Push(default(AsyncUnit)); }
            catch (Exception ex)
            {
                owner.OnFault(ex);
                return;
            }
            if (OnityPump<AsyncUnit>.Report(owner, r)) runtime.AddRunWaiter(this, timing); // skipped: the next run
        }

        internal override OnityTask Dispose(bool pending)
        {
            disposed = true;
            if (!pending)
            {
                head.ReleaseChain();
                head = null;
                owner = null;
                runtime = null;
                cancellationToken = default(CancellationToken);
                pool.Return(this);
            }
            return OnityTask.CompletedTask;
        }
    }

    static class StreamErrors
    {
        internal static OperationCanceledException RuntimeDisposed()
        {
            return new OperationCanceledException("Onity: the runtime this stream was bound to was disposed.");
        }
    }

    sealed class TimerStream : IOnityAsyncEnumerable<AsyncUnit>
    {
        readonly double due, period; // seconds, or frames (TimerFrame); period NaN: one element
        readonly DelayType delayType;
        readonly OnityTiming timing;
        readonly bool frames;

        internal TimerStream(double due, double period, DelayType delayType, OnityTiming timing, bool frames = false)
        {
            this.due = due;
            this.period = period;
            this.delayType = delayType;
            this.timing = timing;
            this.frames = frames;
        }

        public IOnityAsyncEnumerator<AsyncUnit> GetAsyncEnumerator(CancellationToken cancellationToken = default(CancellationToken))
        {
            return TimerEnumerator.Rent(OnityRuntime.Require(), due, period, delayType, timing, frames, cancellationToken);
        }
    }

    /// <summary>Each MoveNextAsync is one Delay, or one DelayFrame for TimerFrame/IntervalFrame (a
    /// wait slot; with the token, mapped to its native cancellation source, so cancellation is seen
    /// at the next run of the timing).</summary>
    sealed class TimerEnumerator : OnityAsyncEnumeratorBase<AsyncUnit>
    {
        static readonly OnityObjectPool<TimerEnumerator> pool = new OnityObjectPool<TimerEnumerator>(256);
        OnityRuntime runtime;
        double due, period;
        DelayType delayType;
        OnityTiming timing;
        bool duePhase, frames;
        OnityTask delay;
        readonly Action onDelay;

        TimerEnumerator() { onDelay = OnDelay; }

        internal static TimerEnumerator Rent(OnityRuntime r, double due, double period, DelayType delayType, OnityTiming timing, bool frames, CancellationToken ct)
        {
            var e = pool.TryRent() ?? new TimerEnumerator();
            e.frames = frames;
            e.runtime = r;
            e.due = due;
            e.period = period;
            e.delayType = delayType;
            e.timing = timing;
            e.duePhase = true;
            e.Begin(ct);
            return e;
        }

        protected override void MoveNextCore()
        {
            if (!duePhase && double.IsNaN(period))
            {
                Finish();
                return;
            }
            var r = runtime;
            if (r.disposed)
            {
                Fail(StreamErrors.RuntimeDisposed());
                return;
            }
            double s = duePhase ? due : period;
            duePhase = false;
            try
            {
                delay = frames ? r.Schedule(OnityRuntime.KindDelayFrame, timing, (ulong)s, 0, cancellationToken)
                    : r.Schedule(OnityRuntime.KindDelay, timing, (ulong)BitConverter.DoubleToInt64Bits(s), (byte)delayType, cancellationToken);
                var aw = delay.GetAwaiter();
                if (aw.IsCompleted) OnDelay();
                else aw.UnsafeOnCompleted(onDelay);
            }
            catch (Exception ex)
            {
                delay = default(OnityTask);
                Fail(ex);
            }
        }

        void OnDelay()
        {
            var t = delay;
            delay = default(OnityTask);
            try { t.GetAwaiter().GetResult(); }
            catch (Exception ex)
            {
                Fail(ex); // canceled by the token or by the runtime's disposal
                return;
            }
            Yield(default(AsyncUnit));
        }

        protected override void ReturnToPool()
        {
            runtime = null;
            pool.Return(this);
        }
    }

    sealed class ValueChangedStream<TTarget, TProperty> : IOnityAsyncEnumerable<TProperty> where TTarget : class
    {
        readonly TTarget strong;            // a UnityEngine.Object: held, checked with Equals(null)
        readonly WeakReference<TTarget> weak; // anything else: held weakly
        readonly Func<TTarget, TProperty> selector;
        readonly OnityTiming timing;
        readonly IEqualityComparer<TProperty> comparer;

        internal ValueChangedStream(TTarget target, Func<TTarget, TProperty> selector, OnityTiming timing, IEqualityComparer<TProperty> comparer)
        {
            if (IsUnityObject(target.GetType())) strong = target;
            else weak = new WeakReference<TTarget>(target, false);
            this.selector = selector;
            this.timing = timing;
            this.comparer = comparer;
        }

        /// <summary>UnityEngine.Object without a reference to UnityEngine (this assembly has none):
        /// its C# wrapper outlives the destroyed object, which then equals null.</summary>
        static bool IsUnityObject(Type t)
        {
            for (; t != null; t = t.BaseType)
                if (t.FullName == "UnityEngine.Object") return true;
            return false;
        }

        /// <summary>The target, or null when it is gone (destroyed or collected).</summary>
        internal TTarget Target()
        {
            var s = strong;
            if (s != null) return s.Equals(null) ? null : s;
            TTarget t;
            return weak.TryGetTarget(out t) ? t : null;
        }

        internal TProperty Select(TTarget t) { return selector(t); }
        internal bool Same(TProperty a, TProperty b) { return comparer.Equals(a, b); }

        public IOnityAsyncEnumerator<TProperty> GetAsyncEnumerator(CancellationToken cancellationToken = default(CancellationToken))
        {
            return ValueChangedEnumerator<TTarget, TProperty>.Rent(OnityRuntime.Require(), this, timing, cancellationToken);
        }
    }

    /// <summary>While a MoveNextAsync is pending, one fast-lane Yield per run of the timing, each
    /// checking the value.</summary>
    sealed class ValueChangedEnumerator<TTarget, TProperty> : OnityAsyncEnumeratorBase<TProperty> where TTarget : class
    {
        static readonly OnityObjectPool<ValueChangedEnumerator<TTarget, TProperty>> pool = new OnityObjectPool<ValueChangedEnumerator<TTarget, TProperty>>(256);
        OnityRuntime runtime;
        ValueChangedStream<TTarget, TProperty> stream;
        OnityTiming timing;
        bool first;
        readonly Action onRun;

        ValueChangedEnumerator() { onRun = OnRun; }

        internal static ValueChangedEnumerator<TTarget, TProperty> Rent(OnityRuntime r, ValueChangedStream<TTarget, TProperty> stream, OnityTiming timing, CancellationToken ct)
        {
            var e = pool.TryRent() ?? new ValueChangedEnumerator<TTarget, TProperty>();
            e.runtime = r;
            e.stream = stream;
            e.timing = timing;
            e.first = true;
            e.Begin(ct);
            return e;
        }

        protected override void MoveNextCore()
        {
            if (first)
            {
                first = false;
                try
                {
                    var t = stream.Target();
                    if (t == null) Finish();
                    else Yield(stream.Select(t));
                }
                catch (Exception ex) { Fail(ex); }
                return;
            }
            Wait();
        }

        void Wait()
        {
            var r = runtime;
            if (r.disposed)
            {
                Fail(StreamErrors.RuntimeDisposed());
                return;
            }
            try { r.FrameWait(0, timing).UnsafeOnCompleted(onRun); }
            catch (Exception ex) { Fail(ex); }
        }

        void OnRun()
        {
            if (runtime.disposed)
            {
                Fail(StreamErrors.RuntimeDisposed());
                return;
            }
            if (cancellationToken.IsCancellationRequested)
            {
                Cancel();
                return;
            }
            if (IsDisposed)
            {
                Finish();
                return;
            }
            TProperty v;
            try
            {
                var t = stream.Target();
                if (t == null)
                {
                    Finish();
                    return;
                }
                v = stream.Select(t);
                if (stream.Same(current, v))
                {
                    Wait();
                    return;
                }
            }
            catch (Exception ex)
            {
                Fail(ex);
                return;
            }
            Yield(v);
        }

        protected override void ReturnToPool()
        {
            runtime = null;
            stream = null;
            pool.Return(this);
        }
    }
}
