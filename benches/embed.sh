#!/usr/bin/env bash
# Benchmark: embedding throughput of goldgate's `minilm` backend against the Python
# sentence-transformers package (PyTorch on the CPU), on the same texts, with the same
# number of threads, side by side in one run.
#
#   bash benches/embed.sh [--texts N] [--threads T] [--rounds K] [--python PYTHON]
#                         [--simd auto|avx512|avx2|neon|scalar]
#
# The texts are N short requirement sentences (default 2000, from
# tests/fixtures/minilm/texts.py). The model is GOLDGATE_MINILM_DIR, else what
# scripts/fetch-minilm.sh installs. goldgate runs its bench driver
# (crates/goldgate-embed/examples/embed.rs, a release build) with T threads (RAYON_NUM_THREADS, default: the machine's cores), and
# sentence-transformers runs with torch.set_num_threads(T) (benches/embed_st.py; PYTHON,
# default python3, must have sentence-transformers: `pip install sentence-transformers`).
# Each of the K rounds (default 5) runs both, one after the other, so both see the same
# machine; each process loads the model and warms up before its clock starts. Prints each
# round, the median throughput of each, and their ratio. --simd chooses goldgate's forward
# pass (GOLDGATE_MINILM_SIMD of the driver; default auto, the fastest this CPU runs).
set -euo pipefail
cd "$(dirname "$0")/.."
texts=2000 threads=$(nproc) rounds=5 python=python3 simd=auto
while [ $# -gt 0 ]; do
  case "$1" in
    --texts) texts="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --python) python="$2"; shift 2 ;;
    --simd) simd="$2"; shift 2 ;;
    *) echo "usage: bash benches/embed.sh [--texts N] [--threads T] [--rounds K] [--python PYTHON] [--simd auto|avx512|avx2|neon|scalar]" >&2; exit 2 ;;
  esac
done
"$python" -c 'import sentence_transformers' 2>/dev/null || {
  echo "error: $python cannot import sentence_transformers (pip install sentence-transformers, or pass --python)" >&2
  exit 2
}
model=${GOLDGATE_MINILM_DIR:-$(bash scripts/fetch-minilm.sh | tail -n 1)}
work="${TMPDIR:-/tmp}/goldgate-bench-embed"
mkdir -p "$work"
python3 -c "
import sys
sys.path.insert(0, 'tests/fixtures/minilm')
from texts import requirement_sentences
print('\n'.join(requirement_sentences($texts, seed=99)))
" >"$work/texts.txt"
cargo build --release --quiet -p goldgate-embed --example embed
driver="${CARGO_TARGET_DIR:-$PWD/target}/release/examples/embed"
# The forward pass the driver runs (an instruction set this CPU lacks stops here).
head -n 8 "$work/texts.txt" >"$work/probe.txt"
ran=$(GOLDGATE_MINILM_SIMD=$simd "$driver" "$model" "$work/probe.txt" --repeat 1 2>"$work/probe.err" | sed -n 's/^simd=//p') || {
  cat "$work/probe.err" >&2
  exit 2
}

rate() { sed -n 's/^texts_per_second=//p'; }
median() { sort -n | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

echo "$texts texts (avg $(awk '{w+=NF} END {printf "%.1f", w/NR}' "$work/texts.txt") words), $threads threads, $rounds rounds; model $model; goldgate's forward pass: $ran"
: >"$work/goldgate.rates"
: >"$work/st.rates"
for round in $(seq "$rounds"); do
  g=$(GOLDGATE_MINILM_SIMD=$simd RAYON_NUM_THREADS=$threads "$driver" "$model" "$work/texts.txt" --repeat 1 2>/dev/null | rate)
  s=$(OMP_NUM_THREADS=$threads "$python" benches/embed_st.py "$model" "$work/texts.txt" "$threads" 2>/dev/null | rate)
  echo "round $round: goldgate $g texts/s, sentence-transformers $s texts/s"
  echo "$g" >>"$work/goldgate.rates"
  echo "$s" >>"$work/st.rates"
done
g=$(median <"$work/goldgate.rates")
s=$(median <"$work/st.rates")
echo "goldgate (minilm, $ran):  median $g texts/s"
echo "sentence-transformers (torch):  median $s texts/s"
echo "ratio: $(awk -v g="$g" -v s="$s" 'BEGIN {printf "%.2f", g / s}')x"
