"""The Korean tables of docs/reproductions.md (section 6.2) from the runs of examples/korean/:
accuracy (neg vs pos) of NB and the linear SVM, and MAE^M of the balanced SVR on the 1-10
ratings, per representation, with every term (FFS) and with chi2 / IG / BNS at 1% and 10%.

    python examples/korean/summarise.py results/korean
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

REPRESENTATIONS = {"words": "words", "words_1_2": "words 1-2", "char_2_3": "char 2-3",
                   "char_wb_1_3": "char_wb 1-3", "morphemes": "morphemes (Kiwi)"}
COLUMNS = [("ffs", 1.0)] + [(m, r) for r in (0.01, 0.1) for m in ("chi2", "ig", "bns")]


def row(df: pd.DataFrame, learner: str, metric: str, scale: float, digits: int) -> list[str]:
    part = df[(df.learner == learner) & (df.metric == metric)]
    cells = []
    for method, ratio in COLUMNS:
        v = part[(part.method == method) & (part.ratio.fillna(1.0).round(4) == ratio)].value
        cells.append(f"{scale * v.iloc[0]:.{digits}f}" if len(v) else "--")
    return cells


def main(root: Path) -> None:
    head = ("| terms | vocabulary | all | " + " | ".join(f"{m} {100 * r:g}%" for m, r in
                                                        COLUMNS[1:]) + " |")
    rule = "|---|---:|" + "---:|" * len(COLUMNS)
    for learner, metric, suffix, what, scale, digits in (
            ("nb", "accuracy", "", "NB accuracy (%)", 100, 1),
            ("linear_svm", "accuracy", "", "linear SVM accuracy (%)", 100, 1),
            ("svr-balanced", "mae_macro", "_ratings", "balanced SVR MAE^M (1-10)", 1, 3)):
        print(f"\n{what}\n\n{head}\n{rule}")
        for key, name in REPRESENTATIONS.items():
            path = root / f"{key}{suffix}" / "results.csv"
            if not path.exists():
                continue
            df = pd.read_csv(path)
            vocab = int(df[df.method == "ffs"].n_features.iloc[0])
            print(f"| {name} | {vocab:,} | " + " | ".join(row(df, learner, metric, scale,
                                                            digits)) + " |")
        if suffix:
            triv = [pd.read_csv(root / f"{k}{suffix}" / "results.csv") for k in REPRESENTATIONS
                    if (root / f"{k}{suffix}" / "results.csv").exists()]
            if triv:
                t = triv[0]
                v = t[(t.method == "triv") & (t.metric == metric)].value
                print(f"\nthe trivial predictor (the middle rank): MAE^M {v.iloc[0]:.3f}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "results/korean"))
