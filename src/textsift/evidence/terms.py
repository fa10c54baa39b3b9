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

Given the ``documents`` behind the counts (:class:`~textsift.evidence.dispersion.Documents`), each
term's row also has, for its class (the target) and the documents without it (the
reference):

* ``n_target``, ``n_reference`` -- its summed count (tokens) in each;
* ``range_*``, ``dp_*``, ``dp_norm_*``, ``cv_*`` -- its dispersion over each group's documents
  (:mod:`textsift.evidence.dispersion`: range, Gries' DP, DPnorm, the coefficient of variation),
  with
  the suffixes ``_target`` and ``_reference``;
* ``p_wilcoxon``, ``q_wilcoxon`` -- the Wilcoxon rank-sum test of its documents' relative
  frequencies, target against reference (:func:`textsift.evidence.document_tests.wilcoxon`), and the
  p-value adjusted by the same correction over the same family as ``q``;
* with ``bootstrap=B`` resamples, ``p_bootstrap`` and ``q_bootstrap`` -- Lijffijt et al.'s
  bootstrap test of the documents (:func:`textsift.evidence.document_tests.bootstrap`).

:func:`keep_range` drops the terms found in fewer than ``min_range`` of their class's
documents from a ranking (``--min-range``): what is shown, not what is corrected (``q`` stays
that of the class's whole vocabulary).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._choices import CORRECTION, DEFAULT_ALPHA, DEFAULT_LEVEL, FAMILY, PASS_RULES
from ..counting.counts import Counts
from ..errors import TextsiftError
from ..labels import group_index, group_indices
from ..scores import compute, get_method
from ..scores.effects import check_level, effect_sizes
from ..scores.significance import pvalues
from ..selection.ranking import TermRanking
from .corrections import adjust_table, check_correction, check_family

__all__ = ["MIN_EXPECTED", "SMALL_COUNT_TESTS", "adjusted_pvalues", "best_classes",
           "check_expected_counts", "document_columns", "evidence", "expected_minimum",
           "keep_range", "passes", "passing_scores", "passing_terms", "rule",
           "significant_counts", "significant_terms", "smallest_pvalues"]


def adjusted_pvalues(counts: Counts, method, correction: str = CORRECTION, family: str = FAMILY,
                     **params):
    """``(PValues, q)``: the method's p-values and the adjusted ones, ``q`` of the same
    (V, G) shape (:func:`textsift.evidence.corrections.adjust_table`)."""
    p = pvalues(counts, method, **params)
    return p, p.adjusted(correction, family)


def _classes_of(ranking: TermRanking, counts: Counts, method, params) -> np.ndarray:
    """The class (column of ``counts.classes``) each ranked term was ranked for, -1 where
    there is none (a score of the whole table)."""
    n = len(ranking)
    if ranking.class_label is not None:
        return np.full(n, group_index(counts.classes, ranking.class_label))
    if ranking.groups is not None:  # a round robin: the class that took each term
        return group_indices(counts.classes, ranking.groups)
    table = compute(counts, method, dense=False, **params)
    groups = [str(g) for g in table.groups]
    if len(groups) == 1:
        return np.full(n, -1)
    if ranking.policy != "max":
        raise TextsiftError(
            f"the evidence of a term is that of one class; under the {ranking.policy} policy "
            "a term's score is several classes': rank by a class (--class C) or by max or rr "
            "(the class that gave each term its score, or that took it)")
    return group_indices(counts.classes, best_classes(table, ranking.index))


def best_classes(table, index) -> np.ndarray:
    """The group of each term of ``index`` whose score in ``table`` (a
    :class:`~textsift.scores.ScoreTable`) is its best: the class that gives it its score under
    ``max`` (the first of tied ones)."""
    rows = np.vstack([table.rows(int(t), int(t) + 1) for t in index]) if len(index) else (
        np.zeros((0, len(table.groups))))
    return np.asarray(table.groups, dtype=object)[np.argmax(rows, axis=1)]


def evidence(counts: Counts, ranking: TermRanking, method, correction: str = CORRECTION,
             family: str = FAMILY, level: float = DEFAULT_LEVEL, permuted=None, documents=None,
             bootstrap: int = 0, random_state=0, **params) -> pd.DataFrame:
    """The ranking's frame (:meth:`TermRanking.to_frame`) with the evidence of each term
    (module docstring). A method without a p-value has no ``p`` and ``q`` columns, unless
    ``permuted`` (its :class:`~textsift.evidence.permutation.PermutationResult`) gives them: the
    permutation p-values then stand for the method's own. ``documents``: the
    :class:`~textsift.evidence.dispersion.Documents` of ``counts``, for the dispersion and the
    document-level tests (``bootstrap`` resamples of the bootstrap test, seeded by
    ``random_state``; 0: none)."""
    check_level(level)
    correction, family = check_correction(correction), check_family(family)
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
        q = adjust_table(values, correction, family)
    elif m.pvalue is not None:
        p, q = adjusted_pvalues(counts, m, correction, family, **params)
        values, groups = p.values, p.groups
    else:
        values = None
    if values is not None:
        column = _columns_of(groups, counts, cls)
        frame["p"] = values[index, column]
        frame["q"] = q[index, column]
    if documents is not None and has.any():  # a score of the whole table has no target
        _add_documents(frame, counts, documents, index, cls, correction, family, bootstrap,
                       random_state)
    return frame


def _add_documents(frame, counts: Counts, documents, index, cls, correction: str,
                   family: str, n_resamples: int, random_state) -> None:
    """The columns of the ``documents`` (module docstring) for each row's class (NaN for a
    row of no class); the document-level tests of the classes the family needs."""
    from .document_tests import bootstrap, wilcoxon

    _check_documents(documents, counts)
    shown = sorted(set(int(c) for c in cls if c >= 0))
    tested = list(range(counts.n_classes)) if family == "all" else shown
    tests = {"wilcoxon": np.full((counts.n_terms, len(tested)), np.nan)}
    if n_resamples:
        tests["bootstrap"] = np.full((counts.n_terms, len(tested)), np.nan)
    rng = np.random.default_rng(random_state)
    for k, c in enumerate(tested):
        target, reference = documents.groups(c)
        tests["wilcoxon"][:, k] = wilcoxon(documents.X, target, reference,
                                           documents.sizes).p
        if n_resamples:
            tests["bootstrap"][:, k] = bootstrap(documents.X, target, reference, n_resamples,
                                                 rng, documents.sizes)
    for name, values in document_columns(documents, index, cls).items():
        frame[name] = values
    has = cls >= 0
    where = {c: k for k, c in enumerate(tested)}
    at = np.array([where.get(int(c), 0) for c in cls], dtype=np.intp)
    for test, p in tests.items():
        q = adjust_table(p, correction, family) if (~np.isnan(p)).any() else p  # no test
        frame[f"p_{test}"] = np.where(has, p[index, at], np.nan) if len(tested) else np.nan
        frame[f"q_{test}"] = np.where(has, q[index, at], np.nan) if len(tested) else np.nan


def _check_documents(documents, counts: Counts) -> None:
    if documents.X.shape[1] != counts.n_terms or documents.member.shape[1] != (
            counts.n_classes):
        raise TextsiftError(
            f"the documents have {documents.X.shape[1]} terms and "
            f"{documents.member.shape[1]} classes, the counts {counts.n_terms} and "
            f"{counts.n_classes}: give the documents the counts were made from")


def document_columns(documents, index, cls, dispersions: dict | None = None) -> dict:
    """``{name: values}``: ``n_target``, ``n_reference`` and the dispersion columns
    (``range_*``, ``dp_*``, ``dp_norm_*``, ``cv_*``; module docstring) of each term of
    ``index`` in its class ``cls`` (a column of the counts' classes; -1: none, NaN) against
    the documents without it, from the :class:`~textsift.evidence.dispersion.Documents`
    ``documents``. Counts and ranges are integers when every row has a class.
    ``dispersions`` (class -> the pair
    :meth:`~textsift.evidence.dispersion.Documents.dispersion` returns) keeps each class's
    dispersion for the next call (several rankings of one fold)."""
    from .dispersion import DISPERSION_COLUMNS

    index, cls = np.asarray(index, dtype=np.intp), np.asarray(cls, dtype=np.intp)
    kept = {} if dispersions is None else dispersions
    names = [f"{c}_{g}" for c in ("n", *DISPERSION_COLUMNS) for g in ("target", "reference")]
    columns = {name: np.full(len(index), np.nan) for name in names}
    for c in sorted(set(cls[cls >= 0].tolist())):
        rows = np.flatnonzero(cls == c)
        terms = index[rows]
        target, reference = documents.groups(c)
        for group, mask in (("target", target), ("reference", reference)):
            columns[f"n_{group}"][rows] = np.asarray(
                documents.X[mask][:, terms].sum(axis=0)).ravel()
        if c not in kept:
            kept[c] = documents.dispersion(c)
        for group, d in zip(("target", "reference"), kept[c], strict=True):
            for measure in DISPERSION_COLUMNS:
                columns[f"{measure}_{group}"][rows] = getattr(d, measure)[terms]
    every = bool((cls >= 0).all())
    return {name: values.astype(np.int64) if every and name.startswith(("n_", "range_"))
            else values for name, values in columns.items()}


def keep_range(counts: Counts, ranking: TermRanking, method, min_range: int,
               **params) -> TermRanking:
    """The ranking without the terms in fewer than ``min_range`` documents of the class
    they are ranked for (``A``, their range in the target); a score of the whole table
    (one column: no class) by the documents with the term (``df``). The order is kept."""
    from dataclasses import replace

    if isinstance(min_range, bool) or not isinstance(min_range, int | np.integer) or (
            min_range < 1):
        raise TextsiftError(f"min_range must be a number of documents >= 1, got "
                            f"{min_range!r}")
    m = get_method(method) if isinstance(method, str) else method
    index = np.asarray(ranking.index, dtype=np.intp)
    cls = _classes_of(ranking, counts, m, params)
    docs = counts.df[index].astype(np.int64)
    has = cls >= 0
    if has.any():
        docs[has] = counts.at(index[has], cls[has])[0]
    keep = docs >= min_range
    return replace(ranking, index=ranking.index[keep], scores=ranking.scores[keep],
                   groups=None if ranking.groups is None else ranking.groups[keep],
                   signs=None if ranking.signs is None else ranking.signs[keep])


def _columns_of(groups, counts: Counts, cls: np.ndarray) -> np.ndarray:
    """The column of a p-value table for each term's class (0 for a one-column table)."""
    if len(groups) == 1:
        return np.zeros(len(cls), dtype=np.intp)
    return group_indices(groups, counts.classes[np.asarray(cls, dtype=np.intp)])


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
    from ..scores.significance import chi2_2x2_pvalue, fisher_pvalue

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
