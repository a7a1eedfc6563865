// Replaces UniTask's Internal/TaskTracker.cs in the benchmark build (its named tuples do not
// compile with mcs). UniTask's two entry points are [Conditional("UNITY_EDITOR")], so a player
// build (no UNITY_EDITOR, as here) compiles every call to them away: this is that build.
using System.Diagnostics;

namespace Cysharp.Threading.Tasks
{
    public static class TaskTracker
    {
        [Conditional("UNITY_EDITOR")] public static void TrackActiveTask(IUniTaskSource task, int skipFrame) { }
        [Conditional("UNITY_EDITOR")] public static void RemoveTracking(IUniTaskSource task) { }
    }
}
