"""The data-shared lasso of Gross and Tibshirani by the augmented design (as in the AdaBag
paper's model).

``Z = [X | X_1 | ... | X_G | E]`` where ``X_g`` is ``X`` with the rows outside group ``g``
zeroed (Gross and Tibshirani's block-diagonal, without sorting rows) and ``E`` the indicators
of groups 2..G (unpenalised group intercepts; the shared intercept is the solver's). With
penalty factors ``(w, r_1 w, ..., r_G w, 0)`` the lasso on ``Z`` is the adaptive DSL (paper
eq. 2.5): ``lambda (||w o beta||_1 + sum_g r_g ||w o Delta_g||_1)``. One group (the pooled
case) needs no augmentation: the DSL is then the adaptive lasso on ``X``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._choices import SCHEMES  # the group-weight schemes (group_weights)
from ..errors import TextsiftError

__all__ = ["SCHEMES", "SharedDesign", "group_weights"]



def group_weights(n_g, scheme: str = "ws3") -> np.ndarray:
    """The group weights ``r_g`` of schemes WS1-WS6 from group sizes ``n_g`` (``N = sum n_g``):

    WS1 ``sqrt(1/G)``; WS2 ``sqrt(n_g/N)``; WS3 ``sqrt(log n_g / log N)``;
    WS4 ``log n_g / log N``; WS5 ``sqrt(log N / log n_g)``; WS6 ``sqrt(log n_g N / (log N n_g))``.
    """
    scheme = str(scheme).lower()
    if scheme not in SCHEMES:
        raise TextsiftError(f"unknown weighting scheme {scheme!r}; choose one of ws1..ws6")
    n = np.asarray(n_g, dtype=float)
    if n.ndim != 1 or n.size == 0 or np.any(n < 2):
        raise TextsiftError("group weights need at least one group, each with >= 2 documents "
                         "(log n_g must be positive)")
    N, G = n.sum(), n.size
    ratio = np.log(n) / np.log(N)
    return {
        "ws1": np.full(G, np.sqrt(1 / G)),
        "ws2": np.sqrt(n / N),
        "ws3": np.sqrt(ratio),
        "ws4": ratio,
        "ws5": np.sqrt(1 / ratio),
        "ws6": np.sqrt(ratio * N / n),
    }[scheme]


@dataclass
class SharedDesign:
    """The augmented design of one set of rows and how to read its coefficients back.

    ``groups`` holds codes ``0..G-1``; ``r`` the group weights. ``Z`` is CSC.
    """

    Z: sp.csc_matrix
    penalty_factor: np.ndarray
    n_features: int
    n_groups: int

    @classmethod
    def build(cls, X, groups, weights, r) -> SharedDesign:
        X = sp.csr_matrix(X, dtype=np.float64)
        groups = np.asarray(groups)
        weights = np.asarray(weights, dtype=float)
        G = len(r)
        if weights.shape != (X.shape[1],):
            raise TextsiftError("one adaptive weight per feature is needed")
        if groups.shape != (X.shape[0],) or groups.min() < 0 or groups.max() >= G:
            raise TextsiftError(f"groups must be codes 0..{G - 1}, one per row")
        if G == 1:
            return cls(sp.csc_matrix(X), weights.copy(), X.shape[1], 1)
        blocks = [X]
        for g in range(G):
            blocks.append(sp.diags((groups == g).astype(float)) @ X)
        ind = sp.csr_matrix((np.ones(X.shape[0]), (np.arange(X.shape[0]), groups)),
                            shape=(X.shape[0], G))[:, 1:]
        Z = sp.hstack(blocks + [ind], format="csc")
        pf = np.concatenate([weights] + [r[g] * weights for g in range(G)] + [np.zeros(G - 1)])
        return cls(Z, pf, X.shape[1], G)

    def group_supports(self, coef) -> list[np.ndarray]:
        """Per group ``g``, the words with ``beta_j + Delta_gj != 0`` (the AdaBag paper's support
        of group ``g``), sorted; ``coef`` a sparse column or a dense vector over the columns of
        ``Z``."""
        coef = sp.csc_matrix(coef if sp.issparse(coef) else np.reshape(coef, (-1, 1)))
        idx, val = coef.indices, coef.data
        p = self.n_features
        shared = idx < p
        if self.n_groups == 1:
            return [np.sort(idx[shared & (val != 0)])]
        out = []
        for g in range(self.n_groups):
            own = (idx >= p * (g + 1)) & (idx < p * (g + 2))
            words = np.r_[idx[shared], idx[own] - p * (g + 1)]
            total = np.bincount(words, np.r_[val[shared], val[own]], minlength=p)
            out.append(np.flatnonzero(total))
        return out
