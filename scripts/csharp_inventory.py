"""Public-surface inventory of the C# binding, read from its sources (no compiler needed).

Types are keyed by their nesting path with generic arity ("OnityTask`1", "OnityChannel`1.Reader");
each maps to the set of member names declared in its body across every partial declaration:
methods, properties, fields, events, enum values, nested types, "ctor" for constructors,
"op_Implicit" / "op_Explicit" for conversion operators, "Item" for indexers. Comments, strings,
attributes, parameter lists, initialisers and method bodies are skipped, so a name that only
appears inside them is not a member. Preprocessor branches are all read (both sides of #if).
Overloads: "~sig:" + type key maps to "Member(T1, T2)" strings, the parameter types of each
public method and constructor as written (namespace qualifiers, modifiers, names, default
values and caller-info parameters dropped; see param_types).
Used by scripts/check-unitask-parity.py.
"""
import os
import re

TYPE_KEYWORDS = {"class", "struct", "interface", "enum"}
NOT_MEMBERS = {"base", "this", "default", "typeof", "new", "where", "nameof", "sizeof", "get", "set",
               "add", "remove", "return", "operator", "checked", "unchecked", "value"}
TOKEN = re.compile(r"@?[A-Za-z_][A-Za-z0-9_]*|=>|\S")


def strip(text):
    """Removes comments, string/char literals and preprocessor lines, keeping line structure."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif c == "@" and i + 1 < n and text[i + 1] == '"':
            j = i + 2
            while j < n:
                if text[j] == '"':
                    if j + 1 < n and text[j + 1] == '"':
                        j += 2
                        continue
                    break
                j += 1
            out.append('""')
            i = j + 1
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append('""')
            i = j + 1
        elif c == "#" and (i == 0 or text[:i].rstrip(" \t").endswith("\n") or text[:i].strip() == ""):
            j = text.find("\n", i)
            i = n if j < 0 else j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def skip_group(toks, i, open_, close):
    """toks[i] == open_; returns the index after its matching close."""
    depth = 0
    while i < len(toks):
        if toks[i] == open_:
            depth += 1
        elif toks[i] == close:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return i


def skip_angles(toks, i):
    """toks[i] == '<': skips a generic argument list; returns (index after it, arity)."""
    depth, arity = 0, 1
    while i < len(toks):
        t = toks[i]
        if t == "<":
            depth += 1
        elif t == ">":
            depth -= 1
            if depth == 0:
                return i + 1, arity
        elif t == "," and depth == 1:
            arity += 1
        elif t in ("(", ")", ";", "{", "}"):
            return i, 0  # a comparison, not a generic list
        i += 1
    return i, 0


def skip_statement(toks, i):
    """Skips to after the ';' ending a member at this depth (initialiser, expression body)."""
    while i < len(toks) and toks[i] != ";":
        if toks[i] == "(":
            i = skip_group(toks, i, "(", ")")
        elif toks[i] == "{":
            i = skip_group(toks, i, "{", "}")
        elif toks[i] == "}":
            return i
        else:
            i += 1
    return i + 1


CALLER_INFO = {"CallerFilePath", "CallerLineNumber", "CallerMemberName"}
PARAM_MODIFIERS = {"this", "ref", "out", "in", "params"}


def split_top(toks, sep=","):
    """Splits a token list at top-level separators (outside <>, (), [])."""
    parts, cur, depth = [], [], 0
    for t in toks:
        if t in ("<", "(", "["):
            depth += 1
        elif t in (">", ")", "]"):
            depth -= 1
        if t == sep and depth == 0:
            parts.append(cur)
            cur = []
        else:
            cur.append(t)
    if cur:
        parts.append(cur)
    return parts


def param_types(toks):
    """The parameter types of a parameter list's tokens (without the parentheses), normalised:
    attributes, modifiers, names and default values dropped, caller-info parameters left out,
    namespace qualifiers removed ("System.Threading.CancellationToken" -> "CancellationToken")."""
    out = []
    for p in split_top(toks):
        attrs = []
        while p and p[0] == "[":
            k = skip_group(p, 0, "[", "]")
            attrs += p[1:k - 1]
            p = p[k:]
        if any(a in CALLER_INFO for a in attrs):
            continue
        if "=" in p:
            p = p[:p.index("=")]
        while p and p[0] in PARAM_MODIFIERS:
            p = p[1:]
        if len(p) < 2:
            continue
        out.append(normalize_type("".join(x if x != "," else ", " for x in p[:-1])))
    return out


def normalize_type(text):
    """Drops namespace qualifiers and spaces: "System.Collections.Generic.List<int>" -> "List<int>"."""
    text = re.sub(r"\s+", "", text).replace(",", ", ")
    return re.sub(r"\b(?:[A-Za-z_][A-Za-z0-9_]*\.)+(?=[A-Za-z_][A-Za-z0-9_]*)", "", text)


def parse(text, types):
    toks = TOKEN.findall(strip(text))
    # stack of (type key or None for namespace/other, kind)
    stack = []

    def current():
        for key, kind in reversed(stack):
            if key is not None:
                return key, kind
            return None, None
        return None, None

    def in_type_body():
        return bool(stack) and stack[-1][0] is not None

    def add(member):
        key, kind = stack[-1]
        if kind in ("interface", "enum") or "public" in toks[mods:i]:
            types.setdefault(key, set()).add(member)

    def public_type(at):
        if stack and stack[-1][1] == "interface":
            return True
        return "public" in toks[mods:at]

    i, n = 0, len(toks)
    mods = 0  # where the modifiers of the declaration at i begin
    while i < n:
        t = toks[i]
        # (a "]" ends an attribute, unless it ends an array rank such as the T[] of OnityTask<T[]>)
        if i and (toks[i - 1] in (";", "{", "}") or (toks[i - 1] == "]" and toks[i - 2] not in ("[", ","))):
            mods = i
        if t in TYPE_KEYWORDS and i + 1 < n and re.match(r"[A-Za-z_]", toks[i + 1]) and toks[i - 1:i] != ["."]:
            name = toks[i + 1].lstrip("@")
            j, arity = i + 2, 0
            if j < n and toks[j] == "<":
                j, arity = skip_angles(toks, j)
            while j < n and toks[j] not in ("{", ";"):
                j += 1
            parent = stack[-1][0] if in_type_body() else None
            key = "%s`%d" % (name, arity)
            if not public_type(i) or (parent is not None and parent.startswith("-")):
                key = "-" + key  # not public: its members are not recorded
            if parent is not None:
                if not key.startswith("-"):
                    types.setdefault(parent, set()).add(name)
                key = parent + "." + key.lstrip("-") if not key.startswith("-") else "-" + parent.lstrip("-") + "." + key.lstrip("-")
            if not key.startswith("-"):
                types.setdefault(key, set())
            if j < n and toks[j] == "{":
                stack.append((key, t))
                i = j + 1
            else:
                i = j + 1
            continue
        if t == "delegate" and in_type_body() is False or (t == "delegate" and toks[i - 1:i] != ["="] and toks[i + 1:i + 2] != ["("]):
            # delegate type declaration: delegate Ret Name<..>(...);
            j = i + 1
            # return type (may be generic / array)
            j += 1
            while j < n and toks[j] in ("<", "[", "?", "."):
                if toks[j] == "<":
                    j, _ = skip_angles(toks, j)
                elif toks[j] == "[":
                    j = skip_group(toks, j, "[", "]")
                else:
                    j += 1 if toks[j] == "?" else 2
            if j < n and re.match(r"[A-Za-z_]", toks[j]):
                name, arity = toks[j], 0
                if j + 1 < n and toks[j + 1] == "<":
                    _, arity = skip_angles(toks, j + 1)
                parent = stack[-1][0] if in_type_body() else None
                key = "%s`%d" % (name, arity)
                if public_type(i) and (parent is None or not parent.startswith("-")):
                    if parent is not None:
                        types.setdefault(parent, set()).add(name)
                        key = parent + "." + key
                    types.setdefault(key, set())
            i = skip_statement(toks, i)
            continue
        if t == "{":
            stack.append((None, "block"))
            i += 1
            continue
        if t == "}":
            if stack:
                stack.pop()
            i += 1
            mods = i
            continue
        if not in_type_body():
            i += 1
            continue
        key, kind = stack[-1]
        if kind == "enum":
            if not key.startswith("-") and re.match(r"[A-Za-z_]", t) and i + 1 < n and toks[i + 1] in (",", "=", "}"):
                add(t.lstrip("@"))
            if t == "=":
                while i < n and toks[i] not in (",", "}"):
                    i += 1
                continue
            i += 1
            continue
        # member declarations at the type-body depth
        if t == "[" and i + 1 < n and toks[i + 1] in ("]", ","):
            i = skip_group(toks, i, "[", "]")  # an array rank in a type, not an attribute
            continue
        if t == "[":
            if toks[i - 1:i] == ["this"]:
                add("Item")
                i = skip_group(toks, i, "[", "]")
                if i < n and toks[i] == "{":
                    i = skip_group(toks, i, "{", "}")
                continue
            i = skip_group(toks, i, "[", "]")
            mods = i
            continue
        if t == "(":
            i = skip_group(toks, i, "(", ")")
            continue
        if t in ("=", "=>"):
            i = skip_statement(toks, i)
            continue
        if t == "operator":
            prev = toks[i - 1] if i else ""
            if prev in ("implicit", "explicit"):
                add("op_" + prev.capitalize())
            i += 1
            continue
        if key.startswith("-"):
            i += 1
            continue
        if re.match(r"[A-Za-z_]", t) and t not in NOT_MEMBERS and toks[i - 1:i] != ["."]:
            j = i + 1
            if j < n and toks[j] == "<":
                k, arity = skip_angles(toks, j)
                if arity and k < n and toks[k] == "(":
                    j = k
            nxt = toks[j] if j < n else ""
            if nxt in ("(", "{", ";", "=", "=>", ","):
                name = t.lstrip("@")
                own = key.rsplit(".", 1)[-1].split("`")[0]
                if nxt == "(" and name == own:
                    add("ctor")
                elif nxt == "{" and toks[i - 1:i] in (["event"],):
                    add(name)
                else:
                    add(name)
                if nxt == "{":
                    # property / event accessors, method bodies: skip the block
                    i = skip_group(toks, j, "{", "}")
                    continue
                if nxt == "(":
                    # An extension method: record the extended type ("#ext:" entries).
                    k = j + 1
                    if k < n and toks[k] == "this":
                        k += 1
                        while k < n and toks[k] in ("in", "ref"):
                            k += 1
                        if k < n and "public" in toks[mods:i]:
                            types.setdefault("#ext:" + key, set()).add(name + "@" + toks[k])
                    end = skip_group(toks, j, "(", ")")
                    if "public" in toks[mods:i] or kind == "interface":
                        member = "ctor" if name == own else name
                        types.setdefault("~sig:" + key, set()).add(member + "(" + ", ".join(param_types(toks[j + 1:end - 1])) + ")")
                    i = end
                    # a method body follows (or ';' / '=>' / ': base(...)' / 'where ...')
                    while i < n and toks[i] not in ("{", ";", "=>"):
                        if toks[i] == "(":
                            i = skip_group(toks, i, "(", ")")
                        else:
                            i += 1
                    if i < n and toks[i] == "{":
                        i = skip_group(toks, i, "{", "}")
                    elif i < n and toks[i] == "=>":
                        i = skip_statement(toks, i)
                    else:
                        i += 1
                    continue
                i = j
                continue
        i += 1


def inventory(root):
    """Walks root for *.cs files; returns {type key: set(member names)}."""
    types = {}
    for dirpath, _, files in os.walk(root):
        for f in sorted(files):
            if f.endswith(".cs"):
                with open(os.path.join(dirpath, f), encoding="utf-8-sig") as fh:
                    parse(fh.read(), types)
    return types


if __name__ == "__main__":
    import sys
    inv = inventory(sys.argv[1] if len(sys.argv) > 1 else "bindings/Runtime")
    for k in sorted(inv):
        if k.startswith(("-", "#")):
            continue
        print(k + ": " + " ".join(sorted(inv[k])))
