#!/usr/bin/env bash
# The charts of BENCHMARKS.md: draws docs/charts/*.svg from the saved benchmark outputs in
# docs/bench-data/ with tools/charts (plotters, SVG only; its own Cargo package, so the library
# and `cargo test` never build it).
#
#   scripts/charts.sh                     redraw every chart from docs/bench-data/*.txt
#   scripts/charts.sh --run NAME [ARG...] run one benchmark, save what it printed as
#                                         docs/bench-data/NAME.txt (first line: date, command,
#                                         load before and after), then redraw
#   scripts/charts.sh --check             redraw into a scratch directory and fail if
#                                         docs/charts/ differs from it (drift check)
#
# NAME (ARGs go to the benchmark; ONITY_BENCH_* variables are passed on and recorded):
#   opcount                  scripts/opcount.sh ARG...       callgrind instructions per op
#   csharp                   scripts/bench-csharp.sh ARG...  C# against UniTask; the data is the
#                            tables it writes to docs/csharp_bench.md (both sections)
#   frame-alloc              cargo bench --bench frame_alloc -- ARG...
#   frame-alloc-interleaved  scripts/frame-alloc-interleaved.sh ARG...
# Goals of the opcount rows: docs/bench-data/opcount-goals.txt (edited by hand).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
DATA=docs/bench-data
CHARTS=docs/charts

charts() {
    cargo run --quiet --locked --manifest-path tools/charts/Cargo.toml --target-dir target/charts -- "$@"
}

load() { cut -d' ' -f1-3 /proc/loadavg; }

# capture NAME LABEL COMMAND...: runs COMMAND (the benchmark) and saves what it prints on stdout
# as $DATA/NAME.txt after the header line, which records LABEL as the command.
capture() {
    local name=$1 label=$2
    shift 2
    local envs start before raw
    envs=$(env | grep '^ONITY_BENCH_' | sort | tr '\n' ' ' || true)
    start=$(date -u '+%Y-%m-%d %H:%M UTC')
    before=$(load)
    raw=$(mktemp)
    label="${label% }"
    echo "== $envs$label" >&2
    "$@" > "$raw"
    mkdir -p "$DATA"
    { echo "# bench-data | $start | $envs$label | load $before at the start, $(load) at the end | captured by scripts/charts.sh --run $name"
      cat "$raw"; } > "$DATA/$name.txt"
    rm -f "$raw"
    echo "saved $DATA/$name.txt" >&2
}

# The C# benchmark writes its tables to docs/csharp_bench.md: its data is the generated sections.
bench_csharp() {
    scripts/bench-csharp.sh "$@" >&2
    sed -n '/^<!-- bench.*:begin/,/^<!-- bench.*:end -->/p' docs/csharp_bench.md
}

case "${1:-}" in
    "")
        charts --data "$DATA" --out "$CHARTS"
        ;;
    --check)
        scratch=$(mktemp -d)
        trap 'rm -rf "$scratch"' EXIT
        charts --data "$DATA" --out "$scratch" >/dev/null
        if diff -r "$CHARTS" "$scratch" >/dev/null; then
            echo "docs/charts/ matches docs/bench-data/"
        else
            diff -rq "$CHARTS" "$scratch" || true
            echo "docs/charts/ is not what docs/bench-data/ draws: run scripts/charts.sh" >&2
            exit 1
        fi
        ;;
    --run)
        name=${2:-}
        shift 2 || true
        args="$*"
        case "$name" in
            opcount) capture opcount "scripts/opcount.sh $args" scripts/opcount.sh "$@" ;;
            csharp) capture csharp "scripts/bench-csharp.sh $args" bench_csharp "$@" ;;
            frame-alloc) capture frame-alloc "cargo bench --bench frame_alloc -- $args" cargo bench --bench frame_alloc -- "$@" ;;
            frame-alloc-interleaved)
                capture frame-alloc-interleaved "scripts/frame-alloc-interleaved.sh $args" scripts/frame-alloc-interleaved.sh "$@" ;;
            *) echo "usage: $0 [--check | --run opcount|csharp|frame-alloc|frame-alloc-interleaved [ARG...]]" >&2; exit 2 ;;
        esac
        charts --data "$DATA" --out "$CHARTS"
        ;;
    *)
        echo "usage: $0 [--check | --run opcount|csharp|frame-alloc|frame-alloc-interleaved [ARG...]]" >&2
        exit 2
        ;;
esac
