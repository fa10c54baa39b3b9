"""The one lookup of a label among a table's groups or a labelling's classes.

Labels read from files are text, labels given in Python may be numbers or booleans: a label
is found by its text (``str(label)``), so ``3`` finds the class ``"3"`` and the other way
round. Every stage that looks a label up calls these two functions.
"""

from __future__ import annotations

import numpy as np

from ..errors import TextsiftError

__all__ = ["group_index", "group_indices"]


def _names(groups) -> np.ndarray:
    return np.asarray([str(g) for g in np.asarray(groups, dtype=object).reshape(-1)],
                      dtype=object)


def group_index(groups, label, what: str = "classes") -> int:
    """The position of ``label`` among ``groups`` (compared as text), else a
    :class:`~textsift.errors.TextsiftError` naming ``what`` they are and the first of them."""
    names = _names(groups)
    matches = np.flatnonzero(names == str(label))
    if len(matches) == 0:
        shown = ", ".join(names[:30]) + (", ..." if len(names) > 30 else "")
        raise TextsiftError(f"class {label!r} is not among the {what} [{shown}]")
    return int(matches[0])


def group_indices(groups, labels) -> np.ndarray:
    """The position of each of ``labels`` among ``groups`` (compared as text), ``-1`` for a
    label that is not there or is ``None``: one vectorised lookup for many labels."""
    names = _names(groups)
    order = np.argsort(names, kind="stable")
    wanted = np.asarray(["" if x is None else str(x) for x in labels], dtype=object)
    if not len(names):
        return np.full(len(wanted), -1, dtype=np.intp)
    at = np.minimum(np.searchsorted(names[order], wanted), len(names) - 1)
    found = (names[order][at] == wanted) & np.asarray([x is not None for x in labels], bool)
    return np.where(found, order[at], -1).astype(np.intp)
