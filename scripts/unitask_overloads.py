"""UniTask -> Onity overload matching for scripts/check-unitask-parity.py: a UniTask signature's
parameter types renamed to Onity's, compared with the overloads bindings/Runtime declares
(csharp_inventory's "~sig:" entries). See docs/unitask_parity.md."""
import re

import csharp_inventory

def split_params(text):
    toks = csharp_inventory.TOKEN.findall(text)
    return [csharp_inventory.normalize_type("".join(x if x != "," else ", " for x in p)) for p in csharp_inventory.split_top(toks) if p]


GENERIC = re.compile(r"\b(?:T[A-Z0-9][A-Za-z0-9_]*|T|U)\b")
UNITASK_PARAM_TYPES = {"UniTaskVoid": "OnityTaskVoid", "YieldAwaitable": "OnityFrameWait", "short": "long",
                       "IUniTaskOrderedAsyncEnumerable": "IOnityOrderedAsyncEnumerable", "IAsyncWriter": "IOnityAsyncWriter",
                       "IConnectableUniTaskAsyncEnumerable": "IOnityConnectableAsyncEnumerable", "Double": "double", "Single": "float",
                       "AsyncReactiveProperty": "OnityAsyncReactiveProperty",
                       "ReadOnlyAsyncReactiveProperty": "OnityReadOnlyAsyncReactiveProperty",
                       "IAsyncReactiveProperty": "IOnityAsyncReactiveProperty",
                       "IReadOnlyAsyncReactiveProperty": "IOnityReadOnlyAsyncReactiveProperty",
                       "Int32": "int", "Int64": "long", "Boolean": "bool", "Decimal": "decimal"}


def tuple_type(t):
    """'(A a, B b)' -> 'ValueTuple<A, B>' (the 8th and later nested as C# does)."""
    if not t.startswith("("):
        return t
    toks = csharp_inventory.TOKEN.findall(t)
    end = csharp_inventory.skip_group(toks, 0, "(", ")")
    items = []
    for p in csharp_inventory.split_top(toks[1:end - 1]):
        if len(p) > 1 and re.match(r"[A-Za-z_]", p[-1]) and p[-2] not in ("<", ",", "."):
            p = p[:-1]  # the element's name
        items.append(tuple_type(csharp_inventory.normalize_type("".join(x if x != "," else ", " for x in p))))

    def build(xs):
        if len(xs) <= 7:
            return "ValueTuple<" + ", ".join(xs) + ">"
        return "ValueTuple<" + ", ".join(xs[:7]) + ", " + build(xs[7:]) + ">"
    return build(items)


def translate(t, rename):
    """Each identifier of type text t: UNITASK_PARAM_TYPES, else rename (the checker's type names)."""
    def one(m):
        w = m.group(0)
        return UNITASK_PARAM_TYPES[w] if w in UNITASK_PARAM_TYPES else rename(w)
    return re.sub(r"[A-Za-z_][A-Za-z0-9_]*", one, t)


def unitask_params(sig, member, rename):
    """[(Onity-translated parameter type, has a default)] of a UniTask signature, or None."""
    s = re.sub(r"^(public|static|override|virtual|abstract|readonly|sealed|new|async|unsafe|extern|\s)+", "", sig)
    m = re.search(r"\b%s\s*(<[^()]*>)?\s*\(" % re.escape(member), s)
    if not m:
        return None
    toks = csharp_inventory.TOKEN.findall(s[m.end() - 1:])
    end = csharp_inventory.skip_group(toks, 0, "(", ")")
    out = []
    for p in csharp_inventory.split_top(toks[1:end - 1]):
        has_default = "=" in p
        t = csharp_inventory.param_types(p)
        if t:
            out.append((tuple_type(translate(t[0], rename)), has_default))
    return out


def gen(t):
    return GENERIC.sub("T", t)


def pick_overload(inv, value, sig, member, rename):
    """The 'Type.Member(...)' overload of value matching UniTask's sig, or None."""
    ups = unitask_params(sig, member, rename)
    if ups is None:
        return None
    cands = inv.overloads(value)
    if not cands:
        return None
    parsed = [(c, [gen(x) for x in split_params(c[c.index("(") + 1:-1])]) for c in cands]
    tries = [ups]
    if "(this " in sig and ups:
        tries.append(ups[1:])  # a UniTask extension method that is an instance method here
    # UniTaskVoid handlers: OnityTaskVoid where an overload takes it, else the OnityTask one
    # (an async lambda binds either).
    tries += [[(t.replace("OnityTaskVoid", "OnityTask"), d) for t, d in u] for u in list(tries)]
    for u in tries:
        found = best_overload(value, u, parsed)
        if found:
            return found
    return None


def best_overload(value, ups, parsed):
    want = [gen(t) for t, _ in ups]
    for c, ps in parsed:
        if ps == want:
            return value + c[c.index("("):]
    best = None
    for c, ps in parsed:
        n = len(ps)
        if n < len(want) and ps == want[:n] and all(d for _, d in ups[n:]):
            d = len(want) - n
        elif n > len(want) and ps[:len(want)] == want:
            d = n - len(want)
        else:
            continue
        if best is None or d < best[0]:
            best = (d, c)
    return value + best[1][best[1].index("("):] if best else None
