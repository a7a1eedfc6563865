// Prints every assembly (one path a line) that the given assemblies reference, directly or through
// one another, mscorlib included: what scripts/aot-compile.sh compiles ahead of time. A reference
// is looked for next to the given assemblies first (the stand-ins), then in Mono's GAC.
// Run under the JIT: mono aot_refs.exe A.exe B.dll ...
using System;
using System.Collections.Generic;
using System.IO;
using System.Reflection;

static class AotRefs
{
    static int Main(string[] args)
    {
        var dirs = new List<string>();
        var queue = new Queue<Assembly>();
        var seen = new SortedDictionary<string, string>(StringComparer.OrdinalIgnoreCase);
        foreach (var arg in args)
        {
            var path = Path.GetFullPath(arg);
            var a = Assembly.ReflectionOnlyLoadFrom(path);
            seen[a.GetName().Name] = null; // an input: not printed
            queue.Enqueue(a);
            if (!dirs.Contains(Path.GetDirectoryName(path))) dirs.Add(Path.GetDirectoryName(path));
        }
        // mscorlib is referenced by everything but never loaded through a reference here.
        seen["mscorlib"] = typeof(object).Assembly.Location;
        while (queue.Count > 0)
        {
            foreach (var r in queue.Dequeue().GetReferencedAssemblies())
            {
                if (seen.ContainsKey(r.Name)) continue;
                Assembly dep = null;
                try
                {
                    foreach (var d in dirs)
                    {
                        var local = Path.Combine(d, r.Name + ".dll");
                        if (File.Exists(local)) { dep = Assembly.ReflectionOnlyLoadFrom(local); break; }
                    }
                    if (dep == null) dep = Assembly.ReflectionOnlyLoad(r.FullName);
                }
                catch (Exception e)
                {
                    Console.Error.WriteLine("aot_refs: cannot resolve " + r.FullName + ": " + e.Message);
                    return 1;
                }
                seen[r.Name] = dep.Location;
                queue.Enqueue(dep);
            }
        }
        foreach (var p in seen.Values)
            if (p != null) Console.WriteLine(p);
        return 0;
    }
}
