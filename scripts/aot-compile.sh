#!/usr/bin/env bash
# Compiles assemblies ahead of time with `mono --aot=full` (no method left for a JIT, as IL2CPP
# players run), with every assembly they reference:
#   - framework assemblies (mscorlib, System, System.Core, ... as scripts/aot_refs.cs finds them)
#     are copied into a cache, target/aot-framework/<mono version>/, and compiled there once
#     (mscorlib takes minutes; nothing is written under /usr/lib/mono);
#   - the given assemblies and the ones next to them that they reference (the stand-ins) are
#     compiled in place (FILE.so beside FILE), again only when older than their assembly.
# Prints the MONO_PATH under which `mono --full-aot` runs them (the cache, then their directory).
# Usage: scripts/aot-compile.sh ASSEMBLY...   (all in one directory)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
[ $# -gt 0 ] || { echo "usage: $0 ASSEMBLY..." >&2; exit 2; }
DIR="$(cd "$(dirname "$1")" && pwd)"
FW="$ROOT/target/aot-framework/$(mono --version | sed -n '1s/.*version \([0-9.]*\).*/\1/p')"
mkdir -p "$FW"
TOOL="$ROOT/target/aot-framework/aot_refs.exe"
if [ ! -f "$TOOL" ] || [ "$ROOT/scripts/aot_refs.cs" -nt "$TOOL" ]; then
    mcs -nologo -out:"$TOOL" "$ROOT/scripts/aot_refs.cs" >&2
fi

# One compile: FILE.so beside FILE unless newer than FILE. mono --aot insists that the assembly it
# loads for FILE is FILE itself, hence MONO_PATH=its directory first.
aot() {
    local file="$1" path="$2" t0
    [ -f "$file.so" ] && [ "$file.so" -nt "$file" ] && return 0
    t0=$(date +%s)
    if ! MONO_PATH="$path" mono --aot=full "$file" > "$file.aot.log" 2>&1; then
        tail -n 20 "$file.aot.log" >&2
        echo "aot-compile: mono --aot=full $file failed (log: $file.aot.log)" >&2
        return 1
    fi
    echo "aot-compile: $(basename "$file") in $(( $(date +%s) - t0 )) s ($(sed -n 's/^Compiled: \([0-9]*\/[0-9]*\).*/\1 methods/p' "$file.aot.log" | tail -n 1))" >&2
}

refs=$(mono "$TOOL" "$@")
for ref in $refs; do
    if [ "$(dirname "$ref")" = "$DIR" ]; then
        aot "$ref" "$FW:$DIR"
    else
        name=$(basename "$ref")
        # A copy of the framework assembly, refreshed when Mono's own copy changes.
        if [ ! -f "$FW/$name" ] || ! cmp -s "$ref" "$FW/$name"; then cp "$ref" "$FW/$name"; fi
        aot "$FW/$name" "$FW"
    fi
done
for a in "$@"; do aot "$DIR/$(basename "$a")" "$FW:$DIR"; done
echo "$FW:$DIR"
