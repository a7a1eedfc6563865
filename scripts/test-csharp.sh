#!/usr/bin/env bash
# Builds libonity (release) when needed, checks the generated C# bindings for drift, compiles
# the C# binding + tests with Mono's mcs (C# 7.2, as Unity 2022.3 accepts), builds the native
# test helper and runs the tests under mono. Prints the runner's "N passed, N failed" line;
# exits non-zero on any failure. Extra arguments are test-name filters passed to the runner.
# ONITY_CS_BUILD_ONLY=1 compiles the two test programs and their native libraries only (no API
# parity check, no measurement programs, no run): scripts/test-csharp-aot.sh runs them under full AOT.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
OUT="${ONITY_CS_OUT:-$ROOT/target/csharp}"
mkdir -p "$OUT"
# Mono looks for a P/Invoke library next to the assembly before LD_LIBRARY_PATH: a stray copy
# there would shadow the fresh build in target/release.
rm -f "$OUT/libonity.so"

if ! command -v mcs >/dev/null 2>&1 || ! command -v mono >/dev/null 2>&1; then
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
        echo "mcs/mono missing: installing mono-devel with apt-get" >&2
        apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y mono-devel
    else
        echo "mcs/mono are missing. Install Mono, e.g.: sudo apt-get update && sudo apt-get install -y mono-devel" >&2
        exit 2
    fi
fi

. "$ROOT/scripts/native-lib.sh" # sets LIB; rebuilds it when older than src

# The Rust exports that come in families (src/ffi/families.g.rs: the waits' and combinators' forms,
# which cbindgen reads into include/onity.h) must match their generator too.
python3 scripts/gen_ffi_families.py --check
python3 scripts/gen_csharp_native.py --check
# The tuple WhenAll / WhenAny (2-15 types) are generated too ("tuple-combinators: N passed, N failed").
python3 scripts/gen_csharp_tuple_combinators.py --check
# The generated async LINQ overload families (scripts/gen_csharp_linq.py) must match their generator.
python3 scripts/gen_csharp_linq.py --check

# The main suite is compiled with ONITY_SITES (creation sites compiled in: caller-info parameters);
# the ENABLE_IL2CPP suite below without it (the default build's plain overloads).
mcs -langversion:7.2 -unsafe -optimize+ -debug -nowarn:1591 -define:"ONITY_TEST_HOOKS;ONITY_SITES" -out:"$OUT/OnityTests.exe" \
    -recurse:'bindings/Runtime/*.cs' tests/shared/*.cs tests/csharp/*.cs tests/csharp/Tests/*.cs

BUILD_ONLY="${ONITY_CS_BUILD_ONLY:-0}"
if [ "$BUILD_ONLY" != 1 ]; then
# Both builds (with and without ONITY_SITES) expose the same public API: calls, method-group
# conversions and named arguments compile alike ("api-parity: N passed, N failed").
scripts/check-csharp-api-parity.sh

# The measurement programs (scripts/bench-csharp.sh, icount-csharp.sh, proto-csharp.sh) are only
# compiled here, so that a change to the binding cannot leave them broken. The benchmark is built
# against the UnityEngine stand-in, as scripts/build-csharp-bench.sh builds it (its AsyncOperation
# scenarios, with the binding's Unity integration).
mcs -langversion:7.2 -unsafe -nologo -nowarn:1591,0649,0414,0169 -target:library \
    -out:"$OUT/UnityEngine.dll" -recurse:'tests/unity/StandIn/UnityEngine/*.cs'
for prog in Bench Icount Proto; do
    extra=()
    out="$OUT/check-$prog.exe"
    # The benchmark's assembly name is the one the stand-in gives its internals to (OnityBench).
    [ "$prog" = Bench ] && extra=(-define:ONITY_UNITY_STANDIN -r:"$OUT/UnityEngine.dll") && mkdir -p "$OUT/check-bench" && out="$OUT/check-bench/OnityBench.exe"
    mcs -langversion:7.2 -unsafe -optimize+ -nowarn:1591 -nologo "${extra[@]}" -out:"$out" \
        -recurse:'bindings/Runtime/*.cs' tests/csharp/$prog/*.cs
done
fi

gcc -O2 -shared -fPIC -Iinclude -o "$OUT/libonity_test_helper.so" tests/csharp/native_helper.c \
    -L"$ROOT/target/release" -lonity -lpthread

# The IL2CPP path: the same suite compiled with ENABLE_IL2CPP (as Unity defines it for IL2CPP
# players), where the binding must not reach Reflection.Emit (it throws under AOT). The binding
# alone is compiled that way too and its IL searched for any Emit reference.
mcs -langversion:7.2 -unsafe -optimize+ -debug -nowarn:1591,0649 -define:"ONITY_TEST_HOOKS;ENABLE_IL2CPP" -out:"$OUT/OnityTestsIl2cpp.exe" \
    -recurse:'bindings/Runtime/*.cs' tests/shared/*.cs tests/csharp/*.cs tests/csharp/Tests/*.cs
mcs -langversion:7.2 -unsafe -optimize+ -nowarn:1591,0649 -nologo -target:library -define:ENABLE_IL2CPP -out:"$OUT/Onity.Runtime.Il2cpp.dll" \
    -recurse:'bindings/Runtime/*.cs'
if command -v ikdasm >/dev/null 2>&1; then
    emit=$(ikdasm "$OUT/Onity.Runtime.Il2cpp.dll" | grep -c 'System.Reflection.Emit' || true)
    if [ "$emit" != 0 ]; then
        echo "ENABLE_IL2CPP build of the binding references System.Reflection.Emit ($emit lines):" >&2
        ikdasm "$OUT/Onity.Runtime.Il2cpp.dll" | grep 'System.Reflection.Emit' | head -n 5 >&2
        exit 1
    fi
    echo "ENABLE_IL2CPP build of the binding: no System.Reflection.Emit reference (ikdasm)"
fi

# The C++20 coroutine plugin that shares the runtime with C# (CppCoroutineTests.cs).
g++ -std=c++20 -O2 -Wall -Wextra -Werror -shared -fPIC -Iinclude -o "$OUT/libonity_cpp_plugin.so" \
    examples/cpp/csharp_plugin.cpp -L"$ROOT/target/release" -lonity -lpthread

[ "$BUILD_ONLY" = 1 ] && exit 0
set +e
LD_LIBRARY_PATH="$ROOT/target/release:$OUT${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    mono --debug "$OUT/OnityTests.exe" "$@" | tee "$OUT/test-output.txt"
rc=${PIPESTATUS[0]}
echo "== the same suite compiled with ENABLE_IL2CPP (no Reflection.Emit)"
LD_LIBRARY_PATH="$ROOT/target/release:$OUT${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    mono --debug "$OUT/OnityTestsIl2cpp.exe" "$@" | tee "$OUT/test-output-il2cpp.txt"
rc2=${PIPESTATUS[0]}
set -e
[ "$rc" = 0 ] && [ "$rc2" = 0 ]
