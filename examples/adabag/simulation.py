"""AdaBag on the paper's simulation (METHODS.md §D.6), over several seeds, with the PCA + LDA
baseline on the same splits. Prints one row per seed and variant and the mean and spread;
writes ``simulation.csv`` to the output folder (default ``examples/adabag/out``).

    python examples/adabag/simulation.py [--seeds 5] [--bootstraps 100] [--out DIR]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from textsift.baselines import pca_lda
from textsift.lasso import AdaBag, simulate, split_211


def one(seed: int, variant: str, B: int) -> dict:
    sim = simulate(seed, variant=variant)
    model = AdaBag(a=sim.a, b=sim.b, n_bootstraps=B, seed=seed).fit(sim.X, sim.y, sim.polarity)
    a_top = np.flatnonzero(model.frequencies_ >= B) + 1
    theta = (sim.y >= sim.b).astype(int)
    part = split_211(theta, np.zeros(len(theta), int), seed)  # AdaBag's split (same seed)
    base = pca_lda(sim.X[part < 2], theta[part < 2], sim.X[part == 2], theta[part == 2])
    at30 = base[base.level == 0.30].set_index("ordering")
    return {"seed": seed, "variant": variant, "test_error": model.test_error_,
            "validation_error": model.validation_error_, "cutoff": model.cutoff_,
            "model_size": len(model.selected_), "selected": " ".join(map(str, model.selected_ + 1)),
            f"A_{B}": " ".join(map(str, a_top)), "A_B_has_1_to_6": set(range(1, 7)) <= set(a_top),
            "test_error_A_B": float(model.test_errors_[-1]),
            "pca_variance_30": at30.loc["variance", "test_error"],
            "pcs_variance_30": at30.loc["variance", "n_components"],
            "pca_entropy_30": at30.loc["entropy", "test_error"],
            "pcs_entropy_30": at30.loc["entropy", "n_components"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--bootstraps", type=int, default=100)
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "out")
    args = ap.parse_args()
    rows = []
    for variant in ("assigned", "equal"):
        for seed in range(args.seeds):
            rows.append(one(seed, variant, args.bootstraps))
            print(pd.DataFrame(rows[-1:]).to_string(index=False, header=len(rows) == 1),
                  flush=True)
    table = pd.DataFrame(rows)
    args.out.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out / "simulation.csv", index=False)
    cols = ["test_error", "test_error_A_B", "model_size", "A_B_has_1_to_6", "pca_variance_30",
            "pca_entropy_30"]
    print(table.groupby("variant")[cols].agg(["mean", "std"]).round(3).T.to_string())


if __name__ == "__main__":
    main()
