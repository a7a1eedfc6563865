#!/usr/bin/env bash
# Builds libonity for every Unity platform from this Linux machine, places each plugin under
# bindings/Plugins/ with its import settings (.meta copied from the committed templates in
# bindings/Plugins~/) and checks every artifact (scripts/check-plugins.py).
#
#   scripts/build-plugins.sh [PLATFORM...]        default: all of them
#
#   linux-x86_64     Plugins/x86_64/libonity.so      cargo-zigbuild, glibc 2.17 floor; the static
#                                                   library for the SDK archive beside it in
#                                                   target/plugins/linux-x86_64/libonity.a
#   windows-x86_64   Plugins/x86_64/onity.dll        Rust's x86_64-win7-windows-gnu target (nightly,
#                                                   -Zbuild-std): loads on Windows 7 SP1, the oldest
#                                                   Windows Unity 2022.3 players run on (no
#                                                   WaitOnAddress); Debian's MinGW-w64 gcc links it
#                                                   (msvcrt.dll C runtime, libgcc linked statically).
#                                                   Import libraries for the SDK archive beside it in
#                                                   target/plugins/windows-x86_64/: onity.dll.lib
#                                                   (MSVC, llvm-dlltool) and libonity.dll.a (MinGW)
#   macos-universal  Plugins/macOS/libonity.dylib    x86_64 + arm64 linked by rust-lld, merged by
#                                                   llvm-lipo; both slices ad-hoc signed by the
#                                                   linker (-adhoc_codesign), verified by the check
#   ios-arm64        Plugins/iOS/libonity.a          static library ([DllImport("__Internal")])
#   android-arm64    Plugins/Android/arm64-v8a/libonity.a
#                                                   static library, linked into the player by
#                                                   IL2CPP ([DllImport("__Internal")]); Mono needs
#                                                   a .so, linked with the Android NDK (zig has no
#                                                   bionic): recipe in bindings/Plugins~/README.md
#
# Every static library exports only the onity_* functions (scripts/localize-static.py makes the
# Rust runtime's symbols local): it links beside other Rust static libraries.
#
# Needs: rustup targets (added when missing), cargo-zigbuild + ziglang from PyPI (installed with
# pip when missing), LLVM tools (apt-get install llvm) for the checks. The binaries and their
# .meta files in bindings/Plugins are build outputs (git-ignored). A plugin without its .meta
# would be imported by Unity with default settings (Any Platform): never copy one without it.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
PKG="$ROOT/bindings"
PLUG="$PKG/Plugins"
TPL="$PKG/Plugins~"
TGT="${CARGO_TARGET_DIR:-$ROOT/target}"
STAGE="$TGT/plugins"
ALL=(linux-x86_64 windows-x86_64 macos-universal ios-arm64 android-arm64)

platforms=("$@")
[ ${#platforms[@]} -gt 0 ] || platforms=("${ALL[@]}")
for p in "${platforms[@]}"; do
    case " ${ALL[*]} " in *" $p "*) ;; *) echo "usage: $0 [${ALL[*]}]" >&2; exit 2 ;; esac
done

# One profile for every plugin: no debug info (a 5 MB .so otherwise) and fat LTO, which
# internalises the Rust runtime's symbols so that only the onity_* functions are exported.
export CARGO_PROFILE_RELEASE_DEBUG=0 CARGO_PROFILE_RELEASE_LTO=fat

# The versions these scripts were checked with (macos_sdk and check-plugins.py read files inside the
# ziglang package): pinned, so that a new release cannot change a CI run by itself.
ZIG_PIP=(ziglang==0.17.1 cargo-zigbuild==0.24.1)

need_zig() {
    if ! command -v cargo-zigbuild >/dev/null 2>&1 || ! python3 -c 'import ziglang' 2>/dev/null; then
        if [ "$(id -u)" = 0 ]; then
            echo "installing ${ZIG_PIP[*]} with pip..."
            # Debian's own python3 comes without pip (python3-pip) and, with it, refuses installs
            # outside a venv unless told (PEP 668); other Pythons (pyenv's) install as they are.
            python3 -m pip --version >/dev/null 2>&1 \
                || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-pip >/dev/null; } || true
            local pip=(python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore)
            "${pip[@]}" "${ZIG_PIP[@]}" || "${pip[@]}" --break-system-packages "${ZIG_PIP[@]}" || true
            hash -r
        fi
        command -v cargo-zigbuild >/dev/null 2>&1 && python3 -c 'import ziglang' 2>/dev/null \
            || { echo "cargo-zigbuild/ziglang missing: python3 -m pip install ${ZIG_PIP[*]}" >&2; exit 2; }
    fi
}

# staticlib SRC REL: SRC with every global but onity_* made local, at REL (under bindings/Plugins
# with its .meta, or an absolute path).
staticlib() {
    local src="$1" rel="$2" out
    [ -f "$src" ] || { echo "build output missing: $src" >&2; exit 1; }
    out="$STAGE/localized/$(echo "$rel" | tr / _)"
    mkdir -p "$STAGE/localized"
    python3 scripts/localize-static.py "$src" "$out"
    case "$rel" in
    /*) install -D -m 0644 "$out" "$rel"; echo "placed $rel ($(stat -c %s "$rel") bytes)" ;;
    *) place "$rel" "$out" ;;
    esac
}

# The Windows 7 build: nightly with rust-src (-Zbuild-std, a tier-3 target) and MinGW-w64's gcc
# (Debian's links msvcrt.dll, which every Windows has; zig's MinGW links the Universal CRT).
need_win7() {
    rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
    rustup component list --toolchain nightly --installed | grep -q '^rust-src' || rustup component add rust-src --toolchain nightly
    if ! command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends gcc-mingw-w64-x86-64-win32 >/dev/null
    fi
    command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 || { echo "MinGW-w64 gcc missing: apt-get install gcc-mingw-w64-x86-64-win32" >&2; exit 2; }
}

need_target() {
    rustup target list --installed 2>/dev/null | grep -qx "$1" || rustup target add "$1"
}

# place REL SRC: the plugin at bindings/Plugins/REL, its .meta and the metas of the folders above.
place() {
    local rel="$1" src="$2" d
    [ -f "$src" ] || { echo "build output missing: $src" >&2; exit 1; }
    install -D -m 0644 "$src" "$PLUG/$rel"
    cp "$TPL/$rel.meta" "$PLUG/$rel.meta"
    d="$(dirname "$rel")"
    while [ "$d" != "." ]; do
        cp "$TPL/$d.meta" "$PLUG/$d.meta"
        d="$(dirname "$d")"
    done
    cp "$TPL/Plugins.meta" "$PKG/Plugins.meta"
    echo "placed bindings/Plugins/$rel ($(stat -c %s "$PLUG/$rel") bytes)"
}

# The exports of the Windows DLL, from the header: the MSVC import library's definition.
def_file() {
    mkdir -p "$STAGE"
    { echo "LIBRARY onity.dll"; echo "EXPORTS"
      grep -oE '^[A-Za-z_][A-Za-z_0-9 *]*\bonity_[a-z_0-9]+\(' include/onity.h | grep -oE 'onity_[a-z_0-9]+' | sed 's/^/    /'
    } > "$STAGE/onity.def"
    echo "$STAGE/onity.def"
}

llvm_tool() {
    local p
    p="$(command -v "llvm-$1" || ls /usr/lib/llvm-*/bin/"llvm-$1" 2>/dev/null | sort -V | tail -n 1)"
    [ -x "$p" ] || { echo "llvm-$1 missing: apt-get install llvm" >&2; exit 2; }
    echo "$p"
}

# A macOS "SDK" for rust-lld: zig's libSystem.tbd (the only SDK file the link needs), its arm64e
# targets renamed arm64 (LLD matches architectures exactly; zig's own linker, which ignores
# -exported_symbols_list and so exports the whole Rust runtime, is not used for macOS).
macos_sdk() {
    local zig tbd sdk="$STAGE/macos-sdk"
    zig="$(python3 -c 'import ziglang, os; print(os.path.dirname(ziglang.__file__))')"
    tbd="$zig/lib/libc/darwin/libSystem.tbd"
    [ -f "$tbd" ] || { echo "libSystem.tbd not found in the ziglang package ($tbd)" >&2; exit 2; }
    mkdir -p "$sdk/usr/lib"
    sed -E 's/arm64e\.x1-(macos|maccatalyst)//g; s/arm64e-/arm64-/g; s/, *,/,/g; s/, *\]/ ]/g; s/\[ *,/[/g' \
        "$tbd" > "$sdk/usr/lib/libSystem.tbd"
    ln -sf libSystem.tbd "$sdk/usr/lib/libc.tbd"
    ln -sf libSystem.tbd "$sdk/usr/lib/libm.tbd"
    echo "$sdk"
}

build() {
    case "$1" in
    linux-x86_64)
        need_zig
        need_target x86_64-unknown-linux-gnu
        cargo-zigbuild rustc --release --lib --target x86_64-unknown-linux-gnu.2.17 --crate-type cdylib,staticlib
        place x86_64/libonity.so "$TGT"/x86_64-unknown-linux-gnu/release/libonity.so
        staticlib "$TGT"/x86_64-unknown-linux-gnu/release/libonity.a "$STAGE/linux-x86_64/libonity.a"
        ;;
    windows-x86_64)
        need_win7
        local t=x86_64-win7-windows-gnu out="$TGT/win7/x86_64-win7-windows-gnu/release"
        # Its own target directory: nightly's build of std and of the build scripts stays apart.
        # rustc links the unwinder as -lgcc_s (libgcc_s_seh-1.dll, a DLL to ship beside it): a
        # directory searched first offers the static unwinder (libgcc_eh.a) under that name.
        mkdir -p "$STAGE/win7-libgcc"
        cp "$(x86_64-w64-mingw32-gcc -print-file-name=libgcc_eh.a)" "$STAGE/win7-libgcc/libgcc_s.a"
        env CARGO_TARGET_DIR="$TGT/win7" CARGO_TARGET_X86_64_WIN7_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc \
            CARGO_TARGET_X86_64_WIN7_WINDOWS_GNU_RUSTFLAGS="-L native=$STAGE/win7-libgcc -C link-arg=-static-libgcc" \
            cargo +nightly rustc -Zbuild-std=std,panic_unwind --release --lib --target $t --crate-type cdylib
        place x86_64/onity.dll "$out/onity.dll"
        mkdir -p "$STAGE/windows-x86_64"
        install -m 0644 "$out/onity.dll" "$STAGE/windows-x86_64/onity.dll"
        "$(llvm_tool dlltool)" -m i386:x86-64 -d "$(def_file)" -l "$STAGE/windows-x86_64/onity.dll.lib"
        install -m 0644 "$out/libonity.dll.a" "$STAGE/windows-x86_64/libonity.dll.a"
        echo "placed target/plugins/windows-x86_64/: onity.dll, onity.dll.lib (MSVC), libonity.dll.a (MinGW)"
        ;;
    macos-universal)
        need_zig
        local sdk lld lipo arch t
        sdk="$(macos_sdk)"
        lld="$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin/rust-lld"
        lipo="$(llvm_tool lipo)"
        for arch in x86_64 aarch64; do
            t="$arch-apple-darwin"
            need_target "$t"
            env SDKROOT="$sdk" MACOSX_DEPLOYMENT_TARGET="$([ $arch = x86_64 ] && echo 10.13 || echo 11.0)" \
                "CARGO_TARGET_$(echo "$t" | tr a-z- A-Z_)_LINKER=$lld" \
                "CARGO_TARGET_$(echo "$t" | tr a-z- A-Z_)_RUSTFLAGS=-C linker-flavor=ld64.lld -C link-arg=-install_name -C link-arg=@rpath/libonity.dylib -C link-arg=-adhoc_codesign" \
                cargo rustc --release --lib --target "$t" --crate-type cdylib
        done
        mkdir -p "$STAGE"
        "$lipo" -create -output "$STAGE/libonity.dylib" \
            "$TGT"/x86_64-apple-darwin/release/libonity.dylib "$TGT"/aarch64-apple-darwin/release/libonity.dylib
        place macOS/libonity.dylib "$STAGE/libonity.dylib"
        ;;
    ios-arm64)
        need_target aarch64-apple-ios
        cargo rustc --release --lib --target aarch64-apple-ios --crate-type staticlib
        need_zig
        staticlib "$TGT"/aarch64-apple-ios/release/libonity.a iOS/libonity.a
        ;;
    android-arm64)
        need_target aarch64-linux-android
        cargo rustc --release --lib --target aarch64-linux-android --crate-type staticlib
        staticlib "$TGT"/aarch64-linux-android/release/libonity.a Android/arm64-v8a/libonity.a
        rm -f "$TPL/Android/arm64-v8a/libonity.a"  # where earlier versions put it: not shipped twice
        ;;
    esac
}

status=0
for p in "${platforms[@]}"; do
    echo "== $p"
    build "$p"
    checks=("$p")
    [ "$p" = linux-x86_64 ] && checks+=(linux-x86_64-static)
    [ "$p" = windows-x86_64 ] && checks+=(windows-x86_64-msvc-implib windows-x86_64-mingw-implib)
    python3 scripts/check-plugins.py --require "${checks[@]}" || status=1
done
python3 tests/unity/gen_meta.py --check >/dev/null || { python3 tests/unity/gen_meta.py --check; status=1; }
exit $status
