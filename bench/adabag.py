"""Speed of one AdaBag bootstrap's weighted lasso path, adelie against glmnet's Fortran.

On the IMDb matrix of the AdaBag run (50,000 reviews, binary words in >= 5 reviews), the core
set of AdaBag's 2:1:1 split (seed 0), one bootstrap's multiplicities as sample weights, the
imdb polarity weights and the same lambda grid, it times

* glmnet's Fortran (python-glmnet, the anchor; skipped with a note when not installed),
* adelie (the default backend),

prints seconds, the ratio adelie / glmnet and the largest coefficient difference, and with
``--full`` times a whole AdaBag run (B bootstraps, ``--n-jobs``) through the CLI's code path.

    TEXTSIFT_DATA=/path/to/shared/data python bench/adabag.py [--lambdas 100] [--full]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd

from textsift.lasso import (
    AdaBagClassifier,
    SharedDesign,
    adaptive_weights,
    holdout_run,
    lambda_grid,
    lasso_path,
    load_polarity,
    split_211,
    stratified_bootstrap,
)
from textsift.vectorize import VectorizerOptions, vectorize


def load_imdb(root: Path):
    frame = pd.concat([pd.read_json(root / "imdb" / f"{s}.jsonl.gz", lines=True)
                       for s in ("train", "test")], ignore_index=True)
    X, names, _ = vectorize(frame["text"].tolist(), VectorizerOptions(binary=True, min_df=5))
    return X, frame["rating"].to_numpy(float), names


def main():
    ap = argparse.ArgumentParser(description="AdaBag lasso path: adelie vs glmnet")
    ap.add_argument("--lambdas", type=int, default=100)
    ap.add_argument("--min-ratio", type=float, default=1e-3)
    ap.add_argument("--full", action="store_true", help="also time a whole AdaBag run")
    ap.add_argument("--bootstraps", type=int, default=100)
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--backend", default="glmnet")
    ap.add_argument("--out", type=Path, default=Path("bench/results/adabag_full"))
    args = ap.parse_args()
    root = Path(os.environ.get("TEXTSIFT_DATA", "../shared/data"))
    t0 = time.perf_counter()
    X, y, names = load_imdb(root)
    print(f"IMDb matrix {X.shape[0]} x {X.shape[1]}, {X.nnz} non-zeros "
          f"({time.perf_counter() - t0:.1f} s to read and vectorise)")
    pol = load_polarity("imdb", names)
    theta = (y >= 7).astype(int)
    core = np.flatnonzero(split_211(theta, np.zeros(len(y), int), 0) == 0)
    design = SharedDesign.build(X[core], np.zeros(len(core), int), adaptive_weights(pol),
                                np.ones(1))
    m = stratified_bootstrap(theta[core], np.random.default_rng(1)).astype(float)
    yc = y[core]
    lambdas = lambda_grid(design.Z, yc, design.penalty_factor, m, args.lambdas, args.min_ratio)
    print(f"core set {design.Z.shape[0]} x {design.Z.shape[1]}; {len(lambdas)} lambdas down to "
          f"{args.min_ratio} lambda_max")

    rows = []
    try:
        import glmnet  # noqa: F401

        t = time.perf_counter()
        ref = lasso_path(design.Z, yc, design.penalty_factor, m, lambdas, backend="glmnet")
        rows.append(("glmnet (Fortran)", time.perf_counter() - t, ref))
    except ImportError:
        ref = None
        print("python-glmnet is not installed (pip install 'textsift[glmnet]'): no anchor")
    t = time.perf_counter()
    ours = lasso_path(design.Z, yc, design.penalty_factor, m, lambdas, backend="adelie")
    rows.append(("adelie (default)", time.perf_counter() - t, ours))
    anchor = rows[0][1]
    for name, sec, path in rows:
        print(f"{name:32s} {sec:8.2f} s  ratio {sec / anchor:6.2f}  "
              f"active at the last lambda {len(path.active(len(path.lambdas) - 1))}")
    if ref is not None:
        diff = np.abs(ours.coef.toarray() - ref.coef.toarray()).max()
        print(f"largest |coef difference| adelie vs glmnet: {diff:.2e}")

    if args.full:
        t = time.perf_counter()
        model = AdaBagClassifier(a=4, b=7, n_bootstraps=args.bootstraps, backend=args.backend,
                                 polarity=pol, patience=10, n_jobs=args.n_jobs, random_state=0)
        run = holdout_run(model, X, y)
        print(f"full AdaBag run, B={args.bootstraps}, n_jobs={args.n_jobs}, backend "
              f"{args.backend}: {time.perf_counter() - t:.0f} s; test error "
              f"{run.test_error:.4f} with {run.model.support_.sum()} words")


if __name__ == "__main__":
    main()
