#!/usr/bin/env bash
# The Python package, end to end: install goldgate the way the README's Install section says
# to from a clone (its `pip install .` line, run as written) into a fresh virtual
# environment, and run the installed `goldgate --version`, which must print Cargo.toml's
# version.
#
#   bash scripts/wheel-test.sh                                   # the README's line, checked
#   bash scripts/wheel-test.sh --from DIR [--expect-tag PATTERN] # install one of DIR's wheels
#
# Without --from (as .ci/run calls it, after `cargo test`), the script takes the first
# `pip install` line of the README's Install section (tests/release.rs holds that line to
# `pip install .`) and runs it as written, in this checkout, with a fresh virtual
# environment's bin/ first on PATH. pip builds the wheel with maturin through its PEP 517
# hooks, fetching maturin into an isolated build environment; the environment pins maturin
# (PIP_CONSTRAINT: MATURIN_VERSION below, the version the release workflow pins too) and
# chooses the build (MATURIN_PEP517_ARGS): the dev profile, stripped, without the `semantic`
# feature. The release profile's fat LTO takes about ten minutes on two cores, and the
# in-process model's crates (the tokenizer and the matrix kernels, built optimised even in
# the dev profile) add minutes more, while the dev profile reuses most of what `cargo test`
# compiled. The package is the
# same either way: the release workflow builds its wheels in the release profile with the
# default features and checks each one with --from on its platform.
#
# With --from DIR (the release workflow, on each platform it ships), pip picks the wheel
# for this machine among DIR's by the same platform tags as any user's pip, binaries only;
# --expect-tag checks the tag it picked against a shell pattern (e.g. '*musllinux*aarch64').
#
# It checks that the package holds goldgate's binary and its metadata and nothing else (each
# wheel's files with --from, the installed files otherwise); that the metadata's version and
# license are Cargo.toml's; that `goldgate` on the environment's PATH is the installed
# binary; that `goldgate --version` prints `goldgate <version>`; and, without --from, that
# the build (which leaves `semantic` out) refuses minilm with exit 2 and how to enable it.
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
      sed -n '2,33p' "$0" | sed 's/^# \{0,1\}//'
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

python3 -m venv "$tmp/venv"
if [ -z "$from" ]; then
  command -v cargo >/dev/null || { echo "error: cargo is not installed (the wheel test builds goldgate)" >&2; exit 2; }
  # The README's from-clone line, as written: the first `pip install` line of the first
  # sh block of its Install section, without its comment.
  line=$(awk '
    /^## Install$/ { install = 1; next }
    install && /^## / { exit }
    install && /^```sh$/ { block = 1; next }
    block && /^```$/ { exit }
    block && /^pip install / { sub(/[[:space:]]+#.*$/, ""); print; exit }
  ' README.md)
  [ -n "$line" ] || fail "README.md's Install section has no 'pip install' line in its first sh block"
  echo "the README's from-clone install line, in a fresh virtual environment: $line"
  echo "maturin==$MATURIN_VERSION" >"$tmp/constraints.txt"
  PATH="$tmp/venv/bin:$PATH" VIRTUAL_ENV="$tmp/venv" \
    PIP_CONSTRAINT="$tmp/constraints.txt" PIP_BUILD_CONSTRAINT="$tmp/constraints.txt" \
    MATURIN_PEP517_ARGS="--profile dev --strip --locked --no-default-features" \
    bash -c "$line" >"$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log" >&2; fail "the README's line '$line' failed"; }
  grep -q "Successfully installed goldgate-$version" "$tmp/install.log" ||
    { cat "$tmp/install.log" >&2; fail "'$line' did not install goldgate $version"; }
  tags=$("$tmp/venv/bin/python" -c 'import importlib.metadata as m; print(" ".join(l.split(": ", 1)[1] for l in m.distribution("goldgate").read_text("WHEEL").splitlines() if l.startswith("Tag: ")))')
  echo "built and installed the wheel tagged $tags"
  # What was installed: the binary and its metadata only, Cargo.toml's version and license.
  "$tmp/venv/bin/python" - "$version" "$license" <<'EOF' || fail "the installed package's files or metadata are wrong (above)"
import importlib.metadata as m, sys

version, license = sys.argv[1], sys.argv[2]
dist = m.distribution("goldgate")
files = [str(f) for f in dist.files]
info = f"goldgate-{version}.dist-info/"
binary = [f for f in files if f.endswith("/bin/goldgate")]
others = [f for f in files if not f.startswith(info) and f not in binary]
problems = []
if len(binary) != 1:
    problems.append(f"expected one goldgate binary in bin/, found {binary}")
if others:
    problems.append(f"files besides the binary and its metadata: {others}")
if dist.version != version:
    problems.append(f"Version is {dist.version}, Cargo.toml says {version}")
if dist.metadata["License-Expression"] != license:
    problems.append(f"License-Expression is {dist.metadata['License-Expression']}, Cargo.toml says {license}")
for p in problems:
    print(p, file=sys.stderr)
print(f"installed {len(files)} files ({binary[0] if binary else 'no binary'} and its dist-info)")
sys.exit(1 if problems else 0)
EOF
else
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
fi

# As `source bin/activate` (and uvx and pipx) would put it: the environment's bin first.
found=$(cd "$tmp" && PATH="$tmp/venv/bin:$PATH" command -v goldgate) || fail "goldgate is not on the environment's PATH"
[ "$found" = "$tmp/venv/bin/goldgate" ] || fail "goldgate on PATH is $found, not the installed $tmp/venv/bin/goldgate"
out=$(cd "$tmp" && PATH="$tmp/venv/bin:$PATH" goldgate --version) || fail "goldgate --version exited with $?"
[ "$out" = "goldgate $version" ] || fail "goldgate --version printed '$out', expected 'goldgate $version'"
echo "$found --version: $out"

if [ -z "$from" ]; then
  # This build leaves the `semantic` feature out: `similarity = "minilm"` must be one clear
  # input error (exit 2) that says how to get the feature, not a crash or a quiet fallback.
  printf 'version = 1\n\n[matching]\nsimilarity = "minilm"\n' >"$tmp/thresholds.toml"
  status=0
  refused=$(cd "$tmp" && "$found" similarity --thresholds thresholds.toml a b 2>&1) || status=$?
  [ "$status" -eq 2 ] || fail "without the semantic feature, minilm exited with $status, expected 2: $refused"
  case "$refused" in
    *"--features semantic"*) ;;
    *) fail "without the semantic feature, minilm's refusal does not say how to enable it: $refused" ;;
  esac
  echo "without the semantic feature, minilm is refused (exit 2) with how to enable it"
fi
echo "wheel test passed in $(($(date +%s) - started)) s"
