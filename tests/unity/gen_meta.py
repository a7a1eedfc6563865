#!/usr/bin/env python3
"""Writes (or, with --check, verifies) the Unity .meta file of every file and folder of the
package (bindings/) and of the sample project's Assets (unity-sample/Assets).

Unity needs a .meta next to every asset of an immutable package (git URL, registry) and keeps
references by the GUID in it, so GUIDs must be stable: each is the MD5 of a fixed prefix and the
path relative to the package/project root, never random.

Native plugins: Unity deletes a .meta whose asset is missing, so the import settings of the
plugins (PluginImporter settings per platform, and the folder metas above them) are committed as
templates under bindings/Plugins~/ (a folder Unity never imports); scripts/build-plugins.sh
copies each template beside the binary it builds in bindings/Plugins/ (git-ignored, generated).
Template paths: Plugins~/Plugins.meta is bindings/Plugins.meta; Plugins~/<rel>.meta is
bindings/Plugins/<rel>.meta.

--check exits 1 when a .meta or template is missing, different from what this script writes, or
orphaned (no asset and not a known plugin), when bindings/Plugins holds a .meta without its
binary or a binary without its .meta, and when a scene references a GUID no .meta defines.
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
    (Linux64/Win64/OSXUniversal), android (True), ios (True), defines (the define constraints:
    the plugin is part of a build only where they all hold)."""
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
         "  iconMap: {}\n  executionOrder: {}\n  defineConstraints:%s\n  isPreloaded: 0\n  isOverridable: 0\n"
         "  isExplicitlyReferenced: 0\n  validateReferences: 1\n  platformData:\n"
         % (g, "".join("\n  - " + d for d in platforms.get("defines", ())) or " []"))
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
TEMPLATES = "Plugins~"

PLUGINS = {
    "Plugins/x86_64/libonity.so": {"editor_os": "Linux", "standalone": "Linux64"},
    "Plugins/x86_64/onity.dll": {"editor_os": "Windows", "standalone": "Win64"},
    "Plugins/macOS/libonity.dylib": {"editor_os": "OSX", "standalone": "OSXUniversal"},
    "Plugins/Android/arm64-v8a/libonity.so": {"android": True},
    # Linked into the player by IL2CPP only: Unity's Mono players load shared libraries alone.
    "Plugins/Android/arm64-v8a/libonity.a": {"android": True, "defines": ["ENABLE_IL2CPP"]},
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


def expected_metas(root, prefix, plugins=None, include_tilde=False, skip=()):
    """{meta path: content} for every asset under root (folders ending in ~ are walked when
    include_tilde, for Samples~, whose content Unity copies into a project with its metas)."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        keep = []
        for d in sorted(dirnames):
            if d.startswith(".") or (rel_dir == "." and d in skip):
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
    return out


def plugin_templates(pkg, prefix):
    """{template path under Plugins~: content} for every plugin and every folder above it."""
    out = {}
    tpl = os.path.join(pkg, TEMPLATES)
    for rel, platforms in PLUGINS.items():
        out[os.path.join(tpl, os.path.relpath(rel, "Plugins")) + ".meta"] = plugin(guid(prefix, rel), platforms)
        d = os.path.dirname(rel)
        while d:
            name = "Plugins.meta" if d == "Plugins" else os.path.relpath(d, "Plugins") + ".meta"
            out.setdefault(os.path.join(tpl, name), importer_for(d, True, guid(prefix, d)))
            d = os.path.dirname(d)
    return out


def template_for(pkg, generated):
    """The template path of a generated meta under bindings/ (Plugins.meta or Plugins/...)."""
    rel = os.path.relpath(generated, pkg)
    if rel == "Plugins.meta":
        return os.path.join(pkg, TEMPLATES, "Plugins.meta")
    return os.path.join(pkg, TEMPLATES, os.path.relpath(rel, "Plugins"))


def check_generated_plugins(pkg):
    """Problems in bindings/Plugins (generated by scripts/build-plugins.sh): each binary has the
    template's meta beside it, no meta is left without its asset (Unity would delete it)."""
    problems = []
    plug = os.path.join(pkg, "Plugins")
    if not os.path.isdir(plug):
        return problems
    for dirpath, dirnames, filenames in os.walk(plug):
        for f in sorted(filenames):
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, pkg)
            if f.endswith(".meta"):
                asset = path[:-5]
                if not os.path.exists(asset):
                    problems.append("plugin meta without its asset: " + rel)
                    continue
                if rel.replace(os.sep, "/")[:-5] not in PLUGINS and not os.path.isdir(asset):
                    continue  # e.g. SHA256SUMS.txt.meta, checked by the package script
                tpl = template_for(pkg, path)
                if not os.path.exists(tpl) or open(tpl).read() != open(path).read():
                    problems.append("plugin meta differs from its template: " + rel)
            elif rel.replace(os.sep, "/") in PLUGINS and not os.path.exists(path + ".meta"):
                problems.append("plugin without its meta (run scripts/build-plugins.sh): " + rel)
        for d in dirnames:
            m = os.path.join(dirpath, d) + ".meta"
            if not os.path.exists(m):
                problems.append("plugin folder without its meta: " + os.path.relpath(m, pkg))
    return problems


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
    # Plugins/ is generated by scripts/build-plugins.sh; Plugins~/ holds its templates.
    want.update(expected_metas(pkg, "com.onity.native", include_tilde=True, skip=("Plugins", TEMPLATES)))
    want.update(plugin_templates(pkg, "com.onity.native"))
    if os.path.isdir(assets):
        want.update(expected_metas(assets, "onity-unity-sample"))
    have = {m for m in existing_metas(pkg) if not os.path.relpath(m, pkg).startswith("Plugins" + os.sep)
            and os.path.relpath(m, pkg) != "Plugins.meta"}
    have |= existing_metas(assets) if os.path.isdir(assets) else set()
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
    problems += check_generated_plugins(pkg)
    for p in problems:
        print(p)
    if check:
        print("meta check: %d files, %d problems" % (len(want), len(problems)))
        return 1 if problems else 0
    print("wrote/verified %d .meta files" % len(want))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
