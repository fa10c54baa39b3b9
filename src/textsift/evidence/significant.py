"""Selection by significance: the terms whose adjusted p-value passes alpha in a class
(scikit-learn's ``SelectFpr``, ``SelectFdr`` and ``SelectFwe``, for per-class tests too).

:func:`significant_terms` keeps them, in a round robin over the classes of the method's
scores, with one p-value per term (:func:`smallest_pvalues`, scikit-learn's ``pvalues_``);
:func:`significant_counts` counts them by class. Both read :func:`passing_scores` -- the
method's scores where a cell passes (:func:`passes`: ``q <= alpha`` after ``bh``/``by``, ``q <
alpha`` after the others, :func:`rule`), ``-inf`` elsewhere, no (V, m) table written for the
tests held by their cells. By chi2, passing terms whose 2 x 2 table has an expected count below
Cochran's :data:`MIN_EXPECTED` (:func:`expected_minimum`) are warned about
(:func:`check_expected_counts`). The evidence of a ranking's terms (counts, p, q, effect
sizes) is :mod:`textsift.evidence.terms`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._choices import CORRECTION, DEFAULT_ALPHA, FAMILY, PASS_RULES
from ..counting.counts import Counts
from ..labels import group_index
from ..scores import compute
from ..scores.significance import pvalues
from .corrections import check_correction

__all__ = ["MIN_EXPECTED", "SMALL_COUNT_TESTS", "check_expected_counts", "expected_minimum",
           "passes", "passing_scores", "passing_terms", "rule", "significant_counts",
           "significant_terms", "smallest_pvalues"]


def significant_counts(counts: Counts, method, alpha: float = DEFAULT_ALPHA,
                       correction: str = CORRECTION,
                       family: str = FAMILY, direction: str = "over", *, adjusted=None,
                       **params) -> pd.Series:
    """How many terms of each class pass ``alpha`` after ``correction`` (:func:`passes`, the
    rule :func:`significant_terms` keeps them by), counting those of ``direction`` in the
    class only (``"over"``: the class's own terms; ``"both"``: every term). ``adjusted``:
    the adjusted p-values when at hand (:func:`passing_scores`). By chi2 (without
    ``yates``), passing terms with an expected count below 5 warn
    (:func:`check_expected_counts`)."""
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
    if _name_of(method) in SMALL_COUNT_TESTS and not params.get("yates"):
        check_expected_counts(counts, np.asarray(table.scored_terms(), dtype=np.intp),
                              adjusted, alpha)
    return pd.Series(passed, index=pd.Index([str(g) for g in adjusted.groups]),
                     name=f"q {rule(correction)} {alpha:g}")


def significant_terms(counts: Counts, method, alpha: float = DEFAULT_ALPHA,
                      correction: str = CORRECTION,
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
    error. By chi2 (without ``yates``), kept terms whose 2 x 2 table has an expected count
    below 5 are warned about (:func:`check_expected_counts`)."""
    from ..scores.direction import check_direction
    from ..selection.policies import order as rank_order
    from .corrections import check_alpha

    alpha = check_alpha(alpha)
    check_direction(direction)
    p = pvalues(counts, method, **params)
    table = passing_scores(counts, method, alpha, correction, family, direction, class_label,
                           adjusted=p.adjusted(correction, family, dense=False), **params)
    n = len(table.scored_terms())
    col = _column(table.groups, class_label)
    if n == 0:
        order = np.zeros(0, dtype=np.intp)
    elif len(table.groups) == 1 and table.signed:  # a signed score (mann_whitney's z) by its
        values = table.column(0)  # size: two-sided, as its test is
        order = rank_order(np.where(values > -np.inf, np.abs(values), -np.inf), table.seen, n)
    elif col is not None or len(table.groups) == 1:
        order = table.top_many([col or 0], n)[0][0]
    else:
        order = table.rank_rr(rr_variant, limit=n).index
    index = np.asarray(order[:n], dtype=np.intp)
    if _name_of(method) in SMALL_COUNT_TESTS and not params.get("yates"):
        check_expected_counts(counts, index, p, alpha, class_label)
    return index, smallest_pvalues(p, class_label)


def _column(groups, class_label) -> int | None:
    """``class_label``'s column of a per-class table; None without one, or for a table of
    one column (a test of the whole 2 x m table)."""
    if class_label is None or len(groups) == 1:
        return None
    return group_index(groups, class_label, "classes")


#: The tests whose p-values are a large-sample approximation of the 2 x 2 table's, which
#: small expected counts make too small: :func:`check_expected_counts` warns for them.
SMALL_COUNT_TESTS = ("chi2",)
#: Cochran's rule: the chi-square approximation of a 2 x 2 table holds when every expected
#: count is at least this.
MIN_EXPECTED = 5


def _name_of(method) -> str | None:
    name = getattr(method, "name", method)
    return name if isinstance(name, str) else None


def expected_minimum(counts: Counts, terms, class_index=None) -> np.ndarray:
    """The smallest expected count of each term's one-vs-rest 2 x 2 table, ``min(df, N - df)
    * min(N_c, N - N_c) / N`` (the margins' product over ``N``), in class ``class_index``'s
    table; without it, the largest over the classes (so a term counted below
    :data:`MIN_EXPECTED` is below it in every class's table)."""
    n = counts.n_docs
    df = np.asarray(counts.df, dtype=np.float64)[np.asarray(terms, dtype=np.intp)]
    sizes = np.asarray(counts.class_sizes, dtype=np.float64)
    side = np.minimum(sizes, n - sizes)
    side = side[class_index] if class_index is not None else side.max(initial=0.0)
    return np.minimum(df, n - df) * side / n


#: What the warning of :func:`check_expected_counts` offers, unless its caller says.
SMALL_COUNT_FIXES = ("use Fisher's exact test (method 'fisher', --method fisher) or Yates' "
                     "continuity correction (yates=True, --yates); or keep the terms of enough "
                     "documents (min_df, --min-df)")


def check_expected_counts(counts: Counts, index, p, alpha: float, class_label=None,
                          fixes: str = SMALL_COUNT_FIXES) -> None:
    """Warn (:class:`~textsift.errors.DataWarning`) when terms that pass ``alpha`` by chi2's
    p-values have an expected count below :data:`MIN_EXPECTED` in their 2 x 2 table
    (Cochran, "Some methods for strengthening the common chi-square tests", Biometrics 10
    (1954) 417-451), where Pearson's large-sample approximation overstates significance: a
    term in one document of a class of 593 among 11,314 gets p = 2.1e-5, where Yates'
    correction gives 0.045 and Fisher's exact test 0.052 (``docs/guide/evidence.md``
    measures it on 20 Newsgroups and GoEmotions). The warning names how many, the rarest
    passing term's three p-values, and the fixes; the selection is unchanged. ``index``: the
    passing terms; ``p``: their p-values (or the adjusted ones), which pick the class of the
    example without ``class_label``; ``fixes``: what to do, in the caller's words (a command
    without ``--yates`` names what it has)."""
    import warnings

    from ..errors import DataWarning
    from ..scores.contingency import chi2_2x2_pvalue, fisher_pvalue

    if not len(index):
        return
    col = (None if class_label is None or counts.n_classes == 1 else
           group_index(counts.classes, class_label, "classes"))
    small = expected_minimum(counts, index, col) < MIN_EXPECTED
    if not small.any():
        return
    rare = int(index[np.argmin(np.asarray(counts.df)[index])])
    groups = [str(g) for g in p.groups]
    if col is not None:
        cls = col
    else:  # the class where the rarest term's p-value is smallest
        row = np.asarray(p.table.rows(rare, rare + 1), dtype=np.float64).ravel()
        row = np.where(np.isneginf(row), np.inf, row)  # -inf: no test
        best = groups[int(np.argmin(row))] if len(groups) > 1 else None
        cls = None if best is None else group_index(counts.classes, best)
    example = ""
    if cls is not None:
        A, B, C, D = counts.tables_at(rare, cls)
        chi, yates = (float(chi2_2x2_pvalue(A, B, C, D, y)[0]) for y in (False, True))
        exact = float(fisher_pvalue(A, B, C, D)[0])
        term = (repr(str(counts.feature_names[rare])) if counts.feature_names is not None
                else f"term {rare}")
        example = (f" The rarest, {term} (in {int(A[0] + B[0]):,} "
                   f"document(s), {int(A[0]):,} of class {counts.classes[cls]!r}), passes "
                   f"with p = {chi:.2g}, where Yates' correction gives {yates:.2g} and "
                   f"Fisher's exact test {exact:.2g}.")
    warnings.warn(
        f"{int(small.sum()):,} of the {len(index):,} terms that pass alpha {alpha:g} by "
        f"chi2 have an expected count below {MIN_EXPECTED} in their 2 x 2 table (terms in "
        "few documents), where chi2's p-value (Pearson's large-sample approximation) can "
        f"be far too small.{example} For p-values that hold there, {fixes}",
        DataWarning, stacklevel=3)


def passing_scores(counts: Counts, method, alpha: float, correction: str = CORRECTION,
                   family: str = FAMILY, direction: str = "both", class_label=None, *,
                   adjusted=None, scores=None, **params):
    """The method's scores of ``counts`` where a cell passes ``alpha`` (its adjusted p-value:
    :func:`passes`; with ``direction``, only where the term has that direction in the class;
    with ``class_label``, only in its column), ``-inf`` in every other cell: what selection
    by significance keeps, and in what order each class gives it. A
    :class:`~textsift.scores.ScoreTable` in the scores' storage: for per-class tests held by
    their cells (``chi2``, ``g2``, ``fisher``) the masks are taken on the ``(df, class)``
    grid of the absent cells and on the non-zero cells (:meth:`ScoreTable.combine
    <textsift.scores.ScoreTable.combine>`), and no (V, m) table is written -- what lets
    thousands of labels be selected by alpha. ``adjusted`` and ``scores``: the adjusted
    p-values (``pvalues(...).adjusted(correction, family, dense=False)``) and the scores
    (``compute(..., dense=False)``) when at hand (one of each for several alphas)."""
    from ..scores.direction import direction as direction_table

    if adjusted is None:
        adjusted = pvalues(counts, method, **params).adjusted(correction, family, dense=False)
    if scores is None:
        scores = compute(counts, method, dense=False, **params)
    groups = adjusted.groups
    q = adjusted.table

    keep = 1 if direction == "over" else -1
    if direction != "both" and len(groups) > 1:
        table = scores.combine(lambda s, q, sign: np.where(
            (q >= 0) & passes(q, alpha, correction) & (sign == keep), s, -np.inf),
            q, direction_table(counts))
    elif direction != "both" and scores.signed:  # one signed column (mann_whitney): its sign
        table = scores.combine(lambda s, q: np.where(
            (q >= 0) & passes(q, alpha, correction) & (np.sign(s) == keep), s, -np.inf), q)
    else:
        table = scores.combine(lambda s, q: np.where(
            (q >= 0) & passes(q, alpha, correction), s, -np.inf), q)
    col = _column(groups, class_label)
    return table if col is None else table.only(col)


def passing_terms(table) -> np.ndarray:
    """The terms (indices) with a cell above ``-inf`` in :func:`passing_scores`' table: those
    that pass in some class (``table.scored_terms()``: for a table held by its cells, from
    its masks, not its (V, m) values)."""
    return table.scored_terms()


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
    ``class_label``'s; NaN where it has no test. Read through the table's operations (a
    column, the ``max`` of the negated p-values): no (V, m) table is written."""
    table = p.table
    col = _column(table.groups, class_label)
    if col is not None:
        smallest = table.column(col)
    else:  # the smallest of a term's tested p-values: the largest of their negatives
        smallest = -table.combine(lambda q: np.where(q >= 0, -q, -np.inf)).reduce("max")
    return np.where(table.seen & np.isfinite(smallest) & (smallest >= 0), smallest, np.nan)
