#!/usr/bin/env bash
# Benchmark: `goldgate score` on a generated suite (default 10,000 extraction samples with
# ~8 requirements each), lexical matcher, the default 1,000 bootstrap resamples; with
# `--kind tuples`, 10,000 two-stage aspect-sentiment samples (3–8 tuples each, chain of
# thought checked, tagged).
#
#   bash benches/score.sh [--samples N] [--repeats R] [--runs K] [--kind extraction|tuples] [--against OTHER_GOLDGATE]
#
# With --repeats R, every sample has R answers (a run of `--repeat R`).
# Builds this checkout's release binary and times it K times (default 5). With --against,
# times the other binary too (e.g. one built from main), alternating the two so both see
# the same machine, and prints the median wall time and peak memory (RSS) of each and the
# ratio. The score files the two write must be identical (the time stamp is fixed).
set -euo pipefail
cd "$(dirname "$0")/.."
samples=10000 repeats=1 runs=5 other="" kind=extraction
while [ $# -gt 0 ]; do
  case "$1" in
    --samples) samples="$2"; shift 2 ;;
    --repeats) repeats="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --against) other="$2"; shift 2 ;;
    --kind) kind="$2"; shift 2 ;;
    *) echo "usage: bash benches/score.sh [--samples N] [--repeats R] [--runs K] [--kind extraction|tuples] [--against OTHER_GOLDGATE]" >&2; exit 2 ;;
  esac
done
work="${TMPDIR:-/tmp}/goldgate-bench-$kind-$samples"
if [ "$repeats" != 1 ]; then work="$work-x$repeats"; fi
cargo build --release --quiet
this="$PWD/target/release/goldgate"
if [ ! -f "$work/answers.jsonl" ]; then
  python3 benches/generate_suite.py "$work" --samples "$samples" --repeats "$repeats" --kind "$kind"
fi
echo "suite: $(du -sh "$work/suite" | cut -f1), answers: $(du -sh "$work/answers.jsonl" | cut -f1), samples: $samples, repeats: $repeats, runs: $runs"
export SOURCE_DATE_EPOCH=0

# time_one NAME BINARY: one run, appends "secs kb" to $work/NAME.times
time_one() {
  /usr/bin/time -f "%e %M" -o "$work/time.txt" \
    "$2" score --suite "$work/suite" --run "$work/answers.jsonl" --output "$work/$1.score.json" > /dev/null
  cat "$work/time.txt" >> "$work/$1.times"
}
median() { sort -n | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

rm -f "$work/this.times" "$work/other.times"
for _ in $(seq "$runs"); do
  time_one this "$this"
  if [ -n "$other" ]; then time_one other "$other"; fi
done
t_this=$(cut -d' ' -f1 "$work/this.times" | median)
m_this=$(cut -d' ' -f2 "$work/this.times" | median)
echo "this checkout: median ${t_this}s, peak RSS $((${m_this%.*} / 1024)) MiB"
if [ -n "$other" ]; then
  t_other=$(cut -d' ' -f1 "$work/other.times" | median)
  m_other=$(cut -d' ' -f2 "$work/other.times" | median)
  echo "$other: median ${t_other}s, peak RSS $((${m_other%.*} / 1024)) MiB"
  echo "speed-up: $(awk "BEGIN {printf \"%.2f\", $t_other / $t_this}")x"
  if cmp -s "$work/this.score.json" "$work/other.score.json"; then
    echo "score files: identical"
  else
    echo "score files: DIFFERENT ($work/this.score.json, $work/other.score.json)"
  fi
fi
