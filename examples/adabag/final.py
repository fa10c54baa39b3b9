"""AdaBag's final model on skewed classes (docs/reproductions.md, section 4.2): the paper's
least squares of the rating against ridge regression and logistic regression on the selected
words (``AdaBagClassifier(final=...)``), beside scikit-learn's balanced logistic regression on
all the words.

    TEXTSIFT_DATA=../shared/data python examples/adabag/final.py --out out/final

Corpora and features as in ``examples/adabag/skew.py`` (its ``load``): amazon_alexa and
womens_clothing_reviews, their own train/test split, ratings <= 2 low and >= 4 high, binary
words in >= 2 training reviews. AdaBag as in section 4.1's goal: ``a=2, b=4,
class_weight="balanced", criterion="balanced_error"``, the plain lasso, B bootstraps, seed 0,
``threshold="validation"`` (so that the midpoint rule and the validation threshold are read
off one fit). One fit per final model; the bootstraps are kept in ``DIR/<corpus>/bootstraps``
and shared by the three (the final model does not change them), so a rerun, or another final
model, only fits the cutoff stage. The target: ``LogisticRegression(class_weight="balanced")``
(C = 1) on all the words. Measured on the test split: balanced accuracy, and the number of
words. ``DIR/final.csv`` and ``DIR/final.md`` (the table of the docs) are written after each
fit; a fit's ``seconds`` are its stages' (``AdaBagClassifier.seconds_``).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pandas as pd
from skew import command_line, corpora
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import balanced_accuracy_score

from textsift._io import atomic_write_text
from textsift.lasso import AdaBagClassifier
from textsift.lasso.final import FINALS


def markdown(table: pd.DataFrame) -> str:
    lines = ["| corpus | final model | penalty | words (c*) | midpoint rule | validation "
             "threshold | balanced logistic regression, all words | difference (midpoint) |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for corpus, part in table.groupby("corpus", sort=False):
        lr = part[part.final == "all words"].iloc[0]
        for _, r in part[part.final != "all words"].iterrows():
            penalty = "" if pd.isna(r.penalty) else f"{r.penalty:g}"
            lines.append(f"| {corpus} | {r.final} | {penalty} | {r.words:,} ({r.cutoff:.0f}) | "
                         f"{r.midpoint:.3f} | {r.validation:.3f} | {lr.midpoint:.3f} "
                         f"({lr.words:,}) | {r.midpoint - lr.midpoint:+.3f} |")
    return "\n".join(lines) + "\n"


def save(out: Path, rows) -> None:
    table = pd.DataFrame(rows)
    atomic_write_text(out / "final.csv", table.to_csv(index=False))
    atomic_write_text(out / "final.md", markdown(table))


def main() -> None:
    ap = command_line(__doc__, "out/final")
    ap.add_argument("--finals", nargs="*", default=list(FINALS), choices=FINALS)
    args = ap.parse_args()
    rows = []
    for corpus, Xtr, ytr, Xte, theta in corpora(args.only):
        lr = LogisticRegression(class_weight="balanced", max_iter=5000).fit(Xtr, ytr >= 4)
        ba = balanced_accuracy_score(theta, lr.predict(Xte))
        rows.append({"corpus": corpus, "final": "all words", "midpoint": ba, "validation": ba,
                     "words": Xtr.shape[1], "load": round(os.getloadavg()[0], 1)})
        for final in args.finals:
            model = AdaBagClassifier(
                a=2, b=4, n_bootstraps=args.bootstraps, random_state=0, n_jobs=args.n_jobs,
                class_weight="balanced", criterion="balanced_error", threshold="validation",
                final=final, store=args.out / corpus / "bootstraps")
            t0 = time.perf_counter()
            model.fit(Xtr, ytr)
            score = model.rating(Xte)
            rows.append({
                "corpus": corpus, "final": final, "penalty": model.final_penalty_,
                "cutoff": model.cutoff_, "words": int(model.support_.sum()),
                "midpoint": balanced_accuracy_score(theta, score >= model.midpoint_),
                "validation": balanced_accuracy_score(theta, score >= model.threshold_),
                "seconds": round(time.perf_counter() - t0, 1),
                **{f"{k} seconds": round(v, 1) for k, v in model.seconds_.items()},
                "load": round(os.getloadavg()[0], 1)})
            print({k: v for k, v in rows[-1].items()}, flush=True)
            save(args.out, rows)
    print((args.out / "final.md").read_text())


if __name__ == "__main__":
    main()
