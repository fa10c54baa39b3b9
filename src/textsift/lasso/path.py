"""Weighted lasso paths on a sparse design, with per-feature penalty factors and sample weights.

The problem solved at each ``lambda`` (the AdaBag paper's penalised least squares; glmnet's
Gaussian family, ``alpha=1``)::

    min_{b0, b}  1/(2 W) sum_i w_i (y_i - b0 - x_i'b)^2  +  lambda sum_j pf_j |b_j|,   W = sum_i w_i

``w`` are sample weights (a bootstrap sample is the core set with integer multiplicities, never a
copied matrix), ``pf`` penalty factors (adaptive weights; ``pf_j = 0`` leaves ``b_j``
unpenalised). As glmnet does, ``pf`` is rescaled to sum to the number of features; this changes
only the scale of ``lambda``, so both backends solve the very same problems on the same grid.
No column is standardised; the intercept is fitted and not penalised.

Backends (one interface, :func:`lasso_path`):

* ``"adelie"`` (default, MIT; Yang and Hastie's group elastic net, C++): ``adelie.grpnet`` with
  every feature its own group, ``adelie.matrix.sparse`` over the CSC design (nothing densified)
  and ``adelie.glm.gaussian``. Its loss is ``sum_i v_i (-y_i eta_i + eta_i^2 / 2)`` with the
  weights ``v`` normalised to sum to 1, which is the loss above up to a constant with
  ``v = w / W``; its penalty ``lambda sum_j omega_j |b_j|`` is taken with ``omega = pf`` as
  rescaled here (adelie rescales nothing), and it solves the given grid as given (lambdas above
  its ``lambda_max`` included), so ``lambda`` means the same as for glmnet. Its built-in early
  exit on the deviance explained is off; its progress bar is off; one thread by default (the
  bootstraps are the parallel unit); the sequential strong rule screens (on IMDb's AdaBag
  paths 20% faster than its default pivot rule, measured side by side).
* ``"glmnet"`` (optional extra ``textsift[glmnet]``, GPL-2 Fortran through ``python-glmnet``),
  imported lazily; the cross-check. Measured side by side on IMDb (``bench/adabag.py``):
  adelie takes 0.97-1.04x glmnet's time, objectives within 1e-6 relative at every lambda.

``tol`` is the coordinate-descent threshold of either backend (adelie's ``tol``, glmnet's
``thresh``): the largest weighted squared coefficient change of a sweep, relative to the
weighted variance of ``y``.
"""

from __future__ import annotations

import logging
import os
import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._choices import BACKENDS  # adelie (MIT, the default) and glmnet (GPL-2, an extra)
from ..errors import TextsiftError

__all__ = ["BACKENDS", "LassoPath", "lambda_grid", "lasso_path", "normalise_penalty",
           "objective"]



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
        raise TextsiftError(f"penalty_factor has shape {pf.shape}; it needs one value per "
                            f"feature ({n_features})")
    if not np.all(np.isfinite(pf)) or np.any(pf < 0):
        raise TextsiftError("penalty factors must be finite and >= 0 (0 = unpenalised)")
    if pf.sum() == 0:
        raise TextsiftError("all penalty factors are 0: nothing is penalised, there is no path")
    return pf * (n_features / pf.sum())


def _check_weights(sample_weight, n: int) -> np.ndarray:
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    if w.shape != (n,) or np.any(w < 0) or not np.all(np.isfinite(w)) or w.sum() <= 0:
        raise TextsiftError(f"sample_weight must be {n} finite values >= 0 with a positive sum")
    return w


def objective(X, y, coef, intercept, lam, penalty_factor=None, sample_weight=None) -> float:
    """The objective of the module docstring at one ``lambda`` (``pf`` normalised as there)."""
    X = sp.csc_matrix(X)
    pf = normalise_penalty(penalty_factor, X.shape[1])
    w = _check_weights(sample_weight, X.shape[0])
    coef = np.asarray(coef.toarray() if sp.issparse(coef) else coef, dtype=float).ravel()
    r = np.asarray(y, float) - intercept - X @ coef
    return float(w @ r**2 / (2 * w.sum()) + lam * (pf @ np.abs(coef)))


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
        raise TextsiftError("the response is constant (or no penalised feature varies): "
                            "there is no lasso path")
    if min_ratio is None:
        min_ratio = 1e-4 if n > p else 1e-2
    return lmax * np.logspace(0, np.log10(min_ratio), n_lambdas)


def lasso_path(X, y, penalty_factor=None, sample_weight=None, lambdas=None, *,
               n_lambdas: int = 100, min_ratio: float | None = None, backend: str = "adelie",
               tol: float = 1e-7, max_active: int | None = None, callback=None,
               n_threads: int = 1) -> LassoPath:
    """The weighted lasso path of the module docstring on ``lambdas`` (computed by
    :func:`lambda_grid` when not given), warm-started from the largest lambda.

    ``max_active`` stops the path (as glmnet's ``pmax``) at the first lambda with more than that
    many non-zero coefficients (that lambda is kept); ``callback(k, coef, intercept)`` is called
    after each lambda (``coef`` a CSC column) and stops the path when it returns True (AdaBag
    stops once the validation error has stopped improving). Both leave the remaining lambdas
    unsolved (adelie) or dropped (glmnet solves its grid at once). ``n_threads`` is adelie's.
    Rows of weight 0 are left out before the solver runs (a bootstrap sample leaves out about
    a third of the rows): the problem is the same, and the solver visits two thirds of the
    non-zeros.
    """
    if backend not in BACKENDS:
        raise TextsiftError(f"unknown lasso backend {backend!r}; choose one of "
                            f"{', '.join(BACKENDS)}")
    X = sp.csc_matrix(X, dtype=np.float64)
    n, p = X.shape
    y = np.asarray(y, dtype=np.float64)
    if y.shape != (n,):
        raise TextsiftError(f"y has shape {y.shape}; X has {n} rows")
    pf = normalise_penalty(penalty_factor, p)
    w = _check_weights(sample_weight, n)
    if lambdas is None:
        lambdas = lambda_grid(X, y, pf, w, n_lambdas, min_ratio)
    lambdas = np.asarray(lambdas, dtype=float)
    if lambdas.ndim != 1 or np.any(np.diff(lambdas) > 0) or np.any(lambdas <= 0):
        raise TextsiftError("lambdas must be positive and decreasing")
    if not np.all(w > 0):  # rows of weight 0 add nothing: the solver need not visit them
        X, y, w = X[w > 0], y[w > 0], w[w > 0]
    if backend == "glmnet":
        return _glmnet_path(X, y, pf, w, lambdas, tol, max_active, callback)
    return _adelie_path(X, y, pf, w, lambdas, tol, max_active, callback, n_threads)


def check_backend(backend: str) -> None:
    """Fail early, before any work or output, when ``backend`` is unknown or not installed."""
    if backend not in BACKENDS:
        raise TextsiftError(f"unknown lasso backend {backend!r}; choose one of "
                            f"{', '.join(BACKENDS)}")
    if backend == "glmnet":
        _import_glmnet()


def _import_glmnet():
    try:
        from glmnet import ElasticNet
    except ImportError:
        raise TextsiftError("backend 'glmnet' needs python-glmnet (GPL-2), which is not "
                            "installed: pip install 'textsift[glmnet]', or use the default "
                            "backend 'adelie'") from None
    return ElasticNet


def _import_adelie():
    # adelie sets OMP_PROC_BIND=TRUE unless it is set, and its OpenMP runtime then pins the
    # importing process to the first CPU: every single-threaded bootstrap worker landed on CPU
    # 0, so n_jobs=2 ran on one core (and so did every process started from a pinned one).
    # Our paths run on one thread, processes are the parallel unit: no binding, unless the
    # user asked for it.
    os.environ.setdefault("OMP_PROC_BIND", "false")
    import adelie

    # adelie adds a colour StreamHandler to the root logger when imported; a library must not
    # print, so it is taken off again (adelie's solver errors are raised below instead)
    logging.getLogger().removeHandler(adelie.logger.ch)
    return adelie


_UNCONSTRAINED: dict = {}


def _unconstrained(ad, p: int):
    """adelie's vector of ``p`` absent constraints (one per feature), built once per size and
    process: given ``constraints=None``, adelie builds it from a list of ``p`` Nones at every
    path, a Python-level conversion of 20 ms at IMDb's 37,099 words (2% of a bootstrap); given
    the vector, it copies it in C++. The problem solved is the same (no constraint)."""
    if p not in _UNCONSTRAINED:
        _UNCONSTRAINED.clear()  # one size at a time: a run's paths share their width
        _UNCONSTRAINED[p] = ad.adelie_core.constraint.VectorConstraintBase64([None] * p)
    return _UNCONSTRAINED[p]


class _Stop:
    """adelie's ``exit_cond``: records each solution, applies ``max_active`` and the callback.
    An exception inside it would be swallowed by adelie's C++ loop into a log line, so it is
    kept here and raised again once the solver has returned."""

    def __init__(self, p, max_active, callback):
        self.p, self.max_active, self.callback = p, max_active, callback
        self.cols, self.intercepts, self.error = [], [], None

    def __call__(self, state) -> bool:
        try:
            idx = np.asarray(state.screen_set, dtype=np.int64)
            val = np.asarray(state.screen_beta, dtype=np.float64)
            nz = val != 0
            order = np.argsort(idx[nz], kind="stable")
            col = sp.csc_matrix((val[nz][order], idx[nz][order], [0, int(nz.sum())]),
                                shape=(self.p, 1))
            b0 = float(state.intercepts[-1])
            self.cols.append(col)
            self.intercepts.append(b0)
            if self.max_active is not None and col.nnz > self.max_active:
                return True
            return bool(self.callback is not None
                        and self.callback(len(self.cols) - 1, col, b0))
        except BaseException as exc:  # noqa: BLE001 - re-raised after the solver returns
            self.error = exc
            return True


def _adelie_path(X, y, pf, w, lambdas, tol, max_active, callback, n_threads) -> LassoPath:
    ad = _import_adelie()
    X.sort_indices()
    if X.indices.dtype != np.int32 and X.nnz < np.iinfo(np.int32).max:
        X = sp.csc_matrix((X.data, X.indices.astype(np.int32), X.indptr.astype(np.int32)),
                          shape=X.shape)
    stop = _Stop(X.shape[1], max_active, callback)
    state = ad.grpnet(ad.matrix.sparse(X, n_threads=n_threads),
                      ad.glm.gaussian(y, weights=w / w.sum()),
                      constraints=_unconstrained(ad, X.shape[1]),
                      penalty=pf, lmda_path=lambdas, tol=tol, early_exit=False,
                      screen_rule="strong", progress_bar=False, n_threads=n_threads,
                      exit_cond=stop)
    if stop.error is not None:
        raise stop.error
    if state.error:
        if "KeyboardInterrupt" in state.error:
            raise KeyboardInterrupt
        raise RuntimeError(f"adelie stopped at lambda {len(stop.cols)}: {state.error}")
    k = len(stop.cols)
    coef = sp.hstack(stop.cols, format="csc") if k else sp.csc_matrix((X.shape[1], 0))
    return LassoPath(lambdas[:k], coef, np.asarray(stop.intercepts))


def _glmnet_path(X, y, pf, w, lambdas, tol, max_active, callback) -> LassoPath:
    ElasticNet = _import_glmnet()
    p = X.shape[1]
    # glmnet stops by itself once more than ``max_features`` (its nx) coefficients are non-zero
    model = ElasticNet(alpha=1.0, lambda_path=lambdas, standardize=False, fit_intercept=True,
                       tol=tol, n_splits=0, max_iter=100000,
                       max_features=None if max_active is None else min(p, max_active + 1))
    with warnings.catch_warnings():  # its "bound exceeded" warning is our max_active stop
        warnings.simplefilter("ignore", RuntimeWarning)
        model.fit(X, y, sample_weight=w, relative_penalties=pf)
    k = model.n_lambda_
    coef = sp.csc_matrix(model.coef_path_[:, :k])
    coef.eliminate_zeros()
    intercept = np.asarray(model.intercept_path_[:k], dtype=float)
    if max_active is not None:
        over = np.flatnonzero(np.diff(coef.indptr) > max_active)
        k = over[0] + 1 if len(over) else k
    if callback is not None:
        k = next((j + 1 for j in range(k) if callback(j, coef[:, [j]], intercept[j])), k)
    return LassoPath(lambdas[:k], coef[:, :k], intercept[:k])
