#!/usr/bin/env bash
# Benchmark: the runner's own overhead.
#  1. HTTP pipeline answering after 100 ms, 1,000 samples, --jobs 32:
#     target within 10% of the ideal 1,000 x 0.1 s / 32 = 3.125 s. The same with the
#     `chat` adapter (prompts rendered, an OpenAI-style completion read) against the same
#     server: the same target.
#  2. jsonl pipeline answering at once, 10,000 samples: target >= 5,000 samples/s.
#  3. A warm cache, 1,000 samples: target under 1 s for the whole command.
# Everything runs on 127.0.0.1; servers and pipelines are started and stopped here. The
# pipelines run inside a git repository (as they do in a project), so the answer cache's
# fingerprint of the repository is part of what is measured.
#
#   bash benches/run.sh [--runs K] [--against OTHER_GOLDGATE]
#
# Builds this checkout's release binary and times each scenario K times (default 1). With
# --against, times the other binary too (e.g. one built from main), alternating the two so
# both see the same machine, and prints the median of each and their ratio.
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
repo="$PWD"
cargo build --release --quiet
this="$repo/target/release/goldgate"
# A directory of its own: two benchmarks on one machine must not share (or delete) files.
work="$(mktemp -d "${TMPDIR:-/tmp}/goldgate-run-bench.XXXXXX")"
python3 benches/generate_suite.py "$work/s1000" --samples 1000 > /dev/null
python3 benches/generate_suite.py "$work/s10000" --samples 10000 > /dev/null

# One project (a git repository with the pipelines) per binary, so their caches stay apart.
for who in this other; do
  mkdir -p "$work/$who"
  cp "$repo/tests/pipelines/jsonl_echo.py" "$repo/tests/pipelines/count.sh" "$work/$who/"
  git -C "$work/$who" init -q
  git -C "$work/$who" add -A
  git -C "$work/$who" -c user.name=bench -c user.email=bench@localhost commit -qm pipelines
done

python3 "$repo/benches/slow_server.py" "$work/port.txt" 0.1 &
server=$!
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 50); do [ -s "$work/port.txt" ] && break; sleep 0.1; done
port=$(cat "$work/port.txt")

# timed WHO SCENARIO COMMAND...: runs COMMAND in WHO's project, appends its seconds to a file
timed() {
  local who="$1" scenario="$2"; shift 2
  local start end
  start=$(date +%s.%N)
  (cd "$work/$who" && "$@" > /dev/null 2>&1)
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f\n", e - s }' >> "$work/$who.$scenario"
}
scenarios() {
  local who="$1" bin="$2"
  timed "$who" http "$bin" run --suite ../s1000/suite --output http.jsonl \
    --http "http://127.0.0.1:$port/" --jobs 32 --no-cache
  if [ "$who" = this ]; then
    timed "$who" chat env -u OPENAI_API_KEY "$bin" run --suite ../s1000/suite \
      --output chat.jsonl --chat --base-url "http://127.0.0.1:$port/v1" --model bench \
      --jobs 32 --no-cache
  fi
  timed "$who" jsonl "$bin" run --suite ../s10000/suite --output jsonl.jsonl --mode jsonl \
    --command "python3 jsonl_echo.py" --jobs 32 --no-cache
  rm -rf "$work/$who/.goldgate"
  (cd "$work/$who" && "$bin" run --suite ../s1000/suite --output cold.jsonl \
    --command "sh count.sh" --jobs 32 > /dev/null 2>&1)
  # A warm run takes tens of milliseconds: time it 20 times a round, so the median is not
  # one scheduling hiccup.
  for _ in $(seq 20); do
    timed "$who" warm "$bin" run --suite ../s1000/suite --output warm.jsonl \
      --command "sh count.sh" --jobs 32
  done
  if ! grep -q '"cached":true' "$work/$who/warm.jsonl"; then
    echo "warning: $who's warm run did not use the cache" >&2
  fi
}
median() { sort -n | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

for _ in $(seq "$runs"); do
  scenarios this "$this"
  if [ -n "$other" ]; then scenarios other "$other"; fi
done

report() {
  local scenario="$1" label="$2"
  local t o
  t=$(median < "$work/this.$scenario")
  if [ -n "$other" ]; then
    o=$(median < "$work/other.$scenario")
    awk -v t="$t" -v o="$o" -v l="$label" \
      'BEGIN { printf "%s: this %.3f s, other %.3f s (this/other %.3f)\n", l, t, o, t / o }'
  else
    echo "$label: $t s"
  fi
}
report_this() { echo "$2: $(median < "$work/this.$1") s"; }
echo "medians of $runs run(s)${other:+; other = $other}"
report http "1. http, 100 ms, 1000 samples, --jobs 32 (ideal 3.125 s)"
report_this chat "1b. chat, 100 ms, 1000 samples, --jobs 32 (ideal 3.125 s)"
report jsonl "2. jsonl, instant, 10000 samples (target >= 5000 samples/s, i.e. <= 2 s)"
report warm "3. warm cache, 1000 samples (target < 1 s)"
