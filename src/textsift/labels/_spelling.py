"""Labels that are readable but probably wrong: spellings that differ only by white space or
case (or that write the same number), labels that every document has or nearly none shares,
and test classes that no training document has."""

from __future__ import annotations

import warnings
from itertools import chain

import numpy as np
import pandas as pd

from ..errors import DataWarning
from ._fields import holds_label_lists
from ._values import (
    COLLECTIONS,
)


def strip_labels(column: pd.Series) -> pd.Series:
    """A label field with the white space around each string label removed (``str.strip``:
    Unicode white space), in label lists around each label; numbers and true/false are left
    as they are. The case is not folded: a case difference may be meant (``"CO"`` and
    ``"Co"``), and folding would rename classes, where white space around a name never
    distinguishes two classes."""
    if pd.api.types.infer_dtype(column, skipna=False) == "string":
        return column.str.strip()

    def strip(value):
        if isinstance(value, str):
            return value.strip()
        if isinstance(value, COLLECTIONS):
            return [v.strip() if isinstance(v, str) else v for v in value]
        return value

    return column.map(strip)


def distinct_labels(column: pd.Series) -> list:
    """The distinct labels of a label field (of every list, in a field of label lists)."""
    if holds_label_lists(column):
        return list(dict.fromkeys(chain.from_iterable(column)))
    return list(pd.unique(column))


def similar_labels(classes) -> list[tuple[str, ...]]:
    """Groups of distinct string labels that are one label once the white space around them
    is removed and the case folded (``str.casefold``): each group sorted, the groups sorted."""
    groups: dict[str, set] = {}
    for c in classes:
        if isinstance(c, str):
            groups.setdefault(c.strip().casefold(), set()).add(c)
    return sorted(tuple(sorted(g)) for g in groups.values() if len(g) > 1)


def check_label_spelling(classes, source=None, shown: int = 5) -> None:
    """Warn (:class:`~textsift.errors.DataWarning`) when some of ``classes`` differ only by
    the white space around them or by case -- ``"sci.space"`` and ``"sci.space "`` are two
    classes to every method, which then halves each class and scores both halves --, naming
    the groups (the first ``shown``) and the fix: ``strip_labels`` (``--strip-labels``,
    ``[corpus] strip_labels``) for white space, one spelling in the data for case."""
    _check_numbers(classes, source, shown)
    groups = similar_labels(classes)
    if not groups:
        return
    kinds = [_differences(g) for g in groups]
    named = "; ".join(f"{' and '.join(map(repr, g))} ({' and '.join(k)})"
                      for g, k in zip(groups[:shown], kinds, strict=False))
    more = f"; and {len(groups) - shown} more" if len(groups) > shown else ""
    found = {k for kind in kinds for k in kind}
    fixes = []
    if "white space" in found:
        fixes.append("strip the white space around labels with --strip-labels (strip_labels = "
                     "true in [corpus], strip_labels=True in Python)")
    if "case" in found:
        fixes.append("write one spelling of each label in the data (case is not folded: it "
                     "may be meant)")
    where = f"{source}: " if source else ""
    warnings.warn(f"{where}labels that differ only by white space or case count as different "
                  f"classes: {named}{more}. If each group is one class, "
                  f"{' and '.join(fixes)}", DataWarning, stacklevel=3)


def same_numbers(classes) -> list[tuple[str, ...]]:
    """Groups of distinct string labels that write the same number (``"01"``, ``"1"`` and
    ``"1.0"``): each group sorted, the groups sorted."""
    strings = [c for c in classes if isinstance(c, str)]
    if not strings:
        return []
    numbers = pd.to_numeric(pd.Series(strings, dtype=object).str.strip(), errors="coerce")
    groups: dict[float, set] = {}
    for c, x in zip(strings, numbers, strict=True):
        if np.isfinite(x):
            groups.setdefault(x, set()).add(c)
    return sorted(tuple(sorted(g)) for g in groups.values() if len(g) > 1)


def _check_numbers(classes, source, shown: int) -> None:
    """Warn when distinct string labels write the same number (CSV's ``01`` and ``1``)."""
    groups = same_numbers(classes)
    if not groups:
        return
    named = "; ".join(" and ".join(map(repr, g)) for g in groups[:shown])
    more = f"; and {len(groups) - shown} more" if len(groups) > shown else ""
    where = f"{source}: " if source else ""
    warnings.warn(f"{where}labels that write the same number count as different classes: "
                  f"{named}{more}. Labels are the strings written (a CSV file's always); if "
                  "each group is one class, write one spelling in the data -- or, for "
                  "ratings, use an ordinal method or command, which reads them as numbers",
                  DataWarning, stacklevel=4)


def _differences(group) -> list[str]:
    """How the labels of a group of :func:`similar_labels` differ: by white space, by case."""
    stripped = {c.strip() for c in group}
    return [k for k, differ in (("white space", len(stripped) < len(group)),
                                ("case", len(stripped) > 1)) if differ]


#: Labels are "nearly unique per document" above this many classes per document, and ...
UNIQUE_SHARE = 0.1
#: ... above this many classes (a small corpus may well have a class for every few documents).
UNIQUE_FLOOR = 100


def check_label_counts(classes, class_sizes, n_docs: int, label_sets: bool,
                       source=None, field=None) -> None:
    """Warn (:class:`~textsift.errors.DataWarning`), before the work, when the labels cannot
    be what was meant:

    * label sets where a label is on every document: it has no negative document, so its
      one-vs-rest scores compare it with nothing (chi2 0, BNS -inf, every term alike) and no
      learner can tell it apart;
    * labels nearly unique per document -- more classes than a tenth of the documents (and
      more than ``UNIQUE_FLOOR``), e.g. an id field taken for the label: each class has
      too few documents to score its terms, and the per-class tables grow with the number of
      classes (18 GB for 20 Newsgroups by message id)."""
    where = f"{source}: " if source else ""
    name = f" ({field!r})" if field else ""
    sizes = np.asarray(class_sizes)
    if label_sets and n_docs:
        every = [c for c, n in zip(classes, sizes, strict=True) if n == n_docs]
        if every:
            shown = ", ".join(map(repr, every[:5])) + (" ..." if len(every) > 5 else "")
            warnings.warn(
                f"{where}every document has the label {shown}, so it has no negative "
                "document: its one-vs-rest scores compare it with nothing (chi2 0, BNS -inf "
                "for every term) and no learner can tell it apart. Drop it from the data, or "
                f"check the label field{name}", DataWarning, stacklevel=3)
    m = len(sizes)
    if m > max(UNIQUE_FLOOR, UNIQUE_SHARE * n_docs):
        single = int((sizes <= 1).sum())
        warnings.warn(
            f"{where}the labels{name} are nearly unique per document: {m:,} classes for "
            f"{n_docs:,} documents ({single:,} of them with a single document), more than "
            f"a tenth of the documents; a class needs several documents for its terms to be "
            "scored, and the per-class tables grow with the number of classes. Is it the "
            "label field you meant (--label-field)?", DataWarning, stacklevel=3)


def unseen_classes(y_train, y_test) -> dict:
    """The classes of ``y_test`` that ``y_train`` never has, each with its number of test
    documents (one label per document): no learner has seen an example of them."""
    test, n = np.unique(np.asarray(y_test), return_counts=True)
    unseen = ~np.isin(test, np.unique(np.asarray(y_train)))
    return dict(zip(test[unseen].tolist(), n[unseen].tolist(), strict=True))
