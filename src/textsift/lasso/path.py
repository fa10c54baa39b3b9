"""Weighted lasso paths on a sparse design, with per-feature penalty factors and sample weights.

The problem solved at each ``lambda`` (METHODS.md §D.2, glmnet's Gaussian family, ``alpha=1``)::

    min_{b0, b}  1/(2 W) sum_i w_i (y_i - b0 - x_i'b)^2  +  lambda sum_j pf_j |b_j|,   W = sum_i w_i

``w`` are sample weights (a bootstrap sample is the core set with integer multiplicities, never a
copied matrix), ``pf`` penalty factors (adaptive weights; ``pf_j = 0`` leaves ``b_j``
unpenalised). As glmnet does, ``pf`` is rescaled to sum to the number of features; this changes
only the scale of ``lambda``, so both backends solve the very same problems on the same grid.

Backends (one interface, :func:`lasso_path`):

* ``"skglm"`` (default, BSD): skglm's ``AndersonCD`` working-set solver with ``WeightedL1``,
  warm-started along the path, with :class:`BootstrapQuadratic` as datafit. skglm's own
  ``WeightedQuadratic`` recomputes ``sum(w)`` (O(n)) inside every coordinate update and its
  sparse initialisation writes an attribute its spec lacks, so it is not usable here; the
  datafit below is the same function with the weight sum computed once.
* ``"glmnet"`` (optional extra ``textsift[glmnet]``, GPL-2 Fortran through ``python-glmnet``),
  imported lazily; about 20 times faster on IMDb-sized problems (``bench/adabag.py``).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numba import float64
from skglm.datafits.base import BaseDatafit

__all__ = ["BACKENDS", "BootstrapQuadratic", "LassoPath", "lambda_grid", "lasso_path",
           "normalise_penalty"]

BACKENDS = ("skglm", "glmnet")


class BootstrapQuadratic(BaseDatafit):
    """``1/(2W) sum_i w_i (y_i - x_i'b)^2`` for skglm's coordinate-descent solvers (dense or CSC).

    Written here because skglm's ``WeightedQuadratic`` costs O(n) per coordinate update (see
    the module docstring); the arithmetic is the same.
    """

    def __init__(self, sample_weights):
        self.sample_weights = np.asarray(sample_weights, dtype=np.float64)
        self.w_sum = float(self.sample_weights.sum())

    def get_spec(self):
        return (("Xty", float64[:]), ("sample_weights", float64[:]), ("w_sum", float64))

    def params_to_dict(self):
        return {"sample_weights": self.sample_weights}

    def initialize(self, X, y):
        self.w_sum = self.sample_weights.sum()
        self.Xty = X.T @ (self.sample_weights * y)

    def initialize_sparse(self, X_data, X_indptr, X_indices, y):
        self.w_sum = self.sample_weights.sum()
        n_features = len(X_indptr) - 1
        self.Xty = np.zeros(n_features)
        for j in range(n_features):
            s = 0.0
            for i in range(X_indptr[j], X_indptr[j + 1]):
                s += X_data[i] * self.sample_weights[X_indices[i]] * y[X_indices[i]]
            self.Xty[j] = s

    def get_lipschitz(self, X, y):
        return (self.sample_weights @ X**2) / self.w_sum

    def get_lipschitz_sparse(self, X_data, X_indptr, X_indices, y):
        n_features = len(X_indptr) - 1
        lc = np.zeros(n_features)
        for j in range(n_features):
            s = 0.0
            for i in range(X_indptr[j], X_indptr[j + 1]):
                s += self.sample_weights[X_indices[i]] * X_data[i] ** 2
            lc[j] = s / self.w_sum
        return lc

    def value(self, y, w, Xw):
        return np.sum(self.sample_weights * (y - Xw) ** 2) / (2 * self.w_sum)

    def gradient_scalar(self, X, y, w, Xw, j):
        return (X[:, j] @ (self.sample_weights * Xw) - self.Xty[j]) / self.w_sum

    def gradient_scalar_sparse(self, X_data, X_indptr, X_indices, y, Xw, j):
        s = 0.0
        for i in range(X_indptr[j], X_indptr[j + 1]):
            s += X_data[i] * self.sample_weights[X_indices[i]] * Xw[X_indices[i]]
        return (s - self.Xty[j]) / self.w_sum

    def full_grad_sparse(self, X_data, X_indptr, X_indices, y, Xw):
        n_features = len(X_indptr) - 1
        grad = np.zeros(n_features)
        for j in range(n_features):
            s = 0.0
            for i in range(X_indptr[j], X_indptr[j + 1]):
                s += X_data[i] * self.sample_weights[X_indices[i]] * Xw[X_indices[i]]
            grad[j] = (s - self.Xty[j]) / self.w_sum
        return grad

    def intercept_update_step(self, y, Xw):
        return np.sum(self.sample_weights * (Xw - y)) / self.w_sum


@dataclass
class LassoPath:
    """A solution path: ``coef`` is a CSC matrix (n_features, n_lambdas), column k at
    ``lambdas[k]`` (decreasing); ``intercept`` has one value per lambda."""

    lambdas: np.ndarray
    coef: sp.csc_matrix
    intercept: np.ndarray

    def active(self, k: int) -> np.ndarray:
        """Indices of the non-zero coefficients at ``lambdas[k]``."""
        col = self.coef[:, [k]]
        return col.indices[col.data != 0]


def normalise_penalty(penalty_factor, n_features: int) -> np.ndarray:
    """Penalty factors rescaled to sum to ``n_features`` (glmnet's convention), validated."""
    pf = np.ones(n_features) if penalty_factor is None else np.asarray(penalty_factor, float)
    if pf.shape != (n_features,):
        raise ValueError(f"penalty_factor has shape {pf.shape}; it needs one value per "
                         f"feature ({n_features})")
    if not np.all(np.isfinite(pf)) or np.any(pf < 0):
        raise ValueError("penalty factors must be finite and >= 0 (0 = unpenalised)")
    if pf.sum() == 0:
        raise ValueError("all penalty factors are 0: nothing is penalised, there is no path")
    return pf * (n_features / pf.sum())


def _check_weights(sample_weight, n: int) -> np.ndarray:
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    if w.shape != (n,) or np.any(w < 0) or not np.all(np.isfinite(w)) or w.sum() <= 0:
        raise ValueError(f"sample_weight must be {n} finite values >= 0 with a positive sum")
    return w


def lambda_grid(X, y, penalty_factor=None, sample_weight=None, n_lambdas: int = 100,
                min_ratio: float | None = None) -> np.ndarray:
    """glmnet's grid: ``n_lambdas`` values log-spaced from ``lambda_max`` down to
    ``min_ratio * lambda_max``; ``lambda_max = max_j |sum_i w_i x_ij (y_i - ybar_w)| / (W pf_j)``
    over penalised features is the smallest lambda with every penalised coefficient at zero.
    ``min_ratio`` defaults to glmnet's: 1e-4 if n > p, else 1e-2."""
    X = sp.csc_matrix(X)
    n, p = X.shape
    pf = normalise_penalty(penalty_factor, p)
    w = _check_weights(sample_weight, n)
    r = w * (np.asarray(y, float) - np.average(y, weights=w))
    grad = np.abs(X.T @ r) / w.sum()
    pen = pf > 0
    lmax = np.max(grad[pen] / pf[pen]) if pen.any() else 0.0
    if lmax <= 0:
        raise ValueError("the response is constant (or no penalised feature varies): no path")
    if min_ratio is None:
        min_ratio = 1e-4 if n > p else 1e-2
    return lmax * np.logspace(0, np.log10(min_ratio), n_lambdas)


def lasso_path(X, y, penalty_factor=None, sample_weight=None, lambdas=None, *,
               n_lambdas: int = 100, min_ratio: float | None = None, backend: str = "skglm",
               tol: float = 1e-6, max_active: int | None = None, callback=None) -> LassoPath:
    """The weighted lasso path of the module docstring on ``lambdas`` (computed by
    :func:`lambda_grid` when not given), warm-started from the largest lambda.

    ``max_active`` stops the path (as glmnet's ``pmax``) once more coefficients than that are
    non-zero; ``callback(k, coef, intercept)`` is called after each lambda and stops the path
    when it returns True (AdaBag stops once the validation error has stopped improving). Both
    leave the remaining columns uncomputed (skglm) or dropped (glmnet solves its grid at once).
    """
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    X = sp.csc_matrix(X, dtype=np.float64)
    n, p = X.shape
    y = np.asarray(y, dtype=np.float64)
    if y.shape != (n,):
        raise ValueError(f"y has shape {y.shape}; X has {n} rows")
    pf = normalise_penalty(penalty_factor, p)
    w = _check_weights(sample_weight, n)
    if lambdas is None:
        lambdas = lambda_grid(X, y, pf, w, n_lambdas, min_ratio)
    lambdas = np.asarray(lambdas, dtype=float)
    if lambdas.ndim != 1 or np.any(np.diff(lambdas) > 0) or np.any(lambdas <= 0):
        raise ValueError("lambdas must be positive and decreasing")
    fit = _glmnet_path if backend == "glmnet" else _skglm_path
    path = fit(X, y, pf, w, lambdas, tol, max_active, callback)
    return path


def _skglm_path(X, y, pf, w, lambdas, tol, max_active, callback) -> LassoPath:
    """skglm on a screened problem: at each lambda the solver sees only the candidates of the
    sequential strong rule (Tibshirani et al. 2012: active words and those with
    ``|grad_j| >= pf_j (2 lambda_k - lambda_{k-1})``), warm-started; the KKT conditions are then
    checked on every feature and violators added until none is left, so the solution is that of
    the full problem. The screening loop is written here: skglm's working sets still pay one
    pass over all of ``X`` per outer iteration, which dominated on IMDb."""
    from skglm.penalties import WeightedL1
    from skglm.solvers import AndersonCD

    solver = AndersonCD(tol=tol, fit_intercept=True, max_iter=100)
    datafit = BootstrapQuadratic(w)
    p, W = X.shape[1], w.sum()
    beta, b0 = np.zeros(p), float(w @ y / W)
    grad = np.asarray(X.T @ (w * (y - b0))).ravel() / W  # minus the datafit's gradient
    unpenalised = pf == 0
    cols, intercepts, prev = [], [], lambdas[0]
    for lam in lambdas:
        cand = np.flatnonzero((np.abs(grad) >= pf * (2 * lam - prev)) | (beta != 0) | unpenalised)
        while True:
            if len(cand):
                Xs = X[:, cand]
                coef, _, _ = solver.solve(Xs, y, datafit, WeightedL1(float(lam), pf[cand]),
                                          np.r_[beta[cand], b0], Xs @ beta[cand] + b0,
                                          run_checks=False)
                beta[:] = 0.0
                beta[cand], b0 = coef[:-1], coef[-1]
                fitted = Xs @ coef[:-1] + b0
            else:
                fitted = np.full(len(y), b0)
            grad = np.asarray(X.T @ (w * (y - fitted))).ravel() / W
            outside = np.ones(p, bool)
            outside[cand] = False
            violators = np.flatnonzero(outside & (np.abs(grad) > lam * pf + tol))
            if len(violators) == 0:
                break
            cand = np.union1d(cand, violators)
        prev = lam
        cols.append(sp.csc_matrix(beta[:, None]))
        intercepts.append(b0)
        if max_active is not None and np.count_nonzero(beta) > max_active:
            break
        if callback is not None and callback(len(cols) - 1, cols[-1], b0):
            break
    return LassoPath(lambdas[:len(cols)], sp.hstack(cols, format="csc"), np.asarray(intercepts))


def _glmnet_path(X, y, pf, w, lambdas, tol, max_active, callback) -> LassoPath:
    try:
        from glmnet import ElasticNet
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("backend='glmnet' needs python-glmnet (GPL-2): "
                          "pip install 'textsift[glmnet]', or use backend='skglm'") from None
    p = X.shape[1]
    # glmnet stops by itself once more than ``max_features`` (its nx) coefficients are non-zero
    model = ElasticNet(alpha=1.0, lambda_path=lambdas, standardize=False, fit_intercept=True,
                       tol=min(tol, 1e-7), n_splits=0, max_iter=100000,
                       max_features=None if max_active is None else min(p, max_active + 1))
    with warnings.catch_warnings():  # its "bound exceeded" warning is our max_active stop
        warnings.simplefilter("ignore", RuntimeWarning)
        model.fit(X, y, sample_weight=w, relative_penalties=pf)
    k = model.n_lambda_
    coef = sp.csc_matrix(model.coef_path_[:, :k])
    intercept = np.asarray(model.intercept_path_[:k], dtype=float)
    if max_active is not None:
        over = np.flatnonzero(np.diff(coef.indptr) > max_active)
        k = over[0] + 1 if len(over) else k
    if callback is not None:
        k = next((j + 1 for j in range(k) if callback(j, coef[:, [j]], intercept[j])), k)
    return LassoPath(lambdas[:k], coef[:, :k], intercept[:k])
