#!/usr/bin/env bash
# The C++20 coroutine benchmark (benches/cpp/coro_bench.cpp, results in BENCHMARKS.md):
# ns per operation of the coroutine layer and of the C callback API side by side in one
# process (thread CPU time, min and median of N rounds, N = $1, default 50), then callgrind
# instructions per operation (the difference of runs of 20 and 10 measured frames, so setup
# and teardown cancel out). Release library, g++ -O2 (ONITY_CXX=clang++ for clang).
#
#   scripts/bench-cpp20.sh --sdk [PREFIX]
#     instructions only, through the installed SDK (scripts/install-sdk.sh; default: installs the
#     release build into target/sdk-bench): coro_bench built from pkg-config's flags against the
#     shared library (onity.pc) and the static one (onity-static.pc), with g++ and clang++;
#     next_frame and yield, coroutine vs C callback, shared vs static.
set -euo pipefail
cd "$(dirname "$0")/.."
count() { # count EXE SCENARIO FRAMES: instructions of a whole run
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$1" count "$2" "$3" 2>&1 |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
per_op() { # per_op EXE SCENARIO PER_FRAME: instructions per operation (runs of 20 and 10 frames)
    local a b
    a=$(count "$1" "$2" 10)
    b=$(count "$1" "$2" 20)
    awk -v a="$a" -v b="$b" -v p="$3" 'BEGIN { printf "%.1f", (b - a) / 10 / p }'
}

if [ "${1:-}" = --sdk ]; then
    prefix="${2:-}"
    if [ -z "$prefix" ]; then
        cargo build --release --lib >/dev/null 2>&1
        prefix="$PWD/target/sdk-bench"
        scripts/install-sdk.sh --prefix "$prefix" >/dev/null
    fi
    export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
    OUT=target/release/cpp20-bench-sdk
    mkdir -p "$OUT"
    echo "SDK $prefix ($(pkg-config --modversion onity)); load: $(uptime | sed 's/.*load average: //')"
    printf '%-8s %-7s %10s %10s %6s %10s %10s %6s\n' compiler link c_next coro_next ratio c_yield coro_yield ratio
    for cxx in g++ clang++; do
        declare -A v=()
        for link in shared static; do
            pc=onity
            [ "$link" = static ] && pc=onity-static
            # shellcheck disable=SC2046
            "$cxx" -std=c++20 -O2 -g benches/cpp/coro_bench.cpp $(pkg-config --cflags --libs "$pc") \
                -Wl,-rpath,"$prefix/lib" -o "$OUT/coro_bench-$cxx-$link"
            for sc in c_next_frame coro_next_frame c_yield coro_yield; do
                v[$link.$sc]=$(per_op "$OUT/coro_bench-$cxx-$link" "$sc" 4096)
            done
            awk -v c="$cxx" -v l="$link" -v a="${v[$link.c_next_frame]}" -v b="${v[$link.coro_next_frame]}" \
                -v d="${v[$link.c_yield]}" -v e="${v[$link.coro_yield]}" \
                'BEGIN { printf "%-8s %-7s %10.1f %10.1f %5.2fx %10.1f %10.1f %5.2fx\n", c, l, a, b, b / a, d, e, e / d }'
        done
        for sc in c_next_frame coro_next_frame c_yield coro_yield; do
            awk -v c="$cxx" -v s="$sc" -v a="${v[shared.$sc]}" -v b="${v[static.$sc]}" \
                'BEGIN { printf "%-8s shared/static %-16s %6.3f\n", c, s, a / b }'
        done
        unset v
    done
    exit 0
fi

cargo build --release --lib >/dev/null 2>&1
CXX=${ONITY_CXX:-g++}
OUT=target/release/cpp20-bench
mkdir -p "$OUT"
"$CXX" -std=c++20 -O2 -g -Iinclude benches/cpp/coro_bench.cpp -Ltarget/release -lonity \
    -Wl,-rpath,"$PWD/target/release" -o "$OUT/coro_bench"
echo "$CXX; load: $(uptime | sed 's/.*load average: //')"
"$OUT/coro_bench" time "${1:-50}"
echo
printf '%-18s %12s  %s\n' scenario "instr/op" op
for spec in "c_next_frame:4096:task-frame" "coro_next_frame:4096:task-frame" \
            "coro_cycle:4096:start, one next_frame, finish" "c_when_any32:128:group of 32" \
            "coro_when_any32:128:group of 32" "c_yield:4096:task-frame" "coro_yield:4096:task-frame"; do
    IFS=: read -r name per what <<<"$spec"
    printf '%-18s %12s  %s\n' "$name" "$(per_op "$OUT/coro_bench" "$name" "$per")" "$what"
done
# The compiler's own cost of an await, without the runtime: coroutines and C callbacks over the
# same trivial queue (benches/cpp/coro_floor.cpp), instructions per await.
"$CXX" -std=c++20 -O2 benches/cpp/coro_floor.cpp -o "$OUT/coro_floor"
floor() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$OUT/coro_floor" "$1" "$2" 2>&1 |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
for k in c coro; do
    a=$(floor "$k" 10)
    b=$(floor "$k" 20)
    awk -v n="floor_$k" -v a="$a" -v b="$b" \
        'BEGIN { printf "%-18s %12.1f  %s\n", n, (b - a) / 10 / 4096, "await over a trivial queue (no runtime)" }'
done
