#!/usr/bin/env bash
# The Python wheel, end to end: build goldgate's wheel for this platform with maturin
# (`bindings = "bin"`, see pyproject.toml), install it into a fresh virtual environment and
# run the installed `goldgate --version`, which must print Cargo.toml's version.
#
#   bash scripts/wheel-test.sh                                   # build, install, check
#   bash scripts/wheel-test.sh --from DIR [--expect-tag PATTERN] # install one of DIR's wheels
#
# Without --from (as .ci/run calls it, after `cargo test`), maturin builds the wheel from
# this checkout. maturin is pinned (MATURIN_VERSION below, the version the release workflow
# pins too) and pip-installed into a throwaway virtual environment. The wheel is built in
# the dev profile, stripped, without the `semantic` feature: the release profile's fat LTO
# takes about ten minutes on two cores, and the in-process model's crates (candle, built
# optimised even in the dev profile) add minutes more, while the dev profile reuses most of
# what `cargo test` compiled. The package is the same either way: the release workflow
# builds its wheels in the release profile with the default features and checks each one
# with --from on its platform.
#
# With --from DIR (the release workflow, on each platform it ships), pip picks the wheel
# for this machine among DIR's by the same platform tags as any user's pip, binaries only;
# --expect-tag checks the tag it picked against a shell pattern (e.g. '*musllinux*aarch64').
#
# It checks that each wheel holds goldgate's binary and its metadata and nothing else; that
# the metadata's version and license are Cargo.toml's; that `goldgate` on the environment's
# PATH is the installed binary; and that `goldgate --version` prints `goldgate <version>`.
# Needs python3 with pip and venv (and cargo, to build); exits 2 when one is missing and 1
# when a check fails. It never skips.
set -euo pipefail

MATURIN_VERSION=1.13.1

from=""
expect_tag=""
while [ $# -gt 0 ]; do
  case "$1" in
    --from)
      from=${2:?--from needs a directory}
      shift 2
      ;;
    --expect-tag)
      expect_tag=${2:?--expect-tag needs a pattern}
      shift 2
      ;;
    -h | --help)
      sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "error: unknown argument $1 (see --help)" >&2
      exit 2
      ;;
  esac
done

fail() {
  echo "wheel test FAILED: $*" >&2
  exit 1
}

if [ -n "$from" ]; then
  [ -d "$from" ] || fail "$from is not a directory"
  from=$(cd "$from" && pwd)
fi
cd "$(dirname "$0")/.."

started=$(date +%s)
command -v python3 >/dev/null || { echo "error: python3 is not installed (the wheel test needs python3 with pip and venv)" >&2; exit 2; }
python3 -c 'import venv, ensurepip' 2>/dev/null ||
  { echo "error: python3 has no venv/ensurepip module (Debian: apt-get install python3-venv)" >&2; exit 2; }

version=$(sed -n 's/^version *= *"\([^"]*\)".*/\1/p' Cargo.toml | head -n 1)
license=$(sed -n 's/^license *= *"\([^"]*\)".*/\1/p' Cargo.toml | head -n 1)
[ -n "$version" ] || fail "no version in Cargo.toml"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/goldgate-wheel.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore

if [ -z "$from" ]; then
  command -v cargo >/dev/null || { echo "error: cargo is not installed (the wheel test builds goldgate)" >&2; exit 2; }
  echo "maturin $MATURIN_VERSION into a throwaway virtual environment"
  python3 -m venv "$tmp/maturin"
  "$tmp/maturin/bin/python" -m pip install --quiet "maturin==$MATURIN_VERSION" ||
    { echo "error: cannot install maturin==$MATURIN_VERSION with pip" >&2; exit 2; }
  echo "maturin build --profile dev --strip --locked --no-default-features"
  "$tmp/maturin/bin/maturin" build --profile dev --strip --locked --no-default-features --out "$tmp/dist" 2>"$tmp/maturin.log" ||
    { cat "$tmp/maturin.log" >&2; fail "maturin build failed"; }
  from="$tmp/dist"
fi

shopt -s nullglob
wheels=("$from"/goldgate-*.whl)
shopt -u nullglob
[ ${#wheels[@]} -gt 0 ] || fail "no goldgate wheel in $from"

# Every wheel: the binary and its metadata only, Cargo.toml's version and license.
python3 - "$version" "$license" "${wheels[@]}" <<'EOF' || fail "a wheel's contents or metadata are wrong (above)"
import email.parser, sys, zipfile

version, license, wheels = sys.argv[1], sys.argv[2], sys.argv[3:]
ok = True
for path in wheels:
    data = f"goldgate-{version}.data/"
    info = f"goldgate-{version}.dist-info/"
    with zipfile.ZipFile(path) as wheel:
        names = wheel.namelist()
        meta = email.parser.Parser().parsestr(wheel.read(info + "METADATA").decode())
    binary = [n for n in names if n.startswith(data + "scripts/goldgate")]
    others = [n for n in names if not n.startswith(info) and n not in binary]
    problems = []
    if len(binary) != 1:
        problems.append(f"expected one goldgate binary under {data}scripts/, found {binary}")
    if others:
        problems.append(f"files besides the binary and its metadata: {others}")
    if meta["Version"] != version:
        problems.append(f"Version is {meta['Version']}, Cargo.toml says {version}")
    if meta["License-Expression"] != license:
        problems.append(f"License-Expression is {meta['License-Expression']}, Cargo.toml says {license}")
    for p in problems:
        print(f"{path}: {p}", file=sys.stderr)
    ok = ok and not problems
    print(f"{path.rsplit('/', 1)[-1]}: {len(names)} files ({binary[0] if binary else 'no binary'} and its dist-info)")
sys.exit(0 if ok else 1)
EOF

echo "pip install goldgate==$version into a fresh virtual environment"
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/python" -m pip install --quiet --no-index --only-binary :all: --find-links "$from" "goldgate==$version" ||
  fail "pip found no wheel in $from for this platform, or could not install it"
tags=$("$tmp/venv/bin/python" -c 'import importlib.metadata as m; print(" ".join(l.split(": ", 1)[1] for l in m.distribution("goldgate").read_text("WHEEL").splitlines() if l.startswith("Tag: ")))')
echo "installed the wheel tagged $tags"
if [ -n "$expect_tag" ]; then
  # shellcheck disable=SC2254 # the pattern is meant to match
  case "$tags" in
    $expect_tag) ;;
    *) fail "the installed wheel's tag $tags does not match $expect_tag" ;;
  esac
fi

# As `source bin/activate` (and uvx and pipx) would put it: the environment's bin first.
found=$(cd "$tmp" && PATH="$tmp/venv/bin:$PATH" command -v goldgate) || fail "goldgate is not on the environment's PATH"
[ "$found" = "$tmp/venv/bin/goldgate" ] || fail "goldgate on PATH is $found, not the installed $tmp/venv/bin/goldgate"
out=$(cd "$tmp" && PATH="$tmp/venv/bin:$PATH" goldgate --version) || fail "goldgate --version exited with $?"
[ "$out" = "goldgate $version" ] || fail "goldgate --version printed '$out', expected 'goldgate $version'"
echo "$found --version: $out"
echo "wheel test passed in $(($(date +%s) - started)) s"
