"""The evidence and the dispersion of the terms the report shows, computed on fold 0's
training part as the run ends and handed on (``term_evidence.csv``): the report reads them
and opens no fold.

For each selection's top terms (``terms.csv``) in the class that gave each term its best
score (its ``max`` class: :func:`textsift.evidence.terms.evidence` under ``max``, whatever
policy ranked it), and for each class's terms (``class_terms.csv``) in that class, the row
:func:`~textsift.evidence.terms.evidence` writes -- ``A``, ``B``, ``C``, ``D``, the method's
``p`` and ``q`` (Benjamini-Hochberg over the class's terms: ``score --evidence``'s
defaults), the effect sizes with their 95% intervals -- and the term's counts and dispersion
in the class's documents and in the others'
(:func:`~textsift.evidence.terms.document_columns`: range, Gries' DP, DPnorm, the
coefficient of variation). A score with one column (an ordinal method's, ``ig_multi``'s)
gives its top terms no class: their rows have
``df`` and ``p``/``q`` only; a method whose p-value the labels do not allow
(``chi2_sklearn``'s on label sets) has no rows, nor has a user's scoring function. The
document-level tests are not computed here (one per class over the whole vocabulary:
``textsift score --evidence`` gives them).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..errors import TextsiftError
from ..evidence.dispersion import Documents
from ..evidence.terms import document_columns, evidence
from ..labels import group_indices
from ..selection.ranking import TermRanking
from ._methods import resolve_method
from .specs import Experiment, TrainTest

__all__ = ["fold_documents", "term_evidence"]


def fold_documents(data: TrainTest) -> Documents:
    """The documents of a fold's training part, their classes those of its counts: the
    indicator matrix of label sets as it is (a label may have no training document), one
    label per document read against the counts' classes."""
    if sp.issparse(data.y_train):
        X = sp.csr_matrix(data.X_train)
        member = sp.csr_matrix(data.y_train, dtype=bool)
        return Documents(X, member, np.asarray(X.sum(axis=1), dtype=np.float64).ravel())
    return Documents.of(data.X_train, data.y_train, data.counts.classes)


def _document_columns(documents: Documents, parts: list) -> list[dict | None]:
    """Each selection's :func:`~textsift.evidence.terms.document_columns` (``None`` for one
    whose terms have no class), computed in one call for them all on the columns of the
    terms shown only: each document keeps its size (its counted tokens over the whole
    vocabulary), so that a term's counts and dispersion, sums over its own column alone (the
    entries in the order of the documents), are those of the whole matrix, and each class's
    documents are sliced once for every selection. As ``document_columns`` writes them:
    integer counts and ranges when every row of the selection has a class, else floats with
    NaN for the rows of none."""
    V = documents.X.shape[1]
    has = [cls >= 0 for *_, cls in parts]
    kept = np.zeros(V, dtype=bool)
    for (*_, index, _), named in zip(parts, has, strict=True):
        kept[np.asarray(index, dtype=np.intp)[named]] = True
    shown = np.flatnonzero(kept)
    if not len(shown):
        return [None] * len(parts)
    column = np.full(V, -1, dtype=np.intp)
    column[shown] = np.arange(len(shown))
    narrow = Documents(documents.X[:, shown].tocsr(), documents.member, documents.sizes)
    every = document_columns(
        narrow, np.concatenate([column[index[named]] for (*_, index, _), named in
                                zip(parts, has, strict=True)]),
        np.concatenate([cls[named] for (*_, cls), named in zip(parts, has, strict=True)]))
    out, start = [], 0
    for named in has:
        n = int(named.sum())
        if not n:
            out.append(None)
            continue
        found = {name: values[start:start + n] for name, values in every.items()}
        start += n
        if not named.all():  # rows of no class: NaN, and the counts as floats
            found = {name: _spread(values, named) for name, values in found.items()}
        out.append(found)
    return out


def _spread(values: np.ndarray, named: np.ndarray) -> np.ndarray:
    """``values`` at the ``named`` rows, NaN at the others (float64)."""
    full = np.full(len(named), np.nan)
    full[named] = values
    return full


def term_evidence(exp: Experiment, data: TrainTest, shown: list[tuple[tuple, object]]
                  ) -> pd.DataFrame:
    """The evidence rows (module docstring) of each selection's shown terms: ``shown`` holds
    ``((method, aggregate), terms)`` pairs, ``terms`` a selection's
    :class:`~.loaded.FoldTerms` -- its ``index``, ``scores``, best first, and ``best``, each
    term's class, so that no score is computed again, and ``classes``, each class's terms
    (their indices in ``attrs["index"]``). The rows carry ``method``, ``aggregate``,
    ``list`` (``"top"``: the selection's top terms, in its order; ``"class"``: a class's
    terms, in the class the list is of), ``position`` (in the list) and ``term``."""
    counts = data.counts
    parts = []  # (selection, its terms, its class lists, its frame, its terms' indices, classes)
    for (method, aggregate), terms in shown:
        m = resolve_method(method)
        if not isinstance(m, str):  # a user's scoring function: no registered cells, no test
            continue
        lists = [np.asarray(ix, dtype=np.intp) for ix in terms.classes.attrs.get("index", [])]
        index = np.concatenate([np.asarray(terms.index, dtype=np.intp), *lists])
        # each term's class given as a round robin's groups: for a top term the class of its
        # best score, found as the trial ranked it (none for a score of one column)
        groups = np.concatenate([np.asarray(terms.best, dtype=object),
                                 *(np.full(len(ix), c, dtype=object)
                                   for c, ix in zip(terms.classes.index, lists, strict=True))])
        ranking = TermRanking(index, np.r_[terms.scores, np.full(len(index) - len(terms.index),
                                                                 np.nan)],
                              groups, "rr", str(m), feature_names=counts.feature_names)
        try:
            frame = evidence(counts, ranking, m, **exp.params_of(method))
        except TextsiftError:  # a p-value these labels do not allow (chi2_sklearn's on label
            continue           # sets): its terms are shown without their evidence
        frame = frame.drop(columns="group")
        cls = np.full(len(frame), -1, dtype=np.intp)
        if "class" in frame:  # the term's class; none for a score of the whole table
            named = frame["class"].notna().to_numpy()
            cls[named] = group_indices(counts.classes,
                                       frame["class"].to_numpy(dtype=object)[named])
        parts.append(((method, aggregate), terms, lists, frame, ranking.index, cls))
    columns = _document_columns(fold_documents(data), parts)
    frames = []
    for ((method, aggregate), terms, lists, frame, _, cls), found in zip(parts, columns,
                                                                         strict=True):
        if found is not None:
            frame = frame.assign(**found)
        frame["position"] = np.concatenate([np.arange(1, len(ix) + 1)
                                            for ix in (terms.index, *lists)])
        frame.insert(0, "list", ["top"] * len(terms.index) + ["class"] * (
            len(cls) - len(terms.index)))
        frame.insert(0, "aggregate", aggregate)
        frame.insert(0, "method", method)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
