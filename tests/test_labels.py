"""textsift.labels: every encoding of a labelling reads into one Labels, and bad labels are
refused with a message naming the row and the fix."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from sklearn.preprocessing import MultiLabelBinarizer

from textsift.errors import CorpusError, TextsiftError
from textsift.labels import (
    LabelKind,
    as_labels,
    check_requirement,
    csv_labels,
    label_type,
    read_labels,
)

LISTS = [["earn"], ["acq", "earn", "grain"], [], ["grain"], ["earn", "earn"]]


def dense(labels):
    return labels.indicator.toarray().tolist()


def test_label_lists_read_into_a_sorted_indicator_with_empty_rows_kept():
    labels = as_labels(LISTS)
    assert labels.multilabel
    assert labels.classes.tolist() == ["acq", "earn", "grain"]
    assert dense(labels) == [[0, 1, 0], [1, 1, 1], [0, 0, 0], [0, 0, 1], [0, 1, 0]]
    assert labels.class_sizes.tolist() == [1, 3, 2]  # a label given twice counts once
    assert labels.n_docs == 5


def test_sets_tuples_and_numpy_rows_are_label_lists_too():
    as_sets = as_labels([set(v) for v in LISTS])
    as_tuples = as_labels(pd.Series([tuple(v) for v in LISTS]))
    as_arrays = np.empty(len(LISTS), dtype=object)
    as_arrays[:] = [np.array(v, dtype=object) for v in LISTS]  # how Parquet lists arrive
    for other in (as_sets, as_tuples, as_labels(as_arrays)):
        assert other.classes.tolist() == ["acq", "earn", "grain"]
        assert dense(other) == dense(as_labels(LISTS))


def test_an_indicator_matrix_dense_or_sparse_reads_with_its_column_names_sorted():
    mlb = MultiLabelBinarizer(classes=["grain", "acq", "earn"])  # column order not sorted
    Y = mlb.fit_transform(LISTS)
    for given_ in (Y, sp.csr_matrix(Y), Y.astype(bool)):
        labels = as_labels(given_, classes=mlb.classes_)
        assert labels.classes.tolist() == ["acq", "earn", "grain"]
        assert dense(labels) == dense(as_labels(LISTS))
    assert as_labels(Y).classes.tolist() == [0, 1, 2]  # no names: the column numbers


def test_one_label_per_document_stays_single_label():
    labels = as_labels(np.array(["b", "a", "b"], dtype=object))
    assert not labels.multilabel
    assert labels.codes.tolist() == [1, 0, 1]
    assert dense(labels) == [[0, 1], [1, 0], [0, 1]]


def test_declared_classes_fix_the_label_axis():
    labels = as_labels(LISTS, classes=["grain", "earn", "acq", "ship"])
    assert labels.classes.tolist() == ["acq", "earn", "grain", "ship"]
    assert labels.class_sizes.tolist() == [1, 3, 2, 0]
    with pytest.raises(TextsiftError, match=r"labels \['grain'\] are not among the declared"):
        as_labels(LISTS, classes=["acq", "earn"])


@pytest.mark.parametrize("y, message", [
    ([["a"], "b"], r"mix label lists and single labels: the list \['a'\] at row 0, the "
                   r"string 'b' at row 1"),
    ([["a"], [["b"]]], r"the label list at row 1 holds the list \['b'\]"),
    ([["a"], ["b", None]], r"the label list at row 1 holds the null;"),
    ([["a"], [1]], r"the label lists mix types: string labels \(the first at row 0\) and "
                   r"number labels \(the first at row 1\)"),
    ([["a", "b", "c"], ["d", 1]], r"string labels \(the first at row 0\) and number labels "
                                  r"\(the first at row 1\)"),  # row 1, not the 5th label
    (np.array([["a", "b"], ["c", "d"]]), r"a 2-D label array must be an indicator matrix"),
    (np.array([[0], [1]]), r"labels of shape \(2, 1\): .*pass y\.ravel\(\)"),
    (np.array([[0, 2], [1, 0]]), r"an indicator matrix holds 0 and 1 only, found 2"),
    ("ab", r"got the string 'ab'"),
])
def test_bad_labellings_are_refused_by_row(y, message):
    with pytest.raises(TextsiftError, match=message):
        as_labels(y)


def test_indicator_names_must_match_its_columns():
    with pytest.raises(TextsiftError, match="2 class names for the 3 columns"):
        as_labels(np.eye(3, dtype=int), classes=["a", "b"])
    with pytest.raises(TextsiftError, match="must be distinct"):
        as_labels(np.eye(3, dtype=int), classes=["a", "b", "a"])


@given(st.lists(st.sets(st.sampled_from("abcdef"), max_size=4), min_size=1, max_size=30))
def test_lists_read_exactly_as_multilabel_binarizer_reads_them(rows):
    """Invariant: our indicator is scikit-learn's MultiLabelBinarizer's, same classes."""
    mlb = MultiLabelBinarizer()
    Y = mlb.fit_transform(rows)
    labels = as_labels(rows)
    assert labels.classes.tolist() == mlb.classes_.tolist()
    np.testing.assert_array_equal(labels.indicator.toarray(), Y)


def test_a_method_needing_one_label_per_document_refuses_label_sets():
    multi, single = as_labels(LISTS), as_labels(["a", "b"])
    for need in ("ranks", "single_label", "two_classes", ("single_label",)):
        assert LabelKind.ORDINAL.meets(need)  # ranks are one label per document
        assert not LabelKind.MULTILABEL.meets(need)
    assert LabelKind.MULTILABEL.meets(())
    assert not LabelKind.NOMINAL.meets("ranks") and LabelKind.NOMINAL.meets("two_classes")
    check_requirement("single_label", single, "ig_multi")  # no error
    with pytest.raises(TextsiftError, match=r"^DATA: ig_multi needs one label per document "
                                            r"\(one class per document\), but the documents "
                                            r"have label lists"):
        check_requirement("single_label", multi, "ig_multi", "DATA")
    with pytest.raises(TextsiftError, match="unknown requirement"):
        LabelKind.NOMINAL.meets("sorted")


def test_label_types_of_a_field():
    assert label_type(pd.Series([["a"], [], ["b", "c"]], name="l"), "f") == "list"
    assert label_type(pd.Series(["a", "b"], name="l"), "f") == "string"
    with pytest.raises(CorpusError, match=r"f, line 2: the label 'l' is the list \['a', 3\], "
                                          r"which holds the number 3"):
        label_type(pd.Series([["a"], ["a", 3]], name="l", index=[1, 2]), "f", "line")
    with pytest.raises(CorpusError, match=r"f: the label 'l' is a list in some records and a "
                                          r"single label in others: the list \['a'\] at line 1, "
                                          r"the string 'b' at line 2"):
        label_type(pd.Series([["a"], "b"], name="l", index=[1, 2]), "f", "line")


def test_csv_labels_split_on_the_separator_and_an_empty_label_names_no_class():
    # one rule for every format: an empty label in a list is dropped -- the CSV field
    # "earn;;" with --label-sep ; as the JSON list ["earn", "", " "]
    column = pd.Series(["earn;acq", " grain ", np.nan, "earn;;", "7"], name="l")
    assert read_labels(csv_labels(column, ";"), "f").tolist() == [
        ["earn", "acq"], ["grain"], [], ["earn"], ["7"]]
    assert read_labels(pd.Series([["earn", "", " "], []], name="l"), "f").tolist() == [
        ["earn"], []]
    # a single empty label is a missing one, as an empty CSV cell is
    with pytest.raises(CorpusError, match=r"f, line 2: the record has no label \('l' is "
                                          r"missing, null or empty\)"):
        label_type(read_labels(pd.Series(["a", " "], name="l", index=[1, 2]), "f"), "f",
                   "line")


def test_csv_labels_are_the_strings_written_and_ranks_read_them_as_numbers():
    # CSV has no types: 01 and 1 are two classes, 1 and b one type (strings); where the
    # labels must be ranks, every format's are numbers: "01", 1 and "1.0" are the rank 1
    column = pd.Series(["01", "1", "b"], name="l")
    assert csv_labels(column).tolist() == ["01", "1", "b"]
    assert label_type(read_labels(csv_labels(column), "f"), "f") == "string"
    ranks = read_labels(pd.Series(["01", 1, " 1.0 ", "2"], name="r"), "f", ranks=True)
    assert ranks.tolist() == [1, 1, 1, 2] and ranks.dtype.kind == "f"
    assert read_labels(pd.Series([4, 5], name="r"), "f", ranks=True).dtype.kind == "i"
    with pytest.raises(CorpusError, match=r"f.csv, record 3: the label 'r' is 'b', not a "
                                          r"number; ranks are numbers"):
        read_labels(csv_labels(column.rename("r").set_axis([1, 2, 3])), "f.csv", ranks=True)
