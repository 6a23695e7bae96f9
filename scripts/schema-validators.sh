#!/usr/bin/env bash
# Every JSON Schema of schemas/ in the three validators users reach for: ajv (JSON Schema
# 2020-12, pinned by .ci/schemas/package-lock.json), Python's jsonschema and
# check-jsonschema (pinned by .ci/schemas/requirements.txt, in a throwaway virtual
# environment). Each schema must load in all three, and each must judge every instance of
# its corpus (tests/fixtures/schemas/<schema>.jsonl, made and labelled by the Rust tests,
# where the jsonschema crate and goldgate's own readers agree with every label) as it is
# labelled. Needs node with npm, and python3 with venv; exits 2 when one is missing and 1
# when a validator disagrees. It never skips.
#
#   bash scripts/schema-validators.sh
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in node npm python3; do
  command -v "$tool" >/dev/null || { echo "error: $tool is not installed (the schema validators need node with npm, and python3 with venv)"; exit 2; }
done
python3 -m venv --help >/dev/null 2>&1 || { echo "error: python3 has no venv module (install python3-venv)"; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

npm ci --prefix .ci/schemas --no-audit --no-fund --loglevel=error >/dev/null
python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --disable-pip-version-check -r .ci/schemas/requirements.txt

status=0
node .ci/schemas/validate.mjs . || status=1
"$work/venv/bin/python" .ci/schemas/validate.py . || status=1
exit "$status"
