#!/usr/bin/env python3
"""Generates bindings/Runtime/Linq/OnityAsyncEnumerable.<Group>.g.cs (AwaitOperators,
AwaitTerminals, Terminals, Sum, Average, Min, Max, CombineLatest, OrderByAwait, Combinators): the repetitive overload families of the async LINQ operators (UniTask's UniTaskAsyncEnumerable names, Onity types):

- the asynchronous operator forms: WhereAwait, SelectAwait, TakeWhileAwait, SkipWhileAwait
  (each: element / element+index, and ...AwaitWithCancellation with the token) and
  DistinctUntilChangedAwait(WithCancellation), over Linq/OnityAwaitOperators.cs;
- Any/All/Count/LongCount/First/FirstOrDefault/Last/LastOrDefault/Single/SingleOrDefault without
  and with a predicate (Any/All/Count also with an awaited one), and ToDictionary / ToLookup with and without an element selector and a comparer (Terminals),
  over the ...Core methods of OnityAsyncEnumerable.Terminals.cs / Consumers.cs;
- First/FirstOrDefault/Last/LastOrDefault/Single/SingleOrDefault/LongCount with an awaited
  predicate (...AwaitAsync, ...AwaitWithCancellationAsync): the terminal over WhereAwait; and
  ToDictionaryAwaitAsync / ToLookupAwaitAsync (and ...AwaitWithCancellationAsync), over the
  cores of OnityAsyncEnumerable.Join.cs (AwaitTerminals);
- the numeric aggregates SumAsync, AverageAsync, MinAsync, MaxAsync for int, long, float,
  double, decimal and their nullable forms, each with a selector, an awaited selector
  (...AwaitAsync) and one taking the token (...AwaitWithCancellationAsync); the generic
  MinAsync/MaxAsync (Comparer<T>.Default);
- CombineLatest of 3 to 15 sources, composed from the two-source CombineLatest;
- OrderByAwait, OrderByDescendingAwait, ThenByAwait, ThenByDescendingAwait and their
  WithCancellation forms, with and without a comparer (OrderByAwait);
- Union, Except, Intersect (with and without a comparer) and TakeUntil(Canceled),
  SkipUntil(Canceled) (Combinators).

Semantics are UniTask's (read from its documented behaviour): Sum adds unchecked; Average adds
checked in the element type and divides by the count (an empty int/long/float/double stream gives
NaN, an empty decimal one throws DivideByZeroException; nulls are skipped); Min/Max of an empty
non-nullable numeric stream throw InvalidOperationException, of a nullable one give null, the
generic ones give default(T). One deliberate difference: a nullable Sum adds the non-null values
(UniTask 2.2.5 starts it at null, so it always returns null).

Usage: scripts/gen_csharp_linq.py [--check]   (--check: exit 1 when the file differs)"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIR = os.path.join(ROOT, "bindings", "Runtime", "Linq")

L = []


def w(s=""):
    L.append(s)


def arg_check(names):
    w("            if (source == null) throw new ArgumentNullException(\"source\");")
    for n in names:
        w("            if (%s == null) throw new ArgumentNullException(\"%s\");" % (n, n))


def with_default(head, default_tail, forward, comparer_tail, body):
    """An overload family's pair: `head + default_tail` forwarding to `forward` (the default
    comparer), then `head + comparer_tail` with the lines of `body` (arg_check calls or strings)."""
    w(head + default_tail)
    w("        {")
    w("            return %s;" % forward)
    w("        }")
    w()
    w(head + comparer_tail)
    w("        {")
    for line in body:
        if callable(line):
            line()
        else:
            w(line)
    w("        }")
    w()


# ---- asynchronous operator forms ------------------------------------------------------------
SHAPES = [  # (method suffix, parameter types before the result task, lambda call)
    ("Await", "{T}", "(x, i, ct) => {f}(x)"),
    ("Await", "{T}, int", "(x, i, ct) => {f}(x, i)"),
    ("AwaitWithCancellation", "{T}, CancellationToken", "(x, i, ct) => {f}(x, ct)"),
    ("AwaitWithCancellation", "{T}, int, CancellationToken", "(x, i, ct) => {f}(x, i, ct)"),
]


def await_ops():
    filters = [("Where", "RentWhere", "The elements for which the awaited predicate is true"),
               ("TakeWhile", "RentTakeWhile", "The elements while the awaited predicate is true (the stream ends at the first false)"),
               ("SkipWhile", "RentSkipWhile", "The elements from the first for which the awaited predicate is false on")]
    for name, rent, doc in filters:
        for suffix, params, call in SHAPES:
            w("        /// <summary>%s (%s%s).</summary>" % (doc, "with the index, " if "int" in params else "",
                                                              "the enumeration's token given to it" if "Cancellation" in params else "awaited before the next pull"))
            w("        public static IOnityAsyncEnumerable<T> %s%s<T>(this IOnityAsyncEnumerable<T> source, Func<%s, OnityTask<bool>> predicate)" % (name, suffix, params.format(T="T")))
            w("        {")
            arg_check(["predicate"])
            w("            return new OnityAwaitStream<T, bool, T>(source, %s, OnityAwaitFilter<T>.%s);" % (call.format(f="predicate"), rent))
            w("        }")
            w()
    for suffix, params, call in SHAPES:
        w("        /// <summary>Each element mapped by the awaited selector%s.</summary>" % (" (with the index)" if "int" in params else ""))
        w("        public static IOnityAsyncEnumerable<TResult> Select%s<TSource, TResult>(this IOnityAsyncEnumerable<TSource> source, Func<%s, OnityTask<TResult>> selector)" % (suffix, params.format(T="TSource")))
        w("        {")
        arg_check(["selector"])
        w("            return new OnityAwaitStream<TSource, TResult, TResult>(source, %s, OnityAwaitSelect<TSource, TResult>.RentSelect);" % call.format(f="selector"))
        w("        }")
        w()
    for suffix, params, call in (SHAPES[0], SHAPES[2]):
        for comparer in (False, True):
            w("        /// <summary>The elements whose awaited key differs from the previous element's%s.</summary>" % (" by the comparer" if comparer else ""))
            w("        public static IOnityAsyncEnumerable<T> DistinctUntilChanged%s<T, TKey>(this IOnityAsyncEnumerable<T> source, Func<%s, OnityTask<TKey>> keySelector%s)"
              % (suffix, params.format(T="T"), ", IEqualityComparer<TKey> comparer" if comparer else ""))
            w("        {")
            arg_check(["keySelector"] + (["comparer"] if comparer else []))
            w("            return new OnityAwaitStream<T, TKey, T>(source, %s, OnityAwaitDistinct<T, TKey>.RentDistinct, %s);"
              % (call.format(f="keySelector"), "comparer" if comparer else "EqualityComparer<TKey>.Default"))
            w("        }")
            w()


# ---- numeric aggregates -----------------------------------------------------------------------
NUMS = ["int", "long", "float", "double", "decimal"]
AVG = {"int": "double", "long": "double", "float": "float", "double": "double", "decimal": "decimal"}


def avg_return(n):
    if n in ("int", "long"):
        return "(double)sum / count"
    if n == "float":
        return "(float)(sum / count)"
    return "sum / count"


def aggregate(op, n, nullable):
    t = n + ("?" if nullable else "")
    r = (AVG[n] if op == "Average" else n) + ("?" if nullable else "")
    core = "%sCore%s%s" % (op, n.capitalize(), "N" if nullable else "")
    doc = {"Sum": "The sum of the %s", "Average": "The average of the %s",
           "Min": "The smallest of the %s", "Max": "The largest of the %s"}[op]
    what = "elements" if True else ""
    w("        /// <summary>%s (UniTask's semantics: see scripts/gen_csharp_linq.py).</summary>" % (doc % what))
    w("        public static OnityTask<%s> %sAsync(this IOnityAsyncEnumerable<%s> source, CancellationToken cancellationToken = default(CancellationToken))" % (r, op, t))
    w("        {")
    arg_check([])
    w("            return %s(source, cancellationToken);" % core)
    w("        }")
    w()
    for suffix, sel, via in (("", "Func<TSource, %s>" % t, "Select"),
                             ("Await", "Func<TSource, OnityTask<%s>>" % t, "SelectAwait"),
                             ("AwaitWithCancellation", "Func<TSource, CancellationToken, OnityTask<%s>>" % t, "SelectAwaitWithCancellation")):
        w("        /// <summary>%s, each element mapped by the %sselector.</summary>" % (doc % "values", "awaited " if suffix else ""))
        w("        public static OnityTask<%s> %s%sAsync<TSource>(this IOnityAsyncEnumerable<TSource> source, %s selector, CancellationToken cancellationToken = default(CancellationToken))" % (r, op, suffix, sel))
        w("        {")
        arg_check(["selector"])
        w("            return %s(source.%s(selector), cancellationToken);" % (core, via))
        w("        }")
        w()
    w("        static async OnityTask<%s> %s(IOnityAsyncEnumerable<%s> source, CancellationToken ct)" % (r, core, t))
    w("        {")
    if op == "Sum":
        w("            %s sum = 0;" % n)
    elif op == "Average":
        w("            %s sum = 0;" % n)
        w("            long count = 0;")
    else:
        w("            %s value = default(%s);" % (n, n))
        w("            bool any = false;")
    w("            var e = source.GetAsyncEnumerator(ct);")
    w("            try")
    w("            {")
    w("                while (await e.MoveNextAsync())")
    w("                {")
    w("                    var x = e.Current;")
    if nullable:
        w("                    if (!x.HasValue) continue;")
        val = "x.Value"
    else:
        val = "x"
    if op == "Sum":
        w("                    sum = unchecked(sum + %s);" % val)
    elif op == "Average":
        w("                    checked")
        w("                    {")
        w("                        sum += %s;" % val)
        w("                        count++;")
        w("                    }")
    else:
        w("                    if (!any || %s %s value)" % (val, "<" if op == "Min" else ">"))
        w("                    {")
        w("                        value = %s;" % val)
        w("                        any = true;")
        w("                    }")
    w("                }")
    w("            }")
    w("            finally")
    w("            {")
    w("                await e.DisposeAsync();")
    w("            }")
    if op == "Sum":
        w("            return sum;")
    elif op == "Average":
        w("            return %s;" % avg_return(n))
    elif nullable:
        w("            return any ? value : (%s)null;" % r)
    else:
        w("            if (!any) throw NoElements();")
        w("            return value;")
    w("        }")
    w()


def generic_minmax(op):
    sign = "> 0" if op == "Min" else "< 0"
    w("        /// <summary>The %s element by Comparer&lt;T&gt;.Default; default(T) when the stream is empty.</summary>" % ("smallest" if op == "Min" else "largest"))
    w("        public static OnityTask<TSource> %sAsync<TSource>(this IOnityAsyncEnumerable<TSource> source, CancellationToken cancellationToken = default(CancellationToken))" % op)
    w("        {")
    arg_check([])
    w("            return %sCoreGeneric(source, cancellationToken);" % op)
    w("        }")
    w()
    for suffix, sel, via in (("", "Func<TSource, TResult>", "Select"),
                             ("Await", "Func<TSource, OnityTask<TResult>>", "SelectAwait"),
                             ("AwaitWithCancellation", "Func<TSource, CancellationToken, OnityTask<TResult>>", "SelectAwaitWithCancellation")):
        w("        /// <summary>%sAsync of the values of the %sselector.</summary>" % (op, "awaited " if suffix else ""))
        w("        public static OnityTask<TResult> %s%sAsync<TSource, TResult>(this IOnityAsyncEnumerable<TSource> source, %s selector, CancellationToken cancellationToken = default(CancellationToken))" % (op, suffix, sel))
        w("        {")
        arg_check(["selector"])
        w("            return %sCoreGeneric(source.%s(selector), cancellationToken);" % (op, via))
        w("        }")
        w()
    w("        static async OnityTask<T> %sCoreGeneric<T>(IOnityAsyncEnumerable<T> source, CancellationToken ct)" % op)
    w("        {")
    w("            var comparer = Comparer<T>.Default;")
    w("            T value = default(T);")
    w("            bool any = false;")
    w("            var e = source.GetAsyncEnumerator(ct);")
    w("            try")
    w("            {")
    w("                while (await e.MoveNextAsync())")
    w("                {")
    w("                    var x = e.Current;")
    w("                    if (!any || comparer.Compare(value, x) %s)" % sign)
    w("                    {")
    w("                        value = x;")
    w("                        any = true;")
    w("                    }")
    w("                }")
    w("            }")
    w("            finally")
    w("            {")
    w("                await e.DisposeAsync();")
    w("            }")
    w("            return value;")
    w("        }")
    w()


# ---- awaited predicate forms of the terminals: the terminal over WhereAwait ----------------
TERMINALS = [  # (name, result type, core call with {s} the filtered source, doc)
    ("First", "T", "FirstCore({s}, null, true, cancellationToken)", "The first element matching the awaited predicate"),
    ("FirstOrDefault", "T", "FirstCore({s}, null, false, cancellationToken)", "The first element matching the awaited predicate, or default(T)"),
    ("Last", "T", "LastCore({s}, true, true, cancellationToken)", "The last element matching the awaited predicate"),
    ("LastOrDefault", "T", "LastCore({s}, false, true, cancellationToken)", "The last element matching the awaited predicate, or default(T)"),
    ("Single", "T", "SingleCore({s}, true, true, cancellationToken)", "The only element matching the awaited predicate"),
    ("SingleOrDefault", "T", "SingleCore({s}, false, true, cancellationToken)", "The only element matching the awaited predicate, or default(T)"),
    ("LongCount", "long", "LongCountCore({s}, long.MaxValue, cancellationToken)", "The number of elements matching the awaited predicate"),
]


# Terminals over an optional predicate: (name, result type, {form: (core call, doc or None)}), the
# forms: "" no predicate, "sync" Func<T, bool>, "Await" / "AwaitWithCancellation" an awaited one.
PREDICATE_FORMS = [  # (form, method suffix, predicate parameter)
    ("", "", None),
    ("sync", "", "Func<T, bool>"),
    ("Await", "Await", "Func<T, OnityTask<bool>>"),
    ("AwaitWithCancellation", "AwaitWithCancellation", "Func<T, CancellationToken, OnityTask<bool>>"),
]
PREDICATED = [
    ("Any", "bool", {
        "": ("AnyCore(source, null, cancellationToken)", "True when the stream has an element (the enumeration stops at the first)."),
        "sync": ("AnyCore(source, predicate, cancellationToken)", "True when an element matches (stops at it)."),
        "Await": ("AnyCore(source.WhereAwait(predicate), null, cancellationToken)", None),
        "AwaitWithCancellation": ("AnyCore(source.WhereAwaitWithCancellation(predicate), null, cancellationToken)", None)}),
    ("All", "bool", {
        "sync": ("AllCore(source, predicate, cancellationToken)", "True when every element matches (stops at the first that does not)."),
        "Await": ("AllCore(source.SelectAwait(predicate), IsTrue, cancellationToken)", None),
        "AwaitWithCancellation": ("AllCore(source.SelectAwaitWithCancellation(predicate), IsTrue, cancellationToken)", None)}),
    ("Count", "int", {
        "": ("CountCore(source, cancellationToken)", "The number of elements (checked: OverflowException past int.MaxValue)."),
        "sync": ("CountCore(source.Where(predicate), cancellationToken)", None),
        "Await": ("CountCore(source.WhereAwait(predicate), cancellationToken)", None),
        "AwaitWithCancellation": ("CountCore(source.WhereAwaitWithCancellation(predicate), cancellationToken)", None)}),
    ("LongCount", "long", {  # (the awaited forms: TERMINALS)
        "": ("LongCountCore(source, long.MaxValue, cancellationToken)", "The number of elements as a long."),
        "sync": ("LongCountCore(source.Where(predicate), long.MaxValue, cancellationToken)", None)}),
    ("First", "T", {
        "": ("FirstCore(source, null, true, cancellationToken)", "The first element; <see cref=\"InvalidOperationException\"/> when the stream ends without one. Stops the enumeration (disposes it) at that element."),
        "sync": ("FirstCore(source, predicate, true, cancellationToken)", "The first element matching <paramref name=\"predicate\"/>; throws when there is none.")}),
    ("FirstOrDefault", "T", {
        "": ("FirstCore(source, null, false, cancellationToken)", "The first element, or default(T) when the stream ends without one."),
        "sync": ("FirstCore(source, predicate, false, cancellationToken)", "The first element matching <paramref name=\"predicate\"/>, or default(T).")}),
    ("Last", "T", {
        "": ("LastCore(source, true, false, cancellationToken)", "The last element; InvalidOperationException when there is none."),
        "sync": ("LastCore(source.Where(predicate), true, true, cancellationToken)", "The last element matching <paramref name=\"predicate\"/>; InvalidOperationException when there is none.")}),
    ("LastOrDefault", "T", {
        "": ("LastCore(source, false, false, cancellationToken)", "The last element, or default(T) when there is none."),
        "sync": ("LastCore(source.Where(predicate), false, true, cancellationToken)", "The last element matching <paramref name=\"predicate\"/>, or default(T).")}),
    ("Single", "T", {
        "": ("SingleCore(source, true, false, cancellationToken)", "The only element; InvalidOperationException when there is none or more than one (the enumeration stops at the second)."),
        "sync": ("SingleCore(source.Where(predicate), true, true, cancellationToken)", "The only element matching <paramref name=\"predicate\"/>; InvalidOperationException when there is none or more than one.")}),
    ("SingleOrDefault", "T", {
        "": ("SingleCore(source, false, false, cancellationToken)", "The only element, default(T) when there is none; InvalidOperationException when there are more."),
        "sync": ("SingleCore(source.Where(predicate), false, true, cancellationToken)", "The only matching element, default(T) when there is none; InvalidOperationException when there are more.")}),
]


def predicated_terminals():
    for name, result, forms in PREDICATED:
        for form, suffix, pred in PREDICATE_FORMS:
            if form not in forms:
                continue
            call, doc = forms[form]
            if doc:
                w("        /// <summary>%s</summary>" % doc)
            w("        public static OnityTask<%s> %s%sAsync<T>(this IOnityAsyncEnumerable<T> source, %sCancellationToken cancellationToken = default(CancellationToken))"
              % (result, name, suffix, pred + " predicate, " if pred else ""))
            w("        {")
            arg_check(["predicate"] if pred else [])
            w("            return %s;" % call)
            w("        }")
            w()


# ToDictionary / ToLookup: (name, result type with {E} the element type, doc, doc of the Await
# forms). The Await forms (ToDictionaryAwait, ...WithCancellation) run on ToDictionaryAwaitCore /
# ToLookupAwaitCore of OnityAsyncEnumerable.Join.cs, whose selectors take the token (Wrap adapts
# the token-less ones).
KEYED = [
    ("ToDictionary", "Dictionary<TKey, {E}>", "A Dictionary of the elements by key; ArgumentException on a duplicate key.",
     "A dictionary keyed by the awaited <paramref name=\"keySelector\"/> (a duplicate key\n        /// faults the task with ArgumentException)."),
    ("ToLookup", "System.Linq.ILookup<TKey, {E}>", "An ILookup of the elements by key (System.Linq's lookup over the gathered elements).",
     "An ILookup of the elements by the awaited <paramref name=\"keySelector\"/>."),
]


def keyed_terminals():
    for name, result, doc, _ in KEYED:
        w("        /// <summary>%s</summary>" % doc)
        for gen, E, sel, selarg in (("T, TKey", "T", "", "x => x"), ("T, TKey, TElement", "TElement", "Func<T, TElement> elementSelector, ", "elementSelector")):
            head = "        public static OnityTask<%s> %sAsync<%s>(this IOnityAsyncEnumerable<T> source, Func<T, TKey> keySelector, %s" % (result.format(E=E), name, gen, sel)
            with_default(head, "CancellationToken cancellationToken = default(CancellationToken))",
                         "%sAsync(source, keySelector, %sEqualityComparer<TKey>.Default, cancellationToken)" % (name, "elementSelector, " if sel else ""),
                         "IEqualityComparer<TKey> comparer, CancellationToken cancellationToken = default(CancellationToken))",
                         [lambda: arg_check(["keySelector"] + (["elementSelector"] if sel else []) + ["comparer"]),
                          "            return %sCore(source, keySelector, %s, comparer, cancellationToken);" % (name, selarg)])


def keyed_await_terminals():
    for name, result, _, doc in KEYED:
        w("        /// <summary>%s</summary>" % doc)
        for suffix, tok in (("Await", ""), ("AwaitWithCancellation", "CancellationToken, ")):
            for gen, E, elem in (("T, TKey", "T", False), ("T, TKey, TElement", "TElement", True)):
                sel = "Func<T, %sOnityTask<TElement>> elementSelector, " % tok if elem else ""
                head = "        public static OnityTask<%s> %s%sAsync<%s>(this IOnityAsyncEnumerable<T> source, Func<T, %sOnityTask<TKey>> keySelector, %s" % (
                    result.format(E=E), name, suffix, gen, tok, sel)
                if tok:
                    key, el = "keySelector", ("NotNull(elementSelector, \"elementSelector\")" if elem else "Sel<T>.Identity")
                else:
                    key, el = "Wrap(keySelector, \"keySelector\")", ("Wrap(elementSelector, \"elementSelector\")" if elem else "Sel<T>.Identity")
                with_default(head, "CancellationToken cancellationToken = default(CancellationToken))",
                             "%s%sAsync(source, keySelector, %sEqualityComparer<TKey>.Default, cancellationToken)" % (name, suffix, "elementSelector, " if elem else ""),
                             "IEqualityComparer<TKey> comparer, CancellationToken cancellationToken = default(CancellationToken))",
                             ["            Check(source, keySelector, \"keySelector\");",
                              "            return %sAwaitCore(source, %s, %s, NotNull(comparer), cancellationToken);" % (name, key, el)])


def terminals():
    predicated_terminals()
    keyed_terminals()


def order_by_await():
    """OrderByAwait, OrderByDescendingAwait, ThenByAwait, ThenByDescendingAwait and their
    WithCancellation forms, each with and without a comparer, over OrderedStream's key stages
    (OrderBy*) and ThenByAwaitCore (ThenBy*) of OnityAsyncEnumerable.OrderByAwait.cs."""
    verbs = [("OrderBy", "IOnityAsyncEnumerable<T>", "The elements sorted by an awaited key{desc} (stable)",
              "new OrderedStream<T>(source, new KeyStage<T, TKey>(null, null, {key}, comparer ?? Comparer<TKey>.Default, {d}))"),
             ("ThenBy", "IOnityOrderedAsyncEnumerable<T>", "Refines the order by an awaited key{desc}",
              "ThenByAwaitCore(source, {key}, comparer, {d})")]
    for verb, src, doc, core in verbs:
        for desc in (False, True):
            for suffix, tok in (("Await", ""), ("AwaitWithCancellation", "CancellationToken, ")):
                name = verb + ("Descending" if desc else "") + suffix
                text = doc.format(desc=", descending" if desc else "")
                if verb == "ThenBy" and not desc:
                    text += " (on an ordering made by this package's OrderBy* / ThenBy*)"
                text += "; the selector is handed the enumeration's token." if tok else "."
                sel = "Func<T, %sOnityTask<TKey>> keySelector" % tok
                w("        /// <summary>%s</summary>" % text)
                key = "keySelector" if tok else "Wrap(keySelector, \"keySelector\")"
                with_default("        public static IOnityOrderedAsyncEnumerable<T> %s<T, TKey>(this %s source, %s" % (name, src, sel), ")",
                             "%s(source, keySelector, Comparer<TKey>.Default)" % name, ", IComparer<TKey> comparer)",
                             ["            Check(source, keySelector, \"keySelector\");",
                              "            return %s;" % core.format(key=key, d="true" if desc else "false")])


# Union / Except / Intersect: (name, doc), each over its NameProducer of OnityAsyncEnumerable.Combinators.cs.
SET_OPERATORS = [
    ("Union", "The distinct elements of <paramref name=\"first\"/>, then those of <paramref name=\"second\"/> not seen."),
    ("Except", "The distinct elements of <paramref name=\"first\"/> not in <paramref name=\"second\"/>\n        /// (which is enumerated whole first)."),
    ("Intersect", "The distinct elements of <paramref name=\"first\"/> that are in <paramref name=\"second\"/>\n        /// (enumerated whole first)."),
]
# TakeUntil / SkipUntil forms: (name, take, docs of the token, task and task-factory forms), over
# UntilStream of OnityAsyncEnumerable.Until.cs.
UNTIL = [
    ("Take", "true", [
        "The elements until <paramref name=\"cancellationToken\"/> is canceled: then the\n        /// stream ends (MoveNextAsync gives false), at once even while a MoveNextAsync waits for the\n        /// source (its late element is dropped).",
        "The elements until <paramref name=\"other\"/> completes: then the stream ends, at\n        /// once even while a MoveNextAsync waits; a failed or canceled task faults or cancels it with\n        /// its exception instead (as UniTask's). The task is awaited once: enumerate such a stream\n        /// once.",
        "TakeUntil with the task made, at the enumeration's start, by <paramref name=\"other\"/>\n        /// from the enumeration's token."]),
    ("Skip", "false", [
        "The elements from the cancellation of <paramref name=\"cancellationToken\"/> on\n        /// (those before it are dropped).",
        "The elements from the completion of <paramref name=\"other\"/> on (a failed or\n        /// canceled task faults or cancels the stream with its exception).",
        None]),
]


def combinators():
    for name, doc in SET_OPERATORS:
        pair = "this IOnityAsyncEnumerable<T> first, IOnityAsyncEnumerable<T> second"
        w("        /// <summary>%s</summary>" % doc)
        with_default("        public static IOnityAsyncEnumerable<T> %s<T>(%s" % (name, pair), ")",
                     "%s(first, second, EqualityComparer<T>.Default)" % name, ", IEqualityComparer<T> comparer)",
                     ["            CheckPair(first, second, comparer, \"comparer\");",
                      "            return Create<T>((w, ct) => %sProducer(first, second, comparer, w, ct));" % name])
    for verb, take, docs in UNTIL:
        forms = [("UntilCanceled", "CancellationToken cancellationToken", "CheckSource(source);", "cancellationToken, null"),
                 ("Until", "OnityTask other", "CheckSource(source);", "default(CancellationToken), _ => other"),
                 ("Until", "Func<CancellationToken, OnityTask> other", "Check(source, other, \"other\");", "default(CancellationToken), other")]
        for (suffix, param, check, args), doc in zip(forms, docs):
            if doc:
                w("        /// <summary>%s</summary>" % doc)
            w("        public static IOnityAsyncEnumerable<T> %s%s<T>(this IOnityAsyncEnumerable<T> source, %s)" % (verb, suffix, param))
            w("        {")
            w("            " + check)
            w("            return new UntilStream<T>(source, %s, %s);" % (take, args))
            w("        }")
            w()


def await_terminals():
    keyed_await_terminals()
    for name, r, call, doc in TERMINALS:
        for suffix, pred, via in (("Await", "Func<T, OnityTask<bool>>", "WhereAwait"),
                                  ("AwaitWithCancellation", "Func<T, CancellationToken, OnityTask<bool>>", "WhereAwaitWithCancellation")):
            w("        /// <summary>%s (%s).</summary>" % (doc, "the enumeration's token given to it" if "Cancellation" in suffix else "each awaited in turn"))
            w("        public static OnityTask<%s> %s%sAsync<T>(this IOnityAsyncEnumerable<T> source, %s predicate, CancellationToken cancellationToken = default(CancellationToken))" % (r, name, suffix, pred))
            w("        {")
            arg_check(["predicate"])
            w("            return %s;" % call.format(s="source.%s(predicate)" % via))
            w("        }")
            w()


def combine_latest():
    """CombineLatest of 3-15 sources, composed from the two-source one: the first n-1 sources
    combine into nested KeyValuePairs (left-nested), which combine with the last source."""
    def acc(i, m):
        if m == 2:
            return ".Key" if i == 1 else ".Value"
        return ".Value" if i == m else ".Key" + acc(i, m - 1)

    def pair(m):
        return "KeyValuePair<T1, T2>" if m == 2 else "KeyValuePair<%s, T%d>" % (pair(m - 1), m)

    for n in range(3, 16):
        ts = ", ".join("T%d" % k for k in range(1, n + 1))
        srcs = ", ".join("IOnityAsyncEnumerable<T%d> source%d" % (k, k) for k in range(1, n + 1))
        w("        /// <summary>CombineLatest of %d sources: once each has produced, every new element of any" % n)
        w("        /// gives resultSelector over the latest of all (composed from the two-source form).</summary>")
        w("        public static IOnityAsyncEnumerable<TResult> CombineLatest<%s, TResult>(this %s, Func<%s, TResult> resultSelector)" % (ts, srcs, ts))
        w("        {")
        for k in range(1, n + 1):
            w("            if (source%d == null) throw new ArgumentNullException(\"source%d\");" % (k, k))
        w("            if (resultSelector == null) throw new ArgumentNullException(\"resultSelector\");")
        w("            var p2 = CombineLatest(source1, source2, (a, b) => new KeyValuePair<T1, T2>(a, b));")
        for m in range(3, n):
            w("            var p%d = CombineLatest(p%d, source%d, (p, x) => new %s(p, x));" % (m, m - 1, m, pair(m)))
        args = ", ".join("p" + acc(i, n - 1) for i in range(1, n)) + ", x"
        w("            return CombineLatest(p%d, source%d, (p, x) => resultSelector(%s));" % (n - 1, n, args))
        w("        }")
        w()


def render(body):
    del L[:]
    w("// <auto-generated> by scripts/gen_csharp_linq.py: do not edit; run the script (the C# test")
    w("// command checks these files for drift with --check). </auto-generated>")
    w("using System;")
    w("using System.Collections.Generic;")
    w("using System.Threading;")
    w("using Onity.Linq;")
    w()
    w("namespace Onity")
    w("{")
    w("    public static partial class OnityAsyncEnumerable")
    w("    {")
    body()
    while L[-1] == "":
        L.pop()
    w("    }")
    w("}")
    return "\n".join(L) + "\n"


def numeric(op):
    def body():
        for n in NUMS:
            for nullable in (False, True):
                aggregate(op, n, nullable)
        if op in ("Min", "Max"):
            generic_minmax(op)
    return body


def main():
    files = {"AwaitOperators": await_ops, "AwaitTerminals": await_terminals, "Terminals": terminals, "CombineLatest": combine_latest,
             "OrderByAwait": order_by_await, "Combinators": combinators}
    for op in ("Sum", "Average", "Min", "Max"):
        files[op] = numeric(op)
    stale = []
    for name, body in files.items():
        path = os.path.join(DIR, "OnityAsyncEnumerable.%s.g.cs" % name)
        text = render(body)
        if "--check" in sys.argv:
            if not os.path.exists(path) or open(path).read() != text:
                stale.append(os.path.relpath(path, ROOT))
        else:
            open(path, "w").write(text)
    if stale:
        print("gen_csharp_linq: out of date (run scripts/gen_csharp_linq.py): " + ", ".join(stale), file=sys.stderr)
        sys.exit(1)
    if "--check" in sys.argv:
        print("async LINQ overloads up to date")


main()
