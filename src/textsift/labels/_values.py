"""What a label value is, for the checks and their messages: the JSON kind of a value and a
short description of it."""

from __future__ import annotations

from numbers import Number

import numpy as np

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
