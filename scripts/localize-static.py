#!/usr/bin/env python3
"""Makes a static library export only the onity_* functions: every other global symbol it defines
(Rust's std, compiler builtins, allocator shims) becomes local, so that the library can be linked
into one program beside another Rust static library without duplicate or mixed-up symbols.

  scripts/localize-static.py IN.a OUT.a

The archive's members are partially linked into one object (ELF: rust-lld -r --whole-archive;
Mach-O: zig cc -r, LLD's Mach-O port has no -r), whose non-onity_* globals llvm-objcopy then makes
local (--keep-global-symbol), and the object is archived alone (llvm-ar). Undefined symbols (libc,
libSystem, the unwinder) stay as they were. ELF: LLVM's tools (Debian: apt-get install llvm) or,
without them, rustup's llvm-tools; Mach-O: rustup's llvm-tools component (llvm-objcopy localizes
Mach-O symbols from LLVM 15 on; `rustup component add llvm-tools`, added when missing) and the
ziglang package (python3 -m pip install ziglang).
"""
import os
import re
import subprocess
import sys
import tempfile

KEEP = "onity_*"


def run(*args):
    return subprocess.run(args, check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True).stdout


def rust_bin(name):
    """A tool of the Rust toolchain's own LLVM (rust-lld; llvm-objcopy and llvm-ar of llvm-tools)."""
    sysroot = run("rustc", "--print", "sysroot").strip()
    host = re.search(r"^host: (\S+)", run("rustc", "-vV"), re.M).group(1)
    path = os.path.join(sysroot, "lib", "rustlib", host, "bin", name)
    if not os.path.exists(path) and name.startswith("llvm-"):
        subprocess.run(["rustup", "component", "add", "llvm-tools"], check=True)
    if not os.path.exists(path):
        sys.exit("localize-static: %s missing (rustup component add llvm-tools)" % path)
    return path


def llvm(name, macho):
    """llvm-NAME: the system's for ELF when installed, else (and always for Mach-O) the Rust
    toolchain's (llvm-tools)."""
    if not macho:
        import glob
        import shutil
        for cand in ["llvm-" + name] + sorted(glob.glob("/usr/lib/llvm-*/bin/llvm-" + name), reverse=True):
            found = shutil.which(cand)
            if found:
                return found
    return rust_bin("llvm-" + name)


def kind(path):
    """'elf' or 'macho' with the Mach-O architecture, from the first member's header."""
    out = run(llvm("readobj", False), "--file-headers", path)
    fmt = re.search(r"Format:\s*(.+)", out).group(1).strip()
    if fmt.startswith("elf"):
        return "elf", None
    m = re.match(r"Mach-O (\S+)", fmt)
    if m:
        return "macho", {"arm64": "aarch64", "x86-64": "x86_64"}.get(m.group(1), m.group(1))
    sys.exit("localize-static: %s: unsupported format %s" % (path, fmt))


def macho_target(path, arch):
    """zig's target for the merge: the members' platform and their newest minimum OS version
    (zig would otherwise stamp its own default on the merged object)."""
    heads = run(llvm("objdump", True), "--macho", "--private-headers", path)
    ios = bool(re.search(r"platform\s+(?:2|IOS|ios)\b", heads)) or "LC_VERSION_MIN_IPHONEOS" in heads
    mins = re.findall(r"^\s*minos\s+(\S+)", heads, re.M)
    mins += re.findall(r"cmd LC_VERSION_MIN_\w+\n\s*cmdsize \d+\n\s*version (\S+)", heads)
    if not mins:
        sys.exit("localize-static: %s: no minimum OS version in its members" % path)
    newest = max(mins, key=lambda v: tuple(int(x) for x in v.split(".")))
    return "%s-%s.%s-none" % (arch, "ios" if ios else "macos", newest)


def localize(src, dst):
    fmt, arch = kind(src)
    with tempfile.TemporaryDirectory() as d:
        obj = os.path.join(d, "onity.o")
        if fmt == "elf":
            run(rust_bin("rust-lld"), "-flavor", "gnu", "-r", "--whole-archive", os.path.abspath(src), "-o", obj)
            prefix = ""
        else:
            members = os.path.join(d, "members")
            os.makedirs(members)
            names = run(llvm("ar", True), "t", src).split()
            dup = sorted({n for n in names if names.count(n) > 1})
            if dup:
                sys.exit("localize-static: %s holds members of one name (%s): cannot extract them" % (src, " ".join(dup[:3])))
            subprocess.run([llvm("ar", True), "x", os.path.abspath(src)], cwd=members, check=True)
            objs = [os.path.join(members, n) for n in names if open(os.path.join(members, n), "rb").read(4) == b"\xcf\xfa\xed\xfe"]
            target = macho_target(src, arch)
            subprocess.run([sys.executable, "-m", "ziglang", "cc", "-target", target, "-r", "-o", obj] + objs,
                           check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            prefix = "_"
        macho = fmt == "macho"
        run(llvm("objcopy", macho), "--strip-debug", "--wildcard", "--keep-global-symbol=" + prefix + KEEP, obj)
        if os.path.exists(dst):
            os.remove(dst)
        run(llvm("ar", macho), "rcs", "--format=" + ("darwin" if macho else "gnu"), dst, obj)


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    localize(argv[0], argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
