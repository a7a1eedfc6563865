#!/usr/bin/env python3
"""scripts/check-plugins.py --self-test: shows that the plugin checks can fail, on deliberately
wrong libraries built here (gcc, clang, llvm-dlltool, rust-lld). Loaded by check-plugins.py, whose
check functions and counters it uses (c); ends with "plugin-checks-self-test: N passed, N failed".
"""
import os
import subprocess
import sys

c = None  # the check-plugins module


SELF_TEST_LIB = r"""
#include <stdlib.h>
#include <sys/random.h>
unsigned onity_abi_version(void) { return 2u << 16; }   /* wrong ABI major */
int onity_runtime_create(void) { return 0; }            /* one of the header's functions */
int not_onity(void) { return 0; }                       /* an extra export */
/* a glibc symbol newer than 2.17 (getrandom: GLIBC_2.25) */
long newer_glibc(void *p, size_t n) { return (long)getrandom(p, n, 0); }
"""


def static_self_test(d, macho=False):
    """A static library of the header's functions (one object) whose onity_abi_version calls an
    extra global defined in a second object: {check: ok} of the globals check and of a program's
    link (ELF: a C program run here; Mach-O, arm64 iOS: an executable linked by rust-lld), on it as
    built and once scripts/localize-static.py has made the extra global local."""
    funcs, abi = c.header()
    kind = "macho" if macho else "elf"
    src, extra = os.path.join(d, kind + "-static.c"), os.path.join(d, kind + "-extra.c")
    with open(extra, "w") as fh:
        fh.write("unsigned extra_global(void) { return %du; }\n" % abi)
    with open(src, "w") as fh:
        fh.write("unsigned extra_global(void);\n")
        for f in sorted(funcs):
            fh.write("unsigned %s(void) { return extra_global(); }\n" % f if f == "onity_abi_version" else "void %s(void) {}\n" % f)
    cc = ["clang", "-target", "arm64-apple-ios12.0"] if macho else ["gcc"]
    objs = []
    for f in (src, extra):
        objs.append(f[:-2] + ".o")
        subprocess.run(cc + ["-O1", "-c", f, "-o", objs[-1]], check=True)
    raw, loc = os.path.join(d, kind + "-raw.a"), os.path.join(d, kind + "-local.a")
    subprocess.run([c.tool("ar"), "rcs", "--format=" + ("darwin" if macho else "gnu"), raw] + objs, check=True)
    subprocess.run([sys.executable, os.path.join(c.ROOT, "scripts", "localize-static.py"), raw, loc], check=True)
    out = {}
    for label, lib in (("as built", raw), ("localized", loc)):
        del c.results[:]
        print("    the %s static library %s:" % ("Mach-O" if macho else "ELF", label))
        c.check_globals("static library " + label, lib, "_" if macho else "")
        if macho:
            c.ios_link("static library " + label, lib, abi)
        else:
            c.host_link("static library " + label, lib, abi)
        for ok, _, what in c.results:
            out[kind + (" globals " if what.startswith("global") else " link ") + label] = ok
    return out


PE_SELF_TEST = r"""
int __declspec(dllimport) __stdcall WaitOnAddress(void *, void *, unsigned long long, unsigned long);
unsigned onity_abi_version(void) { return %du; }
int onity_wait(void *p) { return WaitOnAddress(p, p, 4, 0); }
"""


def pe_self_test(d):
    """A DLL (clang, llvm-dlltool, rust-lld) importing WaitOnAddress from Windows 8's
    api-ms-win-core-synch-l1-2-0.dll: {check: ok} of c.check_pe's import checks on it."""
    _, abi = c.header()
    src, obj, lib, dll = (os.path.join(d, n) for n in ("w.c", "w.obj", "synch.lib", "w.dll"))
    open(src, "w").write(PE_SELF_TEST % abi)
    open(os.path.join(d, "synch.def"), "w").write("LIBRARY api-ms-win-core-synch-l1-2-0.dll\nEXPORTS\n    WaitOnAddress\n")
    c.run(c.tool("dlltool"), "-m", "i386:x86-64", "-d", os.path.join(d, "synch.def"), "-l", lib)
    c.run("clang", "-target", "x86_64-pc-windows-msvc", "-O1", "-c", src, "-o", obj)
    c.run(c.rust_lld(), "-flavor", "link", "/dll", "/noentry", "/nodefaultlib", "/export:onity_abi_version",
        "/export:onity_wait", "/out:" + dll, obj, lib)
    del c.results[:]
    c.check_pe("Windows 8+ DLL", dll, "x86_64")
    return {"pe-" + what.split(" ")[0]: ok for ok, _, what in c.results}


def macho_self_test(d):
    """A one-function arm64 dylib linked by rust-lld: {check: ok} of the signature check on it
    ad-hoc signed, signed then changed by one byte, and linked unsigned."""
    src, obj = os.path.join(d, "m.c"), os.path.join(d, "m.o")
    open(src, "w").write("unsigned onity_abi_version(void) { return 1u; }\n")
    c.run("clang", "-target", "arm64-apple-macos11", "-O1", "-c", src, "-o", obj)
    out = {}
    for label, flag in (("signed", "-adhoc_codesign"), ("unsigned", "-no_adhoc_codesign")):
        dylib = os.path.join(d, label + ".dylib")
        c.run(c.rust_lld(), "-flavor", "darwin", "-dylib", "-arch", "arm64", "-platform_version", "macos", "11.0", "11.0",
            flag, "-install_name", "@rpath/m.dylib", "-o", dylib, obj)
        data = open(dylib, "rb").read()
        variants = [(label, data)]
        if label == "signed":
            changed = bytearray(data)
            changed[64] ^= 1  # a load command byte: covered by page 0's hash
            variants.append(("changed after signing", bytes(changed)))
        for what, blob in variants:
            kind, detail = c.verify_signature(blob, 0, list(c.macho_commands(blob, 0)))
            print("    %s dylib: %s (%s)" % (what, kind, detail))
            out["signature " + what] = kind in ("ad-hoc", "signed")
            if c.shutil.which("rcodesign"):
                path = os.path.join(d, "variant.dylib")
                open(path, "wb").write(blob)
                del c.results[:]
                c.rcodesign_verify("rcodesign on the " + what + " dylib", path)
                out["rcodesign " + what] = c.results[-1][0]
    return out


def self_test(checks):
    """Shows that the checks can fail: a wrong library built with gcc must fail its exports,
    glibc-floor and both ABI checks, and pass its architecture check; a static library with one
    extra global symbol fails the globals check, and passes it once localized; a DLL importing
    Windows 8's WaitOnAddress fails both import checks; a Mach-O signature verifies, and fails
    once a signed byte changes or without one."""
    global c
    c = checks
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "bad.c"), "w") as fh:
            fh.write(SELF_TEST_LIB)
        subprocess.run(["gcc", "-O1", "-shared", "-fPIC", "-o", os.path.join(d, "libonity.so"), os.path.join(d, "bad.c")], check=True)
        del c.results[:]
        print("the checks on a deliberately wrong library (gcc-built: wrong ABI, extra export, GLIBC_2.25):")
        c.indent = "    "
        c.check_elf_so("wrong library", os.path.join(d, "libonity.so"), "x86_64")
        got = {what.split(" ")[0] + ("-run" if "returned" in what else ""): ok for ok, _, what in c.results}
        print("the checks on static libraries with one extra global symbol (ELF by gcc, Mach-O by clang), then localized:")
        got.update(static_self_test(d))
        got.update(static_self_test(d, macho=True))
        print("the checks on a DLL importing WaitOnAddress (Windows 8+) from api-ms-win-core-synch-l1-2-0.dll:")
        got.update(pe_self_test(d))
        print("the signature check on a dylib (rust-lld) ad-hoc signed, changed after signing, unsigned:")
        got.update(macho_self_test(d))
        c.indent = ""
    c.passed = c.failed = 0
    want = {"exports": False, "arch": True, "glibc": False, "abi": False, "abi-run": False,
            "elf globals as built": False, "elf link as built": True, "elf globals localized": True, "elf link localized": True,
            "macho globals as built": False, "macho link as built": True, "macho globals localized": True,
            "macho link localized": True,
            "pe-exports": False, "pe-arch": True, "pe-dlls": False, "pe-win8+": False, "pe-abi": True,
            "signature signed": True, "signature changed after signing": False, "signature unsigned": False}
    if c.shutil.which("rcodesign"):  # the second verifier, when installed (cargo install apple-codesign)
        want.update({"rcodesign signed": True, "rcodesign changed after signing": False, "rcodesign unsigned": False})
    for k, v in want.items():
        c.report(got.get(k) == v, "self-test", "the %s check %s" % (k, "passes" if v else "fails"), "got %s" % got.get(k))
    print("plugin-checks-self-test: %d passed, %d failed" % (c.passed, c.failed))
    return 1 if c.failed else 0
