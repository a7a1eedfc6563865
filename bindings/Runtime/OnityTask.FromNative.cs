namespace Onity
{
    public partial struct OnityTask
    {
        /// <summary>Awaits a native task handle of <see cref="OnityRuntime.Current"/> (made by C,
        /// C++ or another plugin; see <see cref="OnityRuntime.AwaitNative"/>): completes with its
        /// value, faults with an <see cref="OnityException"/> carrying its error code, cancels with
        /// an <see cref="System.OperationCanceledException"/>. C# takes (and consumes) the
        /// handle. Owner thread; no GC allocation after warm-up.</summary>
        public static OnityTask<ulong> FromNative(ulong handle)
        {
            return OnityRuntime.Require().AwaitNative(handle);
        }
    }
}
