"""OLS refits on a chosen set of words and the AdaBag classifier, the AdaBag paper's (2.2).

Classifier (2.2) predicts ``1`` iff ``P(y >= b | x) >= P(y <= a | x)`` under
``y ~ N(x'b_hat, sigma_hat^2)``; for ``sigma_hat > 0`` that is exactly ``x'b_hat >= (a+b)/2``,
which is how it is implemented (and what it is when ``sigma_hat = 0``, a perfect fit, too).

The least squares fits solve the normal equations of the centred, weighted Gram matrix
``X_S' W X_S - W xbar xbar'`` by its Cholesky factor, taken in the order the columns are
given. Rank-deficient designs (more words than documents, aliased words) follow R's ``lm``:
a column whose squared residual norm, after projecting it on the intercept and the columns
kept before it, is below ``RANK_TOL`` times its own squared norm is aliased and gets the
coefficient 0. **Of two aliased words the earlier one is kept**: in a nested model ``A_c``
the more frequently bagged one (equal frequencies: the one earlier in the vocabulary), along
a lasso path the one that entered first (entering at the same lambda: the one earlier in the
vocabulary). A word's aliasing so depends only on the words before it, and a prefix of the
words is a leading block of the factor: the nested models all truncate one factorisation of
``A_1`` (:meth:`NestedOLS.fit_prefixes`), in time that grows with the words kept, not with
their aliasing. (LAPACK's pivoted ``dpstrf`` would keep the column of the largest residual
first, so that the smaller nested models' words were no longer the factor's first, and each
cost column drops from the middle of the factor.)

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
from ..learners.metrics import misclassification_error

__all__ = ["NestedOLS", "OLSFit", "misclassification", "ols_fit", "predict_class"]

#: relative tolerance on squared residual norms (R's lm: 1e-7 on norms)
RANK_TOL = 1e-10
#: columns per block of the in-order factorisation of a rank-deficient block
_BLOCK = 128
#: columns outside the snapshot of NestedOLS._cross that a product may slice before a rebuild
_SNAPSHOT_SLACK = 32


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
    so that no product visits the others."""

    def __init__(self, X, y, sample_weight=None, rows=None):
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
        self.w, y = w[pos], np.asarray(y, dtype=float)[pos]
        self.W = self.w.sum()
        self.max_rank = len(pos) - 1  # after centring
        self.ybar = self.w @ y / self.W
        self.r = self.w * (y - self.ybar)
        self.held: list[int] = []  # columns in factor order, aliased ones included
        self.kept = np.zeros(0, bool)  # per held column: in the factor (not aliased)
        # the lower Cholesky factor, exactly t x t and C-contiguous: solve_triangular hands
        # its transpose to LAPACK as it is (a slice of a larger array would be copied)
        self.L = np.zeros((0, 0))
        self.z = np.zeros(0)  # L^-1 X'W(y - ybar) over the factor's columns
        self.xbar = np.zeros(0)  # weighted column means over the factor's columns
        self._snap = np.zeros(0, np.intp)  # the columns of the CSR snapshot (_cross)
        self._snap_at = np.full(X.shape[1], -1, np.intp)  # their positions in it
        self._snap_r = sp.csr_matrix((len(pos), 0))

    @property
    def t(self) -> int:
        """The number of columns in the factor."""
        return len(self.z)

    def fit(self, columns) -> OLSFit:
        columns = np.asarray(columns, dtype=np.intp)
        unique, first = np.unique(columns, return_index=True)  # a repeat of a column gets 0
        gone = np.flatnonzero(~np.isin(self.held, unique))
        if len(gone):
            self._remove(gone.tolist())
        new = columns[np.sort(first)]
        new = new[~np.isin(new, self.held)]
        if len(new):
            self._append(new)
        beta = self._beta(self.t)
        coef = np.zeros(len(columns))
        coef[first[np.searchsorted(unique, np.asarray(self.held, np.intp)[self.kept])]] = beta
        return OLSFit(columns, coef, float(self.ybar - self.xbar @ beta), self.t)

    def fit_prefixes(self, order, sizes) -> dict:
        """``{size: fit of order[:size]}``: ``order`` is factored once, and each prefix
        truncates that factor (by the in-order rule, a word's aliasing depends only on the
        words before it, so the prefix's aliased words are the longest one's). On a fresh
        model."""
        order, sizes = np.asarray(order, dtype=np.intp), sorted({int(s) for s in sizes})
        longest = order[:max(sizes, default=0)]
        self.fit(longest)
        # the factor holds the kept words in the order given: their positions in it
        kept_at = np.flatnonzero(np.isin(longest, np.asarray(self.held)[self.kept]))
        fits = {}
        for size in sizes:
            t = int(np.searchsorted(kept_at, size))  # the kept words among the first `size`
            beta = self._beta(t)
            coef = np.zeros(size)
            coef[kept_at[:t]] = beta
            fits[size] = OLSFit(order[:size], coef, float(self.ybar - self.xbar[:t] @ beta), t)
        return fits

    def _beta(self, t: int) -> np.ndarray:
        """The coefficients of the first ``t`` columns of the factor (alone)."""
        if t == 0:
            return np.zeros(0)
        L = self.L if t == self.t else self.L[:t, :t]
        return sla.solve_triangular(L, self.z[:t], lower=True, trans="T", check_finite=False)

    def _cross(self, Xn, WXn, held):
        """``X[:, held + new]' W X_n`` as a dense (len(held) + k, k) array (``X_n`` the k new
        columns). The held columns of a snapshot (a CSR copy of the columns held at its last
        rebuild) come from the new columns' rows times the snapshot's, a product that visits
        only those rows and, in them, only the snapshot's columns; the other held columns
        from a slice of them. The snapshot is rebuilt once more than a quarter of the held
        columns are outside it, so that its copies cost a few times the held columns'
        non-zeros over a whole path (a path's active sets change little from one lambda to
        the next)."""
        at = self._snap_at[held]
        fresh = at < 0
        if fresh.sum() > max(_SNAPSHOT_SLACK, len(held) // 4):
            self._snap_at[self._snap] = -1
            self._snap = held
            self._snap_at[held] = np.arange(len(held))
            self._snap_r = self.X[:, held].tocsr()
            at, fresh = self._snap_at[held], np.zeros(len(held), bool)
        out = np.empty((len(held) + WXn.shape[1], WXn.shape[1]))
        if not fresh.all():
            out[:len(held)][~fresh] = (WXn.T.tocsr() @ self._snap_r).toarray()[:, at[~fresh]].T
        if fresh.any():
            out[:len(held)][fresh] = (self.X[:, held[fresh]].T @ WXn).toarray()
        out[len(held):] = (Xn.T @ WXn).toarray()
        return out

    def _append(self, new):
        Xn = self.X[:, new]
        WXn = Xn.copy()
        WXn.data *= self.w[WXn.indices]
        WXn.eliminate_zeros()
        W = self.W
        xbar_n = np.asarray(WXn.sum(axis=0)).ravel() / W
        kept_cols = np.asarray(self.held, dtype=np.intp)[self.kept]
        cross = self._cross(Xn, WXn, kept_cols)  # (t + k, k), raw
        t = self.t
        G_kn = cross[:t] - W * np.outer(self.xbar, xbar_n)
        G_nn = cross[t:] - W * np.outer(xbar_n, xbar_n)
        g_n = np.asarray(Xn.T @ self.r).ravel()
        norms = np.diag(cross[t:]).copy()  # uncentred: lm's intercept comes first
        B = (sla.solve_triangular(self.L, G_kn, lower=True, check_finite=False)
             if t else G_kn[:0])
        S = G_nn - B.T @ B  # the new columns' Gram, orthogonal to the columns held
        live = np.flatnonzero((norms > 0) & (np.diag(S) > RANK_TOL * norms))
        acc = live[:0]
        if len(live) and t < self.max_rank:
            # the scaled Schur complement, whose pivots are relative: a column stays only if
            # its residual is above RANK_TOL of its own norm, in the given order
            d = np.sqrt(norms[live])
            order, c = _in_order_cholesky(S[np.ix_(live, live)] / np.outer(d, d),
                                          self.max_rank - t)
            acc = live[order]
            Lnew = c * d[order][:, None]
            L = np.zeros((t + len(acc),) * 2)
            L[:t, :t] = self.L
            L[t:, :t] = B[:, acc].T
            L[t:, t:] = Lnew
            self.L = L
            self.z = np.r_[self.z, sla.solve_triangular(
                Lnew, g_n[acc] - B[:, acc].T @ self.z, lower=True)]
            self.xbar = np.r_[self.xbar, xbar_n[acc]]
        aliased = np.setdiff1d(np.arange(len(new)), acc)
        self.held += new[acc].tolist() + new[aliased].tolist()
        self.kept = np.r_[self.kept, np.ones(len(acc), bool), np.zeros(len(aliased), bool)]

    def _remove(self, gone):
        """Drop held columns: trailing ones of the factor by truncating it, the others each by
        a rank-one update of the factor's trailing block (its column's share moves to the
        columns after it); the aliased ones, which a dropped column may have been aliased
        with, are taken out to be appended again."""
        kept_pos = np.cumsum(self.kept) - 1
        drop = set(gone) | set(np.flatnonzero(~self.kept).tolist())
        positions = sorted((int(kept_pos[k]) for k in gone if self.kept[k]), reverse=True)
        t = self.t
        while positions and positions[0] == t - 1:  # trailing columns: truncate
            t -= 1
            positions.pop(0)
        if t < self.t:
            self.L = np.ascontiguousarray(self.L[:t, :t])
            self.z, self.xbar = self.z[:t].copy(), self.xbar[:t].copy()
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
        R[:, :m] = L[i:, i:].T
        R[:, m] = z[i:]
        _, R = sla.qr_delete(np.eye(m), R, 0, which="col", overwrite_qr=True,
                             check_finite=False)
        sign = np.where(np.diag(R[:m - 1, :m - 1]) < 0, -1.0, 1.0)  # a positive diagonal
        new = np.zeros((t - 1, t - 1))
        new[:i, :i] = L[:i, :i]
        new[i:, :i] = L[i + 1:, :i]
        new[i:, i:] = (R[:m - 1, :m - 1] * sign[:, None]).T
        self.L = new
        self.z = np.r_[z[:i], R[:m - 1, m - 1] * sign]
        self.xbar = np.delete(self.xbar, i)


def _in_order_cholesky(S, limit: int):
    """``(kept, c)``: the columns of ``S`` (a Gram matrix scaled to a unit diagonal) that the
    in-order rule keeps, at most ``limit`` of them, and the lower Cholesky factor of their
    block. Column ``j`` is kept iff its pivot (its squared residual on the columns kept before
    it, relative to its squared norm) is above ``RANK_TOL``. One LAPACK ``dpotrf`` when every
    column passes; else a blocked right-looking factorisation, in place in ``S``, with
    ``dpotrf`` on each block whose columns all pass and column by column in the others, which
    skips the aliased columns. (LAPACK's pivoted ``dpstrf`` would reorder the columns, so that
    another word than the rule's got the zero and a prefix of the words was no longer a
    leading block of the factor.)"""
    k = len(S)
    c, info = sla.lapack.dpotrf(S, lower=1, clean=1)
    if info == 0 and np.all(np.diag(c) ** 2 > RANK_TOL):
        m = min(k, limit)
        return np.arange(m), c[:m, :m]
    del c
    keep = np.zeros(k, bool)
    for start in range(0, k, _BLOCK):
        stop = min(start + _BLOCK, k)
        room = limit - int(keep.sum())
        block, info = sla.lapack.dpotrf(S[start:stop, start:stop], lower=1, clean=1)
        if info == 0 and np.all(np.diag(block) ** 2 > RANK_TOL) and stop - start <= room:
            keep[start:stop] = True
        else:
            block = _in_order_block(S[start:stop, start:stop], room)
            keep[start:stop] = np.diag(block) > 0
        S[start:stop, start:stop] = block
        kb = np.flatnonzero(keep[start:stop]) + start
        if stop < k and len(kb):  # the rows below the block, and their Schur complement
            L21 = sla.solve_triangular(S[np.ix_(kb, kb)], S[stop:, kb].T, lower=True,
                                       check_finite=False).T
            S[stop:, stop:] -= L21 @ L21.T
            S[stop:, kb] = L21
    kept = np.flatnonzero(keep)
    return kept, np.tril(S[np.ix_(kept, kept)])


def _in_order_block(D, room: int) -> np.ndarray:
    """The lower factor of one block ``D`` column by column, a column kept iff its pivot is
    above ``RANK_TOL`` and fewer than ``room`` are kept; the columns not kept are 0."""
    L = np.tril(D)
    kept = 0
    for j in range(len(D)):
        col = L[j:, j] - L[j:, :j] @ L[j, :j]  # the columns not kept are 0 in L
        if col[0] > RANK_TOL and kept < room:
            L[j:, j] = col / np.sqrt(col[0])
            kept += 1
        else:
            L[j:, j] = 0.0
    return L


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
#: :mod:`textsift.learners.metrics`, under the paper's name.
misclassification = misclassification_error
