"""The dispersion the explore page shows beside a term's evidence: for each class's terms whose
evidence is embedded (the first terms of its lists: :mod:`.explore_evidence`), their range,
Gries' DP and DPnorm and the coefficient of variation, in the class's documents and in the
others' (:mod:`textsift.evidence.dispersion`; the columns of ``textsift score --evidence``).

The counts hold no documents, so the documents are counted as they are read for the snippets
(:class:`Tally`: one reading serves both; what the snippets leave unread is read after them),
against the counts' vocabulary under their options (``Vectorizer``), in chunks, keeping each
document's size (its counted tokens, the whole vocabulary's) and its counts of the page's
terms only.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import scipy.sparse as sp

from ..counting.counts import Counts
from ..evidence.dispersion import Documents
from ..evidence.terms import document_columns
from ..labels import group_indices, holds_label_lists
from ..text.vectorize import Vectorizer, VectorizerOptions

__all__ = ["DISPERSION_FIELDS", "Tally", "class_dispersion"]

#: The numbers of a class's entry, after the page ids of its terms, in this order.
DISPERSION_FIELDS = ("range_target", "range_reference", "dp_target", "dp_reference",
                     "dp_norm_target", "dp_norm_reference", "cv_target", "cv_reference")

#: Documents counted at a time.
CHUNK = 2000


class Tally:
    """``(text, label)`` pairs passed on as they are read, each chunk counted against the
    counts' vocabulary; ``documents()`` reads the rest and gives the
    :class:`~textsift.evidence.dispersion.Documents` of the page's terms ``sel``."""

    def __init__(self, documents, counts: Counts, sel: np.ndarray,
                 opts: VectorizerOptions | None):
        self._it = iter(documents)
        self._vectorizer = Vectorizer(counts.feature_names, opts)
        self._sel, self._classes = sel, counts.classes
        self._pending, self._labels = [], []
        self._parts, self._sizes = [], []

    def __iter__(self):
        for text, label in self._it:
            self._keep(text, label)
            yield text, label

    def _keep(self, text, label) -> None:
        self._pending.append(text)
        self._labels.append(label)
        if len(self._pending) >= CHUNK:
            self._count()

    def _count(self) -> None:
        """Count the texts read since the last chunk (then let them go)."""
        if not self._pending:
            return
        X = self._vectorizer.transform(self._pending)
        self._sizes.append(np.asarray(X.sum(axis=1), dtype=np.float64).ravel())
        self._parts.append(X[:, self._sel])
        self._pending = []

    def documents(self) -> Documents | None:
        """The documents read (the rest read now), their classes the counts'; ``None`` when
        a label is not among them (the counts were not made from these documents)."""
        for text, label in self._it:
            self._keep(text, label)
        self._count()
        if not self._parts:
            return None
        lists = holds_label_lists(self._labels)
        flat = [x for y in self._labels for x in y] if lists else self._labels
        if (group_indices(self._classes, flat) < 0).any():
            return None
        X = sp.vstack(self._parts, format="csr")
        docs = Documents.of(X, self._labels, self._classes) if not lists else Documents(
            X, _indicator(self._labels, self._classes), np.zeros(X.shape[0]))
        return replace(docs, sizes=np.concatenate(self._sizes))


def _indicator(labels, classes) -> sp.csr_matrix:
    """The documents x classes membership of label lists (a class may have no document)."""
    rows = np.repeat(np.arange(len(labels)), [len(y) for y in labels])
    cols = group_indices(classes, [x for y in labels for x in y])
    return sp.csr_matrix((np.ones(len(rows), dtype=bool), (rows, cols)),
                         shape=(len(labels), len(classes)))


def class_dispersion(documents: Documents, lr: list, rounded) -> list:
    """Per class, ``[ids, *DISPERSION_FIELDS]`` of the terms ``ids`` (page ids, the columns
    of ``documents``) whose log ratio the evidence holds (``lr``: per class ``[ids, ...]`` or
    None), or None; the ranges as integers, the rest written by ``rounded`` (NaN: None)."""
    out = []
    for c, entry in enumerate(lr):
        if not entry:
            out.append(None)
            continue
        ids = np.asarray(entry[0], dtype=np.intp)
        columns = document_columns(documents, ids, np.full(len(ids), c))
        out.append([ids.tolist(), *(columns[f].astype(np.int64).tolist()
                                    if f.startswith("range_") else _written(columns[f], rounded)
                                    for f in DISPERSION_FIELDS)])
    return out


def _written(x: np.ndarray, rounded) -> list:
    x = np.asarray(x, dtype=np.float64)
    return [None if np.isnan(v) else w for v, w in zip(x.tolist(), rounded(x, 3), strict=True)]
