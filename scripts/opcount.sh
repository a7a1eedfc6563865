#!/usr/bin/env bash
# Instructions per operation of the core scenarios, counted by callgrind:
# the difference between runs of 2N and N iterations, divided by N (setup
# and teardown cancel out). Repeatable on a loaded machine, unlike time.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --example opcount >/dev/null 2>&1
bin=target/release/examples/opcount
count() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$1" "$2" 2>&1 |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
printf '%-22s %14s  %s\n' scenario "instr/op" "op"
for spec in "completed:20000:create + set_result + consume" \
            "next_frame_callback:40:task-frame (4096 per frame)" \
            "next_frame_task:40:task-frame (4096 per frame)" \
            "when_any_32:2000:WhenAny(32) group"; do
  IFS=: read -r name n what <<<"$spec"
  a=$(count "$name" "$n")
  b=$(count "$name" $((2 * n)))
  per=$(( (b - a) / n ))
  case $name in next_frame_*) per=$(( (b - a) / n / 4096 ));; esac
  printf '%-22s %14s  %s\n' "$name" "$per" "$what"
done
