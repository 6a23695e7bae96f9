#!/usr/bin/env bash
# The answer-cache steps of the goldgate GitHub Action (action.yml), around `goldgate check`.
#
#   action-cache.sh plan   Before the check: asks goldgate, with the check's own inputs
#                          (`check --print-fingerprint` through action-run.sh), for the
#                          pipeline fingerprint every answer of the check will be keyed on,
#                          whether the check uses the cache, the cache directory in effect and
#                          the gate's name; prints the actions/cache key
#                          (goldgate-answers-<os>-<gate>-<fingerprint>-<run id>-<attempt>), the
#                          prefix that restores the newest cache of the same pipeline (a pull
#                          request's run finds its base branch's) and the directory as an
#                          absolute path; and marks the time, so that answers written by the
#                          check can be told from restored ones.
#   action-cache.sh new    After the check: whether it wrote anything the restored cache did
#                          not hold (only then is a cache saved), and never when the
#                          directory holds files git tracks (entries committed to the
#                          repository, which goldgate never uses: saved, they would be
#                          restored by later runs even after their removal from git) or
#                          when git cannot say whether it does.
#
# Inputs (environment): INPUT_CACHE (true or false), the check's INPUT_* and GOLDGATE_BIN (see
# action-run.sh), RUNNER_OS, RUNNER_TEMP, GITHUB_RUN_ID, GITHUB_RUN_ATTEMPT; for `new`,
# GOLDGATE_CACHE_PATH and GOLDGATE_CACHE_MARKER (what `plan` printed).
# Outputs (appended to $GITHUB_OUTPUT): plan: enabled, restore, path, key, restore-key,
# marker; new: save.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
out=${GITHUB_OUTPUT:-/dev/stdout}

output() { printf '%s=%s\n' "$1" "$2" >>"$out"; }

off() { # off WHY: neither restore nor save
  echo "$1"
  output enabled false
  output restore false
}

plan() {
  case "${INPUT_CACHE:-true}" in
    true) ;;
    false)
      off "the answer cache is neither restored nor saved (cache: false)"
      return
      ;;
    *)
      echo "::error title=goldgate::cache must be true or false, not '$INPUT_CACHE'"
      exit 2
      ;;
  esac
  if [ "${INPUT_COMMAND:-check}" != check ]; then
    off "no answer cache for command: ${INPUT_COMMAND}"
    return
  fi
  local errors printed
  errors=$(mktemp)
  if ! printed=$(bash "$here/action-run.sh" --print-fingerprint 2>"$errors"); then
    rm -f "$errors"
    # The check step fails the same way, with its message and annotation: said once there.
    echo "::notice title=goldgate::the answer cache is not restored: goldgate could not read the check's settings (the check step says why)"
    output enabled false
    output restore false
    return
  fi
  cat "$errors" >&2
  rm -f "$errors"
  local fingerprint="" use="" dir="" gate=""
  while IFS= read -r line; do
    case "$line" in
      pipeline_fingerprint=*) fingerprint=${line#*=} ;;
      cache=*) use=${line#*=} ;;
      cache_dir=*) dir=${line#*=} ;;
      gate_name=*) gate=${line#*=} ;;
      goldgate\ *) echo "$line" ;;
    esac
  done <<<"$printed"
  if [ -z "$fingerprint" ] || [ -z "$dir" ]; then
    echo "::warning title=goldgate::the answer cache is not restored: goldgate printed no fingerprint"
    output enabled false
    output restore false
    return
  fi
  if [ "$use" = off ]; then
    off "the check does not use the answer cache: nothing to restore or save"
    return
  fi
  # actions/cache resolves relative paths from the workspace, not from working-directory.
  case "$dir" in
    /*) ;;
    *) dir="$PWD/$dir" ;;
  esac
  mkdir -p -- "$dir"
  dir=$(cd -- "$dir" && pwd)
  # A cache key holds no comma; keep the gate's name to plain characters.
  gate=$(printf '%s' "${gate:-goldgate}" | tr -c 'A-Za-z0-9._-' '_' | cut -c1-100)
  local prefix="goldgate-answers-${RUNNER_OS:-$(uname -s)}-$gate-$fingerprint-"
  local key="$prefix${GITHUB_RUN_ID:-0}-${GITHUB_RUN_ATTEMPT:-1}"
  local marker
  marker=$(mktemp "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/goldgate-answers.XXXXXX")
  echo "answer cache: $dir"
  echo "  saved as $key"
  echo "  restored from the newest cache whose key starts with $prefix"
  output enabled true
  # --refresh-cache reads nothing from the cache: restoring it would only cost time.
  output restore "$([ "$use" = read-write ] && echo true || echo false)"
  output path "$dir"
  output key "$key"
  output restore-key "$prefix"
  output marker "$marker"
}

# tracked DIR: print how many files below DIR git tracks (0 outside a git work tree); fail
# when git cannot say (a repository it refuses, or no git inside a checkout).
tracked() {
  local dir=$1 errors listed
  if ! command -v git >/dev/null; then
    local d
    d=$(cd -- "$dir" && pwd -P)
    while :; do
      [ -e "$d/.git" ] && return 1
      [ "$d" = / ] && break
      d=$(dirname -- "$d")
    done
    echo 0
    return 0
  fi
  local status=0
  errors=$(mktemp)
  listed=$(cd -- "$dir" && LC_ALL=C git --no-optional-locks ls-files -z 2>"$errors" | tr -cd '\0' | wc -c) || status=$?
  if [ "$status" -ne 0 ]; then
    listed=
    grep -q -e 'not a git repository' -e 'must be run in a work tree' "$errors" && listed=0
  fi
  rm -f "$errors"
  [ -n "$listed" ] || return 1
  echo "$listed" | tr -d ' '
}

new() {
  local dir=${GOLDGATE_CACHE_PATH:?GOLDGATE_CACHE_PATH is not set}
  local marker=${GOLDGATE_CACHE_MARKER:?GOLDGATE_CACHE_MARKER is not set}
  local count files
  count=$(find "$dir" -type f -newer "$marker" 2>/dev/null | wc -l | tr -d ' ')
  rm -f "$marker"
  if ! files=$(tracked "$dir"); then
    echo "::warning title=goldgate::the answer cache is not saved: git cannot say which files of $dir it tracks"
    output save false
    return
  fi
  if [ "$files" -gt 0 ]; then
    echo "::warning title=goldgate::the answer cache is not saved: git tracks $files files in $dir, which goldgate never uses; remove them from git (git rm -r --cached) and ignore the directory in .gitignore"
    output save false
    return
  fi
  if [ "$count" -gt 0 ]; then
    echo "the check wrote $count files to the answer cache: saving it"
    output save true
  else
    echo "the check wrote nothing new to the answer cache: nothing to save"
    output save false
  fi
}

case "${1:-}" in
  plan) plan ;;
  new) new ;;
  *)
    echo "usage: action-cache.sh plan|new" >&2
    exit 2
    ;;
esac
