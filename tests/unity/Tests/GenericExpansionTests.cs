namespace Onity.UnityTests
{
    /// <summary>The guard of tests/csharp's GenericExpansionTests over the Unity test program: no
    /// member of a generic type in the package (Unity integration, editor code), the samples or
    /// these tests names an instantiation that comes back to that type over a type built from its
    /// own parameter (Mono's full AOT compiles such a family up to its depth limit; docs/full-aot.md).</summary>
    public class GenericExpansionTests
    {
        [Test]
        public void PackageHasNoExpandingGenericCycle()
        {
            var found = GenericExpansion.Find(typeof(GenericExpansionTests).Assembly, t => GenericExpansion.InNamespace(t, "Onity"));
            if (found.Count > 0) throw new AssertionException(GenericExpansion.Explain(found));
        }
    }
}
