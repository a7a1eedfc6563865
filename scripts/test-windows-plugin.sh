#!/usr/bin/env bash
# Runs the C test programs (tests/c/*.c, tests/c/*/) against the Windows plugin bindings/Plugins/x86_64/onity.dll
# under Wine set to Windows 7 SP1: each program cross-compiled with the MinGW-w64 gcc the DLL's
# build uses (msvcrt.dll; zig's, which builds its own C runtime first, when that gcc is missing)
# against the DLL's MinGW import library, run by wine64 next to a copy of the DLL, must exit 0 and
# print its final "OK".
# Not part of scripts/test-all.sh (Wine is a large install): run after scripts/build-plugins.sh
# windows-x86_64, as root it installs wine64 from Debian. Ends with "windows-dll: N passed, N failed".
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
DLL="$ROOT/bindings/Plugins/x86_64/onity.dll"
TGT="${CARGO_TARGET_DIR:-$ROOT/target}"
IMPLIB="$TGT/plugins/windows-x86_64/libonity.dll.a"
OUT="$TGT/windows-dll-test"
[ -f "$DLL" ] && [ -f "$IMPLIB" ] || { echo "build it first: scripts/build-plugins.sh windows-x86_64" >&2; exit 2; }
if ! command -v wine64 >/dev/null 2>&1 && ! command -v wine >/dev/null 2>&1 && [ ! -x /usr/lib/wine/wine64 ]; then
    if [ "$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wine64 >/dev/null; fi
fi
WINE="$(command -v wine64 || command -v wine || ls /usr/lib/wine/wine64 2>/dev/null || true)"  # Debian: wine64 alone installs no wine in PATH
[ -n "$WINE" ] || { echo "wine64 missing: apt-get install wine64" >&2; exit 2; }
mkdir -p "$OUT"
cp "$DLL" "$OUT/onity.dll"
export WINEPREFIX="$OUT/wineprefix" WINEDEBUG=-all
"$WINE" winecfg /v win7 >/dev/null 2>&1 || true
echo "under $("$WINE" cmd /c ver 2>/dev/null | tr -d '\r' | grep -m1 .)"
if command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1; then
    CC=(x86_64-w64-mingw32-gcc); LIBS=(-static -lpthread)
else
    CC=(python3 -m ziglang cc -target x86_64-windows-gnu); LIBS=()
fi
passed=0
failed=0
# A program is tests/c/NAME.c or the directory tests/c/NAME/ (its *.c built together).
for src in tests/c/*.c tests/c/*/; do
    name="$(basename "$src" .c)"
    if [ -d "$src" ]; then srcs=("$src"*.c); else srcs=("$src"); fi
    if ! "${CC[@]}" -std=c99 -O1 -Iinclude "${srcs[@]}" -o "$OUT/$name.exe" "$IMPLIB" "${LIBS[@]}" > "$OUT/$name.build.txt" 2>&1; then
        echo "FAIL $name: does not build for Windows ($(head -n 1 "$OUT/$name.build.txt"))"
        failed=$((failed + 1))
        continue
    fi
    if (cd "$OUT" && timeout 600 "$WINE" "./$name.exe" > "$name.out.txt" 2>&1) && tail -n 1 "$OUT/$name.out.txt" | tr -d '\r' | grep -qx OK; then
        echo "ok   $name under Wine against onity.dll"
        passed=$((passed + 1))
    else
        echo "FAIL $name under Wine: $(tail -n 3 "$OUT/$name.out.txt" | tr -d '\r' | tr '\n' ' ')"
        failed=$((failed + 1))
    fi
done
echo "windows-dll: $passed passed, $failed failed"
[ "$failed" = 0 ]
