#!/usr/bin/env bash
# Compiles assemblies ahead of time with `mono --aot=full` (no method left for a JIT, as IL2CPP
# players run), with every assembly they reference:
#   - framework assemblies (mscorlib, System, System.Core, ... as scripts/aot_refs.cs finds them)
#     are copied into a cache, target/aot-framework/<mono version>/, and compiled there once
#     (nothing is written under /usr/lib/mono);
#   - the given assemblies and the ones beside them that they reference (the stand-ins) are
#     compiled in place (FILE.so beside FILE).
# An image is rebuilt only when older than its assembly. The compiles run in parallel, one per
# CPU (ONITY_AOT_JOBS), largest first. Prints the MONO_PATH under which `mono --full-aot` runs the
# assemblies (the cache, then their directories).
# Usage: scripts/aot-compile.sh ASSEMBLY...
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
[ $# -gt 0 ] || { echo "usage: $0 ASSEMBLY..." >&2; exit 2; }
# mscorlib's image holds the trampolines every full-AOT program draws from at run time (4,096 of
# the commonest kind by default: the suite as compiled for Mono ran out of them). Its options are
# part of the cache's name, so that changing them rebuilds the cache.
CORLIB_OPTS="ntrampolines=65536,nrgctx-trampolines=16384,nimt-trampolines=2048,ngsharedvt-trampolines=16384"
FW="$ROOT/target/aot-framework/$(mono --version | sed -n '1s/.*version \([0-9.]*\).*/\1/p')-$(echo "$CORLIB_OPTS" | cksum | cut -d' ' -f1)"
mkdir -p "$FW"
TOOL="$ROOT/target/aot-framework/aot_refs.exe"
if [ ! -f "$TOOL" ] || [ "$ROOT/scripts/aot_refs.cs" -nt "$TOOL" ]; then
    mcs -nologo -out:"$TOOL" "$ROOT/scripts/aot_refs.cs" >&2
fi
# The assembler: mono --aot writes assembly and runs "as" on it. LLVM's llvm-mc (the llvm package
# test-all.sh installs) takes about 1 CPU minute for the Unity test program's 1.1 GB of assembly;
# GNU as took over 5 minutes for the benchmark's 0.4 GB. Through mono's tool-prefix option: an
# "as" that calls llvm-mc (GNU's `.hword` is llvm-mc's `.short`) and an "ld" that is ld.
MC=$(command -v llvm-mc || ls /usr/lib/llvm-*/bin/llvm-mc 2>/dev/null | sort -V | tail -n 1 || true)
# print-skipped: each method the compiler could not compile is named in FILE.aot.log ("Skip (...)";
# scripts/test-csharp-aot.sh fails on any in the test programs).
AOT_OPTS=full,print-skipped
if [ -n "$MC" ] && [ "$(uname -m)" = x86_64 ]; then
    TOOLS="$ROOT/target/aot-framework/tools"
    mkdir -p "$TOOLS"
    cat > "$TOOLS/as" <<AS
#!/bin/sh
# Written by scripts/aot-compile.sh: mono --aot runs "as --64 -o OUT IN".
out= in=
while [ \$# -gt 0 ]; do case "\$1" in --64) ;; -o) out="\$2"; shift ;; *) in="\$1" ;; esac; shift; done
sed 's/^\([[:space:]]*\)\.hword /\1.short /' "\$in" | "$MC" -filetype=obj -triple=x86_64-pc-linux-gnu -o "\$out"
AS
    printf '#!/bin/sh\nexec ld "$@"\n' > "$TOOLS/ld"
    chmod +x "$TOOLS/as" "$TOOLS/ld"
    AOT_OPTS="$AOT_OPTS,tool-prefix=$TOOLS/"
fi
dirs=()
for a in "$@"; do
    d="$(cd "$(dirname "$a")" && pwd)"
    case " ${dirs[*]:-} " in *" $d "*) ;; *) dirs+=("$d") ;; esac
done
SEARCH="$FW$(printf ':%s' "${dirs[@]}")"

# One compile: FILE.so beside FILE. mono --aot insists that the assembly it loads for FILE is FILE
# itself, hence MONO_PATH with FILE's directory first.
aot() {
    local file="$1" opts="$AOT_OPTS" t0
    [ "$(basename "$file")" = mscorlib.dll ] && opts="$opts,$CORLIB_OPTS"
    t0=$(date +%s)
    if ! MONO_PATH="$(dirname "$file"):$SEARCH" mono --aot="$opts" "$file" > "$file.aot.log" 2>&1; then
        tail -n 20 "$file.aot.log" >&2
        echo "aot-compile: mono --aot=full $file failed (log: $file.aot.log)" >&2
        return 1
    fi
    echo "aot-compile: $(basename "$file") in $(( $(date +%s) - t0 )) s ($(sed -n 's/^Compiled: \([0-9]*\/[0-9]*\).*/\1 methods/p' "$file.aot.log" | tail -n 1))" >&2
}
export -f aot
export SEARCH CORLIB_OPTS AOT_OPTS

todo=()
for a in "$@"; do todo+=("$(cd "$(dirname "$a")" && pwd)/$(basename "$a")"); done
for ref in $(mono "$TOOL" "$@"); do
    case " ${dirs[*]} " in
        *" $(dirname "$ref") "*) todo+=("$ref") ;;
        *)
            # A copy of the framework assembly, refreshed when Mono's own copy changes.
            name=$(basename "$ref")
            if [ ! -f "$FW/$name" ] || ! cmp -s "$ref" "$FW/$name"; then cp "$ref" "$FW/$name"; fi
            todo+=("$FW/$name") ;;
    esac
done
# The given assemblies first, in the order given (the test programs: the longest compiles, for
# their generic instantiations), then the others, largest first.
given=() deps=()
for i in "${!todo[@]}"; do
    f="${todo[$i]}"
    [ -f "$f.so" ] && [ "$f.so" -nt "$f" ] && continue
    if [ "$i" -lt $# ]; then given+=("$f"); else deps+=("$f"); fi
done
{ [ ${#given[@]} = 0 ] || printf '%s\n' "${given[@]}"; [ ${#deps[@]} = 0 ] || ls -S "${deps[@]}"; } \
    | xargs -r -d '\n' -P "${ONITY_AOT_JOBS:-$(nproc)}" -n 1 bash -c 'aot "$0"'

echo "$SEARCH"
