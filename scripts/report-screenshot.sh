#!/usr/bin/env bash
# Retake every screenshot of docs/reports.md from the example projects: the HTML report of a
# failing gate, a passing one, a tuples suite and an srs-agents run with its traces (each at
# 1280 and 1920 px, and the search and filters at work), and the PR comment as GitHub shows
# it. Headless Chromium (the system's) is driven by tests/e2e/report-screenshots.mjs.
#
#   bash scripts/report-screenshot.sh [OUT_DIR]      (default: docs/report)
#
# Needs node, `npm ci --prefix tests/e2e` and Debian's chromium package (or CHROMIUM=path);
# the comment's emoji need an emoji font (fonts-noto-color-emoji).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-docs/report}"
command -v node >/dev/null || { echo "install node first"; exit 2; }
[ -d tests/e2e/node_modules/playwright-core ] || { echo "run npm ci --prefix tests/e2e first"; exit 2; }
[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || { echo "install Debian's chromium package first (apt-get install chromium), or set CHROMIUM"; exit 2; }
if ! fc-list 2>/dev/null | grep -qi emoji; then
  echo "note: no emoji font (apt-get install fonts-noto-color-emoji): the comment's ✅ and ❌ show as boxes"
fi
cargo build --quiet --bin goldgate --example comment_html
node tests/e2e/report-screenshots.mjs "$out"
