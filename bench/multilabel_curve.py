"""Macro-F1 of a multi-label learner against the number of terms, with and without
thresholds, on GoEmotions and Cooking Stack Exchange: the table, the CPU time of each fit and
a curve (PNG).

    TEXTSIFT_DATA=../shared/data .venv/bin/python bench/multilabel_curve.py \\
        [--data-sets goemotions cooking] [--png docs/multilabel_curve.png]

The features are ``bench/libmultilabel.py``'s (textsift's ``vectorize`` of the training part,
``min_df = 2``, tf-idf in the learner), the learner its linear SVM (``LinearSVC``, ``C = 1``,
``tol = --eps``, default liblinear's 0.1). At each share of the terms (``--ratios``):

* **global**: chi2's top share by the ``wavg`` policy over the labels (one vocabulary for every
  label, ``TermSelector``, refitted inside each inner fold), one-vs-rest;
* **local**: each label's own top share by its chi2 column (each label's learner on its own
  terms, chosen once on the training part);

each at the learner's own cut and under ``threshold = "scut"`` (SCutFBR.1 on 3 inner folds,
the default); and with ``--per-label`` **per label**: each label's own share (among the
ratios up to 10%, or all of them) and its own ``C`` (0.25, 1, 4) chosen on 3 inner folds, its
SCut threshold tuned on the same folds (``PerLabelSearchClassifier``), placed at the mean
number of terms its labels read (``bench/libmultilabel.py`` measures them beside
LibMultiLabel; ``--points`` adds its figures to the curve). Last, SCut's defaults: from one
set of held-out scores (every term, 3 inner folds, the folds of ``threshold = "scut"``), the
test micro- and macro-F1 of the thresholds of each ``fbr`` and ``fallback``. It prints the
load average and the cores.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import pathlib

import numpy as np
from _common import add_data_option  # bench/ is the script's path
from sklearn.base import clone
from sklearn.model_selection import KFold
from sklearn.pipeline import make_pipeline

from textsift.learners import (
    TunedThresholdClassifier,
    label_rankings,
    label_scores,
    make_learner,
)
from textsift.learners._thresholds import fold_scut

_spec = importlib.util.spec_from_file_location(
    "lml_bench", pathlib.Path(__file__).with_name("libmultilabel.py"))
lml_bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lml_bench)
load, scores, timed, KnownLabels = (lml_bench.load, lml_bench.scores, lml_bench.timed,
                                    lml_bench._KnownLabels)

C_GRID = [0.25, 1.0, 4.0]


def curve(X, T, Y, Yt, ratios, eps, say, per_label: bool):
    """Rows ``(scope, cut, ratio, mean terms per label, micro, macro, CPU s)``."""
    Yd, V = Y.toarray(), X.shape[1]
    rows = []

    def add(scope, cut, ratio, terms, fit):
        model, cpu, _ = timed(fit)
        row = (scope, cut, ratio, terms, *scores(Yt, model.predict(T)), cpu)
        rows.append(row)
        say(row)
        return model

    for ratio in ratios:
        k = max(1, int(round(ratio * V)))
        if ratio >= 1:
            for cut in (None, "scut"):
                add("every term", cut or "own", 1.0, V, lambda cut=cut: make_learner(
                    "linear_svm", multilabel=True, threshold=cut, tol=eps).fit(X, Yd))
            continue
        for cut in (None, "scut"):
            def fit_global(cut=cut, ratio=ratio):
                inner = make_pipeline(KnownLabels("chi2", ratio=ratio, aggregate="wavg"),
                                      make_learner("linear_svm", multilabel=True, tol=eps))
                model = inner if cut is None else TunedThresholdClassifier(inner, cut)
                return model.fit(X, Yd)

            add("global wavg", cut or "own", ratio, k, fit_global)
        for cut in (None, "scut"):
            def fit_local(cut=cut, k=k):
                cols = [np.sort(c) for c in label_rankings(X, Yd, "chi2", k)]
                return make_learner("linear_svm", columns=cols, threshold=cut,
                                    tol=eps).fit(X, Yd)

            add("local", cut or "own", ratio, k, fit_local)
    for name, shares in (("per label <= 10%", [r for r in ratios if r <= 0.1]),
                         ("per label", list(ratios))) if per_label else ():
        def fit_search(shares=shares):
            return make_learner("linear_svm", multilabel=True, threshold="scut",
                                label_ratios=shares, label_C=C_GRID, tol=eps).fit(X, Yd)

        model, cpu, _ = timed(fit_search)
        terms = float(np.mean([len(c) for c in model.columns_ if len(c)]))
        row = (name, "scut", max(shares), terms, *scores(Yt, model.predict(T)), cpu)
        rows.append(row)
        say(row)
    return rows


def scut_defaults(X, T, Y, Yt, eps, cv=3, seed=0):
    """Test micro/macro-F1 of SCut's thresholds for each fbr and fallback, every term, from
    one set of held-out scores on ``cv`` inner folds (those of ``threshold = "scut"``)."""
    Yd = Y.toarray()
    learner = make_learner("linear_svm", multilabel=True, tol=eps)
    held = [(val, label_scores(clone(learner).fit(X[fit], Yd[fit]), X[val]))
            for fit, val in KFold(cv, shuffle=True, random_state=seed).split(Yd)]
    test = label_scores(clone(learner).fit(X, Yd), T)
    out = []
    for fallback in ("top", "never"):
        for fbr in (0.0, 0.1, 0.2, 0.3, 0.5):
            cut = fold_scut(held, Yd, fbr, fallback)[0]
            out.append((fbr, fallback, *scores(Yt, (test > cut).astype(int))))
    return out


def plot(results, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(results), figsize=(6 * len(results), 4.2), squeeze=False)
    for ax, (name, rows) in zip(axes[0], results.items(), strict=True):
        every = {cut: (t, macro) for scope, cut, _, t, _, macro, _ in rows
                 if scope == "every term"}
        for scope, style in (("global wavg", "-"), ("local", "--")):
            for cut, color in (("own", "tab:gray"), ("scut", "tab:blue")):
                pts = sorted((t, macro) for s, c, _, t, _, macro, _ in rows
                             if s == scope and c == cut)
                pts += [every[cut]] if cut in every else []
                ax.plot(*zip(*pts, strict=True), style, marker="o", color=color,
                        label=f"{scope}, {'own cut' if cut == 'own' else 'SCut'}")
        shown = {"global wavg", "local", "every term"}
        for (s, _, _, t, _, macro, _), marker in zip(
                [r for r in rows if r[0] not in shown], "*PXD^v", strict=False):
            ax.plot([t], [macro], marker, color="tab:red", markersize=11, linestyle="none",
                    label=f"{s}, SCut")
        ax.set_xscale("log")
        ax.set_xlabel("terms per label (mean for the per-label choices)")
        ax.set_ylabel("macro-F1 (test)")
        ax.set_title(name)
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_data_option(ap)
    ap.add_argument("--data-sets", nargs="+", default=["goemotions", "cooking"],
                    choices=["goemotions", "cooking"])
    ap.add_argument("--ratios", nargs="+", type=float, default=[0.01, 0.03, 0.1, 0.3, 1.0])
    ap.add_argument("--eps", type=float, default=0.1)
    ap.add_argument("--png", default="docs/multilabel_curve.png")
    ap.add_argument("--per-label", action="store_true")
    ap.add_argument("--json", default="bench/results/multilabel_curve.json",
                    help="the rows of every data set run, kept (a data set run again "
                         "replaces its own), the curve drawn from them all")
    ap.add_argument("--points", nargs="*", default=[],
                    help="figures measured elsewhere, DATASET:NAME:TERMS:MICRO:MACRO:CPU "
                         "(e.g. bench/libmultilabel.py's per-label choices), drawn as points")
    ap.add_argument("--plot-only", action="store_true")
    args = ap.parse_args()
    load_avg = [os.getloadavg()[0]]
    store = pathlib.Path(args.json)
    results = json.loads(store.read_text()) if store.exists() else {}
    for point in args.points:
        name, scope, terms, mi, ma, cpu = point.split(":")
        results.setdefault(name, [])[:] = [r for r in results[name] if r[0] != scope] + [
            [scope, "scut", 0.0, float(terms), float(mi), float(ma), float(cpu)]]
    for name in [] if args.plot_only else args.data_sets:
        X, T, Y, Yt = load(args.data, name)
        print(f"\n{name}: {X.shape[0]:,} train / {T.shape[0]:,} test, {X.shape[1]:,} terms, "
              f"{Y.shape[1]} labels", flush=True)
        print(f"{'scope':18s} {'cut':5s} {'ratio':>6s} {'terms':>7s} {'micro-F1':>9s} "
              f"{'macro-F1':>9s} {'CPU s':>7s}", flush=True)

        def say(row):
            scope, cut, ratio, terms, mi, ma, cpu = row
            print(f"{scope:18s} {cut:5s} {ratio:6.2f} {terms:7.0f} {mi:9.4f} {ma:9.4f} "
                  f"{cpu:7.1f}   (load {os.getloadavg()[0]:.1f})", flush=True)

        results[name] = curve(X, T, Y, Yt, sorted(args.ratios), args.eps, say, args.per_label)
        print("SCut's defaults (every term, 3 inner folds): fbr fallback micro-F1 macro-F1")
        for fbr, fallback, mi, ma in scut_defaults(X, T, Y, Yt, args.eps):
            print(f"  {fbr:4.2f} {fallback:6s} {mi:.4f} {ma:.4f}", flush=True)
        load_avg.append(os.getloadavg()[0])
    store.write_text(json.dumps(results, indent=1))
    if args.png:
        plot(results, args.png)
        print(f"curve written to {args.png}")
    print(f"load average {load_avg[0]:.2f} before, {max(load_avg):.2f} at most after a data "
          f"set; {os.cpu_count()} cores; LinearSVC tol {args.eps}")


if __name__ == "__main__":
    main()
