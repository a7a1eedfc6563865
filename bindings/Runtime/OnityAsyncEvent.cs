using System;
using System.Threading;

namespace Onity
{
    /// <summary>What receives an <see cref="OnityAsyncEvent{T}"/>'s values (the one-shot waiter
    /// and the stream enumerator).</summary>
    internal interface IOnityEventSubscriber<T>
    {
        /// <summary>The subscription's stamp (0 while not subscribed): a dispatch delivers only to
        /// the subscription it snapshotted, not to a later one of the same object.</summary>
        uint Stamp { get; set; }
        void OnNext(T value);
        void OnEnd();
    }

    /// <summary>An event raised on the owner thread and awaited, once with
    /// <see cref="NextAsync"/> or as a stream (<see cref="IOnityAsyncEnumerable{T}"/>): the
    /// engine-agnostic core of the package's awaitable events (uGUI events, UnityEvents,
    /// MonoBehaviour message triggers), usable for any event of your own.
    /// <list type="bullet">
    /// <item><see cref="Raise"/> delivers the value to every waiter and stream subscribed when it
    /// started, in subscription order; a waiter or stream subscribed during the delivery (from a
    /// continuation) receives the next value, not this one.</item>
    /// <item>Streams are pulled: a value raised while a stream's consumer is not awaiting
    /// <c>MoveNextAsync</c> is not kept for it (as UniTask's event streams).</item>
    /// <item><see cref="Complete"/> ends it: pending waiters are canceled, streams end
    /// (<c>MoveNextAsync</c> returns false); later waits are canceled at once.</item>
    /// <item>A cancellation token is observed at the next run of Update after it is canceled (polled
    /// on the player loop, like every frame wait: no registration, nothing allocated).</item>
    /// <item>After warm-up <see cref="NextAsync"/> and every delivery allocate nothing (waiters
    /// are pooled); <see cref="GetAsyncEnumerator"/> allocates its enumerator (about 100 B).</item>
    /// </list>
    /// Owner thread only (the thread of <see cref="OnityRuntime.Current"/>; while no runtime exists,
    /// the first thread that used the event): every member but the two properties, the enumerator's
    /// <c>MoveNextAsync</c> and <c>DisposeAsync</c> included, throws
    /// <see cref="InvalidOperationException"/> on another thread.</summary>
    public sealed class OnityAsyncEvent<T> : IOnityAsyncEnumerable<T>
    {
        struct Entry
        {
            public IOnityEventSubscriber<T> sub;
            public uint stamp;
        }

        Entry[] subs = new Entry[4];
        int count;
        Entry[][] buffers = new Entry[2][]; // one snapshot buffer per nesting level of Raise
        int depth;
        // One stamp sequence for every event of this T (owner thread): a pooled waiter released
        // during a delivery and subscribed to another event gets a stamp no snapshot holds.
        static uint nextStamp;
        // Full AOT (Mono): a class constructed only inside this class's code, which runs shared
        // over T, gets only its constructor compiled per instantiation, its other methods falling
        // back to code shared over any value type (gsharedvt: every call through argument-copying
        // trampolines). A field of its type has the AOT compiler compile its methods with each
        // instantiation of this class (docs/full-aot.md). Never assigned.
#pragma warning disable 169
        static Enumerator aotEnumerator;
        static Waiter aotWaiter;
#pragma warning restore 169
        bool completed;
        int noRuntimeThread; // ManagedThreadId of the thread using the event while no runtime exists (0: none yet)
        readonly Action onFirstSubscriber, onLastUnsubscribed;

        /// <summary>An event.</summary>
        public OnityAsyncEvent() { }

        /// <summary>An event that tells when it gains its first subscriber
        /// (<paramref name="onFirstSubscriber"/>: subscribe to the underlying source) and loses its
        /// last one (<paramref name="onLastUnsubscribed"/>: unsubscribe), so that a source is
        /// listened to only while someone waits. Both run on the owner thread.</summary>
        public OnityAsyncEvent(Action onFirstSubscriber, Action onLastUnsubscribed)
        {
            this.onFirstSubscriber = onFirstSubscriber;
            this.onLastUnsubscribed = onLastUnsubscribed;
        }

        /// <summary>True once <see cref="Complete"/> was called.</summary>
        public bool IsCompleted { get { return completed; } }

        /// <summary>Waiters and streams subscribed now.</summary>
        public int SubscriberCount { get { return count; } }

        /// <summary>Delivers <paramref name="value"/> to the current waiters and streams (nothing
        /// after <see cref="Complete"/>). An exception thrown by a continuation goes to
        /// <see cref="OnityTask.UnobservedTaskException"/> and the delivery goes on.</summary>
        public void Raise(T value)
        {
            CheckThread();
            int n = count;
            if (completed || n == 0) return;
            if (n == 1) DeliverToOne(value);
            else Dispatch(value, false);
        }

        /// <summary>One subscriber, read now (so current: no stamp to check): no snapshot, since
        /// what it does to the list during the call cannot reach this delivery.</summary>
        void DeliverToOne(T value)
        {
            var only = subs[0].sub;
            try
            {
                only.OnNext(value);
            }
            catch (Exception ex) { OnityTask.PublishUnobserved(ex); }
        }

        /// <summary>Ends the event: pending waiters complete canceled, streams end. Idempotent.</summary>
        public void Complete()
        {
            CheckThread();
            if (completed) return;
            completed = true;
            if (count != 0) Dispatch(default(T), true);
        }

        /// <summary>Completes with the next raised value; canceled when
        /// <paramref name="cancellationToken"/> is canceled (at the next run of Update) or the
        /// event completes (at once). Pooled: nothing allocated after warm-up.</summary>
        public OnityTask<T> NextAsync(CancellationToken cancellationToken = default(CancellationToken))
        {
            CheckThread();
            if (cancellationToken.IsCancellationRequested) return OnityTask.FromCanceled<T>(cancellationToken);
            if (completed) return OnityTask.FromCanceled<T>();
            return Waiter.Start(this, cancellationToken);
        }

        /// <summary>A stream of the raised values from now on, until the event completes
        /// (<c>MoveNextAsync</c> returns false), <paramref name="cancellationToken"/> is canceled
        /// (it throws <see cref="OperationCanceledException"/>) or the enumerator is disposed.</summary>
        public IOnityAsyncEnumerator<T> GetAsyncEnumerator(CancellationToken cancellationToken = default(CancellationToken))
        {
            CheckThread();
            return new Enumerator(this, cancellationToken, default(CancellationToken));
        }

        /// <summary>As <see cref="GetAsyncEnumerator(CancellationToken)"/>, ended by either token
        /// (a stream's own token and its consumer's, as UniTask's event enumerables take): the
        /// <see cref="OperationCanceledException"/> carries the token that was canceled.</summary>
        public IOnityAsyncEnumerator<T> GetAsyncEnumerator(CancellationToken cancellationToken, CancellationToken otherCancellationToken)
        {
            CheckThread();
            return new Enumerator(this, cancellationToken, otherCancellationToken);
        }

        /// <summary>Throws unless called on the event's thread: the runtime's owner thread, or
        /// while no runtime exists the first thread that used the event (claimed here). Every
        /// entry point calls it before changing anything, so deliveries, ends and disposals of one
        /// event never run on two threads at once (its stream completes without a claim).</summary>
        [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
        internal void CheckThread()
        {
            var r = OnityRuntime.Current;
            if (r == null || !OnityRuntime.OwnedHere(r)) CheckThreadSlow(r);
        }

        void CheckThreadSlow(OnityRuntime r)
        {
            if (r != null)
            {
                if (!r.IsOwnerThread)
                    throw new InvalidOperationException("Onity: an OnityAsyncEvent is raised and awaited on the runtime's owner thread (the main thread); this is thread " + Thread.CurrentThread.ManagedThreadId + ".");
                return;
            }
            int me = Thread.CurrentThread.ManagedThreadId;
            int owner = Volatile.Read(ref noRuntimeThread);
            if (owner == me || (owner == 0 && Interlocked.CompareExchange(ref noRuntimeThread, me, 0) == 0)) return;
            throw new InvalidOperationException("Onity: an OnityAsyncEvent is used on one thread: without a runtime, the first thread that used it (thread " + Volatile.Read(ref noRuntimeThread) + "); this is thread " + me + ".");
        }

        internal void Subscribe(IOnityEventSubscriber<T> s)
        {
            if (count == subs.Length) Array.Resize(ref subs, count * 2);
            // The first snapshot buffer, with the first subscription (a single subscriber's
            // delivery needs none; a later second one then raises without allocating).
            if (buffers[0] == null) buffers[0] = new Entry[8];
            unchecked { if (++nextStamp == 0) nextStamp = 1; }
            subs[count].sub = s;
            subs[count].stamp = nextStamp;
            s.Stamp = nextStamp;
            count++;
            if (count == 1 && onFirstSubscriber != null) onFirstSubscriber();
        }

        internal void Unsubscribe(IOnityEventSubscriber<T> s)
        {
            uint stamp = s.Stamp;
            if (stamp == 0) return;
            s.Stamp = 0;
            for (int i = 0; i < count; i++)
            {
                if (subs[i].stamp != stamp || !ReferenceEquals(subs[i].sub, s)) continue;
                // Ordered removal: deliveries keep subscription order.
                Array.Copy(subs, i + 1, subs, i, count - i - 1);
                count--;
                subs[count] = default(Entry);
                if (count == 0 && onLastUnsubscribed != null) onLastUnsubscribed();
                return;
            }
        }

        void Dispatch(T value, bool end)
        {
            int n = count; // a Raise to one subscriber takes DeliverToOne
            if (depth == buffers.Length) Array.Resize(ref buffers, depth * 2);
            var buf = buffers[depth];
            if (buf == null || buf.Length < n) buf = buffers[depth] = new Entry[Math.Max(n, 4) * 2];
            for (int i = 0; i < n; i++) buf[i] = subs[i]; // cheaper than Mono's Array.Copy of structs
            if (end)
            {
                // Every subscription ends here; later subscriptions are refused (completed).
                Array.Clear(subs, 0, count);
                count = 0;
                if (onLastUnsubscribed != null) onLastUnsubscribed();
            }
            depth++;
            try
            {
                for (int i = 0; i < n; i++)
                {
                    var e = buf[i];
                    buf[i].sub = null;
                    try
                    {
                        if (end)
                        {
                            if (e.sub.Stamp != e.stamp) continue;
                            e.sub.Stamp = 0;
                            e.sub.OnEnd();
                        }
                        else if (e.sub.Stamp == e.stamp) e.sub.OnNext(value);
                    }
                    catch (Exception ex) { OnityTask.PublishUnobserved(ex); }
                }
            }
            finally { depth--; }
        }

        /// <summary>A one-shot wait (pooled): subscribed until the next value, the event's end,
        /// or its token's cancellation, which it polls on the player loop.</summary>
        sealed class Waiter : OnityLoopSource<T>, IOnityEventSubscriber<T>
        {
            static readonly OnityObjectPool<Waiter> pool = new OnityObjectPool<Waiter>(1024);
            OnityAsyncEvent<T> ev;
            CancellationToken ct;
            bool waiting;

            public uint Stamp { get; set; }

            internal static OnityTask<T> Start(OnityAsyncEvent<T> ev, CancellationToken ct)
            {
                if (ct.CanBeCanceled) OnityRuntime.Require().CheckOwner("awaiting an event with a cancellation token");
                var w = pool.TryRent() ?? new Waiter();
                w.ev = ev;
                w.ct = ct;
                w.waiting = true;
                var task = w.Task;
                ev.Subscribe(w);
                if (ct.CanBeCanceled) w.StartLoop(OnityTiming.Update);
                return task;
            }

            void Finish()
            {
                waiting = false;
                ev.Unsubscribe(this);
            }

            public void OnNext(T value)
            {
                Finish();
                TrySetResult(value);
            }

            public void OnEnd()
            {
                Finish();
                TrySetCanceled();
            }

            protected override bool MoveNext()
            {
                if (!waiting) return false;
                if (!ct.IsCancellationRequested) return true;
                Finish();
                TrySetCanceled(ct);
                return false;
            }

            protected override void OnLoopCanceled()
            {
                if (!waiting) return;
                Finish();
                TrySetCanceled();
            }

            protected override void Release()
            {
                ev = null;
                ct = default(CancellationToken);
                pool.Return(this);
            }
        }

        /// <summary>A stream's enumerator: subscribed from creation to its end; each
        /// <c>MoveNextAsync</c> waits for the next value (a reusable source, versioned).</summary>
        sealed class Enumerator : OnityLoopItem, IOnityAsyncEnumerator<T>, IOnityTaskSource<bool>, IOnityEventSubscriber<T>
        {
            readonly OnityAsyncEvent<T> ev;
            readonly CancellationToken ct, ct2;
            // Either token can be canceled (fixed at creation): without one, MoveNextAsync skips
            // the four CancellationToken calls (not inlined by Mono's JIT).
            readonly bool cancelable;
            OnityCompletionSourceCore<bool> core;
            T current;
            bool pending, ended, disposed;

            public uint Stamp { get; set; }

            internal Enumerator(OnityAsyncEvent<T> ev, CancellationToken ct, CancellationToken ct2)
            {
                this.ev = ev;
                this.ct = ct;
                this.ct2 = ct2;
                cancelable = ct.CanBeCanceled || ct2.CanBeCanceled;
                if (ev.completed) ended = true;
                else ev.Subscribe(this);
            }

            public T Current { get { return current; } }

            public OnityTask<bool> MoveNextAsync()
            {
                ev.CheckThread(); // before anything changes: Raise / DisposeAsync run on that thread
                if (disposed) throw new ObjectDisposedException("IOnityAsyncEnumerator", "Onity: MoveNextAsync after DisposeAsync.");
                if (pending) throw new InvalidOperationException("Onity: MoveNextAsync called while the previous MoveNextAsync is pending; await it first.");
                if (ended) return new OnityTask<bool>(false);
                if (cancelable)
                {
                    if (ct.IsCancellationRequested || ct2.IsCancellationRequested)
                    {
                        End();
                        return OnityTask.FromCanceled<bool>(ct.IsCancellationRequested ? ct : ct2);
                    }
                    if (!LoopActive) StartLoop(OnityTiming.Update);
                }
                core.s.Reset(); // the result (a bool) needs no clearing: it is set before it is read
                pending = true;
                return new OnityTask<bool>(this, core.Version);
            }

            void End()
            {
                ended = true;
                ev.Unsubscribe(this);
            }

            public void OnNext(T value)
            {
                if (!pending) return; // pulled stream: nobody is waiting for this value
                current = value;
                pending = false;
                // Every completion of this source runs on the owner thread (Raise, Complete, the
                // Update poll, DisposeAsync) behind `pending`: no claim needed.
                core.SetResultUnclaimed(true);
            }

            public void OnEnd()
            {
                ended = true;
                if (!pending) return;
                pending = false;
                core.TrySetResult(false);
            }

            protected override bool MoveNext()
            {
                if (!pending) return false;
                if (!ct.IsCancellationRequested && !ct2.IsCancellationRequested) return true;
                pending = false;
                End();
                core.TrySetCanceled(ct.IsCancellationRequested ? ct : ct2);
                return false;
            }

            protected override void OnLoopCanceled()
            {
                if (!pending) return;
                pending = false;
                End();
                core.TrySetCanceled();
            }

            public OnityTask DisposeAsync()
            {
                if (disposed) return OnityTask.CompletedTask;
                ev.CheckThread();
                disposed = true;
                End();
                if (pending)
                {
                    pending = false;
                    core.TrySetCanceled();
                }
                return OnityTask.CompletedTask;
            }

            public OnityTaskStatus GetStatus(long token) { return core.GetStatus(token); }
            public void OnCompleted(Action continuation, long token) { core.OnCompleted(continuation, token); }
            void IOnityTaskSource.GetResult(long token) { GetResult(token); }
            public bool GetResult(long token)
            {
                bool r;
                if (core.TryGetSucceeded(token, out r)) return r; // inlined: the checked path only on failure
                return core.GetResult(token);
            }
        }
    }
}
