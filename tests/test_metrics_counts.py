"""The measures of one integer label per document (an experiment's class codes) are computed
from three ``bincount`` of the labels, not through scikit-learn's checks: the same values, to
the bit, as scikit-learn's ``accuracy_score`` and ``f1_score`` (micro and macro, zero
division 0), which every other input still goes to."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import accuracy_score, f1_score

from textsift.learners.metrics import MEASURES


def test_a_worked_example():
    """Class 0: TP 1, 2 true, 1 predicted: F1 2/3; class 1: 1, 1, 3: 2/4; class 2: 0, 1, 0: 0.
    Macro-F1 (2/3 + 1/2 + 0) / 3 = 7/18; micro-F1 2 * 2 / (4 + 4) = 1/2; accuracy 2/4."""
    y, pred = np.array([0, 0, 1, 2]), np.array([0, 1, 1, 1])
    assert MEASURES["macro_f1"](y, pred) == (2 / 3 + 0.5 + 0) / 3
    assert abs(MEASURES["macro_f1"](y, pred) - 7 / 18) < 1e-15
    assert MEASURES["micro_f1"](y, pred) == 0.5
    assert MEASURES["accuracy"](y, pred) == 0.5


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 120).flatmap(lambda n: st.tuples(
    st.lists(st.integers(-3, 12), min_size=n, max_size=n),
    st.lists(st.integers(0, 15), min_size=n, max_size=n),
    st.lists(st.booleans(), min_size=n, max_size=n))))
def test_integer_labels_measure_as_scikit_learn(data):
    truth, guess, same = (np.array(v) for v in data)
    truth = truth.astype(np.int64)
    pred = np.where(same, truth, guess).astype(np.int64)  # many right answers, some wrong
    for name, expected in (
            ("accuracy", accuracy_score(truth, pred)),
            ("micro_f1", f1_score(truth, pred, average="micro", zero_division=0)),
            ("macro_f1", f1_score(truth, pred, average="macro", zero_division=0))):
        got = MEASURES[name](truth, pred)
        assert type(got) is float and got == expected, (name, got, expected)


def test_names_and_label_sets_still_go_to_scikit_learn():
    """Strings and indicator matrices are not integer codes: scikit-learn measures them."""
    assert MEASURES["macro_f1"](np.array(["a", "b"]), np.array(["a", "a"])) == (2 / 3 + 0) / 2
    y = np.array([[1, 0], [0, 1], [1, 1]])
    pred = np.array([[1, 0], [1, 1], [0, 1]])
    assert MEASURES["micro_f1"](y, pred) == f1_score(y, pred, average="micro")
    assert MEASURES["accuracy"](y, pred) == 1 / 3


def test_codes_far_apart_measure_as_scikit_learn():
    """Labels 0, 7 and 10**9 (too far apart to be ranked by a table of counts: sorted
    instead): class 0 TP 1 of 2 true, 1 predicted, F1 2/3; class 7: 1, 1, 2: 2/3; class
    10**9: 0, 1, 1: 0. Macro-F1 (2/3 + 2/3 + 0) / 3 = 4/9, micro-F1 and accuracy 2/4."""
    y, pred = np.array([0, 0, 7, 10**9]), np.array([0, 10**9, 7, 7])
    assert MEASURES["macro_f1"](y, pred) == f1_score(y, pred, average="macro", zero_division=0)
    assert abs(MEASURES["macro_f1"](y, pred) - 4 / 9) < 1e-15
    assert MEASURES["micro_f1"](y, pred) == 0.5
    assert MEASURES["accuracy"](y, pred) == 0.5
