#!/usr/bin/env bash
# Fetches UniTask 2.2.5 (Cysharp, MIT licence) from the npm registry for the C# benchmark's
# side-by-side UniTask column, checks the tarball's SHA-512 against the registry's published
# `dist.integrity`, and prepares a copy of its runtime sources that Mono's mcs compiles
# (scripts/unitask_patch.py, tests/csharp/Bench/unitask/). Nothing of UniTask is committed here.
# Prints the prepared source directory on stdout; exits non-zero (with a message) when the
# registry cannot be reached or the tarball does not match.
# Usage: scripts/fetch-unitask.sh [DEST]   (default target/unitask)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="${1:-$ROOT/target/unitask}"
VERSION=2.2.5
# `npm view com.cysharp.unitask@2.2.5 dist.integrity` is
# sha512-OEJc4HumXjKXXtr2TUjgA7YOcPOaLyV9kuWcp7SylFfe1Rzes0UPCJI1a4LtV3Mhg7oxf8FHoLGWr/cHIKHWsw==
# (base64); the same digest in hex:
SHA512=38425ce07ba65e32975edaf64d48e003b60e70f39a2f257d92e59ca7b4b29457ded51cdeb3450f0892356b82ed57732183ba317fc147a0b196aff70720a1d6b3
TGZ="$DEST/com.cysharp.unitask-$VERSION.tgz"
SRC="$DEST/src-$VERSION"
STAMP="$SRC/.prepared"
# The prepared copy is reused only if it was prepared from the same patch and shim files.
KEY="$(cat "$ROOT/scripts/unitask_patch.py" "$ROOT"/tests/csharp/Bench/unitask/*.cs | sha1sum | cut -d' ' -f1)"
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$KEY" ]; then echo "$SRC"; exit 0; fi

mkdir -p "$DEST"
if [ ! -f "$TGZ" ]; then
    echo "fetching UniTask $VERSION with npm pack" >&2
    command -v npm >/dev/null || { echo "fetch-unitask: npm is missing (apt-get install npm)" >&2; exit 3; }
    rm -rf "$TGZ.part" && mkdir -p "$TGZ.part"
    if ! (cd "$TGZ.part" && timeout 180 npm pack --silent "com.cysharp.unitask@$VERSION" >/dev/null 2>&1); then
        rm -rf "$TGZ.part"
        echo "fetch-unitask: npm pack com.cysharp.unitask@$VERSION failed" >&2
        exit 3
    fi
    mv "$TGZ.part/com.cysharp.unitask-$VERSION.tgz" "$TGZ.part.tgz" && rm -rf "$TGZ.part" && mv "$TGZ.part.tgz" "$TGZ"
fi
if ! echo "$SHA512  $TGZ" | sha512sum -c --quiet - >&2; then
    echo "fetch-unitask: $TGZ does not match the published sha512 integrity; removed" >&2
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
cp "$ROOT/tests/csharp/Bench/unitask/Forget.cs" "$SRC/ForgetShim.cs"
echo "$KEY" > "$STAMP"
echo "$SRC"
