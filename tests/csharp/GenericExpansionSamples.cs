using System.Collections.Generic;

// Shapes for GenericExpansionTests: what GenericExpansion must report and
// what it must not. Outside the Onity namespace, so that the scan of the binding does not see
// them, and never instantiated over a concrete type (Mono's full AOT compiles a generic type's
// methods per instantiation it finds, so these cost only their shared code).
namespace GenericExpansionSamples
{
    /// <summary>A member of G&lt;T&gt; that names G&lt;F&lt;T&gt;&gt; (OnityTask&lt;T&gt;.Timeout's old shape).</summary>
    public struct Direct<T>
    {
        public T Value;
        public Direct<Direct<T>> Wrap() { return new Direct<Direct<T>> { Value = this }; }
    }

    /// <summary>The same cycle through another type: A&lt;T&gt; -> B&lt;List&lt;T&gt;&gt; -> A&lt;U&gt;.</summary>
    public sealed class ViaOther<T>
    {
        public Other<List<T>> Next() { return new Other<List<T>>(); }
    }

    public sealed class Other<U>
    {
        public object Back() { return new ViaOther<U>(); } // named only in the body (IL)
    }

    /// <summary>A static generic method that calls itself over a type built from its parameter.</summary>
    public static class Recursive
    {
        public static int Depth<T>(int n) { return n == 0 ? 0 : Depth<KeyValuePair<T, T>>(n - 1) + 1; }
    }

    /// <summary>The fixed shape: the wrapping member an extension method of a non-generic class
    /// (Fixed&lt;T&gt; never names Fixed&lt;F&lt;T&gt;&gt;), and a member that keeps T as it is.</summary>
    public struct Fixed<T>
    {
        public T Value;
        public Fixed<T> Same() { return this; }
        public List<Fixed<T>> Listed() { return new List<Fixed<T>> { this }; }
    }

    public static class FixedExtensions
    {
        public static Fixed<Fixed<T>> Wrap<T>(this Fixed<T> f) { return new Fixed<Fixed<T>> { Value = f }; }
    }
}
