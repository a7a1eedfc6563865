using System.Threading;

namespace Onity
{
    /// <summary>An asynchronous stream (UniTask's IUniTaskAsyncEnumerable). C# 7.2 consumes it with
    /// the <c>ForEachAsync</c> / <c>ForEachAwaitAsync</c> extensions of
    /// <see cref="OnityAsyncEnumerable"/>; with C# 8 (Unity 2020.2+) <c>await foreach</c> binds to
    /// these members by pattern (<c>GetAsyncEnumerator</c> callable without arguments,
    /// <c>MoveNextAsync</c> returning an awaitable of bool, <c>Current</c>, and a pattern
    /// <c>DisposeAsync</c> returning an awaitable). Enumerators of this package are pooled: one
    /// returns to its pool when disposed (<c>await foreach</c> and <c>ForEachAsync</c> dispose it
    /// exactly once); do not touch it afterwards.</summary>
    public interface IOnityAsyncEnumerable<T>
    {
        IOnityAsyncEnumerator<T> GetAsyncEnumerator(CancellationToken cancellationToken = default(CancellationToken));
    }

    /// <summary>The cursor of an <see cref="IOnityAsyncEnumerable{T}"/>: await
    /// <see cref="MoveNextAsync"/> (one at a time), then read <see cref="Current"/>.</summary>
    public interface IOnityAsyncEnumerator<T> : IOnityAsyncDisposable
    {
        T Current { get; }
        OnityTask<bool> MoveNextAsync();
    }

    /// <summary>Asynchronous disposal (UniTask's IUniTaskAsyncDisposable).</summary>
    public interface IOnityAsyncDisposable
    {
        OnityTask DisposeAsync();
    }
}
