#!/usr/bin/env bash
# Step 1 of the goldgate GitHub Action (action.yml): decide how goldgate gets onto the runner.
#
# - A prebuilt release binary when the action runs from a repository with releases
#   (`uses: owner/goldgate@v1`) and one exists for this runner: downloaded from the
#   repository's GitHub release `v<version>` with its .sha256, checked, and unpacked.
# - Otherwise (a local `uses: ./`, `version: source`, no asset for this runner, or the
#   download fails) it prints `build=true`, and the next steps restore the cargo cache and run
#   `cargo install --locked` from the action's own source (the action's checkout is the whole
#   repository).
#
# Inputs (environment): GOLDGATE_VERSION ("" = the version in the action's Cargo.toml,
# "source" = always build, or a version such as 0.2.0 / v0.2.0), GOLDGATE_ACTION_PATH,
# GOLDGATE_ACTION_REPOSITORY (owner/name; else read from the action's path; none for a
# local action), GITHUB_SERVER_URL,
# RUNNER_OS, RUNNER_ARCH, RUNNER_TOOL_CACHE (or RUNNER_TEMP), GOLDGATE_RELEASE_BASE_URL
# (overrides "$GITHUB_SERVER_URL/<repo>/releases/download", for mirrors and tests).
# Outputs (appended to $GITHUB_OUTPUT): build, root, bin, version, cache-key.
set -euo pipefail

action_path=${GOLDGATE_ACTION_PATH:?GOLDGATE_ACTION_PATH is not set}
out=${GITHUB_OUTPUT:-/dev/stdout}

output() { printf '%s=%s\n' "$1" "$2" >>"$out"; }

source_version() {
  sed -n 's/^version *= *"\([^"]*\)".*/\1/p' "$action_path/Cargo.toml" | head -n 1
}

target_triple() {
  case "${RUNNER_OS:-$(uname -s)}/${RUNNER_ARCH:-$(uname -m)}" in
    Linux/X64 | Linux/x86_64) echo x86_64-unknown-linux-gnu ;;
    Linux/ARM64 | Linux/aarch64) echo aarch64-unknown-linux-gnu ;;
    macOS/ARM64 | Darwin/arm64) echo aarch64-apple-darwin ;;
    macOS/X64 | Darwin/x86_64) echo x86_64-apple-darwin ;;
    *) echo "" ;;
  esac
}

# A hash of everything the binary is built from: the build cache key.
source_hash() {
  (cd "$action_path" && find Cargo.toml Cargo.lock src templates -type f -print0 | sort -z |
    xargs -0 sha256sum | sha256sum | cut -c1-16)
}

case "${RUNNER_OS:-}" in
  Windows)
    echo "::error title=goldgate::goldgate runs on Linux and macOS runners (it drives pipelines in POSIX process groups); use runs-on: ubuntu-latest"
    exit 2
    ;;
esac

requested=${GOLDGATE_VERSION:-}
version=${requested#v}
[ -n "$version" ] && [ "$version" != source ] || version=$(source_version)
target=$(target_triple)
root="${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:-/tmp}}/goldgate/$version/${target:-unknown}"
output version "$version"
output root "$root"
output bin "$root/bin/goldgate"

if [ -x "$root/bin/goldgate" ] && [ "$requested" != source ]; then
  echo "goldgate $version is already installed at $root"
  output build false
  exit 0
fi

# The action's repository. `github.action_repository` is empty inside composite actions,
# so it is read from where the runner put the action: .../_actions/<owner>/<repo>/<ref>.
action_repository() {
  if [ -n "${GOLDGATE_ACTION_REPOSITORY:-}" ]; then
    echo "$GOLDGATE_ACTION_REPOSITORY"
    return
  fi
  case "$action_path" in
    */_actions/*/*/*)
      local rest=${action_path#*/_actions/}
      echo "$rest" | cut -d/ -f1-2
      ;;
  esac
}

download() {
  local repo
  repo=$(action_repository)
  local base=${GOLDGATE_RELEASE_BASE_URL:-}
  if [ -z "$base" ]; then
    [ -n "$repo" ] || { echo "local action: building goldgate from its source"; return 1; }
    base="${GITHUB_SERVER_URL:-https://github.com}/$repo/releases/download"
  fi
  [ "$requested" != source ] || { echo "version: source: building goldgate from the action's source"; return 1; }
  [ -n "$target" ] || { echo "no prebuilt goldgate for ${RUNNER_OS:-?}/${RUNNER_ARCH:-?}: building it"; return 1; }
  local asset="goldgate-v$version-$target.tar.gz"
  local url="$base/v$version/$asset"
  local tmp
  tmp=$(mktemp -d)
  echo "downloading $url"
  if ! curl --fail --silent --show-error --location --retry 3 --retry-connrefused \
    -o "$tmp/$asset" "$url" ||
    ! curl --fail --silent --show-error --location --retry 3 --retry-connrefused \
      -o "$tmp/$asset.sha256" "$url.sha256"; then
    echo "no release asset $asset: building goldgate from the action's source"
    rm -rf "$tmp"
    return 1
  fi
  local want got
  want=$(cut -d' ' -f1 <"$tmp/$asset.sha256")
  got=$(sha256sum "$tmp/$asset" | cut -d' ' -f1)
  if [ "$want" != "$got" ]; then
    echo "::error title=goldgate::checksum mismatch for $asset (expected $want, got $got)"
    rm -rf "$tmp"
    exit 2
  fi
  mkdir -p "$root/bin"
  tar -xzf "$tmp/$asset" -C "$root/bin" goldgate
  chmod +x "$root/bin/goldgate"
  rm -rf "$tmp"
  echo "installed goldgate $version ($target) at $root/bin/goldgate"
}

if download; then
  output build false
else
  output build true
  output cache-key "goldgate-${RUNNER_OS:-local}-${RUNNER_ARCH:-local}-$version-$(source_hash)"
fi
