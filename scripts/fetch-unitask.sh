#!/usr/bin/env bash
# Fetches UniTask 2.2.5 (Cysharp, MIT licence) from the npm registry for the C# benchmark's
# side-by-side UniTask column, checks the tarball's SHA-1 against the registry's published
# shasum, and prepares a copy of its runtime sources that Mono's mcs compiles
# (scripts/unitask_patch.py, tests/csharp/Bench/unitask/). Nothing of UniTask is committed here.
# Prints the prepared source directory on stdout; exits non-zero (with a message) when the
# registry cannot be reached or the tarball does not match.
# Usage: scripts/fetch-unitask.sh [DEST]   (default target/unitask)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="${1:-$ROOT/target/unitask}"
VERSION=2.2.5
SHASUM=b8ea78654b0607ad5726d55438929bc8aebcc4c2 # `npm view com.cysharp.unitask@2.2.5 dist.shasum`
URL="https://registry.npmjs.org/com.cysharp.unitask/-/com.cysharp.unitask-$VERSION.tgz"
TGZ="$DEST/com.cysharp.unitask-$VERSION.tgz"
SRC="$DEST/src-$VERSION"
STAMP="$SRC/.prepared"
# The prepared copy is reused only if it was prepared from the same patch and shim files.
KEY="$(cat "$ROOT/scripts/unitask_patch.py" "$ROOT"/tests/csharp/Bench/unitask/*.cs | sha1sum | cut -d' ' -f1)"
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$KEY" ]; then echo "$SRC"; exit 0; fi

mkdir -p "$DEST"
if [ ! -f "$TGZ" ]; then
    echo "fetching UniTask $VERSION from $URL" >&2
    if ! curl -fsSL --connect-timeout 15 --retry 2 --max-time 120 "$URL" -o "$TGZ.part"; then
        rm -f "$TGZ.part"
        echo "fetch-unitask: cannot download $URL" >&2
        exit 3
    fi
    mv "$TGZ.part" "$TGZ"
fi
if ! echo "$SHASUM  $TGZ" | sha1sum -c --quiet - >&2; then
    echo "fetch-unitask: $TGZ does not match the published shasum $SHASUM; removed" >&2
    rm -f "$TGZ"
    exit 4
fi
rm -rf "$SRC" "$DEST/extract"
mkdir -p "$DEST/extract"
tar -xzf "$TGZ" -C "$DEST/extract"
mv "$DEST/extract/package/Runtime" "$SRC"
rm -rf "$DEST/extract"
python3 "$ROOT/scripts/unitask_patch.py" "$SRC" >&2
cp "$ROOT/tests/csharp/Bench/unitask/TaskTracker.cs" "$SRC/Internal/TaskTracker.cs"
cp "$ROOT/tests/csharp/Bench/unitask/UnityStubs.cs" "$SRC/UnityStubs.cs"
echo "$KEY" > "$STAMP"
echo "$SRC"
