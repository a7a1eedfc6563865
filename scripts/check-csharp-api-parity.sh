#!/usr/bin/env bash
# The public C# API is the same with and without the scripting define ONITY_SITES: user code
# (tests/csharp/ApiParity/Calls.cs) compiles against both builds of the binding, binding the same
# overloads, and each of its CASE_ variants (method-group conversions, named caller-info
# arguments) compiles in both builds or in neither. Prints "api-parity: N passed, N failed".
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
OUT="${ONITY_CS_OUT:-$ROOT/target/csharp}/api-parity"
mkdir -p "$OUT"
SRC=tests/csharp/ApiParity/Calls.cs
for b in default sites; do
    defs=(); [ "$b" = sites ] && defs=(-define:ONITY_SITES)
    mcs -langversion:7.2 -unsafe -nologo -nowarn:1591,0649 -target:library "${defs[@]}" -out:"$OUT/Onity-$b.dll" \
        -recurse:'bindings/Runtime/*.cs' || { echo "api-parity: binding ($b) does not compile"; echo "api-parity: 0 passed, 1 failed"; exit 1; }
done
compiles() { # $1 build, $2 extra define (or empty)
    mcs -langversion:7.2 -nologo -target:library -nowarn:0168,0219,1998 -r:"$OUT/Onity-$1.dll" ${2:+-define:$2} \
        -out:"$OUT/calls-$1.dll" "$SRC" > "$OUT/last-$1.log" 2>&1
}
passed=0; failed=0
for b in default sites; do
    if compiles "$b" ""; then passed=$((passed + 1))
    else failed=$((failed + 1)); echo "FAIL: $SRC does not compile against the $b build:"; grep error "$OUT/last-$b.log" | head -n 5
    fi
done
for c in $(grep -o '^#if CASE_[A-Za-z0-9_]*' "$SRC" | cut -c5-); do
    compiles default "$c"; d=$?
    compiles sites "$c"; s=$?
    if [ "$d" = "$s" ]; then passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL: $c compiles $([ "$d" = 0 ] && echo "only without" || echo "only with") ONITY_SITES:"
        grep -h error "$OUT/last-default.log" "$OUT/last-sites.log" | head -n 2
    fi
done
echo "api-parity: $passed passed, $failed failed"
[ "$failed" = 0 ]
