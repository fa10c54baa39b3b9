"""AdaBag: data-shared adaptive bootstrap-aggregated lasso (METHODS.md §D.4).

1. Labels ``theta = 1[y >= b]`` for ``y >= b``, ``0`` for ``y <= a`` (rows between are dropped);
   split 2:1:1 into core ``T_c``, validation ``V_d`` and test ``T_s`` within each class x group
   cell **[A]**.
2. For ``l = 1..B``: a bootstrap of ``T_c`` (within class x group strata), the adaptive
   data-shared lasso path on it (:mod:`.shared`, :mod:`.path`); at each lambda a per-group OLS
   refit on the group's active words and classifier (2.2) on ``V_d``; ``lambda*_l`` minimises
   the validation ME (ties: larger lambda); ``S_l`` = union of the group supports at
   ``lambda*_l`` (or, with ``lambda_selection="1se"`` **[A]**, the largest lambda whose ME is
   within one binomial standard error of the minimum: sparser bootstrap models). The path is
   stopped once the ME has not improved for ``patience`` lambdas
   **[A]** (a later, lower minimum would need the error to fall again after rising for that
   long; ``patience=None``, the default, runs the full grid). The grid is 100 lambdas down to
   ``min_ratio = 1e-3`` of ``lambda_max`` **[A]** (glmnet's 1e-2 for n < p ends at about 300
   IMDb words, before the validation minimum); ``max_active`` (default 3,000, glmnet's
   ``pmax``) ends a path that grows past that many non-zero coefficients.
3. Bagging frequencies ``f(w) = #{l : w in S_l}``; nested models ``A_c = {w : f(w) >= c}``.
4. For each ``c``: OLS on ``A_c`` fitted on ``T_c`` **[A]**, ME on ``V_d`` (and, for the
   picture only, on ``T_s``); ``c*`` minimises the validation ME (ties: larger ``c``), on the
   raw curve or a loess fit of it; or, with ``"1se"`` **[A]**, ``c*`` is the largest ``c``
   whose validation ME is within one binomial standard error ``sqrt(ME(1-ME)/|V_d|)`` of the
   minimum (the one-standard-error rule: the smallest model as good as the best).
5. Test ME of the model ``A_{c*}`` (pooled OLS, the paper's "shrinkage classifier", or one OLS
   per group), overall and per group.
"""

from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp

from .bagging import BootstrapStore, bagging_frequencies, fingerprint, run_bootstraps
from .classifier import WeightedGram, misclassification, predict_class
from .path import lambda_grid, lasso_path
from .polarity import adaptive_weights
from .shared import SharedDesign, group_weights

__all__ = ["AdaBag", "loess", "split_211"]


def split_211(theta, groups, seed=0) -> np.ndarray:
    """Part of each row: 0 core, 1 validation, 2 test; 2:1:1 within each class x group cell
    (cell of size n: ``round(n/2)`` core, ``round(n/4)`` validation, the rest test)."""
    theta, groups = np.asarray(theta), np.asarray(groups)
    rng = np.random.default_rng(seed)
    part = np.empty(len(theta), dtype=np.int8)
    for g in np.unique(groups):
        for c in (0, 1):
            rows = np.flatnonzero((groups == g) & (theta == c))
            if len(rows) < 4:
                raise ValueError(f"group {str(g)!r}, class {c}: {len(rows)} documents; the "
                                 "2:1:1 split needs at least 4 of each class in every group "
                                 "(merge small groups or drop --group-field)")
            rows = rng.permutation(rows)
            n_core, n_val = round(len(rows) / 2), round(len(rows) / 4)
            part[rows[:n_core]] = 0
            part[rows[n_core:n_core + n_val]] = 1
            part[rows[n_core + n_val:]] = 2
    return part


def loess(x, y, span: float = 0.75) -> np.ndarray:
    """Local quadratic regression with tricube weights over the ``ceil(span n)`` nearest points
    (R's ``loess`` defaults, without robustness iterations); written here because neither
    numpy, scipy nor scikit-learn has it."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    q = max(3, int(np.ceil(span * len(x))))
    out = np.empty(len(x))
    for i, x0 in enumerate(x):
        d = np.abs(x - x0)
        near = np.argsort(d, kind="stable")[:q]
        h = d[near].max() or 1.0
        wt = (1 - (d[near] / (h * 1.0001)) ** 3) ** 3
        coef = np.polyfit(x[near] - x0, y[near], deg=min(2, q - 1), w=np.sqrt(wt))
        out[i] = coef[-1]
    return out


class _BootstrapTask:
    """One AdaBag bootstrap: path, per-lambda per-group OLS refits, ``lambda*`` and ``S_l``."""

    def __init__(self, design, Xc, yc, gc, Xv, tv, gv, a, b, n_lambdas, min_ratio, backend,
                 patience, max_active, lambda_selection="min"):
        self.design, self.Xc, self.yc, self.gc = design, Xc, yc, gc
        self.tv, self.gv, self.a, self.b = tv, gv, a, b
        # validation rows of each group, CSC for the column slices of the refits
        self.Xv = [sp.csc_matrix(Xv[self.gv == g]) for g in range(design.n_groups)]
        self.n_lambdas, self.min_ratio, self.backend = n_lambdas, min_ratio, backend
        self.patience, self.max_active = patience, max_active
        self.lambda_selection = lambda_selection

    def validation_error(self, supports, grams) -> float:
        pred = np.empty(len(self.tv), dtype=np.int8)
        for g, S in enumerate(supports):
            fit = grams[g].fit(S)
            pred[self.gv == g] = predict_class(fit.decision(self.Xv[g]), self.a, self.b)
        return misclassification(self.tv, pred)

    def __call__(self, m) -> dict:
        d = self.design
        lambdas = lambda_grid(d.Z, self.yc, d.penalty_factor, m, self.n_lambdas, self.min_ratio)
        errors, unions, best = [], [], {"k": -1, "me": np.inf}
        grams = [WeightedGram(self.Xc, self.yc, m * (self.gc == g))
                 for g in range(d.n_groups)]

        def step(k, coef, intercept):
            supports = d.group_supports(coef)
            me = self.validation_error(supports, grams)
            errors.append(me)
            unions.append(np.unique(np.concatenate(supports)).astype(np.int64))
            if me < best["me"]:  # strict: ties keep the larger lambda
                best.update(k=k, me=me)
            return self.patience is not None and k - best["k"] >= self.patience

        lasso_path(d.Z, self.yc, d.penalty_factor, m, lambdas, backend=self.backend,
                   max_active=self.max_active, callback=step)
        errors = np.asarray(errors)
        k = best["k"]
        if self.lambda_selection == "1se":  # the largest lambda within one SE of the minimum
            se = np.sqrt(best["me"] * (1 - best["me"]) / len(self.tv))
            k = int(np.flatnonzero(errors <= best["me"] + se + 1e-12)[0])
        return {"selected": unions[k], "lambda": lambdas[k], "k": k, "errors": errors,
                "sizes": np.array([len(u) for u in unions]), "lambdas": lambdas[:len(errors)]}


class AdaBag:
    """The AdaBag pipeline (module docstring); parameters as METHODS.md §I.

    After :meth:`fit`: ``part_`` (0/1/2 per kept row), ``r_`` (group weights),
    ``bootstraps_`` (per-bootstrap dicts), ``frequencies_`` (per word), ``cutoffs_`` (1..B),
    ``validation_errors_`` / ``test_errors_`` / ``sizes_`` per cutoff, ``cutoff_``,
    ``selected_`` (word indices of ``A_{c*}``), ``coef_`` (their pooled OLS coefficients),
    ``validation_error_``, ``test_error_``, ``test_error_by_group_``.
    """

    def __init__(self, a=4.0, b=7.0, scheme="ws3", n_bootstraps=100, n_lambdas=100,
                 min_ratio=1e-3, backend="adelie", tol=1e-5, patience=None, max_active=3000,
                 cutoff_selection="raw", final_model="pooled", seed=0, n_jobs=1, store=None,
                 progress=False, lambda_selection="min"):
        self.a, self.b, self.scheme, self.n_bootstraps = a, b, scheme, n_bootstraps
        self.n_lambdas, self.min_ratio, self.backend, self.tol = n_lambdas, min_ratio, backend, tol
        self.patience, self.max_active = patience, max_active
        self.cutoff_selection, self.final_model = cutoff_selection, final_model
        self.lambda_selection = lambda_selection
        self.seed, self.n_jobs, self.store, self.progress = seed, n_jobs, store, progress

    def _check(self, X, y, polarity, groups):
        if not self.a < self.b:
            raise ValueError(f"the class thresholds need a < b, got a={self.a}, b={self.b}")
        if self.cutoff_selection not in ("raw", "loess", "1se"):
            raise ValueError("cutoff_selection must be 'raw', 'loess' or '1se'")
        if self.lambda_selection not in ("min", "1se"):
            raise ValueError("lambda_selection must be 'min' or '1se'")
        if self.final_model not in ("pooled", "per_group"):
            raise ValueError("final_model must be 'pooled' or 'per_group'")
        y = np.asarray(y)
        if not np.issubdtype(y.dtype, np.number):
            raise ValueError("the response must be numeric (a rating); got values such as "
                             f"{list(map(str, y[:3]))}: choose a numeric --label-field")
        y = y.astype(float)
        if X.shape[0] != len(y) or not np.all(np.isfinite(y)):
            raise ValueError("y must hold one finite number per row of X")
        if np.shape(polarity) != (X.shape[1],):
            raise ValueError(f"polarity needs one value per feature ({X.shape[1]})")
        groups = np.zeros(len(y), np.int64) if groups is None else np.asarray(groups)
        if groups.shape != y.shape:
            raise ValueError("groups needs one value per row")
        return sp.csr_matrix(X, dtype=np.float64), y, np.asarray(polarity, float), groups

    def fit(self, X, y, polarity, groups=None):
        X, y, polarity, groups = self._check(X, y, polarity, groups)
        start = time.perf_counter()
        keep = (y <= self.a) | (y >= self.b)
        if not np.all(keep):
            X, y, groups = X[keep], y[keep], groups[keep]
        self.kept_ = np.flatnonzero(keep)
        theta = (y >= self.b).astype(np.int8)
        self.group_labels_, gcode = np.unique(groups, return_inverse=True)
        self.part_ = split_211(theta, groups, self.seed)
        core, val, test = (np.flatnonzero(self.part_ == k) for k in (0, 1, 2))
        gc = gcode[core]
        self.r_ = group_weights(np.bincount(gc), self.scheme)
        weights = adaptive_weights(polarity, self.tol)
        Xc = X[core]
        design = SharedDesign.build(Xc, gc, weights, self.r_)
        task = _BootstrapTask(design, Xc.tocsc(), y[core], gc, X[val], theta[val], gcode[val],
                              self.a, self.b, self.n_lambdas, self.min_ratio, self.backend,
                              self.patience, self.max_active, self.lambda_selection)
        store = None
        if self.store is not None:
            config = {k: getattr(self, k) for k in ("a", "b", "scheme", "n_lambdas", "min_ratio",
                                                    "backend", "tol", "patience", "max_active",
                                                    "seed")}
            if self.lambda_selection != "min":  # stores made before the option stay valid
                config["lambda_selection"] = self.lambda_selection
            config["data"] = fingerprint(X, y, gcode, polarity)
            store = BootstrapStore(self.store, config)
        self.bootstraps_ = run_bootstraps(task, self.n_bootstraps, gc * 2 + theta[core],
                                          self.seed, self.n_jobs, store, self.progress,
                                          "AdaBag bootstraps")
        self.frequencies_ = bagging_frequencies([r["selected"] for r in self.bootstraps_],
                                                X.shape[1])
        self._cutoffs(X, y, theta, gcode, core, val, test)
        self.fit_seconds_ = time.perf_counter() - start
        return self

    def _model(self, grams, cols):
        return [gram.fit(cols) for gram in grams]

    def _predict(self, fits, X, gcode, rows):
        if len(fits) == 1:
            return predict_class(fits[0].decision(X[rows]), self.a, self.b)
        pred = np.empty(len(rows), np.int8)
        for g, fit in enumerate(fits):
            at = gcode[rows] == g
            pred[at] = predict_class(fit.decision(X[rows[at]]), self.a, self.b)
        return pred

    def _cutoffs(self, X, y, theta, gcode, core, val, test):
        # one Gram per fitted model, shared by the nested A_c (METHODS.md §D.4 steps 5-6)
        Xcsc = X.tocsc()
        if self.final_model == "pooled":
            grams = [WeightedGram(Xcsc, y, rows=core)]
        else:
            grams = [WeightedGram(Xcsc, y, rows=core[gcode[core] == g])
                     for g in range(len(self.group_labels_))]
        B = self.n_bootstraps
        self.cutoffs_ = np.arange(1, B + 1)
        val_err, test_err, sizes, cache = [], [], [], {}
        for c in self.cutoffs_:
            cols = np.flatnonzero(self.frequencies_ >= c)
            key = len(cols)  # nested sets: the size identifies A_c
            if key not in cache:
                fits = self._model(grams, cols)
                cache[key] = (
                    misclassification(theta[val], self._predict(fits, X, gcode, val)),
                    misclassification(theta[test], self._predict(fits, X, gcode, test)))
            val_err.append(cache[key][0])
            test_err.append(cache[key][1])
            sizes.append(key)
        self.validation_errors_, self.test_errors_ = np.array(val_err), np.array(test_err)
        self.sizes_ = np.array(sizes)
        curve = self.validation_errors_
        if self.cutoff_selection == "loess":
            curve = loess(self.cutoffs_, curve)
        bound = curve.min()
        if self.cutoff_selection == "1se":  # binomial standard error of the minimum
            bound += np.sqrt(bound * (1 - bound) / len(val))
        best = np.flatnonzero(curve <= bound + 1e-12)[-1]  # ties: the larger cutoff
        self.cutoff_ = int(self.cutoffs_[best])
        self.selected_ = np.flatnonzero(self.frequencies_ >= self.cutoff_)
        fits = self._model(grams, self.selected_)
        self.coef_ = fits[0].coef if len(fits) == 1 else np.mean([f.coef for f in fits], axis=0)
        self.validation_error_ = float(self.validation_errors_[best])
        pred = self._predict(fits, X, gcode, test)
        self.test_error_ = misclassification(theta[test], pred)
        self.test_error_by_group_ = {
            str(label): misclassification(theta[test][gcode[test] == g],
                                          pred[gcode[test] == g])
            for g, label in enumerate(self.group_labels_)}
        self.theta_, self.gcode_ = theta, gcode
