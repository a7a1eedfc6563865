// A UnityEngine type UniTask's runtime names that the test stand-in of UnityEngine
// (tests/unity/StandIn) does not define. Benchmark build only; no measured path uses it.
namespace UnityEngine
{
    public enum LogType { Error = 0, Assert = 1, Warning = 2, Log = 3, Exception = 4 }
}
