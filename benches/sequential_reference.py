"""The betting test's reference values, from the confseq package (Waudby-Smith and Ramdas).

    python3 benches/sequential_reference.py > crates/goldgate-core/src/gate/sequential/reference.json

Downloads confseq's source distribution from the Python package index (pip download, no
build: its C++ boundaries are not needed), imports its pure-Python `betting_mart`, and
writes, for a few populations and hypotheses, the positive and negative capital processes
of the hedged test sampled without replacement (`N` set), with confseq's predictable
plug-in bets and truncation at 1/2. goldgate's test (`gate::sequential::betting`) must give
the same logarithms of capital after every draw. Needs numpy and scipy.
"""

import json
import subprocess
import sys
import tarfile
import tempfile
import types
from pathlib import Path

VERSION = "0.0.11"

work = Path(tempfile.mkdtemp())
subprocess.run(
    [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
     "-d", str(work), f"confseq=={VERSION}"],
    check=True,
)
with tarfile.open(next(work.glob("confseq-*.tar.gz"))) as archive:
    archive.extractall(work, filter="data")
source = next(work.glob("confseq-*/src"))
# betting.py imports plotting and process-pool modules it does not use for betting_mart.
for name in ["matplotlib", "matplotlib.pyplot", "multiprocess"]:
    sys.modules.setdefault(name, types.ModuleType(name))
sys.path.insert(0, str(source))

import numpy as np  # noqa: E402

# confseq 0.0.11's type hints name np.float_, which NumPy 2 removed.
if not hasattr(np, "float_"):
    np.float_ = np.float64
from confseq.betting import betting_mart  # noqa: E402

rng = np.random.default_rng(20261129)
cases = []
for population, draws, m in [(100, 60, 0.3), (100, 60, 0.55), (400, 150, 0.8), (50, 50, 0.5)]:
    x = rng.beta(2, 3, size=draws) if m != 0.8 else (rng.random(draws) < 0.9).astype(float)
    for theta, side in [(1, "above"), (0, "below")]:
        capital = betting_mart(x, m, alpha=0.05, N=population, theta=theta, trunc_scale=1 / 2)
        cases.append({
            "population": population,
            "m": m,
            "alpha": 0.05,
            "side": side,
            "x": x.tolist(),
            # An infinite capital (no population with mean m is left) is written as null.
            "log_capital": [v if np.isfinite(v) else None for v in np.log(capital).tolist()],
        })
json.dump({"confseq": VERSION, "cases": cases}, sys.stdout, indent=1)
print()
