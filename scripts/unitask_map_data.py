"""The hand-kept tables of scripts/check-unitask-parity.py (UniTask -> Onity type names, rows
decided by hand, types and members refused on purpose)."""

# UniTask type name -> Onity type name, where the mechanical rule (UniTask -> OnityTask, else an
# "Onity" prefix) does not give it.
TYPE_NAMES = {
    "UniTask": "OnityTask", "UniTaskCompletionSource": "OnityCompletionSource",
    "AutoResetUniTaskCompletionSource": "AutoResetOnityCompletionSource",
    "UniTaskCompletionSourceCore": "OnityCompletionSourceCore", "IUniTaskSource": "IOnityTaskSource",
    "UniTaskStatus": "OnityTaskStatus", "PlayerLoopTiming": "OnityTiming",
    "InjectPlayerLoopTimings": "OnityLoopTimings", "PlayerLoopHelper": "OnityPlayerLoop",
    "IUniTaskAsyncEnumerable": "IOnityAsyncEnumerable", "IUniTaskAsyncEnumerator": "IOnityAsyncEnumerator",
    "IUniTaskAsyncDisposable": "IOnityAsyncDisposable", "UniTaskAsyncEnumerable": "OnityAsyncEnumerable",
    "UniTaskCancelableAsyncEnumerable": "OnityCancelableAsyncEnumerable",
    "UniTaskAsyncEnumerableExtensions": "OnityAsyncEnumerable",
    "Channel": "OnityChannel", "ChannelReader": "OnityChannelReader", "ChannelWriter": "OnityChannelWriter",
    "ChannelClosedException": "OnityChannelClosedException",
    "AsyncUniTaskMethodBuilder": "OnityTaskMethodBuilder", "UnityWebRequestException": "OnityWebRequestException",
    "CancellationTokenSourceExtensions": "OnityCancellationExtensions",
    "CancellationTokenExtensions": "OnityCancellationExtensions",
    "UniTaskScheduler": "OnityTask", "CancellationTokenAwaitable": "OnityCancellationTokenAwaitable", "AsyncLazy": "AsyncLazy", "AsyncUnit": "AsyncUnit",
    "UniTaskStatusExtensions": "OnityTaskStatusExtensions", "UnityAsyncExtensions": "OnityUnityAsyncExtensions",
    "UniTaskLoopRunners": "OnityLoopRunners", "AsyncTriggerExtensions": "OnityTriggerExtensions",
    "AsyncTriggerBase": "OnityTriggerBase", "TaskPool": "OnityObjectPool", "YieldAwaitable": "OnityFrameWait",
    "EnumeratorAsyncExtensions": "OnityUnityAsyncExtensions",
}
NESTED = {"Awaiter", "Enumerator"}
# Onity types that hold some members of a UniTask type (the engine-free Onity.Runtime cannot name
# Unity types: OnityTask's Unity-typed helpers live in the Unity assembly).
ALSO_IN = {"UniTask": ["OnityUnityTask`0"]}
KINDS = {"class", "struct", "interface", "enum"}

# Rows decided by hand (the mechanical rules cannot see them), kept when the map is regenerated.
MANUAL = {
    ("PlayerLoopHelper.cs", "public static bool IsInjectedUniTaskPlayerLoop()"): "OnityPlayerLoop.ContainsOnitySystem",
    ("PlayerLoopHelper.cs", "public static void DumpCurrentPlayerLoop()"): "OnityPlayerLoop.DumpCurrentPlayerLoop",
    ("Triggers/AsyncTriggerExtensions.cs", "UniTaskCancellationExtensions"): "OnityTriggerExtensions",
    ("PlayerLoopHelper.cs", "public static void AddContinuation(PlayerLoopTiming timing, Action continuation)"): "OnityTask.Post",
    ("UniTask.AsValueTask.cs", "UniTaskValueTaskExtensions"): "OnityTask",
    ("Linq/ToUniTaskAsyncEnumerable.cs", "public static IUniTaskAsyncEnumerable<TSource> ToUniTaskAsyncEnumerable<TSource>(this IEnumerable<TSource> source)"):
        "OnityAsyncEnumerable.ToOnityAsyncEnumerable",
    ("Linq/ToUniTaskAsyncEnumerable.cs", "public static IUniTaskAsyncEnumerable<TSource> ToUniTaskAsyncEnumerable<TSource>(this Task<TSource> source)"):
        "OnityAsyncEnumerable.ToOnityAsyncEnumerable",
    ("Linq/ToUniTaskAsyncEnumerable.cs", "public static IUniTaskAsyncEnumerable<TSource> ToUniTaskAsyncEnumerable<TSource>(this UniTask<TSource> source)"):
        "OnityAsyncEnumerable.ToOnityAsyncEnumerable",
    ("Linq/ToUniTaskAsyncEnumerable.cs", "public static IUniTaskAsyncEnumerable<TSource> ToUniTaskAsyncEnumerable<TSource>(this IObservable<TSource> source)"):
        "OnityAsyncEnumerable.ToOnityAsyncEnumerable",
    ("UniTaskObservableExtensions.cs", "public static UniTask<T> ToUniTask<T>(this IObservable<T> source, bool useFirstValue = false, CancellationToken cancellationToken = default)"):
        "OnityTaskObservableExtensions.ToOnityTask",
    ("Linq/AsUniTaskAsyncEnumerable.cs", "public static IUniTaskAsyncEnumerable<TSource> AsUniTaskAsyncEnumerable<TSource>(this IUniTaskAsyncEnumerable<TSource> source)"):
        "OnityAsyncEnumerable.AsOnityAsyncEnumerable",
    ("UniTask.AsValueTask.cs", "public static ValueTask AsValueTask(this in UniTask task)"): "OnityTask.AsValueTask",
    ("UniTask.AsValueTask.cs", "public static ValueTask<T> AsValueTask<T>(this in UniTask<T> task)"): "OnityTask<T>.AsValueTask",
}
# Unity types whose base type's extension methods serve them (C# binds the base overload).
EXTENDS_BASES = {"AssetBundleRequest": ["ResourceRequest", "AsyncOperation"], "ResourceRequest": ["AsyncOperation"]}
# Member names too common to be found by name in any extension class.
AMBIGUOUS = {"GetAwaiter", "ToString", "Equals", "GetHashCode", "Dispose", "Create"}

# UniTask types not provided on purpose: their rows (and their nested types' rows) are refused.
REFUSED_TYPES = {
    "UniTaskSynchronizationContext": "continuations already resume on the owner thread's loop (no SynchronizationContext is involved)",
    "SwitchToSynchronizationContextAwaitable": "continuations already resume on the owner thread's loop (no SynchronizationContext is involved)",
    "ReturnToSynchronizationContext": "continuations already resume on the owner thread's loop (no SynchronizationContext is involved)",
    "ReturnToMainThread": "continuations already resume on the owner thread's loop: await OnityTask.SwitchToMainThread()",
    "UniTaskVoid": "async OnityTask + Forget(), or OnityTask.Void (one task type, no second builder)",
    "AsyncUniTaskVoidMethodBuilder": "async OnityTask + Forget(), or OnityTask.Void (one task type, no second builder)",
}
REFUSED_MEMBERS = {
    "SwitchToSynchronizationContext": REFUSED_TYPES["UniTaskSynchronizationContext"],
    "ReturnToSynchronizationContext": REFUSED_TYPES["UniTaskSynchronizationContext"],
    "ReturnToCurrentSynchronizationContext": REFUSED_TYPES["UniTaskSynchronizationContext"],
    "ReturnToMainThread": REFUSED_TYPES["ReturnToMainThread"],
    "UnitySynchronizationContext": REFUSED_TYPES["UniTaskSynchronizationContext"],
}
