"""What a labelling of the documents is, how it is read and checked: one home for every fact
about labels.

A labelling of ``n`` documents over ``m`` sorted classes is one of:

* **single-label** -- each document has exactly one class (a string, a number or true/false):
  the classes partition the documents, ``N = sum_c N_c``;
* **multi-label** -- each document has a *set* of labels, possibly empty, possibly several: a
  sparse ``n x m`` indicator matrix ``Y`` (``Y[d, c] = 1`` when document ``d`` has label
  ``c``), as scikit-learn's ``MultiLabelBinarizer`` gives. A document with no label is kept:
  it counts in ``N`` and is a negative for every label. A method compares each label with the
  documents *without* it (one-vs-rest), so ``N_c`` need not sum to ``N``;
* **ordinal ranks** -- a single-label labelling whose classes are integer ranks of a scale
  (:func:`check_ranks`; :mod:`textsift.ranks` rounds to them).

:func:`as_labels` reads every encoding into a :class:`Labels`: a sequence of single labels; a
sequence of label lists, tuples or sets (multi-label); a scikit-learn indicator matrix, dense
or sparse, with the class names given. In files (:func:`label_type`, :class:`LabelTypes`), a
label field holds one label per record, or in every record a list of strings (JSON Lines,
Parquet list columns), or, in CSV, labels joined by a separator (``--label-sep``,
:func:`csv_labels`). A list holding a number or a list, a list in some records and a single
label in others, and label lists that are empty in every record are errors that name the file,
the record and the fix.

A scoring method may require something of the labelling (``"ranks"``, ``"single_label"``,
``"two_classes"``); each of these needs one label per document, and :func:`check_requirement`
refuses multi-label counts for such a method with one message.

Labels that are readable but probably wrong are warned about
(:class:`~textsift.errors.DataWarning`): labels that differ only by the white space around them
or by case (``"sci.space"`` and ``"sci.space "``: :func:`check_label_spelling`), which
:func:`strip_labels` folds for the white space; and test classes that no training document has
(:func:`unseen_classes`) are noted.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from functools import cached_property
from itertools import chain
from numbers import Number

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .errors import CorpusError, DataWarning, TextsiftError

__all__ = ["REQUIREMENTS", "LabelTypes", "Labels", "as_labels", "check_class",
           "check_label_spelling", "check_labelled", "check_one_label_each", "check_ranks",
           "check_requirement", "csv_labels", "distinct_labels", "encode_labels",
           "holds_label_lists", "label_type", "label_type_of", "no_labels", "numeric_labels",
           "requirement_met", "similar_labels", "strip_labels", "unseen_classes"]

#: What a scoring method may require of the labelling (``Method.requires``). Each needs one
#: label per document: ordered ranks, any single-label classes, or exactly two classes.
REQUIREMENTS = ("ranks", "single_label", "two_classes")

_COLLECTIONS = (list, tuple, set, frozenset, np.ndarray)
_SCALAR_KINDS = ("string", "number", "boolean")
#: What pandas infers for a column of single labels (anything else may hold label lists).
_SCALAR_INFERRED = ("string", "integer", "floating", "boolean", "mixed-integer-float")


# --------------------------------------------------------------------------- the value type
@dataclass(frozen=True, eq=False)
class Labels:
    """A labelling of ``n`` documents over the sorted ``classes`` (module docstring).

    Single-label: ``codes[d]`` is the index of document ``d``'s class. Multi-label: ``codes``
    is ``None`` and ``matrix`` is the ``n x m`` CSR indicator (0/1, sorted indices).
    """

    classes: np.ndarray
    codes: np.ndarray | None = None
    matrix: sp.csr_matrix | None = None

    @property
    def multilabel(self) -> bool:
        return self.codes is None

    @property
    def n_docs(self) -> int:
        return self.matrix.shape[0] if self.multilabel else len(self.codes)

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    @cached_property
    def indicator(self) -> sp.csr_matrix:
        """The ``n x m`` 0/1 indicator (one 1 per row for a single-label labelling)."""
        if self.multilabel:
            return self.matrix
        n = len(self.codes)
        return sp.csr_matrix((np.ones(n, np.int8), self.codes, np.arange(n + 1)),
                             shape=(n, self.n_classes))

    @cached_property
    def class_sizes(self) -> np.ndarray:
        """``N_c``: the documents of each class (with each label)."""
        if self.multilabel:
            return np.bincount(self.matrix.indices, minlength=self.n_classes).astype(np.int64)
        return np.bincount(self.codes, minlength=self.n_classes).astype(np.int64)


def as_labels(y, classes=None) -> Labels:
    """The :class:`Labels` of ``y``, in any encoding of the module docstring.

    ``classes`` fixes the class axis: for single labels and label lists, the declared class
    set (sorted; a label outside it is an error, a declared class may have no document); for
    an indicator matrix, the name of each column, in column order (default ``0 .. m-1``;
    columns are reordered so that the names are sorted).
    """
    if sp.issparse(y) or (isinstance(y, np.ndarray) and y.ndim == 2):
        return _from_indicator(y, classes)
    if isinstance(y, str):
        raise TextsiftError("labels must be a sequence with one label (or label list) per "
                            f"document, got the string {y!r}")
    if _holds_collections(y):
        return _from_lists(y, classes)
    classes, codes = encode_labels(y, classes)
    return Labels(classes, codes=codes)


def _holds_collections(y) -> bool:
    """Whether ``y`` is a sequence of label collections (multi-label); a mix of collections
    and single labels is an error naming the first of each."""
    if isinstance(y, np.ndarray) and y.dtype != object:
        return False
    if isinstance(y, np.ndarray | pd.Series) and pd.api.types.infer_dtype(
            y, skipna=False) in _SCALAR_INFERRED:
        return False
    is_list = [isinstance(v, _COLLECTIONS) for v in y]
    if not any(is_list):
        return False
    if all(is_list):
        return True
    values = list(y)
    first_list, first_scalar = is_list.index(True), is_list.index(False)
    raise TextsiftError(
        "the labels mix label lists and single labels: the "
        f"{show_value(values[first_list])} at row {first_list}, the "
        f"{show_value(values[first_scalar])} at row {first_scalar}; give every document a "
        "list of labels ([] for none) or every document one label")


def _from_lists(y, classes) -> Labels:
    values = list(y)
    lengths = np.fromiter(map(len, values), np.intp, len(values))
    flat = np.empty(int(lengths.sum()), dtype=object)
    flat[:] = list(chain.from_iterable(values))
    odd = [] if not len(flat) or pd.api.types.infer_dtype(
        flat, skipna=False) in _SCALAR_INFERRED else [
        i for i, v in enumerate(flat) if isinstance(v, (*_COLLECTIONS, dict)) or pd.isna(v)]
    if odd:  # (labels of two types are encode_labels' error)
        at = odd[0]
        row = int(np.searchsorted(np.cumsum(lengths), at, side="right"))
        raise TextsiftError(
            f"the label list at row {row} holds the {show_value(flat[at])}; a label list holds "
            "labels (strings or numbers), not lists or missing values")
    names, codes = encode_labels(flat, classes)
    rows = np.repeat(np.arange(len(values)), lengths)
    matrix = sp.csr_matrix((np.ones(len(flat), np.int8), (rows, codes)),
                           shape=(len(values), len(names)))
    matrix.sum_duplicates()  # a label given twice in one list counts once
    matrix.data[:] = 1
    return Labels(names, matrix=matrix)


def _from_indicator(Y, classes) -> Labels:
    if Y.ndim != 2 or Y.shape[1] < 2:
        raise TextsiftError(
            f"labels of shape {Y.shape}: one label per document is a 1-D array (pass "
            "y.ravel()), an indicator matrix has a column per label (at least two)")
    if not sp.issparse(Y) and Y.dtype.kind not in "biuf":
        raise TextsiftError(
            f"a 2-D label array must be an indicator matrix of 0 and 1 (as scikit-learn's "
            f"MultiLabelBinarizer gives), got dtype {Y.dtype}; pass label lists as a list of "
            "lists instead")
    Y = sp.csr_matrix(Y, copy=True)
    Y.sum_duplicates()
    Y.eliminate_zeros()
    if Y.data.size and not np.all(Y.data == 1):
        bad = Y.data[Y.data != 1][0]
        raise TextsiftError(f"an indicator matrix holds 0 and 1 only, found {bad!r}; "
                            "binarize it (Y > 0) if that is what it means")
    m = Y.shape[1]
    names = np.arange(m) if classes is None else np.asarray(classes)
    if names.shape != (m,):
        raise TextsiftError(f"{len(names)} class names for the {m} columns of the indicator "
                            "matrix; give one name per column")
    if len(np.unique(names)) != m:
        raise TextsiftError("the class names of an indicator matrix must be distinct")
    order = np.argsort(names, kind="stable")
    if not np.array_equal(order, np.arange(m)):
        Y, names = Y[:, order], names[order]
    Y.sort_indices()
    return Labels(names, matrix=sp.csr_matrix((np.ones(Y.nnz, np.int8), Y.indices, Y.indptr),
                                              shape=Y.shape))


def encode_labels(y, classes=None) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(classes, codes)`` with ``classes[codes] == y`` for one label per document.

    ``classes`` may be given to fix the class axis (e.g. the whole rating scale, including
    ranks with no documents); it is sorted, and a label outside it is an error.
    """
    y = np.asarray(y)
    if y.ndim != 1:
        raise TextsiftError(f"labels must be one-dimensional, got shape {y.shape}")
    if y.dtype == object:
        missing = np.flatnonzero(pd.isna(y))
        if len(missing):
            raise TextsiftError(
                f"{len(missing)} label(s) are missing (first at row {missing[0]}); "
                "drop those rows or fill the label field"
            )
    if classes is None:
        try:
            if y.dtype != object:
                classes, codes = np.unique(y, return_inverse=True)
            else:  # hashed, then only the distinct labels sorted: np.unique's result, sooner
                codes, found = pd.factorize(y)
                order = np.argsort(found)
                classes, codes = found[order], np.argsort(order)[codes]
        except TypeError:  # e.g. 1 and "b": no order, and is 1 the class "1"?
            kinds = sorted({type(v).__name__ for v in y})
            raise TextsiftError(f"the labels mix types ({', '.join(kinds)}); give every label "
                                "the same type, e.g. all strings") from None
        return classes, codes.astype(np.intp)
    declared = np.asarray(classes)
    classes = np.unique(declared)  # sorted, like the labels' own classes
    if len(classes) != len(declared):
        raise TextsiftError("classes must be distinct")
    if len(y) == 0:
        return classes, np.zeros(0, np.intp)
    codes = np.clip(np.searchsorted(classes, y), 0, len(classes) - 1)
    bad = classes[codes] != y
    if np.any(bad):
        unknown = np.unique(y[bad])[:5]
        raise TextsiftError(
            f"labels {list(unknown)} are not among the declared classes {list(classes)}")
    return classes, codes.astype(np.intp)


def check_ranks(y, ranks=None) -> tuple[np.ndarray, np.ndarray]:
    """Validate ordinal ranks; return ``(y as float64, the sorted scale)``.

    Ranks must be finite integers (``4.0`` is accepted; ``4.5`` and ``"4"`` are not). The
    scale is ``ranks`` when given (every ``y`` must lie in it) and the distinct values of
    ``y`` otherwise; it needs at least two ranks.
    """
    y = np.asarray(y)
    if y.ndim != 1:
        raise TextsiftError(f"ranks must be one-dimensional, got shape {y.shape}")
    if y.dtype.kind not in "biuf":
        raise TextsiftError(
            f"Unknown label type {y.dtype}: ordinal ranks must be numbers (e.g. 1-5 stars); "
            "convert the rating field to integers"
        )
    y = y.astype(np.float64)
    if not np.all(np.isfinite(y)):
        raise TextsiftError("ranks contain NaN or infinite values; drop unrated documents")
    if np.any(y != np.round(y)):
        bad = np.unique(y[y != np.round(y)])[:5]
        raise TextsiftError(
            f"ordinal ranks must be integers, got {bad.tolist()}; "
            "bin a continuous rating into ranks first"
        )
    if ranks is None:
        scale = np.unique(y)
    else:
        scale = np.asarray(ranks)
        if scale.ndim != 1 or scale.dtype.kind not in "biuf":
            raise TextsiftError(
                f"the declared scale must be a list of integer ranks, got {ranks!r}")
        scale = np.unique(scale.astype(np.float64))
        if not np.all(np.isfinite(scale)) or np.any(scale != np.round(scale)):
            raise TextsiftError(f"the declared scale must hold integer ranks, got {ranks!r}")
        outside = ~np.isin(y, scale)
        if np.any(outside):
            raise TextsiftError(
                f"ratings {np.unique(y[outside])[:5].tolist()} are outside the declared scale "
                f"{scale.tolist()}"
            )
    if len(scale) < 2:
        raise TextsiftError(
            f"an ordinal scale needs at least two ranks, got one class {scale.tolist()}; "
            "declare the full scale (ranks=...) if the data show only one"
        )
    return y, scale


def numeric_labels(values, field: str) -> np.ndarray:
    """A label field as float64 ratings (``"4"`` is read as 4); any non-numeric value is an
    error naming the field and the fix."""
    y = pd.to_numeric(pd.Series(values), errors="coerce")
    bad = y.isna().to_numpy() & ~pd.isna(pd.Series(values)).to_numpy()
    if bad.any():
        found = pd.Series(values)[bad].astype(str).unique()[:3].tolist()
        raise CorpusError(
            f"field {field!r} must be numeric (numeric ratings, e.g. 1-5 stars); found "
            f"non-numeric values {found}. Choose a numeric field such as 'rating'"
        )
    return y.to_numpy(dtype=np.float64)


# --------------------------------------------------------------------------- what methods need
def requirement_met(requires, multilabel: bool) -> bool:
    """Whether a labelling (multi-label or not) meets ``requires`` as far as the kind of
    labelling goes (every requirement of :data:`REQUIREMENTS` needs one label per document)."""
    requires = (requires,) if isinstance(requires, str) else tuple(requires or ())
    unknown = set(requires) - set(REQUIREMENTS)
    if unknown:
        raise TextsiftError(f"unknown requirement(s) {sorted(unknown)}; a method may require "
                            f"{', '.join(REQUIREMENTS)}")
    return not (multilabel and requires)


def check_requirement(requires, counts, method: str, source=None) -> None:
    """The one check of a method against a labelling: refuse ``counts`` (anything with
    ``multilabel`` and ``classes``: a :class:`~textsift.counts.Counts` or a :class:`Labels`)
    if a method that ``requires`` these (``Method.requires``) cannot score it, in one message
    naming ``source``, the corpus, when given: label lists for any requirement (each needs
    one label per document); labels that are not integer ranks for ``"ranks"``
    (:func:`check_ranks` says why); other than two classes for ``"two_classes"``.
    :func:`textsift.scores.compute` calls it where a method meets counts."""
    requires = (requires,) if isinstance(requires, str) else tuple(requires or ())
    where = f"{source}: " if source else ""
    if not requirement_met(requires, counts.multilabel):
        what = {"ranks": "ordered ranks", "single_label": "one class per document",
                "two_classes": "two classes"}[requires[0]]
        raise TextsiftError(
            f"{where}{method} needs one label per document ({what}), but the documents have "
            "label lists (a multi-label corpus); choose a one-vs-rest method, which scores each "
            "label against the documents without it (e.g. chi2, ig, bns, log_odds_dirichlet; "
            "`textsift methods` lists them), or give each document one label")
    if "ranks" in requires:
        try:
            check_ranks(np.asarray(counts.classes))
        except TextsiftError as exc:
            raise TextsiftError(
                f"{where}{method} is an ordinal method: it needs ordered integer ranks as "
                f"labels (ratings such as 1-5 stars), and these labels are not ({exc}); choose "
                "a nominal method, e.g. chi2, ig or bns") from None
    if "two_classes" in requires and len(counts.classes) != 2:
        raise TextsiftError(f"{where}{method} needs exactly two classes; the labels have "
                            f"{len(counts.classes)}")


def check_labelled(counts) -> None:
    """Per-class scores need classes with documents: two for single-label counts (a class
    against the others), one for multi-label counts (a label against the documents without
    it). ``counts`` has ``class_sizes``, ``classes`` and ``multilabel``."""
    present = counts.classes[counts.class_sizes > 0]
    if counts.multilabel and len(present) == 0:
        raise TextsiftError("per-label scoring needs a label that some document has; no "
                            "document has a label. Check the label field")
    if not counts.multilabel and len(present) < 2:
        raise TextsiftError(
            "per-class scoring needs at least two classes with documents; got only one "
            f"class ({[str(c) for c in present]}). Check the label field."
        )


def check_class(counts, label, source) -> None:
    """``label`` (asked for with ``--class``) must be a class some document of ``source`` has;
    compared as text, as the command line gives it."""
    present = [str(c) for c in counts.classes[counts.class_sizes > 0]]
    if str(label) in present:
        return
    shown = ", ".join(present[:30]) + (" ..." if len(present) > 30 else "")
    raise CorpusError(f"{source}: no document has the class {str(label)!r} (--class); the "
                      f"classes with documents are {shown}. Choose one of them")


def holds_label_lists(values) -> bool:
    """Whether a label field's values are label lists (a multi-label corpus)."""
    return _holds_collections(values)


def check_one_label_each(multilabel: bool, source, what: str) -> None:
    """Refuse label lists where ``what`` (a command, a kind of experiment) reads one label per
    document: a multi-label corpus is scored by ``textsift score`` and the library."""
    if multilabel:
        raise CorpusError(
            f"{source}: {what} reads one label per document, but the labels are lists (a "
            "multi-label corpus); score it with `textsift score` (each label against the "
            "documents without it), or give each document one label")


def no_labels(source, field) -> CorpusError:
    """The error for a multi-label corpus whose label lists are all empty."""
    return CorpusError(
        f"{source}: no record has a label (the {field!r} list is empty in every record); "
        "a corpus needs labelled documents: fill the lists, or choose the field that holds "
        "the labels (--label-field)")


# --------------------------------------------------------------------------- fields of records
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
    if isinstance(value, _COLLECTIONS):
        return "list"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


_NUMBER_TYPES = ("integer", "floating", "mixed-integer-float", "decimal")


def label_type(column: pd.Series, source, unit: str = "record") -> str:
    """The type of a label field's values -- ``"string"``, ``"number"``, ``"boolean"`` or
    ``"list"`` (label lists: multi-label) -- checked: a missing label, an object, a list in
    some records and a single label in others, a list holding anything but strings, and
    labels of two types (``1`` and ``"b"``: is ``1`` the class ``"1"``?) are errors naming
    the records."""
    field = column.name
    missing = column.isna().to_numpy()
    if missing.any():
        raise CorpusError(
            f"{source}, {unit} {column.index[np.flatnonzero(missing)[0]]}: the record has no "
            f"label ({field!r} is missing or null); drop such records or fill the field "
            "(with [] for a document without labels, in a corpus of label lists)")
    if pd.api.types.is_bool_dtype(column.dtype):
        return "boolean"
    if pd.api.types.is_numeric_dtype(column.dtype):
        return "number"
    inferred = pd.api.types.infer_dtype(column, skipna=False)
    if inferred == "string":
        return "string"
    if inferred in _NUMBER_TYPES:
        return "number"
    kinds = [value_kind(v) for v in column]
    first = {}
    for i, kind in enumerate(kinds):
        first.setdefault(kind, i)
    odd = [first[k] for k in first if k not in (*_SCALAR_KINDS, "list")]
    if odd:
        i = min(odd)
        raise CorpusError(
            f"{source}, {unit} {column.index[i]}: the label {field!r} is the "
            f"{show_value(column.iloc[i])}; a label must be a string, a number or true/false "
            "(or, for several labels, a list of strings). Choose another label field "
            "(--label-field), or give each record one label")
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
    a, b = sorted(first.values())[:2]
    raise CorpusError(
        f"{source}: the label {field!r} mixes types: the {show_value(column.iloc[a])} at {unit} "
        f"{column.index[a]}, the {show_value(column.iloc[b])} at {unit} {column.index[b]}. Write "
        'every label as a string ("1") or every one as a number, so that each class has one '
        "name")


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
            raise CorpusError(
                f"the label {self.field!r} mixes types: {_a(self.first[0])} at "
                f"{self.first[1]}, {_a(kind)} at {where}. Write every label as a string (\"1\") "
                "or every one as a number, in every file, so that each class has one name")

    def finish(self, source) -> None:
        """After the last record: label lists that were empty in every record are an error."""
        if self.first is not None and self.first[0] == "list" and not self.labelled:
            raise no_labels(source, self.field)


def _a(kind: str) -> str:
    return {"string": "a string", "number": "a number", "boolean": "true/false",
            "list": "a list"}[kind]


def csv_labels(column: pd.Series, sep: str | None = None) -> pd.Series:
    """A CSV label field. Without ``sep``: each value that reads as a (finite) number becomes
    that number (CSV has no types; value by value, so that streamed chunks and the whole file
    agree). With ``sep`` (``--label-sep``): each value is the list of the labels it joins
    (``"earn;acq"`` -> ``["earn", "acq"]``), spaces around a label dropped, empty pieces
    ignored; an empty cell is a document without labels."""
    if sep is not None:
        return column.map(lambda v: [] if not isinstance(v, str) else
                          [p.strip() for p in v.split(sep) if p.strip()])
    numbers = pd.to_numeric(column, errors="coerce")
    readable = numbers.notna() & np.isfinite(numbers.astype(float))
    if (readable | column.isna()).all():
        return numbers
    if not readable.any():
        return column
    out = column.astype(object)
    out[readable] = numbers[readable].astype(object)
    return out


# --------------------------------------------------------------------------- spelling
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
        if isinstance(value, _COLLECTIONS):
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


def _differences(group) -> list[str]:
    """How the labels of a group of :func:`similar_labels` differ: by white space, by case."""
    stripped = {c.strip() for c in group}
    return [k for k, differ in (("white space", len(stripped) < len(group)),
                                ("case", len(stripped) > 1)) if differ]


def unseen_classes(y_train, y_test) -> dict:
    """The classes of ``y_test`` that ``y_train`` never has, each with its number of test
    documents (one label per document): no learner has seen an example of them."""
    test, n = np.unique(np.asarray(y_test), return_counts=True)
    unseen = ~np.isin(test, np.unique(np.asarray(y_train)))
    return dict(zip(test[unseen].tolist(), n[unseen].tolist(), strict=True))
