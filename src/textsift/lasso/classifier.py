"""OLS refits on a chosen set of words and the AdaBag classifier, the AdaBag paper's (2.2).

Classifier (2.2) predicts ``1`` iff ``P(y >= b | x) >= P(y <= a | x)`` under
``y ~ N(x'b_hat, sigma_hat^2)``; for ``sigma_hat > 0`` that is exactly ``x'b_hat >= (a+b)/2``,
which is how it is implemented (and what it is when ``sigma_hat = 0``, a perfect fit, too).

The least squares fits solve the normal equations of the centred, weighted Gram matrix
``X_S' W X_S - W xbar xbar'`` by its Cholesky factor, taken in the order the columns are
given. Rank-deficient designs (more words than documents, aliased words) follow R's ``lm``:
a column whose squared residual norm, after projecting it on the intercept and the columns
kept before it, is below ``RANK_TOL`` times its own squared norm is aliased and gets the
coefficient 0. Columns added together are pivoted (LAPACK's ``dpstrf``, largest residual
first), so among aliased columns added in one step another one than ``lm``'s may get the
zero; the fitted values are the same.

:class:`NestedOLS` serves the many refits of AdaBag: the active sets along a lasso path (which
mostly grow) and the nested models ``A_c`` (prefixes of the words ordered by bagging
frequency). A fit keeps the factor of the columns it already holds, drops the columns the new
set lacks by rank-one updates, and appends the new ones by a block Cholesky step, so a path of
refits costs about one factorisation of its largest set instead of one per set. Written here
because neither scipy nor scikit-learn updates a Cholesky factor.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from ..errors import TextsiftError
from ..metrics import misclassification_error

__all__ = ["NestedOLS", "OLSFit", "misclassification", "ols_fit", "predict_class"]

#: relative tolerance on squared residual norms (R's lm: 1e-7 on norms)
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


class NestedOLS:
    """Weighted least squares of ``y`` on an intercept and ``X[:, S]`` for a sequence of
    column sets ``S`` (module docstring). ``sample_weight`` weights the rows (a bootstrap's
    multiplicities), ``rows`` restricts them; the rows of positive weight are sliced out once,
    so that no product visits the others. ``X_csr``, the same matrix in CSR, may be passed to
    share it."""

    def __init__(self, X, y, sample_weight=None, rows=None, X_csr=None):
        n = X.shape[0]
        w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
        if rows is not None:
            keep = np.zeros(n, bool)
            keep[rows] = True
            w = np.where(keep, w, 0.0)
        pos = np.flatnonzero(w > 0)  # rows of weight 0 add nothing: every product skips them
        if len(pos) == 0:
            raise TextsiftError("no observations (with positive weight) to fit the OLS "
                                "model on")
        whole = len(pos) == n
        X = X if sp.isspmatrix_csc(X) and X.dtype == np.float64 else sp.csc_matrix(
            X, dtype=np.float64)
        self.X = X if whole else X[pos]
        self._Xr = X_csr if X_csr is None or whole else X_csr[pos]
        self.w, y = w[pos], np.asarray(y, dtype=float)[pos]
        self.W = self.w.sum()
        self.max_rank = len(pos) - 1  # after centring
        self.ybar = self.w @ y / self.W
        self.r = self.w * (y - self.ybar)
        self.held: list[int] = []  # columns in factor order, aliased ones included
        self.kept = np.zeros(0, bool)  # per held column: in the factor (not aliased)
        self.t = 0  # columns in the factor
        self.L = np.zeros((0, 0))  # lower Cholesky factor, grown by doubling
        self.z = np.zeros(0)  # L^-1 X'W(y - ybar) over the factor's columns
        self.xbar = np.zeros(0)  # weighted column means over the factor's columns

    @property
    def Xr(self):
        if self._Xr is None:
            self._Xr = self.X.tocsr()
        return self._Xr

    def fit(self, columns) -> OLSFit:
        columns = np.asarray(columns, dtype=np.intp)
        wanted = set(columns.tolist())
        gone = [k for k, j in enumerate(self.held) if j not in wanted]
        if gone:
            self._remove(gone)
        have = set(self.held)
        new = [j for j in dict.fromkeys(columns.tolist()) if j not in have]
        if new:
            self._append(np.asarray(new, dtype=np.intp))
        t = self.t
        beta = (sla.solve_triangular(self.L[:t, :t], self.z[:t], lower=True, trans="T",
                                     check_finite=False) if t else np.zeros(0))
        kept_cols = np.asarray(self.held, dtype=np.intp)[self.kept]
        coef_of = dict(zip(kept_cols.tolist(), beta, strict=True))
        coef = np.array([coef_of.pop(int(j), 0.0) for j in columns])  # a repeat gets 0
        return OLSFit(columns, coef, float(self.ybar - self.xbar[:t] @ beta), t)

    def _cross(self, WXn, cols):
        """``X[:, cols]' W X_n`` as a dense (len(cols), k) array, by the cheaper of two sparse
        products: the new columns' rows times all of ``X`` (CSR; its cost grows with the new
        columns' documents times their lengths), or a slice of the columns ``cols`` (its cost
        grows with their non-zeros)."""
        df = np.diff(self.X.indptr)
        by_rows = WXn.nnz * self.X.nnz / self.X.shape[0]
        if by_rows < df[cols].sum():
            return (WXn.T.tocsr() @ self.Xr)[:, cols].toarray().T
        return (self.X[:, cols].T @ WXn).toarray()

    def _append(self, new):
        Xn = self.X[:, new]
        WXn = Xn.copy()
        WXn.data *= self.w[WXn.indices]
        WXn.eliminate_zeros()
        W = self.W
        xbar_n = np.asarray(WXn.sum(axis=0)).ravel() / W
        kept_cols = np.asarray(self.held, dtype=np.intp)[self.kept]
        cross = self._cross(WXn, np.r_[kept_cols, new])  # (t + k, k), raw
        t = self.t
        G_kn = cross[:t] - W * np.outer(self.xbar[:t], xbar_n)
        G_nn = cross[t:] - W * np.outer(xbar_n, xbar_n)
        g_n = np.asarray(Xn.T @ self.r).ravel()
        norms = np.diag(cross[t:]).copy()  # uncentred: lm's intercept comes first
        B = (sla.solve_triangular(self.L[:t, :t], G_kn, lower=True, check_finite=False)
             if t else G_kn[:0])
        S = G_nn - B.T @ B  # the new columns' Gram, orthogonal to the columns held
        live = np.flatnonzero((norms > 0) & (np.diag(S) > RANK_TOL * norms))
        acc = live[:0]
        if len(live) and t < self.max_rank:
            # Cholesky of the scaled Schur complement, whose pivots are relative: a column
            # stays only if its residual is above RANK_TOL of its own norm. In the given order
            # when every column passes (the nested A_c need it), else pivoted (dpstrf)
            d = np.sqrt(norms[live])
            Ss = S[np.ix_(live, live)] / np.outer(d, d)
            c, info = sla.lapack.dpotrf(Ss, lower=1, clean=1)
            if info == 0 and np.all(np.diag(c) ** 2 > RANK_TOL) and len(live) <= (
                    self.max_rank - t):
                order = np.arange(len(live))
            else:
                c, piv, rank, _ = sla.lapack.dpstrf(Ss, lower=1, tol=RANK_TOL)
                order = piv[:min(rank, self.max_rank - t)] - 1  # LAPACK is 1-based
            rank = len(order)
            acc = live[order]
            self._reserve(t + rank)
            self.L[t:t + rank, :t] = B[:, acc].T
            Lnew = np.tril(c[:rank, :rank]) * d[order][:, None]
            self.L[t:t + rank, t:t + rank] = Lnew
            self.z[t:t + rank] = sla.solve_triangular(Lnew, g_n[acc] - B[:, acc].T
                                                      @ self.z[:t], lower=True)
            self.xbar[t:t + rank] = xbar_n[acc]
            self.t += rank
        aliased = np.setdiff1d(np.arange(len(new)), acc)
        self.held += new[acc].tolist() + new[aliased].tolist()
        self.kept = np.r_[self.kept, np.ones(len(acc), bool), np.zeros(len(aliased), bool)]

    def _remove(self, gone):
        """Drop held columns: each kept one by a rank-one update of the factor's trailing
        block (its column's share moves to the columns after it); the aliased ones, which a
        dropped column may have been aliased with, are taken out to be appended again."""
        kept_pos = np.cumsum(self.kept) - 1
        drop = set(gone) | set(np.flatnonzero(~self.kept).tolist())
        positions = sorted((int(kept_pos[k]) for k in gone if self.kept[k]), reverse=True)
        while positions and positions[0] == self.t - 1:  # trailing columns: truncate
            self.t -= 1
            positions.pop(0)
        for k in positions:
            self._drop_factor_column(k)
        self.held = [j for k, j in enumerate(self.held) if k not in drop]
        self.kept = np.ones(len(self.held), bool)

    def _drop_factor_column(self, i):
        """Remove column ``i`` of the factor: in ``R = L'`` augmented by ``z``, deleting the
        column leaves the trailing block upper Hessenberg, and scipy's ``qr_delete`` (Givens
        rotations) makes it triangular again; the rows above ``i`` do not change."""
        t, L, z = self.t, self.L, self.z
        m = t - i
        R = np.empty((m, m + 1), order="F")
        R[:, :m] = L[i:t, i:t].T
        R[:, m] = z[i:t]
        _, R = sla.qr_delete(np.eye(m), R, 0, which="col", overwrite_qr=True,
                             check_finite=False)
        sign = np.where(np.diag(R[:m - 1, :m - 1]) < 0, -1.0, 1.0)  # a positive diagonal
        L[i:t - 1, :i] = L[i + 1:t, :i]
        L[i:t - 1, i:t - 1] = (R[:m - 1, :m - 1] * sign[:, None]).T
        z[i:t - 1] = R[:m - 1, m - 1] * sign
        L[t - 1, :t] = 0.0
        self.xbar[i:t - 1] = self.xbar[i + 1:t].copy()
        self.t = t - 1

    def _reserve(self, size):
        cap = len(self.z)
        if size <= cap:
            return
        cap = max(size, cap + cap // 2, 16)
        L = np.zeros((cap, cap))
        t = self.t
        L[:t, :t] = self.L[:t, :t]
        self.L = L
        self.z = np.r_[self.z[:t], np.zeros(cap - t)]
        self.xbar = np.r_[self.xbar[:t], np.zeros(cap - t)]


def ols_fit(X, y, columns, sample_weight=None, rows=None) -> OLSFit:
    """Weighted least squares of ``y`` on an intercept and ``X[:, columns]`` over ``rows``
    (all rows when ``None``), aliased columns set to 0 (module docstring). Only the ``|S|``
    chosen columns are touched; nothing of size ``n x p`` is copied."""
    columns = np.asarray(columns, dtype=np.intp)
    sub = X[:, columns] if sp.issparse(X) else np.asarray(X)[:, columns]
    fit = NestedOLS(sp.csc_matrix(sub), y, sample_weight, rows).fit(np.arange(len(columns)))
    return OLSFit(columns, fit.coef, fit.intercept, fit.rank)


def predict_class(decision: np.ndarray, a: float, b: float) -> np.ndarray:
    """Classifier (2.2): 1 iff ``x'b_hat >= (a+b)/2`` (the AdaBag paper)."""
    if not a < b:
        raise TextsiftError(f"the class thresholds need a < b, got a={a}, b={b}")
    return (np.asarray(decision) >= (a + b) / 2).astype(np.int8)


#: ME = mean ``|theta - y_hat|``, the misclassification rate: the one measure of
#: :mod:`textsift.metrics`, under the paper's name.
misclassification = misclassification_error
