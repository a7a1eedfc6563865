using System;
using System.Runtime.CompilerServices;
using System.Runtime.ExceptionServices;
using System.Threading;

namespace Onity
{
    /// <summary>The part of <see cref="OnityCompletionSourceCore{T}"/> that does not depend on
    /// the result type: state, continuation, error, version. Non-generic on purpose: without a JIT
    /// (Mono's full AOT, IL2CPP) a generic source's methods run as code shared over its type
    /// argument, where every call to another generic-context-dependent method and every static
    /// field of a generic type costs a runtime generic-context lookup and cannot be inlined; calls
    /// to these methods can (docs/full-aot.md).</summary>
    internal struct OnitySourceState
    {
        internal static readonly Action Completed = CompletedSentinel;
        static void CompletedSentinel() { }

        internal object error; // OnityExceptionHolder (reported if collected unobserved), or OperationCanceledException
        internal Action continuation;
        internal int state; // 0 pending, 1 being completed, 2 succeeded, 3 faulted, 4 canceled
        internal uint version;

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal void Reset()
        {
            error = null;
            continuation = null;
            unchecked { version++; }
            Volatile.Write(ref state, 0);
        }

        /// <summary>Claims the completion (the first TrySet* wins); the caller stores its outcome,
        /// then <see cref="Publish"/>es.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal bool TryBegin() { return Interlocked.CompareExchange(ref state, 1, 0) == 0; }

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal void Publish(int final)
        {
            Volatile.Write(ref state, final);
#if ONITY_TEST_HOOKS
            if (final == 2) OnityTestHooks.AfterStatePublished();
#endif
            var c = Volatile.Read(ref continuation) ?? Interlocked.CompareExchange(ref continuation, Completed, null);
            if (c != null) OnityRuntime.Dispatch(c);
        }

        internal bool TrySetException(Exception ex)
        {
            if (ex is OperationCanceledException) return TrySetCanceled(((OperationCanceledException)ex).CancellationToken);
            if (!TryBegin()) return false;
            error = new OnityExceptionHolder(ExceptionDispatchInfo.Capture(ex));
            Publish(3);
            return true;
        }

        internal bool TrySetCanceled(CancellationToken token)
        {
            if (!TryBegin()) return false;
            error = new OperationCanceledException(token);
            Publish(4);
            return true;
        }

        /// <summary>The state as consumers may see it: a completion counts once its continuation
        /// slot is settled (the sentinel placed, or the registered continuation there to be
        /// dispatched). Until then a TrySet* on another thread is still signalling: a consumer that
        /// saw "completed", consumed and recycled the source now would have that late signal land
        /// in the source's next use (an early continuation, or the sentinel).</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal int ObservedState()
        {
            int s = Volatile.Read(ref state);
            return s >= 2 && Volatile.Read(ref continuation) == null ? 1 : s;
        }

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal OnityTaskStatus GetStatus(long token)
        {
            if ((uint)token != version) throw OnityErrors.Stale();
            return UnsafeGetStatus();
        }

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal OnityTaskStatus UnsafeGetStatus()
        {
            int s = ObservedState();
            return s < 2 ? OnityTaskStatus.Pending : (OnityTaskStatus)(s - 1);
        }

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal void OnCompleted(Action cont, long token)
        {
            if ((uint)token != version) throw OnityErrors.Stale();
            var prev = Interlocked.CompareExchange(ref continuation, cont, null);
            if (prev == null) return;
            OnCompletedLate(prev, cont);
        }

        static void OnCompletedLate(Action prev, Action cont)
        {
            if (ReferenceEquals(prev, Completed)) { cont(); return; }
            throw OnityErrors.Twice();
        }

        /// <summary>True when <paramref name="token"/> is current and the source succeeded (the
        /// result may be read).</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal bool Succeeded(long token) { return (uint)token == version && ObservedState() == 2; }

        /// <summary>Throws what GetResult throws when the result cannot be read (stale token, not
        /// completed, faulted, canceled); returns when it can.</summary>
        internal void ThrowUnlessSucceeded(long token)
        {
            if ((uint)token != version) throw OnityErrors.Stale();
            int s = ObservedState();
            if (s == 2) return;
            if (s < 2) throw OnityErrors.Pending();
            var holder = error as OnityExceptionHolder;
            if (holder != null) holder.Observe().Throw();
            throw (OperationCanceledException)error;
        }

        /// <summary>The end of a checked GetResult (in its finally): true when the consumer should
        /// recycle the source (its token current and the outcome settled).</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal bool SettledAt(long token) { return (uint)token == version && ObservedState() >= 2; }
    }

    /// <summary>The state of one completion source (a mutable struct: keep it in a field and call
    /// it by reference). Fully managed. <c>TrySet*</c> may be called from any thread; the first
    /// wins. The continuation runs inline when completed on the runtime's owner thread (or when
    /// no runtime exists), otherwise it is queued to the owner and runs at its next
    /// <see cref="OnityRuntime.Tick"/> or <see cref="OnityRuntime.Drain"/>.</summary>
    public struct OnityCompletionSourceCore<T>
    {
        internal T result;
        internal OnitySourceState s; // everything not typed by T (see OnitySourceState)

        public uint Version { [MethodImpl(MethodImplOptions.AggressiveInlining)] get { return s.version; } }

        /// <summary>Ends this use: the version moves on so old tokens go stale.</summary>
        public void Reset()
        {
            result = default(T);
            s.Reset();
        }

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public bool TrySetResult(T value)
        {
            if (!s.TryBegin()) return false;
            result = value;
            s.Publish(2);
            return true;
        }

        /// <summary>TrySetResult for a source whose completions its owner already serialises (one
        /// thread completes it, at most once per use, e.g. behind its own "pending" flag): the
        /// same publication without the claim's atomic instruction.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal void SetResultUnclaimed(T value)
        {
            result = value;
            s.Publish(2);
        }

        public bool TrySetException(Exception ex) { return s.TrySetException(ex); }

        public bool TrySetCanceled(CancellationToken token = default(CancellationToken)) { return s.TrySetCanceled(token); }

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public OnityTaskStatus GetStatus(long token) { return s.GetStatus(token); }

        /// <summary>Status without token check (diagnostics).</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public OnityTaskStatus UnsafeGetStatus() { return s.UnsafeGetStatus(); }

        public void OnCompleted(Action cont, long token) { s.OnCompleted(cont, token); }

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        /// <summary>Returns only when <paramref name="token"/> is current and the outcome settled;
        /// otherwise throws what <see cref="GetResult"/> throws (stale, not completed). Lets a
        /// consumer that releases itself in a <c>finally</c> decide to consume before it reads the
        /// outcome, so a completion landing during a "not completed" error is never released.</summary>
        public void ThrowIfNotCompleted(long token)
        {
            if ((uint)token != s.version || s.ObservedState() < 2) s.ThrowUnlessSucceeded(token);
        }

        public T GetResult(long token)
        {
            s.ThrowUnlessSucceeded(token);
            return result;
        }

        /// <summary>GetResult's success path without its checks' exception paths: true, with the
        /// result, when <paramref name="token"/> is current and the source succeeded; otherwise
        /// false and the caller takes <see cref="GetResult"/> (which throws the right error).
        /// Lets a pooled source recycle itself without a try/finally on the hot path.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal bool TryGetSucceeded(long token, out T value)
        {
            if (s.Succeeded(token))
            {
                value = result;
                return true;
            }
            value = default(T);
            return false;
        }
    }

    /// <summary>A pooled, auto-reset completion source: rent with <see cref="Create"/>, hand out
    /// <see cref="Task"/>, complete it from any thread. It returns to the pool when its task is
    /// awaited (GetResult). A <c>TrySet*</c> after that returns false only until the pool hands the
    /// object out again: then it completes the new use. So a producer must drop its reference once
    /// it completed the source or the task was awaited; when two producers race (a result and a
    /// timeout), use the plain <see cref="OnityCompletionSource"/> (as with UniTask's auto-reset
    /// sources).</summary>
    public sealed class AutoResetOnityCompletionSource : IOnityTaskSource, IOnitySiteSource, IOnityPromise
    {
        static readonly OnityObjectPool<AutoResetOnityCompletionSource> pool = new OnityObjectPool<AutoResetOnityCompletionSource>(1024);
        OnityCompletionSourceCore<AsyncUnit> core;
        uint liveVersion = uint.MaxValue; // version while rented; MaxValue while pooled

        AutoResetOnityCompletionSource() { }

        public static OnityObjectPool<AutoResetOnityCompletionSource> Pool { get { return pool; } }

        // Caller info in every build (one API); recorded only with ONITY_SITES.
        public static AutoResetOnityCompletionSource Create([CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            var s = pool.TryRent() ?? new AutoResetOnityCompletionSource();
            Volatile.Write(ref s.liveVersion, s.core.s.version);
#if ONITY_SITES
            if (OnitySiteSwitch.Ever) OnityRuntime.TrackAt(s, s.core.Version, "AutoResetOnityCompletionSource", callerFile, callerLine);
#endif
            return s;
        }

        public OnityTask Task { [MethodImpl(MethodImplOptions.AggressiveInlining)] get { return new OnityTask(this, core.s.version); } }

        /// <summary>A source already completed (UniTask's CreateCompleted / CreateFromException /
        /// CreateFromCanceled); <paramref name="token"/> is its task's token (Task gives the task).</summary>
        public static AutoResetOnityCompletionSource CreateCompleted(out long token) { var s = Create(); token = s.core.Version; s.TrySetResult(); return s; }
        public static AutoResetOnityCompletionSource CreateFromException(Exception exception, out long token) { var s = Create(); token = s.core.Version; s.TrySetException(exception); return s; }
        public static AutoResetOnityCompletionSource CreateFromCanceled(CancellationToken cancellationToken, out long token) { var s = Create(); token = s.core.Version; s.TrySetCanceled(cancellationToken); return s; }

        /// <summary>The status without a token check (UniTask's UnsafeGetStatus).</summary>
        public OnityTaskStatus UnsafeGetStatus() { return core.s.UnsafeGetStatus(); }

        public bool TrySetResult()
        {
            if (Volatile.Read(ref liveVersion) != core.s.version || !core.s.TryBegin()) return false;
            core.s.Publish(2);
            return true;
        }
        public bool TrySetException(Exception ex) { return Volatile.Read(ref liveVersion) == core.s.version && core.s.TrySetException(ex); }
        public bool TrySetCanceled(CancellationToken token = default(CancellationToken)) { return Volatile.Read(ref liveVersion) == core.s.version && core.s.TrySetCanceled(token); }

        public OnityTaskStatus GetStatus(long token) { return core.s.GetStatus(token); }
        bool IOnitySiteSource.IsCurrent(long token) { return Volatile.Read(ref liveVersion) == (uint)token && core.s.version == (uint)token; }
        OnityTaskStatus IOnitySiteSource.UnsafeGetStatus() { return core.s.UnsafeGetStatus(); }
        public void OnCompleted(Action continuation, long token) { core.s.OnCompleted(continuation, token); }

        public void GetResult(long token)
        {
            if (core.s.Succeeded(token)) Recycle();
            else GetResultChecked(token);
        }

        void GetResultChecked(long token)
        {
            try { core.s.ThrowUnlessSucceeded(token); }
            finally
            {
                if (core.s.SettledAt(token)) Recycle();
            }
        }

        void Recycle()
        {
            Volatile.Write(ref liveVersion, uint.MaxValue);
            core.s.Reset();
            pool.Return(this);
        }
    }

    /// <summary>The typed pooled auto-reset completion source (see the untyped one).</summary>
    public sealed class AutoResetOnityCompletionSource<T> : IOnityTaskSource<T>, IOnitySiteSource, IOnityPromise<T>
    {
        static readonly OnityObjectPool<AutoResetOnityCompletionSource<T>> pool = new OnityObjectPool<AutoResetOnityCompletionSource<T>>(1024);
        OnityCompletionSourceCore<T> core;
        uint liveVersion = uint.MaxValue;

        AutoResetOnityCompletionSource() { }

        // Caller info in every build (one API); recorded only with ONITY_SITES.
        public static AutoResetOnityCompletionSource<T> Create([CallerFilePath] string callerFile = "", [CallerLineNumber] int callerLine = 0)
        {
            var s = pool.TryRent() ?? new AutoResetOnityCompletionSource<T>();
            Volatile.Write(ref s.liveVersion, s.core.s.version);
#if ONITY_SITES
            if (OnitySiteSwitch.Ever) OnityRuntime.TrackAt(s, s.core.Version, "AutoResetOnityCompletionSource", callerFile, callerLine);
#endif
            return s;
        }

        public OnityTask<T> Task { [MethodImpl(MethodImplOptions.AggressiveInlining)] get { return new OnityTask<T>(this, core.s.version); } }

        /// <summary>A source already completed (UniTask's CreateFromResult / CreateFromException /
        /// CreateFromCanceled); <paramref name="token"/> is its task's token (Task gives the task).</summary>
        public static AutoResetOnityCompletionSource<T> CreateFromResult(T result, out long token) { var s = Create(); token = s.core.Version; s.TrySetResult(result); return s; }
        public static AutoResetOnityCompletionSource<T> CreateFromException(Exception exception, out long token) { var s = Create(); token = s.core.Version; s.TrySetException(exception); return s; }
        public static AutoResetOnityCompletionSource<T> CreateFromCanceled(CancellationToken cancellationToken, out long token) { var s = Create(); token = s.core.Version; s.TrySetCanceled(cancellationToken); return s; }

        /// <summary>The status without a token check (UniTask's UnsafeGetStatus).</summary>
        public OnityTaskStatus UnsafeGetStatus() { return core.s.UnsafeGetStatus(); }

        // The core's typed members are not called here: see OnitySourceState.
        public bool TrySetResult(T value)
        {
            if (Volatile.Read(ref liveVersion) != core.s.version || !core.s.TryBegin()) return false;
            core.result = value;
            core.s.Publish(2);
            return true;
        }
        public bool TrySetException(Exception ex) { return Volatile.Read(ref liveVersion) == core.s.version && core.s.TrySetException(ex); }
        public bool TrySetCanceled(CancellationToken token = default(CancellationToken)) { return Volatile.Read(ref liveVersion) == core.s.version && core.s.TrySetCanceled(token); }

        public OnityTaskStatus GetStatus(long token) { return core.s.GetStatus(token); }
        bool IOnitySiteSource.IsCurrent(long token) { return Volatile.Read(ref liveVersion) == (uint)token && core.s.version == (uint)token; }
        OnityTaskStatus IOnitySiteSource.UnsafeGetStatus() { return core.s.UnsafeGetStatus(); }
        public void OnCompleted(Action continuation, long token) { core.s.OnCompleted(continuation, token); }
        void IOnityTaskSource.GetResult(long token) { GetResult(token); }

        public T GetResult(long token)
        {
            if (!core.s.Succeeded(token)) return GetResultChecked(token);
            T value = core.result;
            Recycle();
            return value;
        }

        T GetResultChecked(long token)
        {
            try { core.s.ThrowUnlessSucceeded(token); return core.result; }
            finally
            {
                if (core.s.SettledAt(token)) Recycle();
            }
        }

        void Recycle()
        {
            Volatile.Write(ref liveVersion, uint.MaxValue);
            core.result = default(T);
            core.s.Reset();
            pool.Return(this);
        }
    }

    /// <summary>A plain (not pooled) completion source: its task may be awaited any number of
    /// times and by several awaiters; its outcome stays readable.</summary>
    public class OnityCompletionSource<T> : IOnityTaskSource<T>, IOnityPromise<T>
    {
        readonly object gate = new object();
        T result;
        OnityExceptionHolder error;
        OperationCanceledException canceled;
        int state; // 0 pending, 2 succeeded, 3 faulted, 4 canceled
        Action first;
        System.Collections.Generic.List<Action> more;

        public OnityCompletionSource() { }

        public OnityTask<T> Task { get { return new OnityTask<T>(this, 0); } }

        /// <summary>The status (UniTask's UnsafeGetStatus; this source has one use, no token).</summary>
        public OnityTaskStatus UnsafeGetStatus()
        {
            int s = Volatile.Read(ref state);
            return s == 0 ? OnityTaskStatus.Pending : s == 2 ? OnityTaskStatus.Succeeded : s == 3 ? OnityTaskStatus.Faulted : OnityTaskStatus.Canceled;
        }

        public bool TrySetResult(T value) { return Complete(2, value, null, null); }
        public bool TrySetException(Exception ex)
        {
            var oce = ex as OperationCanceledException;
            if (oce != null) return Complete(4, default(T), null, oce);
            return Complete(3, default(T), new OnityExceptionHolder(ExceptionDispatchInfo.Capture(ex)), null);
        }
        public bool TrySetCanceled(CancellationToken token = default(CancellationToken))
        {
            return Complete(4, default(T), null, new OperationCanceledException(token));
        }

        bool Complete(int s, T value, OnityExceptionHolder e, OperationCanceledException c)
        {
            Action a;
            System.Collections.Generic.List<Action> m;
            lock (gate)
            {
                if (state != 0) return false;
                result = value;
                error = e;
                canceled = c;
                Volatile.Write(ref state, s);
                a = first;
                m = more;
                first = null;
                more = null;
            }
            if (a != null) OnityRuntime.Dispatch(a);
            if (m != null) for (int i = 0; i < m.Count; i++) OnityRuntime.Dispatch(m[i]);
            return true;
        }

        public OnityTaskStatus GetStatus(long token)
        {
            int s = Volatile.Read(ref state);
            return s == 0 ? OnityTaskStatus.Pending : (OnityTaskStatus)(s - 1);
        }

        public void OnCompleted(Action continuation, long token)
        {
            lock (gate)
            {
                if (state == 0)
                {
                    if (first == null) first = continuation;
                    else (more ?? (more = new System.Collections.Generic.List<Action>())).Add(continuation);
                    return;
                }
            }
            continuation();
        }

        void IOnityTaskSource.GetResult(long token) { GetResult(token); }

        public T GetResult(long token)
        {
            int s = Volatile.Read(ref state);
            if (s == 2) return result;
            if (s == 0) throw OnityErrors.Pending();
            if (s == 3) error.Observe().Throw();
            throw canceled;
        }
    }

    /// <summary>The untyped plain completion source.</summary>
    public sealed class OnityCompletionSource : OnityCompletionSource<AsyncUnit>, IOnityPromise
    {
        public OnityCompletionSource() { }
        public new OnityTask Task { get { return new OnityTask(this, 0); } }
        public bool TrySetResult() { return TrySetResult(default(AsyncUnit)); }
    }

#if ONITY_TEST_HOOKS
    /// <summary>Test-only interleaving points (compiled only with ONITY_TEST_HOOKS, as the C# test
    /// program is): a test sets one to stop a thread at a chosen point.</summary>
    internal static class OnityTestHooks
    {
        static readonly Action Nothing = () => { };
        /// <summary>Runs in TrySetResult between publishing the completed state and signalling.</summary>
        internal static Action AfterStatePublished = Nothing;
        /// <summary>Suspensions that took the full context capture (OnityContextFlow.CaptureSlow).</summary>
        internal static int SlowCaptures;
        internal static void Reset() { AfterStatePublished = Nothing; }
    }
#endif
}
