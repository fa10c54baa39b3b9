"""The value type of a labelling (:class:`Labels`) and its encodings: single labels, label lists
and sets, indicator matrices; ordinal ranks and numeric ratings."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from itertools import chain

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..errors import CorpusError, TextsiftError
from ._unicode import nfc_array
from ._values import (
    COLLECTIONS,
    NUMBER_TYPES,
    SCALAR_INFERRED,
    SCALAR_KINDS,
    infinite_label,
    kinds_first_seen,
    mixed_types,
    show_value,
)


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

    def take(self, rows) -> Labels:
        """The labelling of the documents ``rows`` (an index array or a boolean mask), over
        the same classes (a class may then have no document)."""
        if self.multilabel:
            return Labels(self.classes, matrix=self.matrix[rows])
        return Labels(self.classes, codes=self.codes[rows])


#: Which labels an evaluation of label sets learns and measures (:func:`evaluated_labels`).
LABEL_SETS = ("train_and_test", "all")


def evaluated_labels(train, test, which: str) -> np.ndarray:
    """The labels an evaluation of label sets learns and measures, as column indices of the
    0/1 indicators ``train`` and ``test`` (documents x labels, sparse or dense, over the same
    labels): ``"all"``, every label; ``"train_and_test"``, those with at least one training
    and one test document (the usual reading of Reuters-21578 ModApte's 90 categories: a label
    without training documents cannot be learned, one without test documents not measured)."""
    if which not in LABEL_SETS:
        raise TextsiftError(f"unknown label set {which!r}; choose one of "
                            f"{', '.join(LABEL_SETS)}")
    if which == "all":
        return np.arange(train.shape[1])
    in_train = np.asarray((train != 0).sum(axis=0)).ravel() > 0
    in_test = np.asarray((test != 0).sum(axis=0)).ravel() > 0
    return np.flatnonzero(in_train & in_test)


def as_labels(y, classes=None) -> Labels:
    """The :class:`Labels` of ``y``, in any encoding of the module docstring.

    ``classes`` fixes the class axis: for single labels and label lists, the declared class
    set (sorted; a label outside it is an error, a declared class may have no document); for
    an indicator matrix, the name of each column, in column order (default ``0 .. m-1``;
    columns are reordered so that the names are sorted), every column with a document (an
    all-zero column is an error that says how to declare such a label). A :class:`Labels` is
    taken as it is.

    String labels (and declared classes) are read in Unicode NFC, as a file's are, with a
    :class:`~textsift.errors.DataWarning` when that makes two distinct labels one class
    (:class:`~textsift.labels.LabelForms`); labels of two types (``[1, "b"]``), a missing
    label and an infinite one are errors naming the row, with a file's messages.
    """
    if isinstance(y, Labels):
        if classes is not None and not np.array_equal(np.asarray(classes), y.classes):
            raise TextsiftError("classes differ from the classes of the Labels given")
        return y
    if not sp.issparse(y) and hasattr(y, "__array__") and not isinstance(
            y, np.ndarray | pd.Series):
        y = np.asarray(y)  # an array-like that is not a sequence (scikit-learn's checks)
    if sp.issparse(y) or (isinstance(y, np.ndarray) and y.ndim == 2):
        return _from_indicator(y, classes)
    if isinstance(y, str):
        raise TextsiftError("labels must be a sequence with one label (or label list) per "
                            f"document, got the string {y!r}")
    if holds_collections(y):
        return _from_lists(y, classes)
    classes, codes = encode_labels(y, classes)
    return Labels(classes, codes=codes)


def holds_collections(y) -> bool:
    """Whether ``y`` is a sequence of label collections (multi-label); a mix of collections
    and single labels is an error naming the first of each."""
    if isinstance(y, np.ndarray) and y.dtype != object:
        return False
    if isinstance(y, np.ndarray | pd.Series) and pd.api.types.infer_dtype(
            y, skipna=False) in SCALAR_INFERRED:
        return False
    is_list = [isinstance(v, COLLECTIONS) for v in y]
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
        flat, skipna=False) in SCALAR_INFERRED else [
        i for i, v in enumerate(flat) if isinstance(v, (*COLLECTIONS, dict)) or pd.isna(v)]
    ends = np.cumsum(lengths)
    if odd:  # (labels of two types are encode_labels' error)
        at = odd[0]
        row = int(np.searchsorted(ends, at, side="right"))
        raise TextsiftError(
            f"the label list at row {row} holds the {show_value(flat[at])}; a label list holds "
            "labels (strings or numbers), not lists or missing values")
    try:
        names, codes = encode_labels(flat, classes)
    except CorpusError as exc:  # two types: the rows are the documents', not the labels'
        first = {k: int(np.searchsorted(ends, i, side="right"))
                 for k, i in kinds_first_seen(flat).items() if k in SCALAR_KINDS}
        if len(first) < 2:
            raise
        (a, ra), (b, rb) = sorted(first.items(), key=lambda kv: kv[1])[:2]
        raise TextsiftError(
            f"the label lists mix types: {a} labels (the first at row {ra}) and {b} labels "
            f"(the first at row {rb}). Write every label as a string (\"1\") or every one as "
            "a number, so that each class has one name") from exc
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
    empty = np.flatnonzero(np.bincount(Y.indices, minlength=m) == 0)
    if len(empty):
        shown = ", ".join(map(str, names[empty[:5]])) + (" ..." if len(empty) > 5 else "")
        raise TextsiftError(
            f"{len(empty)} label(s) of the indicator matrix have no document (all-zero "
            f"columns: {shown}); a label that no document has cannot be scored or learned. "
            "Drop those columns (Y[:, Y.sum(axis=0) > 0], with their names), or give the "
            "labels as lists with classes= naming every label (a declared label may have no "
            "document, as in a part of a split)")
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
    y = _checked_values(y)
    if y.ndim != 1:
        raise TextsiftError(f"labels must be one-dimensional, got shape {y.shape}")
    y = nfc_array(y)
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
    declared = nfc_array(np.asarray(classes))  # in the labels' Unicode form
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


def _checked_values(y) -> np.ndarray:
    """One label per document as an array, checked as a file's label field is: a missing
    label (``None``, NaN) and an infinite number are errors naming the row, and so are labels
    of two types -- ``[1, "b"]``, which ``np.asarray`` would silently make the strings
    ``"1"`` and ``"b"`` -- with the message of a file's (``mixed_types``)."""
    if not isinstance(y, np.ndarray | pd.Series | list | tuple) and hasattr(y, "__array__"):
        y = np.asarray(y)  # an array-like that is not a sequence (scikit-learn's checks)
    if isinstance(y, np.ndarray) and (y.ndim != 1 or y.dtype.kind not in "fO"):
        return y
    column = (y if isinstance(y, pd.Series) else pd.Series(
        y if isinstance(y, np.ndarray) else list(y))).reset_index(drop=True).rename(None)
    if column.dtype.kind not in "fO":
        return column.to_numpy()
    missing = np.flatnonzero(column.isna().to_numpy())
    if len(missing):  # NaN is a missing label, never a class
        raise TextsiftError(
            f"{len(missing)} label(s) are missing (first at row {missing[0]}); "
            "drop those rows or fill the label field")
    inferred = pd.api.types.infer_dtype(column)
    if inferred in ("mixed", "mixed-integer"):
        first = {k: i for k, i in kinds_first_seen(column).items() if k in SCALAR_KINDS}
        if len(first) > 1:
            raise mixed_types(column, first)
    if column.dtype.kind == "f" or inferred in NUMBER_TYPES:
        infinite = infinite_label(column)
        if infinite is not None:
            raise infinite
    return np.asarray(y)


def check_ranks(y, ranks=None) -> tuple[np.ndarray, np.ndarray]:
    """Validate ordinal ranks; return ``(y as float64, the sorted scale)``.

    Ranks must be finite integers (``4.0`` is accepted; ``4.5`` and ``"4"`` are not). The
    scale is ``ranks`` when given (every ``y`` must lie in it) and the distinct values of
    ``y`` otherwise; it needs at least two ranks.
    """
    if isinstance(y, list | tuple | pd.Series) and holds_collections(y):
        raise label_lists_for_ranks(y)
    y = np.asarray(y)
    if y.ndim != 1:
        raise TextsiftError(f"ranks must be one-dimensional, got shape {y.shape}")
    if y.dtype == object and len(y) and holds_collections(y):
        raise label_lists_for_ranks(y)
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


def label_lists_for_ranks(values=None, field: str | None = None) -> TextsiftError:
    """The one error for label lists where ranks are needed (an ordinal method or command on
    a multi-label corpus), naming the first list and what to do."""
    first = next((v for v in values if isinstance(v, COLLECTIONS)), None) \
        if values is not None else None
    what = f"the label field {field!r} holds" if field else "the labels are"
    shown = f" (the first: {show_value(first)})" if first is not None else ""
    return CorpusError(
        f"{what} label lists{shown}, a multi-label corpus; ordinal methods and commands "
        "need one rank per document, a rating such as 1-5 stars. Choose the field that holds "
        "the ratings (--label-field), or score each label against the documents without it "
        "with a method of classes (textsift score --method chi2, ig or bns)")


def numeric_labels(values, field: str) -> np.ndarray:
    """A label field as float64 ratings (``"4"`` is read as 4); any non-numeric value is an
    error naming the field and the fix (label lists: :func:`label_lists_for_ranks`)."""
    if holds_collections(pd.Series(values)):
        raise label_lists_for_ranks(values, field)
    y = pd.to_numeric(pd.Series(values), errors="coerce")
    bad = y.isna().to_numpy() & ~pd.isna(pd.Series(values)).to_numpy()
    if bad.any():
        found = pd.Series(values)[bad].astype(str).unique()[:3].tolist()
        raise CorpusError(
            f"field {field!r} must be numeric (numeric ratings, e.g. 1-5 stars); found "
            f"non-numeric values {found}. Choose a numeric field such as 'rating'"
        )
    return y.to_numpy(dtype=np.float64)
