"""AdaBag's lasso paths and a whole AdaBag run on IMDb: adelie (the default backend) against
glmnet's Fortran (the anchor, python-glmnet; skipped with a note when not installed), side by
side in one run, each figure with the machine's load average.

1. One AdaBag bootstrap's path: the IMDb matrix of the AdaBag run (50,000 reviews, binary words
   in >= 5 reviews), the core set of the 2:1:1 split (seed 0), one bootstrap's multiplicities
   as sample weights, the imdb polarity penalty factors, 100 lambdas down to 1e-3 lambda_max.
   The previous default, skglm, is printed from its recorded figure (it is no longer
   installed): 28.9 s against glmnet's 1.20 s on this path (load 2.6).
2. A review matrix of about 10k x 11k (10,000 training reviews drawn with seed 0, words in
   >= 10 of them: 10,000 x 10,727), bootstrap multiplicities, random penalty factors (uniform
   0.5-2), glmnet's own grid of 100 lambdas: seconds, the ratio adelie / glmnet (goal
   <= 1.5) and the largest relative objective difference over the lambdas (goal <= 1e-4).
3. ``--full``: the paper's protocol with B bootstraps on ``--n-jobs`` processes, default
   install (adelie), ``patience=10`` (goal <= 90 s; 159 s with glmnet before this backend).
   ``--full-backend glmnet`` times the same run with glmnet.

    TEXTSIFT_DATA=/path/to/shared/data python bench/adabag.py [--full] [--bootstraps 100]
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
    objective,
    split_211,
    stratified_bootstrap,
)
from textsift.vectorize import VectorizerOptions, vectorize

SKGLM_RECORDED = (28.9, 1.20, 2.6)  # skglm s, glmnet s, load: docs/reproductions.md section 4


def load() -> str:
    return "load {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())


def load_imdb(root: Path, splits=("train", "test")):
    frame = pd.concat([pd.read_json(root / "imdb" / f"{s}.jsonl.gz", lines=True)
                       for s in splits], ignore_index=True)
    return frame["text"].tolist(), frame["rating"].to_numpy(float)


def have_glmnet() -> bool:
    try:
        import glmnet  # noqa: F401
    except ImportError:
        print("python-glmnet is not installed (pip install 'textsift[glmnet]'): no anchor")
        return False
    return True


def warm_up(anchor: bool):
    """Import each backend (adelie's import takes about 2 s) outside the timings."""
    rng = np.random.default_rng(0)
    X, y = (rng.random((40, 5)) < 0.3).astype(float), rng.normal(size=40)
    for backend in (["glmnet"] if anchor else []) + ["adelie"]:
        lasso_path(X, y, n_lambdas=3, backend=backend)


def side_by_side(name, X, y, pf, w, lambdas, anchor: bool):
    """Time each backend on one path; print seconds, ratio and objective differences."""
    rows = {}
    for backend in (["glmnet"] if anchor else []) + ["adelie"]:
        t = time.perf_counter()
        path = lasso_path(X, y, pf, w, lambdas, backend=backend)
        rows[backend] = (time.perf_counter() - t, path)
        print(f"  {name}: {backend:7s} {rows[backend][0]:7.2f} s  ({load()})", flush=True)
    if not anchor:
        return
    (tg, g), (ta, a) = rows["glmnet"], rows["adelie"]
    rel = [(objective(X, y, a.coef[:, [k]], a.intercept[k], lam, pf, w)
            - objective(X, y, g.coef[:, [k]], g.intercept[k], lam, pf, w))
           / objective(X, y, g.coef[:, [k]], g.intercept[k], lam, pf, w)
           for k, lam in enumerate(lambdas)]
    same = np.mean([set(a.active(k)) == set(g.active(k)) for k in range(len(lambdas))])
    print(f"  {name}: adelie / glmnet = {ta / tg:.2f}; objective relative difference "
          f"max {np.max(np.abs(rel)):.1e} (adelie lower at {np.sum(np.array(rel) < 0)} of "
          f"{len(rel)} lambdas); identical active sets at {same:.0%} of the lambdas")


def main():
    ap = argparse.ArgumentParser(description="AdaBag paths and run: adelie vs glmnet")
    ap.add_argument("--full", action="store_true", help="also time a whole AdaBag run")
    ap.add_argument("--bootstraps", type=int, default=100)
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--full-backend", default="adelie")
    args = ap.parse_args()
    root = Path(os.environ.get("TEXTSIFT_DATA", "../shared/data"))
    anchor = have_glmnet()
    warm_up(anchor)

    texts, y = load_imdb(root)
    X, names, _ = vectorize(texts, VectorizerOptions(binary=True, min_df=5))
    pol = load_polarity("imdb", names)
    theta = (y >= 7).astype(int)
    core = np.flatnonzero(split_211(theta, np.zeros(len(y), int), 0) == 0)
    design = SharedDesign.build(X[core], np.zeros(len(core), int), adaptive_weights(pol),
                                np.ones(1))
    m = stratified_bootstrap(theta[core], np.random.default_rng(1)).astype(float)
    lambdas = lambda_grid(design.Z, y[core], design.penalty_factor, m, 100, 1e-3)
    print(f"1. one AdaBag bootstrap's path: {design.Z.shape[0]} x {design.Z.shape[1]}, "
          f"100 lambdas to 1e-3 lambda_max")
    side_by_side("IMDb bootstrap", design.Z, y[core], design.penalty_factor, m, lambdas, anchor)
    s, g, ld = SKGLM_RECORDED
    print(f"  IMDb bootstrap: skglm   {s:7.2f} s  (recorded at load {ld}; glmnet {g:.2f} s then, "
          f"ratio {s / g:.1f})")

    rtexts, ry = load_imdb(root, ("train",))
    pick = np.random.default_rng(0).permutation(len(rtexts))[:10_000]
    R, _, _ = vectorize([rtexts[i] for i in pick], VectorizerOptions(binary=True, min_df=10))
    rng = np.random.default_rng(0)
    w = stratified_bootstrap((ry[pick] >= 7).astype(int), rng).astype(float)
    pf = rng.uniform(0.5, 2.0, R.shape[1])
    grid = lambda_grid(R, ry[pick], pf, w, 100)
    print(f"2. review matrix {R.shape[0]} x {R.shape[1]}, bootstrap weights, random penalty "
          "factors, glmnet's grid of 100 lambdas")
    side_by_side("reviews", R, ry[pick], pf, w, grid, anchor)

    if args.full:
        print(f"3. the whole AdaBag run: B = {args.bootstraps}, n_jobs = {args.n_jobs}, "
              f"backend {args.full_backend}, patience 10")
        model = AdaBagClassifier(a=4, b=7, n_bootstraps=args.bootstraps, polarity=pol,
                                 backend=args.full_backend, patience=10, n_jobs=args.n_jobs,
                                 random_state=0)
        t = time.perf_counter()
        run = holdout_run(model, X, y)
        print(f"  {time.perf_counter() - t:.1f} s ({load()}); test error {run.test_error:.4f} "
              f"with {run.model.support_.sum()} words (cutoff {run.model.cutoff_}); goal "
              "<= 90 s, 159 s with glmnet before", flush=True)


if __name__ == "__main__":
    main()
