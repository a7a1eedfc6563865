#!/usr/bin/env python3
"""Every relative link of the front pages and docs/ resolves.

Checks `[text](target)` and `![alt](target)` outside code blocks in README.md, BENCHMARKS.md,
bindings/README.md and docs/*.md: the target file exists (relative to the page), and an
`#anchor` (on its own or after a .md target) names a heading of that page (GitHub's slugs).
Links with a scheme (https:, mailto:) are not followed. One check per link; ends with
"doc-links: N passed, N failed". `--self-test` checks that broken links and anchors fail.
"""
import glob
import os
import re
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGES = ["README.md", "BENCHMARKS.md", "bindings/README.md"]
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def prose(text):
    """The page without fenced code blocks and inline code spans."""
    out, fenced = [], False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            out.append(re.sub(r"`[^`]*`", "", line))
    return out


def slugs(path):
    """GitHub's anchors of a page's headings."""
    seen, out, fenced = {}, set(), False
    for line in open(path, encoding="utf-8").read().split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        m = None if fenced else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        s = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
        n = seen.get(s, 0)
        seen[s] = n + 1
        out.add(s if n == 0 else "%s-%d" % (s, n))
    return out


def check_page(page):
    """[(link, error or None)] for one page."""
    results = []
    base = os.path.dirname(page)
    for line in prose(open(page, encoding="utf-8").read()):
        for target in LINK.findall(line):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue
            path, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(base, path)) if path else page
            if not os.path.exists(dest):
                results.append((target, "no such file: " + os.path.relpath(dest, ROOT)))
            elif anchor and dest.endswith(".md") and anchor not in slugs(dest):
                results.append((target, "no heading for #%s in %s" % (anchor, os.path.relpath(dest, ROOT))))
            else:
                results.append((target, None))
    return results


def pages(root):
    return [os.path.join(root, p) for p in PAGES if os.path.exists(os.path.join(root, p))] + sorted(
        glob.glob(os.path.join(root, "docs", "*.md")))


def run(root):
    passed, failed, fails = 0, 0, []
    for page in pages(root):
        for target, err in check_page(page):
            if err:
                failed += 1
                fails.append("%s: (%s) %s" % (os.path.relpath(page, root), target, err))
            else:
                passed += 1
    return passed, failed, fails


def self_test():
    """Broken files and anchors fail; good ones, code and URLs pass."""
    cases = [
        ("[a](b.md)", 0, 1), ("[a](ok.md)", 1, 0), ("[a](ok.md#one-two)", 1, 0), ("[a](ok.md#nope)", 0, 1),
        ("[a](#here)", 1, 0), ("[a](#there)", 0, 1), ("![c](pic/missing.svg)", 0, 1),
        ("`[a](b.md)`", 0, 0), ("[a](https://example.invalid/x)", 0, 0),
    ]
    passed, failed = 0, 0
    for text, want_pass, want_fail in cases:
        with tempfile.TemporaryDirectory() as d:
            open(os.path.join(d, "ok.md"), "w").write("# One, two\n")
            page = os.path.join(d, "README.md")
            open(page, "w").write("# Here\n\n" + text + "\n")
            got = check_page(page)
            p = sum(1 for _, e in got if e is None)
            f = len(got) - p
        if (p, f) == (want_pass, want_fail):
            passed += 1
        else:
            failed += 1
            print("self-test: %r gave %d passed, %d failed" % (text, p, f), file=sys.stderr)
    print("doc-links-self-test: %d passed, %d failed" % (passed, failed))
    return failed == 0


def main():
    if "--self-test" in sys.argv:
        sys.exit(0 if self_test() else 1)
    passed, failed, fails = run(ROOT)
    for f in fails:
        print(f, file=sys.stderr)
    print("doc-links: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
