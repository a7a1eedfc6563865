// The reusable handler of a message trigger (UniTask's AsyncTriggerHandler<T>): its interfaces,
// one per message (IOnityFixedUpdateHandler, ...), are generated with the triggers
// (OnityTriggerHandlers.g.cs, and OnityEventSystemTriggers.g.cs for the uGUI ones).
#if UNITY_5_3_OR_NEWER || ONITY_UNITY_STANDIN
using System.Threading;

namespace Onity.Triggers
{
    /// <summary>A trigger's handler as a one-shot awaitable: <see cref="OneShotAsync"/> completes at
    /// the trigger's next message (UniTask's <c>IAsyncOneShotTrigger</c>).</summary>
    public interface IOnityAsyncOneShotTrigger
    {
        OnityTask OneShotAsync();
    }

    /// <summary>What a trigger's <c>GetXxxAsyncHandler()</c> returns (UniTask's
    /// <c>AsyncTriggerHandler&lt;T&gt;</c>): a handler subscribed to the trigger from creation until
    /// <see cref="OnityAsyncEventHandler{T}.Dispose"/>, the trigger's destruction or its token's
    /// cancellation, whose <c>XxxAsync()</c> (the message's handler interface) can be awaited again
    /// and again without allocating (see <see cref="OnityAsyncEventHandler{T}"/>). A message sent
    /// while nobody awaits is not kept.</summary>
    public partial class OnityTriggerHandler<T> : OnityAsyncEventHandler<T>, IOnityAsyncOneShotTrigger
    {
        /// <summary>A handler on <paramref name="asyncEvent"/> (a trigger's event).</summary>
        public OnityTriggerHandler(OnityAsyncEvent<T> asyncEvent, CancellationToken cancellationToken, bool callOnce)
            : base(asyncEvent, cancellationToken, callOnce) { }

        OnityTask IOnityAsyncOneShotTrigger.OneShotAsync() { return NextUnitAsync(); }
    }
}
#endif
