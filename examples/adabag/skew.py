"""AdaBag on skewed classes (docs/reproductions.md, section 4): every class weighting and
validation criterion against scikit-learn's logistic regression on the same features.

    TEXTSIFT_DATA=../shared/data python examples/adabag/skew.py --out out/skew

Corpora: amazon_alexa and womens_clothing_reviews (J-shaped 1-5 stars), ratings <= 2 low and
>= 4 high, 3 dropped, reviews with an empty text dropped; their own ``split`` field (train /
test). Features: binary presence of the words in >= 2 training reviews
(``CountVectorizer(binary=True, min_df=2)`` fitted on the kept training reviews), the same for
every learner. Learners: ``LogisticRegression`` (C = 1, lbfgs), unweighted and with
``class_weight="balanced"``; ``AdaBagClassifier(a=2, b=4)`` (the plain lasso, adelie, B
bootstraps, seed 0, its own 2:1 core/validation split of the training reviews) for each
``class_weight`` in (None, "balanced") and each named criterion, with
``threshold="validation"`` so that the midpoint rule and the validation threshold are both
read off one fit; and the same fit with the cutoff chosen among the models of at most 500
words (what ``max_features=500`` chooses, read off the same validation curve and refits). Two
diagnostics, with scikit-learn's defaults (C = 1, alpha = 1), show where AdaBag's gap to the
logistic regression comes from: an L1-penalised
logistic regression (``class_weight="balanced"``, liblinear; sparse, like AdaBag, but the
logistic loss) and a ridge regression of the rating with balanced sample weights, classified
at 3 (AdaBag's least squares on the rating, shrunk instead of selected and refitted).
Measured on the test split: balanced accuracy, accuracy, F1 of the low class, and the number
of words.

For ``balanced-balanced_error`` (the configuration the issue's goal names) ``DIR/<corpus>/
diagnostics.json`` says where the gap to the balanced logistic regression comes from, on the
same test split (every figure but the interval reads the test labels, so they are bounds, not
results): the difference in balanced accuracy with a 95% interval (2,000 bootstraps of the
test reviews within each class), both confusion matrices, the best test balanced accuracy
over AdaBag's cutoffs and over thresholds of its chosen model, the balanced logistic
regression refitted on AdaBag's words ``A_c`` for a few cutoffs (beside AdaBag's own OLS
model of those words), and the best test balanced accuracy along one weighted lasso path on
all training reviews (balanced weights, 100 lambdas to 1e-3 lambda_max, stopped past 1,500
words): with the lasso's own coefficients and with the OLS refit on its active words,
regressing the rating and the 0/1 class.

Runs one configuration at a time (``--n-jobs`` workers for its bootstraps), those of
``--configs`` (``WEIGHTING-CRITERION``, in the order given; default every one); finished
bootstraps are kept in ``DIR/<corpus>/<weighting>-<criterion>/``, so a rerun resumes.
``DIR/skew.csv`` (every row) and ``DIR/skew.md`` (the table of the docs, in the order of
:data:`CONFIGS`) are written atomically after each configuration, keeping the rows of the
corpora and configurations not run this time.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.metrics import balanced_accuracy_score, confusion_matrix
from sklearn.utils.class_weight import compute_sample_weight

from textsift._io import atomic_write_text
from textsift.lasso import CRITERIA, AdaBagClassifier, NestedModels, choose_cutoff, class_scores
from textsift.lasso.classifier import ols_fit
from textsift.lasso.path import lambda_grid, lasso_path

CORPORA = ("amazon_alexa", "womens_clothing_reviews")
WEIGHTINGS = {"none": None, "balanced": "balanced"}
#: Every configuration, in the table's order.
CONFIGS = [f"{w}-{c}" for w in WEIGHTINGS for c in CRITERIA]


def load(root: Path, corpus: str):
    frame = pd.read_json(root / corpus / "all.jsonl.gz", lines=True)
    frame = frame[frame.text.astype(str).str.strip().str.len() > 0]
    frame = frame[frame.rating != 3]
    train, test = frame[frame.split == "train"], frame[frame.split == "test"]
    vec = CountVectorizer(binary=True, min_df=2)
    Xtr = vec.fit_transform(train.text.astype(str))
    Xte = vec.transform(test.text.astype(str))
    return Xtr, train.rating.to_numpy(float), Xte, test.rating.to_numpy(float)


def row(corpus, learner, weighting, criterion, rule, theta, pred, words, seconds, **extra):
    return {"corpus": corpus, "learner": learner, "class_weight": weighting,
            "criterion": criterion, "rule": rule, **class_scores(theta, pred),
            "words": int(words), "seconds": round(seconds, 1),
            "load": round(os.getloadavg()[0], 1), **extra}


def _interval(theta, a, b, n=2000, seed=0):
    """95% interval of BA(a) - BA(b) over bootstraps of the rows within each class."""
    rng = np.random.default_rng(seed)
    rows = [np.flatnonzero(theta == c) for c in (0, 1)]
    diffs = []
    for _ in range(n):
        i = np.concatenate([rng.choice(r, len(r)) for r in rows])
        diffs.append(balanced_accuracy_score(theta[i], a[i])
                     - balanced_accuracy_score(theta[i], b[i]))
    return np.quantile(diffs, [0.025, 0.975]).round(3).tolist()


def _path_bounds(Xtr, ytr, Xte, theta) -> dict:
    """The best test balanced accuracy along one weighted lasso path on all kept training
    rows: its own coefficients and the OLS refit on its active words (rating, 0/1 class)."""
    keep = (ytr <= 2) | (ytr >= 4)
    X, y = sp.csc_matrix(Xtr[keep], dtype=np.float64), ytr[keep]
    w = compute_sample_weight("balanced", y >= 4)
    out = {}
    for response, target, t in (("rating", y, 3.0), ("class", (y >= 4).astype(float), 0.5)):
        path = lasso_path(X, target, None, w, lambda_grid(X, target, None, w, 100, 1e-3),
                          max_active=1500)
        best = {"lasso": (0.0, 0), "ols refit": (0.0, 0)}
        for k in range(len(path.lambdas)):
            coef = path.coef[:, k].toarray().ravel()
            active = np.flatnonzero(coef)
            ba = {"lasso": balanced_accuracy_score(theta, Xte @ coef + path.intercept[k] >= t),
                  "ols refit": balanced_accuracy_score(
                      theta, ols_fit(X, target, active, w).decision(Xte) >= t)}
            for name, value in ba.items():
                if value > best[name][0]:
                    best[name] = (round(float(value), 3), len(active))
        out.update({f"{response}, {name}": {"balanced_accuracy": v, "words": n}
                    for name, (v, n) in best.items()})
    return out


def diagnose(model, Xtr, ytr, Xte, theta, lr_pred) -> dict:
    """Where the gap of AdaBag to the balanced logistic regression comes from (module
    docstring)."""
    rating = model.rating(Xte)
    pred = (rating >= 3).astype(int)
    models = NestedModels(model.sizes_, model.cutoff_coef_, model.cutoff_intercept_)
    by_cutoff = [balanced_accuracy_score(theta, r >= 3) for r in
                 models.ratings(Xte, np.zeros(Xte.shape[0], int)).T]
    c = int(np.argmax(by_cutoff)) + 1
    ts = np.round(np.arange(2.0, 4.01, 0.05), 2)
    by_t = [balanced_accuracy_score(theta, rating >= t) for t in ts]
    keep = (ytr <= 2) | (ytr >= 4)
    refit = {}
    for cut in sorted({model.cutoff_, 1, 5, 10, 20}):
        words = np.flatnonzero(model.frequencies_ >= cut)
        lr = LogisticRegression(class_weight="balanced", max_iter=5000)
        lr.fit(Xtr[keep][:, words], ytr[keep] >= 4)
        refit[str(cut)] = {"words": len(words), "balanced_accuracy": round(float(
            balanced_accuracy_score(theta, lr.predict(Xte[:, words]))), 3),
            "adabag's ols": round(float(by_cutoff[cut - 1]), 3)}
    return {
        "adabag": round(float(balanced_accuracy_score(theta, pred)), 3),
        "logistic regression": round(float(balanced_accuracy_score(theta, lr_pred)), 3),
        "difference (lr - adabag), 95% interval": _interval(theta, lr_pred, pred),
        "confusion [[low->low, low->high], [high->low, high->high]]": {
            "adabag": confusion_matrix(theta, pred).tolist(),
            "logistic regression": confusion_matrix(theta, lr_pred).tolist()},
        "best cutoff on test": {"cutoff": c, "words": int(model.sizes_[c - 1]),
                                "balanced_accuracy": round(float(max(by_cutoff)), 3)},
        "best threshold on test": {"threshold": float(ts[int(np.argmax(by_t))]),
                                   "balanced_accuracy": round(float(max(by_t)), 3)},
        "logistic regression (balanced) on A_c, by cutoff": refit,
        "one weighted lasso path, best on test": _path_bounds(Xtr, ytr, Xte, theta),
    }


def markdown(table: pd.DataFrame) -> str:
    lines = []
    for corpus, part in table.groupby("corpus", sort=False):
        lr = part[part.learner == "logistic regression"].set_index("class_weight")
        target = lr.loc["balanced", "balanced_accuracy"]
        diag = part.set_index("learner")
        l1, ridge = diag.loc["l1 logistic regression"], diag.loc["ridge on the rating"]
        lines += [f"\n**{corpus}** (test: {part.n_low.iloc[0]} low, {part.n_high.iloc[0]} high; "
                  f"logistic regression, {lr.words.iloc[0]:,} words: balanced accuracy "
                  f"{lr.loc['none', 'balanced_accuracy']:.3f} unweighted, {target:.3f} "
                  f"balanced; diagnostics: L1 logistic regression {l1.balanced_accuracy:.3f} "
                  f"with {l1.words:,} words, ridge on the rating "
                  f"{ridge.balanced_accuracy:.3f})\n",
                  "| class_weight | criterion | midpoint rule | validation threshold | "
                  "words (c*) | <= 500 words: midpoint | words |",
                  "|---|---|---:|---:|---:|---:|---:|"]
        ada = part[part.learner == "adabag"]
        configs = ada.class_weight + "-" + ada.criterion
        for config in [c for c in CONFIGS if c in set(configs)]:
            weighting, criterion = config.split("-", 1)
            r = ada[configs == config].set_index("rule")
            cap = r.loc["midpoint, <= 500 words"]
            lines.append(
                f"| {weighting} | {criterion} | {r.loc['midpoint', 'balanced_accuracy']:.3f} | "
                f"{r.loc['validation', 'balanced_accuracy']:.3f} | "
                f"{r.loc['midpoint', 'words']:,} ({int(r.loc['midpoint', 'cutoff'])}) | "
                f"{cap.balanced_accuracy:.3f} | {cap.words:,} |")
    return "\n".join(lines) + "\n"


def _key(table: pd.DataFrame) -> pd.Series:
    return table.corpus + "/" + table.learner + "/" + table.class_weight + "/" + table.criterion


def save(out: Path, rows) -> None:
    """Both tables, keeping the rows of the corpora and configurations not run this time
    (``--only``, ``--configs``)."""
    table = pd.DataFrame(rows)
    if (out / "skew.csv").exists():
        old = pd.read_csv(out / "skew.csv")
        table = pd.concat([old[~_key(old).isin(_key(table))], table], ignore_index=True)
        order = {c: i for i, c in enumerate(CORPORA)}
        table = table.sort_values("corpus", key=lambda c: c.map(order), kind="stable")
    atomic_write_text(out / "skew.csv", table.to_csv(index=False))
    atomic_write_text(out / "skew.md", markdown(table))


def command_line(doc: str, out: str) -> argparse.ArgumentParser:
    """The options of both skewed-class scripts (this one and ``final.py``): the folder to
    write (default ``out``), the bootstraps, the processes and the corpora."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path(out))
    ap.add_argument("--bootstraps", type=int, default=100)
    ap.add_argument("--n-jobs", type=int, default=1)
    ap.add_argument("--only", nargs="*", default=list(CORPORA), choices=CORPORA)
    return ap


def corpora(names):
    """``(corpus, Xtr, ytr, Xte, theta)`` of each corpus of ``names``, read from
    ``$TEXTSIFT_DATA`` (:func:`load`); ``theta`` is the test part's high class (rating >= 4),
    what the scripts measure."""
    root = Path(os.environ.get("TEXTSIFT_DATA", "../shared/data"))
    for corpus in names:
        Xtr, ytr, Xte, yte = load(root, corpus)
        yield corpus, Xtr, ytr, Xte, (yte >= 4).astype(int)


def main() -> None:
    ap = command_line(__doc__, "out/skew")
    ap.add_argument("--configs", nargs="*", default=CONFIGS, choices=CONFIGS)
    args = ap.parse_args()
    rows = []
    for corpus, Xtr, ytr, Xte, theta in corpora(args.only):
        counts = {"n_low": int((theta == 0).sum()), "n_high": int(theta.sum())}
        lr_pred = {}
        for weighting, cw in WEIGHTINGS.items():
            t0 = time.perf_counter()
            lr = LogisticRegression(class_weight=cw, max_iter=5000).fit(Xtr, ytr >= 4)
            lr_pred[weighting] = lr.predict(Xte).astype(int)
            rows.append(row(corpus, "logistic regression", weighting, "log loss", "0.5",
                            theta, lr_pred[weighting], Xtr.shape[1],
                            time.perf_counter() - t0, **counts))
        t0 = time.perf_counter()
        l1 = LogisticRegression(class_weight="balanced", l1_ratio=1.0, solver="liblinear",
                                random_state=0)
        l1.fit(Xtr, ytr >= 4)
        rows.append(row(corpus, "l1 logistic regression", "balanced", "log loss", "0.5", theta,
                        l1.predict(Xte).astype(int), (l1.coef_ != 0).sum(),
                        time.perf_counter() - t0, **counts))
        t0 = time.perf_counter()
        ridge = Ridge().fit(Xtr, ytr, sample_weight=compute_sample_weight("balanced", ytr >= 4))
        rows.append(row(corpus, "ridge on the rating", "balanced", "squared error", "3",
                        theta, (ridge.predict(Xte) >= 3).astype(int), Xtr.shape[1],
                        time.perf_counter() - t0, **counts))
        for config in args.configs:
            weighting, criterion = config.split("-", 1)
            cw = WEIGHTINGS[weighting]
            store = args.out / corpus / config
            params = dict(a=2, b=4, n_bootstraps=args.bootstraps, random_state=0,
                          n_jobs=args.n_jobs, class_weight=cw, criterion=criterion,
                          store=store)
            t0 = time.perf_counter()
            model = AdaBagClassifier(threshold="validation", **params).fit(Xtr, ytr)
            seconds = time.perf_counter() - t0
            rating = model.rating(Xte)
            for rule, t in (("midpoint", 3.0), ("validation", model.threshold_)):
                rows.append(row(corpus, "adabag", weighting, criterion, rule, theta,
                                (rating >= t).astype(int), model.support_.sum(), seconds,
                                cutoff=model.cutoff_, threshold=t, **counts))
            # max_features=500 would choose this cutoff on the same validation curve and
            # refit the same A_c: every cutoff's refit is kept in cutoff_coef_
            c = choose_cutoff(model.cutoffs_, model.validation_errors_, 1, "raw",
                              model.sizes_, 500)
            models = NestedModels(model.sizes_, model.cutoff_coef_,
                                  model.cutoff_intercept_)
            small = models.ratings(Xte, np.zeros(Xte.shape[0], int))[:, c - 1] >= 3
            rows.append(row(corpus, "adabag", weighting, criterion,
                            "midpoint, <= 500 words", theta, small.astype(int),
                            model.sizes_[c - 1], seconds, cutoff=c, threshold=3.0,
                            **counts))
            stages = ", ".join(f"{k} {v:.0f} s" for k, v in model.seconds_.items())
            print(f"{corpus} {weighting} {criterion}: {seconds:.0f} s ({stages}), load "
                  f"{os.getloadavg()[0]:.1f}; balanced accuracy "
                  f"{rows[-3]['balanced_accuracy']:.3f} with {rows[-3]['words']} words "
                  f"({rows[-1]['balanced_accuracy']:.3f} with {rows[-1]['words']})",
                  flush=True)
            save(args.out, rows)
            if config == "balanced-balanced_error":
                found = diagnose(model, Xtr, ytr, Xte, theta, lr_pred["balanced"])
                atomic_write_text(args.out / corpus / "diagnostics.json",
                                  json.dumps(found, indent=1))
                print(json.dumps(found, indent=1), flush=True)
    print((args.out / "skew.md").read_text())


if __name__ == "__main__":
    main()
