using System;
using System.Runtime.CompilerServices;
using System.Threading;

namespace Onity
{
    /// <summary>Awaits a token's cancellation (UniTask's CancellationTokenAwaitable): resumes at
    /// the Cancel call itself, on the canceling thread, and completes normally (no exception); a
    /// token that cannot be canceled, or already is, completes at once. Each suspension registers
    /// on the token (allocates the registration, as UniTask's). <c>ct.WaitUntilCanceled()</c>
    /// returns an <see cref="OnityTask"/> polled at Update instead; await
    /// <c>new OnityCancellationTokenAwaitable(ct)</c> for this form.</summary>
    public readonly struct OnityCancellationTokenAwaitable
    {
        readonly CancellationToken cancellationToken;

        public OnityCancellationTokenAwaitable(CancellationToken cancellationToken) { this.cancellationToken = cancellationToken; }

        public Awaiter GetAwaiter() { return new Awaiter(cancellationToken); }

        public struct Awaiter : ICriticalNotifyCompletion
        {
            readonly CancellationToken cancellationToken;

            public Awaiter(CancellationToken cancellationToken) { this.cancellationToken = cancellationToken; }

            public bool IsCompleted { get { return !cancellationToken.CanBeCanceled || cancellationToken.IsCancellationRequested; } }

            public void GetResult() { }

            public void OnCompleted(Action continuation) { UnsafeOnCompleted(continuation); }

            public void UnsafeOnCompleted(Action continuation)
            {
                if (continuation == null) throw new ArgumentNullException("continuation");
                cancellationToken.Register(continuation);
            }
        }
    }
}
