#!/usr/bin/env python3
"""Checks bindings/unitask-parity.tsv, the UniTask 2.5.11 -> Onity map, both ways.

The map has one row per line of the UniTask API list (UNITASK_API, default
../shared/reference/unitask-2.5.11-api.tsv beside the repository, else the copy the map was made
from): the list's three columns (file, declaring type, signature), then the Onity counterpart:
  Type / Type.Member     a public type or member of bindings/Runtime (Type may be nested,
                         generic arity as <T>, <T1,T2>; "ctor" = constructor, "op_Implicit").
                         A member is a name: overloads are not told apart by the check (the
                         mechanical suggestions of --update match extension methods by the type
                         they extend; MANUAL holds the rows decided by hand)
  refused: reason        not provided, on purpose, with the reason
  internal: reason       not user API in UniTask either (public members of its private classes)
  missing                not built yet
Fails when a UniTask line has no row, a row matches no UniTask line, or a row names a type or
member that bindings/Runtime does not declare publicly; also when the generated summary in
bindings/README.md (between the unitask-parity markers) is stale.

  scripts/check-unitask-parity.py            check (prints the summary and "N passed, N failed")
  scripts/check-unitask-parity.py --update   rewrite the map: rows added for new UniTask lines,
                                             "missing" rows re-mapped mechanically where the
                                             Onity name now exists; the README block regenerated
"""
import collections
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import csharp_inventory  # noqa: E402
import unitask_overloads  # noqa: E402

MAP = os.path.join(ROOT, "bindings", "unitask-parity.tsv")
README = os.path.join(ROOT, "bindings", "README.md")
RUNTIME = os.path.join(ROOT, "bindings", "Runtime")
BEGIN, END = "<!-- unitask-parity:begin (scripts/check-unitask-parity.py --update) -->", "<!-- unitask-parity:end -->"
HEADER = "# UniTask 2.5.11 -> Onity map: file, declaring type, UniTask signature, Onity member | refused: reason | missing. Checked by scripts/check-unitask-parity.py.\n"

from unitask_map_data import TYPE_NAMES, NESTED, ALSO_IN, KINDS, MANUAL, EXTENDS_BASES, AMBIGUOUS, REFUSED_TYPES, REFUSED_MEMBERS  # noqa: E402


def read_api(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line and not line.startswith("#"):
                rows.append(tuple(line.split("\t")[:3]))
    return rows


def base(name):
    return re.sub(r"<.*", "", name.strip())


def arity(name):
    m = re.search(r"<(.*)>", name)
    return m.group(1).count(",") + 1 if m else 0


def onity_type(name):
    b = base(name)
    if b in TYPE_NAMES:
        return TYPE_NAMES[b]
    if b.startswith("Async") and b.endswith("Trigger"):
        return "Onity" + b[len("Async"):]
    if "UniTask" in b:
        return b.replace("UniTask", "OnityTask")
    if re.match(r"I[A-Z]", b):  # an interface: IFoo -> IOnityFoo
        return b if b.startswith("IOnity") else "IOnity" + b[1:]
    return b if b.startswith("Onity") else "Onity" + b


def display(name, n):
    if n == 0:
        return name
    return name + "<" + (",".join("T%d" % (k + 1) for k in range(n)) if n > 1 else "T") + ">"


def member_name(sig, declaring):
    """The member a signature declares: a name, "ctor" or "op_Implicit"/"op_Explicit"."""
    s = re.sub(r"^(public|static|override|virtual|abstract|readonly|ref|sealed|new|async|unsafe|extern|const|event|\s)+", "", sig)
    m = re.search(r"\b(implicit|explicit)\s+operator\b", s)
    if m:
        return "op_" + m.group(1).capitalize()
    if "operator" in s:
        return None
    if re.match(r"^[^(]*=", s):  # a field with an initialiser
        s = s.split("=")[0]
    for m in re.finditer(r"([A-Za-z_][A-Za-z0-9_]*)\s*(<[^()\s]*(?:,\s*[^()\s]*)*>)?\s*\(", s):
        name = m.group(1)
        if s[:m.start()].strip() == "":  # no return type: a constructor
            return "ctor" if name == base(declaring) else "ctor:" + name
        return name
    head = re.split(r"\s*(=|\{|;)", s)[0]
    ident = re.findall(r"[A-Za-z_][A-Za-z0-9_]*", head)
    return ident[-1] if ident else None


class Inventory:
    def __init__(self, root):
        raw = csharp_inventory.inventory(root)
        self.ext = {k[len("#ext:"):]: v for k, v in raw.items() if k.startswith("#ext:")}
        self.sigs = {k[len("~sig:"):]: v for k, v in raw.items() if k.startswith("~sig:")}
        self.types = {k: v for k, v in raw.items() if not k.startswith(("-", "#", "~"))}
        self.by_name = collections.defaultdict(list)
        for key in self.types:
            self.by_name[key.rsplit(".", 1)[-1]].append(key)

    def resolve_type(self, path):
        """path: list of (name, arity); returns the type key or None."""
        key = ".".join("%s`%d" % p for p in path)
        return key if key in self.types else None

    def check(self, ref):
        """ref 'A.B<T>.C': True when it names a public type or member; 'A.B<T>.C(int, T)' an
        overload of it (its parameter types as bindings/Runtime declares them)."""
        if "(" in ref:
            head, params = ref[:ref.index("(")], ref[ref.index("("):]
            owner, member = self.owner_of(head)
            if owner is None:
                return False
            return member + "(" + ", ".join(split_params(params[1:-1])) + ")" in self.sigs.get(owner, ())
        parts = [p.strip() for p in re.findall(r"[^.<]+(?:<[^>]*>)?", ref)]
        segs = [(base(p), arity(p)) for p in parts]
        if not segs or any(not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", n) for n, _ in segs):
            return False
        if self.resolve_type(segs):
            return True
        owner = self.resolve_type(segs[:-1]) if len(segs) > 1 else None
        return owner is not None and segs[-1][0] in self.types[owner]

    def owner_of(self, ref):
        """'A.B<T>.C' -> (type key of A.B<T>, 'C'), or (None, None)."""
        parts = [p.strip() for p in re.findall(r"[^.<]+(?:<[^>]*>)?", ref)]
        segs = [(base(p), arity(p)) for p in parts]
        if len(segs) < 2 or any(not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", n) for n, _ in segs):
            return None, None
        owner = self.resolve_type(segs[:-1])
        return (owner, segs[-1][0]) if owner else (None, None)

    def overloads(self, ref):
        """The declared overloads ('C(int, T)') of member ref 'A.B<T>.C'."""
        owner, member = self.owner_of(ref)
        if owner is None:
            return []
        return sorted(x for x in self.sigs.get(owner, ()) if x.startswith(member + "("))

    def unique_nested(self, seg):
        """The one type (of any nesting) named seg = (name, arity), or None."""
        keys = self.by_name.get("%s`%d" % seg, [])
        return keys[0] if len(keys) == 1 else None

    def find(self, type_names, member, extends=None):
        """First 'Type.Member' among candidate type keys declaring member; with extends, an
        extension method of that type (its first parameter's type name) in a static class."""
        for key in type_names:
            if key in self.types and member in self.types[key]:
                accepted = [extends] + EXTENDS_BASES.get(extends, [])
                if extends and key in self.ext and not any(e.split("@")[0] == member and e.split("@")[1] in accepted for e in self.ext[key]) \
                        and any(e.split("@")[0] == member for e in self.ext[key]):
                    continue  # the class extends other types with that name, not this one
                return pretty(key) + "." + member
        return None


def pretty(key):
    return ".".join(display(*p.split("`")[:1], int(p.split("`")[1])) for p in key.split("."))


def this_type(sig):
    """The extended type of an extension method; None for arrays and sequences (their methods
    are not the element type's)."""
    m = re.search(r"\(this\s+(?:in\s+)?([A-Za-z_][A-Za-z0-9_.]*(?:<[^>]*>)?)(\[\])?", sig)
    if not m or m.group(2) or m.group(1).startswith(("IEnumerable", "Task<", "Task ")):
        return None
    return m.group(1)




def refusal(file_, decl, sig):
    if file_.startswith("External/"):
        return "refused: extension for a third-party package (DOTween / Addressables / TextMeshPro) this package does not depend on"
    if file_ == "PlayerLoopHelper.cs" and decl == "struct" and "Yield" in sig:
        return "refused: Onity injects one system per timing: continuations and yields share it (no separate Yield runner)"
    if file_ == "UnityAwaitableExtensions.cs":
        return "refused: UnityEngine.Awaitable is Unity 2023.1+; this package targets Unity 2022.3"
    if file_.startswith("Internal/") or file_ == "MoveNextSource.cs":
        return "internal: UniTask internal helper (pooling / tracking plumbing), not user API"
    # Members of UniTask's internal Linq classes the API list files under UniTaskAsyncEnumerable:
    # Empty<T> / Never<T> and their enumerators, Subscribe.cs's SubscribeHelper and its disposable.
    if file_ in ("Linq/Empty.cs", "Linq/Never.cs") and "UniTaskAsyncEnumerable<T> Empty<T>()" not in sig \
            and "Never<T>()" not in sig.split("=")[0]:
        return NESTED_IMPL
    if file_ == "UniTaskObservableExtensions.cs" and decl == "UniTaskObservableExtensions" \
            and not re.search(r"\b(ToUniTask|ToObservable)\b", sig):
        return "internal: member of UniTaskObservableExtensions.cs's internal observer / subject / list classes, not user API"
    if file_ == "UniTask.Factory.cs" and sig.startswith("public static readonly UniTask<"):
        return "internal: UniTask's internal completed-task caches (CompletedTasks, CanceledUniTaskCache), not user API"
    if file_ == "UniTaskCompletionSource.cs" and "NextNode" in sig:
        return "internal: UniTask internal helper (pooling / tracking plumbing), not user API"
    if file_ == "Linq/ToLookup.cs" and ("Lookup<TKey, TElement> Create" in sig or "Lookup<TKey, TElement>> Create" in sig
                                       or sig in ("public IEnumerable<TElement> this[TKey key]", "public int Count", "public bool Contains(TKey key)",
                                                  "public IEnumerator<IGrouping<TKey, TElement>> GetEnumerator()", "public TKey Key")):
        return "internal: member of UniTask's internal Lookup / Grouping classes (ToLookupAsync returns System.Linq's ILookup here)"
    if file_ == "Linq/Subscribe.cs" and (re.search(r"\b(SubscribeCore|SubscribeAwaitCore|NopError|NopCompleted)\b", sig)
                                        or sig in ("public CancellationToken Token", "public void Dispose()")):
        return "internal: member of UniTask's internal SubscribeHelper / its disposable, not user API"
    if re.search(r"\bshort token\b", sig) or re.search(r"\bUnsafeGetStatus\(\)", sig):
        return None  # the source protocol: mapped where the type has one, else decided below
    return None




def type_refusal(decl, sig, outer):
    nested_row = base(decl) in NESTED or (decl in KINDS and base(sig) in NESTED)
    for name in (base(decl), base(sig) if decl in KINDS else "", outer[0] if outer and nested_row else ""):
        if name in REFUSED_TYPES:
            return "refused: " + REFUSED_TYPES[name]
    member = member_name(sig, decl) if decl not in KINDS else None
    if member in REFUSED_MEMBERS:
        return "refused: " + REFUSED_MEMBERS[member]
    if "AudioFilterRead" in sig:
        return "refused: Unity calls OnAudioFilterRead on the audio thread; the triggers are raised and awaited on the main thread"
    if re.search(r"public ref \w+ NextNode", sig) or (sig.strip() == "public bool MoveNext()" and decl not in KINDS) or (sig.strip() == "public void Reset()" and base(decl) == "UniTask"):
        return NESTED_IMPL
    if base(decl) == "ChannelClosedException" and member_name(sig, decl) != "ctor":
        return NESTED_IMPL  # the list files the private channel classes under the exception
    return None


NESTED_IMPL = "internal: public member of a UniTask-private nested class (implementation detail, not callable from user code)"


def suggest(inv, file_, decl, sig, outer, nested=False):
    if (file_, sig) in MANUAL:
        return MANUAL[(file_, sig)]
    r = refusal(file_, decl, sig) or type_refusal(decl, sig, outer)
    if r:
        return r
    if nested:
        return NESTED_IMPL
    if decl in KINDS:
        name, n = base(sig), arity(sig)
        path = [(onity_type(name), n)]
        if name in NESTED and outer:
            path = [(onity_type(outer[0]), outer[1]), (name, n)]
        if file_ == "PlayerLoopHelper.cs" and name.startswith("UniTaskLoopRunner"):
            path = [("OnityLoopRunners", 0), ("Onity" + name[len("UniTaskLoopRunner"):], 0)]
        key = inv.resolve_type(path) or (inv.resolve_type([(outer[0], outer[1]), (name, n)]) if name in NESTED and outer else None) \
            or inv.unique_nested(path[-1]) or inv.resolve_type([(name, n)])
        if not key and name in NESTED and outer:  # an awaitable that is its own awaiter
            key = inv.resolve_type([(outer[0], outer[1])]) or inv.resolve_type([(onity_type(outer[0]), outer[1])])
        return pretty(key) if key else "missing"
    member = member_name(sig, decl)
    if member is None:
        return "missing"
    if member.startswith("ctor:"):
        return NESTED_IMPL  # a constructor of a nested class UniTask keeps private
    member = member.replace("UniTask", "OnityTask").replace("GetAsync", "GetOnity", 1) if member.startswith("GetAsync") and member.endswith("Trigger") else member.replace("UniTask", "OnityTask")
    cands = []
    if decl in NESTED and outer:
        cands.append("%s`%d.%s`0" % (onity_type(outer[0]), outer[1], decl))
        cands.append("%s`%d.%s`0" % (outer[0], outer[1], decl))
        cands.append("%s`%d" % (outer[0], outer[1]))  # an awaitable that is its own awaiter
        cands.append("%s`%d" % (onity_type(outer[0]), outer[1]))
    cands.append("%s`%d" % (base(decl), arity(decl)))
    cands.append("%s`%d" % (onity_type(decl), arity(decl)))
    cands.extend(ALSO_IN.get(base(decl), []))
    nested_key = inv.unique_nested((base(decl), arity(decl)))
    if nested_key:
        cands.append(nested_key)
    for n in range(0, 3):
        cands.append("%s`%d" % (onity_type(decl), n))
    t = this_type(sig)
    if t:
        cands.append("%s`%d" % (onity_type(t), arity(t)))
    if "(this " in sig:  # the list may file an extension under the previous type: the file's class too
        stem = file_.split("/")[-1].split(".")[0]
        cands.append("%s`0" % onity_type(stem))
    if "(this " in sig and member not in AMBIGUOUS:
        cands.extend(k for k in sorted(inv.types) if k.split("`")[0].endswith("Extensions") and "." not in k)
    if re.search(r"GetAwaiter(<[^>]*>)?\(this \((UniTask|UniTask<T1>) task1", sig):
        cands.insert(0, "OnityTaskTupleAwaiters`0")
    extends = None
    m = re.search(r"\(this\s+(?:in\s+)?(?:UnityEngine\.)?([A-Za-z_][A-Za-z0-9_]*)", sig)
    if m and "UniTask" not in m.group(1) and not re.match(r"^T\d*$", m.group(1)):
        extends = m.group(1)  # a non-UniTask type (Unity's, .NET's): the Onity overload must extend it too
    found = inv.find(cands, member, extends)
    if found:
        return found
    if re.search(r"\bshort token\b", sig) or "UnsafeGetStatus()" in sig:
        if base(decl) not in ("UniTaskCompletionSource", "AutoResetUniTaskCompletionSource", "IUniTaskSource",
                              "UniTaskCompletionSourceCore", "UniTaskCompletionSource<T>"):
            return NESTED_IMPL
    return "missing"


# ---- overloads --------------------------------------------------------------------------
# A UniTask member with several overloads (same declaring type and name in the list) must name
# the Onity overload it maps to: "Type.Member(ParamType, ...)", the parameter types as
# bindings/Runtime declares them (csharp_inventory.param_types: no names, defaults, modifiers,
# namespaces or caller-info parameters). --update fills it in where one Onity overload takes the
# same arguments (the UniTask types renamed as TYPE_NAMES says; trailing optional parameters of
# either side may be left out).
# Areas whose rows other branches are re-mapping now: overload names there are reported but do
# not fail the check yet (run --update once they are merged, then empty this set).
OVERLOADS_PENDING = ()


def rename_type(w):
    """A UniTask identifier in a parameter type -> the Onity name (types only; others unchanged)."""
    if w in TYPE_NAMES:
        return TYPE_NAMES[w]
    return onity_type(w) if "UniTask" in w else w


def unitask_params(sig, member):
    return unitask_overloads.unitask_params(sig, member, rename_type)


split_params = unitask_overloads.split_params


def overload_keys(api):
    """Counter of (owner, declaring type, member) over the UniTask list's methods/constructors."""
    counts = collections.Counter()
    keys = []
    for row, outer, nested in walk(api):
        file_, decl, sig = row
        key = None
        if decl not in KINDS:
            member = member_name(sig, decl)
            if member and not member.startswith("op_") and unitask_params(sig, member if member != "ctor" else base(decl)) is not None:
                key = (outer[0] if decl in NESTED and outer else "", decl, member)
                counts[key] += 1
        keys.append(key)
    return counts, keys


def member_ref(inv, v):
    """True when v names a member (not a type) without an overload."""
    if "(" in v or v.startswith(("refused:", "internal:")) or v in ("missing", ""):
        return False
    parts = [p.strip() for p in re.findall(r"[^.<]+(?:<[^>]*>)?", v)]
    return inv.resolve_type([(base(p), arity(p)) for p in parts]) is None and inv.check(v)


def fill_overloads(inv, api, values):
    counts, keys = overload_keys(api)
    out = []
    for (file_, decl, sig), key, v in zip(api, keys, values):
        if key and counts[key] > 1 and member_ref(inv, v) and not file_.startswith(OVERLOADS_PENDING):
            member = key[2] if key[2] != "ctor" else base(decl)
            v = unitask_overloads.pick_overload(inv, v, sig, member, rename_type) or v
        out.append(v)
    return out


PUBLIC_SOURCES = {"UniTaskCompletionSource", "AutoResetUniTaskCompletionSource", "UniTaskCompletionSourceCore",
                  "IUniTaskSource", "MoveNextSource", "UniTaskCompletionSource<T>"}


def protocol(sig):
    return bool(re.search(r"\bshort token\b", sig)) or "UnsafeGetStatus()" in sig


def walk(api):
    """Yields (row, outer, nested): outer = (UniTask name, arity) of the type a nested row belongs
    to; nested = the row declares a member of a class UniTask keeps private. The list files such
    members under the enclosing public type; they follow a constructor of another name or a
    source-protocol member (GetResult(short token), ...), until the next type or static member."""
    outer, nested = None, False
    for row in api:
        file_, decl, sig = row
        if decl in KINDS:
            nested = False
            if base(sig) not in NESTED:
                outer = (base(sig), arity(sig))
        else:
            member = member_name(sig, decl) or ""
            if member.startswith("ctor:") or (protocol(sig) and member != "ctor" and base(decl) not in PUBLIC_SOURCES):
                nested = True
            elif re.match(r"public\s+static\b", sig) and "const" not in sig:
                nested = False
        yield row, outer, nested


def load_map(path=MAP):
    rows = []
    if not os.path.exists(path):
        return rows
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            cols = line.split("\t")
            rows.append((n, tuple((cols + ["", ""])[:3]), cols[3] if len(cols) > 3 else ""))
    return rows


def counts(values):
    """(mapped, refused, missing, internal)."""
    refused = sum(1 for v in values if v.startswith("refused:"))
    missing = sum(1 for v in values if v == "missing")
    internal = sum(1 for v in values if v.startswith("internal:"))
    return len(values) - refused - missing - internal, refused, missing, internal


def summary(values):
    mapped, refused, missing, internal = counts(values)
    return "unitask-parity: %d of %d UniTask members mapped, %d refused, %d missing, %d internal (UniTask-private, not callable)" % (
        mapped, len(values), refused, missing, internal)


def readme_block(api, values):
    per = collections.OrderedDict()
    for (file_, _, _), v in zip(api, values):
        area = file_.split("/")[0] if "/" in file_ else re.sub(r"\..*", "", file_)
        area = {"UniTaskExtensions": "UniTask", "UnityAsyncExtensions": "UnityAsyncExtensions"}.get(area, area)
        per.setdefault(area, []).append(v)
    lines = [BEGIN, "", summary(values), "",
             "| UniTask source (2.5.11) | members | mapped | refused | missing | internal |", "|---|---|---|---|---|---|"]
    for area, vals in per.items():
        m, r, x, i = counts(vals)
        lines.append("| %s | %d | %d | %d | %d | %d |" % (area, len(vals), m, r, x, i))
    lines += ["", END]
    return "\n".join(lines)


def api_path():
    env = os.environ.get("UNITASK_API")
    if env:
        return env
    for p in (os.path.join(ROOT, "..", "shared", "reference", "unitask-2.5.11-api.tsv"),
              "/work/shared/reference/unitask-2.5.11-api.tsv"):
        if os.path.exists(p):
            return p
    return None


def update_map(inv, api, existing):
    old = collections.defaultdict(list)
    for _, key, v in existing:
        old[key].append(v)
    values, was_missing = [], []
    for row, outer, nested in walk(api):
        prev = old[row].pop(0) if old[row] else "missing"
        values.append(prev if prev != "missing" else suggest(inv, row[0], row[1], row[2], outer, nested))
        was_missing.append(prev == "missing")
    values = fill_overloads(inv, api, values)
    # a mechanical suggestion for an overloaded UniTask member stands only with a matching overload
    counts, keys = overload_keys(api)
    values = ["missing" if m and k and counts[k] > 1 and member_ref(inv, v) and not row[0].startswith(OVERLOADS_PENDING) else v
              for row, v, m, k in zip(api, values, was_missing, keys)]
    with open(MAP, "w", encoding="utf-8") as f:
        f.write(HEADER)
        for row, v in zip(api, values):
            f.write("\t".join(row) + "\t" + v + "\n")
    text = open(README, encoding="utf-8").read()
    if BEGIN not in text:
        print("README has no unitask-parity block: add the markers", file=sys.stderr)
        return
    text = text[:text.index(BEGIN)] + readme_block(api, values) + text[text.index(END) + len(END):]
    open(README, "w", encoding="utf-8").write(text)


def check(inv, api, rows, readme_text):
    """Returns (passed, failed, failure messages)."""
    passed, failed, fails = 0, 0, []
    # 1. every UniTask line has a row, every row a UniTask line
    want = collections.Counter(api)
    have = collections.Counter(key for _, key, _ in rows)
    for key in sorted((want - have).elements()):
        fails.append("UniTask line without a row: " + "\t".join(key))
    for key in sorted((have - want).elements()):
        fails.append("row matching no UniTask line: " + "\t".join(key))
    if want == have:
        passed += 1
    else:
        failed += 1
    # 2. every named Onity member is a public type or member of bindings/Runtime
    bad = 0
    for n, key, v in rows:
        if v == "missing":
            continue
        if v.startswith("refused:") or v.startswith("internal:"):
            if len(v.split(":", 1)[1].strip()) < 8:
                fails.append("line %d: a refusal needs its reason: %r" % (n, v))
                bad += 1
            continue
        if not v:
            fails.append("line %d: no value: write an Onity member, refused: reason, or missing" % n)
            bad += 1
        elif not inv.check(v):
            fails.append("line %d: %r is not a public type or member of bindings/Runtime (UniTask: %s)" % (n, v, key[2]))
            bad += 1
    # 2b. a UniTask member with several overloads names the Onity overload
    counts, keys = overload_keys([k for _, k, _ in rows])
    pending = 0
    for (n, key, v), okey in zip(rows, keys):
        if okey and counts[okey] > 1 and member_ref(inv, v):
            if key[0].startswith(OVERLOADS_PENDING):
                pending += 1
                continue
            fails.append("line %d: UniTask's %s has %d overloads: name the Onity overload, e.g. %r (--update fills it where one matches)"
                         % (n, okey[2], counts[okey], v + "(" + ", ".join(t for t, _ in (unitask_params(key[2], okey[2] if okey[2] != "ctor" else base(key[1])) or [])) + ")"))
            bad += 1
    if pending:
        print("unitask-parity: %d rows of areas other branches are re-mapping do not name their overload yet (OVERLOADS_PENDING)" % pending)
    if bad:
        failed += 1
    else:
        passed += 1
    # 3. the README's ✅ feature rows agree with the map
    ffails = check_features(api, [v for _, _, v in rows], readme_text)
    fails.extend(ffails)
    if ffails:
        failed += 1
    else:
        passed += 1
    # 4. the README summary is the one generated from the map
    block = readme_block([k for _, k, _ in rows], [v for _, _, v in rows])
    if BEGIN in readme_text and END in readme_text and readme_text[readme_text.index(BEGIN):readme_text.index(END) + len(END)] == block:
        passed += 1
    else:
        fails.append("bindings/README.md: the unitask-parity block is stale (run scripts/check-unitask-parity.py --update)")
        failed += 1
    return passed, failed, fails


FEATURES = "## UniTask features: what this package has"


def feature_rows(readme_text):
    """(line text, status, [UniTask names]) of the README's feature table rows."""
    if FEATURES not in readme_text:
        return []
    out = []
    for line in readme_text[readme_text.index(FEATURES):].split("\n")[1:]:
        if line.startswith("## "):
            break
        cols = [c.strip() for c in line.split("|")]
        if len(cols) < 4 or not line.startswith("| ") or cols[1] in ("UniTask feature", "---"):
            continue
        names = []
        for tok in re.findall(r"`([^`]+)`", cols[1]):
            m = re.match(r"^((?:[A-Za-z_][A-Za-z0-9_<>]*\.)*)([A-Za-z_][A-Za-z0-9_]*)", tok.strip())
            if m:
                qual = m.group(1).rstrip(".").split(".")[-1] if m.group(1) else ""
                names.append((base(qual), m.group(2)))
        out.append((line, cols[2], names))
    return out


def check_features(api, values, readme_text):
    """A feature row marked plainly ✅ must not name a UniTask member with a 'missing' row."""
    # A name matches the members and types of that name outside async LINQ, the generated
    # message triggers and the third-party extensions (their own rows), and outside nested
    # awaiters; `Type.Member` only those declared by Type.
    by_name = collections.defaultdict(list)
    for (row, outer, nested), v in zip(walk(api), values):
        file_, decl, sig = row
        if file_.startswith(("Linq/", "External/", "Triggers/MonoBehaviourMessagesTriggers")) or base(decl) in NESTED or nested:
            continue
        name = base(sig) if decl in KINDS else member_name(sig, decl)
        if name:
            owners = {base(sig) if decl in KINDS else base(decl)}
            t = re.search(r"\(this\s+(?:in\s+)?(?:UnityEngine\.)?([A-Za-z_][A-Za-z0-9_]*)", sig)
            if t:
                owners.add(t.group(1))  # an extension method: `Type.Method` names the extended type
            by_name[name].append((owners, v))
    fails = []
    for line, status, names in feature_rows(readme_text):
        if status != "✅":
            continue
        for qual, n in names:
            missing = sum(1 for owners, v in by_name.get(n, []) if v == "missing" and (not qual or qual in owners or qual == n))
            if missing:
                fails.append("bindings/README.md feature row says ✅ but %d UniTask row(s) of `%s` are missing in the map: %s" % (missing, n, line[:80]))
    return fails


def missing_name(api, rows):
    """(row index, name) of a UniTask member the feature check covers: its row if one is missing,
    else the first mapped one (the self-test marks it missing). A map with no missing row must
    still prove the check fails, so the name is never one that matches no row."""
    first = None
    for i, ((row, outer, nested), (_, _, v)) in enumerate(zip(walk(api), rows)):
        file_, decl, sig = row
        if decl in KINDS or nested or base(decl) in NESTED \
                or file_.startswith(("Linq/", "External/", "Triggers/MonoBehaviourMessagesTriggers")):
            continue
        name = member_name(sig, decl)
        if not name or name.startswith("ctor"):
            continue
        if v == "missing":
            return i, name
        if first is None and not v.startswith(("refused:", "internal:")):
            first = (i, name)
    if first is None:
        raise SystemExit("check-unitask-parity: no UniTask member for the feature self-test")
    return first


def with_missing_row(rows, i):
    """rows with row i marked missing."""
    n, key, _ = rows[i]
    return rows[:i] + [(n, key, "missing")] + rows[i + 1:]


def with_feature_row(readme_text, name):
    """The README with a ✅ feature row naming <name> (after the table's header)."""
    marker = "| UniTask feature | Here | Notes |\n|---|---|---|\n"
    return readme_text.replace(marker, marker + "| `%s` | ✅ | self-test |\n" % name, 1)


def self_test(inv, api, rows, readme_text):
    """The check must fail on each kind of bad map: returns (passed, failed)."""
    first = next(i for i, (_, _, v) in enumerate(rows) if v.startswith("Onity"))
    n, key, v = rows[first]
    ov = next(i for i, (_, k, val) in enumerate(rows) if "(" in val and not val.startswith(("refused:", "internal:")))
    mi, mname = missing_name(api, rows)
    cases = [
        ("a row naming a member that does not exist", rows[:first] + [(n, key, v.split(".")[0] + ".NoSuchMember")] + rows[first + 1:], readme_text, "not a public type"),
        ("a row naming an internal member", rows[:first] + [(n, key, "OnityTask.RunCore")] + rows[first + 1:], readme_text, "not a public type"),
        ("a row naming an internal type", rows[:first] + [(n, key, "WhenAllPromise")] + rows[first + 1:], readme_text, "not a public type"),
        ("a UniTask line without a row", rows[:first] + rows[first + 1:], readme_text, "without a row"),
        ("a row matching no UniTask line", rows + [(0, ("X.cs", "X", "public void X()"), "missing")], readme_text, "matching no UniTask line"),
        ("a row naming an overload that does not exist", rows[:ov] + [(rows[ov][0], rows[ov][1], rows[ov][2][:rows[ov][2].index("(")] + "(NoSuchType)")] + rows[ov + 1:], readme_text, "not a public type"),
        ("a row of an overloaded member without its overload", rows[:ov] + [(rows[ov][0], rows[ov][1], rows[ov][2][:rows[ov][2].index("(")])] + rows[ov + 1:], readme_text, "name the Onity overload"),
        ("a refusal without its reason", rows[:first] + [(n, key, "refused:")] + rows[first + 1:], readme_text, "needs its reason"),
        ("a stale README summary", rows, readme_text.replace("unitask-parity: ", "unitask-parity: 1", 1), "stale"),
        ("a ✅ feature row naming a missing member", with_missing_row(rows, mi), with_feature_row(readme_text, mname), "feature row says ✅"),
    ]
    passed, failed = 0, 0
    for name, bad_rows, text, expect in cases:
        _, f, msgs = check(inv, api, bad_rows, text)
        if f and any(expect in m for m in msgs):
            passed += 1
        else:
            failed += 1
            print("FAIL self-test: the check accepts %s" % name)
    return passed, failed


def main():
    inv = Inventory(RUNTIME)
    existing = load_map()
    path = api_path()
    # Without the reference list (it is not shipped) the map's own first three columns stand for it.
    api = read_api(path) if path else [key for _, key, _ in existing]
    if "--update" in sys.argv[1:]:
        update_map(inv, api, existing)
        existing = load_map()
    text = open(README, encoding="utf-8").read()
    passed, failed, fails = check(inv, api, existing, text)
    for f in fails[:40]:
        print("FAIL " + f)
    if len(fails) > 40:
        print("... %d more" % (len(fails) - 40))
    sp, sf = self_test(inv, api, existing, text)
    passed, failed = passed + sp, failed + sf
    print(summary([v for _, _, v in existing]))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
