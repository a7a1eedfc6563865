#!/usr/bin/env python3
"""Builds the UPM release tarball of the Unity package: dist/com.onity.native-<version>.tgz
(Package Manager > + > Add package from tarball...), and dist/com.onity.native-<version>.tgz.sha256.

The tarball holds bindings/ under package/ (the layout Unity and npm use): the C# binding, every
native plugin of scripts/build-plugins.sh in Plugins/ beside its import settings (.meta), the
NDK recipe for an Android .so (Mono) in Plugins~/, Samples~, and SHA256SUMS.txt (with its
.meta), the SHA-256 of every other file. It is reproducible: sorted entries, fixed owner, and the
time of the last commit (or SOURCE_DATE_EPOCH) on every entry.

It also ships the sample project's scene and scripts (unity-sample/Assets, with their .meta files:
the scene refers to the scripts by GUID) as the package sample "Demo scene" (Samples~/Demo, listed
in the tarball's package.json), so the demo runs from the tarball alone: Package Manager > Onity
Native > Samples > Import, open the scene, Play; nothing to build. DemoBootstrap.cs stays out (in a
user's project it would add the demo to every scene played).

Before writing, it checks the plugins (scripts/check-plugins.py --require) and the metas
(tests/unity/gen_meta.py --check); after writing, it reads the tarball back and checks it: every
asset Unity imports has its .meta and every .meta its asset, the checksums match, the shipped
plugins are all there. Prints "package: N passed, N failed".

  scripts/package-unity.py [--out DIR] [--allow-missing]

--allow-missing packs whatever plugins exist (a partial package, for tests; its name says so).
"""
import hashlib
import importlib.util
import io
import json
import os
import re
import subprocess
import sys
import tarfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PKG = os.path.join(ROOT, "bindings")
SHIPPED = {  # check-plugins.py platform: file in the package
    "linux-x86_64": "Plugins/x86_64/libonity.so",
    "windows-x86_64": "Plugins/x86_64/onity.dll",
    "macos-universal": "Plugins/macOS/libonity.dylib",
    "ios-arm64": "Plugins/iOS/libonity.a",
    "android-arm64": "Plugins/Android/arm64-v8a/libonity.a",
}
SKIP_NAMES = {".gitignore", ".gitkeep", ".DS_Store"}
DEMO_SRC = os.path.join(ROOT, "unity-sample", "Assets")
DEMO = "Samples~/Demo"
DEMO_SKIP = {"Scripts/DemoBootstrap.cs", "Scripts/DemoBootstrap.cs.meta"}
DEMO_SAMPLE = {
    "displayName": "Demo scene",
    "description": "The sample project's scene (unity-sample/): waves of NextFrame/DelayFrame/Delay/WhenAny waits canceled with destroyCancellationToken, worker-thread completions, an IMGUI overlay of the pool statistics.",
    "path": DEMO,
}

passed = 0
failed = 0


def report(ok, what, detail=""):
    global passed, failed
    passed += ok
    failed += not ok
    print("%s package: %s%s" % ("ok  " if ok else "FAIL", what, (" (" + detail + ")") if detail else ""))


def gen_meta():
    spec = importlib.util.spec_from_file_location("gen_meta", os.path.join(ROOT, "tests", "unity", "gen_meta.py"))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def hidden_by_unity(rel):
    """Unity imports nothing in folders ending in ~ or starting with a dot."""
    return any(p.endswith("~") or p.startswith(".") for p in rel.split("/")[:-1])


def collect():
    files = {}
    for dirpath, dirnames, filenames in os.walk(PKG):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for f in sorted(filenames):
            if f in SKIP_NAMES:
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, PKG).replace(os.sep, "/")
            files[rel] = open(path, "rb").read()
    return files


def demo_sample(files):
    """Adds unity-sample/Assets as Samples~/Demo and lists it in package.json."""
    for dirpath, dirnames, filenames in os.walk(DEMO_SRC):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for f in sorted(filenames):
            rel = os.path.relpath(os.path.join(dirpath, f), DEMO_SRC).replace(os.sep, "/")
            if f in SKIP_NAMES or rel in DEMO_SKIP:
                continue
            files[DEMO + "/" + rel] = open(os.path.join(dirpath, f), "rb").read()
    manifest = json.loads(files["package.json"])
    manifest["samples"] = [x for x in manifest.get("samples", []) if x.get("path") != DEMO] + [DEMO_SAMPLE]
    files["package.json"] = (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode()


def check_demo(rel):
    """The Demo sample as Unity imports it: every file and folder with its .meta, every script
    the scene refers to present, and package.json listing it."""
    demo = {r[len(DEMO) + 1:]: d for r, d in rel.items() if r.startswith(DEMO + "/")}
    assets = [r for r in demo if not r.endswith(".meta")]
    report(any(r.endswith(".unity") for r in assets) and any(r.endswith(".cs") for r in assets), DEMO + " holds the scene and its scripts")
    folders = sorted({"/".join(r.split("/")[:i]) for r in assets for i in range(1, r.count("/") + 1)})
    no_meta = [r for r in assets + folders if r + ".meta" not in demo]
    report(not no_meta, DEMO + ": every file and folder has its .meta (the GUIDs the scene refers to)", ", ".join(no_meta[:5]))
    guids = set()
    for r, d in demo.items():
        if r.endswith(".cs.meta"):
            guids.update(re.findall(r"^guid: ([0-9a-f]{32})$", d.decode(), re.M))
    refs = set()
    for r, d in demo.items():
        if r.endswith(".unity"):
            refs.update(re.findall(r"m_Script: \{fileID: 11500000, guid: ([0-9a-f]{32})", d.decode()))
    missing = sorted(refs - guids)
    report(refs and not missing, DEMO + ": every script the scene refers to is in the sample (%d)" % len(refs), ", ".join(missing))
    report(not any(r in DEMO_SKIP for r in demo), DEMO + ": no DemoBootstrap (it would add the demo to every scene)")
    samples = json.loads(rel["package.json"]).get("samples", [])
    report(any(x.get("path") == DEMO for x in samples), "package.json lists the " + DEMO + " sample")


def source_date():
    if os.environ.get("SOURCE_DATE_EPOCH"):
        return int(os.environ["SOURCE_DATE_EPOCH"])
    try:
        return int(subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=ROOT, check=True,
                                  stdout=subprocess.PIPE, text=True).stdout.strip())
    except (subprocess.CalledProcessError, OSError, ValueError):
        return 0


def write_tgz(tgz, top, files, mtime, modes=None):
    """A reproducible .tar.gz of files ({relative path: bytes}) under the folder top: sorted
    entries, every folder listed, fixed owner and mtime, gzip without a name or time. modes:
    {relative path: mode} for files other than 0644 (executables)."""
    import gzip
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        dirs = sorted({"/".join(n.split("/")[:i]) for n in files for i in range(1, n.count("/") + 1)})
        for d in [""] + dirs:
            info = tarfile.TarInfo(top + ("/" + d if d else ""))
            info.type, info.mode, info.mtime = tarfile.DIRTYPE, 0o755, mtime
            tar.addfile(info)
        for n in sorted(files):
            info = tarfile.TarInfo(top + "/" + n)
            info.size, info.mode, info.mtime = len(files[n]), (modes or {}).get(n, 0o644), mtime
            tar.addfile(info, io.BytesIO(files[n]))
    with open(tgz, "wb") as fh:
        with gzip.GzipFile(filename="", mode="wb", fileobj=fh, mtime=0, compresslevel=9) as gz:
            gz.write(raw.getvalue())


def verify(tgz, shipped):
    with tarfile.open(tgz, "r:gz") as tar:
        names = [m.name for m in tar.getmembers() if m.isfile()]
        data = {n: tar.extractfile(n).read() for n in names}
    report(all(n.startswith("package/") for n in names), "every entry under package/")
    rel = {n[len("package/"):]: d for n, d in data.items()}
    report("package.json" in rel and json.loads(rel["package.json"])["name"] == "com.onity.native", "package.json names com.onity.native")
    assets = [r for r in rel if not r.endswith(".meta") and not hidden_by_unity(r)]
    no_meta = [r for r in assets if r + ".meta" not in rel]
    report(not no_meta, "every imported file has its .meta", ", ".join(no_meta[:5]))
    folders = sorted({"/".join(r.split("/")[:i]) for r in assets for i in range(1, r.count("/") + 1)})
    no_folder_meta = [d for d in folders if d + ".meta" not in rel]
    report(not no_folder_meta, "every imported folder has its .meta", ", ".join(no_folder_meta[:5]))
    orphans = [r for r in rel if r.endswith(".meta") and not hidden_by_unity(r) and r[:-5] not in rel and r[:-5] not in folders]
    report(not orphans, "no .meta without its asset (Unity would delete or warn)", ", ".join(orphans[:5]))
    sums = {}
    for line in rel.get("SHA256SUMS.txt", b"").decode().splitlines():
        h, _, name = line.partition("  ")
        sums[name] = h
    listed = set(sums)
    want = set(rel) - {"SHA256SUMS.txt", "SHA256SUMS.txt.meta"}
    bad = [n for n in want if sums.get(n) != hashlib.sha256(rel[n]).hexdigest()]
    report(listed == want and not bad, "SHA256SUMS.txt lists every file with its checksum", ", ".join(sorted(bad)[:5]))
    check_demo(rel)
    missing = [p for p, f in SHIPPED.items() if p in shipped and f not in rel]
    report(not missing, "plugins shipped: " + ", ".join(sorted(shipped)), ", ".join(missing))
    for p, f in SHIPPED.items():
        if p in shipped and not f.startswith("Plugins~"):
            report(rel.get(f + ".meta") == open(os.path.join(PKG, "Plugins~", f[len("Plugins/"):] + ".meta"), "rb").read(),
                   f + ".meta is its template")
    return sorted(rel)


def main(argv):
    out = os.path.join(ROOT, "dist")
    allow_missing = "--allow-missing" in argv
    if "--out" in argv:
        out = os.path.abspath(argv[argv.index("--out") + 1])
    version = json.load(open(os.path.join(PKG, "package.json")))["version"]

    present = [p for p, f in SHIPPED.items() if os.path.exists(os.path.join(PKG, f))]
    absent = [p for p in SHIPPED if p not in present]
    if absent and not allow_missing:
        print("missing plugins for %s: run scripts/build-plugins.sh (or pass --allow-missing for a partial package)" % " ".join(absent))
        return 2
    if present:
        chk = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "check-plugins.py"), "--require"] + present,
                             stdout=subprocess.PIPE, text=True)
        for line in chk.stdout.splitlines():
            print("  " + line)  # indented: the suite counts these where check-plugins.py runs itself
        report(chk.returncode == 0, "plugin checks (scripts/check-plugins.py --require %s)" % " ".join(present))
    rc = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "unity", "gen_meta.py"), "--check"], stdout=subprocess.DEVNULL).returncode
    report(rc == 0, "metas and templates (tests/unity/gen_meta.py --check)")
    if failed:
        print("package: %d passed, %d failed" % (passed, failed))
        return 1

    files = collect()
    demo_sample(files)
    gm = gen_meta()
    files["SHA256SUMS.txt"] = "".join("%s  %s\n" % (hashlib.sha256(files[n]).hexdigest(), n) for n in sorted(files)).encode()
    files["SHA256SUMS.txt.meta"] = gm.importer_for("SHA256SUMS.txt", False, gm.guid("com.onity.native", "SHA256SUMS.txt")).encode()

    os.makedirs(out, exist_ok=True)
    name = "com.onity.native-%s%s.tgz" % (version, "-partial" if absent else "")
    tgz = os.path.join(out, name)
    write_tgz(tgz, "package", files, source_date())
    digest = hashlib.sha256(open(tgz, "rb").read()).hexdigest()
    with open(tgz + ".sha256", "w") as fh:
        fh.write("%s  %s\n" % (digest, name))

    contents = verify(tgz, present)
    print("wrote %s (%d bytes, %d files, sha256 %s)" % (os.path.relpath(tgz, ROOT), os.path.getsize(tgz), len(contents), digest))
    for n in contents:
        if n.startswith("Plugins") and not n.endswith(".meta"):
            print("  package/%s (%d bytes)" % (n, len(files[n])))
    if absent:
        print("partial package: no %s" % " ".join(absent))
    print("package: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
