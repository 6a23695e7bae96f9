"""The sentence-transformers half of benches/embed.sh: embed the lines of a file with
all-MiniLM-L6-v2 on the CPU, as goldgate's crates/goldgate-embed/examples/embed.rs does, and print the
throughput.

    python3 benches/embed_st.py MODEL_DIR TEXTS.txt THREADS [ROUNDS]

Loads the model and warms up on the first texts before the clock starts; each round
encodes every line in one call (sentence-transformers' defaults: batches of 32, sorted by
length). Prints one line per round on stderr and `texts_per_second=…` (the best round).
"""

import os
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402
from sentence_transformers import SentenceTransformer  # noqa: E402


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit("usage: embed_st.py MODEL_DIR TEXTS.txt THREADS [ROUNDS]")
    model_dir, texts_file, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rounds = int(sys.argv[4]) if len(sys.argv) == 5 else 1
    torch.set_num_threads(threads)
    with open(texts_file, encoding="utf-8") as f:
        texts = f.read().splitlines()
    model = SentenceTransformer(model_dir, device="cpu")
    model.encode(texts[:64])
    best = 0.0
    for r in range(rounds):
        clock = time.perf_counter()
        model.encode(texts, batch_size=32)
        secs = time.perf_counter() - clock
        best = max(best, len(texts) / secs)
        print(f"round {r + 1}: {secs:.3f} s, {len(texts) / secs:.1f} texts/s", file=sys.stderr)
    print(f"texts_per_second={best:.1f}")


if __name__ == "__main__":
    main()
