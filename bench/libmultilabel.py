"""textsift's multi-label learners against LibMultiLabel's linear ones, side by side, on the
same tf-idf features: micro- and macro-F1 on the test part and CPU seconds of training.

    TEXTSIFT_DATA=../shared/data .venv/bin/python bench/libmultilabel.py [--data-sets cooking]

LibMultiLabel (Lin et al., ntumlgroup/LibMultiLabel) is installed from the package registry
without its dependencies, which pull in a k-means package over GraphBLAS for its tree
models: ``pip install --no-deps libmultilabel liblinear-multicore`` (liblinear-multicore
builds from source with a C compiler). Only its flat linear module is read
(``libmultilabel/linear/linear.py``: numpy, scipy, psutil, tqdm and liblinear), loaded
without the package's ``__init__`` (which imports the tree models); ``--lml-path`` adds a
folder where it was installed with ``pip install --target``.

Per data set (GoEmotions train -> test, 43,410 / 5,427 comments, 28 emotions; Cooking Stack
Exchange's ``split`` field, 12,404 / 3,000 question titles, 736 tags), one document-term
matrix of the training part (textsift's ``vectorize``, ``min_df = 2``), the test part counted
against its vocabulary, tf-idf fitted on the training part (scikit-learn's
``TfidfTransformer``: what textsift's ``linear_svm`` reads). Both sides train the same
liblinear problem -- L2-regularised squared hinge, dual (``-s 1``), ``C = 1``, a bias
feature of 1 (``-B 1``, scikit-learn's ``intercept_scaling = 1``), one thread (``-m 1``),
the stopping tolerance ``--eps`` (``-e``, ``LinearSVC``'s ``tol``; default liblinear's own
0.1, which LibMultiLabel's users get; ``LinearSVC``'s default is 1e-4) -- and the modes:

* LibMultiLabel ``train_1vsrest``, ``train_thresholding`` (Lin et al. 2023's micromacro cut on
  3 inner folds) and ``train_cost_sensitive`` (each label's positive weight among 1..13 by
  3-fold CV: Fan and Lin 2007);
* textsift: ``make_learner("linear_svm", multilabel=True)`` with ``threshold`` none,
  ``"scut"`` on one validation part of 25%, ``"scut"`` with ``cv = 3`` (SCutFBR.1 on inner
  folds, ``fbr = 0.1``, the default) and ``cv = 5``, ``"micromacro"`` (3 and 5 folds) and
  ``"cost"``;
  and the same behind a selection of 10% of the terms (``TermSelector("chi2", ratio=0.1,
  aggregate="wavg")``, refitted inside every inner fold), and each label's own 10% by its
  chi2 (the local scope: :class:`~textsift.learners.PerLabelClassifier`, the columns chosen
  once on the training part), for the best of them; and each label's own share of the terms
  (1%, 3%, 10%, 30% or every term; at most 10%) and its own C (0.25, 1 or 4), chosen on 3
  inner folds with its SCut or micromacro threshold tuned on the same folds
  (``label_ratios``, ``label_C``: :class:`~textsift.learners.PerLabelSearchClassifier`), and
  every term with each label's own C.

It prints each mode's micro/macro-F1, training CPU seconds, and the ratios to LibMultiLabel's
best mode (by macro-F1), with the load average and the cores; the goal (issue 37): textsift's
best above LibMultiLabel's best on macro-F1, not below on micro-F1, at no more than 3x its
training CPU time.
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import os
import pathlib
import sys
import time
import types

import numpy as np
import scipy.sparse as sp
from _common import add_data_option  # bench/ is the script's path
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.metrics import f1_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MultiLabelBinarizer

from textsift.learners import make_learner
from textsift.selection.selectors import TermSelector
from textsift.text.vectorize import vectorize

#: The per-label choices (``PerLabelSearchClassifier``): each label's share of the terms
#: and its C, on 3 inner folds.
LABEL_SHARES = [0.01, 0.03, 0.1, 0.3, 1.0]
LABEL_C = [0.25, 1.0, 4.0]

#: liblinear's options of both sides (``-e``: ``--eps``, LinearSVC's ``tol``).
OPTIONS = "-s 1 -B 1 -m 1"


def lml_linear(extra: str | None):
    """LibMultiLabel's ``linear/linear.py`` as a module, without the package's ``__init__``."""
    if extra:
        sys.path.insert(0, extra)
    spec = importlib.util.find_spec("libmultilabel")
    if spec is None:
        sys.exit("libmultilabel is not installed: pip install --no-deps libmultilabel "
                 "liblinear-multicore (or --lml-path DIR of a pip install --target DIR)")
    root = pathlib.Path(spec.submodule_search_locations[0])
    for name, path in (("libmultilabel", root), ("libmultilabel.linear", root / "linear")):
        module = types.ModuleType(name)
        module.__path__ = [str(path)]
        sys.modules[name] = module
    import libmultilabel.linear.linear as linear

    return linear


def read(path):
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def load(data: pathlib.Path, name: str):
    if name == "goemotions":
        train, test = read(data / "goemotions/train.jsonl.gz"), read(
            data / "goemotions/test.jsonl.gz")
    else:
        rows = read(data / "cooking_stackexchange/all.jsonl.gz")
        train = [r for r in rows if r["split"] == "train"]
        test = [r for r in rows if r["split"] == "test"]
    X, _, vec = vectorize([r["text"] for r in train], min_df=2)
    T = vec.transform([r["text"] for r in test])
    mlb = MultiLabelBinarizer(sparse_output=True).fit([r["labels"] for r in train])
    import warnings

    with warnings.catch_warnings():  # a test tag no training question has: ignored
        warnings.simplefilter("ignore")
        Y, Yt = mlb.transform([r["labels"] for r in train]), mlb.transform(
            [r["labels"] for r in test])
    keep = np.flatnonzero(np.asarray(Y.sum(axis=0)).ravel() > 0)
    return sp.csr_matrix(X), sp.csr_matrix(T), Y[:, keep].tocsr(), Yt[:, keep].toarray()


def timed(fn):
    c0, t0 = time.process_time(), time.perf_counter()
    out = fn()
    return out, time.process_time() - c0, time.perf_counter() - t0


def scores(Yt, pred) -> tuple[float, float]:
    return (f1_score(Yt, pred, average="micro", zero_division=0),
            f1_score(Yt, pred, average="macro", zero_division=0))


class _LabelsCSC(sp.csc_matrix):
    """The label indicator as LibMultiLabel 0.10.0's ``train_thresholding`` reads it (after
    ``y.tocsc()``): it counts each label's positive documents with ``np.sum(y, 2)``, an axis
    a sparse matrix does not have (scipy raises "axis out of range"); here that axis is the
    documents' (axis 0), the count the code means. Every other use is scipy's own."""

    def sum(self, axis=None, *args, **kw):
        return super().sum(0 if axis == 2 else axis, *args, **kw)


class _Labels(sp.csr_matrix):
    """A CSR indicator whose ``tocsc`` is :class:`_LabelsCSC`."""

    def tocsc(self, copy=False):
        return _LabelsCSC(super().tocsc(copy=copy))


def run_lml(linear, X, T, Y, Yt, modes, eps):
    Y = _Labels(Y)
    tfidf = TfidfTransformer().fit(X)
    Xw, Tw = tfidf.transform(X).tocsr(), tfidf.transform(T).tocsr()
    out = {}
    for mode in modes:
        fit = getattr(linear, f"train_{mode}")
        np.random.seed(0)  # its inner folds draw from numpy's global generator
        model, cpu, wall = timed(lambda fit=fit: fit(Y, Xw, options=f"{OPTIONS} -e {eps}",
                                                           verbose=False))
        pred = (linear.predict_values(model, Tw) > 0).astype(int)
        out[f"lml {mode}"] = (*scores(Yt, pred), cpu, wall)
        _progress(f"lml {mode}", out[f"lml {mode}"])
    return out


def _progress(name, row):
    print(f"  done: {name}: micro {row[0]:.4f} macro {row[1]:.4f} CPU {row[2]:.1f} s "
          f"(load {os.getloadavg()[0]:.1f})", flush=True)


def local_columns(X, Y, share: float = 0.1):
    """Each label's own top ``share`` of the terms by its chi2 (textsift's local scope,
    Forman 2003's one-against-all selection), from the training counts."""
    from textsift.counting.counts import Counts
    from textsift.scores import compute
    from textsift.selection.classwise import top_many

    counts = Counts.from_matrix(X, Y, classes=np.arange(Y.shape[1]))
    table = compute(counts, "chi2", dense=False)
    k = max(1, int(round(share * X.shape[1])))
    return [np.sort(t) for t, _ in top_many(table, range(Y.shape[1]), k)]


class _KnownLabels(TermSelector):
    """TermSelector over the labels the training part has: an inner fold's training part
    may lack a rare tag, whose all-zero column TermSelector refuses (it cannot be scored)."""

    def fit(self, X, y):
        return super().fit(X, y[:, np.asarray(y.sum(axis=0)).ravel() > 0])


def textsift_models(eps):
    def svm(**kw):
        return make_learner("linear_svm", multilabel=True, tol=eps, **kw)

    def selected(threshold, **kw):
        select = _KnownLabels("chi2", ratio=0.1, aggregate="wavg")
        if threshold == "cost":  # each label's learner on the selected columns
            return "cost", select, kw
        inner = make_pipeline(select, svm())
        if threshold is None:
            return inner
        from textsift.learners import TunedThresholdClassifier

        return TunedThresholdClassifier(inner, threshold, random_state=0, **kw)

    return {
        "textsift ovr": lambda: svm(),
        "textsift scut (val 25%)": lambda: svm(threshold="scut", val_size=0.25, cv=None),
        "textsift scut cv=3": lambda: svm(threshold="scut", cv=3),
        "textsift micromacro": lambda: svm(threshold="micromacro"),
        "textsift scut cv=5": lambda: svm(threshold="scut", cv=5),
        "textsift micromacro cv=5": lambda: svm(threshold="micromacro", cv=5),
        "textsift chi2 10% ovr": lambda: selected(None),
        "textsift chi2 10% scut cv=3": lambda: selected("scut", cv=3),
        "textsift chi2 10% micromacro": lambda: selected("micromacro"),
        "textsift chi2 10% cost": lambda: selected("cost"),
        "textsift chi2 local 10% scut cv=3": lambda: ("local", "scut", {"cv": 3}),
        "textsift chi2 local 10% micromacro": lambda: ("local", "micromacro", {}),
        "textsift per-label terms+C scut": lambda: svm(
            threshold="scut", label_ratios=LABEL_SHARES, label_C=LABEL_C),
        "textsift per-label terms+C micromacro": lambda: svm(
            threshold="micromacro", label_ratios=LABEL_SHARES, label_C=LABEL_C),
        "textsift per-label <=10% terms+C scut": lambda: svm(
            threshold="scut", label_ratios=[r for r in LABEL_SHARES if r <= 0.1],
            label_C=LABEL_C),
        "textsift every term, per-label C scut": lambda: svm(
            threshold="scut", label_ratios=[1.0], label_C=LABEL_C),
        "textsift cost": lambda: svm(threshold="cost"),  # the most fits: last
    }


def run_textsift(X, T, Y, Yt, names, eps, skip=()):
    out = {}
    Yd = Y.toarray()
    for name, build in textsift_models(eps).items():
        if (names and not any(n in name for n in names)) or any(n in name for n in skip):
            continue
        model = build()
        if isinstance(model, tuple) and model[0] == "local":  # each label's own terms
            _, threshold, kw = model

            def fit(threshold=threshold, kw=kw):
                cols = local_columns(X, Yd)
                return make_learner("linear_svm", threshold=threshold, columns=cols,
                                    tol=eps, **kw).fit(X, Yd)
        elif isinstance(model, tuple):  # cost behind a selection: the columns, the learner
            _, select, _ = model

            def fit(select=select):
                cols = np.flatnonzero(select.fit(X, Yd).get_support())
                m = make_learner("linear_svm", multilabel=True, threshold="cost",
                                 columns=[cols] * Yd.shape[1], tol=eps)
                return m.fit(X, Yd)
        else:
            def fit(model=model):
                return model.fit(X, Yd)
        fitted, cpu, wall = timed(fit)
        out[name] = (*scores(Yt, fitted.predict(T)), cpu, wall)
        _progress(name, out[name])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_data_option(ap)
    ap.add_argument("--data-sets", nargs="+", default=["goemotions", "cooking"],
                    choices=["goemotions", "cooking"])
    ap.add_argument("--lml-path", default=os.environ.get("LIBMULTILABEL_PATH"))
    ap.add_argument("--lml-modes", nargs="+",
                    default=["1vsrest", "thresholding", "cost_sensitive"])
    ap.add_argument("--eps", type=float, default=0.1,
                    help="liblinear's stopping tolerance on both sides (-e; LinearSVC's tol); "
                         "default liblinear's own, 0.1")
    ap.add_argument("--only", nargs="*", default=[],
                    help="textsift modes whose name contains one of these words")
    ap.add_argument("--skip", nargs="*", default=[],
                    help="leave out the textsift modes whose name contains one of these")
    args = ap.parse_args()
    linear = lml_linear(args.lml_path)
    load_avg = [os.getloadavg()[0]]
    for name in args.data_sets:
        X, T, Y, Yt = load(args.data, name)
        print(f"\n{name}: {X.shape[0]:,} train / {T.shape[0]:,} test documents, "
              f"{X.shape[1]:,} terms (min_df 2), {Y.shape[1]} labels "
              f"(a test label no training document has is dropped)", flush=True)
        res = run_lml(linear, X, T, Y, Yt, args.lml_modes, args.eps)
        res.update(run_textsift(X, T, Y, Yt, args.only, args.eps, args.skip))
        lml = {k: v for k, v in res.items() if k.startswith("lml")}
        anchor = max(lml, key=lambda k: lml[k][1])
        mi0, ma0, cpu0, _ = res[anchor]
        print(f"{'mode':34s} {'micro-F1':>9s} {'macro-F1':>9s} {'train CPU s':>11s} "
              f"{'wall s':>8s}   ratios to {anchor} (micro, macro, CPU)")
        for mode, (mi, ma, cpu, wall) in res.items():
            print(f"{mode:34s} {mi:9.4f} {ma:9.4f} {cpu:11.1f} {wall:8.1f}   "
                  f"{mi / mi0:6.3f} {ma / ma0:6.3f} {cpu / cpu0:6.2f}", flush=True)
        ts = {k: v for k, v in res.items() if k.startswith("textsift")}
        best = max(ts, key=lambda k: ts[k][1])
        mi, ma, cpu, _ = ts[best]
        print(f"goal: textsift's best by macro-F1 ({best}) macro {ma:.4f} vs {ma0:.4f} "
              f"({'above' if ma > ma0 else 'NOT above'}), micro {mi:.4f} vs {mi0:.4f} "
              f"({'not below' if mi >= mi0 else 'BELOW'}), CPU {cpu / cpu0:.2f}x "
              f"({'within' if cpu <= 3 * cpu0 else 'OVER'} 3x)")
        load_avg.append(os.getloadavg()[0])
    print(f"\nload average {load_avg[0]:.2f} before, {max(load_avg):.2f} at most after a data "
          f"set; {os.cpu_count()} cores; liblinear options {OPTIONS!r} -e {args.eps}")


if __name__ == "__main__":
    main()
