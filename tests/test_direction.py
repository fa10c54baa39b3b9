"""Direction: a class's terms are the ones over-represented in it, in every view.

The toy: class ``a`` (4 documents) is the only class without the word ``common``, which every
document of ``b`` and ``c`` (8) has, and the only one with ``apple`` (2 of its 4). chi2 is
two-sided: ``common``'s table for ``a`` is (A, B, C, D) = (0, 8, 4, 0), chi2 = 12 (the whole
table's N), above ``apple``'s (2, 0, 2, 8), chi2 = 12 * (16)^2 / (2 * 10 * 4 * 8) = 4.8. So the
two-sided top term of ``a`` is a word of its absence.
"""

import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from textsift import Counts, rank
from textsift.cli import app
from textsift.errors import TextsiftError
from textsift.report.explore_data import explore_data
from textsift.scores.direction import direction, representation
from textsift.selection.ranking import class_terms, rank_per_class

DOCS = (["apple pie", "apple tart", "pie", "tart"]
        + ["common pie", "common tart", "common", "common pie"]
        + ["common cake", "common", "common cake", "common tart"])
LABELS = ["a"] * 4 + ["b"] * 4 + ["c"] * 4


@pytest.fixture(scope="module")
def counts():
    return Counts.from_texts(DOCS, LABELS)


def test_the_two_sided_top_term_is_an_absence_word(counts):
    both = rank(counts, "chi2", class_label="a", top=2, direction="both")
    assert both.terms.tolist() == ["common", "apple"]
    np.testing.assert_allclose(both.scores, [12.0, 4.8])
    assert both.to_frame()["direction"].tolist() == ["under", "over"]


def test_rank_keeps_one_direction(counts):
    assert rank(counts, "chi2", class_label="a", top=1, direction="over").terms.tolist() == [
        "apple"]
    assert rank(counts, "chi2", class_label="a", top=1, direction="under").terms.tolist() == [
        "common"]


def test_a_policy_over_classes_keeps_each_terms_scores_of_that_direction(counts):
    """Under max over classes, common scores 12 (class a, under) two-sided; over-represented,
    its best is in b or c: (4, 4, 4, 0), chi2 = 12 * 16^2 / (8 * 4 * 4 * 8) = 3."""
    two_sided = rank(counts, "chi2", aggregate="max")
    over = rank(counts, "chi2", aggregate="max", direction="over")
    assert two_sided.scores[two_sided.terms == "common"][0] == pytest.approx(12.0)
    assert over.scores[over.terms == "common"][0] == pytest.approx(3.0)


def test_per_class_shows_over_represented_terms_by_default(counts):
    rankings = {str(r.class_label): r for r in rank_per_class(counts, "chi2", top=1)}
    assert rankings["a"].terms.tolist() == ["apple"]
    both = {str(r.class_label): r for r in rank_per_class(counts, "chi2", top=2,
                                                           direction="both")}
    assert both["a"].terms.tolist() == ["common", "apple"]
    assert both["a"].signs.tolist() == [-1, 1]


def _score(*args):
    res = CliRunner().invoke(app, ["score", *args])
    assert res.exit_code == 0, res.stderr
    return res.stdout


def test_cli_class_view(tmp_path, counts):
    path = tmp_path / "toy.jsonl"
    path.write_text("".join(json.dumps({"text": t, "label": y}) + "\n"
                            for t, y in zip(DOCS, LABELS, strict=True)))
    rows = json.loads(_score(str(path), "--class", "a", "--top", "1", "-f", "json"))
    assert [r["term"] for r in rows] == ["apple"]
    rows = json.loads(_score(str(path), "--class", "a", "--top", "2", "-f", "json",
                             "--direction", "both"))
    assert [(r["term"], r["direction"]) for r in rows] == [("common", "under"),
                                                            ("apple", "over")]
    rows = json.loads(_score(str(path), "--per-class", "--top", "1", "-f", "json"))
    assert {r["class"]: r["term"] for r in rows}["a"] == "apple"
    table = _score(str(path), "--per-class", "--top", "2", "--direction", "both")
    assert "common -" in table and "apple +" in table


def test_report_class_table(counts):
    assert class_terms(counts, "chi2", "max", top=1).loc["a", "terms"] == "apple"


def test_explore_class_lists(counts):
    data = explore_data(counts, cap=5)
    view = data["views"]["chi2"]
    a = [str(c) for c in counts.classes].index("a")
    assert [data["terms"][i] for i in view["c"][a][0]][:1] == ["apple"]
    assert [data["terms"][i] for i in view["cu"][a][0]][:1] == ["common"]
    assert view["cd"][a].startswith("-+")


def test_selector_is_two_sided_unless_asked(counts):
    """A selector keeps its documented two-sided ranking (common, an absence word of a,
    is the best chi2 term there is); ``direction="over"`` keeps positive indicators."""
    from textsift import TermSelector

    X = np.asarray([[d.split().count(t) for t in counts.feature_names] for d in DOCS])
    fitted = TermSelector("chi2", k=1).fit(X, LABELS)
    assert counts.feature_names[fitted.selected_].tolist() == ["common"]
    over = TermSelector("chi2", k=1, direction="over").fit(X, LABELS)
    assert counts.feature_names[over.selected_].tolist() != ["common"]


def test_unknown_direction_is_refused(counts):
    with pytest.raises(TextsiftError, match="over, under, both"):
        rank(counts, "chi2", class_label="a", direction="up")


@given(st.integers(0, 50), st.integers(0, 50), st.integers(0, 50), st.integers(0, 50))
def test_representation_is_the_sign_of_the_difference_of_shares(A, B, C, D):
    """Against exact fractions: A / (A + C) - B / (B + D), 0 where a class is empty."""
    exact = (Fraction(A, A + C) if A + C else 0) - (Fraction(B, B + D) if B + D else 0)
    expected = 0 if (A + C == 0 or B + D == 0) else int(np.sign(exact))
    assert representation(*(np.float64(x) for x in (A, B, C, D))) == expected


def test_direction_table_is_one_column_per_class(counts):
    table = direction(counts).table()
    a = [str(c) for c in counts.classes].index("a")
    common = counts.feature_names.tolist().index("common")
    assert table.values[common, a] == -1


@pytest.mark.parametrize("direction", ["over", "under", "both"])
@pytest.mark.parametrize("method", ["chi2", "bns", "log_odds_dirichlet"])
def test_each_class_terms_of_a_direction_come_from_its_cells_not_its_column(monkeypatch,
                                                                             direction, method):
    """rank_per_class of one direction equals each class's column with the other direction
    as -inf (the definition), marks included. Over-represented terms are non-zero cells
    only (a term none of a class's documents has is under-represented there), so "over",
    the default of every view, reads no whole column of the sparse layout: with 100,000
    labels a column per label is V x m cells (the regression that made 2,000 labels 4.7x
    slower than scipy's ten lines; the other directions may read the column of a class that
    holds most terms, where it costs less than the walk)."""
    import scipy.sparse as sp

    from textsift.scores import compute
    from textsift.scores._tables import PerClass
    from textsift.scores.direction import direction as direction_table
    from textsift.selection.policies import rank_scores
    from textsift.selection.ranking import _directed_column, rank_per_class

    rng = np.random.default_rng(3)
    X = sp.random(300, 80, density=0.06, random_state=3, format="csr")
    X.data[:] = rng.integers(1, 4, X.nnz)
    Y = (rng.random((300, 12)) < 0.15).astype(int)
    Y[np.arange(12), np.arange(12)] = 1
    counts = Counts.from_matrix(X, Y, layout="sparse")
    table, signs = compute(counts, method, dense=False), direction_table(counts)
    expected = [rank_scores(_directed_column(table.column(j), signs, direction, g), table.seen, 7)
                for j, g in enumerate(table.groups)]
    marks = [signs.column(j) for j in range(len(table.groups))]
    if direction == "over":
        monkeypatch.setattr(PerClass, "column", lambda self, j: pytest.fail("read a column"))
    got = rank_per_class(counts, method, top=7, direction=direction)
    for j, (r, e) in enumerate(zip(got, expected, strict=True)):
        kept = e.scores > -np.inf
        np.testing.assert_array_equal(r.index, e.index[kept])
        np.testing.assert_array_equal(r.scores, e.scores[kept])
        np.testing.assert_array_equal(r.signs, marks[j][r.index])
        if direction != "both":
            assert (r.signs == (1 if direction == "over" else -1)).all()


def test_rank_and_score_class_share_one_default_direction():
    """``rank(counts, m, class_label=c)`` shows c's over-represented terms, as ``textsift
    score --class c`` does (it showed both directions, heading "earn" with "news" and "no",
    terms earn's documents lack); a policy's ranking keeps both by default. The worked
    example of the README: earn's documents are "profit up" and "merger and profit"."""
    from textsift import Counts, rank
    from textsift.selection.ranking import shown_direction

    texts = ["profit up", "merger and profit", "no news today"]
    counts = Counts.from_texts(texts, [["earn"], ["acq", "earn"], []])
    r = rank(counts, "chi2", class_label="earn", top=4)
    assert list(r.terms) == ["profit", "and", "merger", "up"]
    assert r.direction == "over" and list(r.scores) == [3.0, 0.75, 0.75, 0.75]
    assert shown_direction(None) == "both" and shown_direction(None, per_class=True) == "over"
    assert rank(counts, "chi2", "max").direction == "both"
