"""The registry's entries: what a method requires of a labelling, its parameters, and the one
check of both (textsift.labels.check_requirement, textsift.scores.compute)."""

import numpy as np
import pytest

from textsift import Counts, TermSelector
from textsift.errors import TextsiftError
from textsift.experiment import parse_config
from textsift.experiment.plan import Selection, selections
from textsift.labels import REQUIREMENTS, check_requirement
from textsift.scores import REGISTRY, compute, register
from textsift.scores.forman import pow_
from textsift.selection.ranking import rank

ORDINAL = {"var", "var_idf", "rr_var", "rr_var_idf", "rr_igor", "rr_nc_idf", "prp",
           "mann_whitney"}


def test_requirements_of_every_method():
    """Ordinal methods read ranks and one rating per document; ig_multi reads the class as one
    m-valued variable. The one-vs-rest methods need neither (they read the stored N, df and
    TF(t), right for label sets too)."""
    for name, m in REGISTRY.items():
        expected = (("ranks", "single_label") if name in ORDINAL
                    else ("single_label",) if name in ("ig_multi", "chi2_multi") else ())
        assert m.requires == expected, name
        assert ("ranks" in m.requires) == (m.kind == "ordinal"), name
        assert set(m.requires) <= set(REQUIREMENTS)
    assert {n for n, m in REGISTRY.items() if m.reads_term_freq} == {
        "am", "rc", "chi2_sklearn", "log_odds_dirichlet"}


def test_check_requirement_names_what_is_missing():
    """One check of a method against a labelling: label lists for any requirement, labels
    that are not integer ranks for "ranks" (with check_ranks's reason), other than two
    classes for "two_classes"."""
    words = Counts.from_matrix(np.eye(3), ["a", "b", "c"])
    stars = Counts.from_matrix(np.eye(3), [1, 2, 5])
    lists = Counts.from_matrix(np.eye(3), [["a"], ["a", "b"], []])
    check_requirement(REGISTRY["chi2"].requires, lists, "chi2")
    check_requirement(REGISTRY["rr_var"].requires, stars, "rr_var")
    with pytest.raises(ValueError, match=r"^c.jsonl: rr_var is an ordinal method: it needs "
                                         r"ordered integer ranks as labels .* must be numbers"):
        check_requirement(REGISTRY["rr_var"].requires, words, "rr_var", "c.jsonl")
    with pytest.raises(ValueError, match=r"^ig_multi needs one label per document"):
        check_requirement(REGISTRY["ig_multi"].requires, lists, "ig_multi")
    with pytest.raises(ValueError, match=r"needs exactly two classes; the labels have 3"):
        check_requirement(("two_classes",), words, "x")


def test_an_ordinal_method_on_class_names_is_refused_at_the_selector():
    X, y = np.eye(3), np.array(["a", "b", "c"])
    with pytest.raises(ValueError, match="rr_var is an ordinal method: it needs ordered"):
        TermSelector("rr_var", k=1).fit(X, y)
    with pytest.raises(ValueError, match="var_idf is an ordinal method: it needs ordered"):
        rank(Counts.from_matrix(X, y), "var_idf")
    assert TermSelector("rr_var", k=1).fit(X, [1, 2, 3]).selected_.tolist() == [0]


def test_parameters_come_from_the_signatures():
    """A binary metric's own keywords are the method's (pow's exponent, PR's zero rule), with
    the choices its annotation lists; eps is one name for the three IDF methods."""
    assert REGISTRY["pow"].params == {"k": 5}
    assert REGISTRY["prob_ratio"].choices == {"zero_denominator": ("inf", "add_one")}
    assert REGISTRY["prp"].params == {"s": 0.5, "base": 2.0, "balanced": False}
    assert REGISTRY["var_idf"].params == {"a": 1.0, "eps": 0.1, "idf": "standard"}
    for name in ("rr_var_idf", "rr_nc_idf"):  # the rank-balanced variant (balanced=True)
        assert REGISTRY[name].params == {"a": 1.0, "eps": 0.1, "idf": "standard",
                                         "balanced": False}, name
        assert REGISTRY[name].choices == {"idf": ("standard", "smooth")}, name


def test_a_parameter_is_passed_and_an_unknown_one_is_named():
    X, y = np.array([[1, 0], [1, 1], [0, 1], [0, 1]]), np.array([0, 0, 1, 1])
    counts = Counts.from_matrix(X, y)
    # class 0: tpr = (1, 1/2), fpr = (0, 1): Pow = (1 - fpr)^3 - (1 - tpr)^3
    np.testing.assert_array_equal(compute(counts, "pow", k=3).values[:, 0], [1.0, -0.125])
    assert pow_(1.0, 0.0, 1.0, 2.0, k=3) == 1 - 0.5 ** 3
    with pytest.raises(ValueError, match=r"chi2 has no parameter base; it takes yates"):
        compute(counts, "chi2", base=2)
    ranks = Counts.from_matrix(X, [1, 1, 2, 2])
    with pytest.raises(ValueError, match=r"^rr_nc_idf has no parameter eps_nc; it takes a, "
                                         r"eps, idf, balanced$"):
        compute(ranks, "rr_nc_idf", eps_nc=0.1)


def test_signed_scores_refuse_sum_and_wavg():
    """A score whose sign is the direction of the association (log_odds_dirichlet: negative
    where the term is under-represented in the class) declares itself ``signed``: it offers
    max and rr only, and sum and wavg are refused wherever a policy meets the table (rank,
    the selector, an experiment's plan skips them with the reason). The unsigned scores of
    the same counts are ranked under every policy. Worked example: with two classes the
    log-odds of n are those of p negated (test_log_odds), so every term sums to 0 -- the
    ranking would be column order."""
    signed = sorted(n for n, m in REGISTRY.items() if m.signed)
    assert signed == ["acc", "g2", "log_odds_dirichlet", "mi", "pow", "rc"]
    counts = Counts.from_matrix(np.array([[1, 2, 0], [3, 1, 1], [0, 1, 2]]), ["p", "n", "o"])
    for name in signed:
        assert REGISTRY[name].aggregates == ("max", "rr")
        for aggregate in ("sum", "wavg"):
            with pytest.raises(TextsiftError, match=rf"the policy '{aggregate}' adds a term's "
                                                    r"scores over the classes, but these scores "
                                                    r"are signed \(rc, acc, pow, g2, mi, "
                                                    r"log_odds_dirichlet: a negative score means "
                                                    r"the term is under-represented"):
                rank(counts, name, aggregate=aggregate)
        assert len(rank(counts, name, aggregate="max")) == 3
        assert len(rank(counts, name, class_label="p")) == 3  # one class's scores: no sum
    assert len(rank(counts, "chi2", aggregate="wavg")) == 3
    exp = parse_config({"experiment": {"name": "s"}, "corpus": {"sample": "20ng"},
                        "selection": {"methods": ["log_odds_dirichlet", "chi2"],
                                      "aggregates": ["max", "wavg"], "sizes": [10]},
                        "learners": [{"name": "nb"}]})
    pairs, notes = selections(exp)
    assert pairs == [Selection("log_odds_dirichlet", "max"), Selection("chi2", "max"),
                     Selection("chi2", "wavg")]
    assert [n[:80] for n in notes] == [
        "log_odds_dirichlet has no 'wavg' policy (it offers max, rr); skipped: the policy"]
    with pytest.raises(RuntimeError, match=r"method 'x': its default policy 'sum' is not among "
                                           r"those it offers \(max, rr\)"):
        register("x", "nominal", "", default_aggregate="sum", signed=True)(lambda c: c.df)
