#!/usr/bin/env bash
# Lays out Onity's SDK tree for one platform: headers, libraries, a CMake package and pkg-config
# files. Relocatable: OnityConfig.cmake and the .pc files find the prefix from their own location.
#
#   scripts/install-sdk.sh --prefix DIR [--lib-dir DIR] [--platform P] [--target TRIPLE]
#                          [--native-libs "-lfoo -lbar"]
#
#   --prefix       where the tree goes (created; files already there are overwritten)
#   --lib-dir      where the built libraries are (default: $CARGO_TARGET_DIR/release or target/release)
#   --platform     linux-x86_64 (default), linux-aarch64, macos-universal, windows-x86_64,
#                  ios-arm64 (or ios), android-arm64: only names the files to look for
#   --target       the Rust target whose std the static library carries (default: from --platform);
#                  its system libraries come from `rustc --print native-static-libs` on an empty
#                  staticlib for that target (onity's own dependencies add none): needs the rustup
#                  target, or give them with --native-libs
#
# Files taken from --lib-dir (each when present; at least one library is required):
#   shared   libonity.so (Linux, Android) | libonity.dylib (macOS) | onity.dll (Windows, -> bin/)
#   implib   onity.dll.lib (MSVC) and/or libonity.dll.a (MinGW)                  (Windows, -> lib/)
#   static   libonity.a | onity.lib (Windows MSVC static library)
#
# Tree written:
#   include/onity.h, include/onity.hpp, include/onity/coro.hpp, include/onity/coro/*.hpp
#   lib/<libraries>, bin/onity.dll (Windows)
#   lib/cmake/Onity/OnityConfig.cmake, OnityConfigVersion.cmake, OnityTargets.cmake
#   lib/pkgconfig/onity.pc (shared library), lib/pkgconfig/onity-static.pc (static library)
#
# Targets (find_package(Onity CONFIG REQUIRED)): Onity::onity, Onity::onity_static, Onity::cpp,
# Onity::coro (cmake/OnityTargets.cmake). On static-only platforms (iOS, Android without the .so)
# Onity::onity links Onity::onity_static, and Onity_SHARED_FOUND is FALSE.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit "${1:-2}"; }
die() { echo "install-sdk: $*" >&2; exit 1; }

prefix="" libdir="${CARGO_TARGET_DIR:-$ROOT/target}/release" platform=linux-x86_64 target=""
native=""
native_given=0
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) prefix="${2:?}"; shift 2 ;;
        --lib-dir) libdir="${2:?}"; shift 2 ;;
        --platform) platform="${2:?}"; shift 2 ;;
        --target) target="${2:?}"; shift 2 ;;
        --native-libs) native="${2?}"; native_given=1; shift 2 ;;
        -h|--help) usage 0 ;;
        *) echo "install-sdk: unknown argument: $1" >&2; usage ;;
    esac
done
[ -n "$prefix" ] || { echo "install-sdk: --prefix is required" >&2; usage; }
[ -d "$libdir" ] || die "--lib-dir $libdir: no such directory (build first: cargo build --release --lib)"

case "$platform" in
    linux-x86_64) dtarget=x86_64-unknown-linux-gnu ;;
    linux-aarch64) dtarget=aarch64-unknown-linux-gnu ;;
    macos-universal) dtarget=x86_64-apple-darwin ;; # arm64 needs the same libraries
    windows-x86_64) dtarget=x86_64-pc-windows-gnu ;;
    ios|ios-arm64) platform=ios-arm64; dtarget=aarch64-apple-ios ;;
    android-arm64) dtarget=aarch64-linux-android ;;
    *) die "unknown --platform $platform" ;;
esac
target="${target:-$dtarget}"

version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$ROOT/Cargo.toml" | head -n 1)
abi=$(sed -n 's/^#define ONITY_ABI_VERSION \([0-9]*\)$/\1/p' "$ROOT/include/onity.h")
[ -n "$version" ] && [ -n "$abi" ] || die "cannot read the version from Cargo.toml / include/onity.h"

# The system libraries a static library built for $target needs: std's (libc, crossbeam-queue and
# once_cell add none), read from rustc on an empty staticlib (no cargo, under a second).
if [ "$native_given" = 0 ]; then
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    : > "$tmp/e.rs"
    native=$(rustc --target "$target" --crate-type staticlib --crate-name onity_probe \
        --print native-static-libs --out-dir "$tmp" "$tmp/e.rs" 2>&1 |
        sed -n 's/.*native-static-libs: //p') || true
    [ -n "$native" ] || die "rustc found no std for $target: rustup target add $target, or pass --native-libs"
fi

lib="$prefix/lib"
mkdir -p "$prefix/include/onity/coro" "$lib/cmake/Onity" "$lib/pkgconfig"
install -m 0644 "$ROOT/include/onity.h" "$ROOT/include/onity.hpp" "$prefix/include/"
install -m 0644 "$ROOT/include/onity/coro.hpp" "$prefix/include/onity/"
install -m 0644 "$ROOT"/include/onity/coro/*.hpp "$prefix/include/onity/coro/"

shared="" static="" implibs=()
have() { # have NAME DESTDIR: copies $libdir/NAME into DESTDIR when present (status 1 when absent)
    [ -f "$libdir/$1" ] || return 1
    mkdir -p "$2" && install -m 0644 "$libdir/$1" "$2/$1" || die "cannot copy $libdir/$1 to $2"
}
case "$platform" in
    windows-*)
        ! have onity.dll "$prefix/bin" || shared=onity.dll
        for f in onity.dll.lib libonity.dll.a; do ! have "$f" "$lib" || implibs+=("$f"); done
        [ -z "$shared" ] || [ ${#implibs[@]} -gt 0 ] \
            || die "onity.dll without an import library (onity.dll.lib or libonity.dll.a) in $libdir"
        for f in libonity.a onity.lib; do ! have "$f" "$lib" || static="$static $f"; done ;;
    macos-*) ! have libonity.dylib "$lib" || shared=libonity.dylib ;;
    ios-*) ;;
    *) ! have libonity.so "$lib" || shared=libonity.so ;;
esac
case "$platform" in windows-*) ;; *) ! have libonity.a "$lib" || static=libonity.a ;; esac
static=${static# }
[ -n "$shared$static" ] || die "no Onity library for $platform in $libdir"

install -m 0644 "$ROOT/cmake/OnityTargets.cmake" "$lib/cmake/Onity/"
cat > "$lib/cmake/Onity/OnityConfig.cmake" <<EOF
# Onity $version (ABI $abi) for $platform; written by scripts/install-sdk.sh. Relocatable: the
# prefix is found from this file's location. Targets: see OnityTargets.cmake.
# Once per directory: imported targets are seen in the directory that defined them and below, so a
# find_package(Onity) in a sibling directory defines them again there (include_guard would not).
if(TARGET Onity::onity)
  return()
endif()
get_filename_component(_onity_prefix "\${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(Onity_PLATFORM "$platform")
set(Onity_ABI_VERSION $abi)
# System libraries of the static library (rustc --print native-static-libs, target $target).
set(Onity_NATIVE_STATIC_LIBS "$native")
include("\${CMAKE_CURRENT_LIST_DIR}/OnityTargets.cmake")
onity_native_libs_to_list(_onity_native "\${Onity_NATIVE_STATIC_LIBS}")
set(_onity_args INCLUDE_DIR "\${_onity_prefix}/include" NATIVE_LIBS \${_onity_native})
foreach(_onity_f lib/libonity.so lib/libonity.dylib bin/onity.dll)
  if(EXISTS "\${_onity_prefix}/\${_onity_f}")
    list(APPEND _onity_args SHARED "\${_onity_prefix}/\${_onity_f}")
  endif()
endforeach()
# The import library: MSVC's when linking with MSVC (or clang-cl), else MinGW's, else whichever exists.
if(MSVC)
  set(_onity_implibs lib/onity.dll.lib lib/libonity.dll.a)
  set(_onity_static lib/onity.lib)
else()
  set(_onity_implibs lib/libonity.dll.a lib/onity.dll.lib)
  set(_onity_static lib/libonity.a)
endif()
foreach(_onity_f IN LISTS _onity_implibs)
  if(EXISTS "\${_onity_prefix}/bin/onity.dll" AND EXISTS "\${_onity_prefix}/\${_onity_f}")
    list(APPEND _onity_args IMPLIB "\${_onity_prefix}/\${_onity_f}")
    break()
  endif()
endforeach()
if(EXISTS "\${_onity_prefix}/\${_onity_static}")
  list(APPEND _onity_args STATIC "\${_onity_prefix}/\${_onity_static}")
endif()
onity_define_targets(\${_onity_args})
set(Onity_INCLUDE_DIR "\${_onity_prefix}/include")
unset(_onity_args)
unset(_onity_f)
unset(_onity_implibs)
unset(_onity_native)
unset(_onity_static)
EOF

cat > "$lib/cmake/Onity/OnityConfigVersion.cmake" <<EOF
# Onity $version: compatible with a request of the same major version (the same minor while the
# major is 0) that is not newer; 64-bit only.
set(PACKAGE_VERSION "$version")
if(PACKAGE_FIND_VERSION VERSION_GREATER PACKAGE_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
elseif("$version" MATCHES "^0\\\\." AND NOT PACKAGE_FIND_VERSION_MAJOR STREQUAL "0")
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
elseif("$version" MATCHES "^0\\\\." AND NOT "\${PACKAGE_FIND_VERSION_MAJOR}.\${PACKAGE_FIND_VERSION_MINOR}" STREQUAL "${version%.*}")
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
elseif(NOT "$version" MATCHES "^0\\\\." AND NOT PACKAGE_FIND_VERSION_MAJOR STREQUAL "${version%%.*}")
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
else()
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
  if(PACKAGE_FIND_VERSION STREQUAL PACKAGE_VERSION)
    set(PACKAGE_VERSION_EXACT TRUE)
  endif()
endif()
if(CMAKE_SIZEOF_VOID_P AND NOT CMAKE_SIZEOF_VOID_P STREQUAL "8")
  set(PACKAGE_VERSION "\${PACKAGE_VERSION} (64-bit)")
  set(PACKAGE_VERSION_UNSUITABLE TRUE)
endif()
EOF

pc_head="prefix=\${pcfiledir}/../..
includedir=\${prefix}/include
libdir=\${prefix}/lib
abi_version=$abi
"
if [ -n "$shared" ]; then
    libs='-L${libdir} -lonity'
    # MinGW: the import library by path (GNU ld finds libonity.dll.a from -lonity, zig's lld does not).
    [ ${#implibs[@]} = 0 ] || libs="\${libdir}/${implibs[-1]}"
    cat > "$lib/pkgconfig/onity.pc" <<EOF
${pc_head}
Name: onity
Description: Onity native, a frame-based async task runtime (shared library; no rpath: add -Wl,-rpath,\${libdir})
Version: $version
Cflags: -I\${includedir}
Libs: $libs
Libs.private: $native
EOF
fi
if [ -n "$static" ]; then
    first=${static%% *}
    cat > "$lib/pkgconfig/onity-static.pc" <<EOF
${pc_head}
Name: onity-static
Description: Onity native, a frame-based async task runtime (static library)
Version: $version
Cflags: -I\${includedir}
Libs: \${libdir}/$first $native
EOF
    # Without the shared library (iOS, Android), onity.pc is the static one.
    [ -n "$shared" ] || sed 's/^Name: onity-static$/Name: onity/' "$lib/pkgconfig/onity-static.pc" > "$lib/pkgconfig/onity.pc"
fi
echo "installed Onity $version (ABI $abi, $platform) in $prefix: shared=${shared:-none}${implibs:+ implib=${implibs[*]}} static=${static:-none}"
