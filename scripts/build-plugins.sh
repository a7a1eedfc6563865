#!/usr/bin/env bash
# Builds libonity for Unity and copies it under bindings/Plugins (git-ignored; the .meta import
# settings next to them are committed):
#   Linux x86_64   -> bindings/Plugins/x86_64/libonity.so         (always)
#   Windows x86_64 -> bindings/Plugins/x86_64/onity.dll           (--windows, or ONITY_PLUGINS_WINDOWS=1)
# Windows needs `rustup target add x86_64-pc-windows-gnu` and a MinGW-w64 linker
# (Debian: apt-get install gcc-mingw-w64-x86-64). macOS, Android and iOS recipes are in
# bindings/Plugins/README.md (they need their own SDKs/hosts).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
PLUG="$ROOT/bindings/Plugins"
windows="${ONITY_PLUGINS_WINDOWS:-0}"
for a in "$@"; do
    case "$a" in
        --windows) windows=1 ;;
        *) echo "usage: $0 [--windows]" >&2; exit 2 ;;
    esac
done

cargo build --release
mkdir -p "$PLUG/x86_64"
cp target/release/libonity.so "$PLUG/x86_64/libonity.so"
echo "Linux x86_64:   $PLUG/x86_64/libonity.so"

if [ "$windows" = 1 ]; then
    if ! rustup target list --installed 2>/dev/null | grep -q '^x86_64-pc-windows-gnu$'; then
        rustup target add x86_64-pc-windows-gnu
    fi
    if ! command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1; then
        echo "x86_64-w64-mingw32-gcc missing: apt-get install gcc-mingw-w64-x86-64" >&2
        exit 2
    fi
    cargo build --release --target x86_64-pc-windows-gnu
    cp target/x86_64-pc-windows-gnu/release/onity.dll "$PLUG/x86_64/onity.dll"
    echo "Windows x86_64: $PLUG/x86_64/onity.dll"
fi
