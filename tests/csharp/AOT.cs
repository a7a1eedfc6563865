// Stand-in for Unity's AOT.MonoPInvokeCallbackAttribute when compiling outside Unity (tests
// only; the package does not ship it: Unity's UnityEngine.dll defines it).
#if !UNITY_5_3_OR_NEWER
namespace AOT
{
    [System.AttributeUsage(System.AttributeTargets.Method)]
    public sealed class MonoPInvokeCallbackAttribute : System.Attribute
    {
        public MonoPInvokeCallbackAttribute(System.Type type) { }
    }
}
#endif
