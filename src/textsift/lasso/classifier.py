"""OLS refits on a chosen set of words and the AdaBag classifier (2.2) (METHODS.md §D.3).

Classifier (2.2) predicts ``1`` iff ``P(y >= b | x) >= P(y <= a | x)`` under
``y ~ N(x'b_hat, sigma_hat^2)``; for ``sigma_hat > 0`` that is exactly ``x'b_hat >= (a+b)/2``,
which is how it is implemented (and what it is when ``sigma_hat = 0``, a perfect fit, too).

Rank-deficient designs (more words than documents, aliased words) follow R's ``lm``: the
coefficients of aliased columns are set to 0. The factorisation is LAPACK's pivoted Cholesky
(``dpstrf``) of the centred, weighted Gram matrix ``X_S' W X_S``; its pivot order (largest
remaining residual norm first) is that of column-pivoted QR of the centred ``sqrt(W) X_S``
(Businger-Golub), so the columns it keeps are those pivoted QR keeps, at the cost of a
``|S| x |S|`` matrix instead of an ``n x |S|`` one. R's ``lm`` keeps the given column order
instead, so among aliased columns another one may get the zero; fitted values are the same.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

__all__ = ["OLSFit", "WeightedGram", "misclassification", "ols_fit", "predict_class"]

#: relative tolerance of the pivoted Cholesky (on squared column norms, R's lm uses 1e-7 on
#: norms)
RANK_TOL = 1e-10


class OLSFit:
    """Coefficients ``coef`` on the columns ``columns`` and an intercept."""

    def __init__(self, columns: np.ndarray, coef: np.ndarray, intercept: float, rank: int):
        self.columns, self.coef, self.intercept, self.rank = columns, coef, intercept, rank

    def decision(self, X) -> np.ndarray:
        """``x'b_hat`` for each row of ``X`` (all features; only ``columns`` are used)."""
        X = sp.csr_matrix(X) if not sp.issparse(X) else X
        if len(self.columns) == 0:
            return np.full(X.shape[0], self.intercept)
        return np.asarray(X[:, self.columns] @ self.coef).ravel() + self.intercept


def _solve_gram(G, g, k):
    """Pivoted-Cholesky least squares on a centred Gram ``G`` and ``g = X'W(y - ybar)``:
    ``(beta, rank)`` with the coefficients of aliased columns 0 (module docstring)."""
    beta = np.zeros(k)
    diag = np.diag(G)
    if k == 0 or diag.max() <= 0:  # no columns, or every column constant on these rows
        return beta, 0
    c, piv, rank, _ = sla.lapack.dpstrf(G, lower=0, tol=RANK_TOL * diag.max())
    keep = piv[:rank] - 1  # LAPACK is 1-based
    if rank:
        R = np.triu(c[:rank, :rank])
        beta[keep] = sla.solve_triangular(R, sla.solve_triangular(R, g[keep], trans="T"))
    return beta, rank


class WeightedGram:
    """Centred weighted Gram entries of the columns of ``X`` met so far, for many OLS refits
    over nested or overlapping column sets (a lasso path): each new column costs one sparse
    product with the columns already held; a refit then costs only its ``|S|^3/3``
    factorisation. ``rows``/``sample_weight`` restrict and weight the observations."""

    def __init__(self, X, y, sample_weight=None, rows=None):
        n = X.shape[0]
        w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
        if rows is not None:
            w = np.where(np.isin(np.arange(n), rows), w, 0.0)
        self.W = w.sum()
        if self.W <= 0:
            raise ValueError("no observations (with positive weight) to fit the OLS model on")
        # rows of weight 0 stay in place (no row subset is copied): they add nothing
        self.X = sp.csc_matrix(X, dtype=np.float64)
        self.w, y = w, np.asarray(y, dtype=float)
        self.ybar = self.w @ y / self.W
        self.r = self.w * (y - self.ybar)
        self.pos: dict[int, int] = {}
        self.cols = np.zeros(0, dtype=np.intp)
        self.G = np.zeros((0, 0))
        self.g = np.zeros(0)
        self.xbar = np.zeros(0)

    def _extend(self, new):
        Xn = self.X[:, new]
        WXn = Xn.copy()
        WXn.data *= self.w[WXn.indices]
        xbar_n = np.asarray(WXn.sum(axis=0)).ravel() / self.W
        cross = (self.X[:, self.cols].T @ WXn).toarray() - self.W * np.outer(self.xbar, xbar_n)
        nn = (Xn.T @ WXn).toarray() - self.W * np.outer(xbar_n, xbar_n)
        self.G = np.block([[self.G, cross], [cross.T, nn]])
        self.g = np.r_[self.g, np.asarray(Xn.T @ self.r).ravel()]
        self.xbar = np.r_[self.xbar, xbar_n]
        for j in new:
            self.pos[int(j)] = len(self.pos)
        self.cols = np.r_[self.cols, new]

    def fit(self, columns) -> OLSFit:
        columns = np.asarray(columns, dtype=np.intp)
        new = np.array([j for j in np.unique(columns) if int(j) not in self.pos], dtype=np.intp)
        if len(new):
            self._extend(new)
        idx = np.array([self.pos[int(j)] for j in columns], dtype=np.intp)
        beta, rank = _solve_gram(self.G[np.ix_(idx, idx)], self.g[idx], len(columns))
        return OLSFit(columns, beta, self.ybar - self.xbar[idx] @ beta, rank)


def ols_fit(X, y, columns, sample_weight=None, rows=None) -> OLSFit:
    """Weighted least squares of ``y`` on an intercept and ``X[:, columns]`` over ``rows``
    (all rows when ``None``), aliased columns set to 0 (module docstring). Only the ``|S|``
    chosen columns are touched; nothing of size ``n x p`` is copied."""
    columns = np.asarray(columns, dtype=np.intp)
    sub = X[:, columns] if sp.issparse(X) else np.asarray(X)[:, columns]
    fit = WeightedGram(sub, y, sample_weight, rows).fit(np.arange(len(columns)))
    return OLSFit(columns, fit.coef, fit.intercept, fit.rank)


def predict_class(decision: np.ndarray, a: float, b: float) -> np.ndarray:
    """Classifier (2.2): 1 iff ``x'b_hat >= (a+b)/2`` (METHODS.md §D.3)."""
    if not a < b:
        raise ValueError(f"the class thresholds need a < b, got a={a}, b={b}")
    return (np.asarray(decision) >= (a + b) / 2).astype(np.int8)


def misclassification(theta, pred) -> float:
    """ME = mean |theta - y_hat| (the misclassification rate)."""
    theta, pred = np.asarray(theta), np.asarray(pred)
    if theta.size == 0:
        raise ValueError("no observations to evaluate")
    return float(np.mean(theta != pred))
