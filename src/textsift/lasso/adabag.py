"""The steps of AdaBag, the data-shared adaptive bootstrap-aggregated lasso (the AdaBag
paper's algorithm), which :class:`~textsift.lasso.AdaBagClassifier` composes; *ours* marks a
choice of textsift's where the paper is silent or ambiguous:

1. Labels ``theta = 1[y >= b]`` for ``y >= b``, ``0`` for ``y <= a`` (rows between are dropped);
   a stratified split within each class x group cell (*ours*; :func:`split_cells`: core and
   validation 2:1 in the estimator, core, validation and test 2:1:1 in the paper's protocol).
2. For ``l = 1..B``, :class:`BootstrapTask`: a bootstrap of the core set (within class x group
   strata), the adaptive data-shared lasso path on it (:mod:`.shared`, :mod:`.path`); at each
   lambda a per-group OLS refit on the group's active words and classifier (2.2) on the
   validation set; ``lambda*_l`` minimises the validation ME (ties: larger lambda); ``S_l`` =
   union of the group supports at ``lambda*_l`` (or, with ``lambda_selection="1se"``, *ours*, at
   the largest lambda whose ME is within one binomial standard error of the minimum). The path
   stops once the ME has passed its minimum (*ours*): no improvement for ``patience`` lambdas and
   now more than one standard error above the minimum (a later, lower minimum would need the
   error to fall back after rising that long and that far; a plateau at the minimum does not
   stop it; ``None`` runs the whole grid), or past ``max_active`` non-zero coefficients. (The
   ME is the paper's criterion; another one, and class weights on the rows, are
   :mod:`~textsift.lasso.skew`'s: the same steps with its loss and its standard error.) The
   grid is ``n_lambdas`` values down to ``min_ratio`` of ``lambda_max`` (*ours*; glmnet's 1e-2
   for n < p ends at about 300 IMDb words, before the validation minimum).
3. Bagging frequencies ``f(w) = #{l : w in S_l}``; nested models ``A_c = {w : f(w) >= c}``.
4. For each ``c``, :func:`nested_models`: OLS on ``A_c`` fitted on the core set (*ours*), ME on
   the validation set; :func:`choose_cutoff`: ``c*`` minimises it (ties: larger ``c``), on the
   raw curve or a loess fit of it, or, with ``"1se"`` (*ours*), ``c*`` is the largest ``c``
   whose ME is within one binomial standard error ``sqrt(ME(1-ME)/|V|)`` of the minimum.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from ..errors import TextsiftError
from ..labels.ranks import check_thresholds
from .classifier import NestedOLS, predict_class
from .path import lambda_grid, lasso_path
from .skew import CRITERIA

__all__ = ["BOOTSTRAP_STAGES", "BootstrapTask", "NestedModels", "assemble", "bootstrap_seconds",
           "choose_cutoff", "label_rows", "loess", "nested_models", "nested_order",
           "split_211", "split_cells"]


def label_rows(y, a, b, groups=None):
    """``(keep, theta, labels, gcode)``: the rows outside ``(a, b)``, their class
    ``1[y >= b]``, the group labels and each kept row's group code. Bad input (no ratings,
    ``a`` below or ``b`` above every rating, so that a class has no row, a group with one
    class) is an error naming the parameter and the ratings present."""
    y = np.asarray(y, dtype=float)
    check_thresholds(y, a, b)
    keep = (y <= a) | (y >= b)  # both classes have rows: a >= min(y), b <= max(y)
    theta = (y[keep] >= b).astype(np.int8)
    groups = np.zeros(len(y), np.int8) if groups is None else np.asarray(groups)
    if groups.shape != y.shape:
        raise TextsiftError(f"groups has {groups.size} values for {len(y)} rows")
    labels, gcode = np.unique(groups[keep], return_inverse=True)
    for g, label in enumerate(labels):
        present = np.unique(theta[gcode == g])
        if len(present) < 2:
            raise TextsiftError(f"groups: group {str(label)!r} has only "
                                f"{'high' if present[0] else 'low'} ratings after "
                                "thresholding; every group needs both classes (merge it with "
                                "another group or leave it out)")
    return keep, theta, labels, gcode.astype(np.int64)


def split_cells(theta, groups, ratios=(2, 1), seed=0, grouped: bool = True) -> np.ndarray:
    """Part of each row (0, 1, ...) in the proportions ``ratios`` within each class x group
    cell: a cell of ``n`` rows is permuted and cut into ``round(n r_0 / sum r)``,
    ``round(n r_1 / sum r)``, ... rows, the last part taking the rest. Every part of every cell
    needs a row (the core at least 2); ``grouped`` says whether the groups came from the user
    (for the message)."""
    theta, groups = np.asarray(theta), np.asarray(groups)
    ratios = np.asarray(ratios, dtype=float)
    rng = np.random.default_rng(seed)
    need = int(np.ceil(ratios.sum() / ratios.min()))
    part = np.empty(len(theta), dtype=np.int8)
    for g in np.unique(groups):
        for c in (0, 1):
            rows = np.flatnonzero((groups == g) & (theta == c))
            if len(rows) < need:
                where = f"group {str(g)!r}, class {c}" if grouped else f"class {c}"
                fix = ("merge small groups or leave out the groups" if grouped else
                       "add documents or move the thresholds a and b")
                raise TextsiftError(f"{where}: {len(rows)} documents; the "
                                    f"{':'.join(str(int(r)) for r in ratios)} split needs at "
                                    f"least {need} of each class in every group ({fix})")
            rows = rng.permutation(rows)
            sizes = [round(len(rows) * r / ratios.sum()) for r in ratios[:-1]]
            for k, chunk in enumerate(np.split(rows, np.cumsum(sizes))):
                part[chunk] = k
    return part


def split_211(theta, groups, seed=0, grouped: bool = True) -> np.ndarray:
    """The paper's 2:1:1 split: 0 core, 1 validation, 2 test (cell of ``n`` rows:
    ``round(n/2)`` core, ``round(n/4)`` validation, the rest test)."""
    return split_cells(theta, groups, (2, 1, 1), seed, grouped)


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


def _within_one_se(errors, n_eval: int) -> float:
    """The bound of the one-standard-error rule: ``min + sqrt(min (1 - min) / n)``."""
    best = float(np.min(errors))
    return best + np.sqrt(best * (1 - best) / n_eval)


class BootstrapTask:
    """One AdaBag bootstrap (module docstring, step 2) as ``task(multiplicities) -> dict``.

    ``design`` is the :class:`~.shared.SharedDesign` of the core rows; ``Xc``/``yc``/``gc`` the
    core rows, ratings and group codes; ``Xv``/``tv``/``gv`` the validation rows, classes and
    group codes; ``row_weight`` the core rows' class weights (multiplying the multiplicities;
    ``None``: 1); ``criterion`` the validation :class:`~.skew.Criterion`."""

    def __init__(self, design, Xc, yc, gc, Xv, tv, gv, a, b, *, n_lambdas=100, min_ratio=1e-3,
                 backend="adelie", patience=None, max_active=None, lambda_selection="min",
                 row_weight=None, criterion=CRITERIA["misclassification"]):
        self.design, self.yc, self.gc = design, yc, gc
        # one group: the design is the core matrix itself (CSC), not a second copy of it
        self.Xc = design.Z if design.n_groups == 1 else sp.csc_matrix(Xc, dtype=np.float64)
        self.tv, self.gv, self.a, self.b = tv, gv, a, b
        self.Xv = [sp.csc_matrix(Xv[gv == g]) for g in range(design.n_groups)]
        self.n_lambdas, self.min_ratio, self.backend = n_lambdas, min_ratio, backend
        self.patience, self.max_active = patience, max_active
        self.lambda_selection = lambda_selection
        self.row_weight, self.criterion = row_weight, criterion

    def validation_prediction(self, supports, refits) -> np.ndarray:
        pred = np.empty(len(self.tv), dtype=np.int8)
        for g, S in enumerate(supports):
            fit = refits[g].fit(S)
            pred[self.gv == g] = predict_class(fit.decision(self.Xv[g]), self.a, self.b)
        return pred

    def __call__(self, m) -> dict:
        start = time.process_time()
        d = self.design
        w = m if self.row_weight is None else m * self.row_weight
        lambdas = lambda_grid(d.Z, self.yc, d.penalty_factor, w, self.n_lambdas, self.min_ratio)
        errors, unions, best = [], [], {"k": -1, "me": np.inf, "bound": np.inf}
        # the sample's rows, sliced once for the path and the refits (rows of weight 0 add
        # nothing to either)
        rows = np.flatnonzero(w > 0)
        Z, y, w, gc = d.Z[rows], self.yc[rows], w[rows], self.gc[rows]
        Xc = Z if d.n_groups == 1 else self.Xc[rows]
        refits = [NestedOLS(Xc, y, w * (gc == g)) for g in range(d.n_groups)]
        clock = np.zeros(4)  # CPU seconds: preparing, the path, the refits, the criterion

        def step(k, coef, intercept):
            t0 = time.process_time()
            supports = d.group_supports(coef)
            pred = self.validation_prediction(supports, refits)
            t1 = time.process_time()
            me = self.criterion.loss(self.tv, pred)
            errors.append(me)
            unions.append(np.unique(np.concatenate(supports)).astype(np.int64))
            if me < best["me"]:  # strict: ties keep the larger lambda
                best.update(k=k, me=me, bound=self.criterion.bound(me, self.tv, pred))
            clock[2:] += (t1 - t0, time.process_time() - t1)
            return (self.patience is not None and k - best["k"] >= self.patience
                    and me > best["bound"])

        clock[0] = time.process_time() - start
        lasso_path(Z, y, d.penalty_factor, w, lambdas, backend=self.backend,
                   max_active=self.max_active, callback=step)
        clock[1] = time.process_time() - start - clock.sum()
        errors = np.asarray(errors)
        k = best["k"]
        if self.lambda_selection == "1se":  # the largest lambda within one SE of the minimum
            k = int(np.flatnonzero(errors <= best["bound"] + 1e-12)[0])
        return {"selected": unions[k], "lambda": lambdas[k], "k": k, "errors": errors,
                "sizes": np.array([len(u) for u in unions]), "lambdas": lambdas[:len(errors)],
                "seconds": clock}


#: The parts of a bootstrap's CPU seconds (:class:`BootstrapTask`'s ``"seconds"``).
BOOTSTRAP_STAGES = ("prepare", "path", "refits", "criterion")


def bootstrap_seconds(bootstraps) -> dict:
    """The CPU seconds of :data:`BOOTSTRAP_STAGES` summed over the bootstraps that recorded
    them (``"bootstraps"``: how many did; a store may hold bootstraps from before)."""
    timed = [b["seconds"] for b in bootstraps if "seconds" in b]
    total = np.sum(timed, axis=0) if timed else np.zeros(len(BOOTSTRAP_STAGES))
    return {"bootstraps": len(timed), **dict(zip(BOOTSTRAP_STAGES, total.tolist(), strict=True))}


def nested_order(frequencies) -> np.ndarray:
    """Words selected at least once, by decreasing bagging frequency (ties: vocabulary order):
    ``A_c`` is the prefix of the words with frequency >= c."""
    f = np.asarray(frequencies)
    order = np.argsort(-f, kind="stable")
    return order[f[order] > 0]


@dataclass
class NestedModels:
    """A linear model on each nested model ``A_c`` (OLS, or :mod:`~.final`'s): ``sizes``
    (``|A_c|`` per cutoff), ``coef`` (per group, a CSR matrix with one row of coefficients per
    cutoff; one group when pooled) and ``intercept`` (groups x cutoffs)."""

    sizes: np.ndarray
    coef: list
    intercept: np.ndarray

    def ratings(self, X, gcode) -> np.ndarray:
        """``(rows, cutoffs)``: the score of each row by each model (its group's): the fitted
        rating (the log-odds of "high" for logistic regression)."""
        X = sp.csr_matrix(X, dtype=np.float64)
        out = np.empty((X.shape[0], len(self.sizes)))
        for g, coef in enumerate(self.coef):
            at = np.arange(X.shape[0]) if len(self.coef) == 1 else np.flatnonzero(gcode == g)
            out[at] = (X[at] @ coef.T).toarray() + self.intercept[g]
        return out

    def errors(self, X, theta, gcode, threshold: float,
               criterion=CRITERIA["misclassification"]) -> np.ndarray:
        """The loss (the ME by default) of each model, "high" iff its score is at least
        ``threshold`` (``(a + b) / 2``: classifier (2.2))."""
        return criterion.losses(theta, self.ratings(X, gcode) >= threshold)


def nested_models(X, y, gcode, fit_rows, frequencies, cutoffs, per_group: bool = False,
                  n_groups: int = 1, X_csc=None, sample_weight=None) -> NestedModels:
    """OLS on ``A_c`` fitted on ``fit_rows`` (pooled, or one model per group) for each cutoff
    ``c``, with the rows weighted by ``sample_weight`` (``None``: 1). The ``A_c`` are prefixes
    of :func:`nested_order`: the largest is factored once, and each smaller one only truncates
    that factor; of two aliased words the more frequently bagged one is kept (equal
    frequencies: the one earlier in the vocabulary; :mod:`~textsift.lasso.classifier`).
    ``X_csc``, the same matrix in CSC, may be passed to share it."""
    if not per_group:
        n_groups = 1
    X = X_csc if X_csc is not None else sp.csc_matrix(X, dtype=np.float64)
    order = nested_order(frequencies)
    f = np.asarray(frequencies)[order]
    sizes = np.array([np.count_nonzero(f >= c) for c in cutoffs])
    rows = [fit_rows] if not per_group else [fit_rows[gcode[fit_rows] == g]
                                             for g in range(n_groups)]
    fits = {}
    with threadpool_limits(1):  # OpenBLAS threads spin when the cores are busy: 10x slower
        for g, r in enumerate(rows):
            prefixes = NestedOLS(X, y, sample_weight, rows=r).fit_prefixes(order, sizes)
            fits.update({(g, size): fit for size, fit in prefixes.items()})
    return assemble(fits, sizes, n_groups, X.shape[1])


def assemble(fits, sizes, n_groups: int, n_features: int) -> NestedModels:
    """The :class:`NestedModels` of ``fits[g, size]`` (fits with ``columns``, ``coef`` and
    ``intercept``), one per group and size, for the cutoffs of ``sizes``."""
    coef, intercept = [], np.empty((n_groups, len(sizes)))
    for g in range(n_groups):
        data, indices, indptr = [], [], [0]
        for k, size in enumerate(sizes):
            fit = fits[g, int(size)]
            data.append(fit.coef)
            indices.append(fit.columns)
            indptr.append(indptr[-1] + len(fit.columns))
            intercept[g, k] = fit.intercept
        coef.append(sp.csr_matrix((np.concatenate(data), np.concatenate(indices), indptr),
                                  shape=(len(sizes), n_features)))
    return NestedModels(sizes, coef, intercept)


def choose_cutoff(cutoffs, errors, n_eval: int, rule: str = "raw", sizes=None,
                  max_features: int | None = None, se=None) -> int:
    """``c*`` by ``rule`` (module docstring, step 4): ``"raw"``, ``"loess"`` or ``"1se"``;
    with ``max_features``, among the cutoffs whose model has at most that many words
    (``sizes``; the largest cutoff when none is that small). ``se``, the standard error of
    each cutoff's loss, replaces the binomial one of ``"1se"`` (another criterion's)."""
    cutoffs = np.asarray(cutoffs)
    curve = loess(cutoffs, errors) if rule == "loess" else np.asarray(errors, float)
    allowed = np.ones(len(cutoffs), bool)
    if max_features is not None:
        allowed = np.asarray(sizes) <= max_features
        if not allowed.any():
            return int(cutoffs[-1])
    bound = curve[allowed].min()
    if rule == "1se":
        bound = (_within_one_se(curve[allowed], n_eval) if se is None else
                 bound + np.asarray(se)[allowed][np.argmin(curve[allowed])])
    return int(cutoffs[np.flatnonzero(allowed & (curve <= bound + 1e-12))[-1]])
