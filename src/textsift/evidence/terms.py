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

Selection by significance, which reads the same p-values, is :mod:`textsift.evidence.significant`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._choices import CORRECTION, DEFAULT_LEVEL, FAMILY
from ..counting.counts import Counts
from ..errors import TextsiftError
from ..labels import group_index, group_indices
from ..scores import compute, get_method
from ..scores.effects import check_level, effect_sizes
from ..scores.significance import pvalues
from ..selection.ranking import TermRanking
from .corrections import adjust_table, check_correction, check_family

__all__ = ["adjusted_pvalues", "best_classes", "document_columns", "evidence", "keep_range"]


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
