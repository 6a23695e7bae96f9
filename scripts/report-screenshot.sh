#!/usr/bin/env bash
# Render the HTML report of the example data and screenshot it in headless Chromium, to look
# at the table and the reliability diagrams as a reader would.
#
#   bash scripts/report-screenshot.sh [OUT_DIR]      (needs Debian's chromium package)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-${TMPDIR:-/tmp}/goldgate-report}"
mkdir -p "$out"
command -v chromium >/dev/null || { echo "install Debian's chromium package first (apt-get install chromium)"; exit 2; }
cargo build --quiet
bin="$PWD/target/debug/goldgate"
suite=examples/requirements/suite
"$bin" score --suite "$suite" --run examples/requirements/answers/main.jsonl --output "$out/score.json" > /dev/null
"$bin" compare --score "$out/score.json" --baseline "$out/score.json" --thresholds thresholds.toml --format html > "$out/report.html"
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$(mktemp -d)" --window-size=1200,2400 \
  --screenshot="$out/report.png" "file://$out/report.html" 2>/dev/null
echo "wrote $out/report.html and $out/report.png"
