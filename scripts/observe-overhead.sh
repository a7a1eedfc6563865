#!/usr/bin/env bash
# Issue 20: what the frame timeline and creation sites cost, in callgrind
# instructions per operation (examples/opcount.rs, the method of
# scripts/opcount.sh: runs of 2N and N iterations, difference / N).
# Columns: tracing off, ONITY_TRACE_RUNS, RUNS | CONTINUATIONS; and the
# `_at` form with site capture off and on. docs/observability.md quotes it.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --example opcount >/dev/null 2>&1
bin=target/release/examples/opcount

count() { # env-assignment scenario iterations -> instructions
  env "$1" valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$2" "$3" 2>&1 |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
per() { # env-assignment scenario N divisor -> instructions per op
  local a b
  a=$(count "$1" "$2" "$3")
  b=$(count "$1" "$2" $((2 * $3)))
  echo $(((b - a) / $3 / $4))
}

printf '%-22s %8s %8s %8s\n' row off runs all
for spec in completed:20000:1 from_result:20000:1 next_frame_callback:40:4096 yield_callback:40:4096 \
  next_frame_task:40:4096 when_any_32:2000:1 when_all_32:2000:1; do
  IFS=: read -r name n div <<<"$spec"
  printf '%-22s %8s %8s %8s\n' "$name" "$(per ONITY_OPCOUNT_TRACE=off "$name" "$n" "$div")" \
    "$(per ONITY_OPCOUNT_TRACE=runs "$name" "$n" "$div")" "$(per ONITY_OPCOUNT_TRACE=all "$name" "$n" "$div")"
done
printf '\n%-22s %8s %8s\n' row "sites off" "sites on"
printf '%-22s %8s %8s\n' from_result_at "$(per ONITY_OPCOUNT_SITES=0 from_result_at 20000 1)" \
  "$(per ONITY_OPCOUNT_SITES=1 from_result_at 20000 1)"
