"""Many labels through every door: a TermSelector fitted on a sparse indicator of thousands of
columns, ``textsift score --per-class`` and ``--class`` on a corpus of thousands of tags --
the sparse layout, and the rankings of the dense one."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
import scipy.sparse as sp
from typer.testing import CliRunner

from textsift.cli import app
from textsift.counting.counts import Counts
from textsift.errors import TextsiftError
from textsift.selection.ranking import rank, rank_per_class
from textsift.selection.selectors import TermSelector

runner = CliRunner()


def tagged(seed=0, n_docs=2000, n_terms=1500, n_tags=3000):
    """Documents of 8 words from ``n_terms``, each with 1 to 3 of ``n_tags`` tags (most
    tags on one or two documents); a tag's documents share one word of their own."""
    rng = np.random.default_rng(seed)
    tags = [sorted(rng.choice(n_tags, rng.integers(1, 4), replace=False).tolist())
            for _ in range(n_docs)]
    rows, cols = [], []
    for d, ts in enumerate(tags):
        words = set(rng.integers(0, n_terms, 8).tolist()) | {t % n_terms for t in ts}
        rows += [d] * len(words)
        cols += sorted(words)
    X = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n_docs, n_terms))
    return X, tags


def test_a_selector_on_a_sparse_indicator_of_thousands_of_labels():
    """TermSelector(chi2, max) on a 0/1 indicator of the 2,191 tags with documents: counted
    in the sparse layout, ranked from its non-zero cells, the same terms as on the dense
    layout's table (max is exact)."""
    X, tags = tagged()
    present = sorted({t for ts in tags for t in ts})
    Y = sp.lil_matrix((len(tags), len(present)), dtype=np.int8)
    for d, ts in enumerate(tags):
        Y[d, [present.index(t) for t in ts]] = 1
    Y = Y.tocsr()
    sel = TermSelector("chi2", k=40, classes=present).fit(X, Y)
    assert sel.counts_.layout == "sparse" and sel.counts_.n_classes == len(present) > 2000
    dense = sel.counts_.to_layout("dense")
    want = rank(dense, "chi2", aggregate="max", top=40)
    np.testing.assert_array_equal(np.sort(sel.selected_), np.sort(want.index))
    assert sel.transform(X).shape == (len(tags), 40)


def test_a_label_that_no_document_has_in_an_indicator_is_one_error():
    X, tags = tagged(n_tags=50)
    Y = np.zeros((len(tags), 51), dtype=int)  # column 50: no document
    for d, ts in enumerate(tags):
        Y[d, ts] = 1
    with pytest.raises(TextsiftError, match=r"1 label\(s\) of the indicator matrix have no "
                                            r"document \(all-zero columns: 50\)"):
        TermSelector("chi2").fit(X, Y)
    declared = [[str(t) for t in ts] for ts in tags]  # as lists, a declared label may lack one
    sel = TermSelector("chi2", classes=[str(t) for t in range(51)]).fit(X, declared)
    assert sel.counts_.class_sizes[sel.counts_.classes.tolist().index("50")] == 0


@pytest.fixture(scope="module")
def corpus_file(tmp_path_factory):
    X, tags = tagged(1)
    path = tmp_path_factory.mktemp("tags") / "tags.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for d, ts in enumerate(tags):
            words = " ".join(f"w{j}" for j in X[d].indices)
            fh.write(json.dumps({"text": words, "labels": [f"tag{t}" for t in ts]}) + "\n")
    from textsift.reading.corpus import read_corpus

    corpus = read_corpus(path, label_field="labels")
    return path, Counts.from_texts(corpus.texts, corpus.labels)


def test_score_per_class_on_thousands_of_tags_prints_a_row_per_tag_and_position(corpus_file):
    path, counts = corpus_file
    assert counts.layout == "sparse" and counts.n_classes > 2000
    res = runner.invoke(app, ["score", str(path), "--label-field", "labels", "--per-class",
                              "--top", "3"])
    assert res.exit_code == 0, res.output
    rows = [line.split("\t") for line in res.stdout.splitlines()]
    assert rows[0] == ["class", "position", "term", "score"]
    best = rank_per_class(counts, "chi2", top=3)
    assert len(rows) == 1 + sum(len(r) for r in best)
    want = [[str(r.class_label), str(i + 1), t] for r in best for i, t in enumerate(r.terms)]
    assert [row[:3] for row in rows[1:]] == want


def test_score_class_on_thousands_of_tags_is_that_tag_ranking(corpus_file):
    path, counts = corpus_file
    tag = str(counts.classes[np.argmax(counts.class_sizes)])
    res = runner.invoke(app, ["score", str(path), "--label-field", "labels", "--class", tag,
                              "--top", "5", "--format", "csv"])
    assert res.exit_code == 0, res.output
    records = list(csv.DictReader(io.StringIO(res.stdout)))
    want = rank(counts.to_layout("dense"), "chi2", class_label=tag, top=5)
    assert [r["term"] for r in records] == list(want.terms)
    np.testing.assert_array_equal([float(r["score"]) for r in records], want.scores)
