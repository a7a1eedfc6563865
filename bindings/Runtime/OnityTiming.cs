namespace Onity
{
    /// <summary>Player-loop timings, in the order Unity runs them in a frame (UniTask's
    /// <c>PlayerLoopTiming</c> order; same values as the native <c>OnityTiming</c>).</summary>
    public enum OnityTiming : byte
    {
        Initialization = 0,
        LastInitialization = 1,
        EarlyUpdate = 2,
        LastEarlyUpdate = 3,
        FixedUpdate = 4,
        LastFixedUpdate = 5,
        PreUpdate = 6,
        LastPreUpdate = 7,
        Update = 8,
        LastUpdate = 9,
        PreLateUpdate = 10,
        LastPreLateUpdate = 11,
        PostLateUpdate = 12,
        LastPostLateUpdate = 13,
        TimeUpdate = 14,
        LastTimeUpdate = 15,
    }

    /// <summary>The clock a <see cref="OnityTask.Delay(System.TimeSpan, DelayType, OnityTiming, System.Threading.CancellationToken)"/> counts.</summary>
    public enum DelayType : byte
    {
        /// <summary>Sum of the scaled delta times passed to <see cref="OnityRuntime.BeginFrame"/>.</summary>
        DeltaTime = 0,
        /// <summary>Sum of the unscaled delta times.</summary>
        UnscaledDeltaTime = 1,
        /// <summary>The realtime value of the current frame minus that of the creation frame.</summary>
        Realtime = 2,
    }

    /// <summary>State of an <see cref="OnityTask"/>'s source.</summary>
    public enum OnityTaskStatus : byte
    {
        Pending = 0,
        Succeeded = 1,
        Faulted = 2,
        Canceled = 3,
    }
}
