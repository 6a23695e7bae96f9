#!/usr/bin/env bash
# Benchmark: the runner's own overhead.
#  1. HTTP pipeline answering after 100 ms, 1,000 samples, --jobs 32:
#     target within 10% of the ideal 1,000 x 0.1 s / 32 = 3.125 s.
#  2. jsonl pipeline answering at once, 10,000 samples: target >= 5,000 samples/s.
#  3. A warm cache, 1,000 samples: target under 1 s for the whole command.
# Everything runs on 127.0.0.1; servers and pipelines are started and stopped here.
#
#   bash benches/run.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin="$PWD/target/release/goldgate"
work="${TMPDIR:-/tmp}/goldgate-run-bench"
rm -rf "$work" && mkdir -p "$work"
python3 benches/generate_suite.py "$work/s1000" --samples 1000
python3 benches/generate_suite.py "$work/s10000" --samples 10000
cd "$work"

python3 "$OLDPWD/benches/slow_server.py" port.txt 0.1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 50); do [ -s port.txt ] && break; sleep 0.1; done
port=$(cat port.txt)

start=$(date +%s.%N)
"$bin" run --suite s1000/suite --output http.jsonl --http "http://127.0.0.1:$port/" --jobs 32 --no-cache
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" 'BEGIN { t = e - s; printf "1. http, 100 ms, 1000 samples, --jobs 32: %.2f s (ideal 3.125 s, overhead %.1f%%)\n", t, (t / 3.125 - 1) * 100 }'

start=$(date +%s.%N)
"$bin" run --suite s10000/suite --output jsonl.jsonl --mode jsonl --command "python3 $OLDPWD/tests/pipelines/jsonl_echo.py" --jobs 32 --no-cache
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" 'BEGIN { t = e - s; printf "2. jsonl, instant, 10000 samples: %.2f s for the whole command, %.0f samples/s\n", t, 10000 / t }'

"$bin" run --suite s1000/suite --output cold.jsonl --command "sh $OLDPWD/tests/pipelines/count.sh" --jobs 32 > /dev/null
start=$(date +%s.%N)
"$bin" run --suite s1000/suite --output warm.jsonl --command "sh $OLDPWD/tests/pipelines/count.sh" --jobs 32
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" 'BEGIN { printf "3. warm cache, 1000 samples: %.2f s for the whole command\n", e - s }'
