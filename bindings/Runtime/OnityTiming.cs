namespace Onity
{
    // The enums of the public C# API that cross the boundary. Their values come from the
    // generated native enums (Native/OnityNative.Enums.g.cs, from include/onity.h, from the Rust
    // definitions in src/ffi): a renumbering follows, a rename or removal fails to compile, and
    // tests/csharp/Tests/EnumTests.cs fails when the native enum gains a value these lack.

    /// <summary>Player-loop timings, in the order Unity runs them in a frame (UniTask's
    /// <c>PlayerLoopTiming</c> order; the native <c>OnityTiming</c>).</summary>
    public enum OnityTiming : byte
    {
        Initialization = (byte)Native.OnityTiming.Initialization,
        LastInitialization = (byte)Native.OnityTiming.LastInitialization,
        EarlyUpdate = (byte)Native.OnityTiming.EarlyUpdate,
        LastEarlyUpdate = (byte)Native.OnityTiming.LastEarlyUpdate,
        FixedUpdate = (byte)Native.OnityTiming.FixedUpdate,
        LastFixedUpdate = (byte)Native.OnityTiming.LastFixedUpdate,
        PreUpdate = (byte)Native.OnityTiming.PreUpdate,
        LastPreUpdate = (byte)Native.OnityTiming.LastPreUpdate,
        Update = (byte)Native.OnityTiming.Update,
        LastUpdate = (byte)Native.OnityTiming.LastUpdate,
        PreLateUpdate = (byte)Native.OnityTiming.PreLateUpdate,
        LastPreLateUpdate = (byte)Native.OnityTiming.LastPreLateUpdate,
        PostLateUpdate = (byte)Native.OnityTiming.PostLateUpdate,
        LastPostLateUpdate = (byte)Native.OnityTiming.LastPostLateUpdate,
        TimeUpdate = (byte)Native.OnityTiming.TimeUpdate,
        LastTimeUpdate = (byte)Native.OnityTiming.LastTimeUpdate,
    }

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
