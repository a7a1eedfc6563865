#!/usr/bin/env bash
# Instructions per operation of the hot paths, counted by callgrind: the
# difference between runs of 2N and N iterations, divided by N (setup and
# teardown cancel out). Repeatable on a loaded machine, unlike time.
#
# Rust rows: examples/opcount.rs (the rlib; every export called through a
# function pointer, as a host calls a DLL). "C/cdylib" rows:
# scripts/opcount_host.c, a C program that dlopens target/release/libonity.so
# and calls the exports through dlsym'd pointers.
#
# Usage: scripts/opcount.sh [ROW...]   (default: every row; a row is the name
# in the first column, e.g. `completed` or `c:completed`). ONITY_OPCOUNT_DIR=DIR
# counts the binaries saved in DIR (opcount, opcount_host, libonity.so) instead
# of building this tree's: before/after with one harness.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${ONITY_OPCOUNT_DIR:-}" ]; then
  # Binaries saved from another build (opcount, opcount_host, libonity.so), for a side-by-side
  # before/after with the same harness.
  bin=$ONITY_OPCOUNT_DIR/opcount
  host=$ONITY_OPCOUNT_DIR/opcount_host
  lib=$ONITY_OPCOUNT_DIR/libonity.so
else
  cargo build --release --lib --example opcount >/dev/null 2>&1
  bin=target/release/examples/opcount
  host=target/release/opcount_host
  gcc -O2 -std=gnu11 -Wall -Wextra -Werror -Iinclude scripts/opcount_host.c -o "$host" -ldl
  lib="$PWD/target/release/libonity.so"
fi

count() { # command... -> instructions
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

# name:N:divisor per iteration:what
rows=(
  "completed:20000:1:create + set_result + consume"
  "from_result:20000:1:onity_task_from_result + consume"
  "next_frame_callback:40:4096:NextFrame callback form, per task-frame (4096 tasks)"
  "yield_callback:40:4096:Yield callback form, per task-frame (4096 tasks)"
  "next_frame_task:40:4096:NextFrame task form (consume + re-register), per task-frame (4096)"
  "when_any_32:2000:1:WhenAny(32) group, inputs completed in reverse"
  "when_all_32:2000:1:WhenAll(32) group, inputs completed in reverse, 32 results read"
  "cross_thread:10:4096:create, worker set_result, drain, consume, per task (4096 a round)"
  "frame_alloc:200:150:onity_frame_alloc 1 KiB + 1/150 of a rewind"
  "frame_alloc_core:200:150:FrameAllocator::alloc 1 KiB + 1/150 of a rewind (Rust, no C ABI)"
  "batch_fast_next_frame:40:4096:batch fast lane NextFrame: filed + reported, per task-frame (4096)"
  "far_future_delay_frame:10:1:frame begin + Update tick, 1M DelayFrame(10^9) waits pending"
  "far_future_delay:10:1:frame begin + Update tick, 1M Delay(10^9 s) waits pending"
  "far_future_token:10:1:frame begin + Update tick, 1M DelayFrame(10^9) waits with a token pending"
  "c:completed:20000:1:C through libonity.so: create + set_result + consume"
  "c:from_result:20000:1:C through libonity.so: from_result + consume"
  "c:next_frame_callback:40:4096:C through libonity.so: NextFrame callback form"
  "c:yield_callback:40:4096:C through libonity.so: Yield callback form"
  "c:next_frame_task:40:4096:C through libonity.so: NextFrame task form"
  "c:frame_alloc:200:150:C through libonity.so: onity_frame_alloc + 1/150 rewind"
)

want=("$@")
printf '%-24s %10s  %s\n' row "instr/op" op
for spec in "${rows[@]}"; do
  name=${spec%%:*}
  rest=${spec#*:}
  if [ "$name" = c ]; then
    name="c:${rest%%:*}"
    rest=${rest#*:}
  fi
  IFS=: read -r n div what <<<"$rest"
  if [ ${#want[@]} -gt 0 ] && [[ ! " ${want[*]} " == *" $name "* ]]; then
    continue
  fi
  case $name in
    c:*) cmd=("$host" "$lib" "${name#c:}") ;;
    *) cmd=("$bin" "$name") ;;
  esac
  a=$(count "${cmd[@]}" "$n")
  b=$(count "${cmd[@]}" $((2 * n)))
  printf '%-24s %10s  %s\n' "$name" $(((b - a) / n / div)) "$what"
done
