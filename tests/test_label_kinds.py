"""textsift.labels.LabelKind: the kind of a labelling and its rules, and the one decision of a
corpus's kind (decide_kind)."""

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from toys import toy

from textsift.errors import TextsiftError
from textsift.labels import LabelKind, decide_kind
from textsift.learners import LEARNERS
from textsift.learners.metrics import MEASURES
from textsift.scores import REGISTRY

NOMINAL, ORDINAL, MULTILABEL = LabelKind.NOMINAL, LabelKind.ORDINAL, LabelKind.MULTILABEL


@pytest.mark.parametrize(("declared", "lists", "kind"), [
    ("nominal", False, NOMINAL), ("nominal", True, MULTILABEL),  # the labels decide
    ("ordinal", False, ORDINAL), ("multilabel", True, MULTILABEL)])
def test_the_labels_decide_between_the_kinds_a_declaration_may_be(declared, lists, kind):
    assert decide_kind(declared, lists, "label") is kind
    assert kind.declared is LabelKind(declared) or kind is LabelKind(declared)


@pytest.mark.parametrize(("declared", "lists", "message"), [
    ("ordinal", True, "[corpus] label_kind = 'ordinal' reads one rating per document, but the "
                      "label field 'stars' holds lists (a multi-label corpus); set label_kind = "
                      "'multilabel' or 'nominal'"),
    ("multilabel", False, "[corpus] label_kind = 'multilabel', but the label field 'stars' holds "
                          "one label per record, not a list; write each record's labels as a "
                          "list (or a CSV field with [corpus] label_sep), or set label_kind = "
                          "'nominal' or 'ordinal'")])
def test_a_declaration_the_labels_do_not_fit_names_the_field_and_the_fix(declared, lists,
                                                                         message):
    with pytest.raises(TextsiftError) as err:
        decide_kind(declared, lists, "stars")
    assert str(err.value).startswith(message)


def test_a_kind_is_its_name_as_a_string():
    """The TOML value, experiment.json and the messages keep the names."""
    assert NOMINAL == "nominal" and f"{ORDINAL}" == "ordinal" and LabelKind("multilabel") is (
        MULTILABEL)
    assert LabelKind.possible("nominal") == (NOMINAL, MULTILABEL)
    assert LabelKind.possible("ordinal") == (ORDINAL,)


def test_which_methods_serve_each_kind():
    """A method of ranks serves the ordinal kind only; a method of classes serves classes and
    ranks (as classes), and label sets when it requires nothing of one label per document
    (ig_multi, which reads the classes as a partition, does not)."""
    for m in REGISTRY.values():
        assert ORDINAL.serves(m)
        assert NOMINAL.serves(m) == (m.kind == "nominal")
        assert MULTILABEL.serves(m) == (m.kind == "nominal" and not m.requires)
    assert not MULTILABEL.serves(REGISTRY["ig_multi"]) and NOMINAL.serves(REGISTRY["ig_multi"])
    assert not NOMINAL.serves(REGISTRY["rr_igor"])


def test_learners_and_measures_serve_the_kinds_they_declare():
    """A registered learner or measure serves exactly the kinds it declares (members of
    LabelKind), whatever is registered: svr, a regression on the ranks, serves ranks and not
    label sets; MAE^M measures ranks, samples_f1 label sets."""
    for entry in [*LEARNERS.values(), *MEASURES.values()]:
        assert entry.label_kinds and all(isinstance(k, LabelKind) for k in entry.label_kinds)
        assert [k for k in LabelKind if k.serves(entry)] == [
            k for k in LabelKind if k in entry.label_kinds]
    assert ORDINAL.serves(LEARNERS["svr"]) and not MULTILABEL.serves(LEARNERS["svr"])
    assert ORDINAL.serves(MEASURES["mae_macro"]) and not NOMINAL.serves(MEASURES["mae_macro"])
    assert MULTILABEL.serves(MEASURES["samples_f1"]) and not NOMINAL.serves(
        MEASURES["samples_f1"])


def test_the_rules_of_each_kind():
    """Label sets: not stratified (scikit-learn has none for them), scope local, no binary
    tasks; ranks: the scale; one class per document: one-vs-rest tasks. Stated per kind, so
    that a new kind adds its own line."""
    rules = {k: (k.stratified, k.scopes, k.one_vs_rest, k.ranks, k.unit)
             for k in (NOMINAL, ORDINAL, MULTILABEL)}
    assert rules == {NOMINAL: (True, ("global",), True, False, "class"),
                     ORDINAL: (True, ("global",), False, True, "rank"),
                     MULTILABEL: (False, ("global", "local"), False, False, "label")}
    with pytest.raises(TextsiftError, match="unknown requirement"):
        NOMINAL.meets("sorted")


@pytest.mark.parametrize("kind", list(LabelKind), ids=str)
def test_each_kind_makes_valid_example_labels_of_itself(kind):
    """``LabelKind.example``: 60 labels, as a JSON corpus file gives them, read back
    (``as_labels``; ``decide_kind`` from the kind's declaration) as labels of the kind itself,
    with at least two labels (a corpus to score), integers where the kind is ranks; the same
    labels from the same seed."""
    import json

    import numpy as np

    from textsift.labels import as_labels

    y = kind.example(np.random.default_rng(0), 60)
    assert len(y) == 60 and json.loads(json.dumps(y)) == y
    lists = isinstance(y[0], list)
    assert all(isinstance(v, list) == lists for v in y)
    assert decide_kind(kind.declared, lists, "label") is kind
    labels = as_labels(y)
    assert labels.n_docs == 60 and labels.n_classes >= 2
    if kind.ranks:
        assert all(isinstance(v, int) for v in y)
    assert kind.example(np.random.default_rng(0), 60) == y


def test_a_prediction_wrong_on_every_decision_worked_by_hand():
    """``toys.wrong``: the next class (cyclically), the far end of the scale (the middle
    rank of 1-5 to 5: a mirror, 6 - r, would keep it right), every label flipped."""
    import numpy as np
    from toys import wrong

    assert wrong(NOMINAL, [0, 1, 2, 3, 1], [0, 1, 2, 3]).tolist() == [1, 2, 3, 0, 2]
    assert wrong(NOMINAL, ["b", "a"], ["a", "b"]).tolist() == ["a", "b"]
    assert wrong(ORDINAL, [1, 2, 3, 4, 5], [1, 2, 3, 4, 5]).tolist() == [5, 5, 5, 1, 1]
    assert wrong(ORDINAL, [2, 7], [2, 4, 7]).tolist() == [7, 2]
    assert wrong(MULTILABEL, np.array([[1, 0, 1], [0, 0, 0]]), [0, 1, 2]).tolist() == [
        [0, 1, 0], [1, 1, 1]]
    with pytest.raises(ValueError, match="needs two labels or more"):
        wrong(ORDINAL, [3, 3], [3])


@settings(max_examples=40)
@given(st.sampled_from(list(LabelKind)), st.integers(0, 10_000), st.integers(2, 40))
def test_the_wrong_prediction_of_each_kind_misses_every_decision(kind, seed, n_docs):
    """On the kind's example labels in the form learners take (``tests/toys.py``), with two
    classes or more: the prediction has the labels' shape and values among the classes (0/1
    for label sets), and differs from the truth on every document (every cell of a label
    set); a rank's is at least half the scale's span away."""
    import numpy as np
    t = toy(kind, n_docs, seed)
    assume(len(t.classes) >= 2)
    wrong = t.wrong
    assert wrong.shape == t.y.shape and np.all(wrong != t.y)
    assert set(np.unique(wrong)) <= ({0, 1} if kind.label_sets else set(t.classes.tolist()))
    if kind.ranks:
        assert np.all(2 * np.abs(wrong - t.y) >= t.classes.max() - t.classes.min())
