#!/usr/bin/env bash
# Consumes Onity the way a C/C++ engine does, from outside the source tree (issue 29 #3):
#   1. installs the SDK tree (scripts/install-sdk.sh) from the release build into a temporary
#      prefix, then moves it (the package must be relocatable);
#   2. CMake: a project (tests/consumer, copied to a temporary directory) finds it with
#      find_package(Onity CONFIG REQUIRED) and builds a C game loop against Onity::onity and
#      Onity::onity_static and a C++20 coroutine program against Onity::coro (g++), and runs them;
#   3. pkg-config: the same programs from a plain Makefile (onity.pc, onity-static.pc; clang++);
#   4. add_subdirectory: the same project with the source tree as a subdirectory (cargo driven by
#      CMake, reusing the release build: one Rust build in all); `cmake --install` of the source
#      tree as the top-level project gives the same tree as install-sdk.sh;
#   5. the engine example (examples/cpp/engine) through the package;
#   6. a static-only platform's tree (iOS, Android: Onity::onity links the static library) built
#      from the host's libonity.a, and the Windows tree's file placement;
#   7. misuse: a version the package does not satisfy, install-sdk.sh without --prefix, without
#      libraries, with an unknown platform, with a DLL but no import library.
# Optional (skipped unless the Windows DLL, wine64 and ziglang are present): the C game loop built
# with zig cc against the installed Windows tree (onity.pc, and the MSVC import library) under Wine.
# Ends with "consumer: N passed, N failed". Installs cmake, pkg-config and make when missing (root).
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"

need=()
command -v cmake >/dev/null || need+=(cmake)
command -v pkg-config >/dev/null || need+=(pkg-config)
command -v make >/dev/null || need+=(make)
if [ ${#need[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then
        echo "installing ${need[*]} from Debian..."
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
    else
        echo "missing: ${need[*]} (apt-get install ${need[*]})" >&2
    fi
fi

passed=0 failed=0
pass() { passed=$((passed + 1)); echo "  ok: $1"; }
fail() { failed=$((failed + 1)); echo "  FAILED: $1"; }
finish() { echo "consumer: $passed passed, $failed failed"; [ "$failed" = 0 ]; exit $?; }

cargo build --release --lib 2>&1 | tail -n 2
TGT="$(cd "${CARGO_TARGET_DIR:-$ROOT/target}" 2>/dev/null && pwd)"
if [ ! -f "$TGT/release/libonity.so" ] || [ ! -f "$TGT/release/libonity.a" ]; then
    fail "cargo build --release --lib made no libonity.so / libonity.a"
    finish
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log="$tmp/log"

# run NAME DIR PROGRAM...: runs each program, expects exit 0 and a last line ending in OK; all the
# programs' lines (without the coroutine/loop difference) must agree between builds.
run() {
    local what="$1" dir="$2" p out
    shift 2
    for p in "$@"; do
        if out=$("$dir/$p" 2>&1) && [ "${out##* }" = OK ]; then
            pass "$what: $p: $out"
            echo "$p $out" >> "$tmp/lines-$what"
        else
            fail "$what: $p: $out"
        fi
    done
}
# build WHAT CMD...: runs a build step quietly; on failure shows its log.
build() {
    local what="$1"
    shift
    if "$@" > "$log" 2>&1; then return 0; fi
    tail -n 30 "$log"
    fail "$what: $*"
    return 1
}

echo "== install (scripts/install-sdk.sh) into a prefix, then moved"
if build install scripts/install-sdk.sh --prefix "$tmp/stage" --lib-dir "$TGT/release"; then
    mv "$tmp/stage" "$tmp/sdk"
    sdk="$tmp/sdk"
    missing=""
    for f in include/onity.h include/onity.hpp include/onity/coro.hpp include/onity/coro/task.hpp \
             lib/libonity.so lib/libonity.a lib/cmake/Onity/OnityConfig.cmake \
             lib/cmake/Onity/OnityConfigVersion.cmake lib/cmake/Onity/OnityTargets.cmake \
             lib/pkgconfig/onity.pc lib/pkgconfig/onity-static.pc; do
        [ -f "$sdk/$f" ] || missing="$missing $f"
    done
    if [ -z "$missing" ]; then pass "install tree complete"; else fail "install tree lacks$missing"; fi
    if grep -rq "$tmp/stage\|$ROOT" "$sdk/lib/cmake" "$sdk/lib/pkgconfig"; then
        fail "the package names the install or source path (not relocatable)"
    else
        pass "package files name no absolute path"
    fi
fi

echo "== CMake: find_package(Onity CONFIG REQUIRED) (g++)"
cp -r tests/consumer "$tmp/src"
if build cmake-configure cmake -S "$tmp/src" -B "$tmp/b-pkg" -DCMAKE_PREFIX_PATH="$tmp/sdk" \
        -DCMAKE_BUILD_TYPE=Release && build cmake-build cmake --build "$tmp/b-pkg" -j 2; then
    run cmake "$tmp/b-pkg" loop_shared loop_static coro_shared coro_static
    needed=$(readelf -d "$tmp/b-pkg/loop_shared" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(libonity[^]]*\)\]/\1/p')
    if [ "$needed" = libonity.so ]; then pass "loop_shared needs libonity.so (not a path)"; else fail "loop_shared DT_NEEDED: '$needed'"; fi
    if readelf -d "$tmp/b-pkg/loop_static" | grep -q libonity; then fail "loop_static needs libonity.so"; else pass "loop_static does not need libonity.so"; fi
fi

echo "== pkg-config + Makefile (cc, clang++ when installed)"
if [ "$(PKG_CONFIG_PATH="$tmp/sdk/lib/pkgconfig" pkg-config --modversion onity)" = \
     "$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)" ]; then
    pass "pkg-config --modversion onity = Cargo.toml's version"
else
    fail "pkg-config --modversion onity"
fi
if PKG_CONFIG_PATH="$tmp/sdk/lib/pkgconfig" pkg-config --static --libs onity | grep -q -- -lpthread; then
    pass "pkg-config --static --libs onity lists the system libraries"
else
    fail "pkg-config --static --libs onity: $(PKG_CONFIG_PATH="$tmp/sdk/lib/pkgconfig" pkg-config --static --libs onity)"
fi
cp -r tests/consumer "$tmp/mk"
mk_cxx=clang++
command -v clang++ >/dev/null || mk_cxx=c++
if build make env PKG_CONFIG_PATH="$tmp/sdk/lib/pkgconfig" make -C "$tmp/mk" CC=cc CXX="$mk_cxx"; then
    run make "$tmp/mk" loop_shared loop_static coro_shared coro_static
fi

echo "== add_subdirectory(<source tree>) (cargo driven by CMake, the release build reused)"
# ONITY_CARGO_ARGS is a command line: "--jobs 2" reaches cargo as two arguments.
if build subdir-configure cmake -S "$tmp/src" -B "$tmp/b-sub" -DONITY_SOURCE_DIR="$ROOT" \
        -DONITY_CARGO_TARGET_DIR="$TGT" -DCMAKE_BUILD_TYPE=Release -DONITY_CARGO_ARGS="--jobs 2" \
        && build subdir-build cmake --build "$tmp/b-sub" -j 2; then
    if grep -q 'Finished `release`' "$log"; then pass "the build ran cargo"; else fail "the build did not run cargo"; fi
    run subdir "$tmp/b-sub" loop_shared loop_static coro_shared coro_static
fi

echo "== cmake --install of the source tree as the top-level project (the same tree as install-sdk.sh)"
if build top-configure cmake -S "$ROOT" -B "$tmp/b-top" -DONITY_CARGO_TARGET_DIR="$TGT" \
        && build top-build cmake --build "$tmp/b-top" \
        && build top-install cmake --install "$tmp/b-top" --prefix "$tmp/sdk-cm"; then
    a=$(cd "$tmp/sdk" && find . -type f | sort | xargs cksum)
    b=$(cd "$tmp/sdk-cm" && find . -type f | sort | xargs cksum)
    if [ -n "$a" ] && [ "$a" = "$b" ]; then pass "cmake --install tree = install-sdk.sh tree"; else fail "cmake --install tree differs: $(diff <(echo "$a") <(echo "$b") | head -n 4)"; fi
fi

# Every build of a program printed the same line.
for p in loop_shared loop_static coro_shared coro_static; do
    n=$(cat "$tmp"/lines-* 2>/dev/null | grep "^$p " | sed "s/^$p //" | sort -u | wc -l)
    [ "$n" = 1 ] || fail "$p printed $n different lines across the builds"
done
a=$(grep -h '^loop_shared ' "$tmp"/lines-* 2>/dev/null | head -n 1 | cut -d' ' -f2-)
b=$(grep -h '^loop_static ' "$tmp"/lines-* 2>/dev/null | head -n 1 | cut -d' ' -f2-)
linux_line="$a"
if [ -n "$a" ] && [ "$a" = "$b" ]; then pass "shared and static builds print the same line"; else fail "shared '$a' vs static '$b'"; fi

echo "== examples/cpp/engine through the package"
cp -r examples/cpp/engine "$tmp/engine"
if build engine-configure cmake -S "$tmp/engine" -B "$tmp/b-engine" -DCMAKE_PREFIX_PATH="$tmp/sdk" \
        -DCMAKE_BUILD_TYPE=Release && build engine-build cmake --build "$tmp/b-engine" -j 2; then
    run engine "$tmp/b-engine" engine
fi

echo "== find_package(Onity) in two sibling directories (and twice in one)"
mkdir -p "$tmp/sib/a" "$tmp/sib/b"
printf '#include <onity.h>\nint main(void) { return onity_abi_version() != ONITY_ABI_VERSION; }\n' > "$tmp/sib/m.c"
printf 'cmake_minimum_required(VERSION 3.18)\nproject(sib C)\nadd_subdirectory(a)\nadd_subdirectory(b)\n' \
    > "$tmp/sib/CMakeLists.txt"
for d in a b; do
    printf 'find_package(Onity CONFIG REQUIRED)\nfind_package(Onity CONFIG REQUIRED)\nadd_executable(m_%s ../m.c)\ntarget_link_libraries(m_%s PRIVATE Onity::onity)\n' \
        "$d" "$d" > "$tmp/sib/$d/CMakeLists.txt"
done
if build sibling-configure cmake -S "$tmp/sib" -B "$tmp/b-sib" -DCMAKE_PREFIX_PATH="$tmp/sdk" \
        && build sibling-build cmake --build "$tmp/b-sib" -j 2; then
    if LD_LIBRARY_PATH="$tmp/sdk/lib" "$tmp/b-sib/a/m_a" && LD_LIBRARY_PATH="$tmp/sdk/lib" "$tmp/b-sib/b/m_b"; then
        pass "find_package(Onity) in sibling directories: both link Onity::onity"
    else
        fail "sibling directories: the programs failed"
    fi
fi

echo "== a static-only platform's tree (the iOS / Android layout, filled with the host's libonity.a)"
mkdir -p "$tmp/static-only"
cp "$TGT/release/libonity.a" "$tmp/static-only/"
if build static-only-install scripts/install-sdk.sh --prefix "$tmp/sdk-ios" --lib-dir "$tmp/static-only" \
        --platform ios-arm64 --target x86_64-unknown-linux-gnu; then
    if [ ! -e "$tmp/sdk-ios/lib/libonity.so" ] && grep -q '^Libs: .*/libonity.a ' "$tmp/sdk-ios/lib/pkgconfig/onity.pc"; then
        pass "static-only tree: no shared library, onity.pc is the static one"
    else
        fail "static-only tree: $(ls "$tmp/sdk-ios/lib")"
    fi
    # Onity::onity links the static library there: the same CMakeLists builds unchanged.
    if build static-only-configure cmake -S "$tmp/src" -B "$tmp/b-ios" -DCMAKE_PREFIX_PATH="$tmp/sdk-ios" \
            && grep -q 'Onity: shared FALSE, static TRUE' "$log" \
            && build static-only-build cmake --build "$tmp/b-ios" --target loop_shared coro_shared -j 2; then
        run static-only "$tmp/b-ios" loop_shared coro_shared
        if readelf -d "$tmp/b-ios/loop_shared" | grep -q libonity; then fail "static-only: Onity::onity needs libonity.so"; else pass "static-only: Onity::onity linked the static library"; fi
    fi
fi

echo "== the Windows tree's layout (file placement only; the DLL itself: scripts/test-windows-plugin.sh)"
mkdir -p "$tmp/win"
for f in onity.dll onity.dll.lib libonity.dll.a libonity.a; do cp "$TGT/release/libonity.a" "$tmp/win/$f"; done
if build windows-install scripts/install-sdk.sh --prefix "$tmp/sdk-win" --lib-dir "$tmp/win" --platform windows-x86_64 \
        --native-libs "-lkernel32 -lntdll"; then
    if [ -f "$tmp/sdk-win/bin/onity.dll" ] && [ -f "$tmp/sdk-win/lib/onity.dll.lib" ] && [ -f "$tmp/sdk-win/lib/libonity.dll.a" ] \
            && [ -f "$tmp/sdk-win/lib/libonity.a" ] && [ ! -e "$tmp/sdk-win/lib/onity.dll" ]; then
        pass "windows tree: bin/onity.dll, lib/onity.dll.lib, lib/libonity.dll.a, lib/libonity.a"
    else
        fail "windows tree: $(cd "$tmp/sdk-win" && find bin lib -maxdepth 1 -type f | tr '\n' ' ')"
    fi
fi

# Optional: the Windows tree consumed under Wine, when the DLL (scripts/build-plugins.sh
# windows-x86_64 stages it in $TGT/plugins/windows-x86_64, or ONITY_WINDOWS_LIB_DIR), wine64 and zig
# are there (not installed here: Wine is a large install).
win_dir="${ONITY_WINDOWS_LIB_DIR:-$TGT/plugins/windows-x86_64}"
WINE="$(command -v wine64 || command -v wine || ls /usr/lib/wine/wine64 2>/dev/null || true)"
if [ -f "$win_dir/onity.dll" ] && [ -n "$WINE" ] && python3 -c 'import ziglang' 2>/dev/null; then
    echo "== Windows: the C game loop against the installed DLL under Wine (zig cc, x86_64-windows-gnu)"
    if build windows-dll-install scripts/install-sdk.sh --prefix "$tmp/sdk-dll" --lib-dir "$win_dir" \
            --platform windows-x86_64; then
        mkdir -p "$tmp/w"
        cp "$tmp/sdk-dll/bin/onity.dll" "$tmp/w/"
        zig=(python3 -m ziglang cc -target x86_64-windows-gnu -std=c99 -O2)
        exes=()
        # shellcheck disable=SC2046
        ! build windows-build-pc "${zig[@]}" tests/consumer/game_loop.c \
            $(PKG_CONFIG_PATH="$tmp/sdk-dll/lib/pkgconfig" pkg-config --cflags --libs onity) -o "$tmp/w/loop_pc.exe" \
            || exes+=(loop_pc.exe)
        # The MSVC import library, given to lld by path.
        if [ -f "$tmp/sdk-dll/lib/onity.dll.lib" ]; then
            ! build windows-build-msvc-implib "${zig[@]}" -I"$tmp/sdk-dll/include" tests/consumer/game_loop.c \
                "$tmp/sdk-dll/lib/onity.dll.lib" -o "$tmp/w/loop_msvc_implib.exe" || exes+=(loop_msvc_implib.exe)
        fi
        export WINEPREFIX="$TGT/consumer-wineprefix" WINEDEBUG=-all
        for exe in "${exes[@]}"; do
            out=$(cd "$tmp/w" && timeout 600 "$WINE" "./$exe" 2>&1 | tr -d '\r' | tail -n 1)
            if [ "$out" = "$linux_line" ]; then pass "wine: $exe: $out"; else fail "wine: $exe: '$out' (Linux: '$linux_line')"; fi
        done
    fi
else
    echo "== Windows under Wine: skipped (needs $win_dir/onity.dll, wine64 and ziglang)"
fi

echo "== misuse"
mkdir -p "$tmp/bad"
cat > "$tmp/bad/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.18)
project(bad NONE)
find_package(Onity 9.0 CONFIG REQUIRED)
EOF
if cmake -S "$tmp/bad" -B "$tmp/b-bad" -DCMAKE_PREFIX_PATH="$tmp/sdk" > "$log" 2>&1; then
    fail "find_package(Onity 9.0) accepted version $(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml)"
elif grep -q 'not compatible\|but this was not found\|The following configuration files were considered' "$log"; then
    pass "find_package(Onity 9.0) is refused"
else
    tail -n 5 "$log"
    fail "find_package(Onity 9.0) failed for another reason"
fi
if scripts/install-sdk.sh --lib-dir "$TGT/release" > "$log" 2>&1; then
    fail "install-sdk.sh without --prefix succeeded"
elif grep -q -- '--prefix is required' "$log"; then pass "install-sdk.sh without --prefix: usage"; else fail "install-sdk.sh without --prefix: $(head -n 1 "$log")"; fi
mkdir -p "$tmp/empty"
if scripts/install-sdk.sh --prefix "$tmp/p2" --lib-dir "$tmp/empty" > "$log" 2>&1; then
    fail "install-sdk.sh with no library succeeded"
elif grep -q 'no Onity library' "$log"; then pass "install-sdk.sh with no library: error"; else fail "install-sdk.sh with no library: $(head -n 1 "$log")"; fi
if scripts/install-sdk.sh --prefix "$tmp/p3" --platform amiga > "$log" 2>&1; then
    fail "install-sdk.sh --platform amiga succeeded"
elif grep -q 'unknown --platform' "$log"; then pass "install-sdk.sh unknown platform: error"; else fail "install-sdk.sh --platform amiga: $(head -n 1 "$log")"; fi

rm "$tmp/win/onity.dll.lib" "$tmp/win/libonity.dll.a"
if scripts/install-sdk.sh --prefix "$tmp/p4" --lib-dir "$tmp/win" --platform windows-x86_64 --native-libs "" > "$log" 2>&1; then
    fail "install-sdk.sh: onity.dll without an import library accepted"
elif grep -q 'without an import library' "$log"; then pass "install-sdk.sh: onity.dll without an import library: error"; else fail "install-sdk.sh windows without implib: $(head -n 1 "$log")"; fi

finish
