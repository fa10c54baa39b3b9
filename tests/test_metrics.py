"""MAE^M and MAE^mu (Baccianella, Esuli & Sebastiani, ISDA 2009), the misclassification error
(the AdaBag paper's ME), and the measure registry."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import accuracy_score, mean_absolute_error
from toys import toy

from textsift.labels.ranks import trivial_rank
from textsift.learners.metrics import (
    mae_macro,
    mae_macro_scorer,
    mae_micro,
    misclassification_error,
)

TRUE = [1, 2, 2, 3, 5, 5, 5, 5]  # worked by hand: mae_macro's docstring example
PRED = [2, 2, 3, 3, 4, 5, 5, 5]


def test_a11_mae_example():
    # per-rank errors r1 1.0, r2 0.5, r3 0, r5 0.25 (r4 absent): 1.75 / 4
    assert mae_macro(TRUE, PRED) == pytest.approx(0.4375, abs=1e-15)
    assert mae_micro(TRUE, PRED) == pytest.approx(0.375, abs=1e-15)
    # "always 3": (2 + 1 + 0 + 2) / 4 because r4 is absent
    assert mae_macro(TRUE, [3] * 8) == pytest.approx(1.25, abs=1e-15)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 5), min_size=1, max_size=40))
def test_triv_is_1_2_on_any_five_rank_test_set_with_every_rank(extra):
    y = np.r_[1, 2, 3, 4, 5, extra]
    assert mae_macro(y, np.full(len(y), trivial_rank([1, 2, 3, 4, 5]))) == pytest.approx(1.2)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), min_size=1, max_size=50))
def test_macro_is_the_mean_of_per_rank_maes_and_micro_is_sklearn(pairs):
    y, p = np.array(pairs).T
    per_rank = [np.abs(p[y == r] - r).mean() for r in np.unique(y)]
    assert mae_macro(y, p) == pytest.approx(np.mean(per_rank), abs=1e-12)
    assert mae_micro(y, p) == pytest.approx(mean_absolute_error(y, p), abs=1e-15)
    assert misclassification_error(y, p) == pytest.approx(1 - accuracy_score(y, p))



@settings(max_examples=60, deadline=None)
@given(st.integers(1, 12), st.integers(1, 4), st.data())
def test_misclassification_error_of_label_sets_is_one_minus_subset_accuracy(n, m, data):
    # a document counts as wrong when any of its labels is; scikit-learn's accuracy_score on
    # indicator matrices is the subset accuracy
    cells = st.lists(st.integers(0, 1), min_size=n * m, max_size=n * m)
    Y = np.array(data.draw(cells)).reshape(n, m)
    P = np.array(data.draw(cells)).reshape(n, m)
    assert misclassification_error(Y, P) == pytest.approx(1 - accuracy_score(Y, P))

def test_trivial_rank_is_the_lower_middle_rank():
    assert trivial_rank([1, 2, 3, 4, 5]) == 3
    assert trivial_rank([0, 1, 2, 3]) == 1  # even scale: the lower middle (our tie rule)
    assert trivial_rank([5, 1, 4, 2]) == 2


def test_scorer_is_negated_mae_macro():
    from sklearn.dummy import DummyRegressor

    always3 = DummyRegressor(strategy="constant", constant=3).fit(np.zeros((8, 1)), TRUE)
    assert mae_macro_scorer(always3, np.zeros((8, 1)), TRUE) == pytest.approx(-1.25)


@pytest.mark.parametrize("y_true, y_pred, message", [
    ([1, 2], [1], "one prediction per test document"),
    ([], [], "empty test set"),
    ([1, np.nan], [1, 2], "NaN"),
    (["a", "b"], [1, 2], "numeric ranks"),
    ([[1, 2]], [[1, 2]], "one-dimensional"),
])
def test_bad_input(y_true, y_pred, message):
    with pytest.raises(ValueError, match=message):
        mae_macro(y_true, y_pred)


def test_true_ranks_outside_declared_scale():
    with pytest.raises(ValueError, match="outside the declared scale"):
        mae_macro([1, 6], [1, 5], ranks=[1, 2, 3, 4, 5])
    assert mae_macro([1, 5], [1, 4], ranks=[1, 2, 3, 4, 5]) == pytest.approx(0.5)


def test_misclassification_error_bad_input():
    assert misclassification_error(["a", "b", "a"], ["a", "a", "a"]) == pytest.approx(1 / 3)
    with pytest.raises(ValueError, match="labels"):
        misclassification_error([1, 2], [1])


# --------------------------------------------------------------------------- the registry
def test_every_measure_s_direction_agrees_with_its_values_on_perfect_and_worst_predictions():
    """For each registered measure and each label kind it serves: a perfect prediction is
    strictly better than one wrong on every decision, in the direction the registry states
    (what the tuning and the report read). The truth is the kind's toy (``tests/toys.py``:
    its example labels as learners and measures take them), the wrong prediction the kind's
    own rule (``toys.wrong``: classes moved to the next, ranks to the far end of the
    scale, every label of a label set flipped), the scale the toy's ranks; a measure of the
    positive class reads the toy's binary task (the first document's class against the rest,
    coded 0/1 as an experiment codes neg/pos). Read from the registries, so a measure or a
    kind added later is checked without editing this test."""
    from textsift.learners.metrics import MEASURES, lower_is_better

    for name, m in MEASURES.items():
        assert lower_is_better(name) is m.lower_is_better
        for task in m.label_kinds:
            t = toy(task).binary if m.positive else toy(task)
            context = {"ranks": t.classes.tolist(), "pos_label": 1}
            perfect, bad = m(t.y, t.y, **context), m(t.y, t.wrong, **context)
            assert (perfect < bad) if m.lower_is_better else (perfect > bad), (name, task)


def test_a_measure_registered_after_import_is_read_by_the_report():
    """No copy of the registry is taken at import: a lower-is-better measure registered
    later makes the report's best method the one of the smaller mean (a frozen set of the
    errors, read by the report, made it the largest)."""
    import pandas as pd

    from textsift.learners.metrics import MEASURES, register_measure
    from textsift.report.html import best_per_size
    from textsift.report.terms import best_method

    register_measure("probe_error", "an error", lower_is_better=True)(lambda y, p: 0.0)
    try:
        summary = pd.DataFrame({"dataset": "d", "learner": "nb", "metric": "probe_error",
                                "method": ["a", "b"], "aggregate": "max", "n_features": 10,
                                "mean": [0.1, 0.3], "std": 0.0, "folds": 1})
        assert best_method(summary, "nb", "probe_error") == ("a", "max")
        assert best_per_size(summary).loc["10", ("nb", "probe_error")] == "a (0.1000)"
    finally:
        del MEASURES["probe_error"]


def test_a_measure_reads_its_context_from_its_signature():
    """The registry's worked values: F1 of a class as scikit-learn's, MAE^M on its scale."""
    from sklearn.metrics import f1_score

    from textsift.learners.metrics import MEASURES, get_measure

    assert MEASURES["misclassification_error"].func is misclassification_error
    assert MEASURES["mae_macro"].context == ("ranks",) and MEASURES["f1_pos"].positive
    y, p = np.array([0, 1, 1, 0, 1]), np.array([0, 1, 0, 0, 0])
    # the class 1: 1 of its 3 documents found, 1 of 1 prediction right: F1 = 2 / (3 + 1)
    assert get_measure("f1_pos")(y, p, pos_label=1) == pytest.approx(0.5)
    assert get_measure("f1_pos")(y, p, pos_label=0) == pytest.approx(
        f1_score(y, p, pos_label=0))
    assert get_measure("macro_f1")(y, p) == pytest.approx(f1_score(y, p, average="macro"))
    assert get_measure("mae_macro")(TRUE, PRED, ranks=[1, 2, 3, 4, 5]) == 0.4375
    with pytest.raises(ValueError, match="unknown measure 'accurracy'.*'accuracy'"):
        get_measure("accurracy")
