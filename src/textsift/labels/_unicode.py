"""Labels in one Unicode form. The same name can be written with different code points:
``"café"`` with the one character U+00E9 (the composed form, NFC, what most keyboards and
programs write) or with ``e`` and the combining accent U+0301 (the decomposed form, NFD, what
macOS file names and some exports write). To every method they are two classes that look the
same on the screen. Every string label is therefore read in Unicode NFC
(:func:`unicodedata.normalize`, the form the W3C recommends for text exchanged on the web),
where labels are read -- a file's label field (:func:`textsift.labels.read_labels`, in every
engine and format) and the labels given in Python (:func:`textsift.labels.as_labels`) -- and
a :class:`~textsift.errors.DataWarning` names the labels that were written in more than one
form and are now one class (:class:`LabelForms`)."""

from __future__ import annotations

import unicodedata
import warnings
from collections.abc import Iterable
from itertools import chain

import numpy as np
import pandas as pd

from ..errors import DataWarning
from ._values import COLLECTIONS

#: The Unicode normal form every string label is read in.
FORM = "NFC"


def in_form(text: str) -> str:
    """``text`` in :data:`FORM` (itself when it already is: the usual case, checked fast)."""
    return text if unicodedata.is_normalized(FORM, text) else unicodedata.normalize(FORM, text)


def _strings(column: pd.Series) -> list[str]:
    """The distinct string labels of a label field (those of its lists too)."""
    if pd.api.types.infer_dtype(column, skipna=True) == "string":
        return list(pd.unique(column.dropna()))
    values = chain.from_iterable(v if isinstance(v, COLLECTIONS) else (v,) for v in column)
    return list(dict.fromkeys(v for v in values if isinstance(v, str)))


def _renamed(value, changed: dict):
    if isinstance(value, str):
        return changed.get(value, value)
    if isinstance(value, COLLECTIONS):
        return [changed.get(x, x) if isinstance(x, str) else x for x in value]
    return value


class LabelForms:
    """The spellings of the labels read from a source, across its chunks, files and
    partitions: for each label in Unicode NFC, the distinct ways it was written. Two or more
    are labels that reading them in NFC made one class, which :meth:`warn` names."""

    def __init__(self):
        self.spellings: dict[str, set[str]] = {}

    def note(self, strings: Iterable[str]) -> None:
        for s in strings:
            self.spellings.setdefault(in_form(s), set()).add(s)

    def update(self, other: LabelForms) -> None:
        for form, spelled in other.spellings.items():
            self.spellings.setdefault(form, set()).update(spelled)

    def merged(self) -> list[tuple[str, ...]]:
        """The groups of distinct spellings that are one label in Unicode NFC, each sorted,
        the groups sorted."""
        return sorted(tuple(sorted(g)) for g in self.spellings.values() if len(g) > 1)

    def warn(self, source=None) -> None:
        """Warn (:class:`~textsift.errors.DataWarning`) when some labels were written in more
        than one form, naming the first five groups, their spellings escaped so that the
        difference shows, and what to do if they were meant as different classes."""
        warn_merged(self.merged(), source)


def warn_merged(groups: list[tuple[str, ...]], source=None, shown: int = 5) -> None:
    """The :class:`~textsift.errors.DataWarning` for labels written in more than one Unicode
    form, read as one class each: the groups (the first ``shown``, each spelling with its
    code points escaped, so that the difference shows) and what to do if they were meant as
    different classes."""
    if not groups:
        return
    named = "; ".join(f"{in_form(g[0])!r} (written {' and '.join(map(ascii, g))})"
                      for g in groups[:shown])
    more = f"; and {len(groups) - shown} more" if len(groups) > shown else ""
    where = f"{source}: " if source else ""
    warnings.warn(
        f"{where}labels written in two Unicode forms are now one class: {named}{more}. "
        f"textsift reads every label in Unicode {FORM} (\u00e9 as the one character U+00E9, "
        "not e followed by the combining accent U+0301), so labels that look the same are "
        "one class; if they were meant as different classes, give them different names in "
        "the data", DataWarning, stacklevel=4)


def nfc_labels(column: pd.Series, forms: LabelForms | None = None) -> pd.Series:
    """A label field (one label per record, or label lists) with every string label in
    :data:`FORM`; numbers and true/false as they are. The distinct spellings are noted in
    ``forms`` when given (the reader of a whole source warns once, at its end:
    :meth:`LabelForms.warn`), and warned about at once otherwise."""
    if pd.api.types.is_numeric_dtype(column.dtype) or pd.api.types.is_bool_dtype(column.dtype):
        return column
    strings = _strings(column)
    mine = LabelForms()
    mine.note(strings)
    if forms is not None:
        forms.update(mine)
    else:
        mine.warn()
    changed = {s: in_form(s) for s in strings if not unicodedata.is_normalized(FORM, s)}
    return column.map(lambda v: _renamed(v, changed)) if changed else column


def nfc_array(y: np.ndarray, source=None) -> np.ndarray:
    """One label per document (an array) with its string labels in :data:`FORM`, warning
    (:func:`warn_merged`) when that makes two distinct labels one class."""
    if y.dtype.kind not in "OU" or not len(y):
        return y
    distinct = pd.unique(y) if y.dtype.kind == "O" else np.unique(y)
    strings = [str(v) for v in distinct if isinstance(v, str)]
    changed = {s: in_form(s) for s in strings if not unicodedata.is_normalized(FORM, s)}
    if not changed:
        return y
    forms = LabelForms()
    forms.note(strings)
    forms.warn(source)
    out = np.array([changed.get(v, v) if isinstance(v, str) else v for v in y.tolist()],
                   dtype=object)
    return out if y.dtype.kind == "O" else out.astype(str)
