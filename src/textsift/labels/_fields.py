"""Label fields of records (JSON Lines, Parquet, CSV): their type, checked across chunks and
files, label lists, and CSV's untyped fields."""

from __future__ import annotations

from itertools import chain

import numpy as np
import pandas as pd

from ..errors import CorpusError
from ._labelling import holds_collections
from ._unicode import LabelForms, nfc_labels
from ._values import (
    COLLECTIONS,
    NUMBER_TYPES,
    SCALAR_KINDS,
    infinite_label,
    kinds_first_seen,
    mixed_types,
    show_value,
    value_kind,
)


def holds_label_lists(values) -> bool:
    """Whether a label field's values are label lists (a multi-label corpus)."""
    return holds_collections(values)


def no_labels(source, field) -> CorpusError:
    """The error for a multi-label corpus whose label lists are all empty."""
    return CorpusError(
        f"{source}: no record has a label (the {field!r} list is empty in every record); "
        "a corpus needs labelled documents: fill the lists, or choose the field that holds "
        "the labels (--label-field)")


def label_type(column: pd.Series, source, unit: str = "record") -> str:
    """The type of a label field's values -- ``"string"``, ``"number"``, ``"boolean"`` or
    ``"list"`` (label lists: multi-label) -- checked: a missing label, an object, a list in
    some records and a single label in others, a list holding anything but strings, and
    labels of two types (``1`` and ``"b"``: is ``1`` the class ``"1"``?: ``mixed_types``,
    the check of labels given in Python too) and an infinite number (JSON's ``Infinity``:
    ``infinite_label``) are errors naming the records."""
    field = column.name
    missing = column.isna().to_numpy()
    if missing.any():
        raise CorpusError(
            f"{source}, {unit} {column.index[np.flatnonzero(missing)[0]]}: the record has no "
            f"label ({field!r} is missing, null or empty); drop such records or fill the field "
            "(with [] for a document without labels, in a corpus of label lists)")
    if pd.api.types.is_bool_dtype(column.dtype):
        return "boolean"
    inferred = pd.api.types.infer_dtype(column, skipna=False)
    if inferred == "string":
        return "string"
    if pd.api.types.is_numeric_dtype(column.dtype) or inferred in NUMBER_TYPES:
        infinite = infinite_label(column, source, unit)
        if infinite is not None:
            raise infinite
        return "number"
    first = kinds_first_seen(column)
    odd = [first[k] for k in first if k not in (*SCALAR_KINDS, "list")]
    if odd:
        i = min(odd)
        raise CorpusError(
            f"{source}, {unit} {column.index[i]}: the label {field!r} is the "
            f"{show_value(column.iloc[i])}; a label must be a string, a number or true/false "
            "(or, for several labels, a list of strings). Choose another label field "
            "(--label-field), or give each record one label")
    if len(first) == 1 and "list" not in first:  # one kind pandas did not name (e.g. bytes)
        return next(iter(first))
    if "list" in first:
        if len(first) == 1:
            _check_label_lists(column, source, unit)
            return "list"
        i, j = first["list"], min(v for k, v in first.items() if k != "list")
        raise CorpusError(
            f"{source}: the label {field!r} is a list in some records and a single label in "
            f"others: the {show_value(column.iloc[i])} at {unit} {column.index[i]}, the "
            f"{show_value(column.iloc[j])} at {unit} {column.index[j]}. Give every record a "
            'list of labels (["x"]; [] for none) or every record one label')
    raise mixed_types(column, first, source, unit)


def _check_label_lists(column: pd.Series, source, unit: str) -> None:
    """Every label of a column of label lists is a string (JSON Lines lists, Parquet list
    columns, CSV fields split by ``--label-sep``)."""
    flat = list(chain.from_iterable(column))
    if not flat or pd.api.types.infer_dtype(flat, skipna=False) == "string":
        return
    for i, value in enumerate(column):
        bad = [v for v in value if not isinstance(v, str)]
        if bad:
            bad = bad[0]
            raise CorpusError(
                f"{source}, {unit} {column.index[i]}: the label {column.name!r} is the "
                f"{show_value(value)}, which holds the {show_value(bad)}; the labels in a list are "
                'strings (["earn", "acq"]). Write each label as a string, or choose another '
                "label field (--label-field)")


def label_type_of(labels: np.ndarray) -> str:
    """The label type of a chunk's labels, already checked to be of one type."""
    if labels.dtype.kind == "b":
        return "boolean"
    if labels.dtype.kind in "iuf":
        return "number"
    return value_kind(labels[0]) if len(labels) else "string"


class LabelTypes:
    """The label type of the first records read from a source, to check the records read
    after them against it (chunks, files, partitions): ``1`` in one file and ``"b"`` in the
    next are the same mistake as in one file, and so are label lists in one file and single
    labels in the next."""

    def __init__(self, field: str | None):
        self.field = field
        self.first: tuple[str, str] | None = None
        self.labelled = False  # a label list with a label was seen

    def check(self, frame: pd.DataFrame, source, unit: str = "record") -> None:
        if self.field is None or not len(frame):
            return
        kind = label_type(frame[self.field], source, unit)
        if kind == "list" and not self.labelled:
            self.labelled = bool(frame[self.field].map(len).any())
        self.note(kind, f"{source}, {unit} {frame.index[0]}")

    def note(self, kind: str, where: str) -> None:
        if self.first is None:
            self.first = (kind, where)
        elif kind != self.first[0] and "list" in (kind, self.first[0]):
            (a, at), (b, bt) = sorted([self.first, (kind, where)], key=lambda p: p[0] != "list")
            raise CorpusError(
                f"the label {self.field!r} is a list in some records and a single label in "
                f"others: a list at {at}, {_a(b)} at {bt}. Give every record a list of labels "
                '(["x"]; [] for none) or every record one label, in every file')
        elif kind != self.first[0]:
            csv = any(_is_csv(w) for w in (where, self.first[1]))
            raise CorpusError(
                f"the label {self.field!r} mixes types: {_a(self.first[0])} at "
                f"{self.first[1]}, {_a(kind)} at {where}. Write every label as a string (\"1\") "
                "or every one as a number, in every file, so that each class has one name"
                + ("; a CSV file's labels are strings (01 and 1 are two classes): write the "
                   "other files' labels as strings too, or, for ratings, use an ordinal method "
                   "or command, which reads every file's labels as numbers" if csv else ""))

    def finish(self, source) -> None:
        """After the last record: label lists that were empty in every record are an error."""
        if self.first is not None and self.first[0] == "list" and not self.labelled:
            raise no_labels(source, self.field)


def _is_csv(where: str) -> bool:
    """Whether a place of :class:`LabelTypes` (``"FILE, record N"``) is in a CSV file."""
    return where.rsplit(", ", 1)[0].lower().endswith((".csv", ".tsv", ".csv.gz", ".tsv.gz"))


def _a(kind: str) -> str:
    return {"string": "a string", "number": "a number", "boolean": "true/false",
            "list": "a list"}[kind]


def csv_labels(column: pd.Series, sep: str | None = None) -> pd.Series:
    """A CSV label field. CSV has no types: without ``sep`` its labels are the strings
    written (``01`` and ``1`` are two classes; they are read as numbers only where they must
    be ranks: :func:`read_labels`). With ``sep`` (``--label-sep``): each value is the list of
    the labels it joins (``"earn;acq"`` -> ``["earn", "acq"]``), spaces around a label
    dropped; an empty cell is a document without labels (an empty piece, as in ``"earn;"``, is
    dropped by :func:`read_labels`, as an empty label in a JSON list is)."""
    if sep is None:
        return column
    return column.map(lambda v: [] if not isinstance(v, str) else
                      [p.strip() for p in v.split(sep)])


def plain_values(column: pd.Series) -> pd.Series:
    """A column of pandas ``category`` dtype as its values (strings, numbers; missing values
    ``NaN``); any other column as it is."""
    if not isinstance(column.dtype, pd.CategoricalDtype):
        return column
    kind = column.dtype.categories.dtype
    return column.astype(object if column.isna().any() or kind.kind == "b" else kind)


def _blank(value) -> bool:
    return isinstance(value, str) and not value.strip()


def read_labels(column: pd.Series, source, unit: str = "record", ranks: bool = False,
                forms: LabelForms | None = None) -> pd.Series:
    """A label field as the corpus means it, the same in every format and engine:

    * an empty label (``""``, or white space only) names no class: a single one is a missing
      label (an error, :func:`label_type`), one in a label list is dropped (``["earn", ""]``
      is ``["earn"]``, as the CSV field ``earn;`` with ``--label-sep ;``);
    * with ``ranks`` (the labels must be the ranks of a scale: the ordinal methods and
      commands), a label is the number it writes, whatever the format: ``4``, ``"4"`` and the
      CSV values ``04`` and ``4.0`` are rank 4; a string that is not a number is an error
      naming the record. Without it, labels stay as written (CSV's are strings).

    Every string label is read in Unicode NFC (``"café"`` written with ``e`` and a combining
    accent is the ``"café"`` written with ``é``); the spellings are noted in ``forms`` (the
    reader of a whole source warns, at its end, when two were made one class: ``LabelForms``),
    or warned about at once without it.

    A pandas ``category`` column (what ``DataFrame.to_parquet`` writes for a categorical) is
    its values. The types are then checked by :func:`label_type`."""
    column = plain_values(column)
    kinds = pd.api.types.infer_dtype(column, skipna=True)
    if kinds == "string":
        blank = (column.str.strip() == "").to_numpy(dtype=bool)
        column = column.mask(blank) if blank.any() else column
    elif kinds not in (*NUMBER_TYPES, "boolean", "empty"):  # label lists, or mixed values
        column = column.map(_without_blanks)
    column = nfc_labels(column, forms)
    if ranks and kinds in ("string", "mixed", "mixed-integer"):
        column = _as_ranks(column, source, unit)
    return column


def _without_blanks(value):
    """A label with its empty labels dropped: an empty string is missing (``None``), a list
    loses its empty strings."""
    if _blank(value):
        return None
    if isinstance(value, COLLECTIONS) and any(map(_blank, value)):
        return [v for v in value if not _blank(v)]
    return value


def _as_ranks(column: pd.Series, source, unit: str) -> pd.Series:
    """Strings read as the numbers they write (``"04"`` -> 4), as a numeric column when
    every label is then a number; other values are left to :func:`label_type`'s checks."""
    strings = column.map(lambda v: isinstance(v, str)).to_numpy(dtype=bool)
    numbers = pd.to_numeric(column[strings].str.strip(), errors="coerce")
    bad = ~np.isfinite(numbers.to_numpy(dtype=float))
    if bad.any():
        at = numbers.index[int(np.flatnonzero(bad)[0])]
        raise CorpusError(
            f"{source}, {unit} {at}: the label {column.name!r} is {column[at]!r}, not a "
            "number; ranks are numbers (ratings such as 1-5 stars). Choose the field that "
            "holds the ratings (--label-field), or a method of classes (e.g. chi2, ig)")
    out = column.where(~strings, numbers)
    if column.map(lambda v: isinstance(v, bool | np.bool_ | list | dict)).any():
        return out  # true/false, lists, objects: label_type names them
    return pd.to_numeric(out)
