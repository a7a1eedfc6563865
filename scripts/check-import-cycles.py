#!/usr/bin/env python3
"""Import circles between the modules of src/ (issue 26, item 4).

A module is a file or folder directly under a top-level module of the crate
(`core/timing` is `core/timing.rs` with `core/timing/*`; `ffi/batch` is
`ffi/batch.rs`). An edge A -> B is a `use crate::…` / `use super::…` or an
inline `crate::…` / `super::…` path in A that names B or something B defines
(names re-exported by a `mod.rs` are followed to their module). Two modules
that reach each other are a circle.

Prints each circle, then `import-cycles: N passed, N failed` (passed: modules
in no circle; failed: circles). Exit status 1 when there is a circle.
Usage: scripts/check-import-cycles.py [SRC_DIR]
       scripts/check-import-cycles.py --self-test   (it must find a planted circle)
"""
import os
import re
import subprocess
import sys
import tempfile

if sys.argv[1:] == ["--self-test"]:
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "core", "timing"))
        files = {
            "lib.rs": "pub mod core;\n",
            "core/mod.rs": "mod a;\nmod b;\nmod timing;\npub use a::A;\n",
            "core/a.rs": "use super::timing::T;\npub struct A;\n",
            "core/b.rs": "#[cfg(test)]\nmod tests {\n    use crate::core::A;\n}\n",
            "core/timing.rs": "mod far;\npub struct T;\n",
            "core/timing/far.rs": "// use crate::core::b;\nfn f() -> crate::core::A { todo!() }\n",
        }
        for name, text in files.items():
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        out = subprocess.run([sys.executable, __file__, d], capture_output=True, text=True).stdout
        # a -> timing (use), timing -> a (inline path in a child, through a mod.rs re-export);
        # b's test module and far's comment are not edges.
        ok = "circle: core/a <-> core/timing" in out and "core/b" not in out.split("import-cycles")[0]
        print(out, end="")
        print(f"import-cycles-self-test: {int(ok)} passed, {int(not ok)} failed")
        sys.exit(0 if ok else 1)

SRC = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "src")
SRC = os.path.normpath(SRC)


def strip(text):
    """Drops comments and string literals (docs hold example paths)."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r'b?"(?:\\.|[^"\\])*"', '""', text)
    text = re.sub(r"//[^\n]*", " ", text)
    # Unit-test modules import whatever they test; they are not part of the module graph.
    while True:
        m = re.search(r"#\[cfg\((?:all\()?test\b[^\]]*\]\s*(?:#\[[^\]]*\]\s*)*mod\s+\w+\s*\{", text)
        if not m:
            return text
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        text = text[: m.start()] + text[i:]


def module_path(rel):
    """src-relative file -> module path as a list: core/timing/retire.rs -> [core, timing, retire]."""
    parts = rel[:-3].split(os.sep)
    if parts[-1] in ("mod", "lib"):
        parts = parts[:-1]
    return parts


def expand_use(tree):
    """`a::{b, c::{d, e}}` -> [[a, b], [a, c, d], [a, c, e]] (aliases and globs dropped to the path)."""
    tree = re.sub(r"\s+", "", re.sub(r"\s+as\s+\w+", "", tree))
    out = []

    def walk(prefix, s):
        depth, start, items = 0, 0, []
        for i, ch in enumerate(s):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == "," and depth == 0:
                items.append(s[start:i])
                start = i + 1
        items.append(s[start:])
        for item in filter(None, items):
            brace = item.find("{")
            if brace >= 0:
                head = [p for p in item[:brace].split("::") if p]
                walk(prefix + head, item[brace + 1 : item.rindex("}")])
            else:
                out.append(prefix + [p for p in item.split("::") if p and p != "*"])

    walk([], tree)
    return out


files = {}
for root, _, names in os.walk(SRC):
    for name in names:
        if name.endswith(".rs"):
            path = os.path.join(root, name)
            rel = os.path.relpath(path, SRC)
            with open(path, encoding="utf-8") as f:
                files[tuple(module_path(rel))] = strip(f.read())

modules = set(files)


def node_of(mod):
    """Module path -> the node it belongs to (None for the crate root and the top-level mod.rs)."""
    return "/".join(mod[:2]) if mod and len(mod) >= 2 else None


def absolute(mod, path):
    """Resolves `crate::`/`super::`/`self::` against module `mod`; None for other crates."""
    if not path:
        return None
    if path[0] == "crate":
        return path[1:]
    if path[0] in ("super", "self"):
        base = list(mod)
        while path and path[0] in ("super", "self"):
            if path[0] == "super":
                base = base[:-1]
            path = path[1:]
        return base + path
    return None


def reexports(mod):
    """Names a module (a mod.rs) re-exports: name -> absolute path, and glob sources."""
    names, globs = {}, []
    for m in re.finditer(r"\bpub\s+use\s+([^;]+);", files.get(mod, "")):
        raw = re.sub(r"\s+", "", m.group(1))
        for path in expand_use(m.group(1)):
            full = absolute(mod, path) or (list(mod) + path)
            if raw.endswith("::*") and "{" not in raw:
                globs.append(full)
            elif path:
                names[path[-1]] = full
    return names, globs


def defines(mod, name):
    return re.search(r"\b(struct|enum|fn|const|static|type|trait|union|macro_rules!)\s+" + re.escape(name) + r"\b", files.get(mod, ""))


def target(path, depth=0):
    """Absolute path -> the longest module prefix, following mod.rs re-exports."""
    for i in range(len(path), 0, -1):
        if tuple(path[:i]) in modules:
            mod = tuple(path[:i])
            rest = path[i:]
            if node_of(mod) is None and rest and depth < 8:
                names, globs = reexports(mod)
                if rest[0] in names:
                    return target(names[rest[0]] + rest[1:], depth + 1)
                for g in globs:
                    if tuple(g) in modules and defines(tuple(g), rest[0]):
                        return tuple(g)
            return mod
    return None


edges = {}
for mod, text in files.items():
    src = node_of(mod)
    if src is None:
        continue
    paths = []
    for m in re.finditer(r"\buse\s+([^;]+);", text):
        paths += expand_use(m.group(1))
    body = re.sub(r"\buse\s+[^;]+;", " ", text)
    paths += [p.split("::") for p in re.findall(r"\b(?:crate|super|self)(?:::\w+)+", body)]
    for path in paths:
        full = absolute(mod, path)
        dst = node_of(target(full)) if full else None
        if dst and dst != src:
            edges.setdefault(src, set()).add(dst)
            if os.environ.get("VERBOSE"):
                print(f"{src} -> {dst}: {'/'.join(mod)} names {'::'.join(path)}")

nodes = sorted({node_of(m) for m in modules if node_of(m)})

# Tarjan's strongly connected components.
index, low, stack, on, sccs = {}, {}, [], set(), []


def connect(v):
    index[v] = low[v] = len(index)
    stack.append(v)
    on.add(v)
    for w in sorted(edges.get(v, ())):
        if w not in index:
            connect(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop()
            on.discard(w)
            comp.append(w)
            if w == v:
                break
        sccs.append(sorted(comp))


sys.setrecursionlimit(10000)
for v in nodes:
    if v not in index:
        connect(v)

circles = [c for c in sccs if len(c) > 1]
for c in circles:
    pairs = sorted(f"{a} -> {b}" for a in c for b in edges.get(a, ()) if b in c)
    print("circle: " + " <-> ".join(c) + "  (" + ", ".join(pairs) + ")")
in_circle = {v for c in circles for v in c}
print(f"import-cycles: {len(nodes) - len(in_circle)} passed, {len(circles)} failed")
sys.exit(1 if circles else 0)
