#!/usr/bin/env bash
# Benchmark: the runner's own overhead.
#  1. HTTP pipeline answering after 100 ms, 1,000 samples, --jobs 32:
#     target within 10% of the ideal 1,000 x 0.1 s / 32 = 3.125 s.
#  2. jsonl pipeline answering at once, 10,000 samples: target >= 5,000 samples/s.
#  3. A warm cache, 1,000 samples: target under 1 s for the whole command.
# Everything runs on 127.0.0.1; servers and pipelines are started and stopped here.
#
#   bash benches/run.sh [--runs K] [--against OTHER_GOLDGATE]
#
# Builds this checkout's release binary and measures each figure K times (default 1),
# printing the median. With --against, measures the other binary too (e.g. one built from
# main), alternating the two so both see the same machine, and prints both.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=1 other=""
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --against) other="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"; shift 2 ;;
    *) echo "usage: bash benches/run.sh [--runs K] [--against OTHER_GOLDGATE]" >&2; exit 2 ;;
  esac
done
cargo build --release --quiet
this="$PWD/target/release/goldgate"
repo="$PWD"
# A directory of its own: two benchmarks on one machine must not share (or delete) files.
work="$(mktemp -d "${TMPDIR:-/tmp}/goldgate-run-bench.XXXXXX")"
python3 benches/generate_suite.py "$work/s1000" --samples 1000
python3 benches/generate_suite.py "$work/s10000" --samples 10000
cd "$work"

python3 "$repo/benches/slow_server.py" port.txt 0.1 &
server=$!
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 50); do [ -s port.txt ] && break; sleep 0.1; done
port=$(cat port.txt)

# seconds COMMAND...: the wall time of one command, its output discarded.
seconds() {
  local start end
  start=$(date +%s.%N)
  "$@" > /dev/null
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f\n", e - s }'
}
median() { sort -n | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

# measure NAME BINARY: one round of the three figures, appended to NAME.{http,jsonl,warm}
measure() {
  local name="$1" bin="$2"
  seconds "$bin" run --suite s1000/suite --output "$name-http.jsonl" --http "http://127.0.0.1:$port/" --jobs 32 --no-cache >> "$name.http"
  seconds "$bin" run --suite s10000/suite --output "$name-jsonl.jsonl" --mode jsonl --command "python3 $repo/tests/pipelines/jsonl_echo.py" --jobs 32 --no-cache >> "$name.jsonl"
  rm -rf "cache-$name"
  "$bin" run --suite s1000/suite --output "$name-cold.jsonl" --command "sh $repo/tests/pipelines/count.sh" --jobs 32 --cache-dir "cache-$name" > /dev/null
  seconds "$bin" run --suite s1000/suite --output "$name-warm.jsonl" --command "sh $repo/tests/pipelines/count.sh" --jobs 32 --cache-dir "cache-$name" >> "$name.warm"
}

# report NAME LABEL: the medians of NAME's rounds.
report() {
  local http jsonl warm
  http=$(median < "$1.http") jsonl=$(median < "$1.jsonl") warm=$(median < "$1.warm")
  echo "$2:"
  awk -v t="$http" 'BEGIN { printf "  1. http, 100 ms, 1000 samples, --jobs 32: %.2f s (ideal 3.125 s, overhead %.1f%%)\n", t, (t / 3.125 - 1) * 100 }'
  awk -v t="$jsonl" 'BEGIN { printf "  2. jsonl, instant, 10000 samples: %.2f s for the whole command, %.0f samples/s\n", t, 10000 / t }'
  awk -v t="$warm" 'BEGIN { printf "  3. warm cache, 1000 samples: %.2f s for the whole command\n", t }'
}

for _ in $(seq "$runs"); do
  measure this "$this"
  if [ -n "$other" ]; then measure other "$other"; fi
done
report this "this checkout ($runs runs, medians)"
if [ -n "$other" ]; then report other "$other ($runs runs, medians)"; fi
