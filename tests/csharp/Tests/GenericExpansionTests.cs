using System;
using System.Reflection;

namespace Onity.Tests
{
    /// <summary>The guard against the generic shape that made Mono's full AOT compile the test
    /// programs' nested instantiations up to its depth limit (tests/shared/GenericExpansion.cs,
    /// docs/full-aot.md): no member of a generic type in the binding names an instantiation that
    /// comes back to that type over a type built from its own parameter.</summary>
    public class GenericExpansionTests
    {
        [Test]
        public void BindingHasNoExpandingGenericCycle()
        {
            var found = GenericExpansion.Find(typeof(OnityTask).Assembly, t => GenericExpansion.InNamespace(t, "Onity"));
            if (found.Count > 0) throw new AssertionException(GenericExpansion.Explain(found));
        }

        [Test]
        public void ExpandingShapesAreFoundAndTheFixedOneIsNot()
        {
            var found = GenericExpansion.Find(typeof(OnityTask).Assembly, t => GenericExpansion.InNamespace(t, "GenericExpansionSamples"));
            var all = string.Join("\n", found.ToArray());
            Assert.Contains("GenericExpansionSamples.Direct`1.Wrap: names Direct<Direct<T>>", all, "the direct shape");
            Assert.Contains("GenericExpansionSamples.ViaOther`1.Next: names Other<List<T>>", all, "the cycle through another type");
            Assert.Contains("GenericExpansionSamples.Recursive.Depth (calls Depth)", all, "the recursive generic method");
            Assert.True(all.IndexOf("Fixed", StringComparison.Ordinal) < 0, "the extension method and the T-preserving members are not reported: " + all);
            Assert.Equal(3, found.Count, "one line per expanding member: " + all);
            Assert.Contains("Direct`1.Wrap", GenericExpansion.Explain(found), "the failure names the member");
        }
    }
}
