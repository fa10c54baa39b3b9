"""The evidence behind each ranked term: its counts, its p-value and adjusted p-value, its
effect size with a confidence interval (``textsift score --evidence``).

:func:`evidence` takes a :class:`~textsift.selection.ranking.TermRanking` and writes, for each
ranked
term and the class it was ranked for (the ranking's class; under ``max`` the class that gave
the term its score; under ``rr`` the class that took it):

* ``A``, ``B``, ``C``, ``D`` -- the documents of the class with and without the term, and of
  the reference (the documents without the class) with and without it; for a method that
  reads term frequencies also ``TF`` and ``TF_rest``, its summed weight in the class and in
  the reference;
* ``p`` -- the method's own p-value (:func:`textsift.scores.pvalues`), and ``q`` -- the
  p-value adjusted by ``correction`` over ``family`` (:mod:`textsift.evidence.corrections`; the
  family is the whole vocabulary of the class, or of every class, not only the terms shown);
* the effect sizes of :mod:`textsift.scores.effects` with their intervals at ``level``.

A method with one score per term (``ig_multi``, ``chi2_multi``, ``mann_whitney``, ...) tests
the term against every class at once: its rows have the term's ``df`` and ``p``/``q``, and
the counts and effect sizes of a class only when the ranking is a class's.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._choices import CORRECTION, FAMILY, PASS_RULES
from ..counting.counts import Counts
from ..errors import TextsiftError
from ..scores import Grid, PerClass, ScoreTable, compute, get_method
from ..scores.effects import check_level, effect_sizes
from ..scores.significance import pvalues
from ..selection.ranking import TermRanking, group_index
from .corrections import adjust_table, check_correction, check_family

__all__ = ["adjusted_pvalues", "evidence", "passes", "passing_scores", "passing_terms",
           "rule", "significant_counts", "significant_terms", "smallest_pvalues"]


def adjusted_pvalues(counts: Counts, method, correction: str = CORRECTION, family: str = FAMILY,
                     **params):
    """``(PValues, q)``: the method's p-values and the adjusted ones, ``q`` of the same
    (V, G) shape (:func:`textsift.evidence.corrections.adjust_table`)."""
    p = pvalues(counts, method, **params)
    return p, p.adjusted(correction, family)


def _classes_of(ranking: TermRanking, counts: Counts, method, params) -> np.ndarray:
    """The class (column of ``counts.classes``) each ranked term was ranked for, -1 where
    there is none (a score of the whole table)."""
    classes = [str(c) for c in counts.classes]
    n = len(ranking)
    if ranking.class_label is not None:
        return np.full(n, classes.index(str(ranking.class_label)))
    if ranking.groups is not None:  # a round robin: the class that took each term
        return np.array([classes.index(str(g)) if g is not None and str(g) in classes
                         else -1 for g in ranking.groups])
    table = compute(counts, method, dense=False, **params)
    groups = [str(g) for g in table.groups]
    if len(groups) == 1:
        return np.full(n, -1)
    if ranking.policy != "max":
        raise TextsiftError(
            f"the evidence of a term is that of one class; under the {ranking.policy} policy "
            "a term's score is several classes': rank by a class (--class C) or by max or rr "
            "(the class that gave each term its score, or that took it)")
    rows = np.vstack([table.rows(int(t), int(t) + 1) for t in ranking.index]) if n else (
        np.zeros((0, len(groups))))
    best = np.argmax(rows, axis=1)
    return np.array([classes.index(groups[j]) for j in best])


def evidence(counts: Counts, ranking: TermRanking, method, correction: str = CORRECTION,
             family: str = FAMILY, level: float = 0.95, permuted=None,
             **params) -> pd.DataFrame:
    """The ranking's frame (:meth:`TermRanking.to_frame`) with the evidence of each term
    (module docstring). A method without a p-value has no ``p`` and ``q`` columns, unless
    ``permuted`` (its :class:`~textsift.evidence.permutation.PermutationResult`) gives them: the
    permutation p-values then stand for the method's own."""
    check_level(level)
    m = get_method(method) if isinstance(method, str) else method
    frame = ranking.to_frame()
    index = np.asarray(ranking.index, dtype=np.intp)
    cls = _classes_of(ranking, counts, m, params)
    if ranking.class_label is None and (cls >= 0).any():
        frame["class"] = [counts.classes[c] if c >= 0 else None for c in cls]
    frame["df"] = counts.df[index]
    has = cls >= 0
    if has.any():
        _add_cells(frame, counts, index, cls, has, m, level)
    if permuted is not None:
        values, groups = permuted.pvalues, permuted.groups
        q = adjust_table(values, check_correction(correction), check_family(family))
    elif m.pvalue is not None:
        p, q = adjusted_pvalues(counts, m, correction, family, **params)
        values, groups = p.values, p.groups
    else:
        return frame
    column = _columns_of(groups, counts, cls)
    frame["p"] = values[index, column]
    frame["q"] = q[index, column]
    return frame


def _columns_of(groups, counts: Counts, cls: np.ndarray) -> np.ndarray:
    """The column of a p-value table for each term's class (0 for a one-column table)."""
    if len(groups) == 1:
        return np.zeros(len(cls), dtype=np.intp)
    names = [str(g) for g in groups]
    return np.array([names.index(str(counts.classes[c])) for c in cls], dtype=np.intp)


def _add_cells(frame, counts: Counts, index, cls, has, m, level) -> None:
    A, B, C, D = counts.tables_at(index, np.maximum(cls, 0))
    cells = {"A": A, "B": B, "C": C, "D": D}
    if m.reads_term_freq and counts.term_freq is not None:
        tf = counts.at(index, np.maximum(cls, 0))[1]
        cells["TF"], cells["TF_rest"] = tf, counts.tf[index] - tf
    cells.update(effect_sizes(A, B, C, D, level))
    for name, values in cells.items():
        values = np.asarray(values, dtype=np.float64)
        if name in ("A", "B", "C", "D") and has.all():
            frame[name] = values.astype(np.int64)  # counts as counts
        else:
            frame[name] = np.where(has, values, np.nan)


def significant_counts(counts: Counts, method, alpha: float = 0.05, correction: str = CORRECTION,
                       family: str = FAMILY, direction: str = "over", *, adjusted=None,
                       **params) -> pd.Series:
    """How many terms of each class pass ``alpha`` after ``correction`` (:func:`passes`, the
    rule :func:`significant_terms` keeps them by), counting those of ``direction`` in the
    class only (``"over"``: the class's own terms; ``"both"``: every term). ``adjusted``:
    the adjusted p-values when at hand (:func:`passing_scores`)."""
    from .corrections import check_alpha

    alpha = check_alpha(alpha)
    if adjusted is None:
        adjusted = pvalues(counts, method, **params).adjusted(correction, family, dense=False)
    table = passing_scores(counts, method, alpha, correction, family, direction,
                           adjusted=adjusted, **params)
    if len(adjusted.groups) == 1:  # a test of the whole table (chi2_sklearn): its terms
        passed = [len(table.scored_terms())]
    else:  # (the table's classes: those with documents, as the p-values')
        passed = table.n_scored()
    return pd.Series(passed, index=pd.Index([str(g) for g in adjusted.groups]),
                     name=f"q {rule(correction)} {alpha:g}")


def significant_terms(counts: Counts, method, alpha: float = 0.05, correction: str = CORRECTION,
                      family: str = FAMILY, direction: str = "both",
                      rr_variant: str = "skip", class_label=None,
                      **params) -> tuple[np.ndarray, np.ndarray]:
    """Selection by significance (scikit-learn's ``SelectFpr``, ``SelectFdr`` and
    ``SelectFwe``, for per-class tests too): ``(index, pvalues)``.

    A term is kept in a class when its adjusted p-value passes ``alpha`` -- ``q <= alpha``
    for ``bh``/``by`` (``SelectFdr``'s rule), ``q < alpha`` for ``none``, ``bonferroni`` and
    ``holm`` (``SelectFpr``'s and ``SelectFwe``'s) -- and, with ``direction``, only where it
    has that direction in the class; a term is kept if any class keeps it (only
    ``class_label`` when given: its column's cells). ``index``: the
    kept terms, ordered by a round robin over the classes of the method's scores restricted
    to the kept cells (each class in turn gives its best kept term not yet taken); a test of
    the whole 2 x m table (one column) by its score. ``pvalues``: one per term, as
    scikit-learn's ``pvalues_`` -- a term's smallest p-value over the classes (NaN where it
    has no test; ``class_label``'s own). Zero terms kept is an empty ``index``, not an
    error."""
    from ..scores.direction import check_direction
    from ..selection.policies import rank_terms
    from .corrections import check_alpha

    alpha = check_alpha(alpha)
    check_direction(direction)
    p = pvalues(counts, method, **params)
    table = passing_scores(counts, method, alpha, correction, family, direction, class_label,
                           adjusted=p.adjusted(correction, family, dense=False), **params)
    if isinstance(table, PerClass):  # per distinct table: no (V, m) table written
        return _significant_sparse(table, p.table, class_label, rr_variant)
    values = table.values
    seen = (values > -np.inf).any(axis=1)
    if not seen.any():
        order = np.zeros(0, dtype=np.intp)
    elif values.shape[1] == 1:
        order = np.flatnonzero(seen)[np.argsort(-values[seen, 0], kind="stable")]
    else:
        order = rank_terms(values, "rr", seen, variant=rr_variant,
                           limit=int(seen.sum())).index
    return np.asarray(order[: int(seen.sum())], dtype=np.intp), smallest_pvalues(p, class_label)


def passing_scores(counts: Counts, method, alpha: float, correction: str = CORRECTION,
                   family: str = FAMILY, direction: str = "both", class_label=None, *,
                   adjusted=None, scores=None, **params):
    """The method's scores of ``counts`` where a cell passes ``alpha`` (its adjusted p-value:
    :func:`passes`; with ``direction``, only where the term has that direction in the class;
    with ``class_label``, only in its column), ``-inf`` in every other cell: what selection
    by significance keeps, and in what order each class gives it. A
    :class:`~textsift.scores.PerClass` when the test and the scores are per-class tables in
    sparse form (``chi2``, ``g2``, ``fisher``: held per distinct one-vs-rest table, or cell
    by cell with many labels): the masks are taken on the ``(df, class)`` grid of the absent
    cells and on the non-zero cells, and no (V, m) table is written -- what lets thousands
    of labels be selected by alpha; else a dense :class:`~textsift.scores.ScoreTable`.
    ``adjusted`` and ``scores``: the adjusted p-values (``pvalues(...).adjusted(correction,
    family, dense=False)``) and the scores (``compute(..., dense=False)``) when at hand (one
    of each for several alphas)."""
    from ..scores.direction import direction as direction_table

    if adjusted is None:
        adjusted = pvalues(counts, method, **params).adjusted(correction, family, dense=False)
    groups = adjusted.groups
    col = (None if class_label is None or len(groups) == 1 else
           group_index(groups, class_label, "classes"))
    signs = direction_table(counts) if direction != "both" and len(groups) > 1 else None
    keep = 1 if direction == "over" else -1
    if scores is None:
        scores = compute(counts, method, dense=False, **params)
    sparse = _sparse_parts(adjusted.table, scores, signs)
    if sparse is not None:
        return _passing_sparse(scores.counts, *sparse, alpha, correction, keep, col,
                               scores.signed)
    kept = passes(adjusted.values, alpha, correction)
    if signs is not None:
        kept &= signs.table().values == keep
    if col is not None:
        kept[:, np.arange(len(groups)) != col] = False
    dense = scores.table()
    return ScoreTable(np.where(kept, dense.values, -np.inf), dense.groups, dense.seen,
                      dense.weights, dense.signed)


def _sparse_parts(q, scores, signs):
    """``(q, scores, signs)`` as ``(absent rule, non-zero cells)`` pairs when all three are
    per-class tables whose ``A = 0`` cells follow a (df, class) grid; else None."""
    tables = [t for t in (q, scores, signs) if t is not None]
    if not all(isinstance(t, PerClass) for t in tables):
        return None
    parts = [t.parts for t in tables]
    if not all(isinstance(zero, Grid) for zero, _ in parts):
        return None
    return parts[0], parts[1], parts[2] if signs is not None else None


def _passing_sparse(counts: Counts, q, scores, signs, alpha: float, correction: str,
                    keep: int, col, signed: bool) -> PerClass:
    """:func:`passing_scores` on the absent rules and non-zero cells of ``q``, the scores
    and the direction ``signs`` (``None``: both directions)."""
    (q_zero, q_nz), (s_zero, s_nz) = q, scores
    kept_nz = (q_nz >= 0) & passes(q_nz, alpha, correction)  # -inf: no test
    grid = q_zero.by_class()
    kept_grid = (grid >= 0) & passes(grid, alpha, correction)
    if signs is not None:
        kept_nz &= signs[1] == keep
        kept_grid &= signs[0].by_class() == keep
    if col is not None:
        kept_nz &= counts.cells.col == col
        kept_grid[:, np.arange(counts.n_classes) != col] = False
    zero = Grid(np.where(kept_grid, s_zero.by_class(), -np.inf), s_zero.df_index,
                np.arange(counts.n_classes))
    return PerClass(counts, zero=zero, nz=np.where(kept_nz, s_nz, -np.inf), signed=signed)


def passing_terms(table) -> np.ndarray:
    """The terms (indices) with a cell above ``-inf`` in :func:`passing_scores`' table: those
    that pass in some class (``table.scored_terms()``: on the sparse form from its masks,
    not its (V, m) values)."""
    return table.scored_terms()


def _significant_sparse(table: PerClass, p: PerClass, class_label, rr_variant: str):
    """:func:`significant_terms` from :func:`passing_scores`' sparse table: the kept terms
    (those with a cell above ``-inf``) by a round robin over the classes (or ``class_label``'s
    column's order), and each term's smallest p-value (``p``: the p-values, sparse)."""
    from ..selection import classwise

    counts = table.counts
    n = len(passing_terms(table))
    col = None if class_label is None else group_index(table.groups, class_label, "classes")
    if n == 0:
        order = np.zeros(0, dtype=np.intp)
    elif col is not None:
        order = classwise.top(table, col, n)[0]
    else:
        order = classwise.round_robin(table, n, rr_variant)[0]
    if col is not None:
        smallest = p.column(col)
    else:  # the smallest of a term's p-values: the largest of their negatives
        zero, nz = p.parts
        smallest = -classwise.reduce(
            PerClass(counts, zero=Grid(-zero.grid, zero.df_index, zero.size_index), nz=-nz),
            "max")
    smallest = np.where(counts.seen & np.isfinite(smallest), smallest, np.nan)
    return np.asarray(order[:n], dtype=np.intp), smallest


def passes(q, alpha: float, correction: str) -> np.ndarray:
    """Where the adjusted p-values ``q`` pass ``alpha``: ``q <= alpha`` after ``bh`` or
    ``by`` (scikit-learn's ``SelectFdr``), ``q < alpha`` after ``none``, ``bonferroni`` or
    ``holm`` (``SelectFpr``, ``SelectFwe``); a NaN (no test) never passes."""
    q = np.nan_to_num(q, nan=np.inf)
    return q <= alpha if rule(correction) == "<=" else q < alpha


def rule(correction: str) -> str:
    """How :func:`passes` compares ``q`` with alpha after ``correction``: ``"<="`` or
    ``"<"`` (the correction's own rule, ``textsift._choices.PASS_RULES``)."""
    return PASS_RULES[check_correction(correction)]


def smallest_pvalues(p, class_label=None) -> np.ndarray:
    """One p-value per term, as scikit-learn's ``pvalues_``: a term's smallest p-value over
    the groups of ``p`` (a :class:`~textsift.scores.significance.PValues`), or
    ``class_label``'s; NaN where it has no test."""
    values = p.values
    if class_label is not None and values.shape[1] > 1:
        return values[:, group_index(p.groups, class_label, "classes")].copy()
    tested = ~np.isnan(values)
    return np.where(tested.any(axis=1), np.where(tested, values, np.inf).min(axis=1), np.nan)
