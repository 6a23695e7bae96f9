#!/usr/bin/env bash
# Last step of the goldgate GitHub Action (action.yml): turn the action's inputs into a
# `goldgate check` (or `goldgate publish`) command line and run it. goldgate itself writes
# the job summary, the step outputs and the annotations, and posts the sticky PR comment;
# its exit code is the step's (0 pass or warn, 1 gate failed, 2 input error, 3 incomplete).
#
# Inputs arrive as environment variables (never spliced into the script): GOLDGATE_BIN and
# INPUT_COMMAND, INPUT_CONFIG, INPUT_SUITE, INPUT_PIPELINE, INPUT_MODE, INPUT_HTTP,
# INPUT_REPLAY, INPUT_BASELINE, INPUT_THRESHOLDS, INPUT_BASE_REF, INPUT_GATE_NAME,
# INPUT_COMMENT_ON, INPUT_CHECK_RUN, INPUT_FORMAT, INPUT_OUT_DIR, INPUT_VERDICT, INPUT_PR,
# INPUT_ARGS (extra arguments, split on whitespace). Arguments given to the script come last
# (action-cache.sh adds --print-fingerprint: the same check, asked only for its cache key).
set -euo pipefail

bin=${GOLDGATE_BIN:-goldgate}
command=${INPUT_COMMAND:-check}
args=("$command")

flag() { # flag NAME VALUE: add `--NAME VALUE` when VALUE is not empty
  if [ -n "$2" ]; then args+=("--$1" "$2"); fi
}

case "$command" in
  check)
    flag config "${INPUT_CONFIG:-}"
    flag suite "${INPUT_SUITE:-}"
    flag command "${INPUT_PIPELINE:-}"
    flag mode "${INPUT_MODE:-}"
    flag http "${INPUT_HTTP:-}"
    flag replay "${INPUT_REPLAY:-}"
    flag baseline "${INPUT_BASELINE:-}"
    flag out-dir "${INPUT_OUT_DIR:-}"
    ;;
  publish)
    if [ -z "${INPUT_VERDICT:-}" ]; then
      echo "::error title=goldgate::command: publish needs the verdict input (the verdict.json a check saved)"
      exit 2
    fi
    flag verdict "$INPUT_VERDICT"
    flag pr "${INPUT_PR:-}"
    flag config "${INPUT_CONFIG:-}"
    flag baseline "${INPUT_BASELINE:-}"
    ;;
  *)
    echo "::error title=goldgate::command must be check or publish (or install, which stops after installing), not '$command'"
    exit 2
    ;;
esac
flag thresholds "${INPUT_THRESHOLDS:-}"
flag base-ref "${INPUT_BASE_REF:-}"
flag gate-name "${INPUT_GATE_NAME:-}"
flag comment-on "${INPUT_COMMENT_ON:-}"
flag format "${INPUT_FORMAT:-}"
case "${INPUT_CHECK_RUN:-false}" in
  true) args+=(--check-run) ;;
  false | "") ;;
  *)
    echo "::error title=goldgate::check-run must be true or false, not '$INPUT_CHECK_RUN'"
    exit 2
    ;;
esac
if [ -n "${INPUT_ARGS:-}" ]; then
  read -r -a extra <<<"$INPUT_ARGS"
  args+=("${extra[@]}")
fi
args+=("$@")

echo "goldgate ${args[*]}"
exec "$bin" "${args[@]}"
