"""AdaBag on the paper's simulation (its design, as stated), over several seeds, with the PCA + LDA
baseline on the same splits. Prints one row per seed and variant and the mean and spread;
writes ``simulation.csv`` to the output folder (default ``examples/adabag/out``).

    python examples/adabag/simulation.py [--seeds 5] [--bootstraps 100] [--patience 0] [--out DIR]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from textsift.lasso import AdaBagClassifier, holdout_run, simulate
from textsift.learners.baselines import pca_lda_holdout


def one(seed: int, variant: str, B: int, patience) -> dict:
    sim = simulate(seed, variant=variant)
    model = AdaBagClassifier(a=sim.a, b=sim.b, n_bootstraps=B, polarity=sim.polarity,
                             random_state=seed, patience=patience)
    run = holdout_run(model, sim.X, sim.y)
    model = run.model
    selected = np.flatnonzero(model.support_)
    a_top = np.flatnonzero(model.frequencies_ >= B) + 1
    base = pca_lda_holdout(sim.X, sim.y, sim.a, sim.b, seed=seed)  # AdaBag's split (same seed)
    at30 = base[base.level == 0.30].set_index("ordering")
    return {"seed": seed, "variant": variant, "test_error": run.test_error,
            "validation_error": model.validation_error_, "cutoff": model.cutoff_,
            "model_size": len(selected), "selected": " ".join(map(str, selected + 1)),
            f"A_{B}": " ".join(map(str, a_top)), "A_B_has_1_to_6": set(range(1, 7)) <= set(a_top),
            "test_error_A_B": float(run.test_errors[-1]),
            "pca_variance_30": at30.loc["variance", "test_error"],
            "pcs_variance_30": at30.loc["variance", "n_components"],
            "pca_entropy_30": at30.loc["entropy", "test_error"],
            "pcs_entropy_30": at30.loc["entropy", "n_components"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--bootstraps", type=int, default=100)
    ap.add_argument("--patience", type=int, default=0, help="0: every path over the whole grid")
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "out")
    args = ap.parse_args()
    rows = []
    for variant in ("assigned", "equal"):
        for seed in range(args.seeds):
            rows.append(one(seed, variant, args.bootstraps, args.patience or None))
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
