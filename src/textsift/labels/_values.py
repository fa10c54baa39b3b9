"""What a label value is, for the checks and their messages: the JSON kind of a value and a
short description of it."""

from __future__ import annotations

from numbers import Number

import numpy as np
import pandas as pd

from ..errors import CorpusError

#: The containers a label list may come in.
COLLECTIONS = (list, tuple, set, frozenset, np.ndarray)
#: The JSON kinds of a single label.
SCALAR_KINDS = ("string", "number", "boolean")
#: What pandas infers for a column of single labels (anything else may hold label lists).
SCALAR_INFERRED = ("string", "integer", "floating", "boolean", "mixed-integer-float")
#: What pandas infers for a column of numbers.
NUMBER_TYPES = ("integer", "floating", "mixed-integer-float", "decimal")


def show_value(value) -> str:
    """A value's JSON kind and a short repr, for messages."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if value is None:
        return "null"
    text = repr(value)
    text = text if len(text) <= 40 else text[:37] + "..."
    return f"{value_kind(value)} {text}"


def value_kind(value) -> str:
    """The JSON kind of a field's value: boolean, number, string, list, object, or the type."""
    if isinstance(value, bool | np.bool_):
        return "boolean"
    if isinstance(value, Number):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, COLLECTIONS):
        return "list"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def kinds_first_seen(values) -> dict[str, int]:
    """Each JSON kind among ``values`` (:func:`value_kind`) with the position of its first
    value, in the order they are met."""
    first: dict[str, int] = {}
    for i, value in enumerate(values):
        first.setdefault(value_kind(value), i)
    return first


def mixed_types(column: pd.Series, first: dict[str, int], source=None,
                unit: str = "row") -> CorpusError:
    """The one error for labels of two scalar types (``1`` and ``"b"``: is ``1`` the class
    ``"1"``?), naming the first value of each -- for a file's label field (``source``, the
    record ``unit``: ``line``) and for labels given in Python (``row``). ``first`` is
    :func:`kinds_first_seen` of the column."""
    a, b = sorted(first.values())[:2]
    what = f"the label {column.name!r} mixes" if column.name is not None else "the labels mix"
    return CorpusError(
        f"{f'{source}: ' if source is not None else ''}{what} types: the "
        f"{show_value(column.iloc[a])} at {unit} {column.index[a]}, the "
        f"{show_value(column.iloc[b])} at {unit} {column.index[b]}. Write every label as a "
        'string ("1") or every one as a number, so that each class has one name')


def infinite_label(column: pd.Series, source=None, unit: str = "row") -> CorpusError | None:
    """The error for a label that is an infinite number (JSON's ``Infinity``, which Python's
    ``json`` reads as ``float('inf')``), or ``None``: an infinity names no class, as a NaN
    does not (NaN is a missing label), so it is refused, naming the first one and the fix,
    rather than counted as the class ``inf``."""
    values = pd.to_numeric(column, errors="coerce").to_numpy(dtype=float)
    bad = np.flatnonzero(np.isinf(values))
    if not len(bad):
        return None
    at = column.index[bad[0]]
    what = (f"{source}, {unit} {at}: the label {column.name!r}" if source is not None
            else f"the label at {unit} {at}")
    return CorpusError(
        f"{what} is "
        f"{'-' if values[bad[0]] < 0 else ''}Infinity ({len(bad):,} label(s) are infinite), "
        "which names no class; write the class as a string (\"Infinity\"), or drop or fill "
        "those records (a missing label is null)")
