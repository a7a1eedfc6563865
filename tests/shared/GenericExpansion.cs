using System;
using System.Collections.Generic;
using System.Reflection;
using System.Reflection.Emit;

// Finds the generic shapes that make Mono's full AOT (`mono --aot=full`, scripts/aot-compile.sh)
// compile instantiations nested up to its depth limit: a member of G<T> that names
// G<F<T>> (directly, or through other generic types or methods that come back to G), e.g. the
// former OnityTask<T>.Timeout naming OnityTask<(bool, T)>. Mono compiles every method of each
// generic class instance it meets, so OnityTask<(bool, int)> brought OnityTask<(bool, (bool, int))>,
// and so on (docs/full-aot.md: 809,850 methods for the Unity test program, 16,968 without).
// IL2CPP generates only the methods it finds called, so it does not pay this.
//
// Model (ECMA-335's "expanding cycle"): a node per generic parameter (of a type or a method); an
// edge P -> Q for each reference, in a signature, a field, a base type, a local or an IL operand
// of a member in P's scope, to a generic type or method whose parameter Q receives an argument
// containing P; the edge expands when that argument is not P itself (List<P>, P[], F<P, X>).
// A cycle through an expanding edge is a family of ever deeper instantiations.
#if ONITY_UNITY_TESTS
namespace Onity.UnityTests
#else
namespace Onity.Tests
#endif
{
    public static class GenericExpansion
    {
        sealed class Edge
        {
            public Type To;
            public bool Expands;
            public string Where;
        }

        static readonly Dictionary<short, OpCode> OneByte = new Dictionary<short, OpCode>();
        static readonly Dictionary<short, OpCode> TwoByte = new Dictionary<short, OpCode>();

        static GenericExpansion()
        {
            foreach (var f in typeof(OpCodes).GetFields(BindingFlags.Public | BindingFlags.Static))
            {
                var op = (OpCode)f.GetValue(null);
                if (op.Size == 1) OneByte[(short)(op.Value & 0xff)] = op;
                else TwoByte[(short)(op.Value & 0xff)] = op;
            }
        }

        /// <summary>One line per expanding edge that lies on a cycle ("Type.Member: names X
        /// (Owner:A -> Owner:B)"), over the types of the assembly in scope; empty when there is
        /// none.</summary>
        public static List<string> Find(Assembly assembly, Func<Type, bool> inScope)
        {
            var edges = new Dictionary<Type, List<Edge>>();
            foreach (var t in assembly.GetTypes())
            {
                if (!inScope(t)) continue;
                Scan(t, edges);
            }
            var comp = Components(edges);
            var found = new List<string>();
            var seen = new HashSet<string>();
            foreach (var kv in edges)
                foreach (var e in kv.Value)
                {
                    int a, b;
                    if (!e.Expands || !comp.TryGetValue(kv.Key, out a) || !comp.TryGetValue(e.To, out b) || a != b) continue;
                    var line = e.Where + " (" + Param(kv.Key) + " -> " + Param(e.To) + ")";
                    if (seen.Add(line)) found.Add(line);
                }
            found.Sort(StringComparer.Ordinal);
            return found;
        }

        /// <summary>Whether the type's namespace is <paramref name="ns"/> or inside it.</summary>
        public static bool InNamespace(Type t, string ns)
        {
            var n = t.Namespace ?? "";
            return n == ns || n.StartsWith(ns + ".", StringComparison.Ordinal);
        }

        /// <summary>The report <see cref="Find"/>'s lines make for a failing test.</summary>
        public static string Explain(List<string> found)
        {
            return found.Count + " reference(s) in members of generic types or methods name an instantiation over a type " +
                "built from their own type parameter, in a cycle (Mono's full AOT compiles it nested up to its depth limit: " +
                "hundreds of thousands of methods; docs/full-aot.md). Make them extension methods or " +
                "static generic methods of a non-generic class, as OnityTaskExtensions.Timeout<T>:\n  " +
                string.Join("\n  ", found.ToArray());
        }

        static string Param(Type p)
        {
            var owner = p.DeclaringMethod != null
                ? p.DeclaringMethod.DeclaringType.Name + "." + p.DeclaringMethod.Name
                : p.DeclaringType.Name;
            return owner + ":" + p.Name;
        }

        static string Name(Type t)
        {
            if (t.IsGenericParameter) return t.Name;
            if (t.IsArray) return Name(t.GetElementType()) + "[]";
            if (!t.IsGenericType) return t.Name;
            var n = t.Name;
            var tick = n.IndexOf('`');
            if (tick >= 0) n = n.Substring(0, tick);
            var args = t.GetGenericArguments();
            var parts = new string[args.Length];
            for (int i = 0; i < args.Length; i++) parts[i] = Name(args[i]);
            return n + "<" + string.Join(", ", parts) + ">";
        }

        const BindingFlags All = BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Instance |
            BindingFlags.Static | BindingFlags.DeclaredOnly;

        static void Scan(Type t, Dictionary<Type, List<Edge>> edges)
        {
            var typeArgs = t.IsGenericTypeDefinition ? t.GetGenericArguments() : null;
            var where = t.FullName;
            if (t.BaseType != null) Refer(t.BaseType, where + " (base type)", edges);
            foreach (var i in t.GetInterfaces()) Refer(i, where + " (interface)", edges);
            foreach (var f in t.GetFields(All)) Refer(f.FieldType, where + "." + f.Name, edges);
            foreach (var m in t.GetMethods(All)) ScanMethod(m, typeArgs, where + "." + m.Name, edges);
            foreach (var c in t.GetConstructors(All)) ScanMethod(c, typeArgs, where + "." + c.Name, edges);
        }

        static void ScanMethod(MethodBase m, Type[] typeArgs, string where, Dictionary<Type, List<Edge>> edges)
        {
            var mi = m as MethodInfo;
            if (mi != null) Refer(mi.ReturnType, where, edges);
            foreach (var p in m.GetParameters()) Refer(p.ParameterType, where, edges);
            MethodBody body;
            try { body = m.GetMethodBody(); }
            catch (Exception) { return; }
            if (body == null) return;
            foreach (var l in body.LocalVariables) Refer(l.LocalType, where, edges);
            var il = body.GetILAsByteArray();
            var methodArgs = m.IsGenericMethodDefinition ? m.GetGenericArguments() : null;
            int pos = 0;
            while (pos < il.Length)
            {
                OpCode op;
                if (il[pos] == 0xfe) { op = TwoByte[il[pos + 1]]; pos += 2; }
                else { op = OneByte[il[pos]]; pos += 1; }
                switch (op.OperandType)
                {
                    case OperandType.InlineNone: break;
                    case OperandType.ShortInlineBrTarget:
                    case OperandType.ShortInlineI:
                    case OperandType.ShortInlineVar: pos += 1; break;
                    case OperandType.InlineVar: pos += 2; break;
                    case OperandType.InlineI8:
                    case OperandType.InlineR: pos += 8; break;
                    case OperandType.InlineSwitch: pos += 4 + 4 * BitConverter.ToInt32(il, pos); break;
                    case OperandType.InlineField:
                    case OperandType.InlineMethod:
                    case OperandType.InlineTok:
                    case OperandType.InlineType:
                        ReferToken(m.Module, BitConverter.ToInt32(il, pos), typeArgs, methodArgs, where, edges);
                        pos += 4;
                        break;
                    default: pos += 4; break;
                }
            }
        }

        static void ReferToken(Module module, int token, Type[] typeArgs, Type[] methodArgs, string where,
            Dictionary<Type, List<Edge>> edges)
        {
            MemberInfo member;
            try { member = module.ResolveMember(token, typeArgs, methodArgs); }
            catch (Exception) { return; }
            var type = member as Type;
            if (type != null) { Refer(type, where, edges); return; }
            var field = member as FieldInfo;
            if (field != null)
            {
                if (field.DeclaringType != null) Refer(field.DeclaringType, where, edges);
                return;
            }
            var method = member as MethodBase;
            if (method == null) return;
            if (method.DeclaringType != null) Refer(method.DeclaringType, where, edges);
            if (method.IsGenericMethod && !method.IsGenericMethodDefinition)
            {
                var def = ((MethodInfo)method).GetGenericMethodDefinition();
                Link(def.GetGenericArguments(), method.GetGenericArguments(), where + " (calls " + def.Name + ")", edges);
            }
        }

        /// <summary>Edges for a reference to <paramref name="t"/> (and the types inside it).</summary>
        static void Refer(Type t, string where, Dictionary<Type, List<Edge>> edges)
        {
            if (t.HasElementType) { Refer(t.GetElementType(), where, edges); return; }
            if (!t.IsGenericType || t.IsGenericTypeDefinition) return;
            var args = t.GetGenericArguments();
            Link(t.GetGenericTypeDefinition().GetGenericArguments(), args, where + ": names " + Name(t), edges);
            foreach (var a in args) Refer(a, where, edges);
        }

        static void Link(Type[] parameters, Type[] args, string where, Dictionary<Type, List<Edge>> edges)
        {
            for (int i = 0; i < args.Length; i++)
            {
                var uses = new List<Type>();
                Collect(args[i], uses);
                foreach (var p in uses)
                {
                    List<Edge> list;
                    if (!edges.TryGetValue(p, out list)) edges[p] = list = new List<Edge>();
                    list.Add(new Edge { To = parameters[i], Expands = args[i] != p, Where = where });
                }
            }
        }

        static void Collect(Type t, List<Type> into)
        {
            if (t.IsGenericParameter) { if (!into.Contains(t)) into.Add(t); return; }
            if (t.HasElementType) { Collect(t.GetElementType(), into); return; }
            if (t.IsGenericType) foreach (var a in t.GetGenericArguments()) Collect(a, into);
        }

        /// <summary>Strongly connected components (Tarjan, iterative): node -> component id.</summary>
        static Dictionary<Type, int> Components(Dictionary<Type, List<Edge>> edges)
        {
            var index = new Dictionary<Type, int>();
            var low = new Dictionary<Type, int>();
            var onStack = new HashSet<Type>();
            var stack = new Stack<Type>();
            var comp = new Dictionary<Type, int>();
            int next = 0, ncomp = 0;
            var empty = new List<Edge>();
            foreach (var root in new List<Type>(edges.Keys))
            {
                if (index.ContainsKey(root)) continue;
                var work = new Stack<KeyValuePair<Type, int>>();
                work.Push(new KeyValuePair<Type, int>(root, 0));
                index[root] = low[root] = next++;
                stack.Push(root);
                onStack.Add(root);
                while (work.Count > 0)
                {
                    var top = work.Pop();
                    var v = top.Key;
                    List<Edge> outs;
                    if (!edges.TryGetValue(v, out outs)) outs = empty;
                    if (top.Value < outs.Count)
                    {
                        work.Push(new KeyValuePair<Type, int>(v, top.Value + 1));
                        var w = outs[top.Value].To;
                        if (!index.ContainsKey(w))
                        {
                            index[w] = low[w] = next++;
                            stack.Push(w);
                            onStack.Add(w);
                            work.Push(new KeyValuePair<Type, int>(w, 0));
                        }
                        else if (onStack.Contains(w)) low[v] = Math.Min(low[v], index[w]);
                        continue;
                    }
                    if (low[v] == index[v])
                    {
                        Type w;
                        do { w = stack.Pop(); onStack.Remove(w); comp[w] = ncomp; } while (w != v);
                        ncomp++;
                    }
                    if (work.Count > 0)
                    {
                        var parent = work.Peek().Key;
                        low[parent] = Math.Min(low[parent], low[v]);
                    }
                }
            }
            return comp;
        }
    }
}
