#!/usr/bin/env bash
# The C++20 coroutine benchmark (benches/cpp/coro_bench.cpp, results in BENCHMARKS.md):
# ns per operation of the coroutine layer and of the C callback API side by side in one
# process (thread CPU time, min and median of N rounds, N = $1, default 50), then callgrind
# instructions per operation (the difference of runs of 20 and 10 measured frames, so setup
# and teardown cancel out). Release library, g++ -O2 (ONITY_CXX=clang++ for clang).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --lib >/dev/null 2>&1
CXX=${ONITY_CXX:-g++}
OUT=target/release/cpp20-bench
mkdir -p "$OUT"
"$CXX" -std=c++20 -O2 -g -Iinclude benches/cpp/coro_bench.cpp -Ltarget/release -lonity \
    -Wl,-rpath,"$PWD/target/release" -o "$OUT/coro_bench"
echo "$CXX; load: $(uptime | sed 's/.*load average: //')"
"$OUT/coro_bench" time "${1:-50}"
echo
count() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$OUT/coro_bench" count "$1" "$2" 2>&1 |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
printf '%-18s %12s  %s\n' scenario "instr/op" op
for spec in "c_next_frame:4096:task-frame" "coro_next_frame:4096:task-frame" \
            "coro_cycle:4096:start, one next_frame, finish" "c_when_any32:128:group of 32" \
            "coro_when_any32:128:group of 32"; do
    IFS=: read -r name per what <<<"$spec"
    a=$(count "$name" 10)
    b=$(count "$name" 20)
    awk -v n="$name" -v a="$a" -v b="$b" -v p="$per" -v w="$what" \
        'BEGIN { printf "%-18s %12.1f  %s\n", n, (b - a) / 10 / p, w }'
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
