"""PCA + Fisher LDA, the AdaBag paper's baseline, on a sparse matrix.

* Columns that do not vary are dropped; the rest are scaled to unit variance (the paper's
  "centered and scaled", our reading; ``scale=False`` is R ``princomp``'s default). Scaling is
  a sparse column scaling; centring is left implicit to scikit-learn's ``PCA`` (ARPACK on a
  centred ``LinearOperator``), so nothing of size ``n x p`` is densified. With few columns
  (``p <= dense_limit``) the whole spectrum comes from the ``p x p`` covariance
  (``svd_solver="covariance_eigh"``).
* Variance ordering: the smallest prefix of components by decreasing eigenvalue whose
  explained variance reaches the level (20/25/30%).
* Entropy ordering: components by increasing ``H_i = -sum_j u_ij^2 log u_ij^2``, the smallest
  prefix whose summed variance reaches the level. The exact rule needs the whole spectrum;
  with ARPACK only the leading ``max_components`` are known, so the ordering is among those
  (our compromise, reported as ``exact_spectrum = False``).
* Fisher LDA on the scores: ``b = S_w^-1 (m_1 - m_0)``; predict 1 iff
  ``b'v >= b'(m_1 + m_0)/2`` (equal priors: our choice; MASS ``lda`` would use the sample
  priors).

At most ``max_components`` leading components are used by either route (and either ordering);
a level they do not reach is reported with ``n_components = NaN``.
:func:`pca_lda_holdout` runs the baseline on AdaBag's 2:1:1 split (fitted on core +
validation, tested on the test part), pooled and per group, as the paper's Table 2.
"""

from __future__ import annotations

import numbers
import resource
import time

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.decomposition import PCA

from ..errors import TextsiftError

__all__ = ["LEVELS", "fisher_lda", "pca_lda", "pca_lda_holdout", "standardise"]

#: Shares of the variance the leading components must explain (the paper's 20/25/30%).
LEVELS = (0.20, 0.25, 0.30)


def standardise(X, scale: bool = True):
    """``(X_scaled, keep)``: the non-constant columns ``keep`` of ``X``, divided by their
    standard deviation (``ddof=1``) when ``scale``; sparse in, sparse out (not centred)."""
    X = sp.csc_matrix(X, dtype=np.float64)
    n = X.shape[0]
    mean = np.asarray(X.mean(axis=0)).ravel()
    sq = np.asarray(X.multiply(X).mean(axis=0)).ravel()
    var = np.maximum(sq - mean**2, 0.0) * n / max(n - 1, 1)
    keep = np.flatnonzero(var > 1e-12)
    if len(keep) == 0:
        raise TextsiftError("every column is constant: there is nothing to decompose")
    Xk = X[:, keep]
    if scale:
        Xk = Xk @ sp.diags(1.0 / np.sqrt(var[keep]))
    return sp.csr_matrix(Xk), keep


def fisher_lda(V, theta):
    """Fisher's discriminant on scores ``V``: returns ``(b, threshold)``."""
    theta = np.asarray(theta)
    if len(np.unique(theta)) != 2:
        raise TextsiftError("Fisher LDA needs both classes in the training rows")
    m1, m0 = V[theta == 1].mean(axis=0), V[theta == 0].mean(axis=0)
    R = np.where((theta == 1)[:, None], V - m1, V - m0)
    Sw = R.T @ R / max(len(theta) - 2, 1)
    b = np.linalg.lstsq(Sw, m1 - m0, rcond=None)[0]
    return b, float(b @ (m1 + m0) / 2)


def _entropy(components):
    u2 = components**2
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.sum(np.where(u2 > 0, u2 * np.log(u2), 0.0), axis=1)


def pca_lda(X_train, theta_train, X_test, theta_test, levels=LEVELS, scale: bool = True,
            max_components: int = 300, dense_limit: int = 2000, seed: int = 0) -> pd.DataFrame:
    """Test misclassification of PCA + Fisher LDA per variance level and ordering.

    Returns a DataFrame with ``level, ordering, n_components, test_error, exact_spectrum,
    seconds, peak_rss_mib`` (time and peak resident memory of the whole computation)."""
    if not isinstance(max_components, numbers.Integral) or max_components < 1:
        raise TextsiftError(f"max_components must be an integer >= 1, got {max_components!r}")
    start = time.perf_counter()
    Xs, keep = standardise(X_train, scale)
    n, p = Xs.shape
    dense = p <= dense_limit  # the whole spectrum from the p x p covariance
    k = min(max_components, p, n - 1) if dense else min(max_components, min(n, p) - 1)
    if k < 1:
        raise TextsiftError("too few rows or columns for PCA")
    exact = dense and k == min(p, n - 1)  # every component known: the exact entropy order
    pca = PCA(n_components=k, svd_solver="covariance_eigh" if dense else "arpack",
              random_state=seed).fit(Xs)
    Xt = sp.csc_matrix(X_test, dtype=np.float64)[:, keep]
    if scale:
        Xt = Xt @ sp.diags(np.asarray(1.0 / np.sqrt(_col_var(X_train, keep))))
    S_train, S_test = pca.transform(Xs), pca.transform(sp.csr_matrix(Xt))
    ratio = pca.explained_variance_ratio_
    orders = {"variance": np.arange(k),
              "entropy": np.argsort(_entropy(pca.components_), kind="stable")}
    rows = []
    for ordering, order in orders.items():
        cum = np.cumsum(ratio[order])
        for level in levels:
            hit = np.flatnonzero(cum >= level - 1e-12)
            if len(hit) == 0:
                rows.append((level, ordering, np.nan, np.nan))
                continue
            cols = order[: hit[0] + 1]
            b, t = fisher_lda(S_train[:, cols], theta_train)
            pred = (S_test[:, cols] @ b >= t).astype(int)
            rows.append((level, ordering, len(cols), float(np.mean(pred != theta_test))))
    out = pd.DataFrame(rows, columns=["level", "ordering", "n_components", "test_error"])
    out["exact_spectrum"] = exact
    out["explained_by_computed"] = float(ratio.sum())
    out["seconds"] = time.perf_counter() - start
    out["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def pca_lda_holdout(X, y, a, b, groups=None, seed: int = 0, **options) -> pd.DataFrame:
    """:func:`pca_lda` on AdaBag's 2:1:1 split of the rows outside ``(a, b)`` (class
    ``1[y >= b]``): fitted on core + validation, tested on the test part; pooled, and per group
    when ``groups`` are given (column ``group``). ``options`` go to :func:`pca_lda`."""
    from ..lasso.adabag import label_rows, split_211

    keep, theta, labels, gcode = label_rows(y, a, b, groups)
    X = sp.csr_matrix(X)[keep]
    part = split_211(theta, gcode, seed, grouped=groups is not None)
    runs = [("pooled", np.ones(len(theta), bool))]
    if groups is not None:
        runs += [(str(label), gcode == g) for g, label in enumerate(labels)]
    tables = []
    for name, rows in runs:
        tr, te = rows & (part < 2), rows & (part == 2)
        table = pca_lda(X[tr], theta[tr], X[te], theta[te], seed=seed, **options)
        tables.append(table.assign(group=name, n_train=int(tr.sum()), n_test=int(te.sum())))
    return pd.concat(tables, ignore_index=True)


def _col_var(X, keep):
    X = sp.csc_matrix(X, dtype=np.float64)[:, keep]
    n = X.shape[0]
    mean = np.asarray(X.mean(axis=0)).ravel()
    sq = np.asarray(X.multiply(X).mean(axis=0)).ravel()
    return np.maximum(sq - mean**2, 0.0) * n / max(n - 1, 1)
