// Two UnityEngine types UniTask's runtime names that the test stand-in of UnityEngine
// (tests/unity/StandIn) does not define. Benchmark build only; no measured path uses them.
namespace UnityEngine.Events
{
    public delegate void UnityAction();
    public delegate void UnityAction<T0>(T0 arg0);
}

namespace UnityEngine
{
    public enum LogType { Error = 0, Assert = 1, Warning = 2, Log = 3, Exception = 4 }
}
