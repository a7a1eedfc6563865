#!/usr/bin/env python3
"""Makes UniTask 2.2.5's runtime sources compile with Mono's mcs (-langversion:experimental) for
the C# benchmark. Mechanical rewrites only; none changes what a measured path does:

1. mcs does not parse ref-returning properties of generic types (`public ref X<T> NextNode =>
   ref nextNode;`, and its explicit-interface form): the pools' intrusive link becomes a get/set property. TaskPool.TryPop reads
   it once and no longer clears the popped node's link (the original clears it through the same
   ref): one interface call per pop, as in the original; TryPush overwrites the link anyway.
2. mcs does not take tuple types as generic arguments or a deconstructing foreach: one list of
   (Action<object>, object) in UniTaskCompletionSource becomes ValueTuple with Item1/Item2.
3. Three UnityEngine members the test stand-in does not have, none on a measured path:
   Application.dataPath (stack-trace formatting), Debug.LogAssertion (unobserved-exception log)
   and the UnityEngine math types in RuntimeHelpersAbstraction's "contains no references" list.
4. For a fair comparison under mcs: UniTask's two task awaiters (`readonly struct Awaiter {
   readonly UniTask task; ... }`) become mutable structs with a mutable field. mcs copies a
   readonly struct field whole on every member access (`task.source`, `task.Status`); Roslyn,
   which compiles UniTask in Unity, does not. The Onity binding's awaiters were changed the same
   way for the same reason.
5. mcs fails (internal error) on AsyncEnumeratorAwaitSelectorBase.SourceMoveNext in
   Linq/AsyncEnumeratorBase.cs (the base of the `...Await` operators, compiled in with the
   synchronous ones for the operator-chain rows, not on their measured path): its
   (waitCallback, requireNextIteration) tuples become an int (bit 1, bit 2), its `goto CONTINUE`
   out of a try block a tail call (`SourceMoveNext(); return;`).
6. Mono 6.8 aborts when it compiles `Thread.VolatileRead(ref object)` (assertion at
   intrinsics.c:1005: the JIT when the method first runs, `mono --aot=full` always, which the
   full-AOT benchmark needs): UniTaskCompletionSource's four reads of its lock gate become
   `Volatile.Read(ref gate)`, the same acquire read (a path with two or more continuations, not
   measured).

Usage: unitask_patch.py <copy of the package's Runtime directory>. Fails when a rewrite finds
nothing to rewrite (another UniTask version)."""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])


def sub(path, pat, rep):
    p = root / path
    s = p.read_text(encoding="utf-8-sig")
    s2, n = re.subn(pat, rep, s)
    if n == 0:
        sys.exit("unitask_patch: no match in %s for %r" % (path, pat))
    p.write_text(s2, encoding="utf-8")


changed = 0
for f in root.rglob("*.cs"):
    s = f.read_text(encoding="utf-8-sig")
    s2 = re.sub(r"public ref (.+?) NextNode (?:=> ref nextNode;|\{ get \{ return ref nextNode; \} \})",
                r"public \1 NextNode { get { return nextNode; } set { nextNode = value; } }", s)
    # The explicit form (AsyncReactiveProperty's WaitAsyncSource).
    s2 = re.sub(r"ref (\w+) (ITaskPoolNode<\1>)\.NextNode => ref nextNode;",
                r"\1 \2.NextNode { get { return nextNode; } set { nextNode = value; } }", s2)
    if s2 != s:
        f.write_text(s2, encoding="utf-8")
        changed += 1
if changed == 0:
    sys.exit("unitask_patch: no NextNode property found")
sub("TaskPool.cs", r"ref T NextNode \{ get; \}", "T NextNode { get; set; }")
sub("TaskPool.cs", r"ref var nextNode = ref v\.NextNode;\s*root = nextNode;\s*nextNode = null;",
    "root = v.NextNode;")
sub("UniTaskCompletionSource.cs", r"\(Action<object>, object\)", "ValueTuple<Action<object>, object>")
sub("UniTaskCompletionSource.cs", r"foreach \(var \(c, state\) in secondaryContinuationList\)\s*\{",
    "foreach (var cs in secondaryContinuationList)\n{ var c = cs.Item1; var state = cs.Item2;")
sub("PlayerLoopHelper.cs", r"applicationDataPath = Application\.dataPath;", "applicationDataPath = \"\";")
sub("UniTaskScheduler.cs", r"UnityEngine\.Debug\.LogAssertion\(", "UnityEngine.Debug.LogError(")
sub("Internal/RuntimeHelpersAbstraction.cs",
    r"\n\s*if \(t == typeof\((?:Vector2|Vector3|Vector4|Color|Rect|Bounds|Quaternion|Vector2Int|Vector3Int)\)\) return true;", "")
for t in ("UniTask", "UniTask<T>"):
    sub("UniTask.cs",
        r"public readonly struct Awaiter : ICriticalNotifyCompletion\s*\{\s*readonly %s task;" % re.escape(t),
        "public struct Awaiter : ICriticalNotifyCompletion\n        {\n            %s task;" % t)
p = root / "Linq/AsyncEnumeratorBase.cs"
s = p.read_text(encoding="utf-8")
i = s.index("class AsyncEnumeratorAwaitSelectorBase")
head, tail = s[:i], s[i:]
n = tail.count("(bool waitCallback, bool requireNextIteration)")
if n != 6 or "goto CONTINUE;" not in tail:
    sys.exit("unitask_patch: AsyncEnumeratorAwaitSelectorBase is not as expected (%d tuples)" % n)
tail = re.sub(r"\(bool waitCallback, bool requireNextIteration\) = ((?:self\.)?TryMoveNextCore\([^;]*\));",
              r"int moveNextCode = \1; bool waitCallback = (moveNextCode & 1) != 0, requireNextIteration = (moveNextCode & 2) != 0;", tail)
tail = tail.replace("(bool waitCallback, bool requireNextIteration)", "int")
for a, b, v in (("false", "false", 0), ("true", "false", 1), ("false", "true", 2)):
    tail = tail.replace("return (%s, %s);" % (a, b), "return %d;" % v)
tail = tail.replace("TryMoveNextCore(bool sourceHasCurrent, out bool result)\n        {",
                    "TryMoveNextCore(bool sourceHasCurrent, out bool result)\n        {\n            result = false;", 1)
tail = tail.replace("CONTINUE:", "", 1).replace("goto CONTINUE;", "SourceMoveNext(); return;", 1)
p.write_text(head + tail, encoding="utf-8")
sub("UniTaskCompletionSource.cs", r"Thread\.VolatileRead\(ref gate\)", "Volatile.Read(ref gate)")
