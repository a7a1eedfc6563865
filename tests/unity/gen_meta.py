#!/usr/bin/env python3
"""Writes (or, with --check, verifies) the Unity .meta file of every file and folder of the
package (bindings/) and of the sample project's Assets (unity-sample/Assets).

Unity needs a .meta next to every asset of an immutable package (git URL, registry) and keeps
references by the GUID in it, so GUIDs must be stable: each is the MD5 of a fixed prefix and the
path relative to the package/project root, never random. Native plugins get PluginImporter
settings per platform; their binaries are build outputs (bindings/Plugins/.gitignore) but their
.meta files are committed, so the list of plugin paths is fixed here.

--check exits 1 when a .meta is missing, different from what this script writes, or orphaned
(no asset and not a known plugin), and when a scene references a GUID no .meta defines.
"""
import hashlib
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

TAIL = "  userData: \n  assetBundleName: \n  assetBundleVariant: \n"


def guid(prefix, rel):
    return hashlib.md5((prefix + ":" + rel.replace(os.sep, "/")).encode()).hexdigest()


def simple(g, importer, folder=False):
    head = "fileFormatVersion: 2\nguid: %s\n" % g
    if folder:
        head += "folderAsset: yes\n"
    return head + importer + ":\n  externalObjects: {}\n" + TAIL


def mono(g):
    return ("fileFormatVersion: 2\nguid: %s\nMonoImporter:\n  externalObjects: {}\n  serializedVersion: 2\n"
            "  defaultReferences: []\n  executionOrder: 0\n  icon: {instanceID: 0}\n" % g) + TAIL


def plugin(g, platforms):
    """platforms: dict of the enabled targets: editor_os (Linux/Windows/OSX), standalone
    (Linux64/Win64/OSXUniversal), android (True), ios (True)."""
    editor_os = platforms.get("editor_os")
    standalone = platforms.get("standalone")
    excl = {
        "Android": 0 if platforms.get("android") else 1,
        "Editor": 0 if editor_os else 1,
        "Linux64": 0 if standalone == "Linux64" else 1,
        "OSXUniversal": 0 if standalone == "OSXUniversal" else 1,
        "Win": 1,
        "Win64": 0 if standalone == "Win64" else 1,
        "iOS": 0 if platforms.get("ios") else 1,
    }
    s = ("fileFormatVersion: 2\nguid: %s\nPluginImporter:\n  externalObjects: {}\n  serializedVersion: 2\n"
         "  iconMap: {}\n  executionOrder: {}\n  defineConstraints: []\n  isPreloaded: 0\n  isOverridable: 0\n"
         "  isExplicitlyReferenced: 0\n  validateReferences: 1\n  platformData:\n" % g)
    s += "  - first:\n      : Any\n    second:\n      enabled: 0\n      settings:\n"
    for k in sorted(excl):
        s += "        Exclude %s: %d\n" % (k, excl[k])
    s += "  - first:\n      Any: \n    second:\n      enabled: 0\n      settings: {}\n"
    if platforms.get("android"):
        s += "  - first:\n      Android: Android\n    second:\n      enabled: 1\n      settings:\n        AndroidSharedLibraryType: Executable\n        CPU: ARM64\n"
    cpu = "AnyCPU" if editor_os == "OSX" else "x86_64"
    s += "  - first:\n      Editor: Editor\n    second:\n      enabled: %d\n      settings:\n" % (1 if editor_os else 0)
    s += "        CPU: %s\n        DefaultValueInitialized: true\n        OS: %s\n" % (cpu if editor_os else "x86_64", editor_os or "AnyOS")
    for sa in ("Linux64", "OSXUniversal", "Win", "Win64"):
        on = standalone == sa
        scpu = ("AnyCPU" if sa == "OSXUniversal" else "x86_64") if on else "None"
        s += "  - first:\n      Standalone: %s\n    second:\n      enabled: %d\n      settings:\n        CPU: %s\n" % (sa, 1 if on else 0, scpu)
    if platforms.get("ios"):
        s += ("  - first:\n      iPhone: iOS\n    second:\n      enabled: 1\n      settings:\n"
              "        AddToEmbeddedBinaries: false\n        CPU: AnyCPU\n        CompileFlags: \n        FrameworkDependencies: \n")
    return s + TAIL


# Native plugins (relative to bindings/): the binaries are built, the .meta files committed.
PLUGINS = {
    "Plugins/x86_64/libonity.so": {"editor_os": "Linux", "standalone": "Linux64"},
    "Plugins/x86_64/onity.dll": {"editor_os": "Windows", "standalone": "Win64"},
    "Plugins/macOS/libonity.dylib": {"editor_os": "OSX", "standalone": "OSXUniversal"},
    "Plugins/Android/arm64-v8a/libonity.so": {"android": True},
    "Plugins/iOS/libonity.a": {"ios": True},
}


def importer_for(rel, is_dir, g):
    if is_dir:
        return simple(g, "DefaultImporter", folder=True)
    ext = os.path.splitext(rel)[1].lower()
    base = os.path.basename(rel)
    if ext == ".cs":
        return mono(g)
    if ext == ".asmdef":
        return simple(g, "AssemblyDefinitionImporter")
    if base == "package.json":
        return simple(g, "PackageManifestImporter")
    if ext in (".md", ".txt", ".json", ".xml", ".yaml", ".bytes"):
        return simple(g, "TextScriptImporter")
    return simple(g, "DefaultImporter")


def hidden(name):
    # Unity skips these in Assets and packages: dot files/folders, names ending in ~, cvs, *.tmp.
    return name.startswith(".") or name.endswith("~") or name.lower() == "cvs" or name.endswith(".tmp")


def expected_metas(root, prefix, plugins=None, include_tilde=False):
    """{meta path: content} for every asset under root (folders ending in ~ are walked when
    include_tilde, for Samples~, whose content Unity copies into a project with its metas)."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        keep = []
        for d in sorted(dirnames):
            if d.startswith("."):
                continue
            if hidden(d) and not (include_tilde and d.endswith("~")):
                continue
            keep.append(d)
            if not d.endswith("~"):
                rel = os.path.normpath(os.path.join(rel_dir, d))
                out[os.path.join(root, rel) + ".meta"] = importer_for(rel, True, guid(prefix, rel))
        dirnames[:] = keep
        for f in sorted(filenames):
            if hidden(f) or f.endswith(".meta"):
                continue
            rel = os.path.normpath(os.path.join(rel_dir, f))
            if plugins and rel.replace(os.sep, "/") in plugins:
                continue
            out[os.path.join(root, rel) + ".meta"] = importer_for(rel, False, guid(prefix, rel))
    for rel, platforms in (plugins or {}).items():
        out[os.path.join(root, rel) + ".meta"] = plugin(guid(prefix, rel), platforms)
        d = os.path.dirname(rel)
        while d:
            out.setdefault(os.path.join(root, d) + ".meta", importer_for(d, True, guid(prefix, d)))
            d = os.path.dirname(d)
    return out


def existing_metas(root, include_tilde=False):
    found = set()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for f in filenames:
            if f.endswith(".meta"):
                found.add(os.path.join(dirpath, f))
    return found


def main():
    check = "--check" in sys.argv
    pkg = os.path.join(ROOT, "bindings")
    assets = os.path.join(ROOT, "unity-sample", "Assets")
    want = {}
    want.update(expected_metas(pkg, "com.onity.native", PLUGINS, include_tilde=True))
    if os.path.isdir(assets):
        want.update(expected_metas(assets, "onity-unity-sample"))
    have = existing_metas(pkg) | (existing_metas(assets) if os.path.isdir(assets) else set())
    problems = []
    for path, content in sorted(want.items()):
        cur = open(path).read() if os.path.exists(path) else None
        if cur == content:
            continue
        if check:
            problems.append(("missing " if cur is None else "stale ") + os.path.relpath(path, ROOT))
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as fh:
                fh.write(content)
    for path in sorted(have - set(want)):
        if check:
            problems.append("orphan " + os.path.relpath(path, ROOT))
        else:
            os.remove(path)
    # GUIDs unique, and every GUID a scene references (scripts) is defined.
    guids = {}
    for path, content in want.items():
        g = re.search(r"^guid: ([0-9a-f]{32})$", content, re.M).group(1)
        if g in guids:
            problems.append("duplicate guid %s: %s and %s" % (g, path, guids[g]))
        guids[g] = path
    for dirpath, _, filenames in os.walk(os.path.join(ROOT, "unity-sample")):
        for f in filenames:
            if f.endswith(".unity"):
                text = open(os.path.join(dirpath, f)).read()
                for g in re.findall(r"m_Script: \{fileID: 11500000, guid: ([0-9a-f]{32}), type: 3\}", text):
                    if g not in guids:
                        problems.append("%s references unknown script guid %s" % (f, g))
    for p in problems:
        print(p)
    if check:
        print("meta check: %d files, %d problems" % (len(want), len(problems)))
        return 1 if problems else 0
    print("wrote/verified %d .meta files" % len(want))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
