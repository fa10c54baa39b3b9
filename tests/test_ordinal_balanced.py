"""The rank-balanced associated-rank rules (``balanced=True`` of rr_var, rr_var_idf, rr_nc_idf
and prp): a worked example on the ordinal toy of test_ordinal_scores, the share every rank
receives on a J-shaped corpus, and invariants (equal rank sizes change nothing; replicating a
rank's documents changes nothing but the IDF)."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from test_ordinal_scores import toy_counts

from textsift import Counts, compute, rank
from textsift.errors import TextsiftError
from textsift.scores import REGISTRY
from textsift.scores.ordinal import rank_stats, rank_weights

BALANCED = ("rr_var", "rr_var_idf", "rr_nc_idf", "prp")
SCALE = [1, 2, 3, 4, 5]


def test_every_balanced_method_takes_the_parameter_and_defaults_to_the_papers_rule():
    for name in BALANCED:
        assert REGISTRY[name].params["balanced"] is False


def test_a11_balanced_statistics():
    # ranks (1,1,2,3,3,4,4,5,5,5): sizes 2,1,2,2,3, so w_j = 10 / (5 N_j) = 1, 2, 1, 1, 2/3
    toy = toy_counts()
    np.testing.assert_allclose(rank_weights(toy), [1, 2, 1, 1, 2 / 3])
    s = rank_stats(toy, balanced=True)
    # t1 (ranks 1,1,2): weights 2 on rank 1 and 2 on rank 2 -> mean 1.5, var 0.25; t6 (ranks 1
    # and 5): (1 * 1 + 2/3 * 5) / (5/3) = 2.6; t3 (every document): every rank weighs 2 -> the
    # mean 3 and variance 2 of a uniform 1-5
    np.testing.assert_allclose(s.mean, [1.5, 14 / 3, 3, 3, 2.8, 2.6])
    np.testing.assert_allclose(s.var, [0.25, 2 / 9, 2, 0, 0.56, 3.84])
    np.testing.assert_array_equal(s.df, [3, 4, 10, 1, 4, 2])  # the IDF keeps the counts
    np.testing.assert_allclose(s.mass, [4, 3, 10, 1, 5, 5 / 3])
    # t1's mean 1.5 is a tie between ranks 1 and 2: the lower one (our tie rule); t2 at 14/3 and
    # t6 at 2.6 keep the paper's ranks 5 and 3
    groups = dict(zip(*[rank(toy, "rr_var", top=6, balanced=True).to_frame()[c] for c in
                        ("term", "group")], strict=True))
    assert groups == {"t1": 1, "t2": 5, "t3": 3, "t4": 3, "t5": 3, "t6": 3}


def _j_shaped(seed=0):
    """1,000 reviews rated 1-5 in the proportions 6/5/9/20/60%. Each rank has 20 words in 40%
    of its reviews and 2% of the others; "refund" is in 45 of the 60 one-star reviews and in
    55 of the 600 five-star ones (most of its reviews are five-star); 20 common words are in
    30% of every rank."""
    rng = np.random.default_rng(seed)
    sizes = [60, 50, 90, 200, 600]
    y = np.repeat(SCALE, sizes)
    n = len(y)
    cols, names = [], []
    for r in SCALE:
        p = np.where(y == r, 0.4, 0.02)
        for i in range(20):
            cols.append(rng.random(n) < p)
            names.append(f"r{r}_{i}")
    for i in range(20):
        cols.append(rng.random(n) < 0.3)
        names.append(f"common{i}")
    refund = np.zeros(n, bool)
    refund[np.flatnonzero(y == 1)[:45]] = True
    refund[np.flatnonzero(y == 5)[:55]] = True
    cols.append(refund)
    names.append("refund")
    X = sp.csr_matrix(np.column_stack(cols).astype(np.int64))
    return Counts.from_matrix(X, y, classes=SCALE, feature_names=names)


@pytest.mark.parametrize("method", ["rr_var", "rr_var_idf", "rr_nc_idf"])
def test_every_rank_gets_its_share_on_a_j_shaped_corpus(method):
    counts = _j_shaped()
    k = 50  # a round-robin share of 10 terms per rank
    share = k / 5
    big = counts.class_sizes / counts.n_docs >= 0.05  # here every rank
    assert big.all()
    paper = rank(counts, method, top=k).to_frame()
    balanced = rank(counts, method, top=k, balanced=True).to_frame()
    got = balanced["group"].value_counts().reindex(SCALE, fill_value=0)
    assert (got[big] >= share / 5).all(), got.to_dict()
    # the paper's mean rule on the same data leaves rank 1 (6% of the reviews) without a fifth
    # of its share: its words' means are pulled towards the five-star majority. (Its median
    # rule still serves rank 1 here, whose words are in more one-star reviews than others.)
    if method != "rr_nc_idf":
        assert (paper["group"] == 1).sum() < share / 5
    # the planted word: over-represented among one-star reviews, listed under rank 1
    whole = rank(counts, method, top=counts.n_terms, balanced=True).to_frame()
    assert whole.set_index("term").loc["refund", "group"] == 1
    paper_whole = rank(counts, method, top=counts.n_terms).to_frame()
    assert paper_whole.set_index("term").loc["refund", "group"] > 2


def test_equal_rank_sizes_change_nothing():
    y = np.repeat(SCALE, 4)
    X = sp.random(20, 12, density=0.3, random_state=1, format="csr")
    X.data[:] = 1
    counts = Counts.from_matrix(X, y, classes=SCALE)
    for method in BALANCED:
        np.testing.assert_array_equal(compute(counts, method, balanced=True).values,
                                      compute(counts, method).values)


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_replicating_a_ranks_documents_changes_nothing_but_the_idf(data):
    rng = np.random.default_rng(data.draw(st.integers(0, 10**6)))
    n, V = 30, 8
    y = np.r_[SCALE, rng.choice(SCALE, n - 5)]
    X = (rng.random((n, V)) < 0.35).astype(np.int64)
    r = data.draw(st.sampled_from(SCALE))
    times = data.draw(st.integers(2, 4))
    extra = np.flatnonzero(y == r)
    X2 = np.vstack([X] + [X[extra]] * (times - 1))
    y2 = np.r_[y, np.tile(y[extra], times - 1)]
    a = Counts.from_matrix(sp.csr_matrix(X), y, classes=SCALE)
    b = Counts.from_matrix(sp.csr_matrix(X2), y2, classes=SCALE)
    sa, sb = rank_stats(a, balanced=True), rank_stats(b, balanced=True)
    np.testing.assert_allclose(sb.mean, sa.mean)
    np.testing.assert_allclose(sb.var, sa.var, atol=1e-12)
    # RR(Var) and PRP have no IDF: their balanced tables do not move
    for method in ("rr_var", "prp"):
        np.testing.assert_allclose(compute(b, method, balanced=True).values,
                                   compute(a, method, balanced=True).values, atol=1e-12)
    # RR(NC*IDF): the rank each term is listed under does not move
    ga = np.argmax(compute(a, "rr_nc_idf", balanced=True).values, axis=1)
    gb = np.argmax(compute(b, "rr_nc_idf", balanced=True).values, axis=1)
    np.testing.assert_array_equal(ga, gb)


def test_balanced_must_be_a_boolean():
    toy = toy_counts()
    for method in BALANCED:
        with pytest.raises(TextsiftError, match="balanced must be True or False, got 'yes'"):
            compute(toy, method, balanced="yes")


def test_the_ordinal_command_defaults_to_the_combination_measured_best():
    # docs/ordinal/defaults.csv: MAE^M of every method, associated-rank rule and min_df on the
    # four corpora of docs/reproductions.md, section 3 (examples/ordinal/defaults.py); the
    # command's defaults are the best mean over the corpora and the levels 0.5-20%
    from pathlib import Path

    import pandas as pd
    import typer

    from textsift.cli import app

    table = pd.read_csv(Path(__file__).parent.parent / "docs" / "ordinal" / "defaults.csv")
    common = table[table.level <= 0.2]
    per = common.groupby(["method", "min_df", "balanced", "corpus"]).mae_macro.mean().unstack()
    assert per.shape[1] == 4 and not per.isna().any().any()
    method, min_df, balanced = per.mean(axis=1).idxmin()
    command = typer.main.get_command(app).commands["ordinal"]
    defaults = {p.name: p.default for p in command.params}
    assert (defaults["method"], defaults["min_df"]) == (method, min_df) == ("rr_igor", 5)
    assert not balanced and "balanced" not in REGISTRY[method].params  # no variant to choose
