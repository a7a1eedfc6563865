#!/usr/bin/env bash
# Verifies the Unity package (bindings/) and the sample project (unity-sample/) without Unity:
#   1. builds libonity (release) when missing or stale;
#   2. compiles the test-only stand-ins of UnityEngine / UnityEditor (tests/unity/StandIn);
#   3. compiles each package assembly as Unity's asmdefs split them (Onity.Runtime without engine
#      references, Onity.Unity for the editor and for players, Onity.Editor) to catch references
#      across assembly boundaries;
#   4. compiles one test program from the package, the sample scripts, Samples~ and the tests
#      (one assembly: mcs crashes on non-generic `async OnityTask` methods when the task type
#      lives in a referenced assembly; Unity's Roslyn does not) and runs it under mono.
# All with mcs -langversion:7.2 -unsafe. Ends with the runner's "N passed, N failed" line;
# exits non-zero on failure. Extra arguments are test-name filters (-v lists passes).
# ONITY_UNITY_BUILD_ONLY=1 stops after compiling (scripts/test-csharp-aot.sh runs the program
# under full AOT).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
OUT="${ONITY_UNITY_OUT:-$ROOT/target/unity-test}"
mkdir -p "$OUT"
# Mono looks for a P/Invoke library next to the assembly before LD_LIBRARY_PATH: a stray copy
# there would shadow the fresh build in target/release.
rm -f "$OUT/libonity.so"

if ! command -v mcs >/dev/null 2>&1 || ! command -v mono >/dev/null 2>&1; then
    echo "mcs/mono are missing. Install Mono, e.g.: sudo apt-get update && sudo apt-get install -y mono-devel" >&2
    exit 2
fi

. "$ROOT/scripts/native-lib.sh" # sets LIB; rebuilds it when older than src

MCS=(mcs -langversion:7.2 -unsafe -nowarn:1591,0649,0414,0169 -nologo)
# The package's own assemblies: an unobserved call of an async method (CS4014, e.g. an
# `async OnityTaskVoid` without .Forget()) is an error there (tests may still fire and forget).
PKG_MCS=("${MCS[@]}" -warnaserror:4014)
# What Unity 2022.3 defines when compiling in the Linux editor (the subset that matters here).
EDITOR_DEFINES="-define:UNITY_5_3_OR_NEWER;UNITY_2019_3_OR_NEWER;UNITY_2022_2_OR_NEWER;UNITY_2022_3_OR_NEWER;UNITY_2022_3;UNITY_EDITOR;UNITY_EDITOR_LINUX;UNITY_STANDALONE_LINUX;ENABLE_MONO;ENABLE_PROFILER;ONITY_UNITY_STANDIN"
PLAYER_DEFINES="-define:UNITY_5_3_OR_NEWER;UNITY_2019_3_OR_NEWER;UNITY_2022_2_OR_NEWER;UNITY_2022_3_OR_NEWER;UNITY_2022_3;UNITY_STANDALONE_LINUX;ENABLE_IL2CPP;ONITY_UNITY_STANDIN"
# What the asmdefs' versionDefines set when the optional modules and packages are present (the
# AssetBundle, Physics, Physics2D and UnityWebRequest modules for Onity.Unity; com.unity.ugui for
# Onity.Unity.UGUI). The player build of Onity.Unity below is compiled without them (and without
# ENABLE_PROFILER, as a release player): the guarded code must compile out cleanly.
# ONITY_ASYNC_INSTANTIATE_SUPPORT: the editor is 2022.3.20+ (Object.InstantiateAsync).
MODULE_DEFINES="-define:ONITY_ASSETBUNDLE_SUPPORT;ONITY_PHYSICS_SUPPORT;ONITY_PHYSICS2D_SUPPORT;ONITY_WEBREQUEST_SUPPORT;ONITY_ASYNC_INSTANTIATE_SUPPORT"
UGUI_DEFINES="-define:ONITY_UGUI_SUPPORT"
# The optional Unity packages with their own Onity assembly (versionDefines): TextMeshPro
# (com.unity.textmeshpro) -> Onity.Unity.TextMeshPro, Addressables -> Onity.Unity.Addressables.
PKG_DEFINES="-define:ONITY_TEXTMESHPRO_SUPPORT;ONITY_ADDRESSABLES_SUPPORT"

echo "== generated message triggers (scripts/gen_csharp_triggers.py --check)"
python3 scripts/gen_csharp_triggers.py --check

echo "== stand-ins"
"${MCS[@]}" -target:library -out:"$OUT/UnityEngine.dll" -recurse:'tests/unity/StandIn/UnityEngine/*.cs'
"${MCS[@]}" -target:library -r:"$OUT/UnityEngine.dll" -out:"$OUT/UnityEditor.dll" -recurse:'tests/unity/StandIn/UnityEditor/*.cs'
"${MCS[@]}" -target:library -r:"$OUT/UnityEngine.dll" -out:"$OUT/UnityEngine.UI.dll" -recurse:'tests/unity/StandIn/UnityEngine.UI/*.cs'
"${MCS[@]}" -target:library -r:"$OUT/UnityEngine.dll" -r:"$OUT/UnityEngine.UI.dll" -out:"$OUT/Unity.TextMeshPro.dll" -recurse:'tests/unity/StandIn/Unity.TextMeshPro/*.cs'
"${MCS[@]}" -target:library -r:"$OUT/UnityEngine.dll" -out:"$OUT/Unity.ResourceManager.dll" -recurse:'tests/unity/StandIn/Unity.ResourceManager/*.cs'
"${MCS[@]}" -target:library -r:"$OUT/UnityEngine.dll" -r:"$OUT/Unity.ResourceManager.dll" -out:"$OUT/Unity.Addressables.dll" -recurse:'tests/unity/StandIn/Unity.Addressables/*.cs'

echo "== package assemblies (asmdef boundaries)"
mkdir -p "$OUT/asm"
# Onity.Runtime: noEngineReferences, so compiled without UnityEngine (Runtime/Unity is its own asmdef).
RUNTIME_SRC=$(find bindings/Runtime -name '*.cs' -not -path 'bindings/Runtime/Unity/*' | sort)
"${PKG_MCS[@]}" -target:library $PLAYER_DEFINES -out:"$OUT/asm/Onity.Runtime.dll" $RUNTIME_SRC
# Onity.Unity: Runtime/Unity without its package folders (own asmdefs: Onity.Unity.UGUI,
# Onity.Unity.TextMeshPro, Onity.Unity.Addressables).
UNITY_SRC=$(find bindings/Runtime/Unity -name '*.cs' -not -path 'bindings/Runtime/Unity/UGUI/*' \
    -not -path 'bindings/Runtime/Unity/TextMeshPro/*' -not -path 'bindings/Runtime/Unity/Addressables/*' | sort)
UGUI_SRC=$( (find bindings/Runtime/Unity/UGUI -name '*.cs' 2>/dev/null || true) | sort)
"${PKG_MCS[@]}" -target:library $EDITOR_DEFINES $MODULE_DEFINES -r:"$OUT/UnityEngine.dll" -r:"$OUT/UnityEditor.dll" -r:"$OUT/asm/Onity.Runtime.dll" \
    -out:"$OUT/asm/Onity.Unity.dll" $UNITY_SRC
if [ -n "$UGUI_SRC" ]; then
    "${PKG_MCS[@]}" -target:library $EDITOR_DEFINES $UGUI_DEFINES -r:"$OUT/UnityEngine.dll" -r:"$OUT/UnityEngine.UI.dll" -r:"$OUT/asm/Onity.Runtime.dll" \
        -r:"$OUT/asm/Onity.Unity.dll" -out:"$OUT/asm/Onity.Unity.UGUI.dll" $UGUI_SRC
fi
"${PKG_MCS[@]}" -target:library $EDITOR_DEFINES $PKG_DEFINES -r:"$OUT/UnityEngine.dll" -r:"$OUT/UnityEngine.UI.dll" -r:"$OUT/Unity.TextMeshPro.dll" \
    -r:"$OUT/asm/Onity.Runtime.dll" -r:"$OUT/asm/Onity.Unity.dll" -out:"$OUT/asm/Onity.Unity.TextMeshPro.dll" $(find bindings/Runtime/Unity/TextMeshPro -name '*.cs' | sort)
"${PKG_MCS[@]}" -target:library $EDITOR_DEFINES $PKG_DEFINES -r:"$OUT/UnityEngine.dll" -r:"$OUT/Unity.ResourceManager.dll" -r:"$OUT/Unity.Addressables.dll" \
    -r:"$OUT/asm/Onity.Runtime.dll" -r:"$OUT/asm/Onity.Unity.dll" -out:"$OUT/asm/Onity.Unity.Addressables.dll" $(find bindings/Runtime/Unity/Addressables -name '*.cs' | sort)
# Player build of Onity.Unity: no UNITY_EDITOR, no UnityEditor reference, no optional module.
mkdir -p "$OUT/asm/player"
"${PKG_MCS[@]}" -target:library $PLAYER_DEFINES -r:"$OUT/UnityEngine.dll" -r:"$OUT/asm/Onity.Runtime.dll" \
    -out:"$OUT/asm/player/Onity.Unity.dll" $UNITY_SRC
"${PKG_MCS[@]}" -target:library $EDITOR_DEFINES -r:"$OUT/UnityEngine.dll" -r:"$OUT/UnityEditor.dll" -r:"$OUT/asm/Onity.Runtime.dll" \
    -r:"$OUT/asm/Onity.Unity.dll" -out:"$OUT/asm/Onity.Editor.dll" $(find bindings/Editor -name '*.cs' | sort)

echo "== test program (package + sample + Samples~ + tests; creation sites compiled in: ONITY_SITES)"
SAMPLE_SRC=$( (find unity-sample/Assets -name '*.cs' 2>/dev/null || true) | sort)
PKG_SAMPLES=$( (find 'bindings/Samples~' -name '*.cs' 2>/dev/null || true) | sort)
"${MCS[@]}" -debug -out:"$OUT/OnityUnityTests.exe" $EDITOR_DEFINES $MODULE_DEFINES $UGUI_DEFINES $PKG_DEFINES \
    -r:"$OUT/UnityEngine.dll" -r:"$OUT/UnityEditor.dll" -r:"$OUT/UnityEngine.UI.dll" \
    -r:"$OUT/Unity.TextMeshPro.dll" -r:"$OUT/Unity.ResourceManager.dll" -r:"$OUT/Unity.Addressables.dll" \
    $(find bindings/Runtime bindings/Editor -name '*.cs' | sort) $SAMPLE_SRC $PKG_SAMPLES \
    -define:"ONITY_UNITY_TESTS;ONITY_SITES" tests/shared/*.cs tests/unity/*.cs tests/unity/Tests/*.cs

[ "${ONITY_UNITY_BUILD_ONLY:-0}" = 1 ] && exit 0

# ONITY_NATIVE_DIR: where libonity.so is loaded from (scripts/test-all.sh passes the glibc-2.17
# plugin it built, bindings/Plugins/x86_64, so the shipped artifact runs this suite).
echo "== native library per player platform (the generated DllImport name and the missing-library error, per Unity's defines)"
# LABEL|DEFINES|EXPECTED LIBRARY|words the error must contain (;-separated). Run where no libonity
# loads: "__Internal" resolves in the mono executable (no onity_* there), "onity" nowhere.
DEFINE_CASES=(
    "iOS IL2CPP player|UNITY_IOS;ENABLE_IL2CPP|__Internal|iOS;Plugins/iOS/libonity.a"
    "Android IL2CPP player|UNITY_ANDROID;ENABLE_IL2CPP|__Internal|Android (ARM64, IL2CPP);Plugins/Android/arm64-v8a/libonity.a"
    "Android Mono player|UNITY_ANDROID;ENABLE_MONO|onity|Android (ARM64, Mono);Scripting Backend to IL2CPP;libonity.so;Android NDK"
    "Linux editor, Android target|UNITY_ANDROID;UNITY_EDITOR;UNITY_EDITOR_LINUX;ENABLE_MONO|onity|Plugins/x86_64/libonity.so"
    "Linux IL2CPP player|UNITY_STANDALONE_LINUX;ENABLE_IL2CPP|onity|Linux players;Plugins/x86_64/libonity.so"
)
mkdir -p "$OUT/defines"
dpassed=0
dfailed=0
for c in "${DEFINE_CASES[@]}"; do
    IFS='|' read -r label defines lib words <<< "$c"
    exe="$OUT/defines/$(echo "$label" | tr -c 'A-Za-z0-9\n' _).exe"
    IFS=';' read -r -a wordv <<< "$words"
    if "${MCS[@]}" -define:"UNITY_5_3_OR_NEWER;UNITY_2022_3_OR_NEWER;UNITY_2022_3;ONITY_UNITY_STANDIN;$defines" -out:"$exe" \
        bindings/Runtime/Native/*.cs bindings/Runtime/Unity/OnityNativeCheck.cs tests/unity/Defines/LibraryChoice.cs \
        && (cd "$OUT/defines" && env -u LD_LIBRARY_PATH mono "$exe" "$label" "$lib" "${wordv[@]}"); then
        dpassed=$((dpassed + 1))
    else
        dfailed=$((dfailed + 1))
    fi
done
echo "platform-defines: $dpassed passed, $dfailed failed"

NATIVE_DIR="${ONITY_NATIVE_DIR:-$ROOT/target/release}"
echo "libonity.so from $NATIVE_DIR"
set +e
ONITY_REPO_ROOT="$ROOT" LD_LIBRARY_PATH="$NATIVE_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    mono --debug "$OUT/OnityUnityTests.exe" "$@" | tee "$OUT/test-output.txt"
rc=${PIPESTATUS[0]}
set -e
[ "$dfailed" = 0 ] || exit 1
exit "$rc"
