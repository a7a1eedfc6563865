namespace Onity
{
    // The enums of the public C# API that cross the boundary (OnityTiming is generated whole:
    // Native/OnityTiming.g.cs). Their values come from the generated native enums
    // (Native/OnityNative.Enums.g.cs, from include/onity.h, from the Rust definitions in src/ffi): a renumbering follows, a rename or removal fails to compile, and
    // tests/csharp/Tests/EnumTests.cs fails when the native enum gains a value these lack.

    /// <summary>The clock a <see cref="OnityTask.Delay(System.TimeSpan, DelayType, OnityTiming, System.Threading.CancellationToken)"/>
    /// counts (UniTask's names; the native <c>OnityClock</c>).</summary>
    public enum DelayType : byte
    {
        /// <summary>Sum of the scaled delta times passed to <see cref="OnityRuntime.BeginFrame"/>.</summary>
        DeltaTime = (byte)Native.OnityClock.Scaled,
        /// <summary>Sum of the unscaled delta times.</summary>
        UnscaledDeltaTime = (byte)Native.OnityClock.Unscaled,
        /// <summary>The realtime value of the current frame minus that of the creation frame.</summary>
        Realtime = (byte)Native.OnityClock.Realtime,
    }

    /// <summary>State of an <see cref="OnityTask"/>'s source (the native <c>OnityTaskState</c>).</summary>
    public enum OnityTaskStatus : byte
    {
        Pending = (byte)Native.OnityTaskState.Pending,
        Succeeded = (byte)Native.OnityTaskState.Succeeded,
        Faulted = (byte)Native.OnityTaskState.Faulted,
        Canceled = (byte)Native.OnityTaskState.Canceled,
    }
}
