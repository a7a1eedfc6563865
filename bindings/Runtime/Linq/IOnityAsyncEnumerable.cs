using System.Threading;

namespace Onity
{
    public interface IOnityAsyncEnumerable<T>
    {
        IOnityAsyncEnumerator<T> GetAsyncEnumerator(CancellationToken cancellationToken = default(CancellationToken));
    }

    public interface IOnityAsyncEnumerator<T> : IOnityAsyncDisposable
    {
        T Current { get; }
        OnityTask<bool> MoveNextAsync();
    }

    public interface IOnityAsyncDisposable
    {
        OnityTask DisposeAsync();
    }
}
