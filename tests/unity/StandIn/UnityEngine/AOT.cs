// Test-only stand-in: Unity 2022.3's AOT.MonoPInvokeCallbackAttribute (UnityCsReference:
// Runtime/Export/Attributes/AttributeHelperEngine.cs). Mono's AOT compiler finds it by name and
// compiles the native-to-managed wrapper of the static method it marks; without it, a native
// call into that method under `mono --full-aot` (scripts/test-csharp-aot.sh) needs a JIT, as it
// does under IL2CPP. Never shipped.
using System;

namespace AOT
{
    [AttributeUsage(AttributeTargets.Method)]
    public class MonoPInvokeCallbackAttribute : Attribute
    {
        public MonoPInvokeCallbackAttribute(Type type) { }
    }
}
