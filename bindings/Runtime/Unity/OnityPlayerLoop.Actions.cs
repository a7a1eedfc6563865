// UniTask's PlayerLoopHelper.AddAction: an item stepped at every run of a timing until it
// returns false. Compiled with the rest of the Unity integration.
#if UNITY_5_3_OR_NEWER || ONITY_UNITY_STANDIN
using System;

namespace Onity.Unity
{
    /// <summary>A step run by <see cref="OnityPlayerLoop.AddAction"/> (UniTask's IPlayerLoopItem).</summary>
    public interface IOnityPlayerLoopItem
    {
        /// <summary>One step on the main thread; false ends it.</summary>
        bool MoveNext();
    }

    public static partial class OnityPlayerLoop
    {
        /// <summary>Runs <paramref name="action"/>.MoveNext() at every run of
        /// <paramref name="timing"/>, from its next run, until it returns false (UniTask's
        /// PlayerLoopHelper.AddAction). An exception ends it and goes to
        /// OnityTask.UnobservedTaskException (Debug.LogException); disposing the runtime ends it
        /// without a call. Main thread; pooled: allocates nothing in steady state.</summary>
        public static void AddAction(OnityTiming timing, IOnityPlayerLoopItem action)
        {
            if (action == null) throw new ArgumentNullException("action");
            if ((uint)timing >= 16) throw new ArgumentOutOfRangeException("timing", "Onity: timing must be an OnityTiming value (0-15).");
            ActionRunner.Start(timing, action);
        }

        sealed class ActionRunner : OnityLoopItem
        {
            static readonly OnityObjectPool<ActionRunner> pool = new OnityObjectPool<ActionRunner>(256);
            IOnityPlayerLoopItem item;

            internal static void Start(OnityTiming timing, IOnityPlayerLoopItem item)
            {
                CheckCanStartLoop("OnityPlayerLoop.AddAction");
                var r = pool.TryRent() ?? new ActionRunner();
                r.item = item;
                r.StartLoop(timing);
            }

            protected override bool MoveNext() { return item.MoveNext(); }

            protected override void OnLoopCanceled() { }

            protected override void OnLoopEnded()
            {
                item = null;
                pool.Return(this);
            }
        }
    }
}
#endif
