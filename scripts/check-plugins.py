#!/usr/bin/env python3
"""Checks the native plugins scripts/build-plugins.sh produced, without the target platforms:

  exports   the exported functions (dynamic libraries) are exactly the functions of include/onity.h;
  globals   (static libraries) the only global symbols defined are those functions (std and the
            compiler builtins made local); the Linux one links into a C program, also beside
            another Rust static library with its own std, and runs;
  implib    (Windows import libraries, MSVC and MinGW) name those functions, and a C object links
            against each (rust-lld -flavor link / gnu) into a program importing onity.dll;
  arch      the machine / the Mach-O slices are the platform's;
  abi       onity_abi_version() returns the header's ONITY_ABI_VERSION: called for the host's
            library, read from its machine code (mov/movk into the return register) for every
            library, host included;
  glibc     (Linux) no versioned glibc symbol newer than the floor (ONITY_GLIBC_FLOOR, 2.17);
  imports   (Windows) only DLLs Windows 7 SP1 has (msvcrt.dll as C runtime; no MinGW runtime DLL to
            ship beside it) and none of a list of Windows 8+ functions (WaitOnAddress, ...);
  signature (macOS, both slices) an ad-hoc (or better) code signature that verifies: each
            CodeDirectory's page hashes match the code (Apple silicon refuses unsigned code);
  minos     (Apple) the minimum OS version the code was built for.

Usage: scripts/check-plugins.py [--require] [PLATFORM...]   (default: every platform)
       scripts/check-plugins.py --self-test   (the checks fail on a deliberately wrong library)
Platforms: linux-x86_64 linux-x86_64-static windows-x86_64 windows-x86_64-msvc-implib
windows-x86_64-mingw-implib macos-universal ios-arm64 android-arm64 (android-arm64 is the static
library IL2CPP links, also the input of the NDK link; android-arm64-so the .so that link makes).
Missing artifacts are skipped (an error with --require). Uses LLVM's tools (Debian: apt-get install
llvm). Ends with "plugins: N passed, N failed"; exits 1 on any failure.
"""
import ctypes
import glob
import os
import platform
import re
import shutil
import struct
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEADER = os.path.join(ROOT, "include", "onity.h")
GLIBC_FLOOR = tuple(int(x) for x in os.environ.get("ONITY_GLIBC_FLOOR", "2.17").split("."))
# Unity 2022.3 runs on macOS 10.13+ (Intel) and 11+ (Apple silicon), iOS 12+.
MINOS = {"x86_64": (10, 13), "arm64": (11, 0), "ios": (12, 0)}
# Unity 2022.3 players run on Windows 7 SP1: the DLL may import only DLLs it has (its C runtime is
# msvcrt.dll: the Universal CRT, ucrtbase.dll / api-ms-win-crt-*, needs an update there; the
# api-ms-win-core-synch-l1-2-0 set holding WaitOnAddress is Windows 8's) and no function newer.
WIN7_DLLS = re.compile(r"^(kernel32|ntdll|advapi32|bcrypt|userenv|ws2_32|msvcrt)\.dll$", re.I)
WIN8_FUNCS = {  # Windows 8 and later (Microsoft's documented minimum client)
    "WaitOnAddress", "WakeByAddressSingle", "WakeByAddressAll", "GetSystemTimePreciseAsFileTime",
    "ProcessPrng", "SetThreadDescription", "GetThreadDescription", "GetCurrentThreadStackLimits",
    "CreateFile2", "CopyFile2", "GetOverlappedResultEx", "PrefetchVirtualMemory", "CompareObjectHandles",
    "GetSystemCpuSetInformation", "GetProcessMitigationPolicy", "SetProcessMitigationPolicy",
    "CreateFileMappingFromApp", "MapViewOfFileFromApp", "VirtualAlloc2", "MapViewOfFile3",
    "GetTempPath2W", "GetTempPath2A", "DiscardVirtualMemory", "OfferVirtualMemory",
}

# Build outputs that are not Unity plugins (the SDK archives' static libraries) are staged here.
STAGE = os.path.join(os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target"), "plugins")

PLATFORMS = {
    "linux-x86_64": ("bindings/Plugins/x86_64/libonity.so", "elf-so", "x86_64"),
    "linux-x86_64-static": (os.path.join(STAGE, "linux-x86_64", "libonity.a"), "elf-ar", "x86_64"),
    "windows-x86_64": ("bindings/Plugins/x86_64/onity.dll", "pe", "x86_64"),
    "windows-x86_64-msvc-implib": (os.path.join(STAGE, "windows-x86_64", "onity.dll.lib"), "implib", "msvc"),
    "windows-x86_64-mingw-implib": (os.path.join(STAGE, "windows-x86_64", "libonity.dll.a"), "implib", "gnu"),
    "macos-universal": ("bindings/Plugins/macOS/libonity.dylib", "macho-fat", ("x86_64", "arm64")),
    "ios-arm64": ("bindings/Plugins/iOS/libonity.a", "macho-ar", "arm64"),
    "android-arm64": ("bindings/Plugins/Android/arm64-v8a/libonity.a", "elf-ar", "aarch64"),
    "android-arm64-so": ("bindings/Plugins/Android/arm64-v8a/libonity.so", "elf-so", "aarch64"),
}

passed = 0
failed = 0
results = []  # (ok, name, what) of every check, for --self-test
indent = ""


def report(ok, name, what, detail=""):
    global passed, failed
    results.append((bool(ok), name, what))
    if ok:
        passed += 1
    else:
        failed += 1
    print("%s%s %s: %s%s" % (indent, "ok  " if ok else "FAIL", name, what, (" (" + detail + ")") if detail else ""))


def tool(name):
    for cand in ["llvm-" + name] + sorted(glob.glob("/usr/lib/llvm-*/bin/llvm-" + name), reverse=True):
        p = shutil.which(cand) if os.sep not in cand else (cand if os.access(cand, os.X_OK) else None)
        if p:
            return p
    sys.exit("check-plugins: llvm-%s not found (Debian: apt-get install llvm)" % name)


def run(*args):
    return subprocess.run(args, check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True).stdout


def header():
    text = open(HEADER).read()
    funcs = set(re.findall(r"^[A-Za-z_][\w \t\*]*?\b(onity_\w+)\(", text, re.M))
    abi = int(re.search(r"^#define ONITY_ABI_VERSION (\d+)", text, re.M).group(1))
    return funcs, abi


# ---- machine code: the constant onity_abi_version returns ----------------------------------

def abi_from_disassembly(path, symbol, arch=None):
    args = [tool("objdump"), "-d", "--no-show-raw-insn", "--disassemble-symbols=" + symbol]
    if arch:
        args.append("--arch=" + arch)
    out = run(*(args + [path]))
    body = out.split(symbol + ">:", 1)[-1] if (symbol + ">:") in out else out.split(symbol + ":", 1)[-1]
    value = None
    for line in body.splitlines():
        ins = line.split(":", 1)[-1].strip().split(";")[0].split("//")[0].strip()
        if not ins:
            continue
        m = re.match(r"movl?\s+\$(0x[0-9a-f]+|\d+),\s*%eax", ins)  # x86-64 (AT&T)
        if m:
            value = int(m.group(1), 0)
            continue
        m = re.match(r"(?:mov|orr)\s+w0,\s*(?:wzr,\s*)?#(0x[0-9a-f]+|\d+)$", ins)  # arm64
        if m:
            value = int(m.group(1), 0)
            continue
        m = re.match(r"movk\s+w0,\s*#(0x[0-9a-f]+|\d+)(?:,\s*lsl\s*#(\d+))?", ins)
        if m and value is not None:
            shift = int(m.group(2) or 0)
            value = (value & ~(0xFFFF << shift)) | (int(m.group(1), 0) << shift)
            continue
        # Frame-pointer prologue/epilogue (macOS keeps frame pointers): not part of the value.
        if re.match(r"(pushq\s+%rbp|movq\s+%rsp,\s*%rbp|popq\s+%rbp|stp\s+x29,\s*x30,.*|mov\s+x29,\s*sp|ldp\s+x29,\s*x30,.*)$", ins):
            continue
        if re.match(r"(retq?|ret)\b", ins):
            return value
        if value is not None or not re.match(r"(nop|endbr64|bti|pac|hint)", ins):
            return None  # something else computes the result: not a plain constant
    return None


# ---- ELF ------------------------------------------------------------------------------------

def check_elf_so(name, path, arch):
    funcs, abi = header()
    syms = run(tool("readelf"), "--dyn-syms", "-W", path)
    exported = set()
    for line in syms.splitlines():
        f = line.split()
        if len(f) >= 8 and f[3] == "FUNC" and f[4] in ("GLOBAL", "WEAK") and f[5] == "DEFAULT" and f[6] != "UND":
            exported.add(f[7].split("@")[0])
    report(exported == funcs, name, "exports = the header's %d functions" % len(funcs), diff(exported, funcs))
    machine = re.search(r"Machine:\s*(.*)", run(tool("readelf"), "-h", path)).group(1)
    want = {"x86_64": "X86-64", "aarch64": "AArch64"}[arch]
    report(want in machine, name, "arch " + arch, machine)
    if arch == "x86_64":
        versions = set(re.findall(r"GLIBC_(\d+(?:\.\d+)+)", run(tool("readelf"), "-V", "-W", path)))
        newest = max((tuple(int(x) for x in v.split(".")) for v in versions), default=(0,))
        report(newest <= GLIBC_FLOOR, name, "glibc floor %s" % ".".join(map(str, GLIBC_FLOOR)),
               "newest symbol version GLIBC_" + ".".join(map(str, newest)))
    got = abi_from_disassembly(path, "onity_abi_version")
    report(got == abi, name, "abi %d read from onity_abi_version's code" % abi, "read %s" % got)
    if arch == "x86_64" and platform.system() == "Linux" and platform.machine() in ("x86_64", "AMD64"):
        try:
            lib = ctypes.CDLL(os.path.abspath(path))
            lib.onity_abi_version.restype = ctypes.c_uint32
            v = lib.onity_abi_version()
            report(v == abi, name, "abi %d returned by onity_abi_version() (loaded here)" % abi, "returned %d" % v)
        except OSError as e:
            report(False, name, "loads on this host", str(e))


def archive_symbols(path, arch=None):
    """Every global symbol the archive's members define (any kind: code, data, weak)."""
    args = [tool("nm"), "--no-llvm-bc", "--defined-only", "--extern-only", "--no-sort"]
    if arch:
        args.append("--arch=" + arch)
    out = run(*(args + [path]))
    names = set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] not in ("U", "w", "v"):
            names.add(f[2])
    return names


def check_globals(name, path, prefix=""):
    """A static library defines no global symbol but the header's functions: the others (Rust's
    std, compiler builtins) would collide with another Rust static library in the same program
    (scripts/localize-static.py makes them local)."""
    funcs, _ = header()
    got = {s[len(prefix):] if s.startswith(prefix) else s for s in archive_symbols(path)}
    report(got == funcs, name, "global symbols = the header's %d functions (nothing else)" % len(funcs), diff(got, funcs))


def rust_lld():
    sysroot = run("rustc", "--print", "sysroot").strip()
    host = re.search(r"^host: (\S+)", run("rustc", "-vV"), re.M).group(1)
    return os.path.join(sysroot, "lib", "rustlib", host, "bin", "rust-lld")


ELF_FORMAT = {"x86_64": "elf64-x86-64", "aarch64": "elf64-littleaarch64"}
NDK_MAP = os.path.join(ROOT, "bindings", "Plugins~", "Android", "arm64-v8a", "onity.map")


def check_elf_archive(name, path, arch):
    _, abi = header()
    check_globals(name, path)
    fmt = set(re.findall(r"Format:\s*(\S+)", run(tool("readobj"), "--file-headers", path)))
    report(fmt == {ELF_FORMAT[arch]}, name, "arch " + arch + " (every member)", ", ".join(sorted(fmt)))
    got = abi_from_disassembly(path, "onity_abi_version")
    report(got == abi, name, "abi %d read from onity_abi_version's code" % abi, "read %s" % got)
    if arch == "x86_64":
        host_link(name, path, abi)
        host_link(name, path, abi, other_rust=True)
        return
    # The NDK recipe's link (bindings/Plugins~/README.md), by LLD without bionic: --whole-archive
    # and the version script must give a .so exporting exactly the header's functions.
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        so = os.path.join(d, "libonity.so")
        try:
            run(rust_lld(), "-flavor", "gnu", "-m", "aarch64linux", "-shared", "-soname", "libonity.so", "--whole-archive", path,
                "--no-whole-archive", "--version-script", NDK_MAP, "--gc-sections", "-o", so)
        except (subprocess.CalledProcessError, OSError) as e:
            report(False, name, "links into a .so as the NDK recipe does (rust-lld)", str(e))
            return
        global indent
        saved, indent = indent, indent + "    "
        print(indent[:-4] + "the NDK recipe's link of it (rust-lld, no bionic):")
        check_elf_so(name + " linked", so, arch)
        indent = saved


HOST_MAIN = """#include <stdio.h>
#include "onity.h"
unsigned other_rust_lib(unsigned n);
int main(void) {
    unsigned v = onity_abi_version();
#ifdef OTHER_RUST
    printf("%u %u\\n", v, other_rust_lib(4));
#else
    printf("%u\\n", v);
#endif
    return v == ONITY_ABI_VERSION ? 0 : 1;
}
"""
# Another Rust static library with its own copy of std (threads, allocation, panics): linked into
# the same program, its global symbols must not collide with ours.
OTHER_RUST = """#[no_mangle]
pub extern "C" fn other_rust_lib(n: u32) -> u32 {
    let v: Vec<u32> = (0..n).collect();
    v.iter().sum::<u32>() + std::thread::spawn(|| std::panic::catch_unwind(|| 1u32).unwrap()).join().unwrap()
}
"""


def host_link(name, path, abi, other_rust=False):
    """Links a C program against the (x86_64 Linux) static library with the host's cc and runs it:
    the library is complete with libc, libpthread, libdl and libm, and its localized symbols
    still resolve inside it. other_rust: a second Rust static library (rustc, its own std) is
    linked into the same program and called too."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        src, exe = os.path.join(d, "main.c"), os.path.join(d, "main")
        open(src, "w").write(HOST_MAIN)
        what = "a C program linked against it (cc) runs and gets ABI %d" % abi
        args = [os.environ.get("CC", "cc"), "-I", os.path.dirname(HEADER), src, path]
        want = str(abi)
        try:
            if other_rust:
                what = "a C program linked against it and another Rust static library (rustc) runs both"
                open(os.path.join(d, "other.rs"), "w").write(OTHER_RUST)
                run("rustc", "-O", "--crate-type", "staticlib", "--crate-name", "other_rust", os.path.join(d, "other.rs"),
                    "-o", os.path.join(d, "libother_rust.a"))
                args[1:1] = ["-DOTHER_RUST"]
                args.append(os.path.join(d, "libother_rust.a"))
                want += " 7"
            run(*(args + ["-lpthread", "-ldl", "-lm", "-o", exe]))
            out = run(exe).strip()
            report(out == want, name, what, "got " + out)
        except (subprocess.CalledProcessError, OSError) as e:
            report(False, name, what, ((getattr(e, "stderr", "") or str(e)).strip().splitlines() or [""])[0])


# ---- PE -------------------------------------------------------------------------------------

def pe_imports(objdump_p):
    """{DLL name: [imported function names]} from llvm-objdump -p's import tables."""
    table = objdump_p.split("The Import Tables:", 1)[-1].split("Export Table:", 1)[0] if "The Import Tables:" in objdump_p else ""
    imports = {}
    dll = None
    for line in table.splitlines():
        m = re.match(r"\s*DLL Name:\s*(\S+)", line)
        if m:
            dll = m.group(1)
            imports[dll] = []
            continue
        m = re.match(r"\s+\d+\s+(\S+)$", line)
        if m and dll:
            imports[dll].append(m.group(1))
    return imports


def check_pe(name, path, arch):
    funcs, abi = header()
    out = run(tool("objdump"), "-p", path)
    table = out.split("Export Table:", 1)[-1].split("\n\n", 1)[0] if "Export Table:" in out else ""
    exported = set(re.findall(r"^\s+\d+\s+0x[0-9a-f]+\s+(\S+)$", table, re.M))
    report(exported == funcs, name, "exports = the header's %d functions" % len(funcs), diff(exported, funcs))
    head = run(tool("objdump"), "-f", path)
    report("coff-x86-64" in head or "pe-x86-64" in head, name, "arch " + arch, head.strip().splitlines()[-2:][0] if head.strip() else "")
    imports = pe_imports(out)
    bad = sorted(d for d in imports if not WIN7_DLLS.match(d))
    report(not bad, name, "dlls imported are Windows 7 SP1's (C runtime msvcrt.dll, no MinGW DLL)",
           ", ".join(bad) if bad else ", ".join(sorted(d.lower() for d in imports)))
    newer = sorted(f for fs in imports.values() for f in fs if f in WIN8_FUNCS)
    report(not newer, name, "win8+ functions imported: none (%d listed)" % len(WIN8_FUNCS), ", ".join(newer))
    got = abi_from_disassembly(path, "onity_abi_version")
    report(got == abi, name, "abi %d read from onity_abi_version's code" % abi, "read %s" % got)


IMPLIB_MAIN = """#include "onity.h"
int start(void) { return onity_abi_version() == ONITY_ABI_VERSION ? 0 : 1; }
"""


def check_implib(name, path, flavor):
    """An import library of onity.dll (flavor msvc: onity.dll.lib; gnu: MinGW's libonity.dll.a):
    a C program's object (clang) links against it with LLD as MSVC's link.exe (rust-lld -flavor
    link) or MinGW's ld (-flavor gnu) would, and the program then imports onity_abi_version from
    onity.dll; the library names every function of the header."""
    import tempfile
    funcs, _ = header()
    # Every imported function is a code symbol (T) of the library, in both formats; the other
    # symbols (I: import pointers and descriptors) are not functions.
    out = run(tool("nm"), "--defined-only", "--extern-only", path)
    names = {f[2] for f in (line.split() for line in out.splitlines()) if len(f) == 3 and f[1] == "T"}
    report(names == funcs, name, "functions = the header's %d" % len(funcs), diff(names, funcs))
    triple = {"msvc": "x86_64-pc-windows-msvc", "gnu": "x86_64-w64-windows-gnu"}[flavor]
    what = "a C program links against it (%s)" % ("rust-lld -flavor link" if flavor == "msvc" else "rust-lld -flavor gnu -m i386pep")
    with tempfile.TemporaryDirectory() as d:
        src, obj, exe = (os.path.join(d, n) for n in ("main.c", "main.obj", "main.exe"))
        open(src, "w").write(IMPLIB_MAIN)
        try:
            run("clang", "-target", triple, "-O1", "-I", os.path.dirname(HEADER), "-c", src, "-o", obj)
            if flavor == "msvc":
                run(rust_lld(), "-flavor", "link", "/entry:start", "/subsystem:console", "/nodefaultlib", "/out:" + exe, obj, path)
            else:
                run(rust_lld(), "-flavor", "gnu", "-m", "i386pep", "--entry=start", "--subsystem", "console", "-o", exe, obj, path)
        except (subprocess.CalledProcessError, OSError) as e:
            report(False, name, what, ((getattr(e, "stderr", "") or str(e)).strip().splitlines() or [""])[0])
            return
        imports = pe_imports(run(tool("objdump"), "-p", exe))
        got = {d.lower(): f for d, f in imports.items()}
        report(got.get("onity.dll") == ["onity_abi_version"], name, what + " and imports onity.dll's onity_abi_version",
               "; ".join("%s: %s" % (d, " ".join(f)) for d, f in sorted(got.items())))


# ---- Mach-O ---------------------------------------------------------------------------------

CPU = {0x01000007: "x86_64", 0x0100000C: "arm64"}
LC_CODE_SIGNATURE, LC_BUILD_VERSION, LC_VERSION_MIN_MACOSX, LC_VERSION_MIN_IPHONEOS = 0x1D, 0x32, 0x24, 0x25


def macho_slices(data):
    """[(arch, offset, size)] of a fat or thin Mach-O file."""
    magic = struct.unpack(">I", data[:4])[0]
    if magic in (0xCAFEBABE, 0xCAFEBABF):
        n = struct.unpack(">I", data[4:8])[0]
        out = []
        for i in range(n):
            if magic == 0xCAFEBABE:
                cpu, _, off, size, _ = struct.unpack(">iiIII", data[8 + 20 * i:28 + 20 * i])
            else:
                cpu, _, off, size, _, _ = struct.unpack(">iiQQII", data[8 + 32 * i:40 + 32 * i])
            out.append((CPU.get(cpu & 0xFFFFFFFF, hex(cpu)), off, size))
        return out
    cpu = struct.unpack("<i", data[4:8])[0]
    return [(CPU.get(cpu & 0xFFFFFFFF, hex(cpu)), 0, len(data))]


def macho_commands(data, off):
    magic, cpu, _, _, ncmds, _, _ = struct.unpack("<IiIIIII", data[off:off + 28])
    if magic != 0xFEEDFACF:
        raise ValueError("not a 64-bit Mach-O")
    p = off + 32
    for _ in range(ncmds):
        cmd, size = struct.unpack("<II", data[p:p + 8])
        yield cmd, data[p:p + size]
        p += size


def version(v):
    return (v >> 16, (v >> 8) & 0xFF)


HASHES = {1: "sha1", 2: "sha256", 3: "sha256"}  # CodeDirectory hashType (3: SHA-256 truncated to 20 bytes)
SPECIAL_SLOTS = {2: 2, 5: 5, 7: 7}  # superblob blob type -> special slot: requirements, entitlements, DER entitlements


def verify_signature(data, off, cmds):
    """(kind, problem) of a Mach-O slice's code signature, verified as codesign --verify does for
    ad-hoc code: every CodeDirectory's page hashes match the slice's bytes up to the signature,
    its special slots match the blobs present. kind: unsigned, ad-hoc or signed (a CMS blob)."""
    import hashlib
    sig = [body for cmd, body in cmds if cmd == LC_CODE_SIGNATURE]
    if not sig:
        return "unsigned", "no LC_CODE_SIGNATURE"
    dataoff, datasize = struct.unpack("<II", sig[0][8:16])
    blob = data[off + dataoff:off + dataoff + datasize]
    magic, _, count = struct.unpack(">III", blob[:12])
    if magic != 0xFADE0CC0:
        return "bad", "no embedded-signature superblob"
    blobs = {}
    for i in range(count):
        btype, boff = struct.unpack(">II", blob[12 + 8 * i:20 + 8 * i])
        blen = struct.unpack(">I", blob[boff + 4:boff + 8])[0]
        blobs[btype] = blob[boff:boff + blen]
    dirs = [b for t, b in blobs.items() if t == 0 or 0x1000 <= t < 0x1005]
    if not dirs:
        return "bad", "no CodeDirectory"
    kind = "ad-hoc"
    for cd in dirs:
        (_, _, _, flags, hash_off, ident_off, n_special, n_code, code_limit, hash_size, hash_type, _,
         page_log) = struct.unpack(">IIIIIIIIIBBBB", cd[:40])
        if not flags & 0x2:
            kind = "signed"
        algo = HASHES.get(hash_type)
        if algo is None:
            return "bad", "unknown hash type %d" % hash_type
        if code_limit != dataoff:
            return "bad", "code limit %d is not the signature's offset %d" % (code_limit, dataoff)
        page = 1 << page_log if page_log else code_limit
        for i in range(n_code):
            chunk = data[off + i * page:off + min((i + 1) * page, code_limit)]
            want = cd[hash_off + i * hash_size:hash_off + (i + 1) * hash_size]
            if hashlib.new(algo, chunk).digest()[:hash_size] != want:
                return "bad", "page %d's %s hash differs (the code changed after signing)" % (i, algo)
        if n_code != (code_limit + page - 1) // page:
            return "bad", "%d page hashes for %d bytes" % (n_code, code_limit)
        for btype, slot in SPECIAL_SLOTS.items():
            if slot > n_special:
                continue
            want = cd[hash_off - slot * hash_size:hash_off - (slot - 1) * hash_size]
            got = hashlib.new(algo, blobs[btype]).digest()[:hash_size] if btype in blobs else bytes(hash_size)
            if got != want:
                return "bad", "special slot %d does not match its blob" % slot
        ident = cd[ident_off:cd.index(b"\0", ident_off)].decode(errors="replace")
        if not ident:
            return "bad", "no identifier"
    return kind, "%d code director%s, identifier %s" % (len(dirs), "y" if len(dirs) == 1 else "ies", ident)


def check_macho_fat(name, path, archs):
    funcs, abi = header()
    data = open(path, "rb").read()
    slices = macho_slices(data)
    got_archs = tuple(sorted(a for a, _, _ in slices))
    report(got_archs == tuple(sorted(archs)), name, "slices " + " + ".join(archs), " ".join(got_archs))
    for arch, off, _ in slices:
        trie = run(tool("objdump"), "--macho", "--exports-trie", "--arch=" + arch, path)
        exported = {s[1:] for s in re.findall(r"^0x[0-9A-Fa-f]+\s+(\S+)", trie, re.M)}
        report(exported == funcs, name, "%s exports = the header's %d functions" % (arch, len(funcs)), diff(exported, funcs))
        cmds = list(macho_commands(data, off))
        minos = None
        for cmd, body in cmds:
            if cmd == LC_BUILD_VERSION:
                minos = version(struct.unpack("<I", body[12:16])[0])
            elif cmd == LC_VERSION_MIN_MACOSX:
                minos = version(struct.unpack("<I", body[8:12])[0])
        report(minos is not None and minos <= MINOS[arch], name, "%s minimum macOS <= %d.%d" % ((arch,) + MINOS[arch]),
               "built for %s" % (".".join(map(str, minos)) if minos else "unknown"))
        kind, detail = verify_signature(data, off, cmds)
        report(kind in ("ad-hoc", "signed"), name, "%s code signature (ad-hoc or better) verifies" % arch, kind + ": " + detail)
        got = abi_from_disassembly(path, "_onity_abi_version", arch)
        report(got == abi, name, "%s abi %d read from onity_abi_version's code" % (arch, abi), "read %s" % got)
    rcodesign_verify(name, path)


def rcodesign_verify(name, path):
    """A second, independent verification of the signatures when rcodesign (crates.io:
    cargo install apple-codesign; 49 min to build here at load ~18) is installed: `rcodesign
    verify` checks every slice's code digests."""
    exe = shutil.which("rcodesign") or shutil.which(os.path.expanduser("~/.cargo/bin/rcodesign"))
    if not exe:
        print("%sskip %s: rcodesign verify (cargo install apple-codesign)" % (indent, name))
        return
    p = subprocess.run([exe, "verify", path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    # An ad-hoc signature has no CMS blob: rcodesign reports that, per slice, as its only problem
    # ("no cryptographic signature present"); a changed page gives "code digest mismatch", an
    # unsigned slice "signature data not found".
    lines = [line.split(": ", 1)[-1] if line.startswith("@") else line for line in p.stdout.strip().splitlines()]
    problems = [line for line in lines if not line.startswith(("(the verify command", "Error: problems reported"))
                and line != "no cryptographic signature present"]
    report(not problems, name, "rcodesign verify finds nothing but the ad-hoc signatures' missing CMS blob",
           "; ".join(problems[:3]) or "%d slices checked" % sum(line == "no cryptographic signature present" for line in lines))


def check_macho_archive(name, path, arch):
    _, abi = header()
    check_globals(name, path, "_")
    fmt = set(re.findall(r"Format:\s*(.+)", run(tool("readobj"), "--file-headers", path)))
    report(fmt == {"Mach-O " + arch}, name, "arch " + arch + " (every member)", ", ".join(sorted(fmt)))
    heads = run(tool("objdump"), "--macho", "--private-headers", path)
    # Objects carry LC_BUILD_VERSION (platform, minos) or the older LC_VERSION_MIN_IPHONEOS (version).
    plats = set(re.findall(r"^\s*platform\s+(\S+)", heads, re.M))
    mins = [tuple(int(x) for x in v.split(".")[:2]) for v in re.findall(r"^\s*minos\s+(\S+)", heads, re.M)]
    for v in re.findall(r"cmd LC_VERSION_MIN_IPHONEOS\n\s*cmdsize \d+\n\s*version (\S+)", heads):
        plats.add("IOS")
        mins.append(tuple(int(x) for x in v.split(".")[:2]))
    other = re.findall(r"cmd (LC_VERSION_MIN_(?:MACOSX|TVOS|WATCHOS))", heads)
    report(bool(plats) and plats <= {"2", "IOS", "ios"} and not other, name, "platform iOS (every member)",
           ", ".join(sorted(plats | set(other))) or "none")
    report(bool(mins) and max(mins) <= MINOS["ios"], name, "minimum iOS <= %d.%d" % MINOS["ios"],
           "newest minos %s" % (".".join(map(str, max(mins))) if mins else "none"))
    got = abi_from_disassembly(path, "_onity_abi_version")
    report(got == abi, name, "abi %d read from onity_abi_version's code" % abi, "read %s" % got)
    ios_link(name, path, abi)


IOS_MAIN = """#![no_std]
#![no_main]
extern "C" { fn onity_abi_version() -> u32; }
#[no_mangle]
pub extern "C" fn main() -> i32 { unsafe { (onity_abi_version() != %d) as i32 } }
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! { loop {} }
"""


def ios_link(name, path, abi):
    """Links the static library into an arm64 iOS executable with rust-lld, libSystem's
    interface taken from the ziglang package (macOS's, relabelled iOS: an approximation of the
    iOS SDK's). Shows the library needs nothing beyond libSystem and links for iOS."""
    import tempfile
    try:
        import ziglang
    except ImportError:
        print("skip %s: iOS link check (python3 -m pip install ziglang)" % name)
        return
    tbd = os.path.join(os.path.dirname(ziglang.__file__), "lib", "libc", "darwin", "libSystem.tbd")
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "usr", "lib"))
        text = open(tbd).read()
        text = re.sub(r"arm64e\.x1-(macos|maccatalyst)|(x86_64|arm64e)-maccatalyst", "", text)
        text = text.replace("arm64e-macos", "arm64-ios").replace("x86_64-macos", "x86_64-ios-simulator")
        text = re.sub(r", *,", ",", re.sub(r", *,", ",", text))
        text = re.sub(r", *\]", " ]", re.sub(r"\[ *,", "[", text))
        open(os.path.join(d, "usr", "lib", "libSystem.tbd"), "w").write(text)
        open(os.path.join(d, "main.rs"), "w").write(IOS_MAIN % abi)
        try:
            run("rustc", "--target", "aarch64-apple-ios", "--emit=obj", "-C", "panic=abort", "-O",
                os.path.join(d, "main.rs"), "-o", os.path.join(d, "main.o"))
            run(rust_lld(), "-flavor", "darwin", "-arch", "arm64", "-platform_version", "ios", "12.0", "12.0",
                "-syslibroot", d, "-o", os.path.join(d, "app"), os.path.join(d, "main.o"), path, "-lSystem")
            report(True, name, "links into an arm64 iOS executable (rust-lld; libSystem only)")
        except (subprocess.CalledProcessError, OSError) as e:
            report(False, name, "links into an arm64 iOS executable (rust-lld; libSystem only)",
                   ((getattr(e, "stderr", "") or str(e)).strip().splitlines() or [""])[0])


def diff(got, want):
    missing = sorted(want - got)
    extra = sorted(got - want)
    parts = []
    if missing:
        parts.append("missing %d: %s" % (len(missing), " ".join(missing[:5])))
    if extra:
        parts.append("extra %d: %s" % (len(extra), " ".join(extra[:5])))
    return "; ".join(parts)


def self_test():
    """--self-test: scripts/check-plugins-self-test.py runs these checks on deliberately wrong
    libraries."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("check_plugins_self_test", os.path.join(ROOT, "scripts", "check-plugins-self-test.py"))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m.self_test(sys.modules[__name__])


def main(argv):
    if "--self-test" in argv:
        return self_test()
    require = "--require" in argv
    names = [a for a in argv if not a.startswith("--")] or list(PLATFORMS)
    for n in names:
        if n not in PLATFORMS:
            sys.exit("check-plugins: unknown platform %s (one of %s)" % (n, " ".join(PLATFORMS)))
    for n in names:
        rel, kind, arch = PLATFORMS[n]
        path = os.path.join(ROOT, rel)
        if not os.path.exists(path):
            if require:
                report(False, n, "artifact present", rel + " missing")
            else:
                print("skip %s: %s not built" % (n, rel))
            continue
        try:
            {"elf-so": check_elf_so, "elf-ar": check_elf_archive, "pe": check_pe, "implib": check_implib,
             "macho-fat": check_macho_fat, "macho-ar": check_macho_archive}[kind](n, path, arch)
        except (subprocess.CalledProcessError, ValueError, struct.error) as e:
            report(False, n, "readable", str(e).strip() + " " + ((getattr(e, "stderr", "") or "").strip().splitlines() or [""])[0])
    print("plugins: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
