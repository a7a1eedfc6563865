using System;
using System.Collections;
using System.Collections.Generic;
using System.Linq;
using System.Reflection;

namespace Onity.UnityTests
{
    /// <summary>
    /// What a domain reload does to the package's managed state, for the simulator's reload entries
    /// (issue 31 #2.6): every static field of every package type (namespaces Onity and Onity.*, the
    /// binding and its samples; not the tests) is set back to its default and the type's static
    /// initializer runs again, as in the fresh domain Unity makes. Then every static is compared
    /// with the same static in a fresh AppDomain of this process (Mono's, the oracle: nothing ran
    /// there but the static initializers), and any difference fails the entry.
    ///
    /// <para>Limits, as listed: a [ThreadStatic] field is reset on the main thread only (other
    /// threads' slots cannot be reached in-process), so OnityThreadId, whose counter keeps the ids
    /// of those threads unique, is kept whole; generic types are reset and compared per closed
    /// instantiation found in the assembly's signatures (base types, fields, method parameters),
    /// and an instantiation made only inside a method body (e.g. a pool of a state machine type) is
    /// not reached.</para>
    /// </summary>
    public static class DomainReload
    {
        const BindingFlags StaticFields = BindingFlags.Static | BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.DeclaredOnly;
        /// <summary>Kept across the simulated reload (see the class summary).</summary>
        public static readonly string[] Kept = { "Onity.OnityThreadId" };

        static List<Type> packageTypes;
        static Dictionary<string, string> fresh;

        static bool IsPackage(Type t)
        {
            var ns = t.Namespace;
            return ns != null && (ns == "Onity" || ns.StartsWith("Onity.")) && !ns.StartsWith("Onity.UnityTests") && !Kept.Contains(t.FullName);
        }

        /// <summary>The package's types with static state: non-generic ones and the closed
        /// instantiations of generic ones that the assembly's signatures name.</summary>
        public static List<Type> PackageTypes()
        {
            if (packageTypes != null) return packageTypes;
            var asm = typeof(DomainReload).Assembly;
            var found = new HashSet<Type>();
            foreach (var t in asm.GetTypes())
            {
                if (IsPackage(t) && !t.IsGenericTypeDefinition) found.Add(t);
                Collect(t.BaseType, found);
                foreach (var f in t.GetFields(BindingFlags.Instance | StaticFields)) Collect(f.FieldType, found);
                foreach (var m in t.GetMethods(BindingFlags.Instance | BindingFlags.Static | BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.DeclaredOnly))
                {
                    Collect(m.ReturnType, found);
                    foreach (var p in m.GetParameters()) Collect(p.ParameterType, found);
                }
            }
            packageTypes = found.Where(t => t.GetFields(StaticFields).Any(f => !f.IsLiteral)).OrderBy(t => t.FullName).ToList();
            return packageTypes;
        }

        static void Collect(Type t, HashSet<Type> into)
        {
            if (t == null) return;
            if (t.HasElementType) { Collect(t.GetElementType(), into); return; }
            if (!t.IsGenericType || t.ContainsGenericParameters) return;
            if (IsPackage(t.GetGenericTypeDefinition()) && into.Add(t))
            {
                foreach (var a in t.GetGenericArguments()) Collect(a, into);
                Collect(t.BaseType, into);
                foreach (var f in t.GetFields(BindingFlags.Instance | StaticFields)) Collect(f.FieldType, into);
            }
            else foreach (var a in t.GetGenericArguments()) Collect(a, into);
        }

        /// <summary>The reload: every package static back to its default, then the static
        /// initializers again.</summary>
        public static void Reset()
        {
            foreach (var t in PackageTypes())
            {
                foreach (var f in t.GetFields(StaticFields))
                    if (!f.IsLiteral) f.SetValue(null, f.FieldType.IsValueType ? Activator.CreateInstance(f.FieldType) : null);
            }
            foreach (var t in PackageTypes())
                if (t.TypeInitializer != null) t.TypeInitializer.Invoke(null, null);
        }

        /// <summary>Every package static as text (the same in any domain for equal state).</summary>
        public static Dictionary<string, string> Snapshot()
        {
            var d = new Dictionary<string, string>();
            foreach (var t in PackageTypes())
            {
                System.Runtime.CompilerServices.RuntimeHelpers.RunClassConstructor(t.TypeHandle);
                foreach (var f in t.GetFields(StaticFields))
                    if (!f.IsLiteral) d[t.FullName + "::" + f.Name] = Describe(f.GetValue(null));
            }
            return d;
        }

        static string Describe(object v)
        {
            if (v == null) return "null";
            var t = v.GetType();
            if (t.IsPrimitive || t.IsEnum || v is string || v is IntPtr) return t.Name + " " + v;
            var del = v as Delegate;
            if (del != null) return "delegate " + string.Join("+", del.GetInvocationList().Select(x => x.Method.DeclaringType.Name + "." + x.Method.Name));
            var arr = v as Array;
            if (arr != null) return t.Name + " length " + arr.Length + " set " + arr.Cast<object>().Count(x => x != null && !x.Equals(Activator.CreateInstance(t.GetElementType().IsValueType ? t.GetElementType() : typeof(object)))); 
            var col = v as ICollection;
            if (col != null) return t.Name + " count " + col.Count;
            if (t.IsGenericType && t.GetGenericTypeDefinition() == typeof(OnityObjectPool<>))
                return "pool idle " + t.GetProperty("Idle").GetValue(v, null) + " rents " + t.GetProperty("Rents").GetValue(v, null);
            if (t.IsValueType) return t.Name + " " + string.Join(",", t.GetFields(BindingFlags.Instance | BindingFlags.Public | BindingFlags.NonPublic).Select(f => Describe(f.GetValue(v))));
            return t.FullName;
        }

        /// <summary>The statics of a fresh domain (computed once, in a new AppDomain; where the
        /// runtime has none, e.g. Mono's full AOT, in a child process of this program).</summary>
        public static Dictionary<string, string> Fresh()
        {
            if (fresh != null) return fresh;
            string[] keys, values;
            AppDomain domain = null;
            // Mono's full AOT aborts the process in AppDomain.CreateDomain (it would JIT the new
            // domain's OutOfMemoryException constructor), and IL2CPP has no AppDomain at all.
            if (ChildMono.FullAot)
            {
                FromChildProcess(out keys, out values);
                fresh = ToDictionary(keys, values);
                return fresh;
            }
            try
            {
                var setup = new AppDomainSetup { ApplicationBase = AppDomain.CurrentDomain.BaseDirectory };
                domain = AppDomain.CreateDomain("onity-fresh", null, setup);
                domain.DoCallBack(SnapshotHere);
                keys = (string[])domain.GetData("keys");
                values = (string[])domain.GetData("values");
            }
            catch (Exception)
            {
                FromChildProcess(out keys, out values);
            }
            finally { if (domain != null) AppDomain.Unload(domain); }
            fresh = ToDictionary(keys, values);
            return fresh;
        }

        static Dictionary<string, string> ToDictionary(string[] keys, string[] values)
        {
            var d = new Dictionary<string, string>();
            for (int i = 0; i < keys.Length; i++) d[keys[i]] = values[i];
            return d;
        }

        /// <summary>Runner --scenario fresh-statics: this process's statics, one "key\tvalue" line each.</summary>
        public static int PrintSnapshot()
        {
            foreach (var kv in Snapshot()) Console.WriteLine(kv.Key + "\t" + kv.Value);
            return 0;
        }

        internal static void FromChildProcess(out string[] keys, out string[] values)
        {
            var psi = ChildMono.Start("--scenario fresh-statics");
            using (var p = System.Diagnostics.Process.Start(psi))
            {
                var lines = p.StandardOutput.ReadToEnd().Split('\n').Where(l => l.Contains("\t")).ToArray();
                p.WaitForExit();
                if (p.ExitCode != 0) throw new InvalidOperationException("fresh-statics child exited with " + p.ExitCode);
                keys = lines.Select(l => l.Substring(0, l.IndexOf('\t'))).ToArray();
                values = lines.Select(l => l.Substring(l.IndexOf('\t') + 1).TrimEnd('\r')).ToArray();
            }
        }

        static void SnapshotHere()
        {
            var s = Snapshot();
            AppDomain.CurrentDomain.SetData("keys", s.Keys.ToArray());
            AppDomain.CurrentDomain.SetData("values", s.Values.ToArray());
        }

        /// <summary>The statics that differ from a fresh domain's ("Type::field: now | fresh").</summary>
        public static List<string> Survivors()
        {
            var f = Fresh();
            var now = Snapshot();
            var l = new List<string>();
            foreach (var kv in now)
            {
                string v;
                if (!f.TryGetValue(kv.Key, out v)) l.Add(kv.Key + ": not in the fresh domain");
                else if (v != kv.Value) l.Add(kv.Key + ": " + kv.Value + " | fresh: " + v);
            }
            return l;
        }
    }
}
