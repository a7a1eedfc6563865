using System;
using System.Threading;

namespace Onity
{
    /// <summary>A value whose changes are awaited (UniTask's <c>IReadOnlyAsyncReactiveProperty</c>).</summary>
    public interface IOnityReadOnlyAsyncReactiveProperty<T> : IOnityAsyncEnumerable<T>
    {
        T Value { get; }
        /// <summary>The stream of the values set from now on (without the current one first).</summary>
        IOnityAsyncEnumerable<T> WithoutCurrent();
        /// <summary>The next value set.</summary>
        OnityTask<T> WaitAsync(CancellationToken cancellationToken = default(CancellationToken));
    }

    /// <summary>A settable <see cref="IOnityReadOnlyAsyncReactiveProperty{T}"/> (UniTask's
    /// <c>IAsyncReactiveProperty</c>).</summary>
    public interface IOnityAsyncReactiveProperty<T> : IOnityReadOnlyAsyncReactiveProperty<T>
    {
        new T Value { get; set; }
    }

    /// <summary>A value whose changes are awaited (UniTask's <c>AsyncReactiveProperty</c>), on an
    /// <see cref="OnityAsyncEvent{T}"/>: setting <see cref="Value"/> (equal or not) delivers it to
    /// every <see cref="WaitAsync"/> and enumeration waiting. Enumerating yields the current value
    /// first, then each value set while the consumer awaits <c>MoveNextAsync</c> (a value set while
    /// it does not is not kept for it, as UniTask's). <see cref="Dispose"/> ends the enumerations
    /// (<c>MoveNextAsync</c> returns false) and cancels the waits. Tokens are observed at the next
    /// run of Update. Owner thread. After warm-up a set, a <see cref="WaitAsync"/> and each element
    /// of an enumeration allocate nothing; <see cref="GetAsyncEnumerator"/> allocates its enumerator.</summary>
    public sealed class OnityAsyncReactiveProperty<T> : IOnityAsyncReactiveProperty<T>, IDisposable
    {
        readonly OnityAsyncEvent<T> changed = new OnityAsyncEvent<T>();
        T latest;
        ReactiveStream<T> withoutCurrent; // typed: the AOT compiler sees the class (see aotEnumerator)
#pragma warning disable 169
        static CurrentFirstEnumerator<T> aotEnumerator; // never assigned: see OnityAsyncEvent's aotEnumerator
#pragma warning restore 169

        public OnityAsyncReactiveProperty(T value) { latest = value; }

        /// <summary>The value; setting it delivers it to the waiting consumers.</summary>
        public T Value
        {
            get { return latest; }
            set
            {
                latest = value;
                changed.Raise(value);
            }
        }

        // The members both reactive properties share: ReactiveStream's.
        public IOnityAsyncEnumerable<T> WithoutCurrent() { return ReactiveStream<T>.Of(changed, ref withoutCurrent); }
        public IOnityAsyncEnumerator<T> GetAsyncEnumerator(CancellationToken cancellationToken = default(CancellationToken)) { return ReactiveStream<T>.CurrentFirst(changed, latest, cancellationToken); }
        public OnityTask<T> WaitAsync(CancellationToken cancellationToken = default(CancellationToken)) { return changed.NextAsync(cancellationToken); }

        /// <summary>Ends the enumerations and cancels the waits; later ones end / cancel at once.</summary>
        public void Dispose() { changed.Complete(); }

        public static implicit operator T(OnityAsyncReactiveProperty<T> value) { return value.Value; }

        public override string ToString() { return latest == null ? "(null)" : latest.ToString(); }
    }

    /// <summary>A read-only reactive property that follows a stream (UniTask's
    /// <c>ReadOnlyAsyncReactiveProperty</c>): it enumerates the source from construction, each
    /// element becoming its value. The source's end, fault or <paramref name="cancellationToken"/>
    /// stop it following (the last value stays); <see cref="Dispose"/> stops it (cancels the
    /// source's enumeration, which is then disposed) and ends its own enumerations.</summary>
    public sealed class OnityReadOnlyAsyncReactiveProperty<T> : IOnityReadOnlyAsyncReactiveProperty<T>, IDisposable
    {
        readonly OnityAsyncEvent<T> changed = new OnityAsyncEvent<T>();
        readonly CancellationTokenSource stop; // Dispose cancels the source's enumeration
        T latest;
        bool disposed;
        ReactiveStream<T> withoutCurrent; // typed: the AOT compiler sees the class (see aotEnumerator)
#pragma warning disable 169
        static CurrentFirstEnumerator<T> aotEnumerator; // never assigned: see OnityAsyncEvent's aotEnumerator
#pragma warning restore 169

        public OnityReadOnlyAsyncReactiveProperty(T initialValue, IOnityAsyncEnumerable<T> source, CancellationToken cancellationToken)
        {
            if (source == null) throw new ArgumentNullException("source");
            latest = initialValue;
            stop = cancellationToken.CanBeCanceled ? CancellationTokenSource.CreateLinkedTokenSource(cancellationToken) : new CancellationTokenSource();
            Follow(source, stop.Token).Forget();
        }

        public OnityReadOnlyAsyncReactiveProperty(IOnityAsyncEnumerable<T> source, CancellationToken cancellationToken)
            : this(default(T), source, cancellationToken) { }

        public T Value { get { return latest; } }

        async OnityTask Follow(IOnityAsyncEnumerable<T> source, CancellationToken ct)
        {
            var e = source.GetAsyncEnumerator(ct);
            try
            {
                while (!disposed && await e.MoveNextAsync())
                {
                    if (disposed) break;
                    latest = e.Current;
                    changed.Raise(latest);
                }
            }
            catch (OperationCanceledException) { }
            finally { await e.DisposeAsync(); }
        }

        // The members both reactive properties share: ReactiveStream's.
        public IOnityAsyncEnumerable<T> WithoutCurrent() { return ReactiveStream<T>.Of(changed, ref withoutCurrent); }
        public IOnityAsyncEnumerator<T> GetAsyncEnumerator(CancellationToken cancellationToken = default(CancellationToken)) { return ReactiveStream<T>.CurrentFirst(changed, latest, cancellationToken); }
        public OnityTask<T> WaitAsync(CancellationToken cancellationToken = default(CancellationToken)) { return changed.NextAsync(cancellationToken); }

        public void Dispose()
        {
            if (disposed) return;
            disposed = true;
            try { stop.Cancel(); } // the source's pending MoveNextAsync ends: Follow disposes it
            finally
            {
                stop.Dispose();
                changed.Complete();
            }
        }

        public static implicit operator T(OnityReadOnlyAsyncReactiveProperty<T> value) { return value.Value; }

        public override string ToString() { return latest == null ? "(null)" : latest.ToString(); }
    }

    /// <summary>UniTask's <c>StateExtensions</c>.</summary>
    public static class OnityStateExtensions
    {
        /// <summary>A read-only reactive property following <paramref name="source"/>.</summary>
        public static OnityReadOnlyAsyncReactiveProperty<T> ToReadOnlyAsyncReactiveProperty<T>(this IOnityAsyncEnumerable<T> source, CancellationToken cancellationToken)
        {
            return new OnityReadOnlyAsyncReactiveProperty<T>(source, cancellationToken);
        }

        /// <summary>As above, with the value before the source's first element.</summary>
        public static OnityReadOnlyAsyncReactiveProperty<T> ToReadOnlyAsyncReactiveProperty<T>(this IOnityAsyncEnumerable<T> source, T initialValue, CancellationToken cancellationToken)
        {
            return new OnityReadOnlyAsyncReactiveProperty<T>(initialValue, source, cancellationToken);
        }
    }

    /// <summary>The changes of a reactive property as a stream (WithoutCurrent), without exposing
    /// the event itself.</summary>
    internal sealed class ReactiveStream<T> : IOnityAsyncEnumerable<T>
    {
        readonly OnityAsyncEvent<T> changed;

        internal ReactiveStream(OnityAsyncEvent<T> changed) { this.changed = changed; }

        /// <summary>A property's WithoutCurrent stream, made once into <paramref name="slot"/>.</summary>
        internal static ReactiveStream<T> Of(OnityAsyncEvent<T> changed, ref ReactiveStream<T> slot)
        {
            return slot ?? (slot = new ReactiveStream<T>(changed));
        }

        /// <summary>A property's enumerator: <paramref name="current"/> first, then the changes.</summary>
        internal static IOnityAsyncEnumerator<T> CurrentFirst(OnityAsyncEvent<T> changed, T current, CancellationToken ct)
        {
            return new CurrentFirstEnumerator<T>(changed, changed.GetAsyncEnumerator(ct), current, ct);
        }

        public IOnityAsyncEnumerator<T> GetAsyncEnumerator(CancellationToken cancellationToken = default(CancellationToken))
        {
            return changed.GetAsyncEnumerator(cancellationToken);
        }
    }

    /// <summary>A reactive property's enumerator: the value current at its creation first, then
    /// the event's stream (subscribed from creation).</summary>
    internal sealed class CurrentFirstEnumerator<T> : IOnityAsyncEnumerator<T>
    {
        readonly OnityAsyncEvent<T> ev;
        readonly IOnityAsyncEnumerator<T> inner;
        readonly CancellationToken ct;
        T first;
        int stage; // 0: the current value not yet given, 1: it is Current, 2: the stream's

        internal CurrentFirstEnumerator(OnityAsyncEvent<T> ev, IOnityAsyncEnumerator<T> inner, T current, CancellationToken ct)
        {
            this.ev = ev;
            this.inner = inner;
            this.ct = ct;
            first = current;
        }

        public T Current { get { return stage == 1 ? first : inner.Current; } }

        public OnityTask<bool> MoveNextAsync()
        {
            if (stage != 0)
            {
                if (stage == 1)
                {
                    stage = 2;
                    first = default(T);
                }
                return inner.MoveNextAsync();
            }
            if (ct.IsCancellationRequested) return inner.MoveNextAsync(); // cancels as the stream does
            ev.CheckThread(); // as the stream's MoveNextAsync
            stage = 1;
            return new OnityTask<bool>(true);
        }

        public OnityTask DisposeAsync() { return inner.DisposeAsync(); }
    }
}
