"""Selection by significance with many labels, against the anchor of ``bench/manylabels.py``
(scipy's chi-square of the non-zero cells of ``Y^T (X > 0)`` and each label's 10 best), in the
same run.

    TEXTSIFT_DATA=../shared/data nice -n 5 .venv/bin/python bench/alpha_labels.py \\
        [--labels 2000,10000] [--dense-up-to 2000]

IMDb's matrix (50,000 reviews, 101,895 terms) with the synthetic label sets of
``bench/manylabels.py``; each contender in a fresh process (its peak resident memory its
own), once:

* **scipy**, the anchor (``manylabels.scipy_top10``);
* **alpha**: ``Counts.from_matrix(X, Y)`` and ``significant_terms(counts, "fisher", 0.05)``
  -- Fisher's one-sided test of every label's 2 x 2 tables, BH over each label's terms, the
  terms that pass in any label in round-robin order, and each term's smallest p-value -- on
  the per-table sparse form (``evidence.passing_scores``: no (V, m) table);
* **dense** (up to ``--dense-up-to`` labels): the same selection written on the (V, m)
  tables (the p-values, the adjusted ones, the scores, as ``significant_terms`` did before
  the sparse form), for the memory it takes.

It prints wall and CPU seconds, the peak resident memory and the ratios to the anchor, and
the number of terms kept (the same for alpha and dense), with the load average.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from _common import peak_rss_bytes
from manylabels import build, command_line, scipy_top10


def one_run(kind: str, folder: str, m: int) -> dict:
    X = sp.load_npz(Path(folder) / "X.npz")
    Y = sp.load_npz(Path(folder) / f"Y{m}.npz")
    import textsift.evidence.significant  # noqa: F401  (imports out of the timing)
    import textsift.evidence.terms  # noqa: F401

    t0, c0 = time.perf_counter(), time.process_time()
    kept = None
    if kind == "scipy":
        scipy_top10(X, Y)
    else:
        from textsift.counting.counts import Counts
        from textsift.evidence.significant import passes, significant_terms
        from textsift.evidence.terms import adjusted_pvalues
        from textsift.scores import compute

        counts = Counts.from_matrix(X, Y, term_freq=False)
        if kind == "alpha":
            kept = len(significant_terms(counts, "fisher", 0.05)[0])
        else:
            p, q = adjusted_pvalues(counts, "fisher")
            table = np.where(passes(q, 0.05, "bh"), compute(counts, "fisher").values, -np.inf)
            kept = int((table > -np.inf).any(axis=1).sum())
            np.nanmin(p.values, axis=1)
    return {"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0,
            "peak": peak_rss_bytes(), "kept": kept}


def main() -> None:
    parsed = command_line(__doc__, one_run, "2000,10000", dense_up_to=2000)
    if parsed is None:
        return
    args, sizes = parsed
    with tempfile.TemporaryDirectory() as tmp:
        shape = build(args.data, Path(tmp), sizes)
        print(f"IMDb train + test: {shape[0]:,} documents x {shape[1]:,} terms; synthetic label "
              f"sets; Fisher, BH 0.05, the terms passing in any label; {os.cpu_count()} cores")
        print("labels | contender | wall s | CPU s | peak MiB | CPU / anchor | peak / anchor | "
              "terms kept | load")
        for m in sizes:
            anchor = None
            for kind in ("scipy", "alpha", "dense"):
                if kind == "dense" and m > args.dense_up_to:
                    continue
                out = subprocess.run([sys.executable, __file__, "--one", kind, tmp, str(m)],
                                     capture_output=True, text=True)
                if out.returncode:
                    print(f"{m:,} | {kind} | {out.stderr.strip().splitlines()[-1]}")
                    continue
                r = json.loads(out.stdout.strip().splitlines()[-1])
                anchor = anchor or r
                print(f"{m:,} | {kind} | {r['wall']:.2f} | {r['cpu']:.2f} | "
                      f"{r['peak'] / 2**20:,.0f} | {r['cpu'] / anchor['cpu']:.2f} | "
                      f"{r['peak'] / anchor['peak']:.2f} | {r['kept'] or ''} | "
                      f"{os.getloadavg()[0]:.1f}", flush=True)


if __name__ == "__main__":
    main()
