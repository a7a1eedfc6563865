#!/usr/bin/env python3
"""Packs the native SDK archives from the libraries scripts/build-plugins.sh built (the same
build as the Unity plugins): dist/onity-sdk-<version>-<platform>.tar.gz, each with its .sha256,
and dist/onity-sdk-<version>-SHA256SUMS for all of them.

  scripts/package-sdk.py [--out DIR] [PLATFORM...]     default: every platform

  linux-x86_64     lib/libonity.so (glibc 2.17 floor), lib/libonity.a
  macos-universal  lib/libonity.dylib (x86_64 + arm64, ad-hoc signed)
  windows-x86_64   bin/onity.dll (Windows 7 SP1+), lib/onity.dll.lib (MSVC import library),
                   lib/libonity.dll.a (MinGW import library)
  ios-arm64        lib/libonity.a
  android-arm64    lib/libonity.a

The tree inside (onity-sdk-<version>-<platform>/: include/, lib/, lib/cmake/Onity/,
lib/pkgconfig/onity.pc) is laid out by scripts/install-sdk.sh. Each archive is then read back and
checked: the tree's files are there, include/onity.h is the repository's, and every library passes
scripts/check-plugins.py's checks for its kind (global symbols or exports = the header's functions,
architectures, glibc floor, Windows 7 imports, signatures, import libraries that link).
Reproducible (sorted entries, fixed owner, the last commit's time). Ends with
"sdk: N passed, N failed"; exits 1 on any failure, 2 when a platform's libraries are not built.
"""
import hashlib
import importlib.util
import os
import re
import subprocess
import sys
import tarfile
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load(name):
    spec = importlib.util.spec_from_file_location(name.replace("-", "_"), os.path.join(ROOT, "scripts", name + ".py"))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


checks = load("check-plugins")
unity = load("package-unity")
STAGE = checks.STAGE

# platform: (install-sdk.sh --platform, {file name in --lib-dir: built file}, [(file in the tree, check kind, arch)])
SDK = {
    "linux-x86_64": ("linux-x86_64",
                     {"libonity.so": "bindings/Plugins/x86_64/libonity.so",
                      "libonity.a": os.path.join(STAGE, "linux-x86_64", "libonity.a")},
                     [("lib/libonity.so", "elf-so", "x86_64"), ("lib/libonity.a", "elf-ar", "x86_64")]),
    "macos-universal": ("macos-universal",
                        {"libonity.dylib": "bindings/Plugins/macOS/libonity.dylib"},
                        [("lib/libonity.dylib", "macho-fat", ("x86_64", "arm64"))]),
    "windows-x86_64": ("windows-x86_64",
                       {n: os.path.join(STAGE, "windows-x86_64", n) for n in ("onity.dll", "onity.dll.lib", "libonity.dll.a")},
                       [("bin/onity.dll", "pe", "x86_64"), ("lib/onity.dll.lib", "implib", "msvc"),
                        ("lib/libonity.dll.a", "implib", "gnu")]),
    "ios-arm64": ("ios-arm64", {"libonity.a": "bindings/Plugins/iOS/libonity.a"}, [("lib/libonity.a", "macho-ar", "arm64")]),
    "android-arm64": ("android-arm64", {"libonity.a": "bindings/Plugins/Android/arm64-v8a/libonity.a"},
                      [("lib/libonity.a", "elf-ar", "aarch64")]),
}
TREE = ["include/onity.h", "include/onity.hpp", "include/onity/coro.hpp", "lib/cmake/Onity/OnityConfig.cmake",
        "lib/cmake/Onity/OnityConfigVersion.cmake", "lib/cmake/Onity/OnityTargets.cmake", "lib/pkgconfig/onity.pc"]
CHECK = {"elf-so": "check_elf_so", "elf-ar": "check_elf_archive", "pe": "check_pe", "implib": "check_implib",
         "macho-fat": "check_macho_fat", "macho-ar": "check_macho_archive"}


def version():
    return re.search(r'^version = "([^"]+)"', open(os.path.join(ROOT, "Cargo.toml")).read(), re.M).group(1)


def pack(platform, out, d):
    """Lays out the tree with install-sdk.sh in d and writes the archive; returns its path."""
    install_as, libs, _ = SDK[platform]
    libdir = os.path.join(d, "libs")
    os.makedirs(libdir)
    for name, src in libs.items():
        os.symlink(os.path.join(ROOT, src), os.path.join(libdir, name))
    top = "onity-sdk-%s-%s" % (version(), platform)
    prefix = os.path.join(d, top)
    subprocess.run(["bash", os.path.join(ROOT, "scripts", "install-sdk.sh"), "--prefix", prefix, "--lib-dir", libdir,
                    "--platform", install_as], check=True, stdout=subprocess.DEVNULL)
    files, modes = {}, {}
    for dirpath, _, filenames in os.walk(prefix):
        for f in filenames:
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, prefix).replace(os.sep, "/")
            files[rel] = open(path, "rb").read()
            if os.access(path, os.X_OK):
                modes[rel] = 0o755
    tgz = os.path.join(out, top + ".tar.gz")
    unity.write_tgz(tgz, top, files, unity.source_date(), modes)
    with open(tgz + ".sha256", "w") as fh:
        fh.write("%s  %s\n" % (hashlib.sha256(open(tgz, "rb").read()).hexdigest(), os.path.basename(tgz)))
    return tgz


def verify(platform, tgz, d):
    """Extracts the archive and checks its tree and every library in it."""
    _, _, libs = SDK[platform]
    top = os.path.basename(tgz)[:-len(".tar.gz")]
    name = "sdk " + platform
    with tarfile.open(tgz, "r:gz") as tar:
        members = tar.getmembers()
        checks.report(all(m.name == top or m.name.startswith(top + "/") for m in members), name, "every entry under " + top + "/")
        tar.extractall(d, filter="data") if hasattr(tarfile, "data_filter") else tar.extractall(d)
    root = os.path.join(d, top)
    missing = [f for f in TREE if not os.path.isfile(os.path.join(root, f))]
    checks.report(not missing, name, "tree: include/, lib/cmake/Onity/, lib/pkgconfig/onity.pc", ", ".join(missing))
    same = open(os.path.join(root, "include", "onity.h"), "rb").read() == open(checks.HEADER, "rb").read()
    checks.report(same, name, "include/onity.h is the repository's header")
    for rel, kind, arch in libs:
        path = os.path.join(root, rel)
        if not os.path.isfile(path):
            checks.report(False, name, rel + " present")
            continue
        print("  %s:" % rel)
        saved, checks.indent = checks.indent, "    "
        getattr(checks, CHECK[kind])(name + " " + rel, path, arch)
        checks.indent = saved


def main(argv):
    out = os.path.join(ROOT, "dist")
    if "--out" in argv:
        i = argv.index("--out")
        out = os.path.abspath(argv[i + 1])
        argv = argv[:i] + argv[i + 2:]
    platforms = [a for a in argv if not a.startswith("--")] or list(SDK)
    for p in platforms:
        if p not in SDK:
            sys.exit("package-sdk: unknown platform %s (one of %s)" % (p, " ".join(SDK)))
    absent = ["%s (%s)" % (p, os.path.relpath(os.path.join(ROOT, f), ROOT)) for p in platforms
              for f in SDK[p][1].values() if not os.path.exists(os.path.join(ROOT, f))]
    if absent:
        print("not built: %s: run scripts/build-plugins.sh first" % ", ".join(absent))
        return 2
    os.makedirs(out, exist_ok=True)
    archives = []
    for p in platforms:
        with tempfile.TemporaryDirectory() as d:
            tgz = pack(p, out, os.path.join(d, "pack"))
            print("wrote %s (%d bytes)" % (os.path.relpath(tgz, ROOT), os.path.getsize(tgz)))
            verify(p, tgz, os.path.join(d, "verify"))
            archives.append(tgz)
    sums = os.path.join(out, "onity-sdk-%s-SHA256SUMS" % version())
    known = {}
    if os.path.exists(sums):  # keep the other platforms' lines of an earlier run
        for line in open(sums):
            h, _, n = line.strip().partition("  ")
            if os.path.exists(os.path.join(out, n)):
                known[n] = h
    for tgz in archives:
        known[os.path.basename(tgz)] = hashlib.sha256(open(tgz, "rb").read()).hexdigest()
    with open(sums, "w") as fh:
        fh.writelines("%s  %s\n" % (known[n], n) for n in sorted(known))
    print("wrote %s (%d archives)" % (os.path.relpath(sums, ROOT), len(known)))
    print("sdk: %d passed, %d failed" % (checks.passed, checks.failed))
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
