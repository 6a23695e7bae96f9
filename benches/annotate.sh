#!/usr/bin/env bash
# Benchmark: `goldgate annotate` on suites of 40 (the example), 1,000 and 10,000 samples.
# Targets: the page shows the queue in under 200 ms for 1,000 samples (the queue is paged,
# so it should not grow with the suite), and a save takes under 50 ms. A save rewrites
# its whole file atomically (written, synced, renamed), so for a JSON Lines suite it
# grows with the file: the last line is that floor for the 10,000-sample file, measured
# beside it (the same bytes written, synced and renamed, without goldgate).
#
#   bash benches/annotate.sh [--runs K]
#
# The 1,000- and 10,000-sample suites are one JSON Lines file each (so a save rewrites the
# whole file: the slow case) and, for 1,000, also one JSON file per sample. Needs Node.js,
# tests/e2e's packages (npm ci --prefix tests/e2e) and Chromium (/usr/bin/chromium, or
# CHROMIUM). Everything runs on 127.0.0.1 in a temporary directory.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=10
[ "${1:-}" = "--runs" ] && runs="$2"
cargo build --release --quiet
work="$(mktemp -d "${TMPDIR:-/tmp}/goldgate-annotate-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cp -r examples/requirements/suite "$work/example"
python3 benches/generate_suite.py "$work/g1000" --samples 1000 > /dev/null
python3 benches/generate_suite.py "$work/g10000" --samples 10000 > /dev/null
mkdir -p "$work/files1000"
python3 - "$work/g1000/suite/samples.jsonl" "$work/files1000" <<'PY'
import json, sys, os
for line in open(sys.argv[1]):
    sample = json.loads(line)
    with open(os.path.join(sys.argv[2], sample["id"] + ".json"), "w") as f:
        json.dump(sample, f, indent=2)
PY
node benches/annotate.mjs "$PWD/target/release/goldgate" "$runs" \
  "$work/example" "$work/g1000/suite" "$work/files1000" "$work/g10000/suite"
python3 - "$work/g10000/suite/samples.jsonl" <<'PY'
import os, sys, time
path = sys.argv[1]
data = open(path, "rb").read()
times = []
for _ in range(10):
    t = time.perf_counter()
    with open(path + ".tmp", "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.rename(path + ".tmp", path)
    times.append((time.perf_counter() - t) * 1000)
times.sort()
print(f"g10000/suite ({len(data) / 1e6:.0f} MB file)  floor (write, fsync, rename): median {times[5]:.1f} ms")
PY
