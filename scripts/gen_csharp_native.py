#!/usr/bin/env python3
"""Generates bindings/Runtime/Native/*.g.cs from include/onity.h.

The header is cbindgen output with a regular shape; this parser handles that
shape (#defines, enums, typedef structs, one function-pointer typedef and
function prototypes) and fails loudly on anything it does not understand, so a
header change that needs a generator change is noticed.

Output (four files in Native/, one part of the ABI each, and the timing files below):
  * OnityNative (OnityNative.g.cs): constants, and every onity_* function as a raw
    [DllImport] (Cdecl, ExactSpelling). Library "onity", or "__Internal"
    on iOS players and Android IL2CPP players (static library linked into the
    player). WebGL is not supported (no WebGL build of libonity;
    bindings/Plugins~/README.md).
  * OnityNativeCalls (OnityNativeCalls.g.cs): one wrapper per function that counts the crossing
    (OnityNativeCalls.Crossings) before calling the raw import. The binding
    calls native code only through these wrappers, so crossings per
    operation can be measured.
  * Every enum as a C# enum with its C underlying type (OnityNative.Enums.g.cs);
    every struct as a
    blittable [StructLayout(LayoutKind.Sequential)] struct (primitive arrays
    as fixed buffers, struct arrays expanded into numbered fields with an
    accessor); the callback typedef as a Cdecl delegate (OnityNative.Structs.g.cs).
  * The callback delegate and every function taking it (the onity_*_then
    exports, onity_task_on_complete) are internal: the binding hands no managed
    delegate to native code, and IL2CPP refuses at run time any delegate that is
    not a static [AOT.MonoPInvokeCallback] method (a lambda compiles, then fails),
    so C# users cannot reach them either (issue 31 #3).

  * The public timing enum Onity.OnityTiming (Native/OnityTiming.g.cs) and the Unity
    integration's timing tables (Unity/OnityLoopTimings.g.cs): see TIMING_ENUM.

Why not csbindgen (tried, 1.9.8, over every file of src/ffi): it cannot express
OnityStats' arrays of structs (it emits a `fixed byte` buffer of the wrong size,
or one that does not compile), usize constants in C# 7.2 (`const UIntPtr` /
`nuint`), the one OnityCallback delegate type (it makes one per function), the
opaque runtime as IntPtr (it makes an empty struct named like the binding's
OnityRuntime class), enums no signature uses (all of them: the ABI takes
uint32_t) without a hand-kept list, nor the crossing counter. Details:
bindings/README.md, "Generated declarations: why not csbindgen".

Usage: gen_csharp_native.py [--check] [--header PATH] [--out-dir DIR]
  --check   exit 1 (and print a diff) when a committed file differs, is missing,
            or is a *.g.cs the generator no longer writes.
"""
import argparse
import difflib
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_HEADER = os.path.join(ROOT, "include", "onity.h")
DEFAULT_OUT_DIR = os.path.join(ROOT, "bindings", "Runtime", "Native")

PRIM = {
    "uint8_t": "byte",
    "int8_t": "sbyte",
    "uint16_t": "ushort",
    "int16_t": "short",
    "uint32_t": "uint",
    "int32_t": "int",
    "uint64_t": "ulong",
    "int64_t": "long",
    "double": "double",
    "float": "float",
    "size_t": "UIntPtr",
    "bool": "byte",
    "char": "byte",
}


class GenError(Exception):
    pass


def pascal(name):
    return "".join(p[:1].upper() + p[1:].lower() for p in name.split("_") if p)


def strip_comments(text):
    """Returns (text without /* */ blocks, list of lines)."""
    return re.sub(r"/\*.*?\*/", "", text, flags=re.S)


def collect_doc(lines, idx):
    """Doc comment lines ('// ...') immediately above lines[idx]."""
    doc = []
    j = idx - 1
    while j >= 0 and lines[j].strip().startswith("//"):
        doc.append(lines[j].strip()[2:].strip())
        j -= 1
    return list(reversed(doc))


def parse(text):
    text = strip_comments(text)
    lines = text.split("\n")
    defines, enums, structs, funcs, callbacks = [], [], {}, {}, []
    struct_order = []
    opaque = set()
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        s = line.strip()
        m = re.match(r"#define\s+(ONITY_\w+)\s+(-?\d+)\s*$", s)
        if m:
            defines.append((m.group(1), int(m.group(2)), collect_doc(lines, i)))
            i += 1
            continue
        m = re.match(r"enum\s+(\w+)\s*$", s)
        if m:
            name = m.group(1)
            doc = collect_doc(lines, i)
            underlying = "uint32_t"
            j = i + 1
            values = []
            # Skip the cpp-compat underlying type block.
            while not lines[j].strip().startswith("{"):
                mm = re.match(r":\s*(\w+)", lines[j].strip())
                if mm:
                    underlying = mm.group(1)
                j += 1
            j += 1
            while not lines[j].strip().startswith("}"):
                t = lines[j].strip()
                mm = re.match(r"(\w+)\s*=\s*(-?\w+)\s*,?$", t)
                if mm:
                    values.append((mm.group(1), int(mm.group(2), 0), collect_doc(lines, j)))
                elif t and not t.startswith("//"):
                    raise GenError("cannot parse enum line: %r" % t)
                j += 1
            enums.append((name, underlying, values, doc))
            i = j + 1
            continue
        m = re.match(r"typedef\s+struct\s+(\w+)\s+(\w+)\s*;$", s)
        if m:
            opaque.add(m.group(2))
            i += 1
            continue
        m = re.match(r"typedef\s+struct\s+(\w+)\s*\{$", s)
        if m:
            name = m.group(1)
            doc = collect_doc(lines, i)
            fields = []
            j = i + 1
            while not lines[j].strip().startswith("}"):
                t = lines[j].strip()
                if t and not t.startswith("//"):
                    mm = re.match(r"(const\s+)?(struct\s+)?(\w+)\s*(\*+)?\s*(\w+)(\[(\w+)\])?\s*;$", t)
                    if not mm:
                        raise GenError("cannot parse struct field: %r" % t)
                    fields.append({
                        "type": mm.group(3),
                        "ptr": len(mm.group(4) or ""),
                        "name": mm.group(5),
                        "array": mm.group(7),
                        "doc": collect_doc(lines, j),
                    })
                j += 1
            if name not in structs:
                struct_order.append(name)
            structs[name] = (fields, doc)
            i = j + 1
            continue
        m = re.match(r"typedef\s+void\s*\(\*(\w+)\)\((.*)\);$", s)
        if m:
            callbacks.append((m.group(1), parse_params(m.group(2)), collect_doc(lines, i)))
            i += 1
            continue
        m = re.match(r"([\w\s\*]+?)\b(onity_\w+)\((.*)$", s)
        if m and not s.startswith("//") and not s.startswith("#"):
            doc = collect_doc(lines, i)
            ret = m.group(1).strip()
            name = m.group(2)
            rest = m.group(3)
            j = i
            while not rest.rstrip().endswith(");"):
                j += 1
                rest += " " + lines[j].strip()
            params = parse_params(rest.rstrip()[:-2])
            sig = (ret, tuple((p["ctype"], p["name"]) for p in params))
            if name in funcs:
                # cbindgen emits some prototypes twice; they must agree.
                if funcs[name]["sig"] != sig:
                    raise GenError("conflicting prototypes for %s" % name)
            else:
                funcs[name] = {"ret": ret, "params": params, "doc": doc, "sig": sig}
            i = j + 1
            continue
        i += 1
    return defines, enums, structs, struct_order, funcs, callbacks, opaque


def parse_params(text):
    text = text.strip()
    if text in ("", "void"):
        return []
    out = []
    for p in text.split(","):
        p = " ".join(p.split())
        mm = re.match(r"(const\s+)?(struct\s+)?(\w+)\s*(\*+)?\s*(\w+)$", p)
        if not mm:
            raise GenError("cannot parse parameter: %r" % p)
        out.append({
            "const": bool(mm.group(1)),
            "type": mm.group(3),
            "ptr": len(mm.group(4) or ""),
            "name": mm.group(5),
            "ctype": p,
        })
    return out


CS_KEYWORDS = {"internal", "object", "string", "base", "params", "event", "fixed", "checked", "lock", "out", "ref", "in"}


def ident(name):
    return "@" + name if name in CS_KEYWORDS else name


def cs_type(t, ptr, ctx, enums_by_name, structs, opaque, callbacks):
    """C# type for C type `t` with `ptr` levels of indirection."""
    cb_names = {c[0] for c in callbacks}
    if t in opaque:
        if ptr == 1:
            return "IntPtr"
        return "IntPtr" + "*" * (ptr - 1)
    if t in cb_names:
        if ptr:
            raise GenError("pointer to callback")
        return t
    if t == "void":
        if ptr == 0:
            return "void"
        return "IntPtr" if ptr == 1 else "IntPtr" + "*" * (ptr - 1)
    if t == "char":
        if ptr == 1:
            return "IntPtr"  # NUL-terminated strings, byte buffers
        if ptr == 2:
            return "IntPtr*"  # string outputs
        raise GenError("char with indirection %d" % ptr)
    if t in PRIM:
        base = PRIM[t]
    elif t in enums_by_name:
        base = t
    elif t in structs:
        base = t
    else:
        raise GenError("unknown type %s in %s" % (t, ctx))
    return base + "*" * ptr


def doc_lines(doc, indent):
    if not doc:
        return []
    out = [indent + "/// <summary>"]
    for d in doc:
        d = d.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        out.append(indent + "/// " + d)
    out.append(indent + "/// </summary>")
    return out


# Output files (in bindings/Runtime/Native), one part of the ABI each, so that none grows past
# ~700 lines.
FILES = (
    ("OnityNative.Enums.g.cs", "enums (but OnityTiming)"),
    ("OnityNative.Structs.g.cs", "the callback delegate and structs"),
    ("OnityNative.g.cs", "constants and raw P/Invoke declarations"),
    ("OnityNativeCalls.g.cs", "the crossing counter over every function"),
    ("OnityTiming.g.cs", "the public timing enum"),
    (os.path.join("..", "Unity", "OnityLoopTimings.g.cs"), "the PlayerLoop tables of the timings"),
)

# The timings have one list: the Rust enum (src/core/types.rs), through the header's OnityTiming.
# From it come the one public C# timing type (Onity.OnityTiming, byte-sized as UniTask's
# PlayerLoopTiming; no Onity.Native.OnityTiming beside it) and the Unity integration's tables
# (OnityLoopTimings flags, one marker type and one PlayerLoop phase per timing).
TIMING_ENUM = "OnityTiming"
# Presets of OnityLoopTimings (UniTask's InjectPlayerLoopTimings presets).
LOOP_PRESETS = (
    ("All timings.", "All", None),
    ("All but TimeUpdate / LastTimeUpdate (UniTask's Standard preset).", "Standard", "All & ~(TimeUpdate | LastTimeUpdate)"),
    ("Update, FixedUpdate and LastPostLateUpdate only (UniTask's Minimum preset).", "Minimum", "Update | FixedUpdate | LastPostLateUpdate"),
)


def timing_files(enums, begin, end):
    """Onity.OnityTiming and the Unity tables, from the header's OnityTiming."""
    found = [e for e in enums if e[0] == TIMING_ENUM]
    if not found:
        raise GenError("the header has no enum %s" % TIMING_ENUM)
    _, _, values, doc = found[0]
    prefix = "ONITY_TIMING_"
    names = [pascal(v[0][len(prefix):]) for v in values]
    if [v[1] for v in values] != list(range(len(values))) or len(values) > 16:
        raise GenError("%s must be 0..n-1 with n <= 16 (flags, 4-bit fields)" % TIMING_ENUM)
    o = begin(*FILES[4])
    o[o.index("namespace Onity.Native")] = "namespace Onity"
    w = o.append
    o.extend(doc_lines(doc, "    "))
    w("    public enum OnityTiming : byte")
    w("    {")
    for name, (_, val, vdoc) in zip(names, values):
        o.extend(doc_lines(vdoc, "        "))
        w("        %s = %d," % (name, val))
    w("    }")
    end(FILES[4][0], o)
    o = begin(*FILES[5])
    k = o.index("using System;")
    o[k:k] = ["#if UNITY_5_3_OR_NEWER || ONITY_UNITY_STANDIN"]
    o[o.index("namespace Onity.Native")] = "namespace Onity.Unity"
    w = o.append
    w("    /// <summary>The timings Onity runs from the PlayerLoop (one inserted system each), as flags.")
    w("    /// Same %d timings, in the same order, as <see cref=\"OnityTiming\"/>.</summary>" % len(names))
    w("    [Flags]")
    w("    public enum OnityLoopTimings")
    w("    {")
    w("        None = 0,")
    for i, name in enumerate(names):
        w("        %s = 1 << %d," % (name, i))
    w("")
    for pdoc, pname, expr in LOOP_PRESETS:
        w("        /// <summary>%s</summary>" % pdoc)
        w("        %s = %s," % (pname, expr or "0x%X" % ((1 << len(names)) - 1)))
    w("    }")
    w("")
    w("    public static partial class OnityLoopRunners")
    w("    {")
    for name in names:
        w("        public struct Onity%s { }" % name)
    w("")
    w("        /// <summary>The marker type of each timing's system, by timing value.</summary>")
    w("        internal static readonly Type[] Types =")
    w("        {")
    for name in names:
        w("            typeof(Onity%s)," % name)
    w("        };")
    w("")
    w("        /// <summary>The PlayerLoop phase of each timing, by timing value: X and LastX run in phase X.</summary>")
    w("        internal static readonly Type[] Phases =")
    w("        {")
    for name in names:
        w("            typeof(UnityEngine.PlayerLoop.%s)," % (name[4:] if name.startswith("Last") else name))
    w("        };")
    w("    }")
    w("}")
    w("#endif")
    out_name = FILES[5][0]
    return out_name, "\n".join(o) + "\n"


def generate(header_text):
    """{file name: text} for every file of FILES."""
    defines, enums, structs, struct_order, funcs, callbacks, opaque = parse(header_text)
    if not funcs:
        raise GenError("no onity_* functions found")
    enums_by_name = {e[0]: e for e in enums}
    define_vals = {d[0]: d[1] for d in defines}
    counts = "%d functions, %d structs, %d enums, %d constants." % (len(funcs), len(structs), len(enums), len(defines))
    out = {}

    def begin(name, what):
        o = []
        w = o.append
        w("// <auto-generated>")
        w("// Generated by scripts/gen_csharp_native.py from include/onity.h (%s: %s)." % (os.path.basename(name), what))
        w("// Do not edit by hand; run `python3 scripts/gen_csharp_native.py` after the header changes")
        w("// (`--check` fails when this file is stale).")
        w("// </auto-generated>")
        w("// The header has " + counts)
        w("#pragma warning disable 1591, 0649, 0169")
        w("using System;")
        w("using System.Runtime.InteropServices;")
        w("")
        w("namespace Onity.Native")
        w("{")
        return o

    def end(name, o):
        while o[-1] == "":
            o.pop()
        o.append("}")
        out[name] = "\n".join(o) + "\n"

    # Enums.
    o = begin(*FILES[0])
    w = o.append
    for name, underlying, values, doc in enums:
        if name == TIMING_ENUM:
            continue  # the public Onity.OnityTiming (OnityTiming.g.cs)
        prefix = re.sub(r"(?<!^)(?=[A-Z])", "_", name).upper() + "_"
        o.extend(doc_lines(doc, "    "))
        w("    public enum %s : %s" % (name, PRIM.get(underlying, "uint")))
        w("    {")
        for vname, val, vdoc in values:
            if not vname.startswith(prefix):
                raise GenError("enum value %s lacks prefix %s" % (vname, prefix))
            o.extend(doc_lines(vdoc, "        "))
            w("        %s = %d," % (pascal(vname[len(prefix):]), val))
        w("    }")
        w("")
    end(FILES[0][0], o)
    # Callbacks and structs.
    o = begin(*FILES[1])
    w = o.append
    for name, params, doc in callbacks:
        o.extend(doc_lines(doc, "    "))
        w("    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]")
        ps = ", ".join("%s %s" % (cs_type(p["type"], p["ptr"], name, enums_by_name, structs, opaque, callbacks), ident(p["name"])) for p in params)
        w("    internal delegate void %s(%s);" % (name, ps))
        w("")
    for sname in struct_order:
        fields, doc = structs[sname]
        o.extend(doc_lines(doc, "    "))
        w("    [StructLayout(LayoutKind.Sequential)]")
        w("    public unsafe struct %s" % sname)
        w("    {")
        accessors = []
        for f in fields:
            o.extend(doc_lines(f["doc"], "        "))
            ty = cs_type(f["type"], f["ptr"], sname, enums_by_name, structs, opaque, callbacks)
            if f["array"]:
                count = f["array"]
                count_val = int(count) if count.isdigit() else define_vals.get(count)
                if count_val is None:
                    raise GenError("unknown array size %s" % count)
                if f["ptr"] == 0 and f["type"] in PRIM:
                    w("        public fixed %s %s[%d];" % (ty, ident(f["name"]), count_val))
                else:
                    for k in range(count_val):
                        w("        public %s %s_%d;" % (ty, f["name"], k))
                    accessors.append((f["name"], ty, count_val))
            else:
                w("        public %s %s;" % (ty, ident(f["name"])))
        for fname, ty, count_val in accessors:
            w("")
            w("        /// <summary>Element <paramref name=\"index\"/> of the C array <c>%s[%d]</c>.</summary>" % (fname, count_val))
            w("        public %s Get_%s(int index)" % (ty, fname))
            w("        {")
            w("            if ((uint)index >= %du) throw new ArgumentOutOfRangeException(\"index\");" % count_val)
            w("            fixed (%s* p = &%s_0) return p[index];" % (ty, fname))
            w("        }")
        w("    }")
        w("")
    end(FILES[1][0], o)

    def signature(name, f):
        ret = f["ret"].replace("const ", "").strip()
        rptr = ret.count("*")
        rbase = ret.replace("*", "").strip()
        rty = cs_type(rbase, rptr, name, enums_by_name, structs, opaque, callbacks)
        ps = ", ".join("%s %s" % (cs_type(p["type"], p["ptr"], name, enums_by_name, structs, opaque, callbacks), ident(p["name"])) for p in f["params"])
        return rty, ps

    cb_names = {c[0] for c in callbacks}

    def access(f):
        # Internal when a parameter is a callback (see the module docstring).
        return "internal" if any(p["type"] in cb_names for p in f["params"]) else "public"

    # Constants and raw imports.
    o = begin(*FILES[2])
    w = o.append
    w("    /// <summary>Raw P/Invoke declarations of every <c>onity_*</c> function. Call them through")
    w("    /// <see cref=\"OnityNativeCalls\"/>, which counts crossings.</summary>")
    w("    public static unsafe class OnityNative")
    w("    {")
    w("#if (UNITY_IOS || (UNITY_ANDROID && ENABLE_IL2CPP)) && !UNITY_EDITOR")
    w("        public const string Lib = \"__Internal\";")
    w("#else")
    w("        public const string Lib = \"onity\";")
    w("#endif")
    w("")
    for name, val, doc in defines:
        o.extend(doc_lines(doc, "        "))
        w("        public const uint %s = %d;" % (name, val))
    w("")
    for name in sorted(funcs):
        f = funcs[name]
        o.extend(doc_lines(f["doc"], "        "))
        rty, ps = signature(name, f)
        w("        [DllImport(Lib, EntryPoint = \"%s\", CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]" % name)
        w("        %s static extern %s %s(%s);" % (access(f), rty, name, ps))
        w("")
    w("    }")
    end(FILES[2][0], o)
    # Counted wrappers.
    o = begin(*FILES[3])
    w = o.append
    w("    /// <summary>Every native function behind a crossing counter. <see cref=\"Crossings\"/> is a")
    w("    /// plain (non-atomic) counter: exact for owner-thread calls, approximate when other threads")
    w("    /// call at the same time.</summary>")
    w("    public static unsafe class OnityNativeCalls")
    w("    {")
    w("        /// <summary>Number of managed-to-native calls made through this class.</summary>")
    w("        public static long Crossings;")
    w("")
    for name in sorted(funcs):
        f = funcs[name]
        rty, ps = signature(name, f)
        args = ", ".join(ident(p["name"]) for p in f["params"])
        w("        %s static %s %s(%s)" % (access(f), rty, name, ps))
        w("        {")
        w("            Crossings++;")
        w("            %sOnityNative.%s(%s);" % ("" if rty == "void" else "return ", name, args))
        w("        }")
        w("")
    w("    }")
    end(FILES[3][0], o)
    name, text = timing_files(enums, begin, end)
    out[name] = text
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--header", default=DEFAULT_HEADER)
    ap.add_argument("--out-dir", default=DEFAULT_OUT_DIR)
    a = ap.parse_args()
    with open(a.header) as fh:
        files = generate(fh.read())
    if a.check:
        stale = 0
        for name, text in files.items():
            path = os.path.join(a.out_dir, name)
            try:
                with open(path) as fh:
                    cur = fh.read()
            except FileNotFoundError:
                print("%s is missing; run scripts/gen_csharp_native.py" % path, file=sys.stderr)
                stale += 1
                continue
            if cur != text:
                sys.stdout.writelines(difflib.unified_diff(cur.splitlines(True), text.splitlines(True), path, "generated"))
                print("%s is stale; run scripts/gen_csharp_native.py" % path, file=sys.stderr)
                stale += 1
        for name in sorted(os.listdir(a.out_dir)):
            if name.endswith(".g.cs") and name not in files:
                print("%s is not generated any more; run scripts/gen_csharp_native.py" % os.path.join(a.out_dir, name), file=sys.stderr)
                stale += 1
        if stale:
            return 1
        print("C# bindings up to date")
        return 0
    os.makedirs(a.out_dir, exist_ok=True)
    for name in sorted(os.listdir(a.out_dir)):
        if name.endswith(".g.cs") and name not in files:
            os.remove(os.path.join(a.out_dir, name))
    for name, text in files.items():
        path = os.path.join(a.out_dir, name)
        with open(path, "w") as fh:
            fh.write(text)
        print("wrote %s" % os.path.relpath(path, ROOT))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except GenError as e:
        print("gen_csharp_native: %s" % e, file=sys.stderr)
        sys.exit(2)
